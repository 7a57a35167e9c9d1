"""Shape rules: indexing, gather/scatter, masks, data-dependent outputs, embeddings.

A data-dependent size (the number of True values in a mask, of unique
values...) is None in the result shape: the caller makes it a fresh unbacked
symbol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..dtypes import DType
from ..meta import TensorMeta
from ..symbolic import Dim, dim_str
from . import shape_rule, stride_rule
from .common import broadcast_shapes, broadcasts_to, normalize_dim, scalar_type_name, shape_text
from .guards import ShapeGuardError, check, sym_eq, sym_le
from .strides import Strides, preserved_strides
from .views import diagonal_meta, meta, select_meta, slice_meta

_INDEX_DTYPES = (DType.int64, DType.int32)
_MASK_DTYPES = (DType.bool, DType.uint8)
MaybeShape = Sequence[Dim | None]


def _broadcast_maybe(shapes: Sequence[MaybeShape]) -> list[Dim | None]:
    """Broadcasting that lets a data-dependent (None) dim through as data-dependent."""
    if all(d is not None for s in shapes for d in s):
        return list(broadcast_shapes(*shapes))
    ndim = max(len(s) for s in shapes)
    out: list[Dim | None] = []
    for i in range(ndim):
        column = [s[i - ndim + len(s)] for s in shapes if i - ndim + len(s) >= 0]
        if any(d is None for d in column):
            out.append(None)
        else:
            out.append(broadcast_shapes(*[(d,) for d in column])[0])
    return out


def _index_dtype_check(index: TensorMeta, op: str) -> None:
    check(index.dtype in _INDEX_DTYPES, f"{op}(): Expected dtype int32 or int64 for index")


# ---------------------------------------------------------------------------- advanced indexing


def _expand_masks(
    self: TensorMeta, indices: Sequence[TensorMeta | None]
) -> list[MaybeShape | None]:
    """One entry per indexed dim: None (whole dim) or the shape of its index tensor.

    A k-dim boolean mask indexes k dims with the k index vectors of its nonzero(),
    each of data-dependent length."""
    per_dim: list[MaybeShape | None] = []
    for index in indices:
        if index is None:
            per_dim.append(None)
            continue
        check(index.dtype in _INDEX_DTYPES + _MASK_DTYPES,
              "tensors used as indices must be long, int, byte or bool tensors")
        if index.dtype not in _MASK_DTYPES:
            per_dim.append(index.shape)
            continue
        for j, size in enumerate(index.shape):
            at = len(per_dim)
            check(at < self.ndim and sym_eq(size, self.shape[at]),
                  f"The shape of the mask {shape_text(index.shape)} at index {j} does not match "
                  f"the shape of the indexed tensor {shape_text(self.shape)} at index {at}")
            per_dim.append((None,))
    check(len(per_dim) <= self.ndim,
          f"too many indices for tensor of dimension {self.ndim} (got {len(per_dim)})")
    return per_dim + [None] * (self.ndim - len(per_dim))


def index_shape(self: TensorMeta, indices: Sequence[TensorMeta | None]) -> list[Dim | None]:
    """numpy/torch advanced indexing: the broadcast index shape replaces the indexed dims
    in place when they are adjacent, and goes first when they are not."""
    per_dim = _expand_masks(self, indices)
    where = [i for i, entry in enumerate(per_dim) if entry is not None]
    if not where:
        return list(self.shape)
    indexed = _broadcast_maybe([per_dim[i] for i in where])
    if where == list(range(where[0], where[-1] + 1)):
        return [*self.shape[:where[0]], *indexed, *self.shape[where[-1] + 1:]]
    return [*indexed, *(s for i, s in enumerate(self.shape) if per_dim[i] is None)]


@shape_rule("index.Tensor")
def _index(self: TensorMeta, indices: Sequence[TensorMeta | None]) -> TensorMeta:
    return meta(index_shape(self, indices), self.dtype)


@shape_rule("index_put")
def _index_put(
    self: TensorMeta, indices: Sequence[TensorMeta | None], values: TensorMeta, *_: Any
) -> TensorMeta:
    check(values.dtype is self.dtype,
          "Index put requires the source and destination dtypes match, got "
          f"{scalar_type_name(self.dtype)} for the destination and "
          f"{scalar_type_name(values.dtype)} for the source.")
    target = index_shape(self, indices)
    if None not in target and not broadcasts_to(values.shape, target):
        raise ShapeGuardError(
            f"shape mismatch: value tensor of shape {shape_text(values.shape)} cannot be "
            f"broadcast to indexing result of shape {shape_text(target)}"
        )
    return self


def _check_masked_index(mask: TensorMeta, indices: Sequence[TensorMeta | None]) -> None:
    check(all(i is None or i.dtype in (DType.int64, DType.int32) for i in indices),
          "tensors used as indices must be long or int tensors")
    check(mask.dtype is DType.bool, "tensors used as masks must be bool tensors")


# x[clamped indices] where mask, else fill: the indexing result's shape
@shape_rule("_unsafe_masked_index")
def _unsafe_masked_index(self: TensorMeta, mask: TensorMeta, indices: Sequence[TensorMeta | None],
                         fill: Any) -> TensorMeta:
    _check_masked_index(mask, indices)
    return meta(index_shape(self, indices), self.dtype)


# x with values (0 where not mask) added at the clamped indices: x's shape
@shape_rule("_unsafe_masked_index_put_accumulate")
def _unsafe_masked_index_put_accumulate(self: TensorMeta, mask: TensorMeta, indices: Sequence[TensorMeta | None],
                                        values: TensorMeta) -> TensorMeta:
    _check_masked_index(mask, indices)
    return _index_put(self, indices, values)


# ---------------------------------------------------------------------------- index_* along a dim


@shape_rule("index_select")
def _index_select(self: TensorMeta, dim: int, index: TensorMeta) -> TensorMeta:
    d = normalize_dim(dim, self.ndim)
    check(index.ndim <= 1, "index_select(): Index is supposed to be a vector")
    _index_dtype_check(index, "index_select")
    if self.ndim == 0:
        return self
    return meta([*self.shape[:d], index.numel(), *self.shape[d + 1:]], self.dtype)


def _check_index_source(
    op: str, self: TensorMeta, dim: int, index: TensorMeta, source: TensorMeta
) -> None:
    """index_add / index_copy: source is self with dim `dim` resized to len(index)."""
    d = normalize_dim(dim, self.ndim)
    check(index.ndim <= 1, f"{op}(): Index is supposed to be a vector")
    _index_dtype_check(index, op)
    check(source.dtype is self.dtype, f"{op}(): self ({scalar_type_name(self.dtype)}) and source "
          f"({scalar_type_name(source.dtype)}) must have the same scalar type")
    count = source.shape[d] if source.ndim > 0 else 1
    check(sym_eq(index.numel(), count), f"{op}(): Number of indices ({dim_str(index.numel())}) "
          f"should be equal to source.size(dim) ({dim_str(count)})")
    same = source.ndim in (0, self.ndim) and all(
        k == d or sym_eq(a, b) for k, (a, b) in enumerate(zip(self.shape, source.shape))
    )
    check(same, f"{op}(): Source/destination tensor must have same slice shapes. Destination "
          f"shape: {shape_text(self.shape)}, source shape: {shape_text(source.shape)}, dim {d}")


INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


@shape_rule("index_add")
def _index_add(
    self: TensorMeta, dim: int, index: TensorMeta, source: TensorMeta, alpha: Any = 1
) -> TensorMeta:
    _check_index_source("index_add", self, dim, index, source)
    return self


@shape_rule("index_copy")
def _index_copy(self: TensorMeta, dim: int, index: TensorMeta, source: TensorMeta) -> TensorMeta:
    _check_index_source("index_copy", self, dim, index, source)
    return self


@shape_rule("index_reduce")
def _index_reduce(self: TensorMeta, dim: int, index: TensorMeta, source: TensorMeta, reduce: str,
                  include_self: bool = True) -> TensorMeta:
    check(reduce in INDEX_REDUCTIONS, "index_reduce(): Expected reduce to be one of prod, mean, amax or "
          f"amin but got {reduce}.")
    _check_index_source("index_reduce_", self, dim, index, source)
    return self


# ---------------------------------------------------------------------------- gather / scatter


def _check_index_fits(
    self: TensorMeta, d: int, index: TensorMeta, src: TensorMeta | None, self_name: str
) -> None:
    """index may be smaller than self (except along d) and than src (everywhere)."""
    if any(type(s) is int and s == 0 for s in index.shape):
        return  # an empty index touches nothing, torch skips the checks
    check(max(index.ndim, 1) == max(self.ndim, 1),
          f"Index tensor must have the same number of dimensions as {self_name} tensor")
    fits_self = all(k == d or sym_le(i, s)
                    for k, (i, s) in enumerate(zip(index.shape, self.shape)))
    if src is None:
        check(fits_self, f"Size does not match at dimension {d} expected index "
              f"{shape_text(index.shape)} to be smaller than self {shape_text(self.shape)} "
              f"apart from dimension {d}")
        return
    check(max(src.ndim, 1) == max(index.ndim, 1),
          "Index tensor must have the same number of dimensions as src tensor")
    fits_src = all(sym_le(i, s) for i, s in zip(index.shape, src.shape))
    check(fits_self and fits_src,
          f"Expected index {shape_text(index.shape)} to be smaller than self "
          f"{shape_text(self.shape)} apart from dimension {d} and to be smaller size than src "
          f"{shape_text(src.shape)}")


def _index_dtype_ok(index: TensorMeta) -> bool:
    """gather/scatter take an int64 or int32 index; torch checks only a non-empty one."""
    return index.dtype in _INDEX_DTYPES or any(type(s) is int and s == 0 for s in index.shape)


@shape_rule("gather")
def _gather(self: TensorMeta, dim: int, index: TensorMeta, sparse_grad: bool = False) -> TensorMeta:
    d = normalize_dim(dim, self.ndim)
    check(_index_dtype_ok(index), "gather(): Expected dtype int32/int64 for index")
    _check_index_fits(self, d, index, None, "input")
    return meta(index.shape, self.dtype)


@shape_rule("scatter.src", "scatter.value", "scatter_add", "scatter_reduce.two")
def _scatter(self: TensorMeta, dim: int, index: TensorMeta, src: Any, *_: Any) -> TensorMeta:
    """src is a tensor (.src, add, reduce) or a Python scalar (.value, .value_reduce)."""
    d = normalize_dim(dim, self.ndim)
    check(_index_dtype_ok(index), "scatter(): Expected dtype int32/int64 for index")
    src_meta = src if isinstance(src, TensorMeta) else None
    if src_meta is not None:
        check(src_meta.dtype is self.dtype,
              "scatter(): Expected self.dtype to be equal to src.dtype")
    _check_index_fits(self, d, index, src_meta, "self")
    return self


@shape_rule("take_along_dim")
def _take_along_dim(self: TensorMeta, indices: TensorMeta, dim: int | None = None) -> TensorMeta:
    check(indices.dtype is DType.int64, "torch.take_along_dim(): dtype of indices should be Long "
          f"but got {scalar_type_name(indices.dtype)}")
    if dim is None:
        return meta([indices.numel()], self.dtype)
    d = normalize_dim(dim, self.ndim)
    check(self.ndim == indices.ndim, "torch.take_along_dim(): input and indices should have the "
          f"same number of dimensions, but got {self.ndim} dimensions for input, and "
          f"{indices.ndim} dimensions for indices")
    # Every dim but `dim` broadcasts between input and indices; `dim` comes from indices.
    own = [*self.shape[:d], indices.shape[d], *self.shape[d + 1:]]
    return meta(broadcast_shapes(own, indices.shape), self.dtype)


# ---------------------------------------------------------------------------- scatter inverses


def _check_src_matches(src: TensorMeta, expected: TensorMeta) -> None:
    same = src.ndim == expected.ndim and all(
        sym_eq(a, b) for a, b in zip(src.shape, expected.shape)
    )
    check(same, "expected src to have a size equal to the slice of self. src size = "
          f"{shape_text(src.shape)}, slice size = {shape_text(expected.shape)}")


@shape_rule("select_scatter")
def _select_scatter(self: TensorMeta, src: TensorMeta, dim: int, index: Dim) -> TensorMeta:
    _check_src_matches(src, select_meta(self, dim, index))
    return self


@shape_rule("slice_scatter")
def _slice_scatter(
    self: TensorMeta, src: TensorMeta, dim: int = 0, start: Dim | None = None,
    end: Dim | None = None, step: Dim = 1,
) -> TensorMeta:
    _check_src_matches(src, slice_meta(self, dim, start, end, step))
    return self


@stride_rule("index_put", "select_scatter", "slice_scatter", "diagonal_scatter", "as_strided_scatter")
def _like_self_strides(out: TensorMeta, self: TensorMeta, *_: Any) -> Strides | None:
    """Writes into a copy of self laid out like self (clone's preserve_format)."""
    return preserved_strides(self)


# ---------------------------------------------------------------------------- masks


@shape_rule("masked_select")
def _masked_select(self: TensorMeta, mask: TensorMeta) -> TensorMeta:
    check(mask.dtype is DType.bool, "masked_select: expected BoolTensor for mask")
    broadcast_shapes(self.shape, mask.shape)
    return meta([None], self.dtype)


@shape_rule("masked_scatter")
def _masked_scatter(self: TensorMeta, mask: TensorMeta, source: TensorMeta) -> TensorMeta:
    """The out-of-place form expands self and mask to their broadcast shape first."""
    _check_masked_scatter(self, mask, source)
    return meta(broadcast_shapes(self.shape, mask.shape), self.dtype)


def _check_masked_scatter(self: TensorMeta, mask: TensorMeta, source: TensorMeta) -> None:
    check(mask.dtype is DType.bool, "masked_scatter_ only supports boolean masks, but got mask "
          f"with dtype {scalar_type_name(mask.dtype)}")
    check(source.dtype is self.dtype, "masked_scatter: expected self and source to have same "
          f"dtypes but got {scalar_type_name(self.dtype)} and {scalar_type_name(source.dtype)}")


# ---------------------------------------------------------------------------- data-dependent sizes


@shape_rule("nonzero")
def _nonzero(self: TensorMeta) -> TensorMeta:
    return meta([None, self.ndim], DType.int64)


@shape_rule("argwhere")
def _argwhere(self: TensorMeta) -> TensorMeta:
    return _nonzero(self)


@shape_rule("where")
def _where_nonzero(condition: TensorMeta) -> list[TensorMeta]:
    """where(condition) is nonzero(condition, as_tuple=True): one index vector per dim, all of
    one data-dependent length (the caller should give them one symbol)."""
    return [meta([None], DType.int64) for _ in range(max(condition.ndim, 1))]


@shape_rule("nonzero_static")
def _nonzero_static(self: TensorMeta, size: Dim, fill_value: int = -1) -> TensorMeta:
    check(not (type(size) is int and size < 0),
          f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    return meta([size, self.ndim], DType.int64)


def _unique(
    self: TensorMeta, dim: int | None, return_inverse: bool, return_counts: bool
) -> tuple[TensorMeta, TensorMeta, TensorMeta]:
    """(values, inverse, counts); an output not asked for is an empty [0] tensor.

    The values and counts lengths are the same unbacked size; as None they
    become two symbols that the caller should unify."""
    if dim is None:
        values = meta([None], self.dtype)
        inverse = self.shape if return_inverse else (0,)
    else:
        d = normalize_dim(dim, self.ndim)
        values = meta([*self.shape[:d], None, *self.shape[d + 1:]], self.dtype)
        inverse = (self.shape[d],) if return_inverse else (0,)
    counts = (None,) if return_counts else (0,)
    return values, meta(inverse, DType.int64), meta(counts, DType.int64)


@shape_rule("_unique2")
def _unique2(
    self: TensorMeta, sorted: bool = True, return_inverse: bool = False,
    return_counts: bool = False,
) -> tuple[TensorMeta, TensorMeta, TensorMeta]:
    return _unique(self, None, return_inverse, return_counts)


@shape_rule("unique_consecutive")
def _unique_consecutive(
    self: TensorMeta, return_inverse: bool = False, return_counts: bool = False,
    dim: int | None = None,
) -> tuple[TensorMeta, TensorMeta, TensorMeta]:
    return _unique(self, dim, return_inverse, return_counts)


@shape_rule("one_hot")
def _one_hot(self: TensorMeta, num_classes: Dim = -1) -> TensorMeta:
    """num_classes=-1 means max(self) + 1: data-dependent."""
    check(self.dtype is DType.int64,
          "one_hot is only applicable to index tensor of type LongTensor.")
    classes = None if type(num_classes) is int and num_classes == -1 else num_classes
    check(classes is None or not (type(classes) is int and classes < 0),
          "num_classes should be positive")
    return meta([*self.shape, classes], DType.int64)


# ---------------------------------------------------------------------------- embeddings


@shape_rule("embedding")
def _embedding(weight: TensorMeta, indices: TensorMeta, *_: Any) -> TensorMeta:
    check(weight.ndim == 2, "'weight' must be 2-D")
    check(indices.dtype in _INDEX_DTYPES, "Expected tensor for argument #1 'indices' to have one "
          "of the following scalar types: Long, Int; but got "
          f"{scalar_type_name(indices.dtype)} instead (while checking arguments for embedding)")
    return meta([*indices.shape, weight.shape[1]], weight.dtype)


@shape_rule("embedding_renorm")
def _embedding_renorm(self: TensorMeta, indices: TensorMeta, max_norm: float, norm_type: float) -> TensorMeta:
    check(self.ndim == 2, f"embedding_renorm_(): Expected 2-dimensional tensor, but got {self.ndim}-dimensional "
          "tensor for argument #1 'self'")
    check(indices.dtype in _INDEX_DTYPES, "Expected tensor for argument #2 'indices' to have one of the following "
          f"scalar types: Long, Int; but got {scalar_type_name(indices.dtype)} instead (while checking arguments "
          "for embedding_renorm_)")
    return meta(self.shape, self.dtype)


@shape_rule("embedding_dense_backward")
def _embedding_dense_backward(
    grad_output: TensorMeta, indices: TensorMeta, num_weights: Dim, *_: Any
) -> TensorMeta:
    return meta([num_weights, grad_output.shape[-1]], grad_output.dtype)


@shape_rule("_embedding_bag", "_embedding_bag_forward_only")
def _embedding_bag(
    weight: TensorMeta, indices: TensorMeta, offsets: TensorMeta,
    scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
    per_sample_weights: TensorMeta | None = None, include_last_offset: bool = False,
    padding_idx: int = -1,
) -> tuple[TensorMeta, TensorMeta, TensorMeta, TensorMeta]:
    """(output, offset2bag, bag_size, max_indices) as torch's CPU meta kernel."""
    _check_embedding_bag(weight, indices, offsets, mode, per_sample_weights)
    bags = offsets.shape[0]
    if include_last_offset:
        check(not (type(bags) is int and bags < 1),
              "include_last_offset: numBags should be at least 1")
        bags = bags - 1
    # The CPU sum fast path (float/half weight, no padding_idx) needs no offset2bag.
    fast_sum = weight.dtype in (DType.float32, DType.float16) and padding_idx < 0
    offset2bag = [indices.shape[0]] if mode in (1, 2) or not fast_sum else [0]
    max_indices = [bags, weight.shape[1]] if mode == 2 else [bags]
    index_dtype = offsets.dtype
    return (meta([bags, weight.shape[1]], weight.dtype), meta(offset2bag, index_dtype),
            meta([bags], index_dtype), meta(max_indices, index_dtype))


@shape_rule("embedding_bag", "embedding_bag.padding_idx")
def _embedding_bag_composite(
    weight: TensorMeta, indices: TensorMeta, offsets: TensorMeta,
    scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
    per_sample_weights: TensorMeta | None = None, include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple[TensorMeta, TensorMeta, TensorMeta, TensorMeta]:
    """torch's composite runs _embedding_bag (padding_idx None is its -1)."""
    return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                          per_sample_weights, include_last_offset, -1 if padding_idx is None else padding_idx)


def _check_embedding_bag(
    weight: TensorMeta, indices: TensorMeta, offsets: TensorMeta, mode: int,
    per_sample_weights: TensorMeta | None,
) -> None:
    check(indices.dtype in _INDEX_DTYPES,
          f"expected indices to be long or int, got {indices.dtype}")
    check(offsets.dtype in _INDEX_DTYPES,
          f"expected offsets to be long or int, got {offsets.dtype}")
    check(weight.dtype.is_floating_point,
          f"expected weight to be floating point type, got {weight.dtype}")
    if per_sample_weights is None:
        return
    check(mode == 0, "embedding_bag: per_sample_weights only supported with mode='sum'")
    check(per_sample_weights.ndim == 1,
          f"expected per_sample_weights to be 1D tensor, got {per_sample_weights.ndim}D")
    check(sym_eq(per_sample_weights.numel(), indices.numel()),
          f"expected per_sample_weights.numel() ({dim_str(per_sample_weights.numel())} to be the "
          f"same as indices.numel() ({dim_str(indices.numel())})")


# ---------------------------------------------------------------------------- take, put, index_fill


@shape_rule("take")
def _take(self: TensorMeta, index: TensorMeta) -> TensorMeta:
    check(index.dtype is DType.int64,
          f"take(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}")
    return meta(index.shape, self.dtype)


@shape_rule("put")
def _put(self: TensorMeta, index: TensorMeta, source: TensorMeta, accumulate: bool = False) -> TensorMeta:
    check(index.dtype is DType.int64,
          f"put_(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}")
    check(source.dtype is self.dtype, f"put_(): self and source expected to have the same dtype, but got "
          f"self.dtype = {scalar_type_name(self.dtype)} and source.dtype = {scalar_type_name(source.dtype)}")
    check(sym_eq(index.numel(), source.numel()), f"put_(): Expected source and index to have the same number of "
          f"elements, but got source.numel() = {dim_str(source.numel())}, index.numel() = {dim_str(index.numel())}")
    return self


@shape_rule("index_fill.int_Scalar", "index_fill.int_Tensor")
def _index_fill(self: TensorMeta, dim: int, index: TensorMeta, value: Any) -> TensorMeta:
    normalize_dim(dim, self.ndim)
    check(index.dtype is DType.int64, "index_fill_(): Expected dtype int64 for index.")
    check(index.ndim <= 1, "index_fill_(): Index is supposed to be a vector")
    if isinstance(value, TensorMeta):
        check(value.ndim == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
              f"{value.ndim} dimension(s).")
    return self


# ---------------------------------------------------------------------------- diagonal and strided scatters


@shape_rule("diagonal_scatter")
def _diagonal_scatter(self: TensorMeta, src: TensorMeta, offset: int = 0, dim1: int = 0, dim2: int = 1) -> TensorMeta:
    _check_src_matches(src, diagonal_meta(self, offset, dim1, dim2))
    return self


@shape_rule("as_strided_scatter")
def _as_strided_scatter(self: TensorMeta, src: TensorMeta, size: Sequence[Dim], stride: Sequence[Dim],
                        storage_offset: Any = None) -> TensorMeta:
    check(len(size) == len(stride), "mismatch in length of strides and shape")
    _check_src_matches(src, meta(list(size), self.dtype))
    return self


# ---------------------------------------------------------------------------- counts sized by the data


@shape_rule("unique_dim")
def _unique_dim(
    self: TensorMeta, dim: int, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
    return_counts: bool = False,
) -> tuple[TensorMeta, TensorMeta, TensorMeta]:
    return _unique(self, dim, return_inverse, return_counts)


@shape_rule("bincount")
def _bincount(self: TensorMeta, weights: TensorMeta | None = None, minlength: Dim = 0) -> TensorMeta:
    """max(max(self) + 1, minlength) bins: a data-dependent length. Integer weights count in double."""
    check(self.ndim == 1 and self.dtype.is_integral, "bincount only supports 1-d non-negative integral inputs.")
    check(not (type(minlength) is int and minlength < 0), "minlength should be >= 0")
    if weights is not None:
        check(tuple(weights.shape) == tuple(self.shape), "weights should be 1-d and have the same length as input")
    dtype = DType.int64 if weights is None else weights.dtype if weights.dtype is DType.float32 else DType.float64
    return meta([None], dtype)


@shape_rule("scatter.reduce", "scatter.value_reduce")
def _scatter_with_reduce(self: TensorMeta, dim: int, index: TensorMeta, src: Any, reduce: str) -> TensorMeta:
    """scatter with reduce="add" or "multiply" (the older spelling of scatter_reduce)."""
    check(reduce in ("add", "multiply"), f"reduce argument must be either add or multiply. Got {reduce}")
    return _scatter(self, dim, index, src)
