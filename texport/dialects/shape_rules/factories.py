"""Shape rules: tensor factories and random fills.

dtype=None follows torch: float factories give the default float (float32),
full() and arange() infer the dtype from their Python scalars, the *_like and
new_* families keep the dtype of `self`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use

from .._lazy import is_expr, loaded
from ..dtypes import DEFAULT_FLOAT, DType, result_type, scalar_dtype
from ..meta import TensorMeta
from ..symbolic import Dim, dim_str, to_dim
from . import shape_rule, stride_rule
from .common import broadcast_shapes, scalar_type_name, shape_text
from .guards import check, sym_eq, sym_le
from .strides import Strides, permuted_strides, preserved_strides
from .views import ceil_div, meta, nonneg, scalar_type, to_dims


def _sized(size: Sequence[Dim], dtype: DType) -> TensorMeta:
    shape = to_dims(size)
    for s in shape:
        check(not (type(s) is int and s < 0),
              f"Trying to create tensor with negative dimension {s}: {shape_text(shape)}")
    return meta(shape, dtype)


def fill_dtype(value: Any) -> DType:
    """The dtype torch infers from a fill value: bool, int64, float32 or complex64."""
    if not loaded():  # plain Python values only: no sympy object exists yet
        return scalar_dtype(value)
    if isinstance(value, sympy.Expr):  # before Boolean: a sympy Symbol is both
        return DType.int64 if value.is_integer else DEFAULT_FLOAT
    if isinstance(value, sympy.logic.boolalg.Boolean):
        return DType.bool
    return scalar_dtype(value)


def _is_floating(value: Any) -> bool:
    if is_expr(value):
        return not value.is_integer
    return isinstance(value, float)


# ---------------------------------------------------------------------------- from a size list


@shape_rule("zeros", "ones", "empty.memory_format", "rand", "randn")
def _float_factory(size: Sequence[Dim], dtype: Any = None, *_: Any) -> TensorMeta:
    return _sized(size, scalar_type(dtype) or DEFAULT_FLOAT)


@shape_rule("empty_permuted")
def _empty_permuted(size: Sequence[Dim], physical_layout: Sequence[int], dtype: Any = None, *_: Any) -> TensorMeta:
    check(len(size) == len(physical_layout) and sorted(physical_layout) == list(range(len(size))),
          f"Number of dimensions in size does not match the length of the physical_layout; "
          f"expected a permutation of the {len(size)} dims, got {list(physical_layout)}")
    return _float_factory(size, dtype)


@stride_rule("empty_permuted")
def _empty_permuted_strides(out: TensorMeta, size: Sequence[Dim], physical_layout: Sequence[int],
                            *_: Any) -> Strides | None:
    return permuted_strides(out.shape, physical_layout)


@shape_rule("empty_strided")
def _empty_strided(
    size: Sequence[Dim], stride: Sequence[Dim], dtype: Any = None, *_: Any
) -> TensorMeta:
    check(len(size) == len(stride), "mismatch in length of strides and shape")
    return _float_factory(size, dtype)


@shape_rule("full")
def _full(size: Sequence[Dim], fill_value: Any, dtype: Any = None, *_: Any) -> TensorMeta:
    return _sized(size, scalar_type(dtype) or fill_dtype(fill_value))


@shape_rule("randint")
def _randint(high: Dim, size: Sequence[Dim], dtype: Any = None, *_: Any) -> TensorMeta:
    return _sized(size, scalar_type(dtype) or DType.int64)


@shape_rule("randint.low")
def _randint_low(
    low: Dim, high: Dim, size: Sequence[Dim], dtype: Any = None, *_: Any
) -> TensorMeta:
    return _randint(high, size, dtype)


@shape_rule("randperm")
def _randperm(n: Dim, dtype: Any = None, *_: Any) -> TensorMeta:
    return _sized([n], scalar_type(dtype) or DType.int64)


@shape_rule("eye")
def _eye(n: Dim, dtype: Any = None, *_: Any) -> TensorMeta:
    return _eye_m(n, n, dtype)


@shape_rule("eye.m")
def _eye_m(n: Dim, m: Dim, dtype: Any = None, *_: Any) -> TensorMeta:
    check(nonneg(to_dim(n)), f"n must be greater or equal to 0, got {dim_str(n)}")
    check(nonneg(to_dim(m)), f"m must be greater or equal to 0, got {dim_str(m)}")
    return _sized([n, m], scalar_type(dtype) or DEFAULT_FLOAT)


@shape_rule("scalar_tensor")
def _scalar_tensor(s: Any, dtype: Any = None, *_: Any) -> TensorMeta:
    """Unlike full(), scalar_tensor does not infer: dtype=None is the default float."""
    return meta([], scalar_type(dtype) or DEFAULT_FLOAT)


# ---------------------------------------------------------------------------- like another tensor


@shape_rule("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like")
def _like(self: TensorMeta, dtype: Any = None, *_: Any) -> TensorMeta:
    return meta(self.shape, scalar_type(dtype) or self.dtype)


@shape_rule("full_like", "randint_like")
def _like_with_value(self: TensorMeta, value: Any, dtype: Any = None, *_: Any) -> TensorMeta:
    """full_like keeps self's dtype (no inference from the fill value), as torch."""
    return _like(self, dtype)


