"""Pointwise maths, activations and dropout that are not core: each is a short
formula over core ops."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from texport.interpreter.dtypes import to_numpy

from ._common import DType, Tensor, aten, canonical_dim, cast_to, register_decomposition


# masked_fill(x, m, v) = where(m, scalar_tensor(v), x)
@register_decomposition(aten.masked_fill.Scalar)
def masked_fill_scalar(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    return aten.where.self(mask, aten.scalar_tensor.default(value, dtype=self.dtype), self)


# masked_fill(x, m, v) = where(m, v, x) for a 0-d tensor v
@register_decomposition(aten.masked_fill.Tensor)
def masked_fill_tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    if value.dtype is not self.dtype:
        value = aten._to_copy.default(value, dtype=self.dtype)
    return aten.where.self(mask, value, self)


# rsub(x, y, α) = y - α·x
@register_decomposition(aten.rsub.Tensor)
def rsub_tensor(self: Tensor, other: Tensor, *, alpha: Any = 1) -> Tensor:
    return aten.sub.Tensor(other, self, alpha=alpha)


# rsub(x, s, α) = sub(s, x, α) (s as a wrapped number)
@register_decomposition(aten.rsub.Scalar)
def rsub_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return aten.sub.Tensor(other, self, alpha=alpha)


# floor_divide(x, y) = div(x, y, rounding_mode="floor")
@register_decomposition(aten.floor_divide.default)
def floor_divide(self: Tensor, other: Tensor) -> Tensor:
    return aten.div.Tensor_mode(self, other, rounding_mode="floor")


# floor_divide(x, s) = div(x, s, rounding_mode="floor") (s as a wrapped number)
@register_decomposition(aten.floor_divide.Scalar)
def floor_divide_scalar(self: Tensor, other: Any) -> Tensor:
    return aten.div.Tensor_mode(self, other, rounding_mode="floor")


# true_divide(x, y) = div(x, y)
@register_decomposition(aten.true_divide.Tensor)
def true_divide(self: Tensor, other: Tensor) -> Tensor:
    return aten.div.Tensor(self, other)


# true_divide(x, s) = div(x, s)
@register_decomposition(aten.true_divide.Scalar)
def true_divide_scalar(self: Tensor, other: Any) -> Tensor:
    return aten.div.Scalar(self, other)


# max(x, y) = maximum(x, y)
@register_decomposition(aten.max.other)
def max_other(self: Tensor, other: Tensor) -> Tensor:
    return aten.maximum.default(self, other)


# min(x, y) = minimum(x, y)
@register_decomposition(aten.min.other)
def min_other(self: Tensor, other: Tensor) -> Tensor:
    return aten.minimum.default(self, other)


# clamp_min(x, m) = clamp(x, m, None)
@register_decomposition(aten.clamp_min.default)
def clamp_min(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    return aten.clamp.default(self, min, None)


# clamp_min(x, m) = clamp(x, m, None) for a tensor m
@register_decomposition(aten.clamp_min.Tensor)
def clamp_min_tensor(self: Tensor, min: Tensor) -> Tensor:  # noqa: A002
    return aten.clamp.Tensor(self, min, None)


# clamp_max(x, m) = clamp(x, None, m)
@register_decomposition(aten.clamp_max.default)
def clamp_max(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    return aten.clamp.default(self, None, max)


# clamp_max(x, m) = clamp(x, None, m) for a tensor m
@register_decomposition(aten.clamp_max.Tensor)
def clamp_max_tensor(self: Tensor, max: Tensor) -> Tensor:  # noqa: A002
    return aten.clamp.Tensor(self, None, max)


# lerp(x, y, w) = lerp(x, y, full([], w)) (torch._refs: the weight as a 0-d tensor)
@register_decomposition(aten.lerp.Scalar)
def lerp_scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return lerp_tensor(self, end, aten.full.default([], weight, dtype=self.dtype))


# lerp(x, y, w) = where(|w| >= 0.5, w - 1, w)·(y - x) + where(|w| >= 0.5, y, x) (exact at both ends)
@register_decomposition(aten.lerp.Tensor)
def lerp_tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    high = aten.ge.Scalar(aten.abs.default(weight), 0.5)
    coeff = aten.where.self(high, aten.sub.Tensor(weight, 1), weight)
    base = aten.where.self(high, end, self)
    return aten.add.Tensor(aten.mul.Tensor(coeff, aten.sub.Tensor(end, self)), base)


# addcmul(x, a, b, v) = x + v·a·b
@register_decomposition(aten.addcmul.default)
def addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    product = aten.mul.Tensor(tensor1, tensor2)
    return aten.add.Tensor(self, product if value == 1 else aten.mul.Tensor(product, value))


# addcdiv(x, a, b, v) = x + v·a/b
@register_decomposition(aten.addcdiv.default)
def addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    quotient = aten.div.Tensor(tensor1, tensor2)
    return aten.add.Tensor(self, quotient if value == 1 else aten.mul.Tensor(quotient, value))


def _scalar_dtype(value: Any, like: DType | None) -> DType:
    """The dtype a Python scalar takes next to a tensor of dtype ``like`` (torch's wrapped numbers)."""
    if isinstance(value, bool):
        return like or DType.bool
    if isinstance(value, int):
        return like if like is not None and like is not DType.bool else DType.int64
    return like if like is not None and like.is_floating_point else DType.float32


# where(c, x, s) = where(c, x, scalar_tensor(s))
@register_decomposition(aten.where.ScalarOther)
def where_scalar_other(condition: Tensor, self: Tensor, other: Any) -> Tensor:
    return aten.where.self(condition, self, aten.scalar_tensor.default(other, dtype=_scalar_dtype(other, self.dtype)))


# where(c, s, y) = where(c, scalar_tensor(s), y)
@register_decomposition(aten.where.ScalarSelf)
def where_scalar_self(condition: Tensor, self: Any, other: Tensor) -> Tensor:
    return aten.where.self(condition, aten.scalar_tensor.default(self, dtype=_scalar_dtype(self, other.dtype)), other)


# where(c, a, b) = where(c, scalar_tensor(a), scalar_tensor(b))
@register_decomposition(aten.where.Scalar)
def where_scalar(condition: Tensor, self: Any, other: Any) -> Tensor:
    both = DType.float32 if isinstance(self, float) or isinstance(other, float) else (
        DType.bool if isinstance(self, bool) and isinstance(other, bool) else DType.int64)
    return aten.where.self(condition, aten.scalar_tensor.default(self, dtype=both),
                           aten.scalar_tensor.default(other, dtype=both))


# frac(x) = x - trunc(x)
@register_decomposition(aten.frac.default)
def frac(self: Tensor) -> Tensor:
    return aten.sub.Tensor(self, aten.trunc.default(self))


# square(x) = x ** 2
@register_decomposition(aten.square.default)
def square(self: Tensor) -> Tensor:
    if self.dtype is DType.bool:
        return aten._to_copy.default(self, dtype=DType.int64)
    return aten.pow.Tensor_Scalar(self, 2)


# isfinite(x) = not (isinf(x) or isnan(x)); every integer is finite
@register_decomposition(aten.isfinite.default)
def isfinite(self: Tensor) -> Tensor:
    if not self.dtype.is_floating_point:
        return aten.full_like.default(self, True, dtype=DType.bool)
    return aten.logical_not.default(aten.logical_or.default(aten.isinf.default(self), aten.isnan.default(self)))


# nan_to_num(x, n, p, m) = where(isnan(x), n, where(x == inf, p, where(x == -inf, m, x)))
@register_decomposition(aten.nan_to_num.default)
def nan_to_num(self: Tensor, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    if not self.dtype.is_floating_point:
        return aten.clone.default(self)
    info = _finfo(self.dtype)
    out = aten.where.self(aten.isnan.default(self), _scalar(0.0 if nan is None else nan, self), self)
    out = aten.where.self(aten.eq.Scalar(self, float("inf")), _scalar(info[1] if posinf is None else posinf, self), out)
    return aten.where.self(aten.eq.Scalar(self, float("-inf")), _scalar(info[0] if neginf is None else neginf, self),
                           out)


def _scalar(value: Any, like: Tensor) -> Tensor:
    return aten.scalar_tensor.default(value, dtype=like.dtype)


def _finfo(dtype: DType) -> tuple[float, float]:
    info = np.finfo(to_numpy(dtype))
    return float(info.min), float(info.max)




# ---------------------------------------------------------------- special functions and more maths
# (torch._refs' formulas, op for op: the core programs hold the same ops as torch's)


def _to_float(x: Tensor) -> Tensor:
    """Integral and bool inputs of a float-valued op, as float32 (torch's INT_TO_FLOAT)."""
    return x if x.dtype.is_floating_point or x.dtype.is_complex else aten._to_copy.default(x, dtype=DType.float32)


def _float_pair(self: Any, other: Any) -> tuple[Tensor, Tensor]:
    """Two operands of a float-valued binary op: a Python number as a 0-d tensor of
    the other's dtype (torch's prims.scalar_tensor), integers as float32."""
    if not isinstance(self, Tensor):
        other = _to_float(other)
        return aten.scalar_tensor.default(self, dtype=other.dtype), other
    self = _to_float(self)
    if not isinstance(other, Tensor):
        return self, aten.scalar_tensor.default(other, dtype=self.dtype)
    return self, _to_float(other)


def _x_times_log(self: Any, other: Any, log: Any) -> Tensor:
    """where(isnan(y), nan, where(x == 0, 0, x · log(y)))."""
    x, y = _float_pair(self, other)
    rhs = aten.where.self(aten.eq.Scalar(x, 0), _scalar(0, x), aten.mul.Tensor(x, log(y)))
    return aten.where.self(aten.isnan.default(y), _scalar(float("nan"), rhs), rhs)


# xlogy(x, y) = where(isnan(y), nan, where(x == 0, 0, x·log(y)))
@register_decomposition([aten.xlogy.Tensor, aten.xlogy.Scalar_Other, aten.xlogy.Scalar_Self])
def xlogy(self: Any, other: Any) -> Tensor:
    return _x_times_log(self, other, aten.log.default)


# xlog1py(x, y) = where(isnan(y), nan, where(x == 0, 0, x·log1p(y)))
@register_decomposition([aten.special_xlog1py.default, aten.special_xlog1py.other_scalar,
                         aten.special_xlog1py.self_scalar])
def special_xlog1py(self: Any, other: Any) -> Tensor:
    return _x_times_log(self, other, aten.log1p.default)


# sinc(x) = where(πx == 0, 1, sin(πx) / (πx))
@register_decomposition([aten.sinc.default, aten.special_sinc.default])
def sinc(self: Tensor) -> Tensor:
    scaled = aten.mul.Tensor(_to_float(self), math.pi)
    return aten.where.self(aten.eq.Scalar(scaled, 0), _scalar(1, scaled),
                           aten.div.Tensor(aten.sin.default(scaled), scaled))


# logit(x, ε) = log(c / (1 - c)), c = x clamped to [ε, 1 - ε] (ε = -1 when None: no clamp takes effect)
@register_decomposition([aten.logit.default, aten.special_logit.default])
def logit(self: Tensor, eps: float | None = None) -> Tensor:
    low = -1.0 if eps is None else eps
    high = 1 - low
    x = _to_float(self)
    below = aten.lt.Scalar(x, low)
    clamped = aten.where.self(aten.gt.Scalar(x, high), _scalar(high, x), x)
    clamped = aten.where.self(below, _scalar(low, x), clamped)
    return aten.log.default(aten.div.Tensor(clamped, aten.sub.Tensor(1, clamped)))


# expit(x) = sigmoid(x)
@register_decomposition(aten.special_expit.default)
def special_expit(self: Tensor) -> Tensor:
    return aten.sigmoid.default(self)


# ndtr(x) = (1 + erf(x / √2)) / 2
@register_decomposition(aten.special_ndtr.default)
def special_ndtr(self: Tensor) -> Tensor:
    scaled = aten.mul.Scalar(_to_float(self), math.sqrt(0.5))
    return aten.mul.Scalar(aten.add.Scalar(aten.erf.default(scaled), 1), 0.5)


# log_ndtr(x) = where(x < 1, log(erfcx(-t) / 2) - t², log1p(-erfc(t) / 2)), t = x / √2
@register_decomposition(aten.special_log_ndtr.default)
def special_log_ndtr(self: Tensor) -> Tensor:
    x = _to_float(self)
    t = aten.mul.Tensor(x, math.sqrt(0.5))
    below = aten.lt.Scalar(x, 1.0)
    small = aten.sub.Tensor(aten.log.default(aten.div.Tensor(aten.special_erfcx.default(aten.neg.default(t)), 2)),
                            aten.mul.Tensor(t, t))
    large = aten.log1p.default(aten.div.Tensor(aten.neg.default(aten.erfc.default(t)), 2))
    return aten.where.self(below, small, large)


# entr(x) = where(isnan(x), x, where(x > 0, -x·log(x), where(x == 0, 0, -inf)))
@register_decomposition(aten.special_entr.default)
def special_entr(self: Tensor) -> Tensor:
    x = _to_float(self)
    nan = aten.isnan.default(x)
    positive = aten.gt.Scalar(x, 0)
    value = aten.mul.Tensor(aten.neg.default(x), aten.log.default(x))
    zero = aten.eq.Scalar(x, 0)
    rest = aten.where.self(zero, _scalar(0, x), _scalar(float("-inf"), x))
    return aten.where.self(nan, x, aten.where.self(positive, value, rest))


# mvlgamma(x, p) = Σ_i lgamma(x + i/2 for i in 1-p..0) + p(p-1)/4 · log π
@register_decomposition(aten.mvlgamma.default)
def mvlgamma(self: Tensor, p: int) -> Tensor:
    x = _to_float(self)
    halves = aten.mul.Tensor(aten.arange.start_step(1 - p, 1, 1, dtype=x.dtype), 0.5)
    terms = aten.lgamma.default(aten.add.Tensor(aten.unsqueeze.default(x, -1), halves))
    return aten.add.Tensor(aten.sum.dim_IntList(terms, [-1]), 0.25 * p * (p - 1) * math.log(math.pi))


# logaddexp(a, b) = where(a is ±inf or nan, and a == b: a; max + log1p(exp(min - max)))
@register_decomposition(aten.logaddexp.default)
def logaddexp(self: Tensor, other: Tensor) -> Tensor:
    high, low = _ordered(self, other)
    finite = aten.mul.Tensor(aten.eq.Tensor(self, self), aten.ne.Scalar(aten.abs.default(self), float("inf")))
    same_infinity = aten.logical_and.default(aten.logical_not.default(finite), aten.eq.Tensor(self, other))
    result = aten.add.Tensor(high, aten.log1p.default(aten.exp.default(aten.sub.Tensor(low, high))))
    return aten.where.self(same_infinity, self, result)


# logaddexp2(a, b) = where(isinf(a) and a == b, a, max + log1p(2^(min - max)) / log 2)
@register_decomposition(aten.logaddexp2.default)
def logaddexp2(self: Tensor, other: Tensor) -> Tensor:
    high, low = _ordered(self, other)
    same_infinity = aten.logical_and.default(aten.isinf.default(self), aten.eq.Tensor(self, other))
    shift = aten.log1p.default(aten.exp2.default(aten.sub.Tensor(low, high)))
    result = aten.add.Tensor(high, aten.mul.Tensor(shift, 1 / math.log(2)))
    return aten.where.self(same_infinity, self, result)


def _ordered(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(max, min) of a and b chosen by a >= b (nan picks b for max, a for min)."""
    first = aten.ge.Tensor(a, b)
    return aten.where.self(first, a, b), aten.where.self(first, b, a)


def _wide(x: Any) -> Any:
    """A float_power operand in double (complex double stays); a number as it is."""
    if not isinstance(x, Tensor):
        return float(x) if not isinstance(x, complex) else x
    return cast_to(x, DType.complex128 if x.dtype.is_complex else DType.float64)


# float_power(x, e) = pow(double(x), double(e))
@register_decomposition(aten.float_power.Tensor_Tensor)
def float_power(self: Tensor, exponent: Tensor) -> Tensor:
    wide_exponent = _wide(exponent)
    return aten.pow.Tensor_Tensor(_wide(self), wide_exponent)


# float_power(x, s) = pow(double(x), s)
@register_decomposition(aten.float_power.Tensor_Scalar)
def float_power_tensor_scalar(self: Tensor, exponent: Any) -> Tensor:
    return aten.pow.Tensor_Scalar(_wide(self), _wide(exponent))


# float_power(s, e) = pow(s, double(e))
@register_decomposition(aten.float_power.Scalar)
def float_power_scalar(self: Any, exponent: Tensor) -> Tensor:
    return aten.pow.Scalar(_wide(self), _wide(exponent))


# deg2rad(x) = x · π/180
@register_decomposition(aten.deg2rad.default)
def deg2rad(self: Tensor) -> Tensor:
    return aten.mul.Tensor(_to_float(self), math.pi / 180)


# rad2deg(x) = x · 180/π
@register_decomposition(aten.rad2deg.default)
def rad2deg(self: Tensor) -> Tensor:
    return aten.mul.Tensor(_to_float(self), 180 / math.pi)


# sgn(x) = sign(x) for a real x
@register_decomposition(aten.sgn.default)
def sgn(self: Tensor) -> Tensor:
    if self.dtype.is_complex:
        size = aten.abs.default(self)
        return aten.where.self(aten.eq.Scalar(size, 0), _scalar(0, self), aten.div.Tensor(self, size))
    return aten.sign.default(self)


# heaviside(x, v) = where(x == 0, v, where(x < 0 or isnan(x), 0, 1))
@register_decomposition(aten.heaviside.default)
def heaviside(self: Tensor, values: Tensor) -> Tensor:
    negative = aten.logical_or.default(aten.lt.Scalar(self, 0), aten.isnan.default(self))
    steps = aten.where.self(negative, aten.scalar_tensor.default(0, dtype=DType.int64),
                            aten.scalar_tensor.default(1, dtype=DType.int64))
    return aten.where.self(aten.eq.Scalar(self, 0), values, steps)


# isclose(a, b, r, t, n) = a == b [or both nan] or (|a - b| finite and |a - b| <= t + |r·b|)
@register_decomposition(aten.isclose.default)
def isclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    close = aten.eq.Tensor(self, other)
    if equal_nan and (self.dtype.is_floating_point or self.dtype.is_complex):
        close = aten.bitwise_or.Tensor(close, aten.bitwise_and.Tensor(aten.isnan.default(self),
                                                                      aten.isnan.default(other)))
    if atol == 0 and rtol == 0:
        return close
    a, b = _to_float(self), _to_float(other)
    allowed = aten.add.Scalar(aten.abs.default(aten.mul.Scalar(b, rtol)), atol)
    difference = aten.abs.default(aten.sub.Tensor(a, b))
    finite = aten.mul.Tensor(aten.eq.Tensor(difference, difference),
                             aten.ne.Scalar(aten.abs.default(difference), float("inf")))
    within = aten.bitwise_and.Tensor(finite, aten.le.Tensor(difference, allowed))
    return aten.bitwise_or.Tensor(close, within)


# isposinf(x) = x == inf (never, for integers)
@register_decomposition(aten.isposinf.default)
def isposinf(self: Tensor) -> Tensor:
    return _is_infinity(self, float("inf"))


# isneginf(x) = x == -inf (never, for integers)
@register_decomposition(aten.isneginf.default)
def isneginf(self: Tensor) -> Tensor:
    return _is_infinity(self, float("-inf"))


def _is_infinity(self: Tensor, infinity: float) -> Tensor:
    if not self.dtype.is_floating_point:
        return aten.full_like.default(self, False, dtype=DType.bool)
    return aten.eq.Scalar(self, infinity)


# isreal(x) = true everywhere for a real x
@register_decomposition(aten.isreal.default)
def isreal(self: Tensor) -> Tensor:
    if self.dtype.is_complex:
        raise NotImplementedError("isreal of a complex tensor has no decomposition yet (it needs aten.imag)")
    return aten.full_like.default(self, True, dtype=DType.bool)


# positive(x) = x (an alias, which functionalization drops as torch's)
@register_decomposition(aten.positive.default)
def positive(self: Tensor) -> Tensor:
    return self


# fix(x) = trunc(x)
@register_decomposition(aten.fix.default)
def fix(self: Tensor) -> Tensor:
    return aten.trunc.default(self)


# torch.special's names: each is the op it names


# special.erf(x) = erf(x)
@register_decomposition(aten.special_erf.default)
def special_erf(self: Tensor) -> Tensor:
    return aten.erf.default(self)


# special.erfc(x) = erfc(x)
@register_decomposition(aten.special_erfc.default)
def special_erfc(self: Tensor) -> Tensor:
    return aten.erfc.default(self)


# special.erfinv(x) = erfinv(x)
@register_decomposition(aten.special_erfinv.default)
def special_erfinv(self: Tensor) -> Tensor:
    return aten.erfinv.default(self)


# special.expm1(x) = expm1(x)
@register_decomposition(aten.special_expm1.default)
def special_expm1(self: Tensor) -> Tensor:
    return aten.expm1.default(self)


# special.exp2(x) = exp2(x)
@register_decomposition(aten.special_exp2.default)
def special_exp2(self: Tensor) -> Tensor:
    return aten.exp2.default(self)


# special.gammaln(x) = lgamma(x)
@register_decomposition([aten.special_gammaln.default])
def special_gammaln(self: Tensor) -> Tensor:
    return aten.lgamma.default(self)


# special.digamma(x) = special.psi(x) = digamma(x)
@register_decomposition([aten.special_digamma.default, aten.special_psi.default])
def special_digamma(self: Tensor) -> Tensor:
    return aten.digamma.default(self)


# special.polygamma(n, x) = polygamma(n, x)
@register_decomposition(aten.special_polygamma.default)
def special_polygamma(n: int, self: Tensor) -> Tensor:
    return aten.polygamma.default(n, self)


# special.multigammaln(x, p) = mvlgamma(x, p)
@register_decomposition(aten.special_multigammaln.default)
def special_multigammaln(self: Tensor, p: int) -> Tensor:
    return mvlgamma(self, p)


# special.i0(x) = i0(x)
@register_decomposition(aten.special_i0.default)
def special_i0(self: Tensor) -> Tensor:
    return aten.i0.default(self)


# special.log1p(x) = log1p(x)
@register_decomposition(aten.special_log1p.default)
def special_log1p(self: Tensor) -> Tensor:
    return aten.log1p.default(self)


# special.round(x, decimals=d) = round.decimals(x, d), whatever d (torch's core programs keep round.decimals)
@register_decomposition(aten.special_round.default)
def special_round(self: Tensor, *, decimals: int = 0) -> Tensor:
    return aten.round.decimals(self, decimals=decimals)


# special.xlogy(x, y) = xlogy(x, y)
@register_decomposition([aten.special_xlogy.default, aten.special_xlogy.other_scalar, aten.special_xlogy.self_scalar])
def special_xlogy(self: Any, other: Any) -> Tensor:
    return xlogy(self, other)


# special.gammainc(a, x) = igamma(a, x)
@register_decomposition(aten.special_gammainc.default)
def special_gammainc(self: Tensor, other: Tensor) -> Tensor:
    return aten.igamma.default(self, other)


# special.gammaincc(a, x) = igammac(a, x)
@register_decomposition(aten.special_gammaincc.default)
def special_gammaincc(self: Tensor, other: Tensor) -> Tensor:
    return aten.igammac.default(self, other)


# ---------------------------------------------------------------- activations and dropout


# dropout(x, p, train) = x when not training; else x * mask / (1 - p), mask from native_dropout
@register_decomposition(aten.dropout.default)
def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    if not train or p == 0:
        return aten.clone.default(input)
    return aten.native_dropout.default(input, p, train)[0]


# native_dropout_backward(g, mask, s) = clone(g * (mask.to(g.dtype) * s)), contiguous (torch's)
@register_decomposition(aten.native_dropout_backward.default)
def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    scaled = aten.mul.Tensor(aten._to_copy.default(mask, dtype=grad_output.dtype), scale)
    return aten.clone.default(aten.mul.Tensor(grad_output, scaled), memory_format="contiguous_format")


# feature_dropout(x, p, train) = x · bernoulli(empty([N, C, 1...]), 1 - p) / (1 - p); x itself when
# not training (ATen's _dropout_impl, a CompositeImplicitAutograd kernel: no clone)
@register_decomposition(aten.feature_dropout.default)
def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return dropout_impl(input, p, train, feature=True, alpha=False)


_SELU_ALPHA = 1.6732632423543772848170429916717


_SELU_SCALE = 1.0507009873554804934193349852946


_ALPHA_PRIME = _SELU_ALPHA * _SELU_SCALE


# alpha_dropout(x, p) = x·a·mask + a·α'·(p - (1 - mask)), a = ((α'²p + 1)(1 - p))^-½ (keeps selu's statistics),
# mask = bernoulli(empty_like(x), 1 - p)
@register_decomposition(aten.alpha_dropout.default)
def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return dropout_impl(input, p, train, feature=False, alpha=True)


# feature_alpha_dropout = alpha_dropout with one mask per (N, C) channel
@register_decomposition(aten.feature_alpha_dropout.default)
def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return dropout_impl(input, p, train, feature=True, alpha=True)


def dropout_impl(input: Tensor, p: float, train: bool, feature: bool, alpha: bool) -> Tensor:  # noqa: A002
    """ATen's _dropout_impl, op for op."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return aten.mul.Tensor(input, aten.full.default([], 0, dtype=input.dtype))
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        noise = aten.empty.memory_format([*input.shape[:2], *[1] * (input.dim() - 2)], dtype=input.dtype)
    else:
        noise = aten.empty_like.default(input)
    noise = aten.bernoulli.p(noise, 1 - p)
    if not alpha:
        return aten.mul.Tensor(input, aten.div.Scalar(noise, 1 - p))
    a = 1.0 / math.sqrt((_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = aten.add.Scalar(aten.mul.Scalar(aten.add.Scalar(noise, -1), _ALPHA_PRIME * a), _ALPHA_PRIME * a * p)
    return aten.add.Tensor(aten.mul.Tensor(input, aten.mul.Scalar(noise, a)), b)


# relu6(x) = hardtanh(x, 0, 6)
@register_decomposition(aten.relu6.default)
def relu6(self: Tensor) -> Tensor:
    return aten.hardtanh.default(self, 0, 6)


# silu(x) = x · sigmoid(x)
@register_decomposition(aten.silu.default)
def silu(self: Tensor) -> Tensor:
    return aten.mul.Tensor(self, aten.sigmoid.default(self))


# selu(x) = elu(x, α, scale) with selu's constants
@register_decomposition(aten.selu.default)
def selu(self: Tensor) -> Tensor:
    return aten.elu.default(self, _SELU_ALPHA, _SELU_SCALE)


# celu(x, α) = where(x > 0, x, α·expm1(x / α)), torch's reference (α = 1: no scaling, as torch traces it)
@register_decomposition(aten.celu.default)
def celu(self: Tensor, alpha: Any = 1.0) -> Tensor:
    if alpha == 1:
        negative = aten.expm1.default(self)
    else:
        negative = aten.mul.Tensor(aten.expm1.default(aten.div.Tensor(self, alpha)), alpha)
    return aten.where.self(aten.gt.Scalar(self, 0), self, negative)


# softshrink(x, λ) = where(|x| > λ, x - sign(x)·λ, x·0)
@register_decomposition(aten.softshrink.default)
def softshrink(self: Tensor, lambd: Any = 0.5) -> Tensor:
    shrunk = aten.sub.Tensor(self, aten.mul.Tensor(aten.sign.default(self), lambd))
    return aten.where.self(aten.gt.Scalar(aten.abs.default(self), lambd), shrunk, aten.mul.Tensor(self, 0))


# hardshrink(x, λ) = where(|x| <= λ, 0, x)
@register_decomposition(aten.hardshrink.default)
def hardshrink(self: Tensor, lambd: Any = 0.5) -> Tensor:
    return aten.where.ScalarSelf(aten.le.Scalar(aten.abs.default(self), lambd), 0, self)


# threshold(x, t, v) = where(x <= t, v, x)
@register_decomposition(aten.threshold.default)
def threshold(self: Tensor, threshold: Any, value: Any) -> Tensor:
    return aten.where.self(aten.le.Scalar(self, threshold), aten.scalar_tensor.default(value, dtype=self.dtype), self)


# hardswish(x) = x · clamp(clamp(x + 3, min=0), max=6) / 6
@register_decomposition(aten.hardswish.default)
def hardswish(self: Tensor) -> Tensor:
    return aten.div.Tensor(aten.mul.Tensor(self, _relu6_shifted(self)), 6)


# hardsigmoid(x) = clamp(clamp(x + 3, min=0), max=6) / 6
@register_decomposition(aten.hardsigmoid.default)
def hardsigmoid(self: Tensor) -> Tensor:
    return aten.div.Tensor(_relu6_shifted(self), 6)


def _relu6_shifted(x: Tensor) -> Tensor:
    return aten.clamp.default(aten.clamp.default(aten.add.Tensor(x, 3), 0), None, 6)


# softplus(x, β, t) = where(βx > t, x, log1p(exp(βx)) / β) (β = 1: no scaling, as torch traces the default)
@register_decomposition(aten.softplus.default)
def softplus(self: Tensor, beta: Any = 1, threshold: Any = 20) -> Tensor:
    if beta == 1:
        scaled, soft = self, aten.log1p.default(aten.exp.default(self))
    else:
        scaled = aten.mul.Tensor(self, beta)
        soft = aten.div.Tensor(aten.log1p.default(aten.exp.default(scaled)), beta)
    return aten.where.self(aten.gt.Scalar(scaled, threshold), self, soft)


# mish(x) = x · tanh(softplus(x))
@register_decomposition(aten.mish.default)
def mish(self: Tensor) -> Tensor:
    return aten.mul.Tensor(self, aten.tanh.default(softplus(self)))


# log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))
@register_decomposition(aten.log_sigmoid.default)
def log_sigmoid(self: Tensor) -> Tensor:
    return log_sigmoid_forward(self)[0]


# log_sigmoid_forward(x) = (min(0, x) - log1p(b), b) with b = exp(-|x|)
@register_decomposition(aten.log_sigmoid_forward.default)
def log_sigmoid_forward(self: Tensor) -> tuple[Tensor, Tensor]:
    low = aten.minimum.default(aten.full.default([], 0, dtype=self.dtype), self)
    buffer = aten.exp.default(aten.neg.default(aten.abs.default(self)))
    return aten.sub.Tensor(low, aten.log1p.default(buffer)), buffer


# glu(x, d) = a · sigmoid(b), [a, b] the halves of x along d
@register_decomposition(aten.glu.default)
def glu(self: Tensor, dim: int = -1) -> Tensor:
    dim = canonical_dim(dim, self.dim())
    half = self.shape[dim] // 2
    first = aten.slice.Tensor(self, dim, 0, half)
    second = aten.slice.Tensor(self, dim, half, self.shape[dim])
    return aten.mul.Tensor(first, aten.sigmoid.default(second))


# rrelu(x, l, u, t) = rrelu_with_noise_functional(x, empty_like(x), l, u, t)[0], as torch's
@register_decomposition(aten.rrelu.default)
def rrelu(self: Tensor, lower: Any = 0.125, upper: Any = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    noise = aten.empty_like.default(self, memory_format="contiguous_format")  # ATen: LEGACY_CONTIGUOUS
    return aten.rrelu_with_noise_functional.default(self, noise, lower, upper, training)[0]


# prelu(x, w) = where(x > 0, x, w·x), w viewed as [1, C, 1, ...] (ATen's reshape; none when w has that shape)
@register_decomposition(aten.prelu.default)
def prelu(self: Tensor, weight: Tensor) -> Tensor:
    shape = [1] * self.dim()
    if self.dim() > 1:
        shape[1] = weight.numel()
    if list(weight.shape) != shape:
        weight = aten.view.default(weight, shape)
    return aten.where.self(aten.gt.Scalar(self, 0), self, aten.mul.Tensor(weight, self))


# _prelu_kernel(x, w) = where(x > 0, x, w·x), w broadcast as it comes (torch's decomposition)
@register_decomposition(aten._prelu_kernel.default)
def _prelu_kernel(self: Tensor, weight: Tensor) -> Tensor:
    return aten.where.self(aten.gt.Scalar(self, 0), self, aten.mul.Tensor(weight, self))


# fill(x, v) = full_like(x, v): torch's default table takes this core op to full_like
@register_decomposition(aten.fill.Scalar)
def fill_scalar(self: Tensor, value: Any) -> Tensor:
    return aten.full_like.default(self, value)


# fill(x, v) = copy(x, v) for a 0-d v (torch's decomposition; copy broadcasts and casts)
@register_decomposition(aten.fill.Tensor)
def fill_tensor(self: Tensor, value: Tensor) -> Tensor:
    if value.dim() != 0:
        raise ValueError(f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions")
    return aten.copy.default(self, value)
