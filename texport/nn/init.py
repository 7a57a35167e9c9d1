"""``texport.nn.init``: the names of texport.tracer.nn.init's ``__all__``, and
the fan helpers torch code reaches for."""

from texport.tracer.nn.init import *  # noqa: F403 - the public face of the same names
from texport.tracer.nn.init import (  # noqa: F401
    __all__,
    _calculate_correct_fan,
    _calculate_fan_in_and_fan_out,
)