@shape_rule("randint_like.low_dtype")
def _randint_like_low(
    self: TensorMeta, low: Dim, high: Dim, dtype: Any = None, *_: Any
) -> TensorMeta:
    return _like(self, dtype)


@stride_rule("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like", "full_like",
             "randint_like", "randint_like.low_dtype")
def _like_strides(out: TensorMeta, self: TensorMeta, *args: Any) -> Strides | None:
    """Laid out like self under preserve_format (every *_like's last argument)."""
    return preserved_strides(self, args[-1] if args else None)


@shape_rule("new_zeros", "new_ones", "new_empty")
def _new(self: TensorMeta, size: Sequence[Dim], dtype: Any = None, *_: Any) -> TensorMeta:
    return _sized(size, scalar_type(dtype) or self.dtype)


@shape_rule("new_empty_strided")
def _new_empty_strided(self: TensorMeta, size: Sequence[Dim], stride: Sequence[Dim], dtype: Any = None,
                       *_: Any) -> TensorMeta:
    check(len(size) == len(stride), "mismatch in length of strides and shape")
    return _new(self, size, dtype)


@shape_rule("new_full")
def _new_with(
    self: TensorMeta, size: Sequence[Dim], value_or_stride: Any, dtype: Any = None, *_: Any
) -> TensorMeta:
    return _new(self, size, dtype)


# ---------------------------------------------------------------------------- ranges


