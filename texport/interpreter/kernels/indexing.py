"""Kernels: advanced indexing, gather/scatter, index_* along a dim, masks, data-dependent
outputs (nonzero, unique), embeddings.

numpy's advanced indexing is torch's: None entries are full slices, a k-dim bool
mask indexes k dims with its nonzero() coordinates, index tensors broadcast, and
the broadcast index dims replace adjacent indexed dims in place or go first when
the indexed dims are not adjacent. Accumulating writes use ``ufunc.at``, which
sums duplicate indices. Where torch leaves duplicates of a non-accumulating
write unspecified (scatter, index_put, index_copy), the last write wins. A
functional kernel writes into a copy of self (the ``_into`` helpers); the
in-place forms are derived from it (variants.py). Accumulating into float16 or
bfloat16 follows torch's CPU loops: scatter_add, scatter_reduce and index_add
of a multi-dim self sum in float32 and round once; index_put and a 1-d
index_add add element by element in self's dtype.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from texport.dialects.dtypes import DType
from texport.dialects.shape_rules.common import scalar_type_name

from ..dtypes import (
    cast,
    checked_fill,
    from_numpy,
    is_floating,
    is_inexact,
    is_reduced_float,
    opmath_dtype,
)
from . import kernel
from .views import (
    along,
    check_index_range,
    diagonal_view,
    select_view,
    slice_view,
    strided_view,
    wrap_dim,
)

Array = np.ndarray

# ---------------------------------------------------------------------------- advanced indexing


def _index_tuple(indices: Sequence[np.ndarray | None]) -> tuple[Any, ...]:
    """torch's index list as a numpy index: None -> ':', byte masks -> bool masks."""
    out: list[Any] = []
    for index in indices:
        if index is None:
            out.append(slice(None))
        elif index.dtype in (np.bool_, np.uint8):
            out.append(index.astype(bool, copy=False))
        elif index.dtype.kind in "iu":
            out.append(index)
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return tuple(out)


def _torch_index_error(error: IndexError) -> IndexError:
    return IndexError(str(error).replace("axis", "dimension"))


@kernel("index.Tensor")
def _index(self: np.ndarray, indices: Sequence[np.ndarray | None]) -> np.ndarray:
    try:
        picked = self[_index_tuple(indices)]
    except IndexError as error:
        raise _torch_index_error(error) from None
    # Only all-slice or 0-d-integer indexing gives a numpy view (or scalar): copy those.
    if not isinstance(picked, np.ndarray):
        return np.asarray(picked)
    return picked.copy() if np.may_share_memory(picked, self) else picked


@kernel("index_put")
def _index_put(
    self: np.ndarray, indices: Sequence[np.ndarray | None], values: np.ndarray,
    accumulate: bool = False,
) -> np.ndarray:
    return _index_put_into(self.copy(), indices, values, accumulate)


def _index_put_into(
    self: np.ndarray, indices: Sequence[np.ndarray | None], values: np.ndarray,
    accumulate: bool = False,
) -> np.ndarray:
    where = _index_tuple(indices)
    try:
        if accumulate:
            np.add.at(self, where, values)  # duplicates sum
        else:
            self[where] = values
    except IndexError as error:
        raise _torch_index_error(error) from None
    return self


def _clamped(self: np.ndarray, indices: Sequence[np.ndarray | None]) -> list[np.ndarray | None]:
    """Each index clamped into [-size, size) of its dim, as torch's kernels (its decomposition of
    _unsafe_masked_index clamps into [0, size) instead: a negative index reads element 0 there)."""
    return [None if index is None else np.clip(index, -size, size - 1) for index, size in zip(indices, self.shape)]


@kernel("_unsafe_masked_index")
def _unsafe_masked_index(self: np.ndarray, mask: np.ndarray, indices: Sequence[np.ndarray | None],
                         fill: Any) -> np.ndarray:
    """x[indices clamped into [-size, size)] where mask, else fill (an empty x gives all fill)."""
    fill_value = np.asarray(fill).astype(self.dtype)
    if self.size == 0:
        return np.full(mask.shape, fill_value)
    return np.where(mask, _index(self, _clamped(self, indices)), fill_value)


