"""Shape, indexing, reduction, sorting and random parts of the Tensor API.

Each function picks its ATen overload from the arguments as torch's Python
bindings do. A CompositeImplicitAutograd op that torch's export keeps as one
node (``tile``, ``hstack``, ``meshgrid``, ``diff``, ``quantile`` ...) is called
as that op, whose decomposition is the composite; ``combinations``, which
torch cannot export, is written here as the ops its C++ calls. ``FUNCTIONS``
joins ``texport.*``; ``METHODS`` are installed on Tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from texport.dialects.dtypes import DEFAULT_FLOAT, DType, category
from texport.dialects.dtypes import promote_types as _promote_types
from texport.dialects.dtypes import result_type as _result_type
from texport.interpreter.prepacked import note_written

from .dispatcher import call, current_mode, varargs_list
from .handles import op
from .results import minmax_result
from .tensor import Size, Tensor


class aminmax_result(NamedTuple):  # noqa: N801 - torch.return_types spelling
    min: Any
    max: Any


class histogram_result(NamedTuple):  # noqa: N801 - torch.return_types spelling
    hist: Any
    bin_edges: Any


class histogramdd_result(NamedTuple):  # noqa: N801 - torch.return_types spelling
    hist: Any
    bin_edges: Any


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


def _tensors(args: Sequence[Any]) -> list[Tensor]:
    """``f(a, b)`` or ``f([a, b])``, as torch's variadic tensor functions take them."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


# ---------------------------------------------------------------- shapes


def atleast_1d(*tensors: Any) -> Any:
    return _at_least("atleast_1d", tensors)


def atleast_2d(*tensors: Any) -> Any:
    return _at_least("atleast_2d", tensors)


def atleast_3d(*tensors: Any) -> Any:
    return _at_least("atleast_3d", tensors)


def _at_least(name: str, tensors: tuple[Any, ...]) -> Any:
    """One tensor: the op on it; several or a list: its Sequence overload, as a tuple."""
    if len(tensors) == 1 and _is_tensor(tensors[0]):
        return call(op(name), tensors[0])
    return tuple(call(op(f"{name}.Sequence"), _tensors(tensors)))


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    return call(op("hstack"), list(tensors))


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    return call(op("vstack"), list(tensors))


def row_stack(tensors: Sequence[Tensor]) -> Tensor:
    return call(op("row_stack"), list(tensors))


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    return call(op("dstack"), list(tensors))


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    return call(op("column_stack"), list(tensors))


def tile(input: Tensor, dims: Any) -> Tensor:  # noqa: A002 - torch's name
    return call(op("tile"), input, list(dims) if isinstance(dims, (list, tuple)) else [dims])


def _tile_method(self: Tensor, *dims: Any) -> Tensor:
    return tile(self, varargs_list(dims))


def broadcast_shapes(*shapes: Any) -> Size:
    """torch.broadcast_shapes: sizes compared from the right; 1 stretches."""
    result: list[Any] = []
    for shape in shapes:
        shape = [shape] if isinstance(shape, int) else list(shape)
        if len(shape) > len(result):
            result = [1] * (len(shape) - len(result)) + result
        for i, size in enumerate(shape):
            at = len(result) - len(shape) + i
            if size == 1:
                continue
            if result[at] != 1 and result[at] != size:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape. "
                                   f"Mismatch is between {result[at]} and {size} at dimension {at}.")
            result[at] = size
    return Size(result)


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    return tuple(call(op("broadcast_tensors"), _tensors(tensors)))


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """The overload torch's binding picks: meshgrid.indexing when indexing is given."""
    if indexing is None:
        return tuple(call(op("meshgrid"), _tensors(tensors)))
    return tuple(call(op("meshgrid.indexing"), _tensors(tensors), indexing=indexing))


