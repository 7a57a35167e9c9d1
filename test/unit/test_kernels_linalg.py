"""Kernels of matrix products, einsum, attention, distances, FFTs and losses, each
against an independent reference (explicit loops, direct DFT sums, hand-computed
numbers). Every call goes through kernel_checks.run, which also checks the op's
shape rule agrees on shapes and dtypes."""

from __future__ import annotations

import cmath
import itertools
import math
from typing import Any

import numpy as np
import pytest
from kernel_checks import run

from texport.dialects.registry import lookup_op
from texport.dialects.schema import bind_arguments
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.shape_rules.guards import ShapeGuardError
from texport.interpreter import rng
from texport.interpreter.kernels import KERNELS

RNG = np.random.default_rng(1234)
NONE, MEAN, SUM = 0, 1, 2


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def run_loss(op: str, *args: Any, **kwargs: Any) -> Any:
    """run() once the loss has a shape rule. The loss rules are not written yet (another
    engineer's file): until then the kernel runs alone on the schema-bound call, and the
    rule cross-check switches on by itself when the rule is registered."""
    if op in SHAPE_RULES:
        return run(op, *args, **kwargs)
    return KERNELS[op](*bind_arguments(lookup_op(op).schema, args, kwargs))


def close(actual: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64 if not np.iscomplexobj(actual)
                                          else np.complex128), expected, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------- references


def naive_mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    rows, inner = a.shape
    cols = b.shape[1]
    out = np.zeros((rows, cols), dtype=np.float64 if a.dtype.kind == "f" else np.int64)
    for i in range(rows):
        for j in range(cols):
            for k in range(inner):
                out[i, j] += a[i, k] * b[k, j]
    return out


