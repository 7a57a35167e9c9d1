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