@kernel("_unsafe_masked_index_put_accumulate")
def _unsafe_masked_index_put_accumulate(self: np.ndarray, mask: np.ndarray, indices: Sequence[np.ndarray | None],
                                        values: np.ndarray) -> np.ndarray:
    """x with values (0 where not mask) added at indices clamped into [-size, size)."""
    if self.size == 0:
        return self.copy()
    masked = np.where(mask, values, np.zeros((), values.dtype))
    return _index_put(self, _clamped(self, indices), masked, accumulate=True)


# ---------------------------------------------------------------------------- index_* along a dim


def _as_vector(self: np.ndarray, index: np.ndarray, op: str) -> tuple[np.ndarray, np.ndarray]:
    """A 0-d self is handled as 1-d (a view: writes reach it); index flattened to a vector."""
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    if index.dtype.kind not in "iu":
        raise IndexError(f"{op}(): Expected dtype int32/int64 for index")
    return (self.reshape(1) if self.ndim == 0 else self), index.reshape(-1)


@kernel("index_select")
def _index_select(self: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    source, index = _as_vector(self, index, "index_select")
    d = wrap_dim(dim, self.ndim)
    check_index_range(index, source.shape[d], d)
    out = np.take(source, index, axis=d)
    return out.reshape(()) if self.ndim == 0 else out


def _source_values(self: np.ndarray, d: int, count: int, source: np.ndarray) -> np.ndarray:
    """source checked to be self with dim d of length `count` (a 0-d source: one element)."""
    shape = (*self.shape[:d], count, *self.shape[d + 1:])
    if source.ndim == 0 and count == 1:
        source = source.reshape(shape)
    if source.shape != shape:
        raise RuntimeError(f"Source/destination tensor must have same slice shapes. Expected "
                           f"source shape {list(shape)}, got {list(source.shape)}")
    return source.astype(self.dtype, copy=False)


@kernel("index_add")
def _index_add(
    self: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, alpha: Any = 1
) -> np.ndarray:
    return _index_add_into(self.copy(), dim, index, source, alpha)


def _index_add_into(
    self: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, alpha: Any = 1
) -> np.ndarray:
    target, index = _as_vector(self, index, "index_add_")
    d = wrap_dim(dim, self.ndim)
    check_index_range(index, target.shape[d], d)
    scaled = source if alpha == 1 else source * alpha
    values = _source_values(target, d, index.size, scaled)
    with _accumulator(target, self.ndim > 1) as total:
        np.add.at(total, along(d, index), values.astype(total.dtype, copy=False))
    return self


INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


@kernel("index_reduce")
def _index_reduce(self: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, reduce: str,
                  include_self: bool = True) -> np.ndarray:
    """scatter_reduce with the index vector spread along dim over source's shape; a reduced
    float accumulates in its own dtype, as torch's CPU loop."""
    if reduce not in INDEX_REDUCTIONS:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but "
                           f"got {reduce}.")
    target, vector = _as_vector(self.copy(), index, "index_reduce_")
    d = wrap_dim(dim, self.ndim)
    check_index_range(vector, target.shape[d], d)
    values = _source_values(target, d, vector.size, source)
    spread = np.broadcast_to(vector.astype(np.int64).reshape([-1 if k == d else 1 for k in range(values.ndim)]),
                             values.shape)
    return _scatter_reduce_into(target, d, np.ascontiguousarray(spread), values, reduce,
                                include_self, widen=False).reshape(self.shape)


@kernel("index_copy")
def _index_copy(self: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray) -> np.ndarray:
    return _index_copy_into(self.copy(), dim, index, source)


def _index_copy_into(
    self: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray
) -> np.ndarray:
    target, index = _as_vector(self, index, "index_copy_")
    d = wrap_dim(dim, self.ndim)
    check_index_range(index, target.shape[d], d)
    target[along(d, index)] = _source_values(target, d, index.size, source)
    return self


