"""Kernels: reductions, scans, softmax, sorting, top-k and vector norms.

Dims follow the shape rules: ``int[1]? dim`` None or [] reduces every dim, a
0-d input accepts dim 0 / -1 and stays 0-d. Dtypes as torch: sum/prod/cumsum
of integers and bools accumulate in int64; float16 and bfloat16 accumulate in
float32 and are rounded back once (prod excepted, torch's rounds every step).
Reductions over an empty tensor: sum 0, prod 1, mean nan, max/amax/argmax
raise (no identity). Value/index pairs and sorts are stable:
ties resolve to the first index (cummax/cummin: the last, as torch), a NaN is
the largest value and wins max and argmax.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from texport.dialects.dtypes import DType
from texport.dialects.shape_rules.common import normalize_dim, scalar_type_name

from ..dtypes import FLOAT32, cast, from_numpy, is_inexact, is_reduced_float, opmath_dtype, to_numpy
from . import kernel
from .common import as_result, last_axis_sums, logaddexp, opmath, silenced
from .factories import linspace_values
from .variants import write_into
from .views import join_tensors

Array = np.ndarray
Pair = tuple[Array, Array]
INT64 = np.dtype(np.int64)
# float32 and float64 sum, average and compare in their own dtype, as torch's: no
# accumulator dtype or rounding to decide
_PLAIN_FLOATS = frozenset((FLOAT32, np.dtype(np.float64)))
_BOOL = np.dtype(np.bool_)

# ---------------------------------------------------------------- helpers


_AXES: dict[tuple[Any, int], tuple[int, ...]] = {}  # (dim, ndim) -> axes, decided once


def _axes(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Normalised reduction axes: None or [] is every dim; a 0-d input has none."""
    key = (dim if dim is None or type(dim) is int else tuple(dim), ndim)
    found = _AXES.get(key)
    if found is None:
        found = _AXES[key] = _normalised_axes(dim, ndim)
    return found