def naive_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch.matmul spelled out: promote 1-D operands, broadcast batches, loop, squeeze."""
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    a3 = np.broadcast_to(a2, batch + a2.shape[-2:])
    b3 = np.broadcast_to(b2, batch + b2.shape[-2:])
    out = np.zeros(batch + (a2.shape[-2], b2.shape[-1]))
    for index in itertools.product(*(range(n) for n in batch)):
        out[index] = naive_mm(a3[index], b3[index])
    if a.ndim == 1:
        out = out.squeeze(-2)
    if b.ndim == 1:
        out = out.squeeze(-1)
    return out


def naive_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, bias: Any = None,
                    scale: float | None = None) -> np.ndarray:
    """softmax(q k^T * scale + bias) v for [B, L, E] x [B, S, E] x [B, S, Ev], plain loops."""
    batch, length, embed = q.shape
    source = k.shape[1]
    scale = 1 / math.sqrt(embed) if scale is None else scale
    out = np.zeros((batch, length, v.shape[2]))
    for b in range(batch):
        for i in range(length):
            scores = [sum(float(q[b, i, e]) * float(k[b, j, e]) for e in range(embed)) * scale
                      + (0.0 if bias is None else float(bias[i][j])) for j in range(source)]
            top = max(scores)
            if top == -math.inf:
                continue  # a fully masked row gives zeros
            weights = [math.exp(s - top) for s in scores]
            total = sum(weights)
            for j in range(source):
                out[b, i] += weights[j] / total * v[b, j].astype(np.float64)
    return out


def naive_cdist(x1: np.ndarray, x2: np.ndarray, p: float) -> np.ndarray:
    out = np.zeros((x1.shape[0], x2.shape[0]))
    for i in range(x1.shape[0]):
        for j in range(x2.shape[0]):
            diffs = [abs(float(a) - float(b)) for a, b in zip(x1[i], x2[j])]
            if p == 0:
                out[i, j] = sum(d != 0 for d in diffs)
            elif p == math.inf:
                out[i, j] = max(diffs, default=0.0)
            else:
                out[i, j] = sum(d**p for d in diffs) ** (1 / p)
    return out


def dft(x: np.ndarray, inverse: bool = False) -> np.ndarray:
    """Direct 1-D DFT along the last axis: X_j = sum_k x_k e^{-2 pi i jk / n} (+ for inverse,
    unnormalised)."""
    n = x.shape[-1]
    sign = 1 if inverse else -1
    out = np.zeros(x.shape, dtype=np.complex128)
    for j in range(n):
        for k in range(n):
            out[..., j] += x[..., k] * cmath.exp(sign * 2j * math.pi * j * k / n)
    return out


# ---------------------------------------------------------------------------- mm, bmm, add products


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mm_matches_triple_loop(dtype: Any) -> None:
    a, b = rand(3, 4, dtype=dtype), rand(4, 5, dtype=dtype)
    out = run("mm", a, b)
    assert out.dtype == dtype
    close(out, naive_mm(a, b))


def test_mm_of_transposed_views_and_ints() -> None:
    a, b = rand(4, 3).T, rand(5, 4).T  # non-contiguous operands
    assert not a.flags.c_contiguous
    close(run("mm", a, b), naive_mm(a, b))
    ia = RNG.integers(-5, 5, (3, 4))
    ib = RNG.integers(-5, 5, (4, 2))
    out = run("mm", ia, ib)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, naive_mm(ia, ib))
    out32 = run("mm", ia.astype(np.int32), ib.astype(np.int32))
    assert out32.dtype == np.int32


def test_mm_empty_and_zero_inner() -> None:
    assert run("mm", rand(0, 4), rand(4, 5)).shape == (0, 5)
    out = run("mm", rand(3, 0), rand(0, 5))
    np.testing.assert_array_equal(out, np.zeros((3, 5), np.float32))


def test_mm_half_is_accumulated_in_float() -> None:
    a = np.full((1, 4096), 1.0, np.float16)
    b = np.full((4096, 1), 1.0, np.float16)
    # Summing 4096 ones in float16 would stall at 2048; torch accumulates in float.
    assert run("mm", a, b).dtype == np.float16
    assert run("mm", a, b)[0, 0] == 4096


def test_mixed_dtypes_raise_like_torch() -> None:
    a, b = rand(2, 3, dtype=np.float16), rand(3, 4)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: "
                                           "c10::Half != float"):
        KERNELS["mm"](a, b)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        KERNELS["matmul"](rand(5, 2, 3, dtype=np.float16), rand(3, 4))
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype, but "
                                           "found Float and Long"):
        KERNELS["dot"](rand(3), np.arange(3))
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype"):
        KERNELS["matmul"](rand(3), np.arange(3))  # 1-D @ 1-D is dot, with dot's message
    with pytest.raises(ShapeGuardError, match="to have the same dtype"):
        run("mm", a, b)  # the shape rule refuses the same call


def test_bmm_matches_loops_and_empty_batch() -> None:
    a, b = rand(3, 2, 4, dtype=np.float64), rand(3, 4, 5, dtype=np.float64)
    out = run("bmm", a, b)
    for i in range(3):
        close(out[i], naive_mm(a[i], b[i]))
    assert run("bmm", rand(0, 2, 4), rand(0, 4, 5)).shape == (0, 2, 5)
    t = rand(3, 4, 2).transpose(0, 2, 1)  # non-contiguous batch operand
    close(run("bmm", t, b.astype(np.float32))[1], naive_mm(t[1], b[1]), rtol=1e-4)


def test_addmm_beta_alpha() -> None:
    bias, a, b = rand(5), rand(2, 3), rand(3, 5)
    out = run("addmm", bias, a, b, beta=0.5, alpha=-2.0)
    close(out, 0.5 * bias.astype(np.float64) - 2 * naive_mm(a, b), rtol=1e-4)
    close(run("addmm", bias, a, b), bias + naive_mm(a, b), rtol=1e-4)


def test_addmm_beta_zero_ignores_nan_in_self() -> None:
    nan_self = np.full((2, 5), np.nan, np.float32)
    out = run("addmm", nan_self, rand(2, 3), rand(3, 5), beta=0)
    assert np.isfinite(out).all()
    assert np.isnan(run("addmm", nan_self, rand(2, 3), rand(3, 5), beta=1e-3)).all()


def test_addmm_in_place_writes_self() -> None:
    self, a, b = rand(2, 5, dtype=np.float64), rand(2, 3, dtype=np.float64), rand(3, 5, dtype=np.float64)
    expected = 2 * self + 3 * naive_mm(a, b)
    out = run("addmm_", self, a, b, beta=2, alpha=3)
    assert out is self
    close(self, expected)


def test_baddbmm_and_in_place() -> None:
    self, a, b = rand(1, 4), rand(3, 2, 3), rand(3, 3, 4)
    out = run("baddbmm", self, a, b, beta=2.0, alpha=0.5)
    for i in range(3):
        close(out[i], 2 * self[0].astype(np.float64) + 0.5 * naive_mm(a[i], b[i]), rtol=1e-4)
    target = rand(3, 2, 4)
    expected = target - naive_matmul(a, b)
    assert run("baddbmm_", target, a, b, alpha=-1) is target
    close(target, expected, rtol=1e-4, atol=1e-5)


def test_addmv_mv_and_in_place() -> None:
    mat, vec, self = rand(3, 4, dtype=np.float64), rand(4, dtype=np.float64), rand(3, dtype=np.float64)
    reference = naive_mm(mat, vec[:, None])[:, 0]
    close(run("mv", mat, vec), reference)
    close(run("addmv", self, mat, vec, beta=-1, alpha=2), -self + 2 * reference)
    close(run("mv", mat.T.copy().T, vec), reference)
    expected = self + reference
    assert run("addmv_", self, mat, vec) is self
    close(self, expected)


@pytest.mark.parametrize("op", ["addmm", "addmv", "baddbmm"])
def test_integer_add_product_truncates_its_scalars(op: str) -> None:
    # torch converts beta and alpha to the integer dtype first: 0.5 -> 0, -1.7 -> -1, 2.9 -> 2
    mat = np.array([[1, 2], [3, 4]])
    other = {"addmm": np.ones((2, 2), np.int64), "addmv": np.ones(2, np.int64)}.get(op)
    self, a, b = (np.array([1, 2]), mat, other) if op != "baddbmm" else \
        (np.array([1, 2]), mat[None], np.ones((1, 2, 2), np.int64))
    product = a @ b
    np.testing.assert_array_equal(run(op, self, a, b, beta=0.5, alpha=0.5), np.zeros_like(product))
    out = run(op, self, a, b, beta=-1.7, alpha=2.9)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, -self + 2 * product)


def test_dot_returns_a_0d_array() -> None:
    a, b = rand(4, dtype=np.float64), rand(4, dtype=np.float64)
    out = run("dot", a, b)
    assert isinstance(out, np.ndarray) and out.shape == ()
    close(out, sum(float(x) * float(y) for x, y in zip(a, b)))
    assert run("dot", np.arange(4), np.arange(4)) == 14


def test_outer_promotes() -> None:
    a, b = np.arange(3), rand(2)
    out = run("outer", a, b)
    assert out.dtype == np.float32
    close(out, [[float(x) * float(y) for y in b] for x in a])


# ---------------------------------------------------------------------------- matmul, linear


@pytest.mark.parametrize(("a", "b"), [
    ((3,), (3,)),
    ((3,), (3, 5)),
    ((2, 3), (3,)),
    ((2, 3), (3, 5)),
    ((2, 1, 3, 4), (5, 4, 6)),
    ((4,), (7, 4, 6)),
    ((7, 2, 4), (4,)),
    ((7, 2, 4), (4, 6)),
    ((1, 2, 4), (3, 4, 3)),
    ((0, 2, 4), (4, 3)),
    ((2, 3, 0), (0, 4)),
    ((2, 0, 3), (3,)),
])
def test_matmul_cases(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    x, y = rand(*a, dtype=np.float64), rand(*b, dtype=np.float64)
    out = run("matmul", x, y)
    assert isinstance(out, np.ndarray)
    close(out, naive_matmul(x, y))


def test_matmul_ints_stay_int_and_views() -> None:
    x, y = RNG.integers(-9, 9, (2, 3, 4)), RNG.integers(-9, 9, (4, 2))
    out = run("matmul", x, y)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, naive_matmul(x, y))
    view = rand(5, 4, 3).transpose(0, 2, 1)[::2]  # strided batch view [3, 3, 4]
    rhs = rand(4, 2)
    close(run("matmul", view, rhs), naive_matmul(view, rhs), rtol=1e-4, atol=1e-5)


def test_matmul_float16_keeps_half() -> None:
    x, y = rand(2, 3, 8, dtype=np.float16), rand(8, 4, dtype=np.float16)
    out = run("matmul", x, y)
    assert out.dtype == np.float16
    close(out, naive_matmul(x, y), rtol=2e-3, atol=2e-3)


def test_linear() -> None:
    x, w, b = rand(2, 3, 4), rand(5, 4), rand(5)
    out = run("linear", x, w, b)
    close(out, naive_matmul(x, w.T) + b, rtol=1e-4, atol=1e-5)
    close(run("linear", x, w), naive_matmul(x, w.T), rtol=1e-4, atol=1e-5)
    w_view = rand(4, 5).T  # a transposed parameter
    close(run("linear", x[0, 0], w_view, b), naive_matmul(x[0, 0], w_view.T) + b, rtol=1e-4)
    vector_weight = rand(4)
    out = run("linear", x, vector_weight)
    assert out.shape == (2, 3)
    close(out, naive_matmul(x, vector_weight), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_many_rows_take_the_bias_into_the_gemm(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """linear and addmm of a few hundred rows with a bias row: the bias is broadcast into
    the result and the product added by BLAS (beta = 1), for a row-major weight (by its
    packed transpose) and a transposed one, a strided input and a 3-d one; equal to the
    float64 sum."""
    from texport.interpreter import blas
    from texport.interpreter.kernels import linalg

    if not blas.available(np.dtype(dtype)):
        pytest.skip("numpy's BLAS has no cblas gemm texport can call")
    calls = []
    real = linalg._bias_in_gemm
    monkeypatch.setattr(linalg, "_bias_in_gemm", lambda *a: calls.append(a) or real(*a))
    own = np.random.default_rng(18)  # (the module's RNG left as the later tests expect it)
    x, w, b = (own.standard_normal(shape).astype(dtype) for shape in ((2, 150, 64), (300, 64), (300,)))
    want = x.astype(np.float64) @ w.T.astype(np.float64) + b
    tol = 1e-4 if dtype == np.float32 else 1e-11
    strided = np.repeat(x, 2, axis=-1)[..., ::2]  # rows with a step of 2 elements
    w_columns = np.asfortranarray(w)  # a weight kept column-major
    results = [run("linear", x, w, b), run("linear", strided, w, b), run("linear", x, w_columns, b),
               run("addmm", b, x.reshape(300, 64), w.T), run("addmm", b, x.reshape(300, 64), np.ascontiguousarray(w.T))]
    assert len(calls) == len(results)
    packed = calls[0][1]  # a row-major weight goes in as its packed, row-major transpose
    assert packed.flags.c_contiguous and not np.shares_memory(packed, w)
    for out in results:
        assert out.dtype == dtype and out.flags.c_contiguous
        close(out.reshape(want.shape), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("inner", [48, 200])
@pytest.mark.parametrize("rows", [1, 2, 3, 4, 8, 12, 13, 16, 17, 32])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_few_rows_times_transposed_weight(rows: int, dtype: Any, inner: int) -> None:
    """linear, mm and addmm of a few rows by a transposed weight (computed as (w @ x.T).T
    for 3-16 rows, with x.T copied row-major first for up to 12 rows of up to 128
    columns): row-major results equal to the float64 product."""
    x, w, b = rand(rows, inner, dtype=dtype), rand(40, inner, dtype=dtype), rand(40, dtype=dtype)
    want = x.astype(np.float64) @ w.T.astype(np.float64)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for out, expected in [(run("linear", x, w, b), want + b), (run("mm", x, w.T), want),
                          (run("addmm", b, x, w.T), want + b)]:
        assert out.flags.c_contiguous and out.dtype == dtype
        close(out, expected, rtol=tol, atol=tol)


def test_bias_add_allocates_no_full_ufunc_buffer() -> None:
    """linear's and addmm's bias row is added with numpy's ufunc buffer at 1024
    elements: numpy allocates one buffer per broadcast operand, 32 KiB at its default
    8192 float32s, as large as the (32, 256) result itself."""
    import tracemalloc

    x, w, b = rand(32, 256), rand(256, 256), rand(256)
    for name, args in [("linear", (x, w, b)), ("addmm", (b, x, w.T))]:
        run(name, *args)
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            out = run(name, *args)
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
        assert out.nbytes <= peak < out.nbytes + 8192, (name, peak)


# ---------------------------------------------------------------------------- einsum


def test_einsum_products() -> None:
    a, b = rand(2, 3, dtype=np.float64), rand(3, 4, dtype=np.float64)
    close(run("einsum", "ij,jk->ik", [a, b]), naive_mm(a, b))
    close(run("einsum", "ij,jk", [a, b]), naive_mm(a, b))  # implicit output
    close(run("einsum", "i j , j k -> i k", [a, b]), naive_mm(a, b))
    x, y = rand(5, 2, 3, dtype=np.float64), rand(5, 3, 4, dtype=np.float64)
    close(run("einsum", "bij,bjk->bik", [x, y]), naive_matmul(x, y))
    close(run("einsum", "...ij,...jk->...ik", [x, y]), naive_matmul(x, y))
    out = run("einsum", "i,i->", [a[0], a[0]])
    assert out.shape == ()
    close(out, sum(float(v) ** 2 for v in a[0]))


def test_einsum_diagonal_transpose_and_broadcast() -> None:
    square = rand(3, 3)
    close(run("einsum", "ii->i", [square]), [square[i, i] for i in range(3)])
    close(run("einsum", "ii", [square]), sum(float(square[i, i]) for i in range(3)), rtol=1e-5)
    out = run("einsum", "ij->ji", [square])
    out[0, 1] = 99.0  # the result must not alias the input
    assert square[1, 0] != 99.0
    row, full = rand(1, 3, dtype=np.float64), rand(4, 3, dtype=np.float64)
    close(run("einsum", "ij,ij->ij", [row, full]), row * full)  # size-1 dims broadcast


# ---------------------------------------------------------------------------- attention


def test_attention_matches_loops() -> None:
    q, k, v = rand(2, 3, 4), rand(2, 3, 4), rand(2, 3, 4)
    out = run("scaled_dot_product_attention", q, k, v)
    assert out.dtype == np.float32 and out.shape == (2, 3, 4)
    close(out, naive_attention(q, k, v), rtol=1e-4, atol=1e-5)
    close(run("scaled_dot_product_attention", q, k, v, scale=0.3),
          naive_attention(q, k, v, scale=0.3), rtol=1e-4, atol=1e-5)


def test_attention_cross_lengths_and_float64() -> None:
    q, k, v = rand(2, 3, 4, dtype=np.float64), rand(2, 5, 4, dtype=np.float64), rand(2, 5, 6, dtype=np.float64)
    close(run("scaled_dot_product_attention", q, k, v), naive_attention(q, k, v), rtol=1e-10)


def test_causal_attention_by_hand() -> None:
    q, k, v = rand(2, 3, 4), rand(2, 3, 4), rand(2, 3, 4)
    out = run("scaled_dot_product_attention", q, k, v, is_causal=True)
    # Query 0 sees key 0 only: its output is value row 0 exactly.
    close(out[:, 0], v[:, 0], rtol=1e-6)
    # Query 1 sees keys 0 and 1: a two-way softmax.
    for b in range(2):
        s0, s1 = (float(q[b, 1] @ k[b, j]) / 2 for j in (0, 1))
        w1 = 1 / (1 + math.exp(s0 - s1))
        close(out[b, 1], (1 - w1) * v[b, 0] + w1 * v[b, 1], rtol=1e-5)
    causal = [[0.0 if j <= i else -math.inf for j in range(3)] for i in range(3)]
    close(out, naive_attention(q, k, v, causal), rtol=1e-4, atol=1e-5)


def test_causal_mask_is_top_left_for_rectangles() -> None:
    q, k, v = rand(1, 2, 4), rand(1, 4, 4), rand(1, 4, 3)
    out = run("scaled_dot_product_attention", q, k, v, is_causal=True)
    bias = [[0.0 if j <= i else -math.inf for j in range(4)] for i in range(2)]
    close(out, naive_attention(q, k, v, bias), rtol=1e-4, atol=1e-5)
    close(out[0, 0], v[0, 0], rtol=1e-6)


def test_attention_masks() -> None:
    q, k, v = rand(2, 3, 4), rand(2, 3, 4), rand(2, 3, 4)
    keep = np.array([[True, False, True], [True, True, False], [False, False, True]])
    additive = np.where(keep, 0.0, -np.inf)
    out = run("scaled_dot_product_attention", q, k, v, keep)
    close(out, naive_attention(q, k, v, additive), rtol=1e-4, atol=1e-5)
    float_mask = rand(3, 3)
    close(run("scaled_dot_product_attention", q, k, v, float_mask),
          naive_attention(q, k, v, float_mask), rtol=1e-4, atol=1e-5)
    none_kept = keep.copy()
    none_kept[1] = False  # a fully masked row gives zeros (torch's _safe_softmax), not NaN
    out = run("scaled_dot_product_attention", q, k, v, none_kept)
    np.testing.assert_array_equal(out[:, 1], 0)
    assert np.isfinite(out).all()
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal"):
        KERNELS["scaled_dot_product_attention"](q, k, v, keep, 0.0, True, None, False)


def test_grouped_query_attention() -> None:
    q, k, v = rand(1, 4, 3, 4), rand(1, 2, 5, 4), rand(1, 2, 5, 3)
    out = run("scaled_dot_product_attention", q, k, v, enable_gqa=True)
    assert out.shape == (1, 4, 3, 3)
    for head in range(4):  # query heads 0, 1 share kv head 0; 2, 3 share kv head 1
        close(out[:, head], naive_attention(q[:, head], k[:, head // 2], v[:, head // 2]),
              rtol=1e-4, atol=1e-5)


def test_attention_dropout_draws_from_the_seeded_generator() -> None:
    q, k = rand(1, 4, 4), rand(1, 6, 4)
    identity = np.eye(6, dtype=np.float32)[None]  # output = the attention weights
    weights = run("scaled_dot_product_attention", q, k, identity)
    rng.manual_seed(7)
    first = run("scaled_dot_product_attention", q, k, identity, dropout_p=0.5)
    rng.manual_seed(7)
    second = run("scaled_dot_product_attention", q, k, identity, dropout_p=0.5)
    np.testing.assert_array_equal(first, second)
    dropped = first == 0
    assert dropped.any() and not dropped.all()
    close(first[~dropped], 2 * weights[~dropped], rtol=1e-6)


def test_attention_half_and_4d() -> None:
    q, k, v = (rand(2, 2, 3, 4, dtype=np.float16) for _ in range(3))
    out = run("scaled_dot_product_attention", q, k, v)
    assert out.dtype == np.float16
    close(out[1, 0], naive_attention(q[1], k[1], v[1])[0], rtol=5e-3, atol=5e-3)
    # q.k = 80000 overflows float16; torch's math backend computes half in float32.
    big = np.full((1, 2, 8), 100, np.float16)
    values = rand(1, 2, 3, dtype=np.float16)
    out = run("scaled_dot_product_attention", big, big, values)
    close(out, naive_attention(big, big, values), rtol=5e-3, atol=5e-3)


# ---------------------------------------------------------------------------- distances


@pytest.mark.parametrize("op", ["cdist", "_cdist_forward"])
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, math.inf])
def test_cdist_matches_pairwise_loops(op: str, p: float) -> None:
    x1, x2 = rand(4, 3, dtype=np.float64), rand(5, 3, dtype=np.float64)
    x2[1] = x1[2]  # one exact zero distance
    out = run(op, x1, x2, p, None)
    close(out, naive_cdist(x1, x2, p), rtol=1e-9, atol=1e-12)
    assert out[2, 1] == 0


def test_cdist_small_inputs_are_exact() -> None:
    # |a|^2 - 2 a.b + |b|^2 loses the 1 to cancellation at 1e16; torch (and we) compute
    # small inputs from the differences directly.
    x1, x2 = np.array([[1e8 + 1, 0.0]]), np.array([[1e8, 0.0]])
    assert run("cdist", x1, x2)[0, 0] == 1.0
    assert run("cdist", x1, x2, 2.0, 1)[0, 0] != 1.0  # use_mm_for_euclid_dist: the formula


def test_cdist_large_inputs_take_the_gemm_path() -> None:
    x1, x2 = rand(30, 5, dtype=np.float64), rand(27, 5, dtype=np.float64)
    close(run("cdist", x1, x2), naive_cdist(x1, x2, 2), rtol=1e-9)
    same = run("cdist", x1, x1)  # cancellation is clamped at 0: no NaN on the diagonal
    assert np.all(np.isfinite(same)) and np.all(np.diag(same[..., :30]) < 1e-6)
    exact = run("cdist", x1, x1, 2.0, 2)  # donot_use_mm_for_euclid_dist
    np.testing.assert_array_equal(np.diag(exact), 0)


def test_cdist_broadcast_batch_empty_and_views() -> None:
    x1, x2 = rand(2, 5, 3), rand(7, 3)
    out = run("cdist", x1, x2, 1.0)
    for b in range(2):
        close(out[b], naive_cdist(x1[b], x2, 1), rtol=1e-5)
    assert run("cdist", rand(0, 3), rand(4, 3)).shape == (0, 4)
    view = rand(3, 6).T  # [6, 3] non-contiguous
    close(run("_cdist_forward", view, x2, 2.0, None), naive_cdist(view, x2, 2), rtol=1e-5)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 1.5, math.inf])
def test_pdist_order_and_values(p: float) -> None:
    x = rand(5, 3, dtype=np.float64)
    full = naive_cdist(x, x, p)
    expected = [full[i, j] for i in range(5) for j in range(i + 1, 5)]
    close(run("_pdist_forward", x, p), expected, rtol=1e-9, atol=1e-12)
    assert run("_pdist_forward", rand(1, 3), p).shape == (0,)


def test_cosine_similarity() -> None:
    x1, x2 = rand(3, 4, dtype=np.float64), rand(3, 4, dtype=np.float64)
    expected = [float(x1[i] @ x2[i]) / math.sqrt(float(x1[i] @ x1[i]) * float(x2[i] @ x2[i]))
                for i in range(3)]
    close(run("cosine_similarity", x1, x2), expected, rtol=1e-12)
    close(run("cosine_similarity", x1.T, x2.T, 0), expected, rtol=1e-12)
    zero = np.zeros((1, 4))
    close(run("cosine_similarity", zero, x2), [0.0, 0.0, 0.0])  # eps keeps 0 / 0 away
    short, unit = np.array([[0.1, 0.0]]), np.array([[1.0, 0.0]])
    # Each norm is clamped at eps on its own: 0.1 / max(0.1, 0.5) * 1 / max(1, 0.5).
    close(run("cosine_similarity", short, unit, 1, 0.5), [0.2], rtol=1e-12, atol=0)
    out = run("cosine_similarity", np.arange(4)[None], rand(2, 4))  # int x float -> float
    assert out.dtype == np.float32 and out.shape == (2,)
    with pytest.raises(RuntimeError, match="expected common dtype to be floating point"):
        KERNELS["cosine_similarity"](np.arange(3), np.arange(3), 0, 1e-8)


def test_pairwise_distance() -> None:
    x1, x2 = rand(3, 4, dtype=np.float64), rand(1, 4, dtype=np.float64)
    expected = [math.sqrt(sum((float(a) - float(b) + 1e-6) ** 2 for a, b in zip(x1[i], x2[0])))
                for i in range(3)]
    close(run("pairwise_distance", x1, x2), expected, rtol=1e-12, atol=0)
    keep = run("pairwise_distance", x1, x2, keepdim=True)
    assert keep.shape == (3, 1)
    l1 = run("pairwise_distance", x1, x2, 1.0)
    close(l1, [sum(abs(float(a) - float(b) + 1e-6) for a, b in zip(x1[i], x2[0])) for i in range(3)],
          rtol=1e-12, atol=0)
    vector = run("pairwise_distance", x1[0], x2[0])
    assert vector.shape == ()
    close(vector, expected[0], rtol=1e-12, atol=0)


def test_pairwise_distance_of_ints_is_float() -> None:
    out = run("pairwise_distance", np.arange(6).reshape(2, 3), np.zeros((2, 3), np.int64))
    assert out.dtype == np.float32


# ---------------------------------------------------------------------------- FFT


@pytest.mark.parametrize("n", [6, 5])
def test_fft_r2c_matches_direct_dft(n: int) -> None:
    x = rand(2, n, dtype=np.float64)
    full = dft(x)
    close(run("_fft_r2c", x, [1], 0, False), full, rtol=1e-10, atol=1e-10)
    close(run("_fft_r2c", x, [-1], 0, True), full[:, : n // 2 + 1], rtol=1e-10, atol=1e-10)
    close(run("_fft_r2c", x, [1], 1, True), full[:, : n // 2 + 1] / math.sqrt(n), rtol=1e-10, atol=1e-10)
    close(run("_fft_r2c", x, [1], 2, False), full / n, rtol=1e-10, atol=1e-10)


def test_fft_r2c_over_two_dims_and_float32() -> None:
    x = rand(3, 4)
    out = run("_fft_r2c", x, [0, 1], 0, True)
    assert out.dtype == np.complex64 and out.shape == (3, 3)
    two_d = np.swapaxes(dft(np.swapaxes(dft(x.astype(np.float64)), 0, 1)), 0, 1)
    close(out, two_d[:, :3], rtol=1e-4, atol=1e-4)
    column = run("_fft_r2c", x, [0], 0, True)  # the halved dim is the last one listed
    assert column.shape == (2, 4)
    close(column, np.swapaxes(dft(x.T.astype(np.float64)), 0, 1)[:2], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [8, 7])
def test_fft_c2r_inverts_a_one_sided_spectrum(n: int) -> None:
    x = rand(3, n, dtype=np.float64)
    half = dft(x)[:, : n // 2 + 1]
    # by_n (2) is irfft's default "backward" normalisation: it returns x.
    close(run("_fft_c2r", half, [1], 2, n), x, rtol=1e-10, atol=1e-10)
    # none (0): the plain inverse sum over the Hermitian-completed spectrum.
    full = np.concatenate([half, np.conj(half[:, 1: (n + 1) // 2][:, ::-1])], axis=1)
    close(run("_fft_c2r", half, [1], 0, n), dft(full, inverse=True).real, rtol=1e-10, atol=1e-10)
    close(run("_fft_c2r", half, [1], 1, n), x * math.sqrt(n), rtol=1e-10, atol=1e-10)
    single = run("_fft_c2r", half.astype(np.complex64), [1], 2, n)
    assert single.dtype == np.float32


def test_fft_c2r_over_two_dims() -> None:
    x = rand(3, 4, dtype=np.float64)
    spectrum = run("_fft_r2c", x, [0, 1], 0, True)
    close(run("_fft_c2r", spectrum, [0, 1], 2, 4), x, rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------------------- regression losses


X3 = np.array([1.0, 2.0, 3.0], np.float32)
Y3 = np.array([1.5, 2.0, 1.0], np.float32)  # |diff| = 0.5, 0, 2


def test_mse_and_l1_by_hand() -> None:
    close(run_loss("mse_loss", X3, Y3), 4.25 / 3)
    close(run_loss("mse_loss", X3, Y3, SUM), 4.25)
    close(run_loss("mse_loss", X3, Y3, NONE), [0.25, 0.0, 4.0])
    close(run_loss("l1_loss", X3, Y3), 2.5 / 3)
    close(run_loss("l1_loss", X3, Y3, NONE), [0.5, 0.0, 2.0])
    out = run_loss("mse_loss", X3.astype(np.float64), Y3)
    assert out.dtype == np.float64 and out.shape == ()
    assert np.isnan(run_loss("mse_loss", X3[:0], Y3[:0]))  # mean of nothing
    assert run_loss("l1_loss", X3[:0], Y3[:0], SUM) == 0


@pytest.mark.parametrize("op", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_pointwise_losses_promote_dtypes(op: str) -> None:
    out = run_loss(op, X3, Y3.astype(np.float64))
    assert out.dtype == np.float64


def test_smooth_l1_and_huber_by_hand() -> None:
    close(run_loss("smooth_l1_loss", X3, Y3, NONE), [0.125, 0.0, 1.5])
    close(run_loss("smooth_l1_loss", X3, Y3, NONE, 2.0), [0.0625, 0.0, 1.0])
    close(run_loss("smooth_l1_loss", X3, Y3, SUM, 0.0), 2.5)  # beta = 0 is L1
    close(run_loss("huber_loss", X3, Y3), 1.625 / 3)
    close(run_loss("huber_loss", X3, Y3, NONE, 0.5), [0.125, 0.0, 0.875])
    close(run_loss("smooth_l1_loss", X3.reshape(3, 1).T, Y3[None], MEAN, 2.0), 1.0625 / 3)


def test_binary_cross_entropy_by_hand() -> None:
    x = np.array([0.9, 0.2, 0.0], np.float32)
    y = np.array([1.0, 0.0, 1.0], np.float32)
    # -log 0.9, -log 0.8, and log 0 clamped at -100.
    close(run_loss("binary_cross_entropy", x, y, None, NONE), [0.1053605, 0.2231436, 100.0])
    # log(1 - 1) is clamped too: 100 for y = 0, and 0 (not 0 * -inf = NaN) for y = 1.
    ones = np.ones(2, np.float32)
    close(run_loss("binary_cross_entropy", ones, np.array([0.0, 1.0], np.float32), None, NONE),
          [100.0, 0.0])
    weight = np.array([1.0, 2.0, 0.5], np.float32)
    close(run_loss("binary_cross_entropy", x, y, weight, SUM), 0.1053605 + 0.4462871 + 50.0)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        KERNELS["binary_cross_entropy"](x + 1, y, None, MEAN)


def test_binary_cross_entropy_with_logits_by_hand() -> None:
    x = np.array([0.0, 2.0, -1.0], np.float64)
    y = np.array([1.0, 0.0, 1.0], np.float64)
    plain = [math.log(2), math.log(1 + math.e**2), math.log(1 + math.e)]
    close(run_loss("binary_cross_entropy_with_logits", x, y, reduction=NONE), plain, rtol=1e-12)
    pos = np.array([2.0])
    close(run_loss("binary_cross_entropy_with_logits", x, y, None, pos, NONE),
          [2 * plain[0], plain[1], 2 * plain[2]], rtol=1e-12)
    w = np.array([0.5, 1.0, 2.0])
    close(run_loss("binary_cross_entropy_with_logits", x, y, w, pos, MEAN),
          (plain[0] + plain[1] + 4 * plain[2]) / 3, rtol=1e-12)
    big = run_loss("binary_cross_entropy_with_logits", np.array([100.0, -100.0]),
                   np.array([0.0, 1.0]), reduction=NONE)
    close(big, [100.0, 100.0], rtol=1e-12)  # no overflow at large logits


# ---------------------------------------------------------------------------- nll, cross entropy

LOGP = np.array([[-0.5, -1.0, -2.0], [-0.1, -3.0, -4.0], [-2.0, -0.2, -1.0]], np.float32)
TARGET = np.array([0, 2, 1])  # picks -0.5, -4.0, -0.2
WEIGHT = np.array([1.0, 2.0, 3.0], np.float32)


def test_nll_loss_by_hand() -> None:
    close(run_loss("nll_loss", LOGP, TARGET), 4.7 / 3)
    close(run_loss("nll_loss", LOGP, TARGET, None, NONE), [0.5, 4.0, 0.2])
    close(run_loss("nll_loss", LOGP, TARGET, WEIGHT), (0.5 + 12.0 + 0.4) / 6)
    ignored = np.array([0, -100, 1])
    close(run_loss("nll_loss", LOGP, ignored), 0.7 / 2)
    close(run_loss("nll_loss", LOGP, ignored, WEIGHT), 0.9 / 3)
    close(run_loss("nll_loss", LOGP, np.array([0, 1, 1]), WEIGHT, MEAN, 1), 0.5)
    close(run_loss("nll_loss", LOGP, ignored, WEIGHT, NONE), [0.5, 0.0, 0.4])
    assert np.isnan(run_loss("nll_loss", LOGP, np.full(3, -100)))  # 0 / 0


def test_nll_loss_forward_total_weight() -> None:
    out, total = run_loss("nll_loss_forward", LOGP, TARGET, WEIGHT, SUM, -100)
    close(out, 12.9)
    close(total, 6.0)
    out, total = run_loss("nll_loss_forward", LOGP, np.array([0, -100, 1]), WEIGHT, MEAN, -100)
    close(out, 0.3)
    close(total, 3.0)
    out, total = run_loss("nll_loss_forward", LOGP, TARGET, WEIGHT, NONE, -100)
    close(out, [0.5, 12.0, 0.4])
    assert total.shape == () and total == 0  # torch leaves it 0 when not reducing
    out, total = run_loss("nll_loss_forward", LOGP[1], np.array(2), WEIGHT, NONE, -100)
    assert out.shape == () and total.shape == ()
    close(out, 12.0)
    close(total, 3.0)  # a 1-D input takes torch's scalar path, which reports the weight
    out, total = run_loss("nll_loss_forward", LOGP[:0], TARGET[:0], None, MEAN, -100)
    assert np.isnan(out) and total == 0
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        KERNELS["nll_loss_forward"](LOGP, np.array([0, 3, 1]), None, MEAN, -100)


def test_nll_loss2d_forward() -> None:
    image = LOGP.T[None, :, None, :]  # [1, C=3, 1, 3]: the three samples as pixels
    target = TARGET[None, None, :]
    out, total = run_loss("nll_loss2d_forward", image, target, WEIGHT, MEAN, -100)
    close(out, 12.9 / 6)
    close(total, 6.0)
    out, total = run_loss("nll_loss2d_forward", image, target, None, NONE, 2)
    close(out, [[[0.5, 0.0, 0.2]]])
    assert out.shape == (1, 1, 3) and total == 0


LN2, LN3, LN6 = math.log(2), math.log(3), math.log(6)
# softmax([0, 0, 0]) = 1/3 each; softmax([0, ln 2, ln 3]) = [1/6, 2/6, 3/6].
LOGITS = np.array([[0.0, 0.0, 0.0], [0.0, LN2, LN3], [0.0, LN2, LN3]], np.float64)
CLASSES = np.array([1, 2, 0])  # nll: ln 3, ln 2, ln 6


def test_cross_entropy_by_hand() -> None:
    close(run_loss("cross_entropy_loss", LOGITS, CLASSES, reduction=NONE), [LN3, LN2, LN6],
          rtol=1e-12)
    close(run_loss("cross_entropy_loss", LOGITS, CLASSES), (LN3 + LN2 + LN6) / 3, rtol=1e-12)
    weight = np.array([1.0, 2.0, 3.0])
    close(run_loss("cross_entropy_loss", LOGITS, CLASSES, weight),
          (2 * LN3 + 3 * LN2 + 1 * LN6) / 6, rtol=1e-12)
    close(run_loss("cross_entropy_loss", LOGITS, np.array([1, -100, 0])), (LN3 + LN6) / 2,
          rtol=1e-12)
    close(run_loss("cross_entropy_loss", LOGITS, np.array([1, -100, 0]), weight, SUM),
          2 * LN3 + LN6, rtol=1e-12)
    out = run_loss("cross_entropy_loss", LOGITS[1].astype(np.float32), np.array(2), reduction=NONE)
    assert out.shape == () and out.dtype == np.float32
    close(out, LN2)


def test_cross_entropy_label_smoothing_by_hand() -> None:
    eps = 0.3
    # Per sample: (1 - eps) nll + eps / C * sum_c -log q_c. The uniform row stays ln 3;
    # the other rows have sum_c -log q_c = ln 6 + ln 3 + ln 2 = ln 36.
    per_sample = [LN3, 0.7 * LN2 + 0.1 * math.log(36), 0.7 * LN6 + 0.1 * math.log(36)]
    close(run_loss("cross_entropy_loss", LOGITS, CLASSES, None, NONE, -100, eps), per_sample,
          rtol=1e-12)
    close(run_loss("cross_entropy_loss", LOGITS, CLASSES, None, MEAN, -100, eps),
          sum(per_sample) / 3, rtol=1e-12)
    # Ignored targets drop out of both parts; the mean counts the kept ones.
    close(run_loss("cross_entropy_loss", LOGITS, np.array([1, 2, -100]), None, MEAN, -100, eps),
          (per_sample[0] + per_sample[1]) / 2, rtol=1e-12)
    # Weighted: smoothing sums w_c (-log q_c); the mean divides by the kept targets' weights.
    w = np.array([1.0, 2.0, 3.0])
    smooth = [LN3 * 6, LN6 + 2 * LN3 + 3 * LN2]
    weighted = [0.7 * 2 * LN3 + 0.1 * smooth[0], 0.7 * 3 * LN2 + 0.1 * smooth[1]]
    close(run_loss("cross_entropy_loss", LOGITS, np.array([1, 2, -100]), w, MEAN, -100, eps),
          sum(weighted) / 5, rtol=1e-12)


def test_cross_entropy_unreduced_class_probabilities() -> None:
    one_hot = np.eye(3)[CLASSES]
    out = run_loss("cross_entropy_loss", LOGITS, one_hot, reduction=NONE)
    close(out, [LN3, LN2, LN6], rtol=1e-12)


def test_cross_entropy_with_class_probabilities() -> None:
    one_hot = np.eye(3)[CLASSES]
    close(run_loss("cross_entropy_loss", LOGITS, one_hot, reduction=NONE), [LN3, LN2, LN6],
          rtol=1e-12)
    close(run_loss("cross_entropy_loss", LOGITS, one_hot, reduction=SUM), LN3 + LN2 + LN6,
          rtol=1e-12)
    soft = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    per_sample = [LN3, 0.5 * (LN3 + LN2), LN6]
    close(run_loss("cross_entropy_loss", LOGITS, soft), sum(per_sample) / 3, rtol=1e-12)
    w = np.array([1.0, 2.0, 3.0])
    weighted = [0.5 * LN3 + 1.0 * LN3, 0.5 * 2 * LN3 + 0.5 * 3 * LN2, LN6]
    # With probabilities the mean divides by the sample count, not by a weight total.
    close(run_loss("cross_entropy_loss", LOGITS, soft, w), sum(weighted) / 3, rtol=1e-12)
    smoothed = run_loss("cross_entropy_loss", LOGITS, one_hot, None, SUM, -100, 0.3)
    close(smoothed, run_loss("cross_entropy_loss", LOGITS, CLASSES, None, SUM, -100, 0.3),
          rtol=1e-12)
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point"):
        KERNELS["cross_entropy_loss"](LOGITS, soft, None, MEAN, 0, 0.0)


def test_cross_entropy_spatial_and_empty() -> None:
    logits = rand(2, 3, 4, dtype=np.float64)  # [N, C, d]
    target = RNG.integers(0, 3, (2, 4))
    out = run_loss("cross_entropy_loss", logits, target, reduction=NONE)
    assert out.shape == (2, 4)
    for n in range(2):
        for d in range(4):
            row = logits[n, :, d]
            expected = -row[target[n, d]] + math.log(sum(math.exp(v) for v in row))
            close(out[n, d], expected, rtol=1e-12)
    empty = run_loss("cross_entropy_loss", rand(0, 3), np.zeros(0, np.int64))
    assert np.isnan(empty)
    half = run_loss("cross_entropy_loss", LOGITS.astype(np.float16), CLASSES)
    assert half.dtype == np.float16
    close(half, (LN3 + LN2 + LN6) / 3, rtol=2e-3)
