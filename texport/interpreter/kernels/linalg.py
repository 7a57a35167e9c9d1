"""Kernels: matrix products, einsum, attention, distances, FFTs.

Products go through np.matmul (BLAS for float32/float64). numpy has no BLAS
path for float16 or bfloat16, so their operands are multiplied (and summed) in
float32 and rounded once at the end; torch's CPU kernels also accumulate them
in float.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from texport.dialects._lazy import LazyModule
from texport.dialects.dtypes import DType
from texport.dialects.shape_rules.linalg import fft_dims_and_sizes, irfft_last_size

from .. import blas, rng
from ..dtypes import cast, is_floating, is_reduced_float, to_numpy
from ..prepacked import transposed
from . import kernel
from .common import (
    add_into,
    check_arguments,
    dtype_constants,
    opmath,
    quiet,
    result_as,
    torch_result_dtype,
)
from .reductions import _vector_norm
from .views import diagonal_view

# caffe2::TypeMeta names, which torch prints in its dtype-mismatch messages.
_CPP_TYPE_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
    "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


# c10::ScalarType names (dot's message uses these).
_SCALAR_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int64": "Long", "int32": "Int",
    "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


def _same_dtype(a: np.ndarray, b: np.ndarray, names: str = "m1 and m2") -> None:
    if a.dtype != b.dtype:
        first, second = (_CPP_TYPE_NAMES.get(x.dtype.name, x.dtype.name) for x in (a, b))
        raise RuntimeError(f"expected {names} to have the same dtype, but got: {first} != {second}")


def _expect_ndim(x: np.ndarray, ndim: int, message: str) -> None:
    if x.ndim != ndim:
        raise RuntimeError(f"{message}, but got a {x.ndim}-D tensor")


# dtypes np.matmul hands to BLAS as they are: a product of two such operands of one
# dtype needs no opmath cast and no rounding back (the fast paths below)
_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _blas_pair(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype in _BLAS_FLOATS and b.dtype == a.dtype


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b (torch.matmul broadcasting) as a fresh array in the accumulation dtype."""
    a, b = opmath(a), opmath(b)
    if a.ndim > 2 and b.ndim == 2:
        # One GEMM over the folded batch instead of numpy's loop of one GEMM per matrix.
        folded = np.matmul(a.reshape(math.prod(a.shape[:-1]), a.shape[-1]), b)
        return folded.reshape(*a.shape[:-1], b.shape[-1])
    return np.asarray(np.matmul(a, b))


# ---------------------------------------------------------------------------- matrix products


def _check_mm(a: np.ndarray, b: np.ndarray) -> None:
    _expect_ndim(a, 2, "self must be a matrix")
    _expect_ndim(b, 2, "mat2 must be a matrix")
    _same_dtype(a, b)


def _check_bmm(a: np.ndarray, b: np.ndarray) -> None:
    _expect_ndim(a, 3, "batch1 must be a 3D tensor")
    _expect_ndim(b, 3, "batch2 must be a 3D tensor")
    _same_dtype(a, b, "batch1 and batch2")


def _check_mv(a: np.ndarray, b: np.ndarray) -> None:
    _expect_ndim(a, 2, "vector + matrix @ vector expected: mat must be a matrix")
    _expect_ndim(b, 1, "vector + matrix @ vector expected: vec must be a vector")
    _same_dtype(a, b, "mat and vec")


def _check_dot(a: np.ndarray, b: np.ndarray) -> None:
    _expect_ndim(a, 1, "1D tensors expected: self")
    _expect_ndim(b, 1, "1D tensors expected: tensor")
    if a.dtype != b.dtype:
        first, second = (_SCALAR_TYPE_NAMES.get(x.dtype.name, x.dtype.name) for x in (a, b))
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {first} and {second}"
        )


