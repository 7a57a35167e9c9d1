"""Pointwise maths, activations and dropout that are not core: each is a short
formula over core ops."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from texport.interpreter.dtypes import to_numpy

from ._common import DType, Tensor, aten, canonical_dim, register_decomposition


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


# exp2(x) = 2 ** x
@register_decomposition(aten.exp2.default)
def exp2(self: Tensor) -> Tensor:
    return aten.pow.Scalar(2, self)


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


# round(x, decimals=d) = round(x · 10^d) / 10^d
@register_decomposition(aten.round.decimals)
def round_decimals(self: Tensor, *, decimals: int) -> Tensor:
    if decimals == 0:
        return aten.round.default(self)
    scale = 10.0 ** decimals
    return aten.div.Scalar(aten.round.default(aten.mul.Tensor(self, scale)), scale)


# ---------------------------------------------------------------- activations and dropout


# dropout(x, p, train) = x when not training; else x * mask / (1 - p), mask from native_dropout
@register_decomposition(aten.dropout.default)
def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    if not train or p == 0:
        return aten.clone.default(input)
    return aten.native_dropout.default(input, p, train)[0]


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