# ---------------------------------------------------------------------------- gather / scatter


def _region(array: np.ndarray, shape: Sequence[int], skip: int | None = None) -> np.ndarray:
    """The leading corner of `array` with the given shape (dim `skip` kept whole)."""
    return array[tuple(slice(None) if k == skip else slice(0, n) for k, n in enumerate(shape))]


def _scatter_coords(index: np.ndarray, d: int) -> tuple[np.ndarray, ...]:
    """For each index position p: p with p[d] replaced by index[p], as broadcastable arrays."""
    coords = list(np.indices(index.shape, sparse=True))
    coords[d] = index
    return tuple(coords)


def _gather_scatter_dims(self: np.ndarray, dim: int, index: np.ndarray) -> tuple[int, bool]:
    """(normalised dim, whether there is work): gather/scatter need an int64 or int32 index of self's rank."""
    d = wrap_dim(dim, self.ndim)
    if index.size == 0:  # torch checks the dtype of a non-empty index only
        return d, False
    if index.dtype not in (np.int64, np.int32):
        raise RuntimeError("gather/scatter(): Expected dtype int32/int64 for index")
    if max(index.ndim, 1) != max(self.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if any(k != d and i > s for k, (i, s) in enumerate(zip(index.shape, self.shape))):
        raise RuntimeError(f"Size does not match at dimension {d} expected index "
                           f"{list(index.shape)} to be smaller than self {list(self.shape)} "
                           f"apart from dimension {d}")
    return d, True


@kernel("gather")
def _gather(self: np.ndarray, dim: int, index: np.ndarray, sparse_grad: bool = False) -> np.ndarray:
    d, work = _gather_scatter_dims(self, dim, index)
    if not work:
        return np.empty(index.shape, self.dtype)
    source, where = np.atleast_1d(self), np.atleast_1d(index)
    check_index_range(where, source.shape[d], d)
    out = np.take_along_axis(_region(source, where.shape, skip=d), where, axis=d)
    return out.reshape(index.shape)


def _scatter_target(
    self: np.ndarray, dim: int, index: np.ndarray
) -> tuple[np.ndarray, tuple[np.ndarray, ...]] | None:
    """(self as >=1-d view, coordinates) or None when the index is empty."""
    d, work = _gather_scatter_dims(self, dim, index)
    if not work:
        return None
    target, where = np.atleast_1d(self), np.atleast_1d(index)
    check_index_range(where, target.shape[d], d)
    return target, _scatter_coords(where, d)


def _src_values(src: np.ndarray, index: np.ndarray, dtype: np.dtype) -> np.ndarray:
    source, shape = np.atleast_1d(src), np.atleast_1d(index).shape
    if source.ndim != len(shape) or any(i > s for i, s in zip(shape, source.shape)):
        raise RuntimeError(f"Expected index {list(index.shape)} to be smaller size than src "
                           f"{list(src.shape)}")
    return _region(source, shape).astype(dtype, copy=False)


@kernel("scatter.src")
def _scatter_src(self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray) -> np.ndarray:
    return _scatter_src_into(self.copy(), dim, index, src)


def _scatter_src_into(self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray) -> np.ndarray:
    found = _scatter_target(self, dim, index)
    if found is not None:
        target, coords = found
        target[coords] = _src_values(src, index, self.dtype)
    return self


@kernel("scatter.value")
def _scatter_value(self: np.ndarray, dim: int, index: np.ndarray, value: Any) -> np.ndarray:
    return _scatter_value_into(self.copy(), dim, index, value)


def _scatter_value_into(self: np.ndarray, dim: int, index: np.ndarray, value: Any) -> np.ndarray:
    found = _scatter_target(self, dim, index)
    if found is not None:
        target, coords = found
        target[coords] = checked_fill(value, self.dtype)  # a C++ scalar conversion: -9 into uint8 is 247
    return self


@kernel("scatter_add")
def _scatter_add(self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray) -> np.ndarray:
    return _scatter_add_into(self.copy(), dim, index, src)


def _scatter_add_into(self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray) -> np.ndarray:
    found = _scatter_target(self, dim, index)
    if found is not None:
        target, coords = found
        with _accumulator(target) as total:
            np.add.at(total, coords, _src_values(src, index, total.dtype))
    return self


_LEGACY_REDUCE_UFUNCS = {"add": np.add, "multiply": np.multiply}


def _legacy_reduce(reduce: str) -> np.ufunc:
    if reduce not in _LEGACY_REDUCE_UFUNCS:
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    return _LEGACY_REDUCE_UFUNCS[reduce]


@contextlib.contextmanager
def _accumulator(target: np.ndarray, widen: bool = True) -> Iterator[np.ndarray]:
    """``with _accumulator(target) as total``: what an accumulating write adds into.
    A float16/bfloat16 target sums in a float32 copy, rounded into it once at the
    end (torch's CPU scatter loops accumulate in opmath); any other is itself."""
    if not (widen and is_reduced_float(target.dtype)):
        yield target
        return
    total = target.astype(opmath_dtype(target.dtype))
    yield total
    target[...] = cast(total, target.dtype)


_REDUCE_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
                  "amin": np.minimum}