def cartesian_prod(*tensors: Any) -> Tensor:
    return call(op("cartesian_prod"), _tensors(tensors))


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:  # noqa: A002
    """The r-element combinations of a 1-d tensor: its r-fold grid where the
    index grid is (strictly) increasing."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return call(op("empty.memory_format"), [0], dtype=input.dtype)
    grids = meshgrid([input] * r, indexing="ij")
    index = meshgrid([call(op("arange"), input.numel())] * r, indexing="ij")
    mask = call(op("full"), list(index[0].shape), True, dtype=DType.bool)
    for i in range(r - 1):
        mask = mask * (index[i] <= index[i + 1] if with_replacement else index[i] < index[i + 1])
    return call(op("stack"), [g.masked_select(mask) for g in grids], 1)


def fliplr(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("fliplr"), input)


def flipud(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("flipud"), input)


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:  # noqa: A002
    return call(op("rot90"), input, k, list(dims))


def diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    return call(op("diag"), input, diagonal)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:  # noqa: A002
    return call(op("diagflat"), input, offset)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: A002
    return call(op("diag_embed"), input, offset, dim1, dim2)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    return call(op("diagonal_scatter"), input, src, offset, dim1, dim2)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: Any) -> Tensor:  # noqa: A002
    return call(op("select_scatter"), input, src, dim, index)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None,  # noqa: A002
                  step: Any = 1) -> Tensor:
    return call(op("slice_scatter"), input, src, dim, start, end, step)


def as_strided_scatter(input: Tensor, src: Tensor, size: Sequence[Any], stride: Sequence[Any],  # noqa: A002
                       storage_offset: Any = None) -> Tensor:
    return call(op("as_strided_scatter"), input, src, list(size), list(stride), storage_offset)


def _unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return call(op("unfold"), self, dimension, size, step)


# ---------------------------------------------------------------- indexing


def argwhere(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("argwhere"), input)


def take(input: Tensor, index: Tensor) -> Tensor:  # noqa: A002
    return call(op("take"), input, index)


def _put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return call(op("put"), self, index, source, accumulate)


def _put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return call(op("put_"), self, index, source, accumulate)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:  # noqa: A002
    return call(op("index_fill.int_Tensor" if _is_tensor(value) else "index_fill.int_Scalar"), input, dim, index, value)


def _index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return call(op("index_fill_.int_Tensor" if _is_tensor(value) else "index_fill_.int_Scalar"), self, dim, index, value)


def _masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return call(op("masked_scatter_"), self, mask, source)


# ---------------------------------------------------------------- reductions


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    if isinstance(dim, (list, tuple)):
        return call(op("count_nonzero.dim_IntList"), input, list(dim))
    return call(op("count_nonzero"), input, dim)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> aminmax_result:  # noqa: A002
    return aminmax_result(*call(op("aminmax"), input, dim=dim, keepdim=keepdim))


def cummax(input: Tensor, dim: int) -> minmax_result:  # noqa: A002
    return minmax_result(*call(op("cummax"), input, dim))


def cummin(input: Tensor, dim: int) -> minmax_result:  # noqa: A002
    return minmax_result(*call(op("cummin"), input, dim))


def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:  # noqa: A002
    if dim is None:
        return call(op("median"), input)
    return minmax_result(*call(op("median.dim"), input, dim, keepdim))


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:  # noqa: A002
    if dim is None:
        return call(op("nanmedian"), input)
    return minmax_result(*call(op("nanmedian.dim"), input, dim, keepdim))


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> minmax_result:  # noqa: A002
    return minmax_result(*call(op("mode"), input, dim, keepdim))


def kthvalue(input: Tensor, k: Any, dim: int = -1, keepdim: bool = False) -> minmax_result:  # noqa: A002
    return minmax_result(*call(op("kthvalue"), input, k, dim, keepdim))


def _dims(dim: Any) -> Any:
    if dim is None:
        return None
    return list(dim) if isinstance(dim, (list, tuple)) else [dim]


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: DType | None = None) -> Tensor:  # noqa: A002
    return call(op("nansum"), input, _dims(dim), keepdim, dtype=dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: DType | None = None) -> Tensor:  # noqa: A002
    return call(op("nanmean"), input, _dims(dim), keepdim, dtype=dtype)


def _std_var_mean(name: str, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any) -> Any:  # noqa: A002
    if isinstance(dim, bool):  # std_mean(x, False): the unbiased flag in dim's place
        dim, unbiased = None, dim
    if correction is None and unbiased is not None:
        correction = 1 if unbiased else 0
    kwargs: dict[str, Any] = {}
    if correction is not None and (dim is not None or unbiased is not None or correction != 1):
        kwargs["correction"] = correction
    if keepdim:
        kwargs["keepdim"] = True
    args = [input] if dim is None else [input, _dims(dim)]
    return tuple(call(op(f"{name}.correction"), *args, **kwargs))


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
             correction: Any = None) -> tuple[Tensor, Tensor]:
    return _std_var_mean("std_mean", input, dim, unbiased, keepdim, correction)


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
             correction: Any = None) -> tuple[Tensor, Tensor]:
    return _std_var_mean("var_mean", input, dim, unbiased, keepdim, correction)


def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,  # noqa: A002
             interpolation: str = "linear") -> Tensor:
    return _quantile("quantile", input, q, dim, keepdim, interpolation)


def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,  # noqa: A002
                interpolation: str = "linear") -> Tensor:
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation)


def _quantile(name: str, input: Tensor, q: Any, dim: int | None, keepdim: bool,  # noqa: A002
              interpolation: str) -> Tensor:
    """The Tensor overload for a tensor q, .scalar for a number (as torch's binding picks)."""
    overload = name if _is_tensor(q) else f"{name}.scalar"
    return call(op(overload), input, q, dim, keepdim, interpolation=interpolation)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,  # noqa: A002
         append: Tensor | None = None) -> Tensor:
    return call(op("diff"), input, n, dim, prepend, append)


