"""``texport.nn.init``: torch's initialisers, as in-place ops on the tensor.

Every draw is one ``uniform_`` / ``normal_`` op, so all of them come from the
one seeded generator (``texport.manual_seed``) and a model built twice after
the same seed has the same weights. The numbers differ from torch's (texport's
generator is not torch's), the distributions and bounds do not.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..dispatcher import call
from ..factories import eye
from ..handles import op
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "constant_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_",
    "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for a nonlinearity (torch's table)."""
    if nonlinearity in _LINEAR_FNS:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[Any, Any]:
    """fan_in = size(1) * receptive field, fan_out = size(0) * receptive field.

    For a transposed conv weight [in, out/groups, k...] this reads size(1) as
    the fan-in, exactly as torch does."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = 1
    for size in tensor.shape[2:]:
        receptive_field *= size
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> Any:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    return call(op("uniform_"), tensor, a, b)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    return call(op("normal_"), tensor, mean, std)


def constant_(tensor: Tensor, val: float) -> Tensor:
    return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return tensor.fill_(1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return call(op("zero_"), tensor)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return tensor.copy_(eye(tensor.size(0), tensor.size(1), dtype=tensor.dtype))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    # U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    # N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Any = None) -> Tensor:
    # U(-b, b), b = gain * sqrt(3 / fan)
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Any = None) -> Tensor:
    # N(0, std^2), std = gain / sqrt(fan)
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Any = None) -> Tensor:
    """N(mean, std^2) restricted to [a, b], by inverse-CDF sampling as torch does."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    low = _norm_cdf((a - mean) / std)
    high = _norm_cdf((b - mean) / std)
    uniform_(tensor, 2 * low - 1, 2 * high - 1)
    tensor.copy_(_erfinv(tensor))
    tensor.mul_(std * math.sqrt(2.0))
    tensor.add_(mean)
    return tensor.clamp_(min=a, max=b)


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


# Giles (2010), "Approximating the erfinv function": single-precision
# polynomials in w = -log(1 - x^2), one for the centre (w < 5), one for the tails.
_ERFINV_CENTRE = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _erfinv(x: Tensor) -> Tensor:
    """erfinv through ops (ATen's erfinv is not in texport's op table)."""
    w = ((1 - x) * (1 + x)).log().neg()
    centre = _horner(_ERFINV_CENTRE, w - 2.5)
    tail = _horner(_ERFINV_TAIL, w.sqrt() - 3.0)
    return _select(w < 5.0, centre, tail) * x


def _select(condition: Tensor, a: Tensor, b: Tensor) -> Tensor:
    return call(op("where.self"), condition, a, b)


def _horner(coefficients: tuple[float, ...], w: Tensor) -> Tensor:
    result = w * coefficients[0] + coefficients[1]
    for c in coefficients[2:]:
        result = result * w + c
    return result
