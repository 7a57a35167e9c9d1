"""Pointwise maths that is not core: each is a short formula over core ops."""

from __future__ import annotations

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


# rsub(x, s, α) = s - α·x
@register_decomposition(aten.rsub.Scalar)
def rsub_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    scaled = aten.neg.default(self) if alpha == 1 else aten.mul.Tensor(self, -alpha)
    return aten.add.Tensor(scaled, other)


# floor_divide(x, y) = div(x, y, rounding_mode="floor")
@register_decomposition(aten.floor_divide.default)
def floor_divide(self: Tensor, other: Tensor) -> Tensor:
    return aten.div.Tensor_mode(self, other, rounding_mode="floor")


# floor_divide(x, s) = div(x, s, rounding_mode="floor")
@register_decomposition(aten.floor_divide.Scalar)
def floor_divide_scalar(self: Tensor, other: Any) -> Tensor:
    return aten.div.Scalar_mode(self, other, rounding_mode="floor")


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


# lerp(x, y, w) = x + w·(y - x) for w < 0.5, y - (y - x)·(1 - w) otherwise (exact at both ends)
@register_decomposition(aten.lerp.Scalar)
def lerp_scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    diff = aten.sub.Tensor(end, self)
    if abs(weight) < 0.5:
        return aten.add.Tensor(self, aten.mul.Tensor(diff, weight))
    return aten.sub.Tensor(end, aten.mul.Tensor(diff, 1 - weight))


# lerp(x, y, w) = where(|w| < 0.5, x + w·(y - x), y - (y - x)·(1 - w))
@register_decomposition(aten.lerp.Tensor)
def lerp_tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    diff = aten.sub.Tensor(end, self)
    low = aten.add.Tensor(self, aten.mul.Tensor(weight, diff))
    high = aten.sub.Tensor(end, aten.mul.Tensor(diff, aten.rsub.Scalar(weight, 1)))
    return aten.where.self(aten.lt.Scalar(aten.abs.default(weight), 0.5), low, high)


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


# index_add(x, d, i, s, α) = index_put(x, [:, ..., i], α·s, accumulate=True)
@register_decomposition(aten.index_add.default)
def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    dim = canonical_dim(dim, self.dim())
    values = source if alpha == 1 else aten.mul.Tensor(source, alpha)
    return aten.index_put.default(self, [None] * dim + [index], values, True)


# index_copy(x, d, i, s) = index_put(x, [:, ..., i], s)
@register_decomposition(aten.index_copy.default)
def index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    dim = canonical_dim(dim, self.dim())
    return aten.index_put.default(self, [None] * dim + [index], source, False)