def _reduce_identity(reduce: str, dtype: np.dtype) -> Any:
    """What scattered-to positions start from when include_self=False."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    high = reduce == "amin"
    if is_floating(dtype):
        return np.inf if high else -np.inf
    if dtype.kind == "b":
        return high
    info = np.iinfo(dtype)
    return info.max if high else info.min


@kernel("scatter_reduce.two")
def _scatter_reduce(
    self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, reduce: str,
    include_self: bool = True,
) -> np.ndarray:
    return _scatter_reduce_into(self.copy(), dim, index, src, reduce, include_self)


def _scatter_reduce_into(
    self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, reduce: str,
    include_self: bool = True, widen: bool = True,
) -> np.ndarray:
    """mean divides by the number of contributions (self counts once when included); integer
    means round down, as torch's floor division. ``widen=False``: a float16/bfloat16 self
    accumulates in its own dtype (index_reduce's CPU loop)."""
    if reduce not in _REDUCE_UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    found = _scatter_target(self, dim, index)
    if found is None:
        return self
    target, coords = found
    if not include_self:
        target[coords] = _reduce_identity(reduce, self.dtype)
    with _accumulator(target, widen) as total:
        _REDUCE_UFUNCS[reduce].at(total, coords, _src_values(src, index, total.dtype))
        if reduce == "mean":
            count = np.full(total.shape, 1 if include_self else 0, dtype=np.int64)
            np.add.at(count, coords, 1)
            count[count == 0] = 1
            divide = np.divide if is_inexact(total.dtype) else np.floor_divide
            divide(total, count, out=total, casting="unsafe")
    return self


@kernel("take_along_dim")
def _take_along_dim(self: np.ndarray, indices: np.ndarray, dim: int | None = None) -> np.ndarray:
    """Without dim: over the flattened self. With dim: self and indices broadcast except along dim."""
    if dim is None:
        flat = self.reshape(-1)
        check_index_range(indices, flat.size, 0)
        return flat[indices.reshape(-1)]
    d = wrap_dim(dim, self.ndim)
    if self.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           "number of dimensions")
    own = list(self.shape)
    own[d] = indices.shape[d]
    shape = list(np.broadcast_shapes(tuple(own), indices.shape))
    check_index_range(indices, self.shape[d], d)
    source_shape = [*shape[:d], self.shape[d], *shape[d + 1:]]
    source = np.broadcast_to(self, source_shape)
    return np.take_along_axis(source, np.broadcast_to(indices, shape), axis=d)


# ---------------------------------------------------------------------------- scatter inverses


@kernel("select_scatter")
def _select_scatter(self: np.ndarray, src: np.ndarray, dim: int, index: int) -> np.ndarray:
    out = self.copy()
    select_view(out, dim, index)[...] = src
    return out


