"""texport.special: torch.special's functions.

Each records the op torch.special's binding records (``special.gammaln`` is
``special_gammaln``, which core programs take to ``lgamma``); a Python number
as either operand of xlogy, xlog1py or zeta picks its Scalar overload.
"""

from __future__ import annotations

from typing import Any

from texport.dialects.dtypes import DType
from texport.tracer.dispatcher import call
from texport.tracer.handles import op
from texport.tracer.tensor import Tensor


def _unary(name: str) -> Any:
    def function(input: Tensor) -> Tensor:  # noqa: A002 - torch's name
        return call(op(name), input)

    function.__name__ = name.removeprefix("special_")
    return function


erf = _unary("special_erf")
erfc = _unary("special_erfc")
erfcx = _unary("special_erfcx")
erfinv = _unary("special_erfinv")
expit = _unary("special_expit")
expm1 = _unary("special_expm1")
exp2 = _unary("special_exp2")
gammaln = _unary("special_gammaln")
digamma = _unary("special_digamma")
psi = _unary("special_psi")
i0 = _unary("special_i0")
i0e = _unary("special_i0e")
i1 = _unary("special_i1")
i1e = _unary("special_i1e")
ndtr = _unary("special_ndtr")
ndtri = _unary("special_ndtri")
log_ndtr = _unary("special_log_ndtr")
log1p = _unary("special_log1p")
sinc = _unary("special_sinc")
entr = _unary("special_entr")
bessel_j0 = _unary("special_bessel_j0")
bessel_j1 = _unary("special_bessel_j1")
bessel_y0 = _unary("special_bessel_y0")
bessel_y1 = _unary("special_bessel_y1")
modified_bessel_i0 = _unary("special_modified_bessel_i0")
modified_bessel_i1 = _unary("special_modified_bessel_i1")
modified_bessel_k0 = _unary("special_modified_bessel_k0")
modified_bessel_k1 = _unary("special_modified_bessel_k1")
scaled_modified_bessel_k0 = _unary("special_scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _unary("special_scaled_modified_bessel_k1")
spherical_bessel_j0 = _unary("special_spherical_bessel_j0")
airy_ai = _unary("special_airy_ai")


def gammainc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return call(op("special_gammainc"), input, other)


def gammaincc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return call(op("special_gammaincc"), input, other)


def polygamma(n: int, input: Tensor) -> Tensor:  # noqa: A002
    return call(op("special_polygamma"), n, input)


def multigammaln(input: Tensor, p: int) -> Tensor:  # noqa: A002
    return call(op("special_multigammaln"), input, p)


def logit(input: Tensor, eps: float | None = None) -> Tensor:  # noqa: A002
    return call(op("special_logit"), input, eps)


def round(input: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001, A002
    return call(op("special_round"), input, decimals=decimals)


def _binary(name: str) -> Any:
    """xlogy, xlog1py, zeta: ``name``, ``name.other_scalar`` or ``name.self_scalar``."""

    def function(input: Any, other: Any) -> Tensor:  # noqa: A002
        if not isinstance(input, Tensor):
            return call(op(f"{name}.self_scalar"), input, other)
        return call(op(name if isinstance(other, Tensor) else f"{name}.other_scalar"), input, other)

    function.__name__ = name.removeprefix("special_")
    return function


xlogy = _binary("special_xlogy")
xlog1py = _binary("special_xlog1py")
zeta = _binary("special_zeta")


def _polynomial(name: str) -> Any:
    """P_n(x): a Python number as x or n picks the ``x_scalar`` or ``n_scalar`` overload."""

    def function(input: Any, n: Any) -> Tensor:  # noqa: A002 - torch's name
        if not isinstance(input, Tensor):
            return call(op(f"special_{name}.x_scalar"), input, n)
        return call(op(f"special_{name}" if isinstance(n, Tensor) else f"special_{name}.n_scalar"), input, n)

    function.__name__ = name
    return function


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _polynomial("hermite_polynomial_h")
hermite_polynomial_he = _polynomial("hermite_polynomial_he")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l")
legendre_polynomial_p = _polynomial("legendre_polynomial_p")


def softmax(input: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:  # noqa: A002
    return call(op("special_softmax"), input, dim, dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:  # noqa: A002
    return call(op("special_log_softmax"), input, dim, dtype=dtype)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    return call(op("special_logsumexp"), input, list(dim) if isinstance(dim, (list, tuple)) else [dim], keepdim)


__all__ = [
    "airy_ai", "gammainc", "gammaincc", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
    "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
    "exp2", "expit", "expm1", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit",
    "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py",
    "xlogy", "zeta",
]
