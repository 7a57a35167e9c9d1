"""Reductions, scans and sorting, down to sum/amax/amin/any/var/cumsum/sort."""

from __future__ import annotations

from typing import Any

from ._common import DType, Tensor, aten, canonical_dim, cast_to, register_decomposition, reshape_to


# sum(x) = sum(x, dims=[])
@register_decomposition(aten.sum.default)
def sum_all(self: Tensor, *, dtype: DType | None = None) -> Tensor:
    return aten.sum.dim_IntList(self, [], dtype=dtype)


def _all_dims(x: Tensor) -> list[int]:
    return list(range(x.dim()))


# max(x) = amax(x, every dim)
@register_decomposition(aten.max.default)
def max_all(self: Tensor) -> Tensor:
    return aten.amax.default(self, _all_dims(self))


# min(x) = amin(x, every dim)
@register_decomposition(aten.min.default)
def min_all(self: Tensor) -> Tensor:
    return aten.amin.default(self, _all_dims(self))


# all(x) = not any(not x) over every dim (torch._refs.all: any.dims with no dims)
@register_decomposition(aten.all.default)
def all_all(self: Tensor) -> Tensor:
    return aten.logical_not.default(aten.any.dims(aten.logical_not.default(self)))


# all(x, d) = not any(not x, d)
@register_decomposition(aten.all.dim)
def all_dim(self: Tensor, dim: int, keepdim: bool = False) -> Tensor:
    return aten.logical_not.default(aten.any.dim(aten.logical_not.default(self), dim, keepdim))


# all(x, ds) = not any(not x, ds)
@register_decomposition(aten.all.dims)
def all_dims(self: Tensor, dim: list[int] | None = None, keepdim: bool = False) -> Tensor:
    return aten.logical_not.default(aten.any.dims(aten.logical_not.default(self), dim, keepdim))


# var(x, unbiased) = var(x, dims=None, correction=unbiased)
@register_decomposition(aten.var.default)
def var_all(self: Tensor, unbiased: bool = True) -> Tensor:
    return aten.var.correction(self, None, correction=int(unbiased))


# var(x, d, unbiased) = var(x, d, correction=unbiased): torch's default table
# takes this core op to var.correction
@register_decomposition(aten.var.dim)
def var_dim(self: Tensor, dim: list[int] | None, unbiased: bool = True, keepdim: bool = False) -> Tensor:
    return aten.var.correction(self, dim, correction=int(unbiased), keepdim=keepdim)


# std(x, ...) = sqrt(var(x, ...))
@register_decomposition(aten.std.default)
def std_all(self: Tensor, unbiased: bool = True) -> Tensor:
    return aten.sqrt.default(var_all(self, unbiased))


# std(x, d, unbiased) = sqrt(var(x, d, correction=unbiased))
@register_decomposition(aten.std.dim)
def std_dim(self: Tensor, dim: list[int] | None, unbiased: bool = True, keepdim: bool = False) -> Tensor:
    return aten.sqrt.default(aten.var.correction(self, dim, correction=int(unbiased), keepdim=keepdim))


# std(x, d, correction=c) = sqrt(var(x, d, correction=c))
@register_decomposition(aten.std.correction)
def std_correction(self: Tensor, dim: list[int] | None = None, *, correction: Any = None,
                   keepdim: bool = False) -> Tensor:
    return aten.sqrt.default(aten.var.correction(self, dim, correction=correction, keepdim=keepdim))


def _mean(self: Tensor, dim: list[int] | None, keepdim: bool) -> Tensor:
    return aten.mean.dim(self, dim if dim is not None else [], keepdim)


# var_mean(x) = var_mean(x, correction=unbiased) (torch keeps var_mean.correction in core programs)
@register_decomposition(aten.var_mean.default)
def var_mean_all(self: Tensor, unbiased: bool = True) -> tuple[Tensor, Tensor]:
    return var_mean_correction(self, None, correction=int(unbiased))