def _matmul_2d(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b of two BLAS-ready matrices, row-major. A few rows times a transposed weight
    (``x @ w.T``, ``b`` F-ordered) run as ``(w @ x.T).T``: numpy's OpenBLAS is ~1.5x
    slower on the first form for 3-16 rows (x (4, 128) @ w.T (128, 512): 27.5 vs 17.8 us,
    1 thread, in-process timeit), while from 32 rows on the better form depends on the
    shape. Each entry is the same dot product, summed by another BLAS kernel."""
    rows = a.shape[0]
    if 3 <= rows <= 16 and b.flags.f_contiguous and not b.flags.c_contiguous:
        if rows <= 12 and a.shape[1] <= 128:
            # with x.T copied row-major (a few hundred elements) the GEMM is its fastest
            # form again: (4, 128) @ w.T (128, 512) 18.4 -> 9.4 us, (8, 64) @ (64, 512)
            # 12.2 -> 9.5 us (1 thread, min of timeit; past 128 columns no steady gain)
            return np.ascontiguousarray(np.matmul(b.T, np.ascontiguousarray(a.T)).T)
        return np.ascontiguousarray(np.matmul(b.T, a.T).T)
    return np.matmul(a, b)


@kernel("mm")
def mm(self: np.ndarray, mat2: np.ndarray) -> np.ndarray:
    if self.ndim == 2 and mat2.ndim == 2 and _blas_pair(self, mat2):
        return _matmul_2d(self, mat2)
    _check_mm(self, mat2)
    return result_as(_product(self, mat2), self.dtype)


@kernel("bmm")
def bmm(self: np.ndarray, mat2: np.ndarray) -> np.ndarray:
    if self.ndim == 3 and mat2.ndim == 3 and _blas_pair(self, mat2):
        return np.matmul(self, mat2)
    _check_bmm(self, mat2)
    return result_as(_product(self, mat2), self.dtype)


@kernel("mv")
def mv(self: np.ndarray, vec: np.ndarray) -> np.ndarray:
    _check_mv(self, vec)
    return result_as(_product(self, vec), self.dtype)


@kernel("dot")
def dot(self: np.ndarray, tensor: np.ndarray) -> np.ndarray:
    _check_dot(self, tensor)
    return result_as(_product(self, tensor), self.dtype)


@kernel("outer")
def outer(self: np.ndarray, vec2: np.ndarray) -> np.ndarray:
    """self[:, None] * vec2: an elementwise product, so dtypes promote."""
    dtype = torch_result_dtype(self, vec2)
    return np.multiply.outer(self.astype(dtype, copy=False), vec2.astype(dtype, copy=False))


def _add_product(
    check: Callable[[np.ndarray, np.ndarray], None], name: str
) -> Callable[..., np.ndarray]:
    """addmm & co: beta * self + alpha * (a @ b). beta == 0 ignores self, so NaN/inf in
    self do not propagate, as in torch. The scalars are first converted to the
    dtype the product is computed in (torch's ``scalar.to<opmath_t>()``): an
    integer product truncates them, ``beta=0.5`` is 0."""

    def add_product(self: np.ndarray, a: np.ndarray, b: np.ndarray, beta: complex = 1,
                    alpha: complex = 1) -> np.ndarray:
        if beta == 1 and alpha == 1 and a.ndim == 2 and b.ndim == 2 and _blas_pair(a, b) and (
                self.dtype == a.dtype) and a.shape[1] == b.shape[0] and (
                self.shape == (a.shape[0], b.shape[1]) or self.shape == (b.shape[1],)):
            if self.ndim == 1 and _bias_goes_in_gemm(a.shape[0], b.shape[1]):
                fused = _bias_in_gemm(a, b, self)
                if fused is not None:
                    return fused
            product = _matmul_2d(a, b)  # addmm's usual case: self a bias row or the product's shape
            return add_into(product, self)
        check(a, b)
        _same_dtype(self, a, f"self and {name}")
        product = _product(a, b)  # fresh: scaled and summed in place
        alpha, beta = cast(alpha, product.dtype)[()], cast(beta, product.dtype)[()]
        if alpha != 1:
            product *= alpha
        if beta != 0:
            product += opmath(self) if beta == 1 else beta * opmath(self)
        return result_as(product, self.dtype)

    return add_product


addmm = kernel("addmm")(_add_product(_check_mm, "mat1"))
baddbmm = kernel("baddbmm")(_add_product(_check_bmm, "batch1"))
addmv = kernel("addmv")(_add_product(_check_mv, "mat"))


# ---------------------------------------------------------------------------- matmul, linear, einsum


@kernel("matmul")
def matmul(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    """torch.matmul: 1-D @ 1-D is dot; a 1-D operand gets a dim prepended (left) or appended
    (right) that is dropped again; batch dims broadcast. np.matmul has the same rules."""
    if self.ndim == 0 or other.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{self.ndim}D and {other.ndim}D")
    if self.ndim == 1 and other.ndim == 1:
        return dot(self, other)
    _same_dtype(self, other)
    if self.ndim >= 2 and other.ndim >= 2 and self.dtype in _BLAS_FLOATS:
        return _product(self, other)
    return result_as(_product(self, other), self.dtype)


# rows of x for which x @ wt (wt = w.T row-major) beats x @ w.T enough to keep wt: 1 thread,
# min of 7 interleaved timeit runs, K = N = 256: 8 rows 36.6 -> 9.9 us, 32 rows 61.4 -> 43.4,
# 128 rows 145 -> 127; 256 rows by (256, 1024) 1005 -> 953, 1024 rows none (1-2 rows: a GEMV)
_PACKED_ROWS = (3, 128)


# outputs of at least this many elements take the bias into the gemm (beta = 1) instead
# of adding it after: 2 threads, (256, 256) @ (256, 768).T 0.43 -> 0.38 ms; below it the
# ctypes call costs more than the add (200 rows by (64, 64): 18 -> 22 us)
_BIAS_IN_GEMM_SIZE = 1 << 15


def _bias_in_gemm(a: np.ndarray, b: np.ndarray, bias: np.ndarray) -> np.ndarray | None:
    """a @ b + bias (a [..., K], b [K, N] row- or column-major, bias [N]) as BLAS's addmm
    does it: the bias broadcast into the result, then the product added to it in the
    gemm (interpreter/blas.py), one pass over the result fewer than a product and an
    add. None where that gemm cannot run."""
    item = b.itemsize
    if not blas.available(a.dtype) or a.shape[-1] != b.shape[0] or b.ndim != 2:
        return None
    if b.strides[1] == item and b.strides[0] >= b.shape[1] * item:
        matrix, transpose = b, False
    elif b.strides[0] == item and b.strides[1] >= b.shape[0] * item:
        matrix, transpose = b.T, True  # a Linear's weight, as it is kept
    else:
        return None
    rows = a.reshape(-1, a.shape[-1])  # a view for contiguous rows, else a copy
    if rows.shape[1] > 1 and rows.strides[1] != item:
        rows = np.ascontiguousarray(rows)
    out = np.empty((rows.shape[0], b.shape[1]), a.dtype)
    out[...] = bias
    blas.gemm_into(rows, matrix, out, accumulate=True, transpose_b=transpose)
    return out.reshape(*a.shape[:-1], b.shape[1])


def _bias_goes_in_gemm(rows: int, columns: int) -> bool:
    return rows > _PACKED_ROWS[1] and rows * columns >= _BIAS_IN_GEMM_SIZE


@kernel("linear")
def linear(input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """input @ weight.T + bias; a 1-D weight (whose .T is itself) drops the out dim."""
    if weight.ndim == 2 and input.ndim >= 2 and _blas_pair(input, weight) and (
            bias is None or (bias.dtype == input.dtype and bias.shape == weight.shape[:1])):
        # the usual nn.Linear: no cast, bias added in place; by a row-major copy of weight.T
        # (interpreter/prepacked.py) for the row counts where that form wins
        rows = input.size // input.shape[-1] if input.shape[-1] else 0
        if bias is not None and _bias_goes_in_gemm(rows, weight.shape[0]):
            # the packed weight.T too: 2-7% off BLAS's own packing of a transposed B
            # (1 and 2 threads, 256 rows of GPT4's four linears)
            packed = transposed(weight) if weight.flags.c_contiguous else None
            fused = _bias_in_gemm(input, weight.T if packed is None else packed, bias)
            if fused is not None:
                return fused
        packed = transposed(weight) if _PACKED_ROWS[0] <= rows <= _PACKED_ROWS[1] and weight.flags.c_contiguous else None
        matrix = weight.T if packed is None else packed
        out = _matmul_2d(input, matrix) if input.ndim == 2 else _product(input, matrix)
        return out if bias is None else add_into(out, bias)
    _same_dtype(input, weight)
    out = _product(input, weight.T)
    if bias is not None:
        _same_dtype(input, bias, "self and bias")
        if np.broadcast_shapes(out.shape, bias.shape) == out.shape:
            out += opmath(bias)  # the usual [out] bias: no second output-sized array
        else:
            out = out + opmath(bias)
    return result_as(out, input.dtype)


_EINSUM_SMALL = 1024  # elements: 32x32 @ 32x32 in the C loop costs less than planning it


@functools.lru_cache(maxsize=512)
def _contraction_order(equation: str, shapes: tuple[tuple[int, ...], ...]) -> list[Any]:
    """numpy's greedy contraction order for these shapes, planned once: the planning is
    Python over every pair of operands, and its result depends on the shapes alone (a
    three-operand einsum of a corpus model: 0.85 ms planned, ~20 us once known)."""
    stand_ins = [np.broadcast_to(np.empty((), np.float32), shape) for shape in shapes]  # no data
    return np.einsum_path(equation, *stand_ins, optimize="greedy")[0]


@kernel("einsum")
def einsum(equation: str, tensors: Sequence[np.ndarray], path: list[int] | None = None) -> np.ndarray:
    """np.einsum with its own contraction order: `path` is only torch's order hint, and
    the order does not change the value beyond rounding."""
    for t in tensors[1:]:
        _same_dtype(tensors[0], t, "all einsum operands")
    operands = [opmath(t) for t in tensors]
    # optimize=True plans a BLAS contraction: ~100 us of Python, which pays only on large
    # operands; one or two small ones go straight to einsum's C loop (>= 3 keep the
    # planner: an unplanned order can loop over every index at once)
    small = len(operands) <= 2 and all(t.size <= _EINSUM_SMALL for t in operands)
    equation = equation.replace(" ", "")
    order = False if small else _contraction_order(equation, tuple(t.shape for t in operands))
    out = np.asarray(np.einsum(equation, *operands, optimize=order))
    if any(np.may_share_memory(out, t) for t in operands):
        out = out.copy()  # "ij->ji" is a numpy view; the op's result never aliases
    return result_as(out, tensors[0].dtype)


# ---------------------------------------------------------------------------- attention


# a bool mask's bias (0 where True, -inf where False) for float32/float64 scores, as
# read-only 0-d arrays: np.where takes them 2x faster than numpy scalars
_MASK_VALUES = {dtype: dtype_constants(dtype, 0, -np.inf) for dtype in _BLAS_FLOATS}


def _attention_bias(
    attn_mask: np.ndarray | None, is_causal: bool, length: int, source: int, dtype: np.dtype
) -> np.ndarray | None:
    """The additive bias: -inf where a bool mask is False / above the causal diagonal."""
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
        return _causal_bias(length, source, dtype)
    if attn_mask is None:
        return None
    if attn_mask.dtype == bool:
        keep, drop = _MASK_VALUES.get(dtype) or (dtype.type(0), dtype.type(-np.inf))
        return np.where(attn_mask, keep, drop)
    return attn_mask.astype(dtype, copy=False)


@functools.lru_cache(maxsize=64)
def _causal_bias(length: int, source: int, dtype: np.dtype) -> np.ndarray:
    """0 on and below the diagonal, -inf above: made once per size (read-only, only added)."""
    bias = np.where(np.tri(length, source, dtype=bool), dtype.type(0), dtype.type(-np.inf))
    bias.flags.writeable = False
    return bias


def _safe_softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last dim, computed in ``x`` (the kernel's own scores); a row that is
    all -inf gives 0s, not NaN (torch's _safe_softmax, which its math attention uses). ufunc
    reductions, not the ndarray methods' Python wrappers: attention in the corpus is tiny,
    so calls are its cost. Run quiet (inf - inf is NaN, as torch's, without a warning)."""
    bounds = _SOFTMAX_BOUNDS.get(x.dtype)
    if bounds is None or x.size == 0:
        return _safe_softmax_checked(x)
    lowest, one = bounds
    _exp_shifted(x, lowest)
    sums = np.add.reduce(x, axis=-1, keepdims=True)
    # a row's sum is at least its maximum's exp(0) = 1, or NaN; 0 only where the row was
    # all -inf (shifted by the lowest float: its exp 0s), and then 0s / 1 = 0s
    np.maximum(sums, one, out=sums)
    x /= sums
    return x


# float32/float64 scores: the lowest finite value and 1, read-only
_SOFTMAX_BOUNDS = {dtype: (np.finfo(dtype).min, *dtype_constants(dtype, 1)) for dtype in _BLAS_FLOATS}

# numpy reduces a short last dim one row at a time (~50 ns a row; np.maximum's reduction is
# 2x np.add's): from this many rows of up to this many, the rows' maxima come faster as an
# elementwise maximum down a transposed copy (measured, maxima, shift and exp: 64 rows of 8
# 7.3 -> 5.0 us, 136 of 17 9.2 -> 7.1, 4096 of 8 266 -> 57; but 64 of 48 7.1 -> 8.5)
_TRANSPOSED_ROWS = 32
_TRANSPOSED_COLUMNS = 32


def _exp_shifted(x: np.ndarray, lowest: np.floating) -> None:
    """x <- exp(x - the maximum of its row) in place for a non-empty x, the maximum raised
    to ``lowest`` (the maximum of a row that is all -inf: its exp are then 0s, not NaN)."""
    columns = x.shape[-1]
    rows = x.size // columns
    if rows < _TRANSPOSED_ROWS or columns > _TRANSPOSED_COLUMNS:
        top = np.maximum.reduce(x, axis=-1, keepdims=True, initial=lowest)
    else:  # the same values: the maximum does not round
        top = np.maximum.reduce(x.reshape(rows, columns).T.copy(), axis=0, initial=lowest)
        top = top.reshape(*x.shape[:-1], 1)
    np.subtract(x, top, out=x)
    np.exp(x, out=x)


def _safe_softmax_checked(x: np.ndarray) -> np.ndarray:
    """_safe_softmax of scores of another dtype, or empty: the all -inf rows found and
    zeroed after the fact."""
    if x.shape[-1] == 0:
        return x.copy()
    top = np.maximum.reduce(x, axis=-1, keepdims=True)
    masked = np.equal(top, -np.inf)
    any_masked = np.logical_or.reduce(masked, axis=None)
    if any_masked:
        top[masked] = 0
    e = np.subtract(x, top, dtype=x.dtype)
    np.exp(e, out=e)
    e /= np.add.reduce(e, axis=-1, keepdims=True)
    if any_masked:
        np.copyto(e, 0, where=masked)
    return e


def _dropout(x: np.ndarray, p: float) -> np.ndarray:
    """Zero each element with probability p and scale the kept ones by 1 / (1 - p)."""
    if p >= 1:
        return np.zeros_like(x)
    keep = rng.generator().random(x.shape, dtype=np.float32) >= p
    return x * keep * x.dtype.type(1 / (1 - p))


@kernel("scaled_dot_product_attention")
@quiet  # inf and NaN scores give NaN, as torch's, without numpy's warnings
def scaled_dot_product_attention(
    query: np.ndarray, key: np.ndarray, value: np.ndarray, attn_mask: np.ndarray | None = None,
    dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
    enable_gqa: bool = False,
) -> np.ndarray:
    """softmax(q k^T * scale + bias) v, torch's math backend (half computed in float32)."""
    q, k, v = opmath(query), opmath(key), opmath(value)
    groups = _query_groups(q, k, v) if enable_gqa else 0
    if groups:
        # the queries as [..., kv heads, groups, L, E] against keys and values as
        # [..., kv heads, 1, S, E]: each product the one of the repeated heads, no copies
        q, k, v = _split_heads(q, groups), k[..., None, :, :], v[..., None, :, :]
    elif enable_gqa:  # grouped-query: each key/value head serves query.size(-3) / its heads
        k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = np.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    embed = q.shape[-1]
    factor = scale if scale is not None else (1 / math.sqrt(embed) if embed else math.inf)
    scores = np.matmul(q, k.swapaxes(-1, -2))
    if groups:
        scores = _merge_heads(scores)
    scores *= q.dtype.type(factor)
    bias = _attention_bias(attn_mask, is_causal, q.shape[-2], k.shape[-2], scores.dtype)
    if bias is not None:
        if bias.shape == scores.shape[scores.ndim - bias.ndim:] or (
                np.broadcast_shapes(scores.shape, bias.shape) == scores.shape):
            scores += bias  # scores is this kernel's own buffer
        else:
            scores = scores + bias
    weights = _safe_softmax(scores)
    if dropout_p > 0:
        weights = _dropout(weights, dropout_p)
    if groups:
        weights = _split_heads(weights, groups)
    order = _query_order(query, key, value, dropout_p, enable_gqa) if weights.shape[:-2] == q.shape[:-2] else None
    if order is not None:
        return _product_in_order(weights, v, order)
    out = np.matmul(weights, v)
    if groups:
        out = _merge_heads(out)
    return out if type(out) is np.ndarray and out.dtype == query.dtype else result_as(out, query.dtype)


def _query_order(query: np.ndarray, key: np.ndarray, value: np.ndarray, dropout_p: float,
                 enable_gqa: bool) -> tuple[int, int, int] | None:
    """The query's dims B, H, L from the slowest in memory, when torch lays the result out
    as the query (its CPU flash attention writes into empty_like(query): the stride rule's
    _flash_on_cpu), the query is not row-major (whose order the product has anyway) and is
    float32/float64 with the embedding its fastest dim and B, H, L of more than one and
    strides that order them (heads split off a projection, most attention: [B, L, H, E]
    or [L, B, H, E]). The kernel then writes its result in that order, where the layout
    step would copy it; else None."""
    if query.ndim != 4 or query.flags.c_contiguous or dropout_p > 0:
        return None
    strides = query.strides
    order = tuple(sorted(range(3), key=lambda d: -strides[d]))
    dtype, (batch, heads, length, embed) = query.dtype, query.shape
    if (not strides[order[0]] > strides[order[1]] > strides[order[2]] > strides[3] == dtype.itemsize
            or dtype not in _BLAS_FLOATS or batch < 2 or heads < 2 or length < 2):
        return None
    for t in (key, value):
        if (t.ndim != 4 or t.dtype != dtype or t.shape[0] != batch or t.shape[3] != embed or t.shape[2] == 0
                or t.strides[3] != dtype.itemsize):
            return None
    kv_heads = key.shape[1]
    if value.shape[1] != kv_heads or not (kv_heads == heads or (enable_gqa and kv_heads > 0 and heads % kv_heads == 0)):
        return None
    return order


def _product_in_order(weights: np.ndarray, v: np.ndarray, order: tuple[int, int, int]) -> np.ndarray:
    """weights @ v ([B, H, L, Ev], or [B, H / G, G, L, Ev] of grouped heads) written by BLAS
    straight into a buffer with B, H, L in ``order`` in memory (the same products), as its
    [B, H, L, Ev] view."""
    batch, *heads, rows, _ = weights.shape
    columns = v.shape[-1]
    dims = (batch, math.prod(heads), rows)
    out = np.empty((*(dims[d] for d in order), columns), weights.dtype)
    if len(heads) == 1:
        target = out.transpose(*_inverse(order), 3)
    else:  # H split in place into its [H / G, G]
        at = order.index(1)
        split = out.reshape(*out.shape[:at], *heads, *out.shape[at + 1:])
        target = split.transpose(*_grouped_axes(order), 4)
    np.matmul(weights, v, out=target)
    return out.transpose(*_inverse(order), 3)


@functools.lru_cache(maxsize=8)
def _inverse(order: tuple[int, ...]) -> tuple[int, ...]:
    """Where each dim sits in ``order``."""
    return tuple(order.index(d) for d in range(len(order)))


@functools.lru_cache(maxsize=8)
def _grouped_axes(order: tuple[int, int, int]) -> tuple[int, ...]:
    """The axes B, H / G, G, L of a buffer laid out as ``order`` (B, H, L) with H split in two."""
    position, where = 0, {}
    for d in order:
        where[d] = (position, position + 1) if d == 1 else (position,)
        position += len(where[d])
    return (*where[0], *where[1], *where[2])


def _split_heads(x: np.ndarray, groups: int) -> np.ndarray:
    """[..., H, L, E] as [..., H / groups, groups, L, E] (a view when x is row-major)."""
    *batch, heads, rows, columns = x.shape
    return x.reshape(*batch, heads // groups, groups, rows, columns)


def _merge_heads(x: np.ndarray) -> np.ndarray:
    """_split_heads undone."""
    *batch, kv_heads, groups, rows, columns = x.shape
    return x.reshape(*batch, kv_heads * groups, rows, columns)


def _query_groups(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> int:
    """Query heads a key/value head serves in grouped-query attention, when more than one
    and they divide evenly (the value heads the key heads), none of q, k, v empty and no
    dim of the result of size 1 (whose stride numpy's products give by their operands'
    layout: the repeated heads' layout is the one kept); else 0."""
    if q.ndim < 3 or k.ndim < 3 or v.ndim < 3 or not (q.size and k.size and v.size):
        return 0
    if 1 in q.shape[:-1] or v.shape[-1] == 1:
        return 0
    heads, kv_heads = q.shape[-3], k.shape[-3]
    if kv_heads == 0 or heads == kv_heads or heads % kv_heads or v.shape[-3] != kv_heads:
        return 0
    return heads // kv_heads


# ---------------------------------------------------------------------------- distances

# Elements of one broadcast difference block in the direct distance kernels.
_BLOCK = 1 << 22


def _pnorm(d: np.ndarray, p: float, axis: int = -1) -> np.ndarray:
    """The p-norm over `axis` as torch.norm: p=0 counts non-zeros, +-inf max / min |d|."""
    if p == 0:
        return np.count_nonzero(d, axis=axis).astype(d.dtype)
    z = np.abs(d)
    if p == 1:
        return z.sum(axis=axis)
    if p == 2:
        return np.sqrt((z * z).sum(axis=axis))
    if p == math.inf:
        return z.max(axis=axis, initial=0)
    if p == -math.inf:
        return z.min(axis=axis, initial=math.inf)
    return (z**p).sum(axis=axis) ** (1 / p)


def _direct_cdist(a: np.ndarray, b: np.ndarray, p: float) -> np.ndarray:
    """||a_i - b_j||_p by broadcasting, in blocks of rows of a to bound the memory."""
    batch = math.prod(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    rows = max(1, _BLOCK // max(1, batch * b.shape[-2] * b.shape[-1]))
    blocks = [
        _pnorm(a[..., i:i + rows, None, :] - b[..., None, :, :], p)
        for i in range(0, max(a.shape[-2], 1), rows)
    ]
    return np.concatenate(blocks, axis=-2) if len(blocks) > 1 else blocks[0]


def _euclidean_cdist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's _euclidean_dist: sqrt(|a|^2 - 2 a.b + |b|^2), one GEMM. Cancellation can
    make the square slightly negative: it is clamped at 0 before the sqrt."""
    square = _product(a, np.swapaxes(b, -1, -2))
    square *= -2
    square += (a * a).sum(axis=-1)[..., :, None]
    square += (b * b).sum(axis=-1)[..., None, :]
    np.maximum(square, 0, out=square)
    return np.sqrt(square, out=square)


@kernel("cdist", "_cdist_forward")
def cdist(x1: np.ndarray, x2: np.ndarray, p: float = 2.0, compute_mode: int | None = None) -> np.ndarray:
    """torch's choice: p=2 uses the GEMM formula when compute_mode is 1
    (use_mm_for_euclid_dist), or None/0 and either side has more than 25 rows; otherwise
    the exact direct differences (so cdist(x, x) has an exact-zero diagonal)."""
    a, b = opmath(x1), opmath(x2)
    mode = compute_mode or 0
    big = a.shape[-2] > 25 or b.shape[-2] > 25
    if p == 2 and (mode == 1 or (mode == 0 and big)):
        return result_as(_euclidean_cdist(a, b), x1.dtype)
    return result_as(_direct_cdist(a, b, p), x1.dtype)


@kernel("_pdist_forward", "pdist")
def _pdist_forward(self: np.ndarray, p: float = 2.0) -> np.ndarray:
    """Distances of row pairs i < j, in torch's order (0,1), (0,2), ..., (1,2), ..."""
    x = opmath(self)
    first, second = np.triu_indices(x.shape[0], k=1)
    step = max(1, _BLOCK // max(1, x.shape[1]))
    out = np.empty(first.size, dtype=x.dtype)
    for start in range(0, first.size, step):
        pairs = slice(start, start + step)
        out[pairs] = _pnorm(x[first[pairs]] - x[second[pairs]], p)
    return result_as(out, self.dtype)


@kernel("_trilinear")
def _trilinear(i1: np.ndarray, i2: np.ndarray, i3: np.ndarray, expand1: Sequence[int], expand2: Sequence[int],
               expand3: Sequence[int], sumdim: Sequence[int], unroll_dim: int = 1) -> np.ndarray:
    """sum over sumdim of the three inputs, each unsqueezed at its expand dims,
    as one einsum: an input's letters are the dims it was not expanded at
    (size-1 dims broadcast first, which einsum does not)."""
    inputs = ((i1, expand1), (i2, expand2), (i3, expand3))
    rank = i1.ndim + len(expand1)
    full = np.broadcast_shapes(*(np.expand_dims(x, sorted(e)).shape for x, e in inputs))
    letters = "abcdefghijklmnopqrstuvwxyz"[:rank]
    operands, terms = [], []
    for x, expand in inputs:
        kept = [d for d in range(rank) if d not in set(expand)]
        operands.append(np.broadcast_to(opmath(x), [full[d] for d in kept]))
        terms.append("".join(letters[d] for d in kept))
    summed = {d % rank for d in sumdim}
    out = "".join(letters[d] for d in range(rank) if d not in summed)
    if is_reduced_float(i1.dtype):  # torch contracts i1 with i2 first, rounding that to float16
        first = "".join(sorted(set(terms[0] + terms[1]) - {letters[d] for d in summed & {e % rank for e in expand3}}))
        pair = result_as(np.einsum(f"{terms[0]},{terms[1]}->{first}", *operands[:2], optimize=True), i1.dtype)
        operands, terms = [opmath(pair), operands[2]], [first, terms[2]]
    result = np.einsum(f"{','.join(terms)}->{out}", *operands, optimize=True)
    return result_as(np.asarray(result), i1.dtype)


@kernel("bilinear")
def bilinear(input1: np.ndarray, input2: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] (+ b[o])."""
    out = np.einsum("...i,oij,...j->...o", opmath(input1), opmath(weight), opmath(input2), optimize=True)
    if bias is not None:
        out = out + opmath(bias)
    return result_as(np.asarray(out), input1.dtype)


@kernel("cosine_similarity")
def cosine_similarity(x1: np.ndarray, x2: np.ndarray, dim: int = 1, eps: float = 1e-08) -> np.ndarray:
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) over dim: torch normalises each
    side first, which keeps the result within [-1, 1]."""
    dtype = torch_result_dtype(x1, x2)
    if not is_floating(dtype):
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{dtype.name}")
    a, b = np.broadcast_arrays(opmath(x1.astype(dtype, copy=False)), opmath(x2.astype(dtype, copy=False)))
    norm_a = np.maximum(np.sqrt((a * a).sum(axis=dim, keepdims=True)), eps)
    norm_b = np.maximum(np.sqrt((b * b).sum(axis=dim, keepdims=True)), eps)
    return result_as(((a / norm_a) * (b / norm_b)).sum(axis=dim), dtype)


@kernel("pairwise_distance")
def pairwise_distance(x1: np.ndarray, x2: np.ndarray, p: float = 2.0, eps: float = 1e-06,
                      keepdim: bool = False) -> np.ndarray:
    """torch.norm(x1 - x2 + eps, p, dim=-1, keepdim): integer inputs become float32 at + eps."""
    dtype = torch_result_dtype(x1, x2, eps)
    diff = opmath(np.subtract(x1, x2).astype(dtype, copy=False)) + eps
    if diff.ndim == 0:  # norm over the one "dim" of a 0-d tensor is |x|, still 0-d
        return result_as(_pnorm(diff.reshape(1), p), dtype)
    norm = _pnorm(diff, p)
    return result_as(np.expand_dims(norm, -1) if keepdim else norm, dtype)


# ---------------------------------------------------------------------------- FFT

# torch's fft_norm_mode (0 none, 1 by 1/sqrt(n), 2 by 1/n) as numpy's norm names: for a
# forward transform "backward" applies no scale, for an inverse one "forward" applies none.
_FORWARD_NORM = {0: "backward", 1: "ortho", 2: "forward"}
_INVERSE_NORM = {0: "forward", 1: "ortho", 2: "backward"}
_TO_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_TO_REAL = {c: r for r, c in _TO_COMPLEX.items()}


@kernel("_fft_r2c")
def _fft_r2c(self: np.ndarray, dim: Sequence[int], normalization: int, onesided: bool) -> np.ndarray:
    """Real -> complex FFT over `dim`; one-sided keeps n // 2 + 1 bins of the last dim."""
    transform = np.fft.rfftn if onesided else np.fft.fftn
    out = transform(self, axes=list(dim), norm=_FORWARD_NORM[normalization])
    return result_as(out, _TO_COMPLEX[self.dtype])


@kernel("_fft_c2r")
def _fft_c2r(self: np.ndarray, dim: Sequence[int], normalization: int, last_dim_size: int) -> np.ndarray:
    """Inverse of a one-sided FFT: the last dim of `dim` grows to last_dim_size."""
    sizes = [self.shape[d] for d in dim[:-1]] + [last_dim_size]
    out = np.fft.irfftn(self, s=sizes, axes=list(dim), norm=_INVERSE_NORM[normalization])
    return result_as(out, _TO_REAL[self.dtype])


def _group_of(positions: int, offs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each position's group (the first offset past it) and whether it lies before the last offset."""
    group = np.searchsorted(offs.astype(np.int64), np.arange(positions), side="right")
    inside = group < len(offs)
    return np.minimum(group, len(offs) - 1), inside


@kernel("_grouped_mm")
def _grouped_mm(self: np.ndarray, mat2: np.ndarray, offs: np.ndarray | None = None, bias: np.ndarray | None = None,
                out_dtype: object = None) -> np.ndarray:
    """One matmul per group, in float32 and rounded once: 3d x 3d is a batched matmul; with
    offs (the groups' ends) a 2d operand's rows (2d x 3d), columns (3d x 2d) or contraction
    (2d x 2d) are split into groups. Positions past the last offset are 0 (torch leaves them
    unwritten)."""
    check_arguments("_grouped_mm", self, mat2, offs, bias, out_dtype)
    a, b = opmath(self), opmath(mat2)
    if offs is None:
        out = a @ b
    elif a.ndim == 2 and b.ndim == 3:
        group, inside = _group_of(a.shape[0], offs)
        out = np.einsum("mk,mkn->mn", a, b[group]) * inside[:, None]
    elif a.ndim == 3 and b.ndim == 2:
        group, inside = _group_of(b.shape[1], offs)
        out = np.einsum("nmk,kn->mn", a[group], b) * inside[None, :]
    else:
        group, inside = _group_of(a.shape[1], offs)
        member = (group[None, :] == np.arange(len(offs))[:, None]) & inside[None, :]
        out = np.einsum("mk,gk,kn->gmn", a, member.astype(a.dtype), b)
    return result_as(out, self.dtype)


@kernel("_fft_c2c")
def _fft_c2c(self: np.ndarray, dim: Sequence[int], normalization: int, forward: bool) -> np.ndarray:
    if forward:
        return result_as(np.fft.fftn(self, axes=list(dim), norm=_FORWARD_NORM[normalization]), self.dtype)
    return result_as(np.fft.ifftn(self, axes=list(dim), norm=_INVERSE_NORM[normalization]), self.dtype)


@kernel("fft_fftfreq")
def fft_fftfreq(n: int, d: float = 1.0, dtype: DType | None = None, layout: object = None,
                device: object = None, pin_memory: bool | None = None) -> np.ndarray:
    return result_as(np.fft.fftfreq(n, d), to_numpy(dtype or DType.float32))


@kernel("fft_rfftfreq")
def fft_rfftfreq(n: int, d: float = 1.0, dtype: DType | None = None, layout: object = None,
                 device: object = None, pin_memory: bool | None = None) -> np.ndarray:
    return result_as(np.fft.rfftfreq(n, d), to_numpy(dtype or DType.float32))


def _check_norm(norm: str | None) -> None:
    if norm not in (None, "forward", "backward", "ortho"):
        raise RuntimeError(f"Invalid normalization mode: {norm}")


def _fft_input(x: np.ndarray, complex_input: bool) -> np.ndarray:
    """torch's promote_type_fft: integers compute in float32; a c2r transform takes
    a real input in its complex dtype."""
    if x.dtype.kind == "c":
        return x
    real = x if x.dtype.kind == "f" else x.astype(np.float32)
    return real.astype(_TO_COMPLEX[real.dtype]) if complex_input else real


def _fft_result(value: np.ndarray, x: np.ndarray, real_result: bool) -> np.ndarray:
    dtype = _TO_REAL.get(x.dtype, x.dtype) if real_result else _TO_COMPLEX.get(x.dtype, x.dtype)
    return result_as(value, dtype)


def _one_dim(transform: Callable[..., np.ndarray], real_result: bool) -> Callable[..., np.ndarray]:
    """A 1-d transform of torch.fft: numpy's takes the same n, axis and norm names."""
    def fft(self: np.ndarray, n: int | None = None, dim: int = -1, norm: str | None = None) -> np.ndarray:
        _check_norm(norm)
        x = _fft_input(self, complex_input=real_result)
        return _fft_result(transform(x, n, dim, norm), x, real_result)

    return fft


kernel("fft_fft")(_one_dim(np.fft.fft, False))
kernel("fft_ifft")(_one_dim(np.fft.ifft, False))
kernel("fft_rfft")(_one_dim(np.fft.rfft, False))
kernel("fft_ihfft")(_one_dim(np.fft.ihfft, False))
kernel("fft_irfft")(_one_dim(np.fft.irfft, True))
kernel("fft_hfft")(_one_dim(np.fft.hfft, True))


def _n_dim(transform: Callable[..., np.ndarray], real_result: bool) -> Callable[..., np.ndarray]:
    """An n-d transform of torch.fft over torch's canonical dims and sizes (a c2r
    transform's last size: irfft_last_size)."""
    def fft(self: np.ndarray, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
            norm: str | None = None) -> np.ndarray:
        _check_norm(norm)
        x = _fft_input(self, complex_input=real_result)
        dims, sizes = fft_dims_and_sizes(x.shape, s, dim)
        if real_result:
            sizes[-1] = irfft_last_size(x.shape, s, dims, sizes)
        return _fft_result(transform(x, sizes, dims, norm), x, real_result)

    return fft


kernel("fft_fftn", "fft_fft2")(_n_dim(np.fft.fftn, False))
kernel("fft_ifftn", "fft_ifft2")(_n_dim(np.fft.ifftn, False))
kernel("fft_rfftn", "fft_rfft2")(_n_dim(np.fft.rfftn, False))
kernel("fft_irfftn", "fft_irfft2")(_n_dim(np.fft.irfftn, True))


def _shift(inverse: bool) -> Callable[..., np.ndarray]:
    def shift(self: np.ndarray, dim: Sequence[int] | None = None) -> np.ndarray:
        axes = list(range(self.ndim)) if dim is None else list(dim)
        return np.fft.ifftshift(self, axes) if inverse else np.fft.fftshift(self, axes)

    return shift


kernel("fft_fftshift")(_shift(False))
kernel("fft_ifftshift")(_shift(True))


# ---------------------------------------------------------------------------- complex numbers


@kernel("resolve_conj")
def resolve_conj(self: np.ndarray) -> np.ndarray:
    """Only recorded for a conjugate, which texport has computed already."""
    return self.view()


@kernel("_conj")
def _conj(self: np.ndarray) -> np.ndarray:
    """torch's conjugate is a lazy view; texport computes it (a real tensor is its own)."""
    return np.conj(self) if self.dtype.kind == "c" else self.view()


@kernel("_conj_physical", "conj_physical")
def _conj_physical(self: np.ndarray) -> np.ndarray:
    return np.conj(self) if self.dtype.kind == "c" else self.copy()


@kernel("view_as_real")
def view_as_real(self: np.ndarray) -> np.ndarray:
    """The real parts with the imaginary ones beside them: a view of the same memory."""
    if self.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    half = self.itemsize // 2
    return np.lib.stride_tricks.as_strided(self.real, (*self.shape, 2), (*self.strides, half))


@kernel("view_as_complex")
def view_as_complex(self: np.ndarray) -> np.ndarray:
    if self.ndim == 0 or self.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if self.strides[-1] != self.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    return self.view(_TO_COMPLEX[self.dtype])[..., 0]


@kernel("real")
def real(self: np.ndarray) -> np.ndarray:
    return self.real if self.dtype.kind == "c" else self.view()


@kernel("imag")
def imag(self: np.ndarray) -> np.ndarray:
    if self.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return self.imag


def _from_parts(real: np.ndarray, imag: np.ndarray) -> np.ndarray:
    real, imag = np.broadcast_arrays(real, imag)
    out = np.empty(real.shape, _TO_COMPLEX[real.dtype])
    out.real, out.imag = real, imag
    return out


@kernel("complex")
def complex_(real: np.ndarray, imag: np.ndarray) -> np.ndarray:
    return _from_parts(real, imag)


@kernel("polar")
def polar(abs: np.ndarray, angle: np.ndarray) -> np.ndarray:  # noqa: A002 - torch's names
    return _from_parts(abs * np.cos(angle), abs * np.sin(angle))


@kernel("angle")
def angle(self: np.ndarray) -> np.ndarray:
    """A complex number's argument; a real one's is pi below zero, else 0 (NaN stays NaN)."""
    if self.dtype.kind == "c":
        return np.angle(self)
    x = self if self.dtype.kind == "f" else self.astype(np.float32)
    return np.where(np.isnan(x), x, np.where(x < 0, np.pi, 0.0).astype(x.dtype))


# ---------------------------------------------------------------------------- torch.linalg
# numpy.linalg's routines are LAPACK's, vectorised over the batch dims; they keep
# float32 in float32, as torch's results are.


def _lu(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Partial-pivoting LU of a batch of square matrices by LAPACK's getrf, as torch's:
    L's unit diagonal left out, and 1-based pivots (row k swapped with pivots[k])."""
    lu, pivots, _ = _each_matrix(_getrf, a)
    return lu, pivots


def _info(batch: tuple[int, ...]) -> np.ndarray:
    return np.zeros(batch, np.int32)


def _empty(dtype: np.dtype) -> np.ndarray:
    return np.zeros((0,), dtype)


def _square(A: np.ndarray, what: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{what}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{what}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


# LAPACK's failures as torch words them
_FAILURES = {
    "linalg.inv": "The diagonal element {k} is zero, the inversion could not be completed because the input "
                  "matrix is singular.",
    "linalg.solve": "The solver failed because the input matrix is singular.",
    "linalg.cholesky": "The factorization could not be completed because the input is not positive-definite "
                       "(the leading minor of order {k} is not positive-definite).",
}


def _lapack(what: str, fn: Callable[..., object], A: np.ndarray, *args: object) -> object:
    _square(A, what)
    try:
        return fn(A, *args)
    except np.linalg.LinAlgError:
        raise RuntimeError(f"{what}: " + _FAILURES[what].format(k=_first_failure(A, what))) from None


def _first_failure(A: np.ndarray, what: str) -> int:
    """The 1-based order of the first zero pivot (LU) or non-positive leading minor
    (Cholesky) in the first matrix that fails."""
    n = A.shape[-1]
    if what == "linalg.cholesky":
        minors = [np.linalg.det(A[..., :k, :k]) for k in range(1, n + 1)]
        return next((k + 1 for k, d in enumerate(minors) if np.any(d <= 0)), n)
    _, lu, _ = _linalg_det(A)
    zero = np.diagonal(lu, axis1=-2, axis2=-1).reshape(-1, n) == 0
    return int(np.argmax(zero.any(axis=0))) + 1


def _det_lu(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    """The LU torch's det and slogdet return: of a real row-major A's transpose (same
    determinant; LAPACK reads it column-major without a copy), else of A."""
    return _lu(np.swapaxes(A, -1, -2) if A.dtype.kind != "c" and A.flags.c_contiguous else A)


@kernel("_linalg_det")
def _linalg_det(A: np.ndarray) -> tuple[np.ndarray, ...]:
    _square(A, "linalg.det")
    lu, pivots = _det_lu(A)
    return result_as(np.linalg.det(A), A.dtype), lu, pivots


@kernel("linalg_det", "det")
def linalg_det(A: np.ndarray) -> np.ndarray:
    _square(A, "linalg.det")
    return result_as(np.linalg.det(A), A.dtype)


@kernel("_linalg_slogdet")
def _linalg_slogdet(A: np.ndarray) -> tuple[np.ndarray, ...]:
    _square(A, "linalg.slogdet")
    sign, logabsdet = np.linalg.slogdet(A)
    lu, pivots = _det_lu(A)
    return result_as(sign, A.dtype), result_as(logabsdet, np.abs(A[..., :0, :0]).dtype), lu, pivots


@kernel("linalg_slogdet")
def linalg_slogdet(A: np.ndarray) -> tuple[np.ndarray, ...]:
    return _linalg_slogdet(A)[:2]


@kernel("_linalg_eigh")
def _linalg_eigh(A: np.ndarray, UPLO: str = "L", compute_v: bool = True) -> tuple[np.ndarray, ...]:  # noqa: N803
    _square(A, "linalg.eigh")
    if not compute_v:
        return np.linalg.eigvalsh(A, UPLO), _empty(A.dtype)
    values, vectors = np.linalg.eigh(A, UPLO)
    return values, vectors


@kernel("linalg_eigh")
def linalg_eigh(self: np.ndarray, UPLO: str = "L") -> tuple[np.ndarray, ...]:  # noqa: N803
    return _linalg_eigh(self, UPLO)


@kernel("linalg_eigvalsh")
def linalg_eigvalsh(self: np.ndarray, UPLO: str = "L") -> np.ndarray:  # noqa: N803
    return np.linalg.eigvalsh(self, UPLO)


@kernel("_linalg_svd")
def _linalg_svd(A: np.ndarray, full_matrices: bool = False, compute_uv: bool = True,
                driver: str | None = None) -> tuple[np.ndarray, ...]:
    if not compute_uv:
        return _empty(A.dtype), np.linalg.svd(A, compute_uv=False), _empty(A.dtype)
    u, s, vh = np.linalg.svd(A, full_matrices=full_matrices)
    return u, s, vh


@kernel("linalg_svd")
def linalg_svd(A: np.ndarray, full_matrices: bool = True, driver: str | None = None) -> tuple[np.ndarray, ...]:
    return _linalg_svd(A, full_matrices)


@kernel("linalg_svdvals")
def linalg_svdvals(A: np.ndarray, driver: str | None = None) -> np.ndarray:
    return np.linalg.svd(A, compute_uv=False)


def _is_vector_rhs(A: np.ndarray, B: np.ndarray) -> bool:
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


@kernel("_linalg_solve_ex")
def _linalg_solve_ex(A: np.ndarray, B: np.ndarray, left: bool = True,
                     check_errors: bool = False) -> tuple[np.ndarray, ...]:
    """AX = B (left) or XA = B, B one vector or a batch of them too."""
    vector = _is_vector_rhs(A, B)
    rhs = B[..., None] if vector else B
    batch = np.broadcast_shapes(A.shape[:-2], rhs.shape[:-2])
    A = np.broadcast_to(A, (*batch, *A.shape[-2:]))
    rhs = np.broadcast_to(rhs, (*batch, *rhs.shape[-2:]))
    if left:
        x = _lapack("linalg.solve", np.linalg.solve, A, rhs)
    else:
        x = np.swapaxes(_lapack("linalg.solve", np.linalg.solve, np.swapaxes(A, -1, -2),
                                np.swapaxes(rhs, -1, -2)), -1, -2)
    lu, pivots = _lu(A)
    return result_as(x[..., 0] if vector else x, A.dtype), lu, pivots, _info(batch)


@kernel("linalg_solve_ex")
def linalg_solve_ex(A: np.ndarray, B: np.ndarray, left: bool = True,
                    check_errors: bool = False) -> tuple[np.ndarray, np.ndarray]:
    result, _, _, info = _linalg_solve_ex(A, B, left, check_errors)
    return result, info


@kernel("linalg_solve")
def linalg_solve(A: np.ndarray, B: np.ndarray, left: bool = True) -> np.ndarray:
    return _linalg_solve_ex(A, B, left)[0]


@kernel("linalg_inv_ex")
def linalg_inv_ex(A: np.ndarray, check_errors: bool = False) -> tuple[np.ndarray, np.ndarray]:
    return result_as(_lapack("linalg.inv", np.linalg.inv, A), A.dtype), _info(A.shape[:-2])


@kernel("linalg_inv", "inverse")
def linalg_inv(A: np.ndarray) -> np.ndarray:
    return linalg_inv_ex(A)[0]


@kernel("linalg_cholesky_ex")
def linalg_cholesky_ex(self: np.ndarray, upper: bool = False,
                       check_errors: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The factor from the lower triangle (torch's and numpy's default); upper: its
    conjugate transpose."""
    lower = _lapack("linalg.cholesky", np.linalg.cholesky, self)
    factor = np.conj(np.swapaxes(lower, -1, -2)) if upper else lower
    return result_as(factor, self.dtype), _info(self.shape[:-2])


@kernel("linalg_cholesky")
def linalg_cholesky(self: np.ndarray, upper: bool = False) -> np.ndarray:
    return linalg_cholesky_ex(self, upper)[0]


@kernel("linalg_qr")
def linalg_qr(A: np.ndarray, mode: str = "reduced") -> tuple[np.ndarray, np.ndarray]:
    if mode == "r":
        return _empty(A.dtype), np.linalg.qr(A, mode="r")
    q, r = np.linalg.qr(A, mode=mode)
    return q, r


def _pinv(a: np.ndarray, atol: np.ndarray | float | None, rtol: np.ndarray | float | None,
          hermitian: bool) -> np.ndarray:
    """Singular values at most max(atol, rtol * the largest) count as zero; no tolerance
    given: rtol = eps * max(m, n), and a positive atol alone means rtol = 0 (torch's rule)."""
    real = np.abs(a[..., :0, :0]).dtype
    if rtol is None:
        positive_atol = atol is not None and np.any(np.asarray(atol) > 0)
        rtol = 0.0 if positive_atol else np.finfo(real).eps * max(a.shape[-2:])
    atol = 0.0 if atol is None else atol
    if hermitian:
        values, vectors = np.linalg.eigh(a)
        size = np.abs(values)
        cutoff = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * size.max(-1, keepdims=True))
        inverse = np.where(size > cutoff, 1 / np.where(values == 0, 1, values), 0)
        return result_as((vectors * inverse[..., None, :]) @ np.conj(np.swapaxes(vectors, -1, -2)), a.dtype)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    cutoff = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * s.max(-1, keepdims=True, initial=0))
    inverse = np.where(s > cutoff, 1 / np.where(s == 0, 1, s), 0)
    return result_as(np.conj(np.swapaxes(vh, -1, -2)) * inverse[..., None, :] @ np.conj(np.swapaxes(u, -1, -2)),
                     a.dtype)


@kernel("linalg_pinv.atol_rtol_tensor")
def linalg_pinv(self: np.ndarray, atol: np.ndarray | None = None, rtol: np.ndarray | None = None,
                hermitian: bool = False) -> np.ndarray:
    return _pinv(self, atol, rtol, hermitian)


@kernel("pinverse")
def pinverse(self: np.ndarray, rcond: float = 1e-15) -> np.ndarray:
    return _pinv(self, 0.0, rcond, False)


@kernel("addbmm")
def addbmm(self: np.ndarray, batch1: np.ndarray, batch2: np.ndarray, beta: float = 1,
           alpha: float = 1) -> np.ndarray:
    """beta * self + alpha * the sum of the batch's products (self ignored when beta is 0)."""
    _same_dtype(batch1, batch2, "batch1 and batch2")
    if batch1.dtype.kind in "iu":  # torch casts beta and alpha to the integer dtype: 0.6 is 0
        beta, alpha = int(beta), int(alpha)
    products = opmath(batch1) @ opmath(batch2)
    if is_reduced_float(batch1.dtype):  # torch adds one product at a time, each sum rounded to float16
        out = np.broadcast_to(self, products.shape[1:])
        for index, product in enumerate(products):
            scale = beta if index == 0 else 1
            out = result_as(alpha * product if scale == 0 else scale * opmath(out) + alpha * product, batch1.dtype)
        if len(products) == 0:
            out = np.zeros_like(out) if beta == 0 else result_as(beta * opmath(out), batch1.dtype)
        return out.copy()
    total = products.sum(axis=0)
    out = alpha * total if beta == 0 else beta * opmath(self) + alpha * total
    return result_as(np.broadcast_to(out, total.shape), batch1.dtype)


def _matrix_norm(x: np.ndarray, ord: object, dim: Sequence[int], keepdim: bool) -> np.ndarray:  # noqa: A002
    axes = tuple(d % x.ndim for d in dim)
    return np.linalg.norm(x, ord, axes, keepdim)


@kernel("linalg_matrix_norm", "linalg_matrix_norm.str_ord")
def linalg_matrix_norm(self: np.ndarray, ord: object = "fro", dim: Sequence[int] = (-2, -1),  # noqa: A002
                       keepdim: bool = False, dtype: DType | None = None) -> np.ndarray:
    x = self.astype(to_numpy(dtype)) if dtype is not None else self
    return result_as(_matrix_norm(x, ord, dim, keepdim), np.abs(x[..., :0]).dtype)


@kernel("linalg_norm", "linalg_norm.ord_str")
def linalg_norm(self: np.ndarray, ord: object = None, dim: Sequence[int] | None = None,  # noqa: A002
                keepdim: bool = False, dtype: DType | None = None) -> np.ndarray:
    """A matrix norm over two dims (or a whole matrix given an ord), else a vector norm."""
    matrix = ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and self.ndim == 2))
    if matrix:
        return linalg_matrix_norm(self, ord, dim or (0, 1), keepdim, dtype)
    return _vector_norm(self, 2 if ord is None else ord, dim, keepdim, dtype)


@kernel("linalg_vecdot")
def linalg_vecdot(x: np.ndarray, y: np.ndarray, dim: int = -1) -> np.ndarray:
    return result_as((np.conj(x) * y).sum(axis=dim), x.dtype)


@kernel("vdot")
def vdot(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return result_as(np.vdot(self, other), self.dtype)


@kernel("trace")
def trace(self: np.ndarray) -> np.ndarray:
    integral = self.dtype.kind in "biu"
    return result_as(np.trace(self), np.dtype(np.int64) if integral else self.dtype)


@kernel("linalg_diagonal")
def linalg_diagonal(A: np.ndarray, offset: int = 0, dim1: int = -2, dim2: int = -1) -> np.ndarray:
    return diagonal_view(A, offset, dim1, dim2)


@kernel("linalg_multi_dot", "chain_matmul")
def linalg_multi_dot(tensors: Sequence[np.ndarray]) -> np.ndarray:
    if len(tensors) == 1:
        return tensors[0].copy()
    return result_as(np.linalg.multi_dot(list(tensors)), tensors[0].dtype)


@kernel("tensordot")
def tensordot(self: np.ndarray, other: np.ndarray, dims_self: Sequence[int],
              dims_other: Sequence[int]) -> np.ndarray:
    """A contracted dim of size 1 against a longer one broadcasts: the longer is summed first."""
    a, b = self, other
    for d1, d2 in zip(dims_self, dims_other):
        if b.shape[d2] == 1:
            a = a.sum(axis=d1, keepdims=True)
        elif a.shape[d1] == 1:
            b = b.sum(axis=d2, keepdims=True)
    return result_as(np.tensordot(a, b, (list(dims_self), list(dims_other))), self.dtype)


@kernel("inner")
def inner(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    dtype = torch_result_dtype(self, other)
    if self.ndim == 0 or other.ndim == 0:
        return result_as(self * other, dtype)
    return result_as(np.inner(self, other), dtype)


@kernel("kron")
def kron(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return result_as(np.kron(self, other), torch_result_dtype(self, other))


@kernel("addr")
def addr(self: np.ndarray, vec1: np.ndarray, vec2: np.ndarray, beta: float = 1, alpha: float = 1) -> np.ndarray:
    """torch's CPU kernel: beta and alpha in the result's dtype (an integer one truncates
    them), each product rounded to it (float16: per operation)."""
    dtype = torch_result_dtype(self, vec1, vec2)
    if dtype.kind in "iuf" or is_floating(dtype):
        beta, alpha = result_as(beta, dtype), result_as(alpha, dtype)
        vec1, vec2, self = result_as(vec1, dtype), result_as(vec2, dtype), result_as(self, dtype)
        product = (alpha * vec1)[:, None] * vec2[None, :]
        out = product if beta == 0 else beta * self + product
        return result_as(np.broadcast_to(out, product.shape), dtype)
    product = np.multiply.outer(vec1, vec2)
    out = alpha * product if beta == 0 else beta * self + alpha * product
    return result_as(np.broadcast_to(out, product.shape), dtype)


@kernel("linalg_pinv.atol_rtol_float")
def linalg_pinv_float(self: np.ndarray, atol: float | None = None, rtol: float | None = None,
                      hermitian: bool = False) -> np.ndarray:
    return _pinv(self, atol, rtol, hermitian)


def _default_rtol(a: np.ndarray, atol: object) -> object:
    """No rtol: eps * max(m, n), or 0 where a positive atol is given (torch's get_atol_rtol)."""
    default = np.finfo(np.abs(a[..., :0, :0]).dtype).eps * max(a.shape[-2:])
    return default if atol is None else np.where(np.asarray(atol) > 0, 0.0, default)


@kernel("linalg_matrix_rank.atol_rtol_tensor", "linalg_matrix_rank.atol_rtol_float")
def linalg_matrix_rank(input: np.ndarray, atol: object = None, rtol: object = None,  # noqa: A002
                       hermitian: bool = False) -> np.ndarray:
    """How many singular values (|eigenvalues|) exceed max(atol, rtol * the largest)."""
    rtol = _default_rtol(input, atol) if rtol is None else rtol
    atol = 0.0 if atol is None else atol
    values = np.abs(np.linalg.eigvalsh(input)) if hermitian else np.linalg.svd(input, compute_uv=False)
    largest = values.max(-1, keepdims=True, initial=0)
    cutoff = np.maximum(np.asarray(atol, np.float64)[..., None], np.asarray(rtol, np.float64)[..., None] * largest)
    return result_as((values > cutoff).sum(-1), np.dtype(np.int64))


@kernel("linalg_cross", "cross")
def linalg_cross(self: np.ndarray, other: np.ndarray, dim: int | None = -1) -> np.ndarray:
    dtype = torch_result_dtype(self, other)
    a, b = np.broadcast_arrays(self, other)
    if dim is None:
        dim = a.shape.index(3)
    return result_as(np.cross(a, b, axis=dim), dtype)


@kernel("linalg_lstsq")
def linalg_lstsq(self: np.ndarray, b: np.ndarray, rcond: float | None = None,
                 driver: str | None = None) -> tuple[np.ndarray, ...]:
    """The minimum-norm least-squares solution through the pseudo-inverse (what gelsy,
    gelsd and gelss compute), singular values under rcond * the largest cut, and the
    outputs each driver returns (residuals only for a tall full-rank A)."""
    driver = driver or "gelsy"
    vector = b.ndim == self.ndim - 1
    rhs = b[..., None] if vector else b
    m, n = self.shape[-2:]
    real = np.abs(self[..., :0, :0]).dtype
    rcond = np.finfo(real).eps * max(m, n) if rcond is None or rcond < 0 else rcond
    values = np.linalg.svd(self, compute_uv=False)
    solution = _pinv(self, None, rcond, False) @ rhs
    batch = solution.shape[:-2]
    rank = (values > rcond * values.max(-1, keepdims=True, initial=0)).sum(-1)
    full_rank = bool(np.all(rank == min(m, n)))
    if m > n and driver != "gelsy" and full_rank:
        residuals = (np.abs(self @ solution - rhs) ** 2).sum(-2)
        residuals = residuals[..., 0] if vector else residuals
    else:
        residuals = np.zeros((0,), real)
    ranks = np.broadcast_to(rank, batch) if driver != "gels" else np.zeros((0,), np.int64)
    singular = np.broadcast_to(values, (*batch, min(m, n))) if driver in ("gelsd", "gelss") else np.zeros((0,), real)
    return (result_as(solution[..., 0] if vector else solution, self.dtype), result_as(residuals, real),
            result_as(ranks, np.dtype(np.int64)), result_as(singular, real))


def _from_factor(factor: np.ndarray, upper: bool) -> np.ndarray:
    """A = L Lᴴ from its lower factor, or Uᴴ U from its upper one."""
    adjoint = np.conj(np.swapaxes(factor, -1, -2))
    return adjoint @ factor if upper else factor @ adjoint


@kernel("cholesky")
def cholesky(self: np.ndarray, upper: bool = False) -> np.ndarray:
    return linalg_cholesky_ex(self, upper)[0]


@kernel("cholesky_solve")
def cholesky_solve(self: np.ndarray, input2: np.ndarray, upper: bool = False) -> np.ndarray:
    A = _from_factor(input2, upper)  # noqa: N806
    batch = np.broadcast_shapes(self.shape[:-2], A.shape[:-2])
    A = np.broadcast_to(A, (*batch, *A.shape[-2:]))  # noqa: N806
    x = _lapack("linalg.solve", np.linalg.solve, A, np.broadcast_to(self, (*batch, *self.shape[-2:])))
    return result_as(x, self.dtype)


@kernel("cholesky_inverse")
def cholesky_inverse(self: np.ndarray, upper: bool = False) -> np.ndarray:
    return result_as(_lapack("linalg.inv", np.linalg.inv, _from_factor(self, upper)), self.dtype)


@kernel("logdet")
def logdet(self: np.ndarray) -> np.ndarray:
    """log det A: NaN where the determinant is negative."""
    sign, logabsdet, _, _ = _linalg_slogdet(self)
    return np.where(sign == -1, np.nan, logabsdet).astype(logabsdet.dtype)


@kernel("linalg_matrix_power", "matrix_power")
def linalg_matrix_power(self: np.ndarray, n: int) -> np.ndarray:
    _square(self, "linalg.matrix_power")
    base = _lapack("linalg.inv", np.linalg.inv, self) if n < 0 else opmath(self)
    return result_as(np.linalg.matrix_power(base, abs(n)), self.dtype)


# ---------------------------------------------------------------- LU, LDL, Householder QR, eig, exp
# LAPACK's routines through scipy, one matrix at a time as torch's CPU kernels call
# them (scipy's wrappers take no batch); their packed results are torch's.

_scipy_linalg: Any = LazyModule("scipy.linalg", "scipy.linalg, imported when a factorisation first runs")


def _routine(name: str, a: np.ndarray) -> Callable[..., Any]:
    """LAPACK's (or BLAS's) ``name`` for a's dtype: sgetrf, zgetrf..."""
    lapack = _scipy_linalg.get_blas_funcs if name == "trsm" else _scipy_linalg.get_lapack_funcs
    return lapack(name, (a,))


def _each_matrix(fn: Callable[..., tuple[np.ndarray, ...]], *arrays: np.ndarray,
                 own: Sequence[int] = ()) -> tuple[np.ndarray, ...]:
    """fn on the matrices of arrays (own: how many trailing dims each one's item has,
    2 unless given: 1 for pivots and tau) whose batch dims broadcast; each of fn's
    results stacked back into the batch."""
    own = tuple(own) or (2,) * len(arrays)
    batch = np.broadcast_shapes(*(a.shape[:a.ndim - k] for a, k in zip(arrays, own)))
    arrays = tuple(np.broadcast_to(a, (*batch, *a.shape[a.ndim - k:])) for a, k in zip(arrays, own))
    results = [fn(*(a[index] for a in arrays)) for index in np.ndindex(*batch)]
    if not results:  # an empty batch: fn on a stand-in gives the results' trailing shapes
        sample = fn(*(np.ones(a.shape[len(batch):], a.dtype) for a in arrays))  # ones: valid 1-based pivots
        return tuple(np.zeros((*batch, *r.shape), r.dtype) for r in sample)
    return tuple(np.stack([r[i] for r in results]).reshape((*batch, *results[0][i].shape))
                 for i in range(len(results[0])))


def _getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if a.size == 0:
        return a.copy(), np.zeros(min(a.shape), np.int32), np.zeros((), np.int32)
    lu, pivots, info = _routine("getrf", a)(a)
    return lu, (pivots + 1).astype(np.int32), np.asarray(max(info, 0), np.int32)


@kernel("linalg_lu_factor_ex")
def linalg_lu_factor_ex(A: np.ndarray, pivot: bool = True, check_errors: bool = False) -> tuple[np.ndarray, ...]:
    """getrf: L (unit diagonal left out) and U in one matrix, 1-based row swaps; info k > 0:
    U[k-1, k-1] is zero."""
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, pivots, info = _each_matrix(_getrf, A)
    if check_errors:
        _linalg_check_errors(info, "torch.linalg.lu_factor_ex", A.ndim == 2)
    return lu, pivots, info


@kernel("linalg_lu_factor")
def linalg_lu_factor(A: np.ndarray, pivot: bool = True) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    lu, pivots, info = linalg_lu_factor_ex(A, pivot)
    _linalg_check_errors(info, "torch.linalg.lu_factor", A.ndim == 2)
    return lu, pivots


@kernel("lu_unpack")
def lu_unpack(LU_data: np.ndarray, LU_pivots: np.ndarray, unpack_data: bool = True,  # noqa: N803 - torch's names
              unpack_pivots: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A = P L U: L and U out of getrf's packed factors; P from its row swaps, applied
    in order to the rows' order (one swap per column, every matrix of the batch at once)."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = _empty(LU_data.dtype)
    L, U = empty, empty  # noqa: N806
    if unpack_data:
        L = np.tril(LU_data[..., :, :k], -1) + np.eye(m, k, dtype=LU_data.dtype)  # noqa: N806
        U = np.triu(LU_data[..., :k, :])  # noqa: N806
    if not unpack_pivots:
        return empty, L, U
    swaps = LU_pivots.astype(np.int64) - 1
    order = np.broadcast_to(np.arange(m), (*swaps.shape[:-1], m)).copy()
    for i in range(swaps.shape[-1]):
        target = swaps[..., i:i + 1]
        here, there = order[..., i:i + 1].copy(), np.take_along_axis(order, target, -1)
        np.put_along_axis(order, target, here, -1)
        order[..., i:i + 1] = there
    P = (np.arange(m)[:, None] == order[..., None, :]).astype(LU_data.dtype)  # noqa: N806 - P[order[j], j] = 1
    return P, L, U


@kernel("linalg_lu")
def linalg_lu(A: np.ndarray, pivot: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lu, pivots, _ = linalg_lu_factor_ex(A, pivot)
    return lu_unpack(lu, pivots)


@kernel("linalg_lu_solve")
def linalg_lu_solve(LU: np.ndarray, pivots: np.ndarray, B: np.ndarray, left: bool = True,  # noqa: N803
                    adjoint: bool = False) -> np.ndarray:
    """getrs: A X = B (or A^H X = B). X A = B is A^T X^T = B^T, and X A^H = B is
    conj(A) X^T = B^T, solved as the conjugate of A X^H = B^H."""
    if not left:
        transposed = np.swapaxes(B, -1, -2)
        if adjoint:
            return np.conj(np.swapaxes(linalg_lu_solve(LU, pivots, np.conj(transposed)), -1, -2))
        return np.swapaxes(_lu_solve(LU, pivots, transposed, 1), -1, -2)
    return _lu_solve(LU, pivots, B, 2 if adjoint else 0)


def _lu_solve(LU: np.ndarray, pivots: np.ndarray, B: np.ndarray, trans: int) -> np.ndarray:  # noqa: N803
    """getrs with trans 0 (A), 1 (A^T) or 2 (A^H)."""
    def solve(lu: np.ndarray, piv: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
        if b.size == 0:
            return (b.copy(),)
        return (_routine("getrs", lu)(lu, piv - 1, b, trans=trans)[0],)
    return _each_matrix(solve, LU, pivots, B, own=(2, 1, 2))[0]


def _trsm(A: np.ndarray, B: np.ndarray, upper: bool, left: bool, transpose: bool,  # noqa: N803
          unitriangular: bool) -> np.ndarray:
    """BLAS trsm: op(A) X = B (left) or X op(A) = B; a zero on the diagonal gives inf or nan, as torch's."""
    def solve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
        if b.size == 0:
            return (b.copy(),)
        return (_routine("trsm", a)(1.0, a, b, side=0 if left else 1, lower=0 if upper else 1,
                                      trans_a=1 if transpose else 0, diag=1 if unitriangular else 0),)
    return _each_matrix(solve, A, B)[0]


@kernel("linalg_solve_triangular")
def linalg_solve_triangular(self: np.ndarray, B: np.ndarray, upper: bool, left: bool = True,  # noqa: N803
                            unitriangular: bool = False) -> np.ndarray:
    return _trsm(self, B, upper, left, False, unitriangular)


@kernel("triangular_solve")
def triangular_solve(self: np.ndarray, A: np.ndarray, upper: bool = True, transpose: bool = False,  # noqa: N803
                     unitriangular: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A X = self (A^T X = self): the solution and A broadcast to the solution's batch."""
    solution = _trsm(A, self, upper, True, transpose, unitriangular)
    return solution, np.broadcast_to(A, (*solution.shape[:-2], *A.shape[-2:])).copy()


@kernel("linalg_ldl_factor_ex")
def linalg_ldl_factor_ex(self: np.ndarray, hermitian: bool = False,
                         check_errors: bool = False) -> tuple[np.ndarray, ...]:
    """sytrf (hetrf) on the lower triangle: Bunch-Kaufman's D and L in one matrix whose
    strict upper triangle torch zeroes; pivots as LAPACK's (negative: a 2x2 block)."""
    name = "hetrf" if hermitian and self.dtype.kind == "c" else "sytrf"

    def factor(a: np.ndarray) -> tuple[np.ndarray, ...]:
        if a.size == 0:
            return a.copy(), np.zeros(0, np.int32), np.zeros((), np.int32)
        ld, pivots, info = _routine(name, a)(a, lower=1)
        return np.tril(ld), pivots.astype(np.int32), np.asarray(max(info, 0), np.int32)
    ld, pivots, info = _each_matrix(factor, self)
    if check_errors:
        _linalg_check_errors(info, "torch.linalg.ldl_factor_ex", self.ndim == 2)
    return ld, pivots, info


@kernel("linalg_ldl_factor")
def linalg_ldl_factor(self: np.ndarray, hermitian: bool = False) -> tuple[np.ndarray, np.ndarray]:
    ld, pivots, info = linalg_ldl_factor_ex(self, hermitian)
    _linalg_check_errors(info, "torch.linalg.ldl_factor", self.ndim == 2)
    return ld, pivots


@kernel("linalg_ldl_solve")
def linalg_ldl_solve(LD: np.ndarray, pivots: np.ndarray, B: np.ndarray, hermitian: bool = False) -> np.ndarray:  # noqa: N803
    name = "hetrs" if hermitian and LD.dtype.kind == "c" else "sytrs"

    def solve(ld: np.ndarray, piv: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
        if b.size == 0:
            return (b.copy(),)
        return (_routine(name, ld)(ld, piv, b, lower=1)[0],)
    return _each_matrix(solve, LD, pivots, B, own=(2, 1, 2))[0]


@kernel("geqrf")
def geqrf(self: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R above the diagonal, the Householder vectors below it, and their scales tau."""
    def factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if a.size == 0:
            return a.copy(), np.zeros(min(a.shape), a.dtype)
        qr, tau, _, _ = _routine("geqrf", a)(a)
        return qr, tau
    return _each_matrix(factor, self)


def _lwork(m: int, n: int) -> int:
    return max(1, 64 * max(m, n))


@kernel("ormqr")
def ormqr(self: np.ndarray, input2: np.ndarray, input3: np.ndarray, left: bool = True,
          transpose: bool = False) -> np.ndarray:
    """Q input3 (input3 Q when not left; Q^H when transpose), Q the product of self's
    Householder reflectors scaled by input2, as geqrf packs them."""
    complex_ = self.dtype.kind == "c"

    def apply(a: np.ndarray, tau: np.ndarray, c: np.ndarray) -> tuple[np.ndarray]:
        if c.size == 0 or tau.size == 0:
            return (c.copy(),)
        name = "unmqr" if complex_ else "ormqr"
        trans = ("C" if complex_ else "T") if transpose else "N"
        return (_routine(name, a)("L" if left else "R", trans, a, tau, c, _lwork(*c.shape))[0],)
    return _each_matrix(apply, self, input2, input3, own=(2, 1, 2))[0]


@kernel("linalg_householder_product")
def linalg_householder_product(input: np.ndarray, tau: np.ndarray) -> np.ndarray:  # noqa: A002 - torch's name
    """orgqr (ungqr): the first n columns of the product of input's reflectors."""
    name = "ungqr" if input.dtype.kind == "c" else "orgqr"

    def product(a: np.ndarray, t: np.ndarray) -> tuple[np.ndarray]:
        if a.size == 0:
            return (a.copy(),)
        if t.size == 0:
            return (np.eye(*a.shape, dtype=a.dtype),)
        return (_routine(name, a)(a, t, lwork=_lwork(*a.shape))[0],)
    return _each_matrix(product, input, tau, own=(2, 1))[0]


@kernel("linalg_eig")
def linalg_eig(self: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """geev: complex eigenvalues and unit eigenvectors, also for a real matrix."""
    _square(self, "linalg.eig")
    complex_dtype = np.result_type(self.dtype, np.complex64)
    values, vectors = np.linalg.eig(self)
    return values.astype(complex_dtype), vectors.astype(complex_dtype)


@kernel("linalg_eigvals")
def linalg_eigvals(self: np.ndarray) -> np.ndarray:
    return linalg_eig(self)[0]


@kernel("linalg_matrix_exp", "matrix_exp")
def linalg_matrix_exp(self: np.ndarray) -> np.ndarray:
    _square(self, "linalg.matrix_exp")
    if self.shape[-1] == 0:
        return self.copy()
    # in double, then rounded: scipy's float32 Pade sums drift past torch's float32 result
    return result_as(_scipy_linalg.expm(self.astype(np.result_type(self.dtype, np.float64))), self.dtype)


# torch's words for a nonzero info, by the API that failed (_linalg_check_errors)
_CHECK_MESSAGES = (
    ("inv", "The diagonal element {info} is zero, the inversion could not be completed because the input matrix "
            "is singular."),
    ("solve", "The solver failed because the input matrix is singular."),
    ("cholesky", "The factorization could not be completed because the input is not positive-definite (the "
                 "leading minor of order {info} is not positive-definite)."),
    ("svd", "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
            "repeated singular values (error code: {info})."),
    ("eig", "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
            "repeated eigenvalues (error code: {info})."),
    ("lstsq", "The least squares solution could not be computed because the input matrix does not have full "
              "rank (error code: {info})."),
    ("lu_factor", "U[{info},{info}] is zero and using it on lu_solve would result in a division by zero. If you "
                  "still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                  "linalg.lu_factor_ex(A, pivot)"),
)


@kernel("_linalg_check_errors")
def _linalg_check_errors(info: np.ndarray, api_name: str, is_matrix: bool) -> tuple[()]:
    """Raise torch's error for the first nonzero info (a LAPACK argument error when negative)."""
    flat = np.asarray(info).reshape(-1)
    failed = np.flatnonzero(flat)
    if failed.size == 0:
        return ()
    code = int(flat[failed[0]])
    prefix = f"{api_name}: " if is_matrix else f"{api_name}: (Batch element {int(failed[0])}): "
    if code < 0:
        raise RuntimeError(f"{prefix}Argument {-code} has illegal value. Most certainly there is a bug in the "
                           "implementation calling the backend library.")
    words = next((text for key, text in _CHECK_MESSAGES if key in api_name), "Unknown error code: {info}.")
    raise RuntimeError(prefix + words.format(info=code))
