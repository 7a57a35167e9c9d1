"""Indexing: selections by index and mask become gather, index, scatter and
where of the core set."""

from __future__ import annotations

from typing import Any

from ._common import DType, Tensor, aten, canonical_dim, register_decomposition, reshape_to


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


# _unsafe_masked_index(x, m, idx, f) = masked_fill(index(x, clamp(idx, 0, size - 1)), ~m, f) (torch's
# decomposition; an empty x gives all fill)
@register_decomposition(aten._unsafe_masked_index.default)
def _unsafe_masked_index(self: Tensor, mask: Tensor, indices: list[Any], fill: Any) -> Tensor:
    if _known_empty(self):
        return aten.full.default(list(mask.shape), fill, dtype=self.dtype)
    clamped = [None if index is None else aten.clamp.default(index, 0, size - 1)
               for index, size in zip(indices, self.shape)]
    return aten.masked_fill.Scalar(aten.index.Tensor(self, clamped), aten.bitwise_not.default(mask), fill)


# _unsafe_masked_index_put_accumulate(x, m, idx, v) = index_put(x, clamp(idx, -size, size - 1),
# masked_fill(v, ~m, 0), accumulate=True) (torch's decomposition; an empty x is copied)
@register_decomposition(aten._unsafe_masked_index_put_accumulate.default)
def _unsafe_masked_index_put_accumulate(self: Tensor, mask: Tensor, indices: list[Any], values: Tensor) -> Tensor:
    if _known_empty(self):
        return aten.clone.default(self)
    clamped = [None if index is None else aten.clamp.default(index, -size, size - 1)
               for index, size in zip(indices, self.shape)]
    masked = aten.masked_fill.Scalar(values, aten.bitwise_not.default(mask), 0)
    return aten.index_put.default(self, clamped, masked, True)


def _known_empty(x: Tensor) -> bool:
    """torch's guard_or_false(numel == 0): only a statically empty tensor counts."""
    return any(isinstance(size, int) and size == 0 for size in x.shape)


# select_scatter(x, s, d, i) = where(arange(n) == i along d, unsqueeze(s, d), x)
# (torch._refs: torch's default table takes this core op to a mask)
@register_decomposition(aten.select_scatter.default)
def select_scatter(self: Tensor, src: Tensor, dim: int, index: Any) -> Tensor:
    dim = canonical_dim(dim, self.dim())
    size = self.shape[dim]
    if type(index) is int and index < 0:
        index = index + size
    mask_shape = [1] * self.dim()
    mask_shape[dim] = -1
    positions = aten.view.default(aten.arange.start_step(0, size, 1), mask_shape)
    mask = aten.eq.Scalar(positions, index)
    spread = aten.expand.default(aten.unsqueeze.default(src, dim), list(self.shape))
    return aten.where.self(mask, spread, self)


# embedding_dense_backward(g, i, n, pad, freq) = zeros([n, ...]) with each row i of g summed in
# (index_put, accumulate), rows of out-of-range or padding indices left out, each row divided
# by its index's count when freq (torch._decomp's, over masked index and index_put)
@register_decomposition(aten.embedding_dense_backward.default)
def embedding_dense_backward(grad_output: Tensor, indices: Tensor, num_weights: Any, padding_idx: Any,
                             scale_grad_by_freq: bool) -> Tensor:
    origin = grad_output.dtype
    grad = grad_output if origin not in (DType.float16, DType.bfloat16) else \
        aten._to_copy.default(grad_output, dtype=DType.float32)
    indices = indices if indices.dtype is DType.int64 else aten._to_copy.default(indices, dtype=DType.int64)
    valid = aten.bitwise_and.Tensor(aten.ge.Scalar(indices, 0), aten.lt.Scalar(indices, num_weights))
    if scale_grad_by_freq:
        counts = aten.full.default([num_weights], 0, dtype=DType.int64)
        counts = _masked_index_put_accumulate(counts, valid, indices, aten.full_like.default(indices, 1))
        clamped = aten.clamp.default(indices, 0, num_weights - 1)
        scale = _masked_fill(aten.index.Tensor(counts, [clamped]), aten.bitwise_not.default(valid), 1)
        grad = aten.div.Tensor(grad, aten.unsqueeze.default(scale, -1))
    keep = aten.bitwise_and.Tensor(valid, aten.ne.Scalar(indices, padding_idx))
    for _ in range(grad.dim() - keep.dim()):
        keep = aten.unsqueeze.default(keep, -1)
    weight = aten.full.default([num_weights, *list(grad.shape)[indices.dim():]], 0, dtype=grad.dtype)
    out = _masked_index_put_accumulate(weight, keep, indices, grad)
    return out if out.dtype is origin else aten._to_copy.default(out, dtype=origin)


