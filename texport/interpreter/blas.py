"""``c += a @ b`` on strided views, without a temporary: BLAS's gemm with beta = 1,
called in the OpenBLAS that numpy itself links.

numpy's matmul has no accumulating form: a sum of products (a convolution as one
product per kernel offset, kernels/conv_by_offsets.py) would allocate each
product and add it, twice the memory traffic of the product itself. gemm takes
``beta`` and a leading dimension per operand, so each product reads a window of
a larger array in place (rows of ``ld`` elements, a unit step along each row)
and adds into ``c``.

The library is the one threadpoolctl reports inside numpy's own folder (so the
thread count ``texport.set_num_threads`` sets is the one these calls use, and no
second BLAS thread pool spins beside numpy's). Only entry points whose integer
width is known from their name are used: OpenBLAS's ``64_`` suffix marks 64-bit
integers (numpy's wheels since 2.0: ``scipy_cblas_sgemm64_``), the plain
``scipy_cblas_sgemm`` of scipy-openblas32 takes 32-bit ones. Anywhere else
(numpy on Accelerate or MKL, a build without the symbols) ``available()`` is
False and callers keep numpy's matmul.
"""

from __future__ import annotations

import ctypes
import functools
import os
from typing import Any

import numpy as np

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112  # CBLAS_ORDER, CBLAS_TRANSPOSE

# (symbol stem, integer type): tried in this order, with "s"/"d" for the dtype
_ENTRY_POINTS = (("scipy_cblas_{}gemm64_", ctypes.c_int64), ("cblas_{}gemm64_", ctypes.c_int64),
                 ("scipy_cblas_{}gemm", ctypes.c_int32))


@functools.cache
def _numpy_openblas() -> ctypes.CDLL | None:
    import threadpoolctl

    numpy_dir = os.path.dirname(os.path.dirname(os.path.abspath(np.__file__)))
    for info in threadpoolctl.threadpool_info():
        path = info.get("filepath") or ""
        if info.get("internal_api") == "openblas" and os.path.basename(os.path.dirname(path)).startswith("numpy"):
            if os.path.dirname(os.path.dirname(path)) == numpy_dir:
                return ctypes.CDLL(path)
    return None


@functools.cache
def _gemm(dtype: np.dtype) -> Any:
    """The cblas gemm for float32 or float64, with its argument types set; None if absent."""
    letter = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}.get(np.dtype(dtype))
    library = _numpy_openblas()
    if letter is None or library is None:
        return None
    scalar = ctypes.c_float if letter == "s" else ctypes.c_double
    for stem, integer in _ENTRY_POINTS:
        function = getattr(library, stem.format(letter), None)
        if function is not None:
            pointer = ctypes.c_void_p
            function.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, integer, integer, integer, scalar,
                                 pointer, integer, pointer, integer, scalar, pointer, integer]
            function.restype = None
            return function
    return None


def available(dtype: np.dtype) -> bool:
    """gemm_into can run on arrays of ``dtype``."""
    return _gemm(dtype) is not None


def _rows(array: np.ndarray, name: str) -> int:
    """The leading dimension of a row-major 2-d view: its row step in elements."""
    item = array.itemsize
    if array.ndim != 2 or (array.shape[1] > 1 and array.strides[1] != item) or array.strides[0] % item:
        raise ValueError(f"gemm_into: {name} must be a 2-d view with unit steps along its rows, "
                         f"found shape {array.shape} and strides {array.strides}")
    rows, cols = array.shape
    lead = array.strides[0] // item if rows > 1 else cols
    if lead < max(cols, 1):
        raise ValueError(f"gemm_into: {name}'s rows overlap (row step {lead} < {cols} columns)")
    return lead


def gemm_into(a: np.ndarray, b: np.ndarray, c: np.ndarray, accumulate: bool, transpose_b: bool = False) -> None:
    """``c = a @ b``, or ``c += a @ b`` when ``accumulate``: a [M, K], b [K, N] (or b [N, K]
    multiplied as b.T when ``transpose_b``: a Linear's weight as it is kept), c [M, N],
    all of one dtype (float32 or float64), each a 2-d view with unit steps along its
    rows (any row step). c is written in place."""
    m, k = a.shape
    n, k_b = b.shape if transpose_b else b.shape[::-1]
    if k != k_b or c.shape != (m, n) or not (a.dtype == b.dtype == c.dtype):
        shown = f"{b.shape}.T" if transpose_b else f"{b.shape}"
        raise ValueError(f"gemm_into: shapes {a.shape} @ {shown} -> {c.shape}, dtypes "
                         f"{a.dtype}, {b.dtype}, {c.dtype}: expected [M, K] @ [K, N] -> [M, N] of one dtype")
    if not c.flags.writeable:
        raise ValueError("gemm_into: the result array is read-only")
    gemm = _gemm(c.dtype)
    if gemm is None:
        raise RuntimeError(f"gemm_into: no BLAS gemm for {c.dtype} in numpy's library (check available())")
    if m == 0 or n == 0:
        return
    if k == 0:  # an empty sum (BLAS wants a leading dimension of at least 1 here)
        if not accumulate:
            c[...] = 0
        return
    gemm(_ROW_MAJOR, _NO_TRANS, _TRANS if transpose_b else _NO_TRANS, m, n, k, 1.0, a.ctypes.data, _rows(a, "a"),
         b.ctypes.data, _rows(b, "b"), 1.0 if accumulate else 0.0, c.ctypes.data, _rows(c, "c"))