def _normalised_axes(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    dims = [] if dim is None else [dim] if isinstance(dim, int) else list(dim)
    normalised = tuple(normalize_dim(d, ndim) for d in dims)
    if ndim == 0:
        return ()
    if not normalised:
        return tuple(range(ndim))
    if len(set(normalised)) != len(normalised):
        raise RuntimeError(f"dim {normalised[0]} appears multiple times in the list of dims")
    return normalised


def _count(self: Array, axes: tuple[int, ...]) -> int:
    return math.prod(self.shape[a] for a in axes)


def _result(value: Any, dtype: np.dtype) -> Array:
    """An ndarray of ``dtype`` (numpy reductions return numpy scalars); a float32
    accumulator rounds to a reduced float as torch casts it."""
    if is_reduced_float(dtype):
        return cast(value, dtype)
    return np.asarray(value, dtype=dtype)


def _accumulate_dtype(self: Array, dtype: DType | None) -> np.dtype:
    """sum/prod/cumsum: the requested dtype, else int64 for integers and bools."""
    if dtype is not None:
        return to_numpy(dtype)
    return INT64 if self.dtype.kind in "uib" else self.dtype


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """float16 and bfloat16 sums and moments accumulate in float32 (torch's opmath type)."""
    return opmath_dtype(dtype)


def _check_nonempty(name: str, self: Array, axes: tuple[int, ...], specified: bool) -> None:
    """max/min/argmax/amax over an empty reduction have no identity: torch's errors."""
    if self.size:
        return
    if not specified:
        raise RuntimeError(
            f"{name}: Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    for axis in axes:
        if self.shape[axis] == 0:
            raise IndexError(f"{name}: Expected reduction dim {axis} to have non-zero size.")


def _as_1d(self: Array, dim: int) -> tuple[Array, int]:
    """A 0-d input as a 1-element vector (a 0-d tensor takes dim 0 / -1), and the axis."""
    axis = normalize_dim(dim, self.ndim)
    return (self.reshape(1), 0) if self.ndim == 0 else (self, axis)


def _type_name(dtype: np.dtype) -> str:
    """torch's ScalarType spelling (Float, Long) for error messages."""
    return scalar_type_name(from_numpy(dtype))


def _is_nan(x: Array) -> Array:
    return np.isnan(x) if is_inexact(x.dtype) else np.zeros(x.shape, dtype=bool)


# ---------------------------------------------------------------- sum, prod, mean


@kernel("sum.dim_IntList")
def _sum(self: Array, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> Array:
    if dtype is None and self.dtype in _PLAIN_FLOATS:
        return as_result(np.add.reduce(self, axis=_axes(dim, self.ndim), keepdims=keepdim))
    acc = _accumulate_dtype(self, dtype)
    compute = _compute_dtype(acc)
    total = np.sum(self, axis=_axes(dim, self.ndim), keepdims=keepdim, dtype=compute)
    return _result(total, acc)


@kernel("sum")
def _sum_all(self: Array, dtype: DType | None = None) -> Array:
    return _sum(self, None, False, dtype)


@kernel("nansum")
def _nansum(
    self: Array, dim: Any = None, keepdim: bool = False, dtype: DType | None = None
) -> Array:
    if not is_inexact(self.dtype):
        return _sum(self, dim, keepdim, dtype)
    return _sum(np.where(np.isnan(self), 0, self), dim, keepdim, dtype)


@kernel("prod.dim_int")
def _prod(self: Array, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> Array:
    acc = _accumulate_dtype(self, dtype)
    axes = _axes(dim, self.ndim)
    with silenced():
        if is_reduced_float(acc):
            return _rounded_product(self.astype(acc, copy=False), axes, keepdim)
        total = np.prod(self, axis=axes, keepdims=keepdim, dtype=acc)
    return _result(total, acc)


def _rounded_product(x: Array, axes: tuple[int, ...], keepdim: bool) -> Array:
    """torch's float16/bfloat16 prod has no opmath: the factors are multiplied one by
    one, each product rounded to x's dtype."""
    rest = [a for a in range(x.ndim) if a not in axes]
    factors = np.transpose(x, rest + list(axes)).reshape(*(x.shape[a] for a in rest), -1)
    total = np.ones(factors.shape[:-1], x.dtype)
    for i in range(factors.shape[-1]):
        total = cast(total.astype(FLOAT32) * factors[..., i].astype(FLOAT32), x.dtype)
    if keepdim:
        total = total.reshape([1 if a in axes else n for a, n in enumerate(x.shape)])
    return total


@kernel("prod")
def _prod_all(self: Array, dtype: DType | None = None) -> Array:
    return _prod(self, None, False, dtype)


def _mean_dtype(self: Array, dtype: DType | None) -> np.dtype:
    out = to_numpy(dtype) if dtype is not None else self.dtype
    if not is_inexact(out):
        what, got = ("Optional", dtype) if dtype is not None else ("Input", from_numpy(self.dtype))
        raise RuntimeError(
            f"mean(): could not infer output dtype. {what} dtype must be either a floating "
            f"point or complex dtype. Got: {scalar_type_name(got)}"
        )
    return out


@kernel("mean.dim")
def _mean(self: Array, dim: Any, keepdim: bool = False, dtype: DType | None = None) -> Array:
    """sum / count (an empty reduction is 0/0 = nan)."""
    if dtype is None and self.dtype in _PLAIN_FLOATS:
        axes = _axes(dim, self.ndim)
        total = as_result(np.add.reduce(self, axis=axes, keepdims=keepdim))
        with silenced():
            return np.true_divide(total, _count(self, axes), out=total)
    out = _mean_dtype(self, dtype)
    compute = _compute_dtype(out)
    axes = _axes(dim, self.ndim)
    total = np.sum(self.astype(compute, copy=False), axis=axes, keepdims=keepdim, dtype=compute)
    with silenced():
        return _result(np.true_divide(total, _count(self, axes), dtype=compute), out)


@kernel("mean")
def _mean_all(self: Array, dtype: DType | None = None) -> Array:
    return _mean(self, None, False, dtype)


@kernel("logsumexp", "special_logsumexp")
def _logsumexp(self: Array, dim: Sequence[int], keepdim: bool = False) -> Array:
    """m + log(sum(exp(x - m))) with m the max (of the real parts for complex), taken
    as 0 where it is infinite (so all -inf gives -inf, an inf gives inf); integers
    give float32."""
    out = self.dtype if is_inexact(self.dtype) else np.dtype(np.float32)
    x = self.astype(_compute_dtype(out), copy=False)
    axes = _axes(dim, self.ndim)
    with silenced():
        shift = np.max(x.real, axis=axes, keepdims=True, initial=-np.inf)
        shift = np.where(np.isinf(shift), 0, shift).astype(x.dtype)
        total = np.sum(np.exp(x - shift), axis=axes, keepdims=True)
        value = np.log(total) + shift
    return _result(value if keepdim else np.squeeze(value, axes), out)


# ---------------------------------------------------------------- var, std


def _moments(self: Array, dim: Any, correction: Any, keepdim: bool, root: bool = False) -> Pair:
    """(variance with ``correction`` (None = 1), mean); the variance divides the squared
    deviations by max(N - correction, 0), so N <= correction gives inf or nan, as torch.
    ``root``: the standard deviation instead, the root taken before any rounding."""
    if self.dtype in _PLAIN_FLOATS:
        return _real_moments(self, dim, correction, keepdim, root)
    if not is_inexact(self.dtype):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    compute = _compute_dtype(self.dtype)
    x = self.astype(compute, copy=False)
    axes = _axes(dim, self.ndim)
    count = _count(self, axes)
    with silenced():
        mean = np.sum(x, axis=axes, keepdims=True) / compute.type(count)
        deviation = np.abs(x - mean)
        squares = np.sum(deviation * deviation, axis=axes, keepdims=keepdim)
        denominator = max(count - (1 if correction is None else correction), 0)
        var = squares / np.asarray(denominator, dtype=squares.dtype)
        if root:
            var = np.sqrt(var)
    real = np.dtype(self.dtype.char.lower()) if self.dtype.kind == "c" else self.dtype
    mean = mean if keepdim else np.squeeze(mean, axes)
    return _result(var, real), _result(mean, self.dtype)


def _real_moments(self: Array, dim: Any, correction: Any, keepdim: bool, root: bool) -> Pair:
    """_moments of a float32/float64 tensor, in its dtype, in place: (x - mean)^2 needs no |.|."""
    axes = _axes(dim, self.ndim)
    count = _count(self, axes)
    with silenced():
        mean = as_result(np.add.reduce(self, axis=axes, keepdims=True))
        np.true_divide(mean, count, out=mean)
        deviation = as_result(np.subtract(self, mean))
        np.multiply(deviation, deviation, out=deviation)
        var = as_result(np.add.reduce(deviation, axis=axes, keepdims=keepdim))
        np.true_divide(var, max(count - (1 if correction is None else correction), 0), out=var)
        if root:
            np.sqrt(var, out=var)
    return var, (mean if keepdim else np.squeeze(mean, axes))


def _unbiased(unbiased: bool) -> int:
    return 1 if unbiased else 0


@kernel("var.correction")
def _var(self: Array, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Array:
    return _moments(self, dim, correction, keepdim)[0]


@kernel("var.dim")
def _var_dim(self: Array, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Array:
    return _var(self, dim, _unbiased(unbiased), keepdim)


@kernel("var")
def _var_all(self: Array, unbiased: bool = True) -> Array:
    return _var(self, None, _unbiased(unbiased), False)


@kernel("std.correction")
def _std(self: Array, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Array:
    return _moments(self, dim, correction, keepdim, root=True)[0]


@kernel("std.dim")
def _std_dim(self: Array, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Array:
    return _std(self, dim, _unbiased(unbiased), keepdim)


@kernel("std")
def _std_all(self: Array, unbiased: bool = True) -> Array:
    return _std(self, None, _unbiased(unbiased), False)


@kernel("var_mean.correction")
def _var_mean(self: Array, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Pair:
    return _moments(self, dim, correction, keepdim)


@kernel("var_mean.dim")
def _var_mean_dim(self: Array, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Pair:
    return _var_mean(self, dim, _unbiased(unbiased), keepdim)


@kernel("var_mean")
def _var_mean_all(self: Array, unbiased: bool = True) -> Pair:
    return _var_mean(self, None, _unbiased(unbiased), False)


@kernel("std_mean.correction")
def _std_mean(self: Array, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Pair:
    return _moments(self, dim, correction, keepdim, root=True)


@kernel("std_mean.dim")
def _std_mean_dim(self: Array, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Pair:
    return _std_mean(self, dim, _unbiased(unbiased), keepdim)


@kernel("std_mean")
def _std_mean_all(self: Array, unbiased: bool = True) -> Pair:
    return _std_mean(self, None, _unbiased(unbiased), False)


# ---------------------------------------------------------------- amax, any, all, count


def _extreme(name: str, reduce: Callable[..., Any]) -> Callable[..., Array]:
    """amax/amin: the dtype is kept, nan propagates, [] reduces every dim."""

    def run(self: Array, dim: Sequence[int] = (), keepdim: bool = False) -> Array:
        axes = _axes(dim, self.ndim)
        if self.size:  # np.max without its Python wrapper; torch keeps the dtype
            out = reduce(self, axis=axes, keepdims=keepdim)
            return out if type(out) is np.ndarray and out.dtype == self.dtype else _result(out, self.dtype)
        _check_nonempty(f"{name}()", self, axes, specified=isinstance(dim, int) or bool(dim))
        return _result(reduce(self, axis=axes, keepdims=keepdim), self.dtype)

    return run


kernel("amax")(_extreme("amax", np.maximum.reduce))
kernel("amin")(_extreme("amin", np.minimum.reduce))


def _whole(name: str, reduce: Callable[..., Any]) -> Callable[[Array], Array]:
    """max()/min() of every element."""

    def run(self: Array) -> Array:
        _check_nonempty(f"{name}()", self, (), specified=False)
        return _result(reduce(self), self.dtype)

    return run


kernel("max")(_whole("max", np.max))
kernel("min")(_whole("min", np.min))


def _logical_dtype(self: Array) -> np.dtype:
    return self.dtype if self.dtype == np.uint8 else np.dtype(np.bool_)  # uint8 stays uint8


def _logical_reduction(reduce: Callable[..., Any]) -> Callable[..., Array]:
    """any/all: nonzero (nan included) is true; an empty any is false, an empty all true."""

    def run(self: Array, dim: Any = None, keepdim: bool = False) -> Array:
        axes = _axes(dim, self.ndim)
        if self.dtype == _BOOL:  # np.any/np.all without their Python wrapper
            return as_result(logical.reduce(self, axis=axes, keepdims=keepdim))
        return _result(reduce(self, axis=axes, keepdims=keepdim), _logical_dtype(self))

    logical = np.logical_or if reduce is np.any else np.logical_and
    return run


kernel("any.dim", "any.dims")(_logical_reduction(np.any))
kernel("all.dim", "all.dims")(_logical_reduction(np.all))


@kernel("any")
def _any_all(self: Array) -> Array:
    if self.dtype == _BOOL:
        return as_result(np.logical_or.reduce(self, axis=None))
    return _result(np.any(self), _logical_dtype(self))


@kernel("all")
def _all_all(self: Array) -> Array:
    if self.dtype == _BOOL:
        return as_result(np.logical_and.reduce(self, axis=None))
    return _result(np.all(self), _logical_dtype(self))


@kernel("count_nonzero", "count_nonzero.dim_IntList")
def _count_nonzero(self: Array, dim: Any = None) -> Array:
    return _result(np.sum(self != 0, axis=_axes(dim, self.ndim), dtype=INT64), INT64)


# ---------------------------------------------------------------- values and indices


def _arg_extreme(name: str, arg: Callable[..., Any]) -> Callable[..., Array]:
    """argmax/argmin: first index on ties, a nan's index if any; dim None flattens."""

    def run(self: Array, dim: int | None = None, keepdim: bool = False) -> Array:
        if dim is None:
            _check_nonempty(f"{name}()", self, (), specified=False)
            return _result(arg(self, axis=None, keepdims=keepdim), INT64)
        x, axis = _as_1d(self, dim)
        _check_nonempty(f"{name}()", x, (axis,), specified=True)
        index = arg(x, axis=axis, keepdims=keepdim)
        return _result(index.reshape(()) if self.ndim == 0 else index, INT64)

    return run


kernel("argmax")(_arg_extreme("argmax", np.argmax))
kernel("argmin")(_arg_extreme("argmin", np.argmin))


def _extreme_dim(name: str, arg: Callable[..., Any]) -> Callable[..., Pair]:
    """max.dim/min.dim: (values, first index), nan wins with its index."""

    def run(self: Array, dim: int, keepdim: bool = False) -> Pair:
        x, axis = _as_1d(self, dim)
        _check_nonempty(f"{name}()", x, (axis,), specified=True)
        index = arg(x, axis=axis, keepdims=True)
        values = np.take_along_axis(x, index, axis)
        if self.ndim == 0:
            return values.reshape(()), _result(index.reshape(()), INT64)
        if not keepdim:
            values, index = np.squeeze(values, axis), np.squeeze(index, axis)
        return _result(values, self.dtype), _result(index, INT64)

    return run


kernel("max.dim")(_extreme_dim("max", np.argmax))
kernel("min.dim")(_extreme_dim("min", np.argmin))


@kernel("aminmax")
def _aminmax(self: Array, dim: int | None = None, keepdim: bool = False) -> Pair:
    """(min, max) over one dim, or every dim."""
    axes = _axes(dim, self.ndim)
    _check_nonempty("aminmax()", self, axes, specified=dim is not None)
    low = np.min(self, axis=axes, keepdims=keepdim)
    high = np.max(self, axis=axes, keepdims=keepdim)
    return _result(low, self.dtype), _result(high, self.dtype)


@kernel("median")
def _median(self: Array) -> Array:
    """The lower median (element (n - 1) // 2 of the sorted values); nan if any is nan."""
    flat = self.reshape(-1)
    if flat.size == 0 or bool(_is_nan(flat).any()):
        return _empty_median(self)
    return _result(np.sort(flat)[(flat.size - 1) // 2], self.dtype)


@kernel("nanmedian")
def _nanmedian(self: Array) -> Array:
    """The lower median of the non-nan values; nan if there are none."""
    flat = self.reshape(-1)
    flat = flat[~_is_nan(flat)]
    if flat.size == 0:
        return _empty_median(self)
    return _result(np.sort(flat)[(flat.size - 1) // 2], self.dtype)


def _empty_median(self: Array) -> Array:
    if not is_inexact(self.dtype):  # torch fills with nan, which integers can't hold
        raise RuntimeError(
            f"value cannot be converted to type {self.dtype.name}_t without overflow"
        )
    return np.full((), np.nan, dtype=self.dtype)


# ---------------------------------------------------------------- scans


@kernel("cumsum")
def _cumsum(self: Array, dim: int, dtype: DType | None = None) -> Array:
    acc = _accumulate_dtype(self, dtype)
    x, axis = _as_1d(self, dim)
    with silenced():
        total = np.cumsum(x, axis=axis, dtype=_compute_dtype(acc))
        return _result(total.reshape(self.shape), acc)


@kernel("cumprod")
def _cumprod(self: Array, dim: int, dtype: DType | None = None) -> Array:
    acc = _accumulate_dtype(self, dtype)
    x, axis = _as_1d(self, dim)
    with silenced():
        return _result(np.cumprod(x, axis=axis, dtype=acc).reshape(self.shape), acc)


# torch's cumsum_ accumulates in self's dtype (a bool self stays bool): not cumsum's
# int64 written back, as a derived in-place kernel would do.
@kernel("cumsum_")
def _cumsum_(self: Array, dim: int, dtype: DType | None = None) -> Array:
    return write_into(self, _cumsum(self, dim, dtype or from_numpy(self.dtype)))


@kernel("cumprod_")
def _cumprod_(self: Array, dim: int, dtype: DType | None = None) -> Array:
    return write_into(self, _cumprod(self, dim, dtype or from_numpy(self.dtype)))


@kernel("logcumsumexp")
def _logcumsumexp(self: Array, dim: int) -> Array:
    """Running log(sum(exp)), one stable logaddexp per step."""
    if not is_inexact(self.dtype):
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{_type_name(self.dtype)}'"
        )
    x, axis = _as_1d(self.astype(_compute_dtype(self.dtype), copy=False), dim)
    with silenced():
        if x.dtype.kind == "c":  # no complex ufunc to accumulate: one step per position along dim
            steps = np.moveaxis(x, axis, 0).copy()
            for i in range(1, steps.shape[0]):
                steps[i] = logaddexp(steps[i - 1], steps[i])
            return _result(np.moveaxis(steps, 0, axis).reshape(self.shape), self.dtype)
        return _result(np.logaddexp.accumulate(x, axis=axis).reshape(self.shape), self.dtype)


def _cumulative_extreme(better: Callable[..., Any]) -> Callable[[Array, int], Pair]:
    """cummax/cummin: running (value, index). As torch's loop, an element equal to the
    running value takes over (the last index wins ties) and a nan, once seen, stays."""

    def run(self: Array, dim: int) -> Pair:
        x, axis = _as_1d(self, dim)
        values = better.accumulate(x, axis=axis)  # maximum/minimum propagate nan
        taken = (x == values) | _is_nan(x)
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        positions = np.arange(x.shape[axis], dtype=INT64).reshape(shape)
        indices = np.maximum.accumulate(np.where(taken, positions, 0), axis=axis)
        return _result(values.reshape(self.shape), self.dtype), _result(
            indices.reshape(self.shape), INT64
        )

    return run


kernel("cummax")(_cumulative_extreme(np.maximum))
kernel("cummin")(_cumulative_extreme(np.minimum))

# ---------------------------------------------------------------- softmax


def _softmax_values(self: Array, dim: int, out: np.dtype, log: bool) -> Array:
    """exp(x - max) / sum, or (x - max) - log(sum), computed in ``out``'s precision."""
    if self.dtype == out and out in _PLAIN_FLOATS and self.ndim and self.size:
        return _plain_softmax(self, normalize_dim(dim, self.ndim), log)
    if not is_inexact(out):
        name = "log_softmax" if log else "softmax"
        raise NotImplementedError(
            f"\"{name}_lastdim_kernel_impl\" not implemented for '{_type_name(out)}'"
        )
    x, axis = _as_1d(self.astype(_compute_dtype(out), copy=False), dim)
    with silenced():
        shifted = x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)
        if not log:  # one exp, in place; the sum and the division in x's dtype
            value = np.exp(shifted, out=shifted)
            value /= np.sum(value, axis=axis, keepdims=True)
            return _result(value.reshape(self.shape), out)
        total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
        if axis == x.ndim - 1 and is_reduced_float(out):
            # torch's last-dim kernel keeps the sum and its log in the input's dtype
            log_total = cast(np.log(cast(total, out).astype(x.dtype)), out)
            value = shifted - log_total.astype(x.dtype)
        else:
            value = shifted - np.log(total)
    return _result(value.reshape(self.shape), out)


def _plain_softmax(x: Array, axis: int, log: bool) -> Array:
    """_softmax_values of a nonempty float32/float64 tensor with dims, in one buffer.
    The shift is fmax's maximum (numpy's fmax reduction is ~1.5-2x faster than
    maximum's): it differs from max only on a slice holding a nan, which then sums
    to nan and gives nan throughout, as with max's nan shift."""
    sums = last_axis_sums if axis == x.ndim - 1 else functools.partial(np.add.reduce, axis=axis, keepdims=True)
    with silenced():
        value = np.subtract(x, np.fmax.reduce(x, axis=axis, keepdims=True))
        if not log:
            np.exp(value, value)
            value /= sums(value)
            return value
        total = sums(np.exp(value))
        value -= np.log(total, total)
        return value


def _softmax_kernel(log: bool) -> Callable[..., Array]:
    def run(self: Array, dim: int, dtype: DType | None = None) -> Array:
        return _softmax_values(self, dim, to_numpy(dtype) if dtype else self.dtype, log)

    return run


def _softmax_half_kernel(log: bool) -> Callable[..., Array]:
    """_softmax(x, dim, half_to_float): a float16 input may be computed and returned in float32."""

    def run(self: Array, dim: int, half_to_float: bool) -> Array:
        out = np.dtype(np.float32) if half_to_float else self.dtype
        return _softmax_values(self, dim, out, log)

    return run


@kernel("_safe_softmax")
def _safe_softmax(self: Array, dim: int, dtype: DType | None = None) -> Array:
    """softmax, with 0 (not nan) along a slice that is all -inf (attention's fully masked rows)."""
    out = _softmax_values(self, dim, to_numpy(dtype) if dtype else self.dtype, False)
    x, axis = _as_1d(self, dim)
    masked = np.all(x == -np.inf, axis=axis, keepdims=True)
    return np.where(np.broadcast_to(masked, x.shape).reshape(self.shape), np.zeros((), out.dtype), out)


kernel("softmax.int", "special_softmax")(_softmax_kernel(False))
kernel("log_softmax.int", "special_log_softmax")(_softmax_kernel(True))
kernel("_softmax")(_softmax_half_kernel(False))
kernel("_log_softmax")(_softmax_half_kernel(True))


@kernel("_softmax_backward_data")
def _softmax_backward(grad_output: Array, output: Array, dim: int, input_dtype: DType) -> Array:
    """dx = y * (dy - sum(dy * y)), in opmath, rounded once as torch's kernel."""
    grad, axis = _as_1d(opmath(grad_output), dim)
    y = opmath(output).reshape(grad.shape)
    value = y * (grad - np.sum(grad * y, axis=axis, keepdims=True))
    return _result(value.reshape(grad_output.shape), to_numpy(input_dtype))


@kernel("_log_softmax_backward_data")
def _log_softmax_backward(grad_output: Array, output: Array, dim: int, input_dtype: DType) -> Array:
    """dx = dy - exp(y) * sum(dy), in opmath, rounded once as torch's kernel."""
    grad, axis = _as_1d(opmath(grad_output), dim)
    y = opmath(output).reshape(grad.shape)
    with silenced():
        value = grad - np.exp(y) * np.sum(grad, axis=axis, keepdims=True)
    return _result(value.reshape(grad_output.shape), to_numpy(input_dtype))


# ---------------------------------------------------------------- sort, top-k


def _stable_argsort(x: Array, axis: int, descending: bool) -> Array:
    """Stable order along ``axis``; nan sorts as the largest value. Descending keeps
    equal elements in their original order: sort the reversed array ascending, reverse
    the result back and map the positions."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (x.shape[axis] - 1) - np.flip(order, axis)


@kernel("sort")
def _sort(self: Array, dim: int = -1, descending: bool = False) -> Pair:
    x, axis = _as_1d(self, dim)
    order = _stable_argsort(x, axis, descending)
    values = np.take_along_axis(x, order, axis)
    return _result(values.reshape(self.shape), self.dtype), _result(
        order.reshape(self.shape), INT64
    )


@kernel("sort.stable")
def _sort_stable(self: Array, stable: bool | None, dim: int = -1, descending: bool = False) -> Pair:
    return _sort(self, dim, descending)


@kernel("argsort")
def _argsort(self: Array, dim: int = -1, descending: bool = False) -> Array:
    return _sort(self, dim, descending)[1]


@kernel("argsort.stable")
def _argsort_stable(self: Array, stable: bool, dim: int = -1, descending: bool = False) -> Array:
    return _sort(self, dim, descending)[1]


@kernel("topk")
def _topk(
    self: Array, k: int, dim: int = -1, largest: bool = True, sorted: bool = True  # noqa: A002
) -> Pair:
    """The k largest (smallest) along dim, in order; ties take the lowest index first."""
    x, axis = _as_1d(self, dim)
    if not 0 <= k <= x.shape[axis]:
        raise RuntimeError("selected index k out of range")
    order = np.take(_stable_argsort(x, axis, largest), np.arange(k), axis=axis)
    values = np.take_along_axis(x, order, axis)
    if self.ndim == 0:
        return values.reshape(()), _result(order.reshape(()), INT64)
    return _result(values, self.dtype), _result(order, INT64)


@kernel("kthvalue")
def _kthvalue(self: Array, k: int, dim: int = -1, keepdim: bool = False) -> Pair:
    """The k-th smallest (1-based) along dim and its index (nan sorts last)."""
    x, axis = _as_1d(self, dim)
    if not 1 <= k <= x.shape[axis]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    index = np.take(_stable_argsort(x, axis, False), [k - 1], axis=axis)
    values = np.take_along_axis(x, index, axis)
    if self.ndim == 0:
        return values.reshape(()), _result(index.reshape(()), INT64)
    if not keepdim:
        values, index = np.squeeze(values, axis), np.squeeze(index, axis)
    return _result(values, self.dtype), _result(index, INT64)


# ---------------------------------------------------------------- norms


def _vector_norm(
    self: Array,
    ord: float,
    dim: Any,
    keepdim: bool,
    dtype: DType | None,  # noqa: A002
) -> Array:
    """||x||_ord over dim (None/[] = all): inf -> max|x|, -inf -> min|x|, 0 -> count of
    nonzeros, else (sum |x|^ord)^(1/ord). Floating (or complex) inputs only."""
    source = to_numpy(dtype) if dtype is not None else self.dtype
    if not is_inexact(self.dtype):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{_type_name(self.dtype)}"
        )
    out = np.dtype(source.char.lower()) if source.kind == "c" else source
    axes = _axes(dim, self.ndim)
    a = np.abs(self.astype(source, copy=False)).astype(_compute_dtype(out), copy=False)
    if math.isinf(ord):
        if self.size == 0 and (not axes or _count(self, axes) == 0):
            raise RuntimeError(
                "linalg.vector_norm cannot compute the inf norm on an empty tensor because "
                "the operation does not have an identity"
            )
        reduce = np.max if ord > 0 else np.min
        return _result(reduce(a, axis=axes, keepdims=keepdim), out)
    with silenced():
        if ord == 0:
            value = np.sum(a != 0, axis=axes, keepdims=keepdim, dtype=a.dtype)
        elif ord == 1:
            value = np.sum(a, axis=axes, keepdims=keepdim)
        elif ord == 2:
            value = np.sqrt(np.sum(a * a, axis=axes, keepdims=keepdim))
        else:
            power = a.dtype.type(ord)
            value = np.sum(a**power, axis=axes, keepdims=keepdim) ** (1 / power)
    return _result(value, out)


@kernel("linalg_vector_norm")
def _linalg_vector_norm(
    self: Array,
    ord: Any = 2,
    dim: Any = None,
    keepdim: bool = False,
    dtype: DType | None = None,  # noqa: A002
) -> Array:
    return _vector_norm(self, ord, dim, keepdim, dtype)


@kernel("norm.Scalar")
def _norm(self: Array, p: Any = 2) -> Array:
    return _vector_norm(self, p, None, False, None)


@kernel("norm.ScalarOpt_dim")
def _norm_dim(self: Array, p: Any, dim: Sequence[int], keepdim: bool = False) -> Array:
    return _vector_norm(self, 2 if p is None else p, dim, keepdim, None)


@kernel("renorm")
def _renorm(self: Array, p: Any, dim: int, maxnorm: Any) -> Array:
    """x scaled by maxnorm / (norm + 1e-7) where a slice's p-norm over the other dims
    exceeds maxnorm (torch's renorm_scale); reduced floats take the norm in float32."""
    if not p > 0:
        raise RuntimeError("renorm: non-positive norm not supported")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if self.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.ndim} dimensions")
    axes = [d for d in range(self.ndim) if d != normalize_dim(dim, self.ndim)]
    norm = _vector_norm(self, p, axes, True, DType.float32 if is_reduced_float(self.dtype) else None)
    c = norm.dtype.type
    with silenced():
        factor = np.where(norm > c(maxnorm), c(maxnorm) / (norm + c(1e-7)), c(1))
    return cast(self * cast(factor, self.dtype), self.dtype)


# ---------------------------------------------------------------- medians, modes


def _last_axis(self: Array, dim: int) -> tuple[Array, int]:
    """self with ``dim`` moved last (a 0-d input as one element), and the axis."""
    x, axis = _as_1d(self, dim)
    if x.shape[axis] == 0:
        raise RuntimeError(f"median() cannot compute median for a dimension of size 0 (dim {axis})")
    return np.moveaxis(x, axis, -1), axis


def _picked(self: Array, x: Array, index: Array, axis: int, keepdim: bool) -> Pair:
    """values x[..., index] and index, with the reduced axis kept or dropped (0-d stays 0-d)."""
    values = np.take_along_axis(x, index[..., None], -1)[..., 0]
    if keepdim and self.ndim:
        values, index = np.expand_dims(values, axis), np.expand_dims(index, axis)
    return _result(values, self.dtype), _result(index, INT64)


def _median_along(self: Array, dim: int, keepdim: bool, ignore_nan: bool) -> Pair:
    """The lower median along dim and its index. median: a NaN wins, the first one;
    nanmedian: the lower median of the non-NaN values (an all-NaN row: the middle NaN)."""
    x, axis = _last_axis(self, dim)
    n = x.shape[-1]
    nan = _is_nan(x)
    kept = n - nan.sum(-1) if ignore_nan else np.full(x.shape[:-1], n)
    middle = np.where(kept > 0, (kept - 1) // 2, (n - 1) // 2)
    order = np.argsort(x, axis=-1, kind="stable")  # NaN sorts last
    index = np.take_along_axis(order, middle[..., None], -1)[..., 0]
    if not ignore_nan:
        index = np.where(nan.any(-1), nan.argmax(-1), index)
    return _picked(self, x, index, axis, keepdim)


@kernel("median.dim")
def _median_dim(self: Array, dim: int, keepdim: bool = False) -> Pair:
    return _median_along(self, dim, keepdim, ignore_nan=False)


@kernel("nanmedian.dim")
def _nanmedian_dim(self: Array, dim: int, keepdim: bool = False) -> Pair:
    return _median_along(self, dim, keepdim, ignore_nan=True)


@kernel("mode")
def _mode(self: Array, dim: int = -1, keepdim: bool = False) -> Pair:
    """The most frequent value along dim (the smallest of equally frequent ones) and the
    index of its last occurrence, as torch's CPU kernel."""
    x, axis = _last_axis(self, dim)
    n = x.shape[-1]
    counts = (x[..., :, None] == x[..., None, :]).sum(-1)
    frequent = counts == counts.max(-1, keepdims=True)
    order = np.argsort(x, axis=-1, kind="stable")
    smallest = np.take_along_axis(order, np.take_along_axis(frequent, order, -1).argmax(-1)[..., None], -1)
    value = np.take_along_axis(x, smallest, -1)
    index = (n - 1) - np.flip(x == value, -1).argmax(-1)
    return _picked(self, x, index, axis, keepdim)


# ---------------------------------------------------------------- histograms, distances


@kernel("histc")
def _histc(self: Array, bins: int = 100, min: Any = 0, max: Any = 0) -> Array:  # noqa: A002
    """bins equal-width bins over [min, max] (the data's range when min == max); an element
    equal to max falls in the last bin, one outside the range or NaN in none."""
    if not is_inexact(self.dtype):
        raise RuntimeError(f'"histogram_cpu" not implemented for \'{_type_name(self.dtype)}\'')
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    work = _compute_dtype(self.dtype)
    x = self.astype(work).ravel()
    low, high = work.type(min), work.type(max)
    finite = x[~np.isnan(x)]
    if low == high and finite.size:
        low, high = finite.min(), finite.max()
    if low == high:
        low, high = low - 1, high + 1
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low}, {high}] is not finite")
    inside = finite[(finite >= low) & (finite <= high)]
    with silenced():
        position = ((inside - low) * work.type(bins) / (high - low)).astype(np.int64)
    counts = np.bincount(np.minimum(position, bins - 1), minlength=bins)
    return _result(counts, self.dtype)


def _samples(self: Array, dims: int) -> Array:
    """The input as (N, dims) points (histogram: every element one 1-d point)."""
    if not is_inexact(self.dtype):
        raise RuntimeError(f'"histogramdd" not implemented for \'{_type_name(self.dtype)}\'')
    return self.reshape(-1, dims)


def _bin_edges(samples: Array, bins: Sequence[int], range: Sequence[float] | None) -> list[Array]:  # noqa: A002
    """bins[d] + 1 equal-width edges per dim, torch's linspace in the input dtype over range (or
    the data's min and max; an empty range widened by 0.5 each way, as numpy)."""
    edges = []
    for d, count in enumerate(bins):
        if count <= 0:
            raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {count} for dimension {d}")
        if range is not None:
            low, high = float(range[2 * d]), float(range[2 * d + 1])
        elif samples.shape[0]:
            low, high = float(samples[:, d].min()), float(samples[:, d].max())
        else:
            low = high = 0.0
        if not (math.isfinite(low) and math.isfinite(high)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{low}, {high}] is not finite")
        if low > high:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low} max {high} "
                               f"for dimension {d}")
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges.append(linspace_values(low, high, count + 1, from_numpy(samples.dtype)))
    return edges


def _bin_counts(samples: Array, edges: Sequence[Array], weight: Array | None, density: bool) -> Array:
    """The (weighted) count of points per bin: a point in [edges[0], edges[-1]] falls in the bin
    whose left edge is the last <= it (the last bin closed); NaN and points outside fall in none."""
    inside = np.ones(samples.shape[0], bool)
    flat = np.zeros(samples.shape[0], np.int64)
    for d, edge in enumerate(edges):
        column = samples[:, d]
        inside &= (column >= edge[0]) & (column <= edge[-1])
        position = np.minimum(np.searchsorted(edge, column, side="right") - 1, len(edge) - 2)
        flat = flat * (len(edge) - 1) + np.clip(position, 0, None)
    shape = tuple(len(edge) - 1 for edge in edges)
    weights = None if weight is None else weight.reshape(-1)[inside].astype(np.float64)
    hist = np.bincount(flat[inside], weights, math.prod(shape)).astype(samples.dtype).reshape(shape)
    if density:
        hist = hist / hist.sum(dtype=samples.dtype)
        for d, edge in enumerate(edges):
            hist = hist / np.diff(edge).reshape([-1 if k == d else 1 for k in range(len(edges))])
    return hist


@kernel("histogram.bin_ct")
def _histogram_bin_ct(self: Array, bins: int = 100, range: Any = None, weight: Array | None = None,  # noqa: A002
                      density: bool = False) -> tuple[Array, Array]:
    samples = _samples(self, 1)
    edges = _bin_edges(samples, [bins], range)
    return _bin_counts(samples, edges, weight, density), edges[0]


@kernel("histogram.bins_tensor")
def _histogram_bins_tensor(self: Array, bins: Array, weight: Array | None = None,
                           density: bool = False) -> tuple[Array, Array]:
    samples = _samples(self, 1)
    return _bin_counts(samples, [bins], weight, density), bins.copy()


@kernel("_histogramdd_bin_edges")
def _histogramdd_bin_edges(self: Array, bins: Sequence[int], range: Any = None, weight: Array | None = None,  # noqa: A002
                           density: bool = False) -> list[Array]:
    return _bin_edges(_samples(self, len(bins)), bins, range)


@kernel("_histogramdd_from_bin_cts")
def _histogramdd_from_bin_cts(self: Array, bins: Sequence[int], range: Any = None,  # noqa: A002
                              weight: Array | None = None, density: bool = False) -> Array:
    samples = _samples(self, len(bins))
    return _bin_counts(samples, _bin_edges(samples, bins, range), weight, density)


@kernel("_histogramdd_from_bin_tensors")
def _histogramdd_from_bin_tensors(self: Array, bins: Sequence[Array], weight: Array | None = None,
                                  density: bool = False) -> Array:
    return _bin_counts(_samples(self, len(bins)), bins, weight, density)


_SEGMENT_UFUNCS = {"sum": (np.add, 0.0), "mean": (np.add, 0.0), "max": (np.maximum, -math.inf),
                   "min": (np.minimum, math.inf), "prod": (np.multiply, 1.0)}


@kernel("segment_reduce")
def _segment_reduce(data: Array, reduce: str, lengths: Array | None = None, indices: Array | None = None,
                    offsets: Array | None = None, axis: int = 0, unsafe: bool = False, initial: Any = None) -> Array:
    """Each run of lengths[..., s] elements along axis reduced from initial (else the reduction's
    identity); an empty segment's mean is initial, else nan. lengths (or offsets' differences)
    carry data's leading dims before the segment dim."""
    if reduce not in _SEGMENT_UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, max, min, mean or prod, got {reduce}")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    axis = normalize_dim(axis, data.ndim)
    counts = np.diff(offsets, axis=-1) if lengths is None else lengths
    leading, size = math.prod(data.shape[:axis]), data.shape[axis]
    counts = np.broadcast_to(counts, (*data.shape[:axis], counts.shape[-1])).reshape(leading, -1).astype(np.int64)
    segments = counts.shape[1]
    ends = np.cumsum(counts, axis=1)
    if np.any(ends[:, -1] != size):
        raise RuntimeError(f"segment_reduce(): Expected all rows of lengths along axis to sum to data.size({axis}).")
    # segment of each position: the number of segment ends at or before it, offset by its leading row
    owner = (np.arange(size)[None, None, :] >= ends[:, :, None]).sum(axis=1) + np.arange(leading)[:, None] * segments
    ufunc, identity = _SEGMENT_UFUNCS[reduce]
    start = identity if initial is None else initial
    flat = data.reshape(leading * size, -1)
    out = np.full((leading * segments, flat.shape[1]), start, data.dtype)
    with silenced():
        ufunc.at(out, owner.ravel(), flat)
        if reduce == "mean":
            count = counts.reshape(-1, 1).astype(data.dtype)
            out = np.where(count > 0, out / count, data.dtype.type(math.nan if initial is None else initial))
    return out.reshape(*data.shape[:axis], segments, *data.shape[axis + 1:]).astype(data.dtype, copy=False)


@kernel("dist")
def _dist(self: Array, other: Array, p: Any = 2) -> Array:
    """The p-norm of self - other (0: the count of nonzeros, inf / -inf: the largest / smallest)."""
    if not is_inexact(self.dtype):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_type_name(self.dtype)}")
    work = _compute_dtype(self.dtype)
    diff = np.abs(self.astype(work) - other.astype(work))
    real = diff.real.dtype if np.iscomplexobj(diff) else diff.dtype
    diff = diff.astype(real).ravel()
    with silenced():
        if p == 0:
            value = np.count_nonzero(diff)
        elif p == math.inf:
            value = diff.max(initial=0)
        elif p == -math.inf:
            value = diff.min() if diff.size else math.inf
        else:
            value = np.sum(diff ** real.type(p)) ** real.type(1 / p)
    return _result(value, real if np.iscomplexobj(self) else self.dtype)


# ---------------------------------------------------------------- searching sorted sequences, sets


def _search(boundaries: Array, values: Array, right: bool, out_int32: bool) -> Array:
    """For each value, how many boundaries (along the last dim) come before it: < (left) or <= (right)."""
    values = np.asarray(values)
    if boundaries.ndim == 1:
        found = np.searchsorted(boundaries, values, side="right" if right else "left")
    else:
        before = np.less_equal if right else np.less
        found = before(boundaries[..., None, :], values[..., :, None]).sum(-1)
    return np.asarray(found, np.int32 if out_int32 else np.int64)


@kernel("bucketize.Tensor", "bucketize.Scalar")
def _bucketize(self: Any, boundaries: Array, out_int32: bool = False, right: bool = False) -> Array:
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _search(boundaries, self, right, out_int32)


@kernel("searchsorted.Tensor", "searchsorted.Scalar")
def _searchsorted(sorted_sequence: Array, self: Any, out_int32: bool = False, right: bool = False,
                  side: str | None = None, sorter: Array | None = None) -> Array:
    if side not in (None, "left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                           "while right was True")
    if sorter is not None:
        sorted_sequence = np.take_along_axis(sorted_sequence, sorter, -1)
    return _search(sorted_sequence, self, right or side == "right", out_int32)


@kernel("isin.Tensor_Tensor", "isin.Tensor_Scalar", "isin.Scalar_Tensor")
def _isin(elements: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False) -> Array:
    return np.asarray(np.isin(elements, test_elements, invert=invert), np.bool_)


# ---------------------------------------------------------------- composites torch keeps whole: diff, nanmean, quantile


@kernel("diff")
def _diff(self: Array, n: int = 1, dim: int = -1, prepend: Array | None = None,
          append: Array | None = None) -> Array:
    """n forward differences along dim of prepend, self and append joined (bools differ by xor,
    numpy's not_equal); more differences than elements leave an empty dim, as ATen's."""
    if self.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    joined = join_tensors([t for t in (prepend, self, append) if t is not None], dim)
    axis = normalize_dim(dim, joined.ndim)
    return np.diff(joined, min(n, joined.shape[axis]), axis=axis)


@kernel("nanmean")
def _nanmean(self: Array, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> Array:
    """nansum over the count of non-NaN elements (all NaN: 0/0 = nan)."""
    if not is_inexact(self.dtype):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{scalar_type_name(from_numpy(self.dtype))}")
    total = _nansum(self, dim, keepdim, dtype)
    count = np.sum(~np.isnan(self), axis=_axes(dim, self.ndim), keepdims=keepdim)
    compute = _compute_dtype(total.dtype)
    with silenced():
        return _result(np.true_divide(total, count, dtype=compute), total.dtype)


@kernel("quantile", "quantile.scalar")
def _quantile(self: Array, q: Any, dim: int | None = None, keepdim: bool = False,
              interpolation: str = "linear") -> Array:
    """numpy's quantile: its methods are torch's interpolations; a NaN makes its slice's quantile NaN."""
    return _quantile_of(np.quantile, self, q, dim, keepdim, interpolation)


@kernel("nanquantile", "nanquantile.scalar")
def _nanquantile(self: Array, q: Any, dim: int | None = None, keepdim: bool = False,
                 interpolation: str = "linear") -> Array:
    """numpy's nanquantile: the quantile of each slice's non-NaN values (all NaN: NaN)."""
    return _quantile_of(np.nanquantile, self, q, dim, keepdim, interpolation)


def _quantile_of(numpy_quantile: Callable[..., Any], self: Array, q: Any, dim: int | None, keepdim: bool,
                 interpolation: str) -> Array:
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           f"Got {interpolation}")
    if self.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if not isinstance(q, np.ndarray) and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    q = np.asarray(q, self.dtype)
    if q.ndim > 1:
        raise RuntimeError(f"quantile() q must be a scalar or 1D tensor, but got {q.ndim}D")
    if q.size and not ((q >= 0).all() and (q <= 1).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    axis = None if dim is None else normalize_dim(dim, self.ndim)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice: NaN, as torch's
        result = np.asarray(numpy_quantile(self, q, axis=axis, keepdims=keepdim, method=interpolation), self.dtype)
    if q.ndim == 0:
        return result
    # torch computes q's dim last and transposes it first: laid out as its stride rule says
    return np.moveaxis(np.ascontiguousarray(np.moveaxis(result, 0, -1)), -1, 0)