def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:  # noqa: A002
    return call(op("dist"), input, other, p)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    modes = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return call(op("cdist"), x1, x2, p, modes[compute_mode])


# ---------------------------------------------------------------- sorting and sets


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:  # noqa: A002
    if stable:
        return call(op("argsort.stable"), input, stable=True, dim=dim, descending=descending)
    return call(op("argsort"), input, dim, descending)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    """torch.unique: _unique2 (or unique_dim); the result, then inverse and counts when asked."""
    if dim is None:
        output, inverse, counts = call(op("_unique2"), input, sorted, return_inverse, return_counts)
    else:
        output, inverse, counts = call(op("unique_dim"), input, dim, sorted, return_inverse, return_counts)
    return _unique_result(output, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
                       dim: int | None = None) -> Any:
    output, inverse, counts = call(op("unique_consecutive"), input, return_inverse, return_counts, dim)
    return _unique_result(output, inverse, counts, return_inverse, return_counts)


def _unique_result(output: Tensor, inverse: Tensor, counts: Tensor, return_inverse: bool,
                   return_counts: bool) -> Any:
    extra = ([inverse] if return_inverse else []) + ([counts] if return_counts else [])
    return (output, *extra) if extra else output


def _unique_method(self: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
                   return_counts: bool = False, dim: int | None = None) -> Any:
    return unique(self, sorted, return_inverse, return_counts, dim)


def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:  # noqa: A002
    return call(op("histc"), input, bins, min, max)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: Any = 0) -> Tensor:  # noqa: A002
    return call(op("bincount"), input, weights, minlength)


def segment_reduce(data: Tensor, reduce: str, *, lengths: Tensor | None = None, indices: Tensor | None = None,
                   offsets: Tensor | None = None, axis: int = 0, unsafe: bool = False, initial: Any = None) -> Tensor:
    return call(op("segment_reduce"), data, reduce, lengths=lengths, indices=indices, offsets=offsets, axis=axis,
                unsafe=unsafe, initial=initial)


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
              density: bool = False) -> histogram_result:
    """A bin count picks histogram.bin_ct, a tensor of edges histogram.bins_tensor (as torch)."""
    if _is_tensor(bins):
        return histogram_result(*call(op("histogram.bins_tensor"), input, bins, weight=weight, density=density))
    return histogram_result(*call(op("histogram.bin_ct"), input, bins, range=range, weight=weight, density=density))