@kernel("slice_scatter")
def _slice_scatter(
    self: np.ndarray, src: np.ndarray, dim: int = 0, start: int | None = None,
    end: int | None = None, step: int = 1,
) -> np.ndarray:
    out = self.copy()
    slice_view(out, dim, start, end, step)[...] = src
    return out


# ---------------------------------------------------------------------------- masks


def _broadcast_mask(self: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if mask.dtype != np.bool_:
        raise RuntimeError(f"expected BoolTensor for mask, got {mask.dtype}")
    shape = np.broadcast_shapes(self.shape, mask.shape)
    return np.broadcast_to(self, shape), np.broadcast_to(mask, shape)


@kernel("masked_select")
def _masked_select(self: np.ndarray, mask: np.ndarray) -> np.ndarray:
    values, where = _broadcast_mask(self, mask)
    return values[where]  # row-major order of the True positions, a fresh 1-D array


@kernel("masked_scatter")
def _masked_scatter(self: np.ndarray, mask: np.ndarray, source: np.ndarray) -> np.ndarray:
    """The True positions, in row-major order, take source's leading elements."""
    values, where = _broadcast_mask(self, mask)
    out = values.copy()
    count = int(np.count_nonzero(where))
    if source.size < count:
        raise RuntimeError(f"masked_scatter: expected source to have at least {count} elements, "
                           f"but got {source.size}")
    out[where] = source.reshape(-1)[:count]
    return out


# ---------------------------------------------------------------------------- data-dependent sizes


@kernel("nonzero")
def _nonzero(self: np.ndarray) -> np.ndarray:
    """[count, ndim] coordinates in row-major order (a 0-d input gives [1, 0] or [0, 0])."""
    return np.argwhere(self).astype(np.int64, copy=False)


@kernel("argwhere")
def _argwhere(self: np.ndarray) -> np.ndarray:
    return _nonzero(self)


@kernel("nonzero_static")
def _nonzero_static(self: np.ndarray, size: int, fill_value: int = -1) -> np.ndarray:
    """Exactly `size` rows: truncated, or padded with rows of fill_value."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got "
                           f"{size}")
    found = _nonzero(self)[:size]
    out = np.full((size, self.ndim), fill_value, dtype=np.int64)
    out[:found.shape[0]] = found
    return out


@kernel("where")
def _where(condition: np.ndarray) -> list[np.ndarray]:
    """nonzero(as_tuple=True): one index vector per dim (a 0-d condition counts as 1-d)."""
    return [i.astype(np.int64, copy=False) for i in np.nonzero(np.atleast_1d(condition))]


_NO_OUTPUT = np.empty((0,), np.int64)


@kernel("_unique2")
def _unique2(
    self: np.ndarray, sorted: bool = True, return_inverse: bool = False,
    return_counts: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Always sorted (torch leaves the unsorted order unspecified); NaNs stay distinct, as
    torch's sort-based unique. Outputs not asked for are empty [0] tensors."""
    values, inverse, counts = np.unique(
        self.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
    )
    inverse = inverse.reshape(self.shape).astype(np.int64) if return_inverse else _NO_OUTPUT
    counts = counts.astype(np.int64) if return_counts else _NO_OUTPUT
    return values, inverse, counts


@kernel("unique_consecutive")
def _unique_consecutive(
    self: np.ndarray, return_inverse: bool = False, return_counts: bool = False,
    dim: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Collapse runs of equal elements (or of equal slices along dim)."""
    d = None if dim is None else wrap_dim(dim, self.ndim)
    if d is None:
        rows, inverse_shape = self.reshape(-1, 1), self.shape
    else:
        moved = np.moveaxis(self, d, 0)
        rows = moved.reshape(self.shape[d], math.prod(moved.shape[1:]))
        inverse_shape = (self.shape[d],)
    starts = np.ones(rows.shape[0], dtype=bool)
    starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    first = np.flatnonzero(starts)
    values = self.reshape(-1)[first] if d is None else np.take(self, first, axis=d)
    inverse = (np.cumsum(starts) - 1).reshape(inverse_shape).astype(np.int64)
    counts = np.diff(np.append(first, rows.shape[0])).astype(np.int64)
    return (values, inverse if return_inverse else _NO_OUTPUT,
            counts if return_counts else _NO_OUTPUT)


@kernel("one_hot")
def _one_hot(self: np.ndarray, num_classes: int = -1) -> np.ndarray:
    if self.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if self.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(self.max()) + 1
    if self.size and self.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if self.size and self.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return (self[..., None] == np.arange(num_classes)).astype(np.int64)


# ---------------------------------------------------------------------------- embeddings


def _check_embedding_indices(indices: np.ndarray, rows: int) -> None:
    if indices.size and (indices.min() < 0 or indices.max() >= rows):
        raise IndexError("index out of range in self")


@kernel("embedding_renorm")
def _embedding_renorm(self: np.ndarray, indices: np.ndarray, max_norm: float, norm_type: float) -> np.ndarray:
    """Each row indices name whose norm_type-norm exceeds max_norm scaled by
    max_norm / (norm + 1e-7), as torch's kernel (each row once, however often named)."""
    _check_embedding_indices(indices, self.shape[0])
    out = self.copy()
    rows = np.unique(indices)
    norms = np.linalg.norm(self[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    scale = max_norm / (norms[big] + 1e-7)
    out[rows[big]] = cast(self[rows[big]] * scale[:, None].astype(opmath_dtype(self.dtype)), self.dtype)
    return out


@kernel("embedding")
def _embedding(
    weight: np.ndarray, indices: np.ndarray, padding_idx: int = -1,
    scale_grad_by_freq: bool = False, sparse: bool = False,
) -> np.ndarray:
    """Rows of weight; padding_idx and scale_grad_by_freq only matter for gradients."""
    _check_embedding_indices(indices, weight.shape[0])
    return np.take(weight, indices, axis=0)


@kernel("embedding_dense_backward")
def _embedding_dense_backward(
    grad_output: np.ndarray, indices: np.ndarray, num_weights: int, padding_idx: int,
    scale_grad_by_freq: bool,
) -> np.ndarray:
    """Sum each index's output gradient into its row; padding_idx's row gets none; with
    scale_grad_by_freq each contribution is divided by its index's frequency."""
    flat = indices.reshape(-1)
    width = grad_output.shape[-1]
    grads = grad_output.reshape(flat.size, width)
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num_weights)[flat]
        grads = grads / counts[:, None].astype(grad_output.dtype)
    keep = flat != padding_idx
    out = np.zeros((num_weights, width), grad_output.dtype)
    np.add.at(out, flat[keep], grads[keep])
    return out


_SUM, _MEAN, _MAX = 0, 1, 2


_FAST_SUM_DTYPES = (DType.float32, DType.float16, DType.bfloat16)


@kernel("_embedding_bag")
def _embedding_bag(
    weight: np.ndarray, indices: np.ndarray, offsets: np.ndarray,
    scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
    per_sample_weights: np.ndarray | None = None, include_last_offset: bool = False,
    padding_idx: int = -1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(output, offset2bag, bag_size, max_indices) as torch's CPU kernel.

    Bag b holds indices[offsets[b]:offsets[b+1]]; the last bag runs to the end of indices
    (with include_last_offset the final offset is only a count, as torch). Indices equal to
    padding_idx are skipped (not counted in bag_size). Empty bags give zero rows. max_indices
    (mode max) holds the weight row of each feature's first maximum; other modes return zeros.
    offset2bag is empty in the float32/float16/bfloat16 sum fast path, as torch. Reduced
    floats sum in float32; a mean divides that sum rounded to weight's dtype, as torch."""
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    _check_embedding_indices(indices, weight.shape[0])
    if offsets.size and offsets[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {int(offsets[0])}")
    starts = offsets[:bags].astype(np.int64)
    bag_of = (np.searchsorted(starts, np.arange(indices.size), side="right") - 1).astype(
        offsets.dtype)
    valid = indices != padding_idx
    bag_size = np.bincount(bag_of[valid], minlength=bags).astype(offsets.dtype)
    rows = weight[indices]
    if mode == _MAX:
        output, max_indices = _bag_max(weight, indices, rows, bag_of, valid, bags, offsets.dtype)
    else:
        wide = opmath_dtype(weight.dtype)
        if per_sample_weights is not None:  # weighted in the accumulation dtype, rounded once with the sum
            rows = rows.astype(wide) * per_sample_weights[:, None].astype(wide)
        total = np.zeros((bags, weight.shape[1]), wide)
        np.add.at(total, bag_of[valid], rows[valid].astype(wide, copy=False))
        output = cast(total, weight.dtype)
        if mode == _MEAN:
            count = np.maximum(bag_size, 1)[:, None].astype(wide)
            output = cast(output.astype(wide, copy=False) / count, weight.dtype)
        max_indices = np.zeros((bags,), offsets.dtype)
    fast_sum = mode == _SUM and from_numpy(weight.dtype) in _FAST_SUM_DTYPES and padding_idx < 0
    offset2bag = np.empty((0,), offsets.dtype) if fast_sum else bag_of
    return output, offset2bag, bag_size, max_indices


@kernel("_embedding_bag_forward_only")
def _embedding_bag_forward_only(
    weight: np.ndarray, indices: np.ndarray, offsets: np.ndarray,
    scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
    per_sample_weights: np.ndarray | None = None, include_last_offset: bool = False,
    padding_idx: int = -1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """_embedding_bag for no backward: a sum's bag_size, kept only for the backward, is
    not computed (torch leaves it unwritten; zeros here)."""
    output, offset2bag, bag_size, max_indices = _embedding_bag(
        weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
        include_last_offset, padding_idx)
    return output, offset2bag, np.zeros_like(bag_size) if mode == _SUM else bag_size, max_indices


@kernel("embedding_bag", "embedding_bag.padding_idx")
def embedding_bag(
    weight: np.ndarray, indices: np.ndarray, offsets: np.ndarray,
    scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
    per_sample_weights: np.ndarray | None = None, include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """torch's composite: _embedding_bag, padding_idx None being its -1."""
    return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                          include_last_offset, -1 if padding_idx is None else padding_idx)


def _bag_max(
    weight: np.ndarray, indices: np.ndarray, rows: np.ndarray, bag_of: np.ndarray,
    valid: np.ndarray, bags: int, index_dtype: np.dtype,
) -> tuple[np.ndarray, np.ndarray]:
    """Per bag and feature: the max over the bag's rows, and the index of its first row."""
    width = weight.shape[1]
    low = -np.inf if is_floating(weight.dtype) else np.iinfo(weight.dtype).min
    best = np.full((bags, width), low, weight.dtype)
    np.maximum.at(best, bag_of[valid], rows[valid])
    positions = np.arange(indices.size)
    winner = (rows == best[bag_of]) & valid[:, None]
    first = np.full((bags, width), indices.size, np.int64)
    np.minimum.at(first, bag_of, np.where(winner, positions[:, None], indices.size))
    empty = first == indices.size
    output = np.where(empty, np.zeros((), weight.dtype), best)
    padded = np.append(indices, 0)  # a sentinel row for empty bags: max index 0
    max_indices = np.where(empty, 0, padded[first]).astype(index_dtype)
    return output, max_indices


# ---------------------------------------------------------------------------- take, put, index_fill


def _flat_index(index: Array, numel: int, op: str) -> Array:
    """Indices into the flattened tensor, negatives from the end, bounds-checked as torch."""
    if index.dtype != np.int64:
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got {scalar_type_name(from_numpy(index.dtype))}")
    flat = index.ravel()
    bad = (flat < -numel) | (flat >= numel)
    if bad.any():
        raise IndexError(f"{op}(): out of range: tried to access index {int(flat[bad][0])} on a tensor of "
                         f"{numel} elements.")
    return np.where(flat < 0, flat + numel, flat)


@kernel("take")
def _take(self: Array, index: Array) -> Array:
    return self.ravel()[_flat_index(index, self.size, "take")].reshape(index.shape)


@kernel("put")
def _put(self: Array, index: Array, source: Array, accumulate: bool = False) -> Array:
    """self's elements at the flat indices set to (accumulate: plus) source's, in order."""
    out = self.copy().ravel()
    flat, values = _flat_index(index, self.size, "put_"), source.ravel()
    if accumulate:
        np.add.at(out, flat, values)
    else:
        out[flat] = values
    return out.reshape(self.shape)


@kernel("index_fill.int_Scalar", "index_fill.int_Tensor")
def _index_fill(self: Array, dim: int, index: Array, value: Any) -> Array:
    if index.dtype != np.int64:
        raise RuntimeError("index_fill_(): Expected dtype int64 for index.")
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d] if self.ndim else 1
    flat = index.ravel()
    if ((flat < -size) | (flat >= size)).any():
        raise IndexError(f"index {int(flat[(flat < -size) | (flat >= size)][0])} is out of bounds for dimension "
                         f"{d} with size {size}")
    out = self.copy()
    target = out.reshape(1) if self.ndim == 0 else out
    target[(slice(None),) * d + (np.where(flat < 0, flat + size, flat),)] = checked_fill(value, self.dtype)
    return out


# ---------------------------------------------------------------------------- diagonal and strided scatters


@kernel("diagonal_scatter")
def _diagonal_scatter(self: Array, src: Array, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Array:
    out = np.copy(self, order="K")  # clone: self's layout
    diagonal_view(out, offset, dim1, dim2)[...] = src
    return out


@kernel("as_strided_scatter")
def _as_strided_scatter(self: Array, src: Array, size: Sequence[int], stride: Sequence[int],
                        storage_offset: int | None = None) -> Array:
    """src written through as_strided(size, stride, offset) of a clone of self: the strides and
    offset address the clone's fresh storage, laid out as self (torch's clone)."""
    out = np.copy(self, order="K")
    strided_view(out, size, stride, 0 if storage_offset is None else storage_offset)[...] = src
    return out


# ---------------------------------------------------------------------------- counts sized by the data


@kernel("unique_dim")
def _unique_dim(self: Array, dim: int, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
                return_counts: bool = False) -> tuple[Array, Array, Array]:
    """The distinct slices along dim in lexicographic order, the inverse and the counts
    (an output not asked for is empty)."""
    d = wrap_dim(dim, self.ndim)
    values, inverse, counts = np.unique(self, return_inverse=True, return_counts=True, axis=d)
    inverse = inverse.reshape(-1).astype(np.int64) if return_inverse else np.zeros(0, np.int64)
    return values, inverse, counts.astype(np.int64) if return_counts else np.zeros(0, np.int64)


@kernel("bincount")
def _bincount(self: Array, weights: Array | None = None, minlength: int = 0) -> Array:
    if self.ndim != 1 or self.dtype.kind not in "iu" or (self.size and self.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return np.bincount(self, minlength=minlength).astype(np.int64)
    if weights.shape != self.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = weights.dtype if weights.dtype == np.float32 else np.dtype(np.float64)
    return np.bincount(self, weights.astype(np.float64), minlength).astype(dtype)



# ---------------------------------------------------------------------------- scatter with reduce="add" / "multiply"


@kernel("scatter.reduce", "scatter.value_reduce")
def _scatter_reduce_old(self: Array, dim: int, index: Array, src: Any, reduce: str) -> Array:
    """Each indexed element of self combined with src's (or the value) by + or *, in order."""
    if reduce not in ("add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
    out = self.copy()
    found = _scatter_target(out, dim, index)
    if found is not None:
        target, coords = found
        if isinstance(src, np.ndarray):
            values = _src_values(src, index, target.dtype)
        else:
            values = np.broadcast_to(checked_fill(src, target.dtype), np.atleast_1d(index).shape)
        combine = np.add if reduce == "add" else np.multiply
        with _accumulator(target) as total:
            combine.at(total, coords, values.astype(total.dtype))
    return out
