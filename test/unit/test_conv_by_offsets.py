"""Convolution by kernel offsets (interpreter/kernels/conv_by_offsets.py) and the
accumulating gemm under it (interpreter/blas.py), against a float64 direct sum
written from the definition: y[n, o, p] = sum_{c, k} w[o, c, k] * x_pad[n, c, p*s + k*d]."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from texport.interpreter import blas, prepacked
from texport.interpreter.kernels import conv_by_offsets, conv_pool

pytestmark = pytest.mark.skipif(not blas.available(np.dtype(np.float32)),
                                reason="numpy's BLAS has no cblas gemm texport can call")


def direct_sum(x: np.ndarray, w: np.ndarray, stride, pads, dilation) -> np.ndarray:
    n = w.ndim - 2
    padded = np.pad(x.astype(np.float64), [(0, 0), (0, 0), *pads])
    out = [(padded.shape[2 + i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1 for i in range(n)]
    y = np.zeros((x.shape[0], w.shape[0], *out))
    for k in itertools.product(*(range(size) for size in w.shape[2:])):
        window = tuple(slice(k[i] * dilation[i], k[i] * dilation[i] + stride[i] * (out[i] - 1) + 1, stride[i])
                       for i in range(n))
        tap = w[(slice(None), slice(None), *k)].astype(np.float64)
        y += np.einsum("oc,nc...->no...", tap, padded[(Ellipsis, *window)])
    return y


CASES = [
    # (batch, channels, outs, spatial, kernel, stride, dilation, pads)
    (1, 64, 8, (56, 56), (3, 3), (1, 1), (1, 1), [(1, 1), (1, 1)]),  # ResNet's 3x3
    (2, 17, 5, (15, 14), (3, 3), (2, 2), (1, 1), [(1, 1), (1, 1)]),  # odd sizes, stride 2
    (1, 16, 4, (20, 21), (5, 2), (2, 3), (2, 1), [(0, 1), (2, 0)]),  # asymmetric everything
    (3, 20, 6, (50,), (7,), (1,), (3,), [(9, 9)]),                    # 1-d, dilated
    (1, 16, 3, (6, 7, 8), (3, 2, 3), (1, 2, 1), (1, 1, 2), [(1, 1), (0, 0), (2, 2)]),  # 3-d
    (2, 16, 2, (4, 4), (4, 4), (3, 3), (1, 1), [(0, 0), (0, 0)]),     # one output position
]


@pytest.mark.parametrize(("batch", "channels", "outs", "spatial", "kernel", "stride", "dilation", "pads"), CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_the_direct_sum(batch, channels, outs, spatial, kernel, stride, dilation, pads, dtype) -> None:
    rng = np.random.default_rng(len(spatial) * 7 + channels)
    x = rng.standard_normal((batch, channels, *spatial)).astype(dtype)
    w = rng.standard_normal((outs, channels, *kernel)).astype(dtype)
    got = conv_by_offsets.convolution(x, w, stride, pads, dilation)
    want = direct_sum(x, w, stride, pads, dilation)
    assert got.shape == want.shape and got.dtype == dtype and got.flags.c_contiguous
    # float32: sums of up to 64*9 products of unit normals, each term rounded once
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-4 if dtype == np.float32 else 1e-11)


def test_a_strided_input_view() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 24, 13, 11)).astype(np.float32).transpose(0, 1, 3, 2)[:, ::2]
    w = rng.standard_normal((4, 12, 3, 3)).astype(np.float32)
    got = conv_by_offsets.convolution(x, w, (1, 2), [(1, 0), (0, 2)], (2, 1))
    np.testing.assert_allclose(got, direct_sum(x, w, (1, 2), [(1, 0), (0, 2)], (2, 1)), atol=1e-4)


def test_the_kernel_takes_it_where_it_wins_and_im2col_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """convolution() goes by offsets for a wide multi-channel 3x3 (and gives the
    direct sum's numbers), by im2col for 3 channels, 7x7 rows, small windows or groups."""
    calls = []
    real = conv_by_offsets.convolution
    monkeypatch.setattr(conv_by_offsets, "convolution", lambda *a: calls.append(a) or real(*a))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 64, 40, 40)).astype(np.float32)
    w = rng.standard_normal((16, 64, 3, 3)).astype(np.float32)
    got = conv_pool.convolution(x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    assert len(calls) == 1
    np.testing.assert_allclose(got, direct_sum(x, w, (1, 1), [(1, 1), (1, 1)], (1, 1)), atol=1e-4)
    def normal(shape):
        return rng.standard_normal(shape).astype(np.float32)

    elsewhere = [
        (normal((1, 3, 64, 64)), normal((8, 3, 3, 3)), 1),            # 3 channels
        (normal((1, 64, 7, 7)), normal((8, 64, 3, 3)), 1),            # rows widen by 9/7
        (normal((1, 128, 14, 14)), normal((8, 128, 3, 3)), 1),        # 128 x 14 x 16: small gemms
        (normal((1, 32, 28, 28)), normal((32, 1, 3, 3)), 32),         # depthwise
    ]
    for x, w, groups in elsewhere:
        conv_pool.convolution(x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], groups)
    assert len(calls) == 1


def test_a_written_weight_is_packed_again() -> None:
    """The weight's by-offset copy (interpreter/prepacked.py) is dropped when the weight is written."""
    prepacked.clear()
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 16, 16, 16)).astype(np.float32)
    w = rng.standard_normal((4, 16, 3, 3)).astype(np.float32)
    first = conv_by_offsets.convolution(x, w, (1, 1), [(1, 1), (1, 1)], (1, 1))
    w *= 2
    prepacked.note_written(w)
    second = conv_by_offsets.convolution(x, w, (1, 1), [(1, 1), (1, 1)], (1, 1))
    np.testing.assert_allclose(second, 2 * first, rtol=1e-6, atol=1e-5)
    prepacked.clear()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gemm_into_adds_a_product_of_windows(dtype) -> None:
    rng = np.random.default_rng(11)
    big = rng.standard_normal((9, 40)).astype(dtype)
    a, b = big[1:4, 2:7], big[3:8, 10:30]  # windows: rows of 40 elements
    c = rng.standard_normal((3, 25)).astype(dtype)
    before = c.copy()
    blas.gemm_into(a, b, c[:, 5:25], accumulate=True)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c[:, 5:25], before[:, 5:25] + exact, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(c[:, :5], before[:, :5])  # outside the window: untouched
    blas.gemm_into(a, b, c[:, 5:25], accumulate=False)
    np.testing.assert_allclose(c[:, 5:25], exact, rtol=1e-5, atol=1e-5)
    kept_transposed = big[:, 10:30].T.copy()[:, 3:8]  # [N, K]: b as a Linear keeps its weight
    blas.gemm_into(a, kept_transposed, c[:, 5:25], accumulate=False, transpose_b=True)
    np.testing.assert_allclose(c[:, 5:25], exact, rtol=1e-5, atol=1e-5)


def test_gemm_into_refuses_what_it_cannot_read() -> None:
    a = np.ones((4, 6), np.float32)
    with pytest.raises(ValueError, match="unit steps along its rows"):
        blas.gemm_into(a[:, ::2], np.ones((3, 2), np.float32), np.empty((4, 2), np.float32), False)
    with pytest.raises(ValueError, match=r"\[M, K\] @ \[K, N\]"):
        blas.gemm_into(a, np.ones((5, 2), np.float32), np.empty((4, 2), np.float32), False)
    with pytest.raises(ValueError, match="one dtype"):
        blas.gemm_into(a, np.ones((6, 2)), np.empty((4, 2), np.float32), False)
