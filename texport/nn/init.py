"""``texport.nn.init``: re-exports of texport.tracer.nn.init."""

from texport.tracer.nn.init import (  # noqa: F401 - re-exports
    _calculate_correct_fan,
    _calculate_fan_in_and_fan_out,
    calculate_gain,
    constant_,
    eye_,
    kaiming_normal_,
    kaiming_uniform_,
    normal_,
    ones_,
    trunc_normal_,
    uniform_,
    xavier_normal_,
    xavier_uniform_,
    zeros_,
)

__all__ = [
    "calculate_gain", "constant_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_",
    "ones_", "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
]