def _masked_index_put_accumulate(x: Tensor, mask: Tensor, index: Tensor, values: Tensor) -> Tensor:
    """torch's _unsafe_masked_index_put_accumulate on dim 0: values outside the mask add 0."""
    clamped = aten.clamp.default(index, -x.shape[0], x.shape[0] - 1)
    return aten.index_put.default(x, [clamped], _masked_fill(values, aten.bitwise_not.default(mask), 0), True)


def _masked_fill(x: Tensor, mask: Tensor, value: Any) -> Tensor:
    return aten.where.self(mask, aten.scalar_tensor.default(value, dtype=x.dtype), x)


# take_along_dim(x, i, d) = gather(x, d, i) with the other dims broadcast; d=None: on the flattened x
@register_decomposition(aten.take_along_dim.default)
def take_along_dim(self: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        flat = reshape_to(self, [self.numel()])
        return aten.gather.default(flat, 0, reshape_to(indices, [indices.numel()]))
    dim = canonical_dim(dim, self.dim())
    shape = [max(a, b) if type(a) is int and type(b) is int else (b if a == 1 else a)
             for a, b in zip(self.shape, indices.shape)]
    x = aten.expand.default(self, [s if i != dim else self.shape[dim] for i, s in enumerate(shape)])
    idx = aten.expand.default(indices, [s if i != dim else indices.shape[dim] for i, s in enumerate(shape)])
    return aten.gather.default(x, dim, idx)


# argwhere(x) = nonzero(x)
@register_decomposition(aten.argwhere.default)
def argwhere(self: Tensor) -> Tensor:
    return aten.nonzero.default(self)


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


# one_hot(x, n) = (x[..., None] == arange(n)).to(int64), after torch's runtime asserts
# that every class is in [0, n)
@register_decomposition(aten.one_hot.default)
def one_hot(self: Tensor, num_classes: int = -1) -> Any:
    if num_classes == -1:
        return NotImplemented  # the class count comes from the data
    aten._assert_async.msg(aten.all.default(aten.ge.Scalar(self, 0)), "one_hot: Class values must be non-negative.")
    aten._assert_async.msg(aten.all.default(aten.lt.Scalar(self, num_classes)),
                           "one_hot: Class values must be smaller than num_classes.")
    classes = aten.arange.start_step(0, num_classes, 1, dtype=self.dtype)
    return aten._to_copy.default(aten.eq.Tensor(aten.unsqueeze.default(self, -1), classes), dtype=DType.int64)


# embedding_bag(w, i, o, ..., padding_idx) = _embedding_bag(w, i, o, ..., padding_idx or -1), as torch's composite
@register_decomposition([aten.embedding_bag.default, aten.embedding_bag.padding_idx])
def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False,
                  mode: int = 0, sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> tuple[Tensor, ...]:
    return aten._embedding_bag.default(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                                       per_sample_weights, include_last_offset,
                                       -1 if padding_idx is None else padding_idx)


# take(x, i) = view(x, [-1])[i]
@register_decomposition(aten.take.default)
def take(self: Tensor, index: Tensor) -> Tensor:
    return aten.index.Tensor(reshape_to(self, [self.numel()]), [index])


# index_fill(x, d, i, v) = index_copy(x, d, i, expand(v, x's shape with len(i) at d)) (torch._refs)
def _index_fill(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    if not isinstance(value, Tensor):
        value = aten.scalar_tensor.default(value, dtype=self.dtype)
    target = aten.unsqueeze.default(self, 0) if self.dim() == 0 else self
    shape = list(target.shape)
    shape[canonical_dim(dim, target.dim())] = index.numel()
    out = aten.index_copy.default(target, dim, index, aten.expand.default(value, shape))
    return aten.squeeze.dims(out, [0]) if self.dim() == 0 else out


# index_fill(x, d, i, s) = index_copy(x, d, i, expand(scalar_tensor(s), ...))
@register_decomposition(aten.index_fill.int_Scalar)
def index_fill_scalar(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _index_fill(self, dim, index, value)


# index_fill(x, d, i, v) = index_copy(x, d, i, expand(v, ...)) (v 0-d)
@register_decomposition(aten.index_fill.int_Tensor)
def index_fill_tensor(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    return _index_fill(self, dim, index, value)
