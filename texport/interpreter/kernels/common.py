"""Helpers shared by kernel families."""

from __future__ import annotations

from typing import Any

import numpy as np

from texport.dialects.dtypes import DType, result_type
from texport.dialects.meta import TensorMeta

from ..dtypes import FLOAT32, cast, from_numpy, is_reduced_float, to_numpy


def meta_of(value: Any) -> Any:
    """TensorMeta for an array (for dtype rules shared with the shape rules)."""
    if isinstance(value, np.ndarray):
        return TensorMeta(value.shape, from_numpy(value.dtype))
    return value


def torch_result_dtype(*operands: Any) -> np.dtype:
    """torch.result_type over arrays and Python scalars, as a numpy dtype."""
    return to_numpy(result_type(*(meta_of(o) for o in operands)))


def opmath(x: np.ndarray) -> np.ndarray:
    """x in the dtype products and sums are computed in (float16, bfloat16 -> float32)."""
    return x.astype(FLOAT32) if is_reduced_float(x.dtype) else x


def result_as(value: object, dtype: np.dtype) -> np.ndarray:
    """`value` as an ndarray of `dtype`, rounded as torch casts; a 0-d result stays
    a 0-d ndarray."""
    return cast(value, dtype)


def as_array(value: Any, dtype: np.dtype | None = None) -> np.ndarray:
    """An ndarray (0-d stays 0-d ndarray, never a numpy scalar)."""
    array = np.asarray(value, dtype=dtype)
    return array


def numpy_dtype(dtype: DType) -> np.dtype:
    return to_numpy(dtype)


def check_arguments(op: str, *args: Any) -> None:
    """Eager calls run kernels without shape rules: a kernel whose inputs need torch's
    checks runs its op's shape rule on their metas (with the arrays' strides) first,
    so eager refuses bad input with the same message as export."""
    from texport.dialects.shape_rules import SHAPE_RULES
    from texport.dialects.shape_rules.guards import ShapeGuardError

    try:
        SHAPE_RULES[op](*(_strided_meta(a) for a in args))
    except ShapeGuardError as error:  # torch's eager kernels raise RuntimeError
        raise RuntimeError(str(error)) from error


def _strided_meta(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        strides = tuple(s // value.itemsize for s in value.strides) if value.itemsize else None
        return TensorMeta(value.shape, from_numpy(value.dtype), strides)
    return value


def logaddexp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log(exp(a) + exp(b)); for complex numbers torch's formula: with lo, hi ordered by
    real part (b is lo on a tie), log1p(exp(lo - hi)) + hi (so the imaginary part is
    not wrapped into (-pi, pi]); a nan anywhere gives nan + nan j, two -inf real parts give lo, two
    +inf real parts give log(exp(lo) + exp(hi))."""
    if a.dtype.kind != "c" and b.dtype.kind != "c":
        return np.logaddexp(a, b)
    a, b = np.broadcast_arrays(a, b)
    swap = b.real <= a.real  # a tie takes b as lo
    lo, hi = np.where(swap, b, a), np.where(swap, a, b)
    with np.errstate(all="ignore"):
        value = np.log1p(np.exp(lo - hi)) + hi
        both_inf = ~np.isfinite(lo.real) & (lo.real == hi.real)
        value = np.where(both_inf, np.where(lo.real < 0, lo, np.log(np.exp(lo) + np.exp(hi))), value)
    nan = np.isnan(lo.real) | np.isnan(lo.imag)
    return np.where(nan, np.asarray(complex(np.nan, np.nan), value.dtype), value).astype(value.dtype)