# var_mean(x, d) = var_mean(x, d, correction=unbiased)
@register_decomposition(aten.var_mean.dim)
def var_mean_dim(self: Tensor, dim: list[int] | None, unbiased: bool = True,
                 keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return var_mean_correction(self, dim, correction=int(unbiased), keepdim=keepdim)


def var_mean_correction(self: Tensor, dim: list[int] | None = None, *, correction: Any = None,
                        keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return tuple(aten.var_mean.correction(self, dim, correction=correction, keepdim=keepdim))


# std_mean(x) = (sqrt(var(x)), mean(x))
@register_decomposition(aten.std_mean.default)
def std_mean_all(self: Tensor, unbiased: bool = True) -> tuple[Tensor, Tensor]:
    variance, mean = var_mean_all(self, unbiased)
    return aten.sqrt.default(variance), mean


# std_mean(x, d) = (sqrt(var(x, d)), mean(x, d))
@register_decomposition(aten.std_mean.dim)
def std_mean_dim(self: Tensor, dim: list[int] | None, unbiased: bool = True,
                 keepdim: bool = False) -> tuple[Tensor, Tensor]:
    variance, mean = var_mean_dim(self, dim, unbiased, keepdim)
    return aten.sqrt.default(variance), mean


# std_mean(x, d, correction=c) = (sqrt(var(x, d, correction=c)), mean(x, d))
@register_decomposition(aten.std_mean.correction)
def std_mean_correction(self: Tensor, dim: list[int] | None = None, *, correction: Any = None,
                        keepdim: bool = False) -> tuple[Tensor, Tensor]:
    variance, mean = var_mean_correction(self, dim, correction=correction, keepdim=keepdim)
    return aten.sqrt.default(variance), mean


def _to(x: Tensor, dtype: DType) -> Tensor:
    return x if x.dtype is dtype else aten._to_copy.default(x, dtype=dtype)


# norm(x, p) = linalg_vector_norm(x, p) (torch keeps linalg_vector_norm in core programs)
@register_decomposition(aten.norm.Scalar)
def norm_scalar(self: Tensor, p: Any = 2) -> Tensor:
    return aten.linalg_vector_norm.default(self, p)


# norm(x, p, d) = linalg_vector_norm(x, p, d)
@register_decomposition(aten.norm.ScalarOpt_dim)
def norm_dim(self: Tensor, p: Any, dim: list[int], keepdim: bool = False) -> Tensor:
    return aten.linalg_vector_norm.default(self, 2 if p is None else p, dim, keepdim)


# renorm(x, p, d, m) = x · where(n > m, m / (n + 1e-7), 1), n = ||x||_p over the dims but d (keepdim;
# float32 for reduced floats), as torch's reference
@register_decomposition(aten.renorm.default)
def renorm(self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    reduced = [d for d in range(self.dim()) if d != canonical_dim(dim, self.dim())]
    accumulate = DType.float32 if self.dtype in (DType.float16, DType.bfloat16) else None
    norm = aten.linalg_vector_norm.default(self, p, reduced, True, dtype=accumulate)
    scaled = aten.mul.Tensor(aten.reciprocal.default(aten.add.Tensor(norm, 1e-7)), maxnorm)
    factor = aten.where.self(aten.gt.Scalar(norm, maxnorm), scaled, aten.scalar_tensor.default(1.0, dtype=norm.dtype))
    return aten.mul.Tensor(self, cast_to(factor, self.dtype))


# logsumexp(x, d) = log(sum(exp(x - m), d)) + m with m = amax(x, d) (0 where |m| = inf)
@register_decomposition(aten.logsumexp.default)
def logsumexp(self: Tensor, dim: list[int], keepdim: bool = False) -> Tensor:
    x = self if self.dtype.is_floating_point else aten._to_copy.default(self, dtype=DType.float32)
    dims = list(dim) or _all_dims(x)
    top = aten.amax.default(x, dims, True)
    infinite = aten.eq.Scalar(aten.abs.default(top), float("inf"))
    top = aten.where.self(infinite, aten.scalar_tensor.default(0.0, dtype=x.dtype), top)
    squeezed = top if keepdim else aten.squeeze.dims(top, dims)
    total = aten.log.default(aten.sum.dim_IntList(aten.exp.default(aten.sub.Tensor(x, top)), dims, keepdim))
    return aten.add.Tensor(total, squeezed)


def _scan(self: Tensor, dim: int, combine: Any, identity: Any) -> Tensor:
    """An inclusive scan by doubling: y_i = combine(y_i, y_{i - s}) for s = 1, 2, 4, ..."""
    dim = canonical_dim(dim, self.dim())
    size = self.shape[dim] if self.dim() else 1
    if type(size) is not int:
        raise ValueError(f"a scan over the symbolic size {size} is not supported")
    out = self
    shift = 1
    while shift < size:
        pad = [0, 0] * (self.dim() - 1 - dim) + [shift, 0]
        shifted = aten.constant_pad_nd.default(aten.slice.Tensor(out, dim, 0, size - shift), pad, identity)
        out = combine(out, shifted)
        shift *= 2
    return out


# cumprod(x, d) = the running product (a doubling scan of mul)
@register_decomposition(aten.cumprod.default)
def cumprod(self: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:
    x = _to(self, dtype or (DType.int64 if not self.dtype.is_floating_point else self.dtype))
    if x.dim() == 0:
        return aten.clone.default(x)
    return _scan(x, dim, aten.mul.Tensor, 1)


# logcumsumexp(x, d) = log(cumsum(exp(x - m), d)) + m with m = amax(x, d)
@register_decomposition(aten.logcumsumexp.default)
def logcumsumexp(self: Tensor, dim: int) -> Tensor:
    if self.dim() == 0:
        return aten.clone.default(self)
    top = aten.amax.default(self, [dim], True)
    top = aten.where.self(aten.isinf.default(top), aten.scalar_tensor.default(0, dtype=self.dtype), top)
    shifted = aten.exp.default(aten.sub.Tensor(self, top))
    return aten.add.Tensor(aten.log.default(aten.cumsum.default(shifted, dim)), top)


# argsort(x, d, desc) = sort(x, d, desc)[1]
@register_decomposition(aten.argsort.default)
def argsort(self: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    return aten.sort.default(self, dim, descending)[1]


# argsort(x, stable=s) = sort(x, stable=s)[1] (torch keeps sort.stable in core programs)
@register_decomposition(aten.argsort.stable)
def argsort_stable(self: Tensor, *, stable: bool, dim: int = -1, descending: bool = False) -> Tensor:
    return aten.sort.stable(self, stable=stable, dim=dim, descending=descending)[1]


# nansum(x, d) = sum(where(isnan(x), 0, x), d)
@register_decomposition(aten.nansum.default)
def nansum(self: Tensor, dim: list[int] | None = None, keepdim: bool = False, *,
           dtype: DType | None = None) -> Tensor:
    x = self
    if self.dtype.is_floating_point:
        x = aten.where.self(aten.isnan.default(self), aten.scalar_tensor.default(0, dtype=self.dtype), self)
    return aten.sum.dim_IntList(x, list(dim) if dim is not None else [], keepdim, dtype=dtype)


# count_nonzero(x, d) = sum(x != 0, d)
@register_decomposition(aten.count_nonzero.dim_IntList)
def count_nonzero_dims(self: Tensor, dim: list[int]) -> Tensor:
    return aten.sum.dim_IntList(aten.ne.Scalar(self, 0), list(dim), dtype=DType.int64)


# count_nonzero(x, d) = sum(x != 0, [d] or every dim)
@register_decomposition(aten.count_nonzero.default)
def count_nonzero(self: Tensor, dim: int | None = None) -> Tensor:
    return count_nonzero_dims(self, [] if dim is None else [dim])


# aminmax(x, d) = (amin(x, d), amax(x, d))
@register_decomposition(aten.aminmax.default)
def aminmax(self: Tensor, *, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    dims = _all_dims(self) if dim is None else [dim]
    if dim is None and keepdim:
        return (aten.amin.default(self, dims, True), aten.amax.default(self, dims, True))
    return aten.amin.default(self, dims, keepdim), aten.amax.default(self, dims, keepdim)


# ---------------------------------------------------------------- softmax


# softmax(x, d, dtype) = _softmax(x.to(dtype), d, False)
@register_decomposition(aten.softmax.int)
def softmax(self: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    return aten._softmax.default(cast_to(self, dtype), dim, False)


# _safe_softmax(x, d, dtype) = where(all(x == -inf, d), 0, softmax(x, d, dtype)), the all as
# not(any(not(...))) (torch's decomposition, as its core table leaves it)
@register_decomposition(aten._safe_softmax.default)
def safe_softmax(self: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    out = aten._softmax.default(cast_to(self, dtype), dim, False)
    live = aten.logical_not.default(aten.eq.Scalar(self, float("-inf")))
    masked = aten.logical_not.default(aten.any.dim(live, dim, True))
    return aten.where.self(masked, aten.full_like.default(out, 0), out)


# log_softmax(x, d, dtype) = _log_softmax(x.to(dtype), d, False)
@register_decomposition(aten.log_softmax.int)
def log_softmax(self: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    return aten._log_softmax.default(cast_to(self, dtype), dim, False)


# special.softmax(x, d, dtype) = softmax(x, d, dtype)
@register_decomposition(aten.special_softmax.default)
def special_softmax(self: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    return softmax(self, dim, dtype)


# special.log_softmax(x, d, dtype) = log_softmax(x, d, dtype)
@register_decomposition(aten.special_log_softmax.default)
def special_log_softmax(self: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:
    return log_softmax(self, dim, dtype)


# special.logsumexp(x, d, k) = logsumexp(x, d, k)
@register_decomposition(aten.special_logsumexp.default)
def special_logsumexp(self: Tensor, dim: list[int], keepdim: bool = False) -> Tensor:
    return logsumexp(self, dim, keepdim)


# _softmax_backward_data(g, y, d) = y · (g - sum(g·y, d))
@register_decomposition(aten._softmax_backward_data.default)
def softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: DType) -> Tensor:
    product = aten.mul.Tensor(grad_output, output)
    total = aten.sum.dim_IntList(product, [dim], True)
    return cast_to(aten.sub.Tensor(product, aten.mul.Tensor(output, total)), input_dtype)


# _log_softmax_backward_data(g, y, d) = g - exp(y) · sum(g, d)
@register_decomposition(aten._log_softmax_backward_data.default)
def log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: DType) -> Tensor:
    total = aten.sum.dim_IntList(grad_output, [dim], True)
    return cast_to(aten.sub.Tensor(grad_output, aten.mul.Tensor(aten.exp.default(output), total)), input_dtype)


# ---------------------------------------------------------------- sets


def _few_tests(tests: Any, elements: Any) -> bool:
    """torch's branch: numel(t) < 10 * numel(e) ** 0.145; a symbolic count takes the comparison."""
    if type(tests) is not int or type(elements) is not int:
        return True
    return tests < 10.0 * pow(elements, 0.145)


# isin(e, t) = any(e[..., None...] == t, over t's dims) for a small t, else a search in sorted(t)
# (torch._decomp's isin: the comparison while numel(t) < 10 * numel(e) ** 0.145)
def _isin(elements: Tensor, test_elements: Tensor, invert: bool) -> Tensor:
    if _few_tests(test_elements.numel(), elements.numel()):
        grid = aten.view.default(elements, [*elements.shape] + [1] * test_elements.dim())
        dims = list(range(-1, -test_elements.dim() - 1, -1))
        found = aten.any.dims(aten.eq.Tensor(grid, test_elements), dims)
    else:
        flat = reshape_to(elements, [elements.numel()])
        ordered = aten.sort.default(reshape_to(test_elements, [test_elements.numel()]))[0]
        position = aten.searchsorted.Tensor(ordered, flat)
        position = aten.where.self(aten.lt.Scalar(position, ordered.numel()), position,
                                   aten.scalar_tensor.default(0, dtype=DType.int64))
        found = aten.view.default(aten.eq.Tensor(aten.index.Tensor(ordered, [position]), flat), list(elements.shape))
    return aten.bitwise_not.default(found) if invert else found  # torch's ~res


# isin(e, t) = any(e[..., None...] == t) or a search in sorted(t), as above
@register_decomposition(aten.isin.Tensor_Tensor)
def isin(elements: Tensor, test_elements: Tensor, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    return _isin(elements, test_elements, invert)


# isin(e, s) = e == s (e != s inverted)
@register_decomposition(aten.isin.Tensor_Scalar)
def isin_scalar(elements: Tensor, test_element: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    return aten.ne.Scalar(elements, test_element) if invert else aten.eq.Scalar(elements, test_element)


# isin(s, t) = isin(tensor(s), t)
@register_decomposition(aten.isin.Scalar_Tensor)
def isin_scalar_tensor(element: Any, test_elements: Tensor, *, assume_unique: bool = False,
                       invert: bool = False) -> Tensor:
    return _isin(aten.scalar_tensor.default(element, dtype=test_elements.dtype), test_elements, invert)


# diff(x, n, d, pre, app) = n times: y = narrow(y, d, 1, len - 1) - narrow(y, d, 0, len - 1), y = cat([pre, x, app], d)
# (bools: logical_xor; ATen's diff stops at an empty dim)
@register_decomposition(aten.diff.default)
def diff(self: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    y = self
    if prepend is not None or append is not None:
        y = aten.cat.default([t for t in (prepend, self, append) if t is not None], dim)
    length = y.shape[dim]
    for _ in range(min(n, length) if type(length) is int else n):
        length = y.shape[dim]
        after = aten.narrow.default(y, dim, 1, length - 1)
        before = aten.narrow.default(y, dim, 0, length - 1)
        y = aten.logical_xor.default(after, before) if y.dtype is DType.bool else aten.sub.Tensor(after, before)
    return y


# nanmean(x, d) = nansum(x, d) / sum(!(x != x), d) (ATen counts with isnan = self != self, over an alias)
@register_decomposition(aten.nanmean.default)
def nanmean(self: Tensor, dim: list[int] | None = None, keepdim: bool = False, *,
            dtype: DType | None = None) -> Tensor:
    alias = aten.alias.default(self)
    count = aten.sum.dim_IntList(aten.logical_not.default(aten.ne.Tensor(alias, alias)), dim, keepdim)
    return aten.div.Tensor(aten.nansum.default(self, dim, keepdim, dtype=dtype), count)


# quantile(x, q, d) = lerp(v[rank floor], v[rank ceil], rank - floor), v = sort(x moved so d is last),
# rank = q (n - 1), n - 1 where the slice has a NaN (ATen's quantile_compute)
@register_decomposition([aten.quantile.default, aten.quantile.scalar])
def quantile(self: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    return _quantile(self, q, dim, keepdim, interpolation, ignore_nan=False)


# nanquantile(x, q, d) = quantile's lerp, rank = max(q (count of non-NaN - 1), 0) (the NaNs sort last)
@register_decomposition([aten.nanquantile.default, aten.nanquantile.scalar])
def nanquantile(self: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    return _quantile(self, q, dim, keepdim, interpolation, ignore_nan=True)


def _quantile(self: Tensor, q: Any, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    if not isinstance(q, Tensor):
        q = aten.scalar_tensor.default(q, dtype=self.dtype)
    values, out_shape = _sorted_last(self, dim, keepdim)
    n = values.shape[-1]
    values = aten.view.default(values, [*out_shape, n])
    isnan = aten.isnan.default(values)
    if ignore_nan:
        kept = aten.sum.dim_IntList(aten.logical_not.default(isnan), [-1], True)
        ranks = aten.mul.Tensor(q, aten.sub.Scalar(kept, 1))  # C++'s Tensor - int64_t: the Scalar overloads
        ranks = aten.masked_fill.Scalar(ranks, aten.lt.Scalar(ranks, 0), 0)
    else:
        ranks, has_nan = aten.broadcast_tensors.default([aten.mul.Scalar(q, n - 1), aten.any.dim(isnan, -1, True)])
        ranks = aten.masked_fill.Scalar(ranks, has_nan, n - 1)
    rounding = {"lower": aten.floor, "higher": aten.ceil, "nearest": aten.round}.get(interpolation)
    if rounding is not None:
        ranks = rounding.default(ranks)
    below = cast_to(ranks, DType.int64)
    result = aten.gather.default(values, -1, below)
    if interpolation in ("linear", "midpoint"):
        weights = (aten.full_like.default(ranks, 0.5) if interpolation == "midpoint"
                   else aten.sub.Tensor(ranks, below))
        above = aten.gather.default(values, -1, cast_to(aten.ceil.default(ranks), DType.int64))
        result = aten.lerp.Tensor(result, above, weights)
    if q.dim() == 0:
        return aten.squeeze.dim(result, -1)
    return aten.squeeze.dim(aten.transpose.int(aten.unsqueeze.default(result, 0), 0, -1), -1)


def _sorted_last(self: Tensor, dim: int | None, keepdim: bool) -> tuple[Tensor, list[Any]]:
    """self sorted along dim moved last (every element: flattened), and the result's shape."""
    if dim is None:
        values = aten.sort.default(aten.view.default(self, [-1]))[0]
        return values, [1] * self.dim() if keepdim else []
    d = canonical_dim(dim, self.dim())
    moved = self if d == self.dim() - 1 else aten.transpose.int(aten.unsqueeze.default(self, -1), d, -1)
    out_shape = list(self.shape)
    if keepdim:
        out_shape[d] = 1
    else:
        del out_shape[d]
    return aten.sort.default(moved)[0], out_shape
