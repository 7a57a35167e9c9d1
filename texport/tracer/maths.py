"""The Python API of the special functions and the rest of the pointwise maths:
Tensor methods (``x.erfinv()``, ``x.xlogy_(y)``), ``texport.*`` functions
(``texport.hypot``) and the ``texport.special`` namespace.

Each name calls the op torch's binding calls, so a program records the same op:
``texport.special.gammaln(x)`` is ``special_gammaln``, ``texport.lgamma(x)`` is
``lgamma``; a Python number picks the Scalar overload as torch's does.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .dispatcher import call
from .handles import op
from .tensor import Tensor, install_methods


class frexp_result(NamedTuple):  # noqa: N801 - torch.return_types spelling
    mantissa: Any
    exponent: Any


# method name -> op; the in-place `name_` is installed too when the op exists
MATH_UNARY_METHODS = {
    name: name for name in (
        "erfc", "erfinv", "lgamma", "digamma", "i0", "sinc", "logit", "sgn", "deg2rad", "rad2deg",
        "fix", "signbit", "isneginf", "isposinf", "isreal", "positive",
    )
}
# method name -> op taking (self, other[, ...])
MATH_OTHER_METHODS = {
    name: name for name in (
        "hypot", "hypot_", "logaddexp", "logaddexp2", "fmax", "fmin", "gcd", "gcd_", "lcm", "lcm_",
        "nextafter", "nextafter_", "heaviside", "heaviside_", "isclose", "mvlgamma", "mvlgamma_",
        "igamma", "igamma_", "igammac", "igammac_",
    )
} | {"ldexp": "ldexp.Tensor", "ldexp_": "ldexp_"}
# method name -> (op when other is a Tensor, op when other is a Python number)
MATH_TENSOR_OR_SCALAR_METHODS = {
    "copysign": ("copysign.Tensor", "copysign.Scalar"), "copysign_": ("copysign_.Tensor", "copysign_.Scalar"),
    "xlogy": ("xlogy.Tensor", "xlogy.Scalar_Other"), "xlogy_": ("xlogy_.Tensor", "xlogy_.Scalar_Other"),
    "float_power": ("float_power.Tensor_Tensor", "float_power.Tensor_Scalar"),
    "float_power_": ("float_power_.Tensor", "float_power_.Scalar"),
}


def _polygamma(self: Tensor, n: int) -> Tensor:
    return call(op("polygamma"), n, self)  # the method takes n second; the op, first


def _polygamma_(self: Tensor, n: int) -> Tensor:
    return call(op("polygamma_"), self, n)


def _frexp(self: Tensor) -> frexp_result:
    return frexp_result(*call(op("frexp.Tensor"), self))


def _round(self: Tensor, *, decimals: int | None = None) -> Tensor:
    """round.decimals when decimals is given (0 too, as torch's binding), else round."""
    return call(op("round"), self) if decimals is None else call(op("round.decimals"), self, decimals=decimals)


def _round_(self: Tensor, *, decimals: int | None = None) -> Tensor:
    return call(op("round_"), self) if decimals is None else call(op("round_.decimals"), self, decimals=decimals)


def _install() -> None:
    install_methods(MATH_UNARY_METHODS, MATH_OTHER_METHODS, MATH_TENSOR_OR_SCALAR_METHODS)
    for name, method in (("polygamma", _polygamma), ("polygamma_", _polygamma_), ("frexp", _frexp),
                         ("round", _round), ("round_", _round_)):
        setattr(Tensor, name, method)


_install()


# ---------------------------------------------------------------- texport.* functions

# texport.<name>(x, ...) == x.<name>(...)
METHOD_FUNCTIONS = (
    *MATH_UNARY_METHODS, "hypot", "logaddexp", "logaddexp2", "fmax", "fmin", "gcd", "lcm", "nextafter",
    "heaviside", "isclose", "mvlgamma", "ldexp", "copysign", "frexp", "igamma", "igammac",
)


def polygamma(n: int, input: Tensor) -> Tensor:  # noqa: A002 - torch's names
    return call(op("polygamma"), n, input)


def xlogy(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _scalar_first("xlogy.Tensor", "xlogy.Scalar_Other", "xlogy.Scalar_Self", input, other)


def float_power(input: Any, exponent: Any) -> Tensor:  # noqa: A002
    return _scalar_first("float_power.Tensor_Tensor", "float_power.Tensor_Scalar", "float_power.Scalar",
                         input, exponent)


def _scalar_first(tensors: str, other_number: str, self_number: str, first: Any, second: Any) -> Tensor:
    """The overload torch's binding picks: a Python number first or second, else both tensors."""
    if not isinstance(first, Tensor):
        return call(op(self_number), first, second)
    return call(op(tensors if isinstance(second, Tensor) else other_number), first, second)


def _function(name: str) -> Any:
    def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 - torch's name
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = name
    return function


FUNCTIONS = {name: _function(name) for name in METHOD_FUNCTIONS} | {
    "polygamma": polygamma, "xlogy": xlogy, "float_power": float_power,
}