def histogramdd(input: Tensor, bins: Any, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
                density: bool = False) -> histogramdd_result:
    """torch.functional.histogramdd: the edges, then the counts (from bin counts or edge tensors);
    one int applies to every dim of the (..., D) points."""
    if isinstance(bins, (list, tuple)) and bins and _is_tensor(bins[0]):
        hist = call(op("_histogramdd_from_bin_tensors"), input, list(bins), weight=weight, density=density)
        return histogramdd_result(hist, list(bins))
    counts = [bins] * input.shape[-1] if isinstance(bins, int) else list(bins)
    edges = call(op("_histogramdd_bin_edges"), input, counts, range=range, weight=weight, density=density)
    hist = call(op("_histogramdd_from_bin_cts"), input, counts, range=range, weight=weight, density=density)
    return histogramdd_result(hist, list(edges))


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:  # noqa: A002
    name = "bucketize.Tensor" if _is_tensor(input) else "bucketize.Scalar"
    return call(op(name), input, boundaries, out_int32=out_int32, right=right)


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,  # noqa: A002
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    name = "searchsorted.Tensor" if _is_tensor(input) else "searchsorted.Scalar"
    return call(op(name), sorted_sequence, input, out_int32=out_int32, right=right, side=side, sorter=sorter)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    if not _is_tensor(elements):
        name = "isin.Scalar_Tensor"
    else:
        name = "isin.Tensor_Tensor" if _is_tensor(test_elements) else "isin.Tensor_Scalar"
    return call(op(name), elements, test_elements, assume_unique=assume_unique, invert=invert)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: DType = DType.int64, **_: Any) -> Tensor:
    return call(op("tril_indices"), row, col, offset, dtype=dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: DType = DType.int64, **_: Any) -> Tensor:
    return call(op("triu_indices"), row, col, offset, dtype=dtype)


# ---------------------------------------------------------------- random draws (texport's generator)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None, dtype: DType | None = None,
           **_: Any) -> Tensor:
    """The overload torch's binding picks: a tensor mean and/or std, or two numbers and a size."""
    if _is_tensor(mean) and _is_tensor(std):
        return call(op("normal.Tensor_Tensor"), mean, std, generator=generator)
    if _is_tensor(mean):
        return call(op("normal.Tensor_float"), mean, std, generator=generator)
    if _is_tensor(std):
        return call(op("normal.float_Tensor"), mean, std, generator=generator)
    if size is None:
        raise TypeError("normal() with a float mean and std needs a size")
    return call(op("normal.float_float"), mean, std, list(size), generator=generator, dtype=dtype)


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:  # noqa: A002
    if p is None:
        return call(op("bernoulli"), input, generator=generator)
    return call(op("bernoulli.p"), input, p, generator=generator)


def multinomial(input: Tensor, num_samples: Any, replacement: bool = False, *,  # noqa: A002
                generator: Any = None) -> Tensor:
    return call(op("multinomial"), input, num_samples, replacement, generator=generator)


def _exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    return call(op("exponential_"), self, lambd, generator=generator)


def _cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    return call(op("cauchy_"), self, median, sigma, generator=generator)


def _geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    return call(op("geometric_"), self, p, generator=generator)


def _log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    return call(op("log_normal_"), self, mean, std, generator=generator)


def _random_(self: Tensor, *bounds: Any, generator: Any = None, **named: Any) -> Tensor:
    """random_(): every value the dtype holds exactly; random_(to); random_(from, to)."""
    low, high = (list(bounds) + [None, None])[:2]
    low, high = named.get("from", low), named.get("to", high)
    if low is not None and len(bounds) + len(named) == 1 and "from" not in named:
        return call(op("random_.to"), self, low, generator=generator)
    if low is None and high is None:
        return call(op("random_"), self, generator=generator)
    if low is None:
        return call(op("random_.to"), self, high, generator=generator)
    return call(op("random_.from"), self, low, high, generator=generator)


# ---------------------------------------------------------------- dtypes


def get_default_dtype() -> DType:
    return DEFAULT_FLOAT


def set_default_dtype(d: DType) -> None:
    """texport's default float is float32 throughout; setting it to another dtype is not supported."""
    if d is not DEFAULT_FLOAT:
        raise NotImplementedError(f"texport's default dtype is {DEFAULT_FLOAT}; set_default_dtype({d}) is not supported")


def promote_types(type1: DType, type2: DType) -> DType:
    return _promote_types(type1, type2)


def result_type(tensor: Any, other: Any) -> DType:
    return _result_type(tensor, other)


def can_cast(from_: DType, to: DType) -> bool:
    """torch's canCast: no complex to non-complex, float to integral, or non-bool to bool."""
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and category(to) <= 1:
        return False
    return not (to is DType.bool and from_ is not DType.bool)


def is_nonzero(input: Tensor) -> bool:  # noqa: A002
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous"
                           if input.numel() else "Boolean value of Tensor with no values is ambiguous")
    return bool(input.item())


# ---------------------------------------------------------------- eager-only Python callbacks


def _eager_only(self: Tensor, what: str) -> None:
    if getattr(current_mode(), "concrete", None) is not None:
        raise RuntimeError(f"Tensor.{what} runs a Python callable on each element: it works in eager mode only, "
                           "not under export")