# take_along_dim(x, i, d) = gather(x, d, i) with the other dims broadcast; d=None: on the flattened x
@register_decomposition(aten.take_along_dim.default)
def take_along_dim(self: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        flat = aten.view.default(self, [self.numel()])
        return aten.gather.default(flat, 0, aten.view.default(indices, [indices.numel()]))
    dim = canonical_dim(dim, self.dim())
    shape = [max(a, b) if type(a) is int and type(b) is int else (b if a == 1 else a)
             for a, b in zip(self.shape, indices.shape)]
    x = aten.expand.default(self, [s if i != dim else self.shape[dim] for i, s in enumerate(shape)])
    idx = aten.expand.default(indices, [s if i != dim else indices.shape[dim] for i, s in enumerate(shape)])
    return aten.gather.default(x, dim, idx)


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


def _triangle(self: Tensor, diagonal: int, lower: bool) -> Tensor:
    rows = aten.unsqueeze.default(aten.arange.start_step(0, self.shape[-2], 1), -1)
    cols = aten.arange.start_step(0, self.shape[-1], 1)
    offset = aten.sub.Tensor(cols, rows)
    keep = aten.le.Scalar(offset, diagonal) if lower else aten.ge.Scalar(offset, diagonal)
    return aten.where.self(keep, self, aten.scalar_tensor.default(0, dtype=self.dtype))


# tril(x, k) = where(col - row <= k, x, 0)
@register_decomposition(aten.tril.default)
def tril(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(self, diagonal, lower=True)


# triu(x, k) = where(col - row >= k, x, 0)
@register_decomposition(aten.triu.default)
def triu(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(self, diagonal, lower=False)


# roll(x, s, d) = cat([x[-s:], x[:-s]], d) for each (s, d); no dims: roll the flattened x
@register_decomposition(aten.roll.default)
def roll(self: Tensor, shifts: list[Any], dims: list[int] = ()) -> Tensor:
    if not dims:
        flat = aten.view.default(self, [self.numel()])
        return aten.view.default(roll(flat, shifts, [0]), list(self.shape))
    out = self
    for shift, dim in zip(shifts, dims):
        dim = canonical_dim(dim, self.dim())
        size = self.shape[dim]
        if type(size) is not int or size == 0:
            return NotImplemented if type(size) is not int else out
        start = (size - shift % size) % size
        if start:
            out = aten.cat.default([aten.slice.Tensor(out, dim, start, size), aten.slice.Tensor(out, dim, 0, start)],
                                   dim)
    return out


# rot90(x, k, [a, b]) = flips and a transpose, by k mod 4
@register_decomposition(aten.rot90.default)
def rot90(self: Tensor, k: int = 1, dims: list[int] = (0, 1)) -> Tensor:
    a, b = (canonical_dim(d, self.dim()) for d in dims)
    perm = list(range(self.dim()))
    perm[a], perm[b] = perm[b], perm[a]
    turns = k % 4
    if turns == 1:
        return aten.permute.default(aten.flip.default(self, [b]), perm)
    if turns == 2:
        return aten.flip.default(self, [a, b])
    if turns == 3:
        return aten.flip.default(aten.permute.default(self, perm), [b])
    return aten.clone.default(self)


# repeat_interleave(x, r, d) = view(expand(x[..., None at d+1], r), merged d)
@register_decomposition(aten.repeat_interleave.self_int)
def repeat_interleave_int(self: Tensor, repeats: Any, dim: int | None = None, *,
                          output_size: Any = None) -> Tensor:
    x = self if dim is not None else aten.view.default(self, [self.numel()])
    dim = canonical_dim(dim or 0, x.dim())
    sizes = list(x.shape)
    wide = aten.unsqueeze.default(x, dim + 1)
    expanded = aten.expand.default(wide, [*sizes[:dim + 1], repeats, *sizes[dim + 1:]])
    dense = aten.clone.default(expanded, memory_format="contiguous_format")
    return aten.view.default(dense, [*sizes[:dim], sizes[dim] * repeats, *sizes[dim + 1:]])


# where(c) = [nonzero(c)[:, d] for each dim d] (one nonzero per result: each result has its own
# data-dependent length symbol)
@register_decomposition(aten.where.default)
def where_nonzero(condition: Tensor) -> list[Tensor]:
    return [aten.select.int(aten.nonzero.default(condition), 1, d) for d in range(condition.dim())]


# masked_select(x, m) = x[m] with x and m broadcast to one shape
@register_decomposition(aten.masked_select.default)
def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    rank = max(self.dim(), mask.dim())
    a = [1] * (rank - self.dim()) + list(self.shape)
    b = [1] * (rank - mask.dim()) + list(mask.shape)
    shape = [y if type(x) is int and x == 1 else x for x, y in zip(a, b)]
    x = aten.expand.default(self, shape) if list(self.shape) != shape else self
    m = aten.expand.default(mask, shape) if list(mask.shape) != shape else mask
    return aten.index.Tensor(x, [m])


# repeat_interleave(r, output_size=n)[i] = #{j : cumsum(r)[j] <= i}
@register_decomposition(aten.repeat_interleave.Tensor)
def repeat_interleave_tensor(repeats: Tensor, *, output_size: Any = None) -> Any:
    if output_size is None:
        return NotImplemented  # the length is the data's sum
    ends = aten.cumsum.default(repeats, 0)
    positions = aten.unsqueeze.default(aten.arange.start_step(0, output_size, 1, dtype=repeats.dtype), 1)
    return aten.sum.dim_IntList(aten.ge.Tensor(positions, ends), [1], dtype=DType.int64)


# repeat_interleave(x, r, d, output_size=n) = index_select(x, d, repeat_interleave(r, n))
@register_decomposition(aten.repeat_interleave.self_Tensor)
def repeat_interleave_self_tensor(self: Tensor, repeats: Tensor, dim: int | None = None, *,
                                  output_size: Any = None) -> Any:
    if output_size is None:
        return NotImplemented
    x = self if dim is not None else aten.view.default(self, [self.numel()])
    dim = canonical_dim(dim or 0, x.dim())
    if repeats.numel() == 1:
        repeats = aten.expand.default(aten.view.default(repeats, [1]), [x.shape[dim]])
    index = repeat_interleave_tensor(repeats, output_size=output_size)
    return aten.index_select.default(x, dim, index)
