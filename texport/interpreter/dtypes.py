"""numpy dtypes for texport's DTypes, and torch's rules for computing in them.

bfloat16 is ml_dtypes' ``bfloat16``: a real 2-byte numpy dtype, so a bf16
tensor holds bf16 values and a cast to it rounds (to nearest, ties to even),
as torch's does. Importing ml_dtypes takes ~0.5 s, so it loads when a bfloat16
is first needed (``to_numpy(DType.bfloat16)``, or an array of it met in
``from_numpy``); until then no bfloat16 array can exist. numpy files it under
kind ``V``, not ``f``: ask ``is_floating`` / ``is_inexact`` / ``is_bfloat16``
here, never ``dtype.kind``.

torch computes the reduced floats (float16, bfloat16) in float32, its "opmath"
type, and rounds once at the end (``at::opmath_type``): a kernel upcasts its
operands with ``opmath_dtype`` and ends with ``cast`` to the result dtype.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from texport.dialects._lazy import LazyModule
from texport.dialects.dtypes import DType

ml_dtypes: Any = LazyModule("ml_dtypes", "ml_dtypes, imported when a bfloat16 is first needed")

FLOAT16 = np.dtype(np.float16)
FLOAT32 = np.dtype(np.float32)

# bfloat16 joins these tables when ml_dtypes loads (_load_bfloat16)
_TO_NUMPY = {dtype: np.dtype(dtype.numpy_name) for dtype in DType if dtype is not DType.bfloat16}
_FROM_NUMPY = {array_dtype: dtype for dtype, array_dtype in _TO_NUMPY.items()}
# at::opmath_type: the dtype a reduced float's arithmetic runs in
_OPMATH = {FLOAT16: FLOAT32}


def _load_bfloat16() -> np.dtype:
    """Import ml_dtypes and register its bfloat16 in the tables."""
    bfloat16 = np.dtype(ml_dtypes.bfloat16)
    _TO_NUMPY[DType.bfloat16] = bfloat16
    _FROM_NUMPY[bfloat16] = DType.bfloat16
    _OPMATH[bfloat16] = FLOAT32
    return bfloat16


def to_numpy(dtype: DType) -> np.dtype:
    array_dtype = _TO_NUMPY.get(dtype)
    return _load_bfloat16() if array_dtype is None else array_dtype


def from_numpy(dtype: np.dtype) -> DType:
    dtype = np.dtype(dtype)
    found = _FROM_NUMPY.get(dtype)
    if found is None and DType.bfloat16 not in _TO_NUMPY:
        _load_bfloat16()  # the caller's own ml_dtypes array, maybe
        found = _FROM_NUMPY.get(dtype)
    if found is None:
        raise TypeError(f"numpy dtype {dtype} has no texport dtype")
    return found


def opmath_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype torch computes ``dtype`` in: float32 for float16 and bfloat16, else itself."""
    return _OPMATH.get(dtype, dtype)


# is_reduced_float(dtype): float16 or bfloat16, computed in float32 and rounded back
# once. The dict's own membership test: kernels ask it on every call.
is_reduced_float = _OPMATH.__contains__


def is_bfloat16(dtype: np.dtype) -> bool:
    return _FROM_NUMPY.get(dtype) is DType.bfloat16


def is_floating(dtype: np.dtype) -> bool:
    """A real floating dtype, bfloat16 included (torch's is_floating_point)."""
    return dtype.kind == "f" or dtype in _OPMATH


def is_inexact(dtype: np.dtype) -> bool:
    """Floating or complex."""
    return dtype.kind in "fc" or dtype in _OPMATH


def finfo(dtype: np.dtype) -> Any:
    """np.finfo, or ml_dtypes' for bfloat16 (which np.finfo knows only through a cache
    ml_dtypes fills behind numpy's back)."""
    return ml_dtypes.finfo(dtype) if is_bfloat16(dtype) else np.finfo(dtype)


def cast(value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` as an ndarray of ``dtype`` (itself when it already is one), converted
    as torch's ``static_cast`` does. A 0-d result stays a 0-d ndarray.

    c10's Half and BFloat16 convert from and to float only: a double (or an
    integer) reaches them through float32, so it rounds twice, as in torch
    (numpy's direct double -> float16 rounds once), and a reduced float leaves
    through float32 (bfloat16 -> uint8 wraps as float32 -> uint8 does)."""
    array = np.asarray(value)
    source = array.dtype
    if source == dtype:
        return array
    if source != FLOAT32 and (dtype in _OPMATH or source in _OPMATH):
        array = array.astype(FLOAT32)
    return array.astype(dtype)


_C_TYPES = {
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int32_t",
    "int64": "int64_t",
    "uint8": "uint8_t",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
}


def checked_fill(value: Any, dtype: np.dtype) -> np.ndarray:
    """A fill value in ``dtype``, range-checked like c10's checked_convert: a negative
    integer may wrap into an unsigned type (full_like(uint8, -9) is 247), a float
    truncates into an integer type, an out-of-range value is an error."""
    if isinstance(value, np.ndarray) or isinstance(value, bool) or dtype == np.bool_:
        return _scalar_cast(value, dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low = -int(info.max) if dtype.kind == "u" and isinstance(value, int) else int(info.min)
        finite = isinstance(value, int) or math.isfinite(value)
        fits = finite and low - 1 < value < int(info.max) + 1
    else:
        infinite = isinstance(value, float) and not math.isfinite(value)  # inf/nan may go in
        fits = infinite or abs(value) <= float(finfo(dtype).max)
    if not fits:
        raise RuntimeError(
            f"value cannot be converted to type {_C_TYPES[dtype.name]} without overflow"
        )
    return _scalar_cast(value, dtype)


def _scalar_cast(value: Any, dtype: np.dtype) -> np.ndarray:
    """A C++ static_cast of a scalar or array: integers wrap, floats truncate."""
    if isinstance(value, np.ndarray):
        return value if value.dtype == dtype else cast(value, dtype)
    if isinstance(value, int) and not isinstance(value, bool) and dtype.kind in "iu":
        return np.asarray(value % (1 << (8 * dtype.itemsize))).astype(dtype)
    return cast(value, dtype) if is_reduced_float(dtype) else np.asarray(value).astype(dtype)