def _apply_(self: Tensor, callable: Any) -> Tensor:  # noqa: A002 - torch's name
    _eager_only(self, "apply_")
    values = np.vectorize(callable, otypes=[self._value.dtype])(self._value) if self.numel() else self._value
    self._value[...] = values
    note_written(self._value)
    return self


def _map_(self: Tensor, tensor: Tensor, callable: Any) -> Tensor:  # noqa: A002
    _eager_only(self, "map_")
    other = np.broadcast_to(tensor._value, self._value.shape)
    values = np.vectorize(callable, otypes=[self._value.dtype])(self._value, other) if self.numel() else self._value
    self._value[...] = values
    note_written(self._value)
    return self


FUNCTIONS = {
    "atleast_1d": atleast_1d, "atleast_2d": atleast_2d, "atleast_3d": atleast_3d,
    "hstack": hstack, "vstack": vstack, "row_stack": row_stack, "dstack": dstack,
    "column_stack": column_stack, "tile": tile, "broadcast_shapes": broadcast_shapes,
    "broadcast_tensors": broadcast_tensors, "meshgrid": meshgrid, "cartesian_prod": cartesian_prod,
    "combinations": combinations, "fliplr": fliplr, "flipud": flipud, "rot90": rot90, "diag": diag,
    "diagflat": diagflat, "diag_embed": diag_embed, "diagonal_scatter": diagonal_scatter,
    "select_scatter": select_scatter, "slice_scatter": slice_scatter, "as_strided_scatter": as_strided_scatter,
    "argwhere": argwhere, "take": take, "index_fill": index_fill, "count_nonzero": count_nonzero,
    "aminmax": aminmax, "cummax": cummax, "cummin": cummin, "median": median, "nanmedian": nanmedian,
    "mode": mode, "kthvalue": kthvalue, "nansum": nansum, "nanmean": nanmean, "quantile": quantile,
    "nanquantile": nanquantile, "std_mean": std_mean,
    "var_mean": var_mean, "diff": diff, "dist": dist, "cdist": cdist, "argsort": argsort,
    "unique": unique, "unique_consecutive": unique_consecutive, "get_default_dtype": get_default_dtype,
    "set_default_dtype": set_default_dtype, "promote_types": promote_types, "result_type": result_type,
    "can_cast": can_cast, "is_nonzero": is_nonzero, "histc": histc, "bincount": bincount,
    "histogram": histogram, "histogramdd": histogramdd, "segment_reduce": segment_reduce, "bucketize": bucketize, "searchsorted": searchsorted, "isin": isin, "tril_indices": tril_indices,
    "triu_indices": triu_indices, "normal": normal, "bernoulli": bernoulli, "multinomial": multinomial,
}

METHODS = {
    "tile": _tile_method, "fliplr": fliplr, "flipud": flipud, "rot90": rot90, "diag": diag,
    "diagflat": diagflat, "diag_embed": diag_embed, "diagonal_scatter": diagonal_scatter,
    "select_scatter": select_scatter, "slice_scatter": slice_scatter, "as_strided_scatter": as_strided_scatter,
    "unfold": _unfold, "argwhere": argwhere, "take": take, "put": _put, "put_": _put_,
    "index_fill": index_fill, "index_fill_": _index_fill_, "masked_scatter_": _masked_scatter_,
    "count_nonzero": count_nonzero, "aminmax": aminmax, "cummax": cummax, "cummin": cummin,
    "median": median, "nanmedian": nanmedian, "mode": mode, "kthvalue": kthvalue, "nansum": nansum,
    "nanmean": nanmean, "quantile": quantile, "nanquantile": nanquantile, "diff": diff, "dist": dist,
    "argsort": argsort, "unique": _unique_method,
    "unique_consecutive": unique_consecutive, "is_nonzero": is_nonzero, "apply_": _apply_, "map_": _map_,
    "histc": histc, "bincount": bincount, "histogram": histogram, "bernoulli": bernoulli, "multinomial": multinomial,
    "exponential_": _exponential_, "cauchy_": _cauchy_, "geometric_": _geometric_, "log_normal_": _log_normal_,
    "random_": _random_,
}


def _install() -> None:
    for name, method in METHODS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, method)


_install()
