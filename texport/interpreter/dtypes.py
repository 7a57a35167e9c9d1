"""numpy dtypes for texport's DTypes (bfloat16 is held as float32: numpy has none)."""

from __future__ import annotations

import numpy as np

from texport.dialects.dtypes import DType

_TO_NUMPY = {dtype: np.dtype(dtype.numpy_name) for dtype in DType}
_FROM_NUMPY = {
    np.dtype(name): dtype
    for dtype in DType
    if dtype is not DType.bfloat16
    for name in [dtype.numpy_name]
}


def to_numpy(dtype: DType) -> np.dtype:
    return _TO_NUMPY[dtype]


def from_numpy(dtype: np.dtype) -> DType:
    try:
        return _FROM_NUMPY[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"numpy dtype {dtype} has no texport dtype") from None
