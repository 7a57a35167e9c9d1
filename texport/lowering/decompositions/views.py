"""Views and shape ops: each becomes view, permute, slice, select, squeeze,
unsqueeze, expand, split_with_sizes or cat of the core set."""

from __future__ import annotations

from typing import Any

from texport.dialects.shape_rules.strides import memory_format_name
from texport.dialects.shape_rules.views import chunk_cat_dim
from texport.tracer.composites import broadcast_shapes

from ._common import DType, Tensor, aten, canonical_dim, numel, register_decomposition, reshape_to
from ._common import contiguous as _contiguous


def _infer_shape(shape: list[Any], total: Any) -> list[Any]:
    """A shape with one -1 entry resolved against ``total`` elements."""
    if -1 not in [s for s in shape if type(s) is int]:
        return shape
    known = numel([s for s in shape if not (type(s) is int and s == -1)])
    return [total // known if type(s) is int and s == -1 else s for s in shape]


# reshape(x, s) = view(x, s) when x's strides allow it, else view(clone(x), s)
@register_decomposition([aten.reshape.default, aten._unsafe_view.default, aten._reshape_copy.default,
                         aten.view_copy.default])
def reshape(self: Tensor, shape: list[Any]) -> Tensor:
    return reshape_to(self, _infer_shape(list(shape), numel(list(self.shape))))


# view_as(x, y) = view(x, shape(y))
@register_decomposition([aten.view_as.default, aten.reshape_as.default])
def view_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape_to(self, list(other.shape))


# expand_as(x, y) = expand(x, shape(y))
@register_decomposition(aten.expand_as.default)
def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return aten.expand.default(self, list(other.shape))


# flatten(x, a, b) = reshape(x, shape[:a] + [prod(shape[a:b+1])] + shape[b+1:])
@register_decomposition(aten.flatten.using_ints)
def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    rank = self.dim()
    if rank == 0:
        return aten.view.default(self, [1])
    start, end = canonical_dim(start_dim, rank), canonical_dim(end_dim, rank)
    if start == end:
        return self
    sizes = list(self.shape)
    return reshape_to(self, [*sizes[:start], numel(sizes[start:end + 1]), *sizes[end + 1:]])


# unflatten(x, d, sizes) = view(x, shape[:d] + sizes + shape[d+1:])
@register_decomposition(aten.unflatten.int)
def unflatten(self: Tensor, dim: int, sizes: list[Any]) -> Tensor:
    dim = canonical_dim(dim, self.dim())
    shape = list(self.shape)
    return aten.view.default(self, [*shape[:dim], *_infer_shape(list(sizes), shape[dim]), *shape[dim + 1:]])


# squeeze(x) = squeeze.dims(x, every size-1 dim)
@register_decomposition(aten.squeeze.default)
def squeeze(self: Tensor) -> Tensor:
    dims = [i for i, s in enumerate(self.shape) if type(s) is int and s == 1]
    return aten.squeeze.dims(self, dims)


# squeeze(x, d) = squeeze.dims(x, [d]): torch's default table takes this core op
# to squeeze.dims, so a core program has one squeeze form
@register_decomposition(aten.squeeze.dim)
def squeeze_dim(self: Tensor, dim: int) -> Tensor:
    return aten.squeeze.dims(self, [dim])


# transpose(x, a, b) = permute(x, the identity with a and b swapped)
@register_decomposition([aten.transpose.int, aten.transpose_copy.int])
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    rank = self.dim()
    if rank == 0:
        return aten.alias.default(self)
    perm = list(range(rank))
    a, b = canonical_dim(dim0, rank), canonical_dim(dim1, rank)
    perm[a], perm[b] = perm[b], perm[a]
    return aten.permute.default(self, perm)


# swapaxes(x, a, b) = transpose(x, a, b) (torch's CompositeImplicitAutograd kernel)
@register_decomposition([aten.swapaxes.default, aten.swapdims.default])
def swapaxes(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return aten.transpose.int(self, dim0, dim1)


# t(x) = permute(x, [1, 0]) for a matrix, x otherwise
@register_decomposition([aten.t.default, aten.t_copy.default])
def t(self: Tensor) -> Tensor:
    if self.dim() < 2:
        return aten.alias.default(self)
    return aten.permute.default(self, [1, 0])


# movedim(x, src, dst) = permute(x, the order that moves each src dim to its dst)
@register_decomposition([aten.movedim.intlist, aten.moveaxis.intlist])
def movedim(self: Tensor, source: list[int], destination: list[int]) -> Tensor:
    rank = self.dim()
    src = [canonical_dim(d, rank) for d in source]
    dst = [canonical_dim(d, rank) for d in destination]
    order: list[int | None] = [None] * rank
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(rank) if d not in src)
    return aten.permute.default(self, [next(rest) if o is None else o for o in order])


# movedim(x, s, d) with ints = movedim(x, [s], [d])
@register_decomposition([aten.movedim.int, aten.moveaxis.int])
def movedim_int(self: Tensor, source: int, destination: int) -> Tensor:
    return movedim(self, [source], [destination])


# narrow(x, d, a, n) = slice(x, d, a, a + n)
@register_decomposition([aten.narrow.default, aten.narrow_copy.default])
def narrow(self: Tensor, dim: int, start: Any, length: Any) -> Tensor:
    return aten.slice.Tensor(self, dim, start, start + length)


# contiguous(x) = x when laid out so, else clone(x, memory_format)
@register_decomposition(aten.contiguous.default)
def contiguous(self: Tensor, *, memory_format: Any = 0) -> Tensor:
    return _contiguous(self, memory_format_name(memory_format))


# detach(x) = alias(x) (no autograd in the IR)
@register_decomposition([aten.detach.default, aten.lift_fresh.default, aten.alias_copy.default,
                         aten.detach_copy.default])
def detach(self: Tensor) -> Tensor:
    return aten.alias.default(self)


# lift_fresh_copy(x) = clone(x)
@register_decomposition(aten.lift_fresh_copy.default)
def lift_fresh_copy(self: Tensor) -> Tensor:
    return aten.clone.default(self)


def _split_sizes(size: Any, split_size: Any) -> list[Any]:
    if type(size) is not int:
        raise ValueError(f"splitting a symbolic size {size} gives a data-dependent number of pieces")
    count = max(1, -(-size // split_size)) if split_size else 1
    return [min(split_size, size - i * split_size) for i in range(count)]


# split(x, n, d) = split_with_sizes(x, [n, n, ..., rest], d)
@register_decomposition([aten.split.Tensor, aten.unsafe_split.Tensor, aten.split_copy.Tensor])
def split(self: Tensor, split_size: Any, dim: int = 0) -> list[Tensor]:
    dim = canonical_dim(dim, self.dim())
    return aten.split_with_sizes.default(self, _split_sizes(self.shape[dim], split_size), dim)


# split(x, sizes, d) = split_with_sizes(x, sizes, d)
@register_decomposition([aten.split.sizes, aten.unsafe_split_with_sizes.default,
                         aten.split_with_sizes_copy.default])
def split_sizes(self: Tensor, split_size: list[Any], dim: int = 0) -> list[Tensor]:
    return aten.split_with_sizes.default(self, list(split_size), dim)


# chunk(x, c, d) = split(x, ceil(size / c), d), as ATen's chunk calls split.Tensor
@register_decomposition(aten.chunk.default)
def chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    return aten.split.Tensor(self, _chunk_size(self, chunks, dim), dim)


# unsafe_chunk(x, c, d) = unsafe_split(x, ceil(size / c), d)
@register_decomposition(aten.unsafe_chunk.default)
def unsafe_chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    return aten.unsafe_split.Tensor(self, _chunk_size(self, chunks, dim), dim)


def _chunk_size(self: Tensor, chunks: int, dim: int) -> int:
    size = self.shape[canonical_dim(dim, self.dim())]
    if type(size) is not int:
        raise ValueError(f"chunking a symbolic size {size} gives a data-dependent number of pieces")
    return -(-size // chunks) if size else 1


# tensor_split(x, n, d) = n slices along d whose sizes differ by at most one (ATen's kernel)
@register_decomposition(aten.tensor_split.sections)
def tensor_split_sections(self: Tensor, sections: int, dim: int = 0) -> list[Tensor]:
    dim = canonical_dim(dim, self.dim())
    size = self.shape[dim]
    if type(size) is not int:
        raise ValueError(f"tensor_split of a symbolic size {size} is not supported")
    base, extra = divmod(size, sections)
    sizes = [base + 1] * extra + [base] * (sections - extra)
    starts = [sum(sizes[:i]) for i in range(sections)]
    return [aten.slice.Tensor(self, dim, start, start + n) for start, n in zip(starts, sizes)]


# tensor_split(x, [i, j], d) = [x[..., :i], x[..., i:j], x[..., j:size]] along d
@register_decomposition(aten.tensor_split.indices)
def tensor_split_indices(self: Tensor, indices: list[Any], dim: int = 0) -> list[Tensor]:
    dim = canonical_dim(dim, self.dim())
    bounds = [0, *indices, self.shape[dim]]
    return [aten.slice.Tensor(self, dim, a, b) for a, b in zip(bounds, bounds[1:])]


# unbind(x, d) = [squeeze(slice(x, d, i, i + 1), [d]) for each i]
@register_decomposition([aten.unbind.int, aten.unbind_copy.int])
def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    dim = canonical_dim(dim, self.dim())
    size = self.shape[dim]
    if type(size) is not int:
        raise ValueError(f"unbinding a symbolic size {size} gives a data-dependent number of pieces")
    return [aten.squeeze.dims(aten.slice.Tensor(self, dim, i, i + 1), [dim]) for i in range(size)]


# unfold_backward(g, sizes, d, k, s) = index_put(zeros(sizes), [:, ..., flatten(unfold(arange(n), k, s))],
# flatten(movedim(g, -1, d + 1), d, d + 1), accumulate=True): torch's vectorised path, for a grad of
# unfold's output shape
@register_decomposition(aten.unfold_backward.default)
def unfold_backward(grad: Tensor, input_sizes: list[Any], dim: int, size: int, step: int) -> Tensor:
    if not input_sizes:
        return aten.clone.default(aten.squeeze.dim(grad, 0))
    d = canonical_dim(dim, len(input_sizes))
    length = input_sizes[d]
    windows = (length - size) // step + 1
    if list(grad.shape) != [*input_sizes[:d], windows, *input_sizes[d + 1:], size]:
        raise NotImplementedError(f"unfold_backward: texport decomposes a grad of unfold's output shape only, "
                                  f"got {list(grad.shape)} for input sizes {list(input_sizes)}")
    zeros = aten.full.default(list(input_sizes), 0, dtype=grad.dtype)
    positions = aten.unfold.default(aten.arange.start_step(0, length, 1, dtype=DType.int32), 0, size, step)
    positions = reshape_to(positions, [windows * size])
    order = [*range(d + 1), grad.dim() - 1, *range(d + 1, grad.dim() - 1)]
    source = reshape_to(aten.permute.default(grad, order), [*input_sizes[:d], windows * size, *input_sizes[d + 1:]])
    return aten.index_put.default(zeros, [None] * d + [positions], source, True)


# _chunk_cat(ts, d, n) = cat([pad(t, along d to a multiple of n).view(t.shape[:d] + [n, -1])], d + 1),
# as torch's decomposition (constant_pad_nd only where a tensor needs padding)
@register_decomposition(aten._chunk_cat.default)
def _chunk_cat(tensors: list[Tensor], dim: int, num_chunks: int) -> Tensor:
    d = chunk_cat_dim([t.dim() for t in tensors], dim)
    rows = []
    for t in tensors:
        missing = -t.shape[d] % num_chunks
        if missing:
            t = aten.constant_pad_nd.default(t, [0, 0] * (t.dim() - d - 1) + [0, missing], 0)
        rows.append(reshape_to(t, [*t.shape[:d], num_chunks, t.shape[d] // num_chunks * numel(t.shape[d + 1:])]))
    return aten.cat.default(rows, d + 1)


# stack(xs, d) = view(cat(xs, d), sizes with n at d); at d = rank: cat([unsqueeze(x, d) for x in xs], d)
@register_decomposition(aten.stack.default)
def stack(tensors: list[Tensor], dim: int = 0) -> Tensor:
    dim = canonical_dim(dim, tensors[0].dim() + 1)
    if dim < tensors[0].dim():  # torch._refs: one cat, viewed with the new dim
        sizes = list(tensors[0].shape)
        return aten.view.default(aten.cat.default(list(tensors), dim), [*sizes[:dim], len(tensors), *sizes[dim:]])
    return aten.cat.default([aten.unsqueeze.default(x, dim) for x in tensors], dim)


# tile(x, dims) = repeat(x, [1, ...] + dims), padded to x's rank
@register_decomposition(aten.tile.default)
def tile(self: Tensor, dims: list[Any]) -> Tensor:
    return aten.repeat.default(self, [1] * (self.dim() - len(dims)) + list(dims))


# fliplr(x) = flip(x, [1])
@register_decomposition(aten.fliplr.default)
def fliplr(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return aten.flip.default(self, [1])


# flipud(x) = flip(x, [0])
@register_decomposition(aten.flipud.default)
def flipud(self: Tensor) -> Tensor:
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return aten.flip.default(self, [0])


# atleast_1d(x) = x, or view(x, [1]) for a 0-d x
@register_decomposition(aten.atleast_1d.default)
def atleast_1d(self: Tensor) -> Tensor:
    return reshape_to(self, [1]) if self.dim() == 0 else self


# atleast_2d(x) = x, view(x, [1, 1]) for a 0-d x, unsqueeze(x, 0) for a 1-d one
@register_decomposition(aten.atleast_2d.default)
def atleast_2d(self: Tensor) -> Tensor:
    if self.dim() == 0:
        return reshape_to(self, [1, 1])
    return aten.unsqueeze.default(self, 0) if self.dim() == 1 else self


# atleast_3d(x) = x, view(x, [1, 1, 1]) for a 0-d x, [1, n, 1] for a 1-d one, unsqueeze(x, -1) for a matrix
@register_decomposition(aten.atleast_3d.default)
def atleast_3d(self: Tensor) -> Tensor:
    if self.dim() == 0:
        return reshape_to(self, [1, 1, 1])
    if self.dim() == 1:
        return aten.unsqueeze.default(aten.unsqueeze.default(self, 0), -1)
    return aten.unsqueeze.default(self, -1) if self.dim() == 2 else self


# atleast_1d([a, b, ...]) = [atleast_1d(a), atleast_1d(b), ...]
@register_decomposition(aten.atleast_1d.Sequence)
def atleast_1d_all(tensors: list[Tensor]) -> list[Tensor]:
    return [atleast_1d(t) for t in tensors]


# atleast_2d([a, b, ...]) = [atleast_2d(a), atleast_2d(b), ...]
@register_decomposition(aten.atleast_2d.Sequence)
def atleast_2d_all(tensors: list[Tensor]) -> list[Tensor]:
    return [atleast_2d(t) for t in tensors]


# atleast_3d([a, b, ...]) = [atleast_3d(a), atleast_3d(b), ...]
@register_decomposition(aten.atleast_3d.Sequence)
def atleast_3d_all(tensors: list[Tensor]) -> list[Tensor]:
    return [atleast_3d(t) for t in tensors]


# hstack(ts) = cat(atleast_1d(ts), 0 if the first is 1-d else 1)
@register_decomposition(aten.hstack.default)
def hstack(tensors: list[Tensor]) -> Tensor:
    joined = atleast_1d_all(tensors)
    return aten.cat.default(joined, 0 if joined[0].dim() == 1 else 1)


# vstack(ts) = row_stack(ts) = cat(atleast_2d(ts), 0)
@register_decomposition([aten.vstack.default, aten.row_stack.default])
def vstack(tensors: list[Tensor]) -> Tensor:
    return aten.cat.default(atleast_2d_all(tensors), 0)


# dstack(ts) = cat(atleast_3d(ts), 2)
@register_decomposition(aten.dstack.default)
def dstack(tensors: list[Tensor]) -> Tensor:
    return aten.cat.default(atleast_3d_all(tensors), 2)


# column_stack(ts) = hstack(each 0-/1-d t as a column: reshape(t, [numel, 1]))
@register_decomposition(aten.column_stack.default)
def column_stack(tensors: list[Tensor]) -> Tensor:
    return hstack([reshape_to(t, [numel(list(t.shape)), 1]) if t.dim() <= 1 else t for t in tensors])


# cartesian_prod(ts) = stack([flatten(g) for g in meshgrid(ts, "ij")], 1); one tensor is itself
@register_decomposition(aten.cartesian_prod.default)
def cartesian_prod(tensors: list[Tensor]) -> Tensor:
    if len(tensors) == 1:
        return tensors[0]
    return aten.stack.default([flatten(g) for g in aten.meshgrid.indexing(tensors, indexing="ij")], 1)


# meshgrid(ts) = meshgrid(ts, indexing="ij")
@register_decomposition(aten.meshgrid.default)
def meshgrid(tensors: list[Tensor]) -> list[Tensor]:
    return meshgrid_indexing(tensors, indexing="ij")


# meshgrid(ts, "ij")[i] = expand(view(ts[i], [1, .., n_i, .., 1]), [n_0, n_1, ...]); "xy" swaps ts[0] and ts[1]
# in and out (ATen's meshgrid)
@register_decomposition(aten.meshgrid.indexing)
def meshgrid_indexing(tensors: list[Tensor], *, indexing: str) -> list[Tensor]:
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors = [tensors[1], tensors[0], *tensors[2:]]
    sizes = [numel(list(t.shape)) for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[i] = sizes[i]
        grids.append(aten.expand.default(aten.view.default(t, shape), sizes))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


# broadcast_tensors(ts) = [t if shape(t) == s else expand(t, s)], s = the broadcast shape (ATen's expand_outplace)
@register_decomposition(aten.broadcast_tensors.default)
def broadcast_tensors(tensors: list[Tensor]) -> list[Tensor]:
    shape = list(broadcast_shapes(*(t.shape for t in tensors)))
    return [t if list(t.shape) == shape else aten.expand.default(t, shape) for t in tensors]


# diag(v, k) = diag_embed(v, k) for a vector; diag(m, k) = clone(diagonal(m, k)) for a matrix
# (ATen's diagonal_copy, which torch's core programs spell diagonal + clone)
@register_decomposition(aten.diag.default)
def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    if self.dim() == 1:
        return aten.diag_embed.default(self, diagonal)
    if self.dim() == 2:
        return aten.clone.default(aten.diagonal.default(self, diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")


# diagflat(x, k) = diag(view(contiguous(x), [-1]), k)
@register_decomposition(aten.diagflat.default)
def diagflat(self: Tensor, offset: int = 0) -> Tensor:
    return diag(aten.view.default(_contiguous(self), [-1]), offset)


# unfold_copy(x, d, size, step) = unfold(x, d, size, step) (torch keeps the unfold view in core programs)
@register_decomposition(aten.unfold_copy.default)
def unfold_copy(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return aten.unfold.default(self, dimension, size, step)


# expand_copy(x, s) = expand(x, s) (a *_copy op is its view op: nothing aliases in a functional program)
@register_decomposition(aten.expand_copy.default)
def expand_copy(self: Tensor, size: list[Any], *, implicit: bool = False) -> Tensor:
    return aten.expand.default(self, size)


# permute_copy(x, p) = permute(x, p)
@register_decomposition(aten.permute_copy.default)
def permute_copy(self: Tensor, dims: list[int]) -> Tensor:
    return aten.permute.default(self, dims)


# unsqueeze_copy(x, d) = unsqueeze(x, d)
@register_decomposition(aten.unsqueeze_copy.default)
def unsqueeze_copy(self: Tensor, dim: int) -> Tensor:
    return aten.unsqueeze.default(self, dim)


# squeeze_copy(x) = squeeze.dims(x, every size-1 dim)
@register_decomposition(aten.squeeze_copy.default)
def squeeze_copy(self: Tensor) -> Tensor:
    return squeeze(self)


# squeeze_copy(x, d) = squeeze.dims(x, [d])
@register_decomposition(aten.squeeze_copy.dim)
def squeeze_copy_dim(self: Tensor, dim: int) -> Tensor:
    return squeeze_dim(self, dim)


# squeeze_copy(x, ds) = squeeze.dims(x, ds)
@register_decomposition(aten.squeeze_copy.dims)
def squeeze_copy_dims(self: Tensor, dim: list[int]) -> Tensor:
    return aten.squeeze.dims(self, dim)


# slice_copy(x, ...) = slice(x, ...)
@register_decomposition(aten.slice_copy.Tensor)
def slice_copy(self: Tensor, dim: int = 0, start: Any = None, end: Any = None, step: Any = 1) -> Tensor:
    return aten.slice.Tensor(self, dim, start, end, step)


# select_copy(x, d, i) = select(x, d, i)
@register_decomposition(aten.select_copy.int)
def select_copy(self: Tensor, dim: int, index: Any) -> Tensor:
    return aten.select.int(self, dim, index)


# diagonal_copy(x, ...) = diagonal(x, ...)
@register_decomposition(aten.diagonal_copy.default)
def diagonal_copy(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return aten.diagonal.default(self, offset, dim1, dim2)


# as_strided_copy(x, ...) = as_strided(x, ...)
@register_decomposition(aten.as_strided_copy.default)
def as_strided_copy(self: Tensor, size: list[Any], stride: list[Any], storage_offset: Any = None) -> Tensor:
    return aten.as_strided.default(self, size, stride, storage_offset)


# view.dtype / view_copy.dtype: the bits reinterpreted (kept: no core op does it)


# x.to(dtype) = _to_copy(x, dtype=dtype)
@register_decomposition(aten.to.dtype)
def to_dtype(self: Tensor, dtype: DType, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    if dtype is self.dtype and not copy:
        return self  # ATen's to() returns the tensor itself: no op
    return aten._to_copy.default(self, dtype=dtype)


# x.to(dtype=, ...) = _to_copy(x, dtype=dtype)
@register_decomposition(aten.to.dtype_layout)
def to_dtype_layout(self: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None, non_blocking: bool = False, copy: bool = False,
                    memory_format: Any = None) -> Tensor:
    return to_dtype(self, dtype or self.dtype, non_blocking, copy)


# x.to(device, dtype) = _to_copy(x, dtype=dtype) (one device)
@register_decomposition(aten.to.device)
def to_device(self: Tensor, device: Any, dtype: DType, non_blocking: bool = False, copy: bool = False,
              memory_format: Any = None) -> Tensor:
    return to_dtype(self, dtype, non_blocking, copy)


# x.to(y) = x.to(dtype(y))
@register_decomposition(aten.to.other)
def to_other(self: Tensor, other: Tensor, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    return to_dtype(self, other.dtype, non_blocking, copy)


# type_as(x, y) = x.to(dtype(y))
@register_decomposition(aten.type_as.default)
def type_as(self: Tensor, other: Tensor) -> Tensor:
    return to_dtype(self, other.dtype)


def _triangle(self: Tensor, diagonal: int, lower: bool) -> Tensor:
    """torch._refs.tril/triu: a bool tensor is and-ed with the mask, others zeroed by where."""
    cols = aten.unsqueeze.default(aten.arange.start_step(0, self.shape[-1], 1), -2)
    rows = aten.unsqueeze.default(aten.arange.start_step(0, self.shape[-2], 1), -1)
    offset = aten.sub.Tensor(cols, rows)
    keep = aten.le.Scalar(offset, diagonal) if lower else aten.ge.Scalar(offset, diagonal)
    if self.dtype is DType.bool:
        return aten.logical_and.default(keep, self)
    return aten.where.self(keep, self, aten.scalar_tensor.default(0, dtype=self.dtype))


# tril(x, k) = where(col - row <= k, x, 0)
@register_decomposition(aten.tril.default)
def tril(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(self, diagonal, lower=True)


# triu(x, k) = where(col - row >= k, x, 0)
@register_decomposition(aten.triu.default)
def triu(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(self, diagonal, lower=False)


# roll(x, s, d) = index_select(x, d, (start + arange(n)) % n), start = (n - s) % n, one (s, d)
# at a time; no dims: roll the flattened x (torch._refs.roll)
@register_decomposition(aten.roll.default)
def roll(self: Tensor, shifts: list[Any], dims: list[int] = ()) -> Tensor:
    if _known_empty(self):
        return aten.clone.default(self)
    if not dims:
        return aten.view.default(roll(flatten(self), shifts, [0]), list(self.shape))
    out = self
    for shift, dim in zip(shifts, dims):
        size = out.shape[canonical_dim(dim, out.dim())]
        start = (size - shift) % size
        positions = aten.add.Tensor(aten.arange.start_step(0, size, 1), start)
        out = aten.index_select.default(out, dim, aten.fmod.Scalar(positions, size))
    return out


def _known_empty(x: Tensor) -> bool:
    return any(type(size) is int and size == 0 for size in x.shape)


# block_diag(ts) = cat of rows, each cat([zeros, t, zeros], 1) with t as 2-D (torch's reference)
@register_decomposition(aten.block_diag.default)
def block_diag(tensors: list[Tensor]) -> Tensor:
    blocks = [t if t.dim() == 2 else aten.view.default(t, [1, -1]) for t in tensors]
    total = sum(b.shape[1] for b in blocks)
    rows, start = [], 0
    for b in blocks:
        height, width = b.shape
        left = aten.full.default([height, start], 0, dtype=b.dtype)
        right = aten.full.default([height, total - start - width], 0, dtype=b.dtype)
        rows.append(aten.cat.default([left, b, right], 1))
        start = start + width
    return aten.cat.default(rows)


# rot90(x, k, [a, b]) = a flip and then a transpose, by k mod 4 (ATen's rot90)
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
        return aten.permute.default(aten.flip.default(self, [a]), perm)
    return aten.clone.default(self)


# repeat_interleave(x, r, d) = view(expand(x[..., None at d+1], r), merged d)
@register_decomposition(aten.repeat_interleave.self_int)
def repeat_interleave_int(self: Tensor, repeats: Any, dim: int | None = None, *,
                          output_size: Any = None) -> Tensor:
    x = self if dim is not None else flatten(self)  # ATen flattens: a 1-D input stays itself
    dim = canonical_dim(dim or 0, x.dim())
    sizes = list(x.shape)
    wide = aten.unsqueeze.default(x, dim + 1)
    expanded = aten.expand.default(wide, [*sizes[:dim + 1], repeats, *sizes[dim + 1:]])
    dense = aten.clone.default(expanded, memory_format="contiguous_format")
    return aten.view.default(dense, [*sizes[:dim], sizes[dim] * repeats, *sizes[dim + 1:]])


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
    x = self if dim is not None else flatten(self)  # ATen flattens: a 1-D input stays itself
    dim = canonical_dim(dim or 0, x.dim())
    if repeats.numel() == 1:
        repeats = aten.expand.default(aten.view.default(repeats, [1]), [x.shape[dim]])
    index = repeat_interleave_tensor(repeats, output_size=output_size)
    return aten.index_select.default(x, dim, index)


# diag_embed(x, o, d1, d2) = where(arange(n) == arange(o, n + o)[:, None] in dims d1, d2,
#                                  movedim(unsqueeze(x padded by |o| zeros, d1), -1, d2), 0) (torch._refs)
@register_decomposition(aten.diag_embed.default)
def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    rank = self.dim() + 1
    a, b = canonical_dim(dim1, rank), canonical_dim(dim2, rank)
    if a > b:
        a, b, offset = b, a, -offset
    size = self.shape[-1]
    x = self
    if offset != 0:
        zeros = aten.full.default([*self.shape[:-1], abs(offset)], 0, dtype=self.dtype)
        x = aten.cat.default([zeros, x] if offset > 0 else [x, zeros], -1)
        size = size + abs(offset)
    x = aten.unsqueeze.default(x, a)
    order = [d for d in range(rank) if d != rank - 1]
    order.insert(b, rank - 1)
    x = aten.permute.default(x, order)
    rows = aten.arange.start_step(0, size, 1, dtype=DType.int64)
    cols = aten.arange.start_step(offset, size + offset, 1, dtype=DType.int64)
    mask = aten.eq.Tensor(rows, aten.unsqueeze.default(cols, -1))
    mask = aten.view.default(mask, [size if d in (a, b) else 1 for d in range(rank)])
    if self.dtype is DType.bool:
        return aten.logical_and.default(mask, x)
    return aten.where.self(mask, x, aten.scalar_tensor.default(0, dtype=self.dtype))