def _arange_length(start: Any, end: Any, step: Any) -> Dim:
    """ceil((end - start) / step); FloorDiv over symbolic integer bounds."""
    start, end, step = (v if isinstance(v, float) else to_dim(v) for v in (start, end, step))
    inconsistent = "upper bound and larger bound inconsistent with step sign"
    if all(isinstance(v, (int, float)) for v in (start, end, step)):
        check(step != 0, "step must be nonzero")
        check((step > 0 and end >= start) or (step < 0 and end <= start), inconsistent)
        if all(type(v) is int for v in (start, end, step)):
            return -((start - end) // step)
        return math.ceil((end - start) / step)
    if any(_is_floating(v) for v in (start, end, step)):
        return to_dim(sympy.ceiling((sympy.sympify(end) - start) / step))
    check(not sym_eq(step, 0), "step must be nonzero")
    if nonneg(step):
        check(sym_le(start, end), inconsistent)
        return ceil_div(end - start, step)
    check(sym_le(end, start), inconsistent)
    return ceil_div(start - end, -step)


@shape_rule("arange")
def _arange(end: Any, dtype: Any = None, *_: Any) -> TensorMeta:
    return _arange_step(0, end, 1, dtype)


@shape_rule("arange.start")
def _arange_start(start: Any, end: Any, dtype: Any = None, *_: Any) -> TensorMeta:
    return _arange_step(start, end, 1, dtype)


@shape_rule("arange.start_step")
def _arange_step(start: Any, end: Any, step: Any = 1, dtype: Any = None, *_: Any) -> TensorMeta:
    """All-integer bounds give int64, any float bound the default float."""
    floating = any(_is_floating(v) for v in (start, end, step))
    out = scalar_type(dtype) or (DEFAULT_FLOAT if floating else DType.int64)
    if out is DType.int64 and floating:  # torch counts an int64 range over the truncated bounds
        start, end, step = (int(v) if isinstance(v, float) else v for v in (start, end, step))
    return meta([_arange_length(start, end, step)], out)


@shape_rule("logspace")
def _logspace(start: Any, end: Any, steps: Dim, base: float = 10.0, dtype: Any = None, *_: Any) -> TensorMeta:
    return _linspace(start, end, steps, dtype)


@shape_rule("linspace")
def _linspace(start: Any, end: Any, steps: Dim, dtype: Any = None, *_: Any) -> TensorMeta:
    check(nonneg(to_dim(steps)), "number of steps must be non-negative")
    complex_bounds = isinstance(start, complex) or isinstance(end, complex)
    default = DType.complex64 if complex_bounds else DEFAULT_FLOAT
    return meta([steps], scalar_type(dtype) or default)


def _bound(name: str, op: str, value: Any) -> Any:
    """A 0-d tensor bound of linspace/logspace as the Scalar torch reads off it (its kind only)."""
    if not isinstance(value, TensorMeta):
        return value
    check(len(value.shape) == 0, f"{op} only supports 0-dimensional start and end tensors, "
          f"but got {name} with {len(value.shape)} dimension(s).")
    return 0j if value.dtype.is_complex else 0.0


@shape_rule("linspace.Tensor_Tensor", "linspace.Tensor_Scalar", "linspace.Scalar_Tensor")
def _linspace_tensor(start: Any, end: Any, steps: Dim, dtype: Any = None, *_: Any) -> TensorMeta:
    return _linspace(_bound("start", "linspace", start), _bound("end", "linspace", end), steps, dtype)


@shape_rule("logspace.Tensor_Tensor", "logspace.Tensor_Scalar", "logspace.Scalar_Tensor")
def _logspace_tensor(start: Any, end: Any, steps: Dim, base: float = 10.0, dtype: Any = None, *_: Any) -> TensorMeta:
    return _linspace(_bound("start", "logspace", start), _bound("end", "logspace", end), steps, dtype)


# ---------------------------------------------------------------------------- random fills


@shape_rule("bernoulli", "bernoulli.p", "bernoulli_.Tensor", "bernoulli_.float", "uniform_", "normal_")
def _random_fill(self: TensorMeta, *_: Any) -> TensorMeta:
    return self


# ---------------------------------------------------------------------------- triangle indices


def tril_count(row: int, col: int, offset: int) -> int:
    """Elements (i, j) of a row x col matrix with j <= i + offset."""
    return sum(max(0, min(col, i + offset + 1)) for i in range(row))


def _triangle_indices(count: int, row: int, col: int, dtype: Any) -> TensorMeta:
    check(row >= 0, f"row must be non-negative, got{row}")
    check(col >= 0, f"col must be non-negative, got{col}")
    return meta([2, count], scalar_type(dtype) or DType.int64)


@shape_rule("tril_indices")
def _tril_indices(row: int, col: int, offset: int = 0, dtype: Any = DType.int64, *_: Any) -> TensorMeta:
    return _triangle_indices(tril_count(row, col, offset), row, col, dtype)


@shape_rule("triu_indices")
def _triu_indices(row: int, col: int, offset: int = 0, dtype: Any = DType.int64, *_: Any) -> TensorMeta:
    return _triangle_indices(row * col - tril_count(row, col, offset - 1), row, col, dtype)


# ---------------------------------------------------------------------------- draws from distributions


@shape_rule("exponential", "cauchy", "geometric", "log_normal", "random", "random.from", "random.to")
def _distribution_like(self: TensorMeta, *_: Any) -> TensorMeta:
    return meta(self.shape, self.dtype)


@shape_rule("normal.Tensor_float")
def _normal_mean(mean: TensorMeta, std: float = 1.0, generator: Any = None) -> TensorMeta:
    return meta(mean.shape, mean.dtype)


@shape_rule("normal.float_Tensor")
def _normal_std(mean: float, std: TensorMeta, generator: Any = None) -> TensorMeta:
    return meta(std.shape, std.dtype)


@shape_rule("normal.Tensor_Tensor")
def _normal_both(mean: TensorMeta, std: TensorMeta, generator: Any = None) -> TensorMeta:
    return meta(broadcast_shapes(mean.shape, std.shape), result_type(mean, std))


@shape_rule("normal.float_float")
def _normal_sized(mean: float, std: float, size: Sequence[Dim], generator: Any = None, dtype: Any = None,
                  *_: Any) -> TensorMeta:
    return _sized(size, scalar_type(dtype) or DEFAULT_FLOAT)


@shape_rule("multinomial")
def _multinomial(self: TensorMeta, num_samples: Dim, replacement: bool = False, generator: Any = None) -> TensorMeta:
    check(self.ndim in (1, 2), f"prob_dist must be 1 or 2 dim, but got {self.ndim}")
    check(self.dtype.is_floating_point, f"multinomial only supports floating-point dtypes for input, got: "
          f"{scalar_type_name(self.dtype)}")
    check(not (type(num_samples) is int and num_samples <= 0), "cannot sample n_sample <= 0 samples")
    check(replacement or not (type(num_samples) is int and type(self.shape[-1]) is int
                              and num_samples > self.shape[-1]),
          "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    return meta([*self.shape[:-1], num_samples], DType.int64)
