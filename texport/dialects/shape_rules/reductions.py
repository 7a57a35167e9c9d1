"""Shape rules: reductions, scans, softmax, sort and top-k.

``int[1]? dim`` set to None or [] reduces every dim; a 0-d input accepts dim 0
or -1 and stays 0-d. Dtypes as torch: sum/prod/cumsum of integers or bools give
int64 unless ``dtype`` is given, mean/var/std refuse integers, any/all give bool
(uint8 stays uint8), index results are int64.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..dtypes import DType
from ..meta import TensorMeta
from ..symbolic import Dim, to_dim
from . import shape_rule, stride_rule
from .common import (
    broadcast_shapes,
    check_inplace,
    normalize_dim,
    normalize_dims,
    reduced_shape,
    scalar_type_name,
    to_float_dtype,
)
from .guards import ShapeGuardError, check, sym_le
from .strides import Strides, contiguous_strides, elementwise_strides, strides_of
from .views import cat_meta

Rule = Callable[..., Any]
Pair = tuple[TensorMeta, TensorMeta]

_TO_REAL = {DType.complex64: DType.float32, DType.complex128: DType.float64}

# ---------------------------------------------------------------- helpers


def _reduce(self: TensorMeta, dims: Any, keepdim: bool, dtype: DType) -> TensorMeta:
    """Reduce `dims` (an int, a list; None or [] = all) to a result of `dtype`."""
    return TensorMeta(reduced_shape(self.shape, normalize_dims(dims, self.ndim), keepdim), dtype)


def _accumulate_dtype(self: TensorMeta, dtype: DType | None) -> DType:
    """sum/prod/cumsum: integers and bools accumulate in int64 unless dtype says otherwise."""
    if dtype is not None:
        return dtype
    return DType.int64 if self.dtype.kind in "uib" else self.dtype


def _check_nonempty(name: str, self: TensorMeta, dims: Sequence[int] | None) -> None:
    """max/min/argmax over a statically empty dim have no identity (zero_numel_check_dims)."""
    if 0 not in self.shape:
        return
    if not dims:
        raise ShapeGuardError(
            f"{name}: Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    for dim in dims:
        if self.ndim and self.shape[dim] == 0:
            raise ShapeGuardError(f"{name}: Expected reduction dim {dim} to have non-zero size.")


def _values_indices(values: TensorMeta) -> Pair:
    return values, TensorMeta(values.shape, DType.int64)


# ---------------------------------------------------------------- sum, prod, mean


@shape_rule("sum", "prod")
def _sum_all(self: TensorMeta, dtype: DType | None = None) -> TensorMeta:
    return _reduce(self, None, False, _accumulate_dtype(self, dtype))


@shape_rule("sum.dim_IntList", "nansum", "prod.dim_int")
def _sum(
    self: TensorMeta, dim: Any = None, keepdim: bool = False, dtype: DType | None = None
) -> TensorMeta:
    return _reduce(self, dim, keepdim, _accumulate_dtype(self, dtype))


def _mean_dtype(self: TensorMeta, dtype: DType | None) -> DType:
    out = _accumulate_dtype(self, dtype)
    if not (out.is_floating_point or out.is_complex):
        what, got = ("Optional", dtype) if dtype is not None else ("Input", self.dtype)
        raise ShapeGuardError(
            f"mean(): could not infer output dtype. {what} dtype must be either a floating "
            f"point or complex dtype. Got: {scalar_type_name(got)}"
        )
    return out


@shape_rule("mean")
def _mean_all(self: TensorMeta, dtype: DType | None = None) -> TensorMeta:
    return _reduce(self, None, False, _mean_dtype(self, dtype))


@shape_rule("mean.dim")
def _mean(
    self: TensorMeta, dim: Any, keepdim: bool = False, dtype: DType | None = None
) -> TensorMeta:
    return _reduce(self, dim, keepdim, _mean_dtype(self, dtype))


@shape_rule("logsumexp", "special_logsumexp")
def _logsumexp(self: TensorMeta, dim: Sequence[int], keepdim: bool = False) -> TensorMeta:
    return _reduce(self, dim, keepdim, to_float_dtype(self.dtype))  # ints give float32


# ---------------------------------------------------------------- var, std


def _var_dtype(self: TensorMeta, name: str) -> DType:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise ShapeGuardError(f"{name} only support floating point and complex dtypes")
    return _TO_REAL.get(self.dtype, self.dtype)  # the variance of complex values is real


@shape_rule("var", "std")
def _var_all(self: TensorMeta, unbiased: bool = True) -> TensorMeta:
    return _reduce(self, None, False, _var_dtype(self, "std and var"))


@shape_rule("var.dim", "var.correction", "std.dim", "std.correction")
def _var(
    self: TensorMeta, dim: Any = None, _correction: Any = None, keepdim: bool = False
) -> TensorMeta:
    return _reduce(self, dim, keepdim, _var_dtype(self, "std and var"))


@shape_rule("var_mean", "std_mean")
def _var_mean_all(self: TensorMeta, unbiased: bool = True) -> Pair:
    return _var_mean(self)


@shape_rule("var_mean.dim", "var_mean.correction", "std_mean.dim", "std_mean.correction")
def _var_mean(
    self: TensorMeta, dim: Any = None, _correction: Any = None, keepdim: bool = False
) -> Pair:
    spread = _reduce(self, dim, keepdim, _var_dtype(self, "std_mean and var_mean"))
    return spread, TensorMeta(spread.shape, self.dtype)


# ---------------------------------------------------------------- amax, any, all, count


def _amax(name: str) -> Rule:
    def rule(self: TensorMeta, dim: Sequence[int] = (), keepdim: bool = False) -> TensorMeta:
        dim = [dim] if isinstance(dim, int) else list(dim)  # torch accepts a bare int
        dims = normalize_dims(dim, self.ndim)
        _check_nonempty(f"{name}()", self, dim and dims)  # [] means all dims
        return _reduce(self, dims, keepdim, self.dtype)

    return rule


def _logical_dtype(self: TensorMeta) -> DType:
    return DType.uint8 if self.dtype is DType.uint8 else DType.bool  # uint8 stays uint8


@shape_rule("any", "all")
def _any_all(self: TensorMeta) -> TensorMeta:
    return _reduce(self, None, False, _logical_dtype(self))


@shape_rule("any.dim", "any.dims", "all.dim", "all.dims")
def _any(self: TensorMeta, dim: Any = None, keepdim: bool = False) -> TensorMeta:
    return _reduce(self, dim, keepdim, _logical_dtype(self))


@shape_rule("count_nonzero", "count_nonzero.dim_IntList")
def _count_nonzero(self: TensorMeta, dim: Any = None) -> TensorMeta:
    return _reduce(self, dim, False, DType.int64)


# ---------------------------------------------------------------- values and indices


def _argmax(name: str) -> Rule:
    def rule(self: TensorMeta, dim: int | None = None, keepdim: bool = False) -> TensorMeta:
        dims = None if dim is None else [normalize_dim(dim, self.ndim)]
        _check_nonempty(f"{name}()", self, dims)
        return _reduce(self, dims, keepdim, DType.int64)  # dim=None: the flattened index

    return rule


def _max_all(name: str) -> Rule:
    def rule(self: TensorMeta) -> TensorMeta:
        _check_nonempty(f"{name}()", self, None)
        return TensorMeta((), self.dtype)

    return rule


def _max_dim(name: str) -> Rule:
    """(values, int64 indices) along one dim; an empty dim is an error."""

    def rule(self: TensorMeta, dim: int = -1, keepdim: bool = False) -> Pair:
        dim = normalize_dim(dim, self.ndim)
        _check_nonempty(f"{name}()", self, [dim])
        return _values_indices(_reduce(self, [dim], keepdim, self.dtype))

    return rule


for _name in ("amax", "amin"):
    shape_rule(_name)(_amax(_name))
for _name in ("argmax", "argmin"):
    shape_rule(_name)(_argmax(_name))
for _name in ("max", "min"):
    shape_rule(_name)(_max_all(_name))
    shape_rule(f"{_name}.dim")(_max_dim(_name))
del _name


@shape_rule("median", "nanmedian")
def _median_all(self: TensorMeta) -> TensorMeta:
    return TensorMeta((), self.dtype)  # an empty input gives nan, not an error


@shape_rule("kthvalue")
def _kthvalue(self: TensorMeta, k: Dim, dim: int = -1, keepdim: bool = False) -> Pair:
    dim = normalize_dim(dim, self.ndim)
    size = self.shape[dim] if self.ndim else 1
    if not (sym_le(1, k) and sym_le(k, size)):
        raise ShapeGuardError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return _values_indices(_reduce(self, [dim], keepdim, self.dtype))


@shape_rule("aminmax")
def _aminmax(self: TensorMeta, dim: int | None = None, keepdim: bool = False) -> Pair:
    dims = None if dim is None else [normalize_dim(dim, self.ndim)]
    _check_nonempty("aminmax()", self, dims)
    out = _reduce(self, dims, keepdim, self.dtype)
    return out, out


# ---------------------------------------------------------------- scans


@shape_rule("cumsum", "cumprod")
def _cumsum(self: TensorMeta, dim: int, dtype: DType | None = None) -> TensorMeta:
    normalize_dim(dim, self.ndim)
    return TensorMeta(self.shape, _accumulate_dtype(self, dtype))


# torch's cumsum_ accumulates in self's dtype: not cumsum's int64 cast back, as a
# derived in-place rule would check.
@shape_rule("cumsum_", "cumprod_")
def _cumsum_inplace(self: TensorMeta, dim: int, dtype: DType | None = None) -> TensorMeta:
    normalize_dim(dim, self.ndim)
    return check_inplace(self, TensorMeta(self.shape, dtype or self.dtype))


@shape_rule("logcumsumexp")
def _logcumsumexp(self: TensorMeta, dim: int) -> TensorMeta:
    normalize_dim(dim, self.ndim)
    return TensorMeta(self.shape, self.dtype)


@shape_rule("cummax", "cummin")
def _cummax(self: TensorMeta, dim: int) -> Pair:
    normalize_dim(dim, self.ndim)
    return _values_indices(TensorMeta(self.shape, self.dtype))


# ---------------------------------------------------------------- softmax


@shape_rule("softmax.int", "log_softmax.int", "_safe_softmax", "special_softmax", "special_log_softmax")
def _softmax(self: TensorMeta, dim: int, dtype: DType | None = None) -> TensorMeta:
    normalize_dim(dim, self.ndim)
    return TensorMeta(self.shape, dtype or self.dtype)


@shape_rule("_softmax", "_log_softmax")
def _softmax_half(self: TensorMeta, dim: int, half_to_float: bool) -> TensorMeta:
    normalize_dim(dim, self.ndim)
    if half_to_float:  # the half input is computed, and returned, in float32
        check(self.dtype is DType.float16, "conversion is supported for Half type only")
        return TensorMeta(self.shape, DType.float32)
    return TensorMeta(self.shape, self.dtype)


@shape_rule("_softmax_backward_data", "_log_softmax_backward_data")
def _softmax_backward(
    grad_output: TensorMeta, output: TensorMeta, dim: int, input_dtype: DType
) -> TensorMeta:
    normalize_dim(dim, grad_output.ndim)
    return TensorMeta(grad_output.shape, input_dtype)


# ---------------------------------------------------------------- sort, top-k


@shape_rule("sort")
def _sort(self: TensorMeta, dim: int = -1, descending: bool = False) -> Pair:
    normalize_dim(dim, self.ndim)
    return _values_indices(TensorMeta(self.shape, self.dtype))


@shape_rule("sort.stable")
def _sort_stable(
    self: TensorMeta, stable: bool | None, dim: int = -1, descending: bool = False
) -> Pair:
    return _sort(self, dim, descending)


@shape_rule("argsort")
def _argsort(self: TensorMeta, dim: int = -1, descending: bool = False) -> TensorMeta:
    return _sort(self, dim, descending)[1]


@shape_rule("argsort.stable")
def _argsort_stable(
    self: TensorMeta, stable: bool, dim: int = -1, descending: bool = False
) -> TensorMeta:
    return _sort(self, dim, descending)[1]


@shape_rule("topk")
def _topk(
    self: TensorMeta, k: Dim, dim: int = -1, largest: bool = True, sorted: bool = True  # noqa: A002
) -> Pair:
    dim = normalize_dim(dim, self.ndim)
    size = self.shape[dim] if self.ndim else 1
    check(sym_le(0, k) and sym_le(k, size), "selected index k out of range")
    if self.ndim == 0:
        return _values_indices(self)
    values = TensorMeta(self.shape[:dim] + (to_dim(k),) + self.shape[dim + 1:], self.dtype)
    return _values_indices(values)


# ---------------------------------------------------------------- norms


# ||x||_p over dims (all dims when None/[])
@shape_rule("linalg_vector_norm")
def linalg_vector_norm(self: TensorMeta, ord: object = 2, dim: object = None,  # noqa: A002
                       keepdim: bool = False, dtype: object = None) -> TensorMeta:
    dims = normalize_dims(dim, self.ndim)
    return TensorMeta(reduced_shape(self.shape, dims, keepdim), dtype or to_float_dtype(self.dtype))


_REAL_OF = {DType.complex64: DType.float32, DType.complex128: DType.float64}


@shape_rule("norm.Scalar")
def norm_scalar(self: TensorMeta, p: object = 2) -> TensorMeta:
    return TensorMeta((), to_float_dtype(self.dtype))


@shape_rule("norm.ScalarOpt_dim")
def norm_dim(self: TensorMeta, p: object, dim: object, keepdim: bool = False) -> TensorMeta:
    return linalg_vector_norm(self, p, dim, keepdim)


# each slice along dim scaled down to p-norm maxnorm: x's shape and dtype
@shape_rule("renorm")
def renorm(self: TensorMeta, p: object, dim: int, maxnorm: object) -> TensorMeta:
    check(not isinstance(p, complex), "renorm: p must be real-valued")
    check(p > 0, "renorm: non-positive norm not supported")
    check(not isinstance(maxnorm, complex), "renorm: maxnorm must be real-valued")
    check(maxnorm >= 0, f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    check(self.ndim > 1, f"renorm: input needs at least 2 dimensions, got {self.ndim} dimensions")
    check(self.dtype.is_floating_point or self.dtype.is_complex,
          f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {scalar_type_name(self.dtype)}")
    normalize_dims([dim], self.ndim)
    return TensorMeta(self.shape, self.dtype)


# ---------------------------------------------------------------- medians, modes, histograms, distances


@shape_rule("median.dim", "nanmedian.dim", "mode")
def _median_dim(self: TensorMeta, dim: int = -1, keepdim: bool = False) -> Pair:
    dim = normalize_dim(dim, self.ndim)
    if self.ndim:
        _check_nonempty("median()", self, [dim])
    return _values_indices(_reduce(self, [dim], keepdim, self.dtype))


@shape_rule("histc")
def _histc(self: TensorMeta, bins: int = 100, min: Any = 0, max: Any = 0) -> TensorMeta:  # noqa: A002
    check(self.dtype.is_floating_point,
          f'"histogram_cpu" not implemented for \'{scalar_type_name(self.dtype)}\'')
    check(bins > 0, f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    return TensorMeta((bins,), self.dtype)


def _check_histogram(self: TensorMeta, weight: TensorMeta | None, dims: int) -> None:
    check(self.dtype.is_floating_point,
          f'"histogramdd" not implemented for \'{scalar_type_name(self.dtype)}\'')
    check(self.ndim >= 1, "torch.histogramdd: input tensor should have at least 1 dimension")
    check(weight is None or tuple(weight.shape) == tuple(self.shape[:-1] if dims > 1 else self.shape),
          "torch.histogramdd: if weight tensor is provided it should have the same shape as the input "
          "tensor excluding its innermost dimension")


# counts of the flattened input in bins equal-width bins (edges from range or the data), and the edges
@shape_rule("histogram.bin_ct")
def _histogram_bin_ct(self: TensorMeta, bins: int = 100, range: Any = None, weight: TensorMeta | None = None,  # noqa: A002
                      density: bool = False) -> tuple[TensorMeta, TensorMeta]:
    _check_histogram(self, weight, 1)
    check(bins > 0, f"torch.histogramdd(): bins must be > 0, but got {bins} for dimension 0")
    return TensorMeta((bins,), self.dtype), TensorMeta((bins + 1,), self.dtype)


@shape_rule("histogram.bins_tensor")
def _histogram_bins_tensor(self: TensorMeta, bins: TensorMeta, weight: TensorMeta | None = None,
                           density: bool = False) -> tuple[TensorMeta, TensorMeta]:
    _check_histogram(self, weight, 1)
    check(bins.ndim == 1, f"torch.histogramdd(): bins tensor should have one dimension, but got {bins.ndim} dimensions in the bins tensor for dimension 0")
    return TensorMeta((bins.shape[0] - 1,), self.dtype), bins


@shape_rule("_histogramdd_bin_edges")
def _histogramdd_bin_edges(self: TensorMeta, bins: Sequence[int], *_: Any) -> list[TensorMeta]:
    return [TensorMeta((count + 1,), self.dtype) for count in bins]


@shape_rule("_histogramdd_from_bin_cts")
def _histogramdd_from_bin_cts(self: TensorMeta, bins: Sequence[int], range: Any = None,  # noqa: A002
                              weight: TensorMeta | None = None, density: bool = False) -> TensorMeta:
    _check_histogram(self, weight, len(bins))
    return TensorMeta(tuple(bins), self.dtype)


@shape_rule("_histogramdd_from_bin_tensors")
def _histogramdd_from_bin_tensors(self: TensorMeta, bins: Sequence[TensorMeta], weight: TensorMeta | None = None,
                                  density: bool = False) -> TensorMeta:
    _check_histogram(self, weight, len(bins))
    return TensorMeta(tuple(edges.shape[0] - 1 for edges in bins), self.dtype)


_SEGMENT_REDUCTIONS = ("sum", "mean", "max", "min", "prod")


# consecutive segments along axis (their lengths, or offsets into it) each reduced to one element
@shape_rule("segment_reduce")
def _segment_reduce(data: TensorMeta, reduce: str, lengths: TensorMeta | None = None,
                    indices: TensorMeta | None = None, offsets: TensorMeta | None = None, axis: int = 0,
                    unsafe: bool = False, initial: Any = None) -> TensorMeta:
    check(reduce in _SEGMENT_REDUCTIONS, f"reduce argument must be either sum, max, min, mean or prod, got {reduce}")
    check(lengths is not None or offsets is not None, "segment_reduce(): Either lengths or offsets must be defined")
    axis = normalize_dim(axis, data.ndim)
    segments = lengths.shape[-1] if lengths is not None else offsets.shape[-1] - 1
    return TensorMeta((*data.shape[:axis], segments, *data.shape[axis + 1:]), data.dtype)


@shape_rule("dist")
def _dist(self: TensorMeta, other: TensorMeta, p: Any = 2) -> TensorMeta:
    broadcast_shapes(self.shape, other.shape)
    check(self.dtype is other.dtype, f"dist(): expected both inputs to have same dtype, but 'self' has "
          f"{scalar_type_name(self.dtype)} and 'other' has {scalar_type_name(other.dtype)}")
    check(self.dtype.is_floating_point or self.dtype.is_complex,
          f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {scalar_type_name(self.dtype)}")
    return TensorMeta((), _TO_REAL.get(self.dtype, self.dtype))


# ---------------------------------------------------------------- searching sorted sequences, sets


def _search_result(boundaries: TensorMeta, shape: Sequence[Dim], out_int32: bool) -> TensorMeta:
    return TensorMeta(tuple(shape), DType.int32 if out_int32 else DType.int64)


@shape_rule("bucketize.Tensor")
def _bucketize(self: TensorMeta, boundaries: TensorMeta, out_int32: bool = False, right: bool = False) -> TensorMeta:
    check(boundaries.ndim == 1, f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _search_result(boundaries, self.shape, out_int32)


@shape_rule("bucketize.Scalar")
def _bucketize_scalar(self: Any, boundaries: TensorMeta, out_int32: bool = False, right: bool = False) -> TensorMeta:
    check(boundaries.ndim == 1, f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _search_result(boundaries, (), out_int32)


def _check_sorted_sequence(sorted_sequence: TensorMeta, values: Sequence[Dim], right: bool, side: str | None,
                           sorter: TensorMeta | None) -> None:
    check(side in (None, "left", "right"), f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    check(not (right and side == "left"), "torch.searchsorted(): side and right can't be set to opposites, got side "
          "of left while right was True")
    check(sorted_sequence.ndim >= 1, "torch.searchsorted(): boundaries tensor should have positive dimension, "
          "but got 0 dimension")
    if sorter is not None:
        check(sorter.dtype is DType.int64, "torch.searchsorted(): sorter must be a tensor of long dtype but got "
              f"dtype {scalar_type_name(sorter.dtype)}")
        check(tuple(sorter.shape) == tuple(sorted_sequence.shape), "torch.searchsorted(): boundary and sorter must "
              "have the same size")
    leading = sorted_sequence.shape[:-1]
    check(sorted_sequence.ndim == 1 or tuple(leading) == tuple(values[:-1]),
          "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
          "tensor and input value tensor must match")


@shape_rule("searchsorted.Tensor")
def _searchsorted(sorted_sequence: TensorMeta, self: TensorMeta, out_int32: bool = False, right: bool = False,
                  side: str | None = None, sorter: TensorMeta | None = None) -> TensorMeta:
    _check_sorted_sequence(sorted_sequence, self.shape, right, side, sorter)
    return _search_result(sorted_sequence, self.shape, out_int32)


@shape_rule("searchsorted.Scalar")
def _searchsorted_scalar(sorted_sequence: TensorMeta, self: Any, out_int32: bool = False, right: bool = False,
                         side: str | None = None, sorter: TensorMeta | None = None) -> TensorMeta:
    check(sorted_sequence.ndim == 1, "torch.searchsorted(): input value can be a scalar only when boundaries "
          f"tensor dimension is 1, but we got boundaries tensor dim({sorted_sequence.ndim})")
    _check_sorted_sequence(sorted_sequence, (), right, side, sorter)
    return _search_result(sorted_sequence, (), out_int32)


@shape_rule("isin.Tensor_Tensor", "isin.Tensor_Scalar")
def _isin(elements: TensorMeta, test_elements: Any, assume_unique: bool = False, invert: bool = False) -> TensorMeta:
    return TensorMeta(elements.shape, DType.bool)


@shape_rule("isin.Scalar_Tensor")
def _isin_scalar(element: Any, test_elements: TensorMeta, assume_unique: bool = False,
                 invert: bool = False) -> TensorMeta:
    return TensorMeta((), DType.bool)


# ---------------------------------------------------------------- composites torch keeps whole: diff, nanmean, quantile


@shape_rule("diff")
def _diff(self: TensorMeta, n: int = 1, dim: int = -1, prepend: TensorMeta | None = None,
          append: TensorMeta | None = None) -> TensorMeta:
    """prepend, self and append joined along dim, which n differences shorten by n (ATen stops at 0)."""
    check(self.ndim >= 1, "diff expects input to be at least one-dimensional")
    check(n >= 0, f"order must be non-negative but got {n}")
    joined = cat_meta([t for t in (prepend, self, append) if t is not None], dim)
    d = normalize_dim(dim, joined.ndim)
    length = to_dim(joined.shape[d] - n)
    if type(length) is int:
        length = max(length, 0)
    return TensorMeta(tuple(length if i == d else s for i, s in enumerate(joined.shape)), joined.dtype)


@stride_rule("diff")
def _diff_strides(out: TensorMeta, self: TensorMeta, n: int = 1, dim: int = -1, prepend: TensorMeta | None = None,
                  append: TensorMeta | None = None) -> Strides | None:
    """The difference of two narrowed views of self is laid out as self (TensorIterator);
    a joined (cat) input is row-major, and so is its difference."""
    if prepend is not None or append is not None or n == 0:
        return None
    return elementwise_strides(out.shape, [TensorMeta(out.shape, self.dtype, strides_of(self))])


@shape_rule("nanmean")
def _nanmean(self: TensorMeta, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> TensorMeta:
    check(self.dtype.is_floating_point or self.dtype.is_complex,
          f"nanmean(): expected input to have floating point or complex dtype but got {scalar_type_name(self.dtype)}")
    return _reduce(self, dim, keepdim, _accumulate_dtype(self, dtype))


@shape_rule("quantile", "quantile.scalar", "nanquantile", "nanquantile.scalar")
def _quantile(self: TensorMeta, q: Any, dim: int | None = None, keepdim: bool = False,
              interpolation: str = "linear") -> TensorMeta:
    """The reduced shape of self, after q's length when q is a 1-d tensor."""
    check(interpolation in _INTERPOLATIONS, "quantile() interpolation must be one of linear, lower, higher, "
          f"midpoint or nearest. Got {interpolation}")
    check(self.dtype in (DType.float32, DType.float64), "quantile() input tensor must be either float or double dtype")
    if isinstance(q, TensorMeta):
        check(q.ndim <= 1, f"quantile() q must be a scalar or 1D tensor, but got {q.ndim}D")
        check(q.dtype is self.dtype, "quantile() q tensor must be same dtype as the input tensor")
        lead = list(q.shape)
    else:
        check(0 <= q <= 1, f"quantile() q must be in the range [0, 1] but got {q}")
        lead = []
    if dim is None:
        rest = [1] * self.ndim if keepdim else []
    else:
        d = normalize_dim(dim, self.ndim)
        rest = [1 if i == d else s for i, s in enumerate(self.shape) if keepdim or i != d]
    return TensorMeta(tuple(lead + rest), self.dtype)


@stride_rule("quantile", "nanquantile")
def _quantile_strides(out: TensorMeta, self: TensorMeta, q: TensorMeta, *args: Any, **kwargs: Any) -> Strides | None:
    """A 1-d q's quantiles are computed last ([*shape, k], row-major) and moved first by a
    transpose (ATen's quantile), so q's dim has stride 1 and the rest keep theirs."""
    if q.ndim == 0:
        return None
    rest = list(out.shape[1:])
    return (1, *contiguous_strides([*rest, out.shape[0]])[:-1])


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")
