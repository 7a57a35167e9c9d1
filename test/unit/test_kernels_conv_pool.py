"""numpy kernels for convolution, pooling, resampling, grid sampling, padding and
pixel shuffle, each against an independent reference: direct Python loops on tiny
inputs, hand-computed numbers, or finite differences of the forward kernel.

Every call goes through kernel_checks.run, which also checks the op's shape rule."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from kernel_checks import run

RNG = np.random.default_rng(0)


def rand(*shape: int, dtype: Any = np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def close(actual: np.ndarray, expected: Any, tol: float = 1e-10) -> None:
    np.testing.assert_allclose(actual, np.asarray(expected, dtype=np.float64), rtol=tol, atol=tol)


# ------------------------------------------------------- naive references


def naive_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: Sequence[int],
               padding: Sequence[int], dilation: Sequence[int], groups: int) -> np.ndarray:
    """Direct definition, one output element at a time (any spatial rank)."""
    n_batch, c_in = x.shape[:2]
    c_out, c_group = w.shape[:2]
    kernel, spatial = w.shape[2:], x.shape[2:]
    out_sizes = [(s + 2 * p - d * (k - 1) - 1) // st + 1
                 for s, p, d, k, st in zip(spatial, padding, dilation, kernel, stride)]
    out = np.zeros((n_batch, c_out, *out_sizes))
    per_group = c_out // groups
    for n, o in itertools.product(range(n_batch), range(c_out)):
        g = o // per_group
        for pos in itertools.product(*map(range, out_sizes)):
            acc = 0.0 if b is None else float(b[o])
            for c in range(c_group):
                for k in itertools.product(*map(range, kernel)):
                    src = [q * st - p + kk * d for q, st, p, kk, d in
                           zip(pos, stride, padding, k, dilation)]
                    if all(0 <= s_ < size for s_, size in zip(src, spatial)):
                        acc += x[(n, g * c_group + c, *src)] * w[(o, c, *k)]
            out[(n, o, *pos)] = acc
    return out


def naive_conv_transpose(x: np.ndarray, w: np.ndarray, b: np.ndarray | None,
                         stride: Sequence[int], padding: Sequence[int],
                         output_padding: Sequence[int], dilation: Sequence[int],
                         groups: int) -> np.ndarray:
    """The scatter-add definition: x[n, c, s] * w[c, o, k] lands at s*stride - pad + k*dil."""
    n_batch, c_in = x.shape[:2]
    per_group_out, kernel, spatial = w.shape[1], w.shape[2:], x.shape[2:]
    c_group = c_in // groups
    sizes = [(s - 1) * st - 2 * p + d * (k - 1) + op + 1 for s, st, p, d, k, op in
             zip(spatial, stride, padding, dilation, kernel, output_padding)]
    out = np.zeros((n_batch, groups * per_group_out, *sizes))
    for n, c in itertools.product(range(n_batch), range(c_in)):
        g = c // c_group
        for s in itertools.product(*map(range, spatial)):
            for o in range(per_group_out):
                for k in itertools.product(*map(range, kernel)):
                    dst = [q * st - p + kk * d for q, st, p, kk, d in
                           zip(s, stride, padding, k, dilation)]
                    if all(0 <= t < size for t, size in zip(dst, sizes)):
                        out[(n, g * per_group_out + o, *dst)] += x[(n, c, *s)] * w[(c, o, *k)]
    if b is not None:
        out += b.reshape(-1, *([1] * len(sizes)))
    return out


def numeric_grad(f: Callable[[np.ndarray], float], x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central finite differences of a scalar function of x (float64)."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        saved = x[i]
        x[i] = saved + h
        up = f(x)
        x[i] = saved - h
        down = f(x)
        x[i] = saved
        grad[i] = (up - down) / (2 * h)
    return grad


# ------------------------------------------------------------ convolution

CONV2D_CASES = [
    # stride, padding, dilation, groups
    ([1, 1], [0, 0], [1, 1], 1),
    ([2, 1], [1, 0], [1, 1], 1),
    ([1, 2], [2, 1], [2, 1], 1),
    ([2, 2], [1, 1], [1, 2], 2),
    ([3, 1], [0, 2], [1, 1], 2),
]


@pytest.mark.parametrize(("stride", "padding", "dilation", "groups"), CONV2D_CASES)
@pytest.mark.parametrize("with_bias", [False, True])
def test_convolution_2d_matches_direct_loops(stride: list[int], padding: list[int],
                                             dilation: list[int], groups: int,
                                             with_bias: bool) -> None:
    x = rand(1, 2, 5, 5)
    w = rand(4, 2 // groups, 3, 2)
    b = rand(4) if with_bias else None
    out = run("convolution", x, w, b, stride, padding, dilation, False, [0, 0], groups)
    close(out, naive_conv(x, w, b, stride, padding, dilation, groups))


def test_convolution_1d_and_3d_match_direct_loops() -> None:
    x1, w1, b1 = rand(2, 3, 7), rand(6, 1, 3), rand(6)
    close(run("convolution", x1, w1, b1, [2], [1], [2], False, [0], 3),
          naive_conv(x1, w1, b1, [2], [1], [2], 3))
    x3, w3 = rand(1, 2, 4, 3, 5), rand(2, 2, 2, 2, 3)
    close(run("convolution", x3, w3, None, [1, 2, 1], [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 1),
          naive_conv(x3, w3, None, [1, 2, 1], [1, 0, 1], [1, 1, 2], 1))


@pytest.mark.parametrize(("stride", "padding", "dilation", "groups"), CONV2D_CASES)
@pytest.mark.parametrize("block_bytes", [1, 200, 1000])
def test_convolution_in_row_blocks_matches_direct_loops(monkeypatch: pytest.MonkeyPatch, stride: list[int],
                                                        padding: list[int], dilation: list[int], groups: int,
                                                        block_bytes: int) -> None:
    """An im2col over IM2COL_BLOCK_BYTES is built and multiplied a block of output rows
    at a time (one row when a row alone is over the budget): the same result."""
    from texport.interpreter.kernels import conv_pool

    monkeypatch.setattr(conv_pool, "IM2COL_BLOCK_BYTES", block_bytes)
    x, w, b = rand(2, 2, 7, 6), rand(4, 2 // groups, 3, 2), rand(4)
    out = run("convolution", x, w, b, stride, padding, dilation, False, [0, 0], groups)
    close(out, naive_conv(x, w, b, stride, padding, dilation, groups))
    x3, w3 = rand(1, 2, 5, 3, 4), rand(2, 2, 2, 2, 3)
    close(run("convolution", x3, w3, None, [1, 2, 1], [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 1),
          naive_conv(x3, w3, None, [1, 2, 1], [1, 0, 1], [1, 1, 2], 1))


def test_large_convolution_holds_at_most_one_block_of_columns() -> None:
    """ResNet18's first convolution (3 -> 64 channels, 7x7, stride 2 on 224x224): its whole
    im2col would be 7.4 MB; the kernel's peak is the output (3.2 MB), the padded input
    and one block of columns."""
    import tracemalloc

    from texport.interpreter.kernels import KERNELS, conv_pool

    x = RNG.standard_normal((1, 3, 224, 224)).astype(np.float32)
    w = RNG.standard_normal((64, 3, 7, 7)).astype(np.float32)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = KERNELS["convolution"](x, w, None, [2, 2], [3, 3], [1, 1], False, [0, 0], 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    padded = 3 * 230 * 230 * 4
    assert peak <= out.nbytes + padded + 2 * conv_pool.IM2COL_BLOCK_BYTES + 64 * 1024
    assert peak < 3 * 49 * 112 * 112 * 4  # below one whole-image im2col


@pytest.mark.parametrize(("stride", "groups"), [([1, 1], 1), ([2, 3], 1), ([1, 1], 2), ([2, 1], 3)])
def test_pointwise_convolution_matches_direct_loops(stride: list[int], groups: int) -> None:
    """A 1x1 unpadded conv runs on the input itself (no im2col): same as the definition."""
    x, w, b = rand(2, 6, 5, 4), rand(6, 6 // groups, 1, 1), rand(6)
    out = run("convolution", x, w, b, stride, [0, 0], [1, 1], False, [0, 0], groups)
    close(out, naive_conv(x, w, b, stride, [0, 0], [1, 1], groups))
    x1, w1 = rand(1, 4, 7), rand(2, 4, 1)
    close(run("convolution", x1, w1, None, [3], [0], [2], False, [0], 1),
          naive_conv(x1, w1, None, [3], [0], [2], 1))
    x32, w32 = rand(1, 3, 4, 4, dtype=np.float32), rand(5, 3, 1, 1, dtype=np.float32)
    out32 = run("convolution", x32, w32, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    assert out32.dtype == np.float32 and out32.flags.c_contiguous
    close(out32, naive_conv(x32.astype(np.float64), w32.astype(np.float64), None, [1, 1], [0, 0], [1, 1], 1),
          tol=1e-5)


@pytest.mark.parametrize(("stride", "padding", "output_padding", "dilation", "groups"), [
    ([1, 1], [0, 0], [0, 0], [1, 1], 1),
    ([2, 2], [1, 0], [1, 0], [1, 1], 1),
    ([2, 3], [0, 1], [0, 2], [1, 2], 2),
    ([1, 2], [2, 1], [0, 1], [2, 1], 2),
])
def test_transposed_convolution_matches_scatter_definition(
    stride: list[int], padding: list[int], output_padding: list[int], dilation: list[int],
    groups: int,
) -> None:
    x, w, b = rand(2, 4, 3, 4), rand(4, 3, 3, 2), rand(3 * groups)
    out = run("convolution", x, w, b, stride, padding, dilation, True, output_padding, groups)
    close(out, naive_conv_transpose(x, w, b, stride, padding, output_padding, dilation, groups))


def test_conv_transpose_1d_and_3d_ops() -> None:
    x, w = rand(1, 2, 4), rand(2, 3, 3)
    close(run("conv_transpose1d", x, w, None, [2], [1], [1]),
          naive_conv_transpose(x, w, None, [2], [1], [1], [1], 1))
    x3, w3, b3 = rand(1, 2, 2, 3, 2), rand(2, 1, 2, 2, 3), rand(2)
    close(run("conv_transpose3d.input", x3, w3, b3, [2, 1, 1], [0, 1, 1], [1, 0, 0], 2),
          naive_conv_transpose(x3, w3, b3, [2, 1, 1], [0, 1, 1], [1, 0, 0], [1, 1, 1], 2))
    # unbatched input [C, L] is run with N=1
    out = run("conv_transpose2d.input", x3[0, :, 0], w3[:, :, 0], None, [2, 1])
    close(out, naive_conv_transpose(x3[:, :, 0], w3[:, :, 0], None, [2, 1], [0, 0], [0, 0],
                                    [1, 1], 1)[0])


def test_conv_nd_defaults_unbatched_and_broadcast_int_args() -> None:
    x, w, b = rand(1, 2, 5, 5), rand(3, 2, 3, 3), rand(3)
    close(run("conv2d", x, w, b), naive_conv(x, w, b, [1, 1], [0, 0], [1, 1], 1))
    close(run("conv2d", x[0], w, b, [2], [1]), naive_conv(x, w, b, [2, 2], [1, 1], [1, 1], 1)[0])
    x1, w1 = rand(2, 4, 6), rand(4, 2, 2)
    close(run("conv1d", x1, w1, None, [1], [1], [2], 2), naive_conv(x1, w1, None, [1], [1], [2], 2))
    x3, w3 = rand(1, 1, 3, 4, 3), rand(2, 1, 2, 2, 2)
    close(run("conv3d", x3, w3), naive_conv(x3, w3, None, [1] * 3, [0] * 3, [1] * 3, 1))


def test_conv_padding_same_pads_odd_remainder_on_the_right() -> None:
    x, w = rand(1, 2, 5, 6), rand(3, 2, 2, 4)  # totals (1, 3): pads (0|1, 1|2)
    out = run("conv2d.padding", x, w, None, [1, 1], "same")
    assert out.shape == (1, 3, 5, 6)
    padded = np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 2)])
    close(out, naive_conv(padded, w, None, [1, 1], [0, 0], [1, 1], 1))
    # with dilation: total d*(k-1) = 4 -> symmetric 2|2
    x1, w1 = rand(2, 4), rand(2, 2, 3)
    out1 = run("conv1d.padding", x1, w1, None, [1], "same", [2])
    close(out1, naive_conv(x1[None], w1, None, [1], [2], [2], 1)[0])
    valid = run("conv3d.padding", rand(1, 1, 3, 3, 3), rand(1, 1, 2, 2, 2), None, [1] * 3, "valid")
    assert valid.shape == (1, 1, 2, 2, 2)


def test_conv_float16_accumulates_in_float32_and_float32_stays() -> None:
    x, w = rand(1, 8, 6, 6), rand(4, 8, 3, 3)
    expect = naive_conv(x, w, None, [1, 1], [1, 1], [1, 1], 1)
    out16 = run("convolution", x.astype(np.float16), w.astype(np.float16), None,
                [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    assert out16.dtype == np.float16
    rounded = naive_conv(x.astype(np.float16).astype(np.float64),
                         w.astype(np.float16).astype(np.float64), None, [1, 1], [1, 1], [1, 1], 1)
    np.testing.assert_allclose(out16, rounded, rtol=2e-3, atol=2e-3)
    out32 = run("conv2d", x.astype(np.float32), w.astype(np.float32), None, [1, 1], [1, 1])
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, expect, rtol=1e-5, atol=1e-5)


def test_conv_non_contiguous_inputs() -> None:
    base = rand(1, 5, 7, 2)
    x = base.transpose(0, 3, 1, 2)[:, :, ::-1, ::2]  # [1, 2, 5, 4], negative and step strides
    w = rand(3, 2, 3, 4).transpose(0, 1, 3, 2)
    assert not x.flags.c_contiguous and not w.flags.c_contiguous
    out = run("convolution", x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    close(out, naive_conv(np.ascontiguousarray(x), np.ascontiguousarray(w), None,
                          [1, 1], [1, 1], [1, 1], 1))
    assert not np.shares_memory(out, base)


def test_conv_size_one_dims() -> None:
    x, w = rand(1, 1, 1, 5), rand(2, 1, 1, 1)
    close(run("conv2d", x, w), naive_conv(x, w, None, [1, 1], [0, 0], [1, 1], 1))


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize(("stride", "padding", "dilation", "groups", "output_padding"), [
    ([1, 1], [0, 0], [1, 1], 1, [0, 0]),
    ([2, 1], [1, 1], [1, 2], 2, [1, 0]),
    ([1, 1], [0, 1], [2, 2], 1, [1, 1]),  # transposed: output_padding >= stride (< dilation)
])
def test_convolution_backward_matches_finite_differences(
    transposed: bool, stride: list[int], padding: list[int], dilation: list[int], groups: int,
    output_padding: list[int],
) -> None:
    x = rand(2, 4, 4, 5)
    w = rand(4, 3, 2, 3) if transposed else rand(6, 4 // groups, 2, 3)
    op = output_padding if transposed else [0, 0]
    b = rand(3 * groups if transposed else 6)

    def forward(x_: np.ndarray, w_: np.ndarray, b_: np.ndarray) -> np.ndarray:
        return run("convolution", x_, w_, b_, stride, padding, dilation, transposed, op, groups)

    probe = rand(*forward(x, w, b).shape)
    gi, gw, gb = run("convolution_backward", probe, x, w, [b.size], stride, padding, dilation,
                     transposed, op, groups, [True, True, True])
    close(gi, numeric_grad(lambda v: float((forward(v, w, b) * probe).sum()), x), 1e-6)
    close(gw, numeric_grad(lambda v: float((forward(x, v, b) * probe).sum()), w), 1e-6)
    close(gb, numeric_grad(lambda v: float((forward(x, w, v) * probe).sum()), b), 1e-6)


def test_convolution_backward_output_mask_and_1d() -> None:
    x, w = rand(1, 2, 6), rand(3, 2, 3)
    probe = rand(1, 3, 2)
    gi, gw, gb = run("convolution_backward", probe, x, w, None, [2], [0], [1], False, [0], 1,
                     [False, True, False])
    assert gi is None and gb is None

    def loss(v: np.ndarray) -> float:
        return float((run("convolution", x, v, None, [2], [0], [1], False, [0], 1) * probe).sum())

    close(gw, numeric_grad(loss, w), 1e-6)
    f32 = run("convolution_backward", probe.astype(np.float32), x.astype(np.float32),
              w.astype(np.float32), [3], [2], [0], [1], False, [0], 1, [True, False, True])
    assert f32[0].dtype == np.float32 and f32[1] is None
    close(f32[2], probe.sum(axis=(0, 2)), 1e-6)


# ---------------------------------------------------------------- pooling


def naive_max_pool2d(x: np.ndarray, kernel: Sequence[int], stride: Sequence[int],
                     padding: Sequence[int], dilation: Sequence[int],
                     out_sizes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """torch's CPU loop: start at the first in-bounds element, take val > best or a NaN."""
    h, w = x.shape[-2:]
    values = np.zeros((*x.shape[:-2], *out_sizes), dtype=x.dtype)
    indices = np.zeros(values.shape, dtype=np.int64)
    for lead in np.ndindex(x.shape[:-2]):
        for oh, ow in itertools.product(*map(range, out_sizes)):
            rows = [oh * stride[0] - padding[0] + i * dilation[0] for i in range(kernel[0])]
            cols = [ow * stride[1] - padding[1] + j * dilation[1] for j in range(kernel[1])]
            best, where = None, None
            for r, c in itertools.product(rows, cols):
                if 0 <= r < h and 0 <= c < w:
                    v = x[(*lead, r, c)]
                    if best is None or v > best or math.isnan(v):
                        best, where = v, r * w + c
            values[(*lead, oh, ow)], indices[(*lead, oh, ow)] = best, where
    return values, indices


@pytest.mark.parametrize(("kernel", "stride", "padding", "dilation", "ceil_mode"), [
    ([3, 3], [2, 2], [1, 1], [1, 1], False),
    ([2, 3], [3, 2], [1, 1], [2, 1], True),
    ([3, 2], [2, 3], [0, 1], [1, 2], True),
])
def test_phased_max_pool_matches_the_loop(monkeypatch: pytest.MonkeyPatch, kernel: list[int], stride: list[int],
                                          padding: list[int], dilation: list[int], ceil_mode: bool) -> None:
    """Strided pools of large inputs read stride-phase planes built from x (padding filled
    in): forced on a small input, the values equal torch's loop."""
    from texport.interpreter.kernels import conv_pool

    monkeypatch.setattr(conv_pool, "_PHASED_POOL_SIZE", 0)
    x = rand(2, 3, 9, 11, dtype=np.float32)
    values, _ = run("max_pool2d_with_indices", x, kernel, stride, padding, dilation, ceil_mode)
    want, _ = naive_max_pool2d(x, kernel, stride, padding, dilation, values.shape[-2:])
    np.testing.assert_array_equal(values, want)
    np.testing.assert_array_equal(run("max_pool2d", x, kernel, stride, padding, dilation, ceil_mode), want)


def test_max_pool2d_hand_computed() -> None:
    x = np.array([[[[1, 5, 2, 0], [3, 4, 8, 7], [6, 0, 1, 2], [9, 3, 4, 5]]]], dtype=np.float32)
    values, indices = run("max_pool2d_with_indices", x, [2, 2])
    close(values, [[[[5, 8], [9, 5]]]])
    np.testing.assert_array_equal(indices, [[[[1, 6], [12, 15]]]])
    assert indices.dtype == np.int64
    close(run("max_pool2d", x, [2, 2]), values)


def test_max_pool2d_ceil_mode_keeps_partial_last_window() -> None:
    x = np.arange(25, dtype=np.float64).reshape(1, 1, 5, 5)
    floor_ = run("max_pool2d", x, [2, 2], [2, 2])
    ceil_ = run("max_pool2d_with_indices", x, [2, 2], [2, 2], [0, 0], [1, 1], True)
    close(floor_, [[[[6, 8], [16, 18]]]])
    close(ceil_[0], [[[[6, 8, 9], [16, 18, 19], [21, 23, 24]]]])
    np.testing.assert_array_equal(ceil_[1], [[[[6, 8, 9], [16, 18, 19], [21, 23, 24]]]])
    # a window starting in the right padding is dropped: size 4, k 2, s 2, pad 1 -> 3, not 4
    assert run("max_pool2d", rand(1, 4, 4), [2, 2], [2, 2], [1, 1], [1, 1], True).shape == (1, 3, 3)


@pytest.mark.parametrize(("kernel", "stride", "padding", "dilation", "ceil_mode"), [
    ([3, 3], [1, 1], [1, 1], [1, 1], False),
    ([3, 2], [2, 1], [1, 1], [1, 2], True),
    ([2, 3], [3, 2], [0, 1], [2, 1], True),
])
def test_max_pool2d_with_indices_matches_loops(kernel: list[int], stride: list[int],
                                               padding: list[int], dilation: list[int],
                                               ceil_mode: bool) -> None:
    x = rand(2, 3, 7, 6)
    values, indices = run("max_pool2d_with_indices", x, kernel, stride, padding, dilation,
                          ceil_mode)
    expect_v, expect_i = naive_max_pool2d(x, kernel, stride, padding, dilation, values.shape[-2:])
    close(values, expect_v)
    np.testing.assert_array_equal(indices, expect_i)
    # the values-only pool (one spatial axis at a time) gives the same maxima
    close(run("max_pool2d", x, kernel, stride, padding, dilation, ceil_mode), expect_v)


def test_max_pool2d_with_indices_ties_pick_the_first_maximum() -> None:
    """Many equal maxima (small integers as floats), with and without padding: the index is
    the first maximum in window order, as torch's loop (``val > max``) keeps it."""
    x = np.round(rand(2, 3, 8, 7) * 0.7)
    for kernel, stride, padding in (([3, 3], [2, 2], [1, 1]), ([2, 3], [1, 2], [0, 1]), ([3, 2], [1, 1], [0, 0])):
        values, indices = run("max_pool2d_with_indices", x, kernel, stride, padding, [1, 1], False)
        expect_v, expect_i = naive_max_pool2d(x, kernel, stride, padding, [1, 1], values.shape[-2:])
        close(values, expect_v)
        np.testing.assert_array_equal(indices, expect_i)


def test_max_pool_nan_and_all_minus_inf_windows() -> None:
    x = np.array([[[-np.inf, -np.inf, 1.0], [np.nan, 2.0, np.nan]]])
    values, indices = run("max_pool2d_with_indices", x, [2, 2], [1, 1], [1, 1])
    expect_v, expect_i = naive_max_pool2d(x, [2, 2], [1, 1], [1, 1], [1, 1], values.shape[-2:])
    np.testing.assert_array_equal(values, expect_v)  # NaN compares equal here
    np.testing.assert_array_equal(run("max_pool2d", x, [2, 2], [1, 1], [1, 1]), expect_v)
    np.testing.assert_array_equal(indices, expect_i)
    assert indices[0, 0, 0] == 0  # all -inf window: its first in-bounds element, not padding
    _, two_nans = run("max_pool2d_with_indices", x, [1, 3])
    assert two_nans[0, 1, 0] == 5  # a window with two NaNs: torch's loop keeps the last
    ax = np.array([[1.0, np.nan, 3.0, np.nan, 0.0]])
    av, ai = run("adaptive_max_pool1d", ax, [1])
    assert np.isnan(av[0, 0]) and ai[0, 0] == 3


def test_max_pool_1d_3d_and_integers() -> None:
    x = rand(2, 9)
    out = run("max_pool1d", x, [3], [2], [1])
    padded = np.pad(x, [(0, 0), (1, 1)], constant_values=-np.inf)
    close(out, np.stack([padded[:, i:i + 3].max(axis=1) for i in range(0, 9, 2)], axis=1))
    x3 = rand(1, 2, 4, 5, 3)
    values, indices = run("max_pool3d_with_indices", x3, [2, 2, 2], [2, 2, 1], [0, 1, 1],
                          [1, 1, 1], True)
    for c, d, h, w in np.ndindex(values.shape[1:]):
        window = {(dd, hh, ww): x3[0, c, dd, hh, ww]
                  for dd in range(2 * d, 2 * d + 2) for hh in range(2 * h - 1, 2 * h + 1)
                  for ww in range(w - 1, w + 1)
                  if dd < 4 and 0 <= hh < 5 and 0 <= ww < 3}
        best = max(window, key=lambda k: window[k])
        assert values[0, c, d, h, w] == window[best]
        assert indices[0, c, d, h, w] == (best[0] * 5 + best[1]) * 3 + best[2]
    close(run("max_pool3d", x3, [2, 2, 2], [2, 2, 1], [0, 1, 1], [1, 1, 1], True), values)
    ints = np.array([[[3, -7, 2, 9]]], dtype=np.int64)
    out_i = run("max_pool2d", ints, [1, 2], [1, 2], [0, 1])
    np.testing.assert_array_equal(out_i, [[[3, 2, 9]]])
    assert out_i.dtype == np.int64


def test_pools_and_resampling_accept_non_contiguous_views() -> None:
    base = rand(6, 5, 2, 3)
    x = base.transpose(3, 2, 0, 1)[:, :, ::-1]  # [3, 2, 6, 5] with a negative stride
    xc = np.ascontiguousarray(x)
    for op, args in (("max_pool2d_with_indices", ([3, 2], [2, 1], [1, 1], [1, 1], True)),
                     ("avg_pool2d", ([3, 2], [2, 1], [1, 0], True, False)),
                     ("adaptive_avg_pool2d", ([4, 3],)),
                     ("upsample_bilinear2d", ([7, 9], False)),
                     ("reflection_pad2d", ([1, 2, 3, 0],))):
        got, want = run(op, x, *args), run(op, xc, *args)
        for g, w_ in zip(got if isinstance(got, tuple) else (got,),
                         want if isinstance(want, tuple) else (want,)):
            np.testing.assert_array_equal(g, w_)
            assert not np.shares_memory(g, base)


def test_max_pool2d_with_indices_backward_routes_to_argmax() -> None:
    x = rand(2, 2, 5, 5)
    args = ([3, 3], [2, 2], [1, 1], [1, 1], True)
    values, indices = run("max_pool2d_with_indices", x, *args)
    probe = rand(*values.shape)
    grad = run("max_pool2d_with_indices_backward", probe, x, *args, indices)
    expect = np.zeros_like(x)
    for i in np.ndindex(values.shape):
        r, c = divmod(int(indices[i]), 5)
        expect[(*i[:2], r, c)] += probe[i]
    close(grad, expect)
    numeric = numeric_grad(
        lambda v: float((run("max_pool2d", v, *args) * probe).sum()), x.copy())
    close(grad, numeric, 1e-6)


def naive_avg_pool2d(x: np.ndarray, kernel: Sequence[int], stride: Sequence[int],
                     padding: Sequence[int], ceil_mode: bool, count_include_pad: bool,
                     divisor_override: int | None, out_sizes: Sequence[int]) -> np.ndarray:
    h, w = x.shape[-2:]
    out = np.zeros((*x.shape[:-2], *out_sizes))
    for lead in np.ndindex(x.shape[:-2]):
        for oh, ow in itertools.product(*map(range, out_sizes)):
            r0, c0 = oh * stride[0] - padding[0], ow * stride[1] - padding[1]
            r1, c1 = min(r0 + kernel[0], h + padding[0]), min(c0 + kernel[1], w + padding[1])
            pool_size = (r1 - r0) * (c1 - c0)
            r0, c0, r1, c1 = max(r0, 0), max(c0, 0), min(r1, h), min(c1, w)
            total = x[(*lead, slice(r0, r1), slice(c0, c1))].sum()
            count = pool_size if count_include_pad else (r1 - r0) * (c1 - c0)
            out[(*lead, oh, ow)] = total / (divisor_override or count)
    return out


@pytest.mark.parametrize(("kernel", "stride", "padding", "ceil_mode", "include", "override"), [
    ([2, 2], [2, 2], [0, 0], False, True, None),
    ([3, 3], [2, 2], [1, 1], True, True, None),
    ([3, 3], [2, 2], [1, 1], True, False, None),
    ([3, 2], [2, 1], [1, 1], False, False, 5),
    ([2, 3], [3, 3], [1, 0], True, True, None),
])
def test_avg_pool2d_matches_loops(kernel: list[int], stride: list[int], padding: list[int],
                                  ceil_mode: bool, include: bool, override: int | None) -> None:
    x = rand(2, 3, 6, 7)
    out = run("avg_pool2d", x, kernel, stride, padding, ceil_mode, include, override)
    close(out, naive_avg_pool2d(x, kernel, stride, padding, ceil_mode, include, override,
                                out.shape[-2:]))


def test_avg_pool_hand_computed_1d_3d_float16() -> None:
    x = np.array([[[1.0, 2.0, 3.0, 4.0, 5.0]]])
    close(run("avg_pool1d", x, [2], [2], [1], False, True), [[[0.5, 2.5, 4.5]]])
    close(run("avg_pool1d", x, [2], [2], [1], False, False), [[[1.0, 2.5, 4.5]]])
    close(run("avg_pool1d", x, [2], [2], [0], True, True), [[[1.5, 3.5, 5.0]]])
    x3 = rand(1, 2, 4, 4, 4)
    out3 = run("avg_pool3d", x3, [2, 2, 2])
    close(out3, x3.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean(axis=(3, 5, 7)))
    ints = run("avg_pool2d", np.array([[[-3, -4, 5, 6]]], dtype=np.int64), [1, 2])
    np.testing.assert_array_equal(ints, [[[-3, 5]]])  # C++ division truncates toward zero
    assert ints.dtype == np.int64
    negative = run("avg_pool2d", np.array([[[-7, 1, 5, 6]]], dtype=np.int64), [1, 2], [], 0, False, True, -4)
    np.testing.assert_array_equal(negative, [[[1, -2]]])  # -6 / -4 = 1.5 -> 1; 11 / -4 = -2.75 -> -2
    half = run("avg_pool2d", np.full((1, 2, 4), 1000.0, dtype=np.float16), [2, 2])
    assert half.dtype == np.float16
    close(half, np.full((1, 1, 2), 1000.0))


@pytest.mark.parametrize("args", [
    ([3, 2], [2, 2], [1, 1], True, True, None),
    ([3, 3], [2, 1], [1, 0], True, False, None),
    ([2, 2], [1, 2], [0, 1], False, True, 3),
])
def test_avg_pool2d_backward_matches_finite_differences(args: tuple[Any, ...]) -> None:
    x = rand(1, 2, 5, 6)
    probe = rand(*run("avg_pool2d", x, *args).shape)
    grad = run("avg_pool2d_backward", probe, x, *args)
    numeric = numeric_grad(lambda v: float((run("avg_pool2d", v, *args) * probe).sum()), x.copy())
    close(grad, numeric, 1e-6)


def naive_adaptive(x: np.ndarray, sizes: Sequence[int], reduce: Callable[..., Any]) -> np.ndarray:
    n = len(sizes)
    spatial = x.shape[-n:]
    out = np.zeros((*x.shape[:-n], *sizes))
    for lead in np.ndindex(x.shape[:-n]):
        for pos in itertools.product(*map(range, sizes)):
            box = tuple(slice(i * s // o, -(-(i + 1) * s // o)) for i, s, o in
                        zip(pos, spatial, sizes))
            out[(*lead, *pos)] = reduce(x[(*lead, *box)])
    return out


@pytest.mark.parametrize(("shape", "sizes"), [((2, 3, 7, 5), [3, 2]), ((3, 5, 5), [5, 7]),
                                              ((1, 1, 4, 4), [1, 1])])
def test_adaptive_avg_pool2d_matches_loops(shape: tuple[int, ...], sizes: list[int]) -> None:
    x = rand(*shape)
    for op in ("adaptive_avg_pool2d", "_adaptive_avg_pool2d"):
        close(run(op, x, sizes), naive_adaptive(x, sizes, np.mean))


def test_adaptive_avg_pool_1d_3d_and_dtype() -> None:
    x1 = rand(2, 3, 10)
    close(run("adaptive_avg_pool1d", x1, [4]), naive_adaptive(x1, [4], np.mean))
    x3 = rand(1, 2, 5, 4, 3)
    for op in ("adaptive_avg_pool3d", "_adaptive_avg_pool3d"):
        close(run(op, x3, [2, 3, 2]), naive_adaptive(x3, [2, 3, 2], np.mean))
    f32 = (rand(1, 2, 9, 9) + 1000).astype(np.float32)  # large offset: prefix sums stay exact
    out = run("adaptive_avg_pool2d", f32, [4, 4])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, naive_adaptive(f32.astype(np.float64), [4, 4], np.mean),
                               rtol=1e-6)


def test_adaptive_avg_pool2d_backward_matches_finite_differences() -> None:
    x = rand(2, 5, 7)
    probe = rand(2, 3, 4)
    grad = run("_adaptive_avg_pool2d_backward", probe, x)
    numeric = numeric_grad(lambda v: float((run("_adaptive_avg_pool2d", v, [3, 4]) * probe).sum()),
                           x.copy())
    close(grad, numeric, 1e-6)


def test_adaptive_max_pool_matches_loops() -> None:
    x = rand(2, 3, 7, 5)
    values, indices = run("adaptive_max_pool2d", x, [3, 4])
    close(values, naive_adaptive(x, [3, 4], np.max))
    np.testing.assert_array_equal(np.take_along_axis(x.reshape(2, 3, -1),
                                                     indices.reshape(2, 3, -1), 2),
                                  values.reshape(2, 3, -1))
    np.testing.assert_array_equal(indices, _adaptive_argmax(x, [3, 4]))
    x1 = rand(2, 10)
    v1, i1 = run("adaptive_max_pool1d", x1, [3])
    close(v1, naive_adaptive(x1, [3], np.max))
    np.testing.assert_array_equal(np.take_along_axis(x1, i1, 1), v1)


def _adaptive_argmax(x: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """Flat plane index of each adaptive window's max."""
    h, w = x.shape[-2:]
    out = np.zeros((*x.shape[:-2], *sizes), dtype=np.int64)
    for lead in np.ndindex(x.shape[:-2]):
        for i, j in itertools.product(*map(range, sizes)):
            r0, r1 = i * h // sizes[0], -(-(i + 1) * h // sizes[0])
            c0, c1 = j * w // sizes[1], -(-(j + 1) * w // sizes[1])
            box = x[(*lead, slice(r0, r1), slice(c0, c1))]
            r, c = np.unravel_index(box.argmax(), box.shape)
            out[(*lead, i, j)] = (r0 + r) * w + c0 + c
    return out


# ------------------------------------------------------------- resampling


def test_upsample_nearest_index_rule() -> None:
    x = np.arange(5.0).reshape(1, 1, 5)
    # in 5 -> out 3: floor(i * 5/3) = 0, 1, 3
    close(run("upsample_nearest1d", x, [3]), [[[0, 1, 3]]])
    close(run("upsample_nearest1d", x, [10]), [[np.repeat(np.arange(5.0), 2)]])
    # an explicit scale uses 1/scale: floor(i / 1.5) for 7 outputs
    close(run("upsample_nearest1d", x, [7], 1.5), [[[0, 0, 1, 2, 2, 3, 4]]])
    close(run("upsample_nearest1d.vec", x, None, [1.5]), [[[0, 0, 1, 2, 2, 3, 4]]])
    close(run("upsample_nearest1d.vec", x, [3], None), [[[0, 1, 3]]])


def test_upsample_nearest2d_ops() -> None:
    x = rand(2, 3, 3, 4)
    out = run("upsample_nearest2d", x, [6, 8])
    close(out, x.repeat(2, axis=2).repeat(2, axis=3))
    rows, cols = [int(i * 3 / 5) for i in range(5)], [int(j * 4 / 3) for j in range(3)]
    close(run("upsample_nearest2d.vec", x, [5, 3], None), x[:, :, rows][:, :, :, cols])
    close(run("upsample_nearest2d", x, [4, 4], 4 / 3, 1.0), x[:, :, [0, 0, 1, 2]])
    assert run("upsample_nearest2d.vec", x, None, [2.5, 0.5]).shape == (2, 3, 7, 2)


def linear_weights(size: int, out: int, align_corners: bool, scale: float | None
                   ) -> list[list[tuple[int, float]]]:
    """Per output index, (source index, weight) pairs from torch's formulas."""
    rows = []
    for i in range(out):
        if align_corners:
            src = i * (size - 1) / (out - 1) if out > 1 else 0.0
        else:
            ratio = 1 / scale if scale else size / out
            src = max(ratio * (i + 0.5) - 0.5, 0.0)
        i0 = min(int(math.floor(src)), size - 1)
        lam = min(max(src - i0, 0.0), 1.0)
        i1 = i0 + (1 if i0 < size - 1 else 0)
        rows.append([(i0, 1 - lam), (i1, lam)])
    return rows


def apply_rows(x: np.ndarray, axis: int, rows: list[list[tuple[int, float]]]) -> np.ndarray:
    moved = np.moveaxis(x, axis, -1)
    out = np.stack([sum(moved[..., i] * wgt for i, wgt in row) for row in rows], -1)
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("align_corners", [False, True])
def test_upsample_bilinear2d_matches_formula(align_corners: bool) -> None:
    x = rand(1, 2, 3, 4)
    expect = apply_rows(apply_rows(x, 2, linear_weights(3, 5, align_corners, None)), 3,
                        linear_weights(4, 7, align_corners, None))
    close(run("upsample_bilinear2d", x, [5, 7], align_corners), expect)
    close(run("upsample_bilinear2d.vec", x, [5, 7], align_corners, None), expect)
    # scales (used only without align_corners) change the source positions, not the size
    scaled = run("upsample_bilinear2d", x, [5, 7], align_corners, 2.0, 2.0)
    expect_s = apply_rows(apply_rows(x, 2, linear_weights(3, 5, align_corners, 2.0)), 3,
                          linear_weights(4, 7, align_corners, 2.0))
    close(scaled, expect_s)
    vec = run("upsample_bilinear2d.vec", x, None, align_corners, [2.0, 2.0])
    close(vec, apply_rows(apply_rows(x, 2, linear_weights(3, 6, align_corners, 2.0)), 3,
                          linear_weights(4, 8, align_corners, 2.0)))


def test_upsample_bilinear_hand_computed_and_float32() -> None:
    x = np.array([[[[0.0, 1.0], [2.0, 3.0]]]], dtype=np.float32)
    out = run("upsample_bilinear2d", x, [3, 3], True)
    close(out, [[[[0, 0.5, 1], [1, 1.5, 2], [2, 2.5, 3]]]], 1e-6)
    assert out.dtype == np.float32
    # align_corners=False, 2 -> 4: sources -0.25->0, 0.25, 0.75, 1.25->(1, 1)
    close(run("upsample_linear1d.vec", x[0], [4], False, None)[0, 0],
          [0, 0.25, 0.75, 1], 1e-6)


def test_upsample_linear1d_vec() -> None:
    x = rand(2, 3, 5)
    for align, size in ((False, 8), (True, 3), (True, 1)):
        close(run("upsample_linear1d.vec", x, [size], align, None),
              apply_rows(x, 2, linear_weights(5, size, align, None)))
    close(run("upsample_linear1d.vec", x, None, False, [1.7]),
          apply_rows(x, 2, linear_weights(5, 8, False, 1.7)))


def half_rows(rows: list[list[tuple[int, float]]], linear: bool) -> list[list[tuple[int, float]]]:
    """torch's float16 weights: each rounded to float16; a linear pair is (1 - half(lambda), half(lambda))."""
    def rounded(row: list[tuple[int, float]]) -> list[tuple[int, float]]:
        if linear:
            lam = float(np.float16(row[1][1]))
            return [(row[0][0], float(np.float16(1 - lam))), (row[1][0], lam)]
        return [(i, float(np.float16(w))) for i, w in row]

    return [rounded(row) for row in rows]


def test_upsample_float16_rounds_the_weights_then_sums_in_float32() -> None:
    x = (rand(2, 3, 5) * 5).astype(np.float16)
    wide = x.astype(np.float64)
    for align, size in ((False, 8), (True, 7)):
        expect = apply_rows(wide, 2, half_rows(linear_weights(5, size, align, None), True)).astype(np.float16)
        np.testing.assert_array_equal(run("upsample_linear1d", x, [size], align), expect)
    x2 = (rand(1, 2, 4, 5) * 5).astype(np.float16)
    expect = apply_rows(apply_rows(x2.astype(np.float64), 2, half_rows(cubic_rows(4, 7, False), False)), 3,
                        half_rows(cubic_rows(5, 3, False), False))
    close(run("upsample_bicubic2d", x2, [7, 3], False), expect.astype(np.float16), 2e-3)


def test_upsample_antialias_hand_computed() -> None:
    """4 -> 2 along W (scale 2, support 2): output 0 centred at 1 reads inputs 0..2 with the
    triangle at distances 0.25, 0.25, 0.75 (halved): 3/4, 3/4, 1/4, normalised to 3/7, 3/7, 1/7;
    output 1 centred at 3 reads 1..3: 1/4, 3/4, 3/4 -> 1/7, 3/7, 3/7. Upscaling (support 1)
    is plain bilinear; the same size is the identity."""
    x = np.array([[[[1.0, 2.0, 4.0, 8.0]]]])
    close(run("_upsample_bilinear2d_aa", x, [1, 2], False), [[[[(3 + 6 + 4) / 7, (2 + 12 + 24) / 7]]]], 1e-6)
    close(run("_upsample_bilinear2d_aa.vec", x, [1, 4], False, None), x, 1e-6)
    up = rand(1, 2, 3, 4)
    close(run("_upsample_bilinear2d_aa", up, [5, 7], False), run("upsample_bilinear2d", up, [5, 7], False), 1e-6)
    # bicubic: PIL's filter (a = -0.5) at distances 0.25 and 0.75 (1 -> 1 per side when upscaling 2x)
    a = -0.5

    def cubic(d: float) -> float:
        d = abs(d)
        return ((a + 2) * d - (a + 3)) * d * d + 1 if d < 1 else (((d - 5) * d + 8) * d - 4) * a if d < 2 else 0.0

    row = np.array([[[[1.0, 2.0, 4.0, 8.0]]]])
    out = run("_upsample_bicubic2d_aa", row, [1, 8], False)
    centre = 0.5 * (3 + 0.5)  # output 3 of 8 from 4: centre 1.75, support 2 (upscaling: no widening)
    taps = [j for j in range(4) if int(centre - 2 + 0.5) <= j < min(int(centre + 2 + 0.5), 4)]
    weights = np.array([cubic(j - centre + 0.5) for j in taps])
    close(out[0, 0, 0, 3], (weights / weights.sum()) @ row[0, 0, 0, taps], 1e-6)


def cubic_rows(size: int, out: int, align_corners: bool) -> list[list[tuple[int, float]]]:
    a = -0.75

    def weight(d: float) -> float:  # Keys' cubic convolution kernel
        d = abs(d)
        if d <= 1:
            return (a + 2) * d**3 - (a + 3) * d**2 + 1
        return a * d**3 - 5 * a * d**2 + 8 * a * d - 4 * a if d < 2 else 0.0

    rows = []
    for i in range(out):
        if align_corners:
            src = i * (size - 1) / (out - 1) if out > 1 else 0.0
        else:
            src = size / out * (i + 0.5) - 0.5
        base = math.floor(src)
        t = src - base
        rows.append([(min(max(base + k, 0), size - 1), weight(t - k)) for k in (-1, 0, 1, 2)])
    return rows


@pytest.mark.parametrize("align_corners", [False, True])
def test_upsample_bicubic2d_matches_keys_kernel(align_corners: bool) -> None:
    x = rand(1, 2, 4, 5)
    expect = apply_rows(apply_rows(x, 2, cubic_rows(4, 7, align_corners)), 3,
                        cubic_rows(5, 3, align_corners))
    close(run("upsample_bicubic2d.vec", x, [7, 3], align_corners, None), expect)
    const = run("upsample_bicubic2d.vec", np.full((1, 1, 3, 3), 2.5), None, False, [2.0, 2.0])
    close(const, np.full((1, 1, 6, 6), 2.5))  # cubic weights sum to 1


# ------------------------------------------------------------ grid sampler


def naive_grid_sample(x: np.ndarray, grid: np.ndarray, mode: int, padding_mode: int,
                      align_corners: bool) -> np.ndarray:
    """Scalar transcription of torch's grid_sampler_2d CPU fallback."""
    n_batch, channels, h, w = x.shape
    out = np.zeros((n_batch, channels, *grid.shape[1:3]))

    def unnormalize(c: float, size: int) -> float:
        return (c + 1) / 2 * (size - 1) if align_corners else ((c + 1) * size - 1) / 2

    def reflect(c: float, lo: int, hi: int) -> float:
        if lo == hi:
            return 0.0
        low, span = lo / 2, (hi - lo) / 2
        c = abs(c - low)
        extra, flips = math.fmod(c, span), math.floor(c / span)
        return extra + low if flips % 2 == 0 else span - extra + low

    def coordinate(c: float, size: int) -> float:
        if padding_mode == 1:
            return min(max(c, 0), size - 1)
        if padding_mode == 2:
            twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
            return min(max(reflect(c, *twice), 0), size - 1)
        return c

    def at(n: int, c: int, r: int, col: int) -> float:
        return x[n, c, r, col] if 0 <= r < h and 0 <= col < w else 0.0

    def cubic(t: float) -> list[float]:
        return [row[1] for row in cubic_rows_from_t(t)]

    for n, i, j in itertools.product(range(n_batch), *map(range, grid.shape[1:3])):
        gx, gy = grid[n, i, j]
        for c in range(channels):
            if mode == 2:
                px, py = unnormalize(gx, w), unnormalize(gy, h)
                bx, by = math.floor(px), math.floor(py)
                wx, wy = cubic(px - bx), cubic(py - by)
                total = 0.0
                for a, b in itertools.product(range(4), range(4)):
                    r = int(coordinate(by - 1 + a, h))
                    col = int(coordinate(bx - 1 + b, w))
                    total += wy[a] * wx[b] * at(n, c, r, col)
                out[n, c, i, j] = total
                continue
            px, py = coordinate(unnormalize(gx, w), w), coordinate(unnormalize(gy, h), h)
            if mode == 1:
                out[n, c, i, j] = at(n, c, int(np.rint(py)), int(np.rint(px)))
                continue
            x0, y0 = math.floor(px), math.floor(py)
            tx, ty = px - x0, py - y0
            out[n, c, i, j] = ((1 - tx) * (1 - ty) * at(n, c, y0, x0)
                               + tx * (1 - ty) * at(n, c, y0, x0 + 1)
                               + (1 - tx) * ty * at(n, c, y0 + 1, x0)
                               + tx * ty * at(n, c, y0 + 1, x0 + 1))
    return out


def cubic_rows_from_t(t: float) -> list[tuple[int, float]]:
    a = -0.75

    def weight(d: float) -> float:
        d = abs(d)
        if d <= 1:
            return (a + 2) * d**3 - (a + 3) * d**2 + 1
        return a * d**3 - 5 * a * d**2 + 8 * a * d - 4 * a if d < 2 else 0.0

    return [(k, weight(t - k)) for k in (-1, 0, 1, 2)]


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_mode", [0, 1, 2])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sampler_2d_matches_scalar_reference(mode: int, padding_mode: int,
                                                  align_corners: bool) -> None:
    x = rand(2, 3, 4, 5)
    grid = RNG.uniform(-1.6, 1.6, size=(2, 3, 4, 2))
    out = run("grid_sampler_2d", x, grid, mode, padding_mode, align_corners)
    close(out, naive_grid_sample(x, grid, mode, padding_mode, align_corners))


def test_grid_sampler_nearest_rounds_half_to_even() -> None:
    x = np.arange(4.0).reshape(1, 1, 1, 4)
    # align_corners=False, W=4: x = -0.5, 0, 0.5 -> pixels 0.5, 1.5, 2.5 (exact ties)
    grid = np.array([[[[-0.5, 0.0], [0.0, 0.0], [0.5, 0.0]]]])
    close(run("grid_sampler_2d", x, grid, 1, 0, False), [[[[0.0, 2.0, 2.0]]]])  # nearbyint


def test_grid_sampler_identity_grid_reproduces_input() -> None:
    x = rand(1, 2, 3, 4).astype(np.float32)
    ys, xs = np.meshgrid(np.linspace(-1, 1, 3), np.linspace(-1, 1, 4), indexing="ij")
    grid = np.stack([xs, ys], -1)[None].astype(np.float32)
    out = run("grid_sampler_2d", x, grid, 0, 0, True)
    assert out.dtype == np.float32
    close(out, x, 1e-6)


# ---------------------------------------------------------- im2col/col2im


def test_im2col_matches_unfold_definition() -> None:
    x = rand(2, 3, 5, 6)
    k, d, p, s = [2, 3], [2, 1], [1, 0], [2, 2]
    cols = run("im2col", x, k, d, p, s)
    padded = np.pad(x, [(0, 0), (0, 0), (1, 1), (0, 0)])
    oh, ow = (5 + 2 - 2 - 1) // 2 + 1, (6 - 3) // 2 + 1
    expect = np.zeros((2, 3 * 6, oh * ow))
    for n, c, ki, kj, i, j in itertools.product(range(2), range(3), range(2), range(3),
                                                range(oh), range(ow)):
        expect[n, (c * 2 + ki) * 3 + kj, i * ow + j] = padded[n, c, i * 2 + ki * 2, j * 2 + kj]
    close(cols, expect)
    close(run("im2col", x[0], k, d, p, s), expect[0])


def test_col2im_is_the_adjoint_of_im2col() -> None:
    x = rand(2, 3, 5, 6)
    args = ([2, 3], [2, 1], [1, 1], [1, 2])
    cols_shape = run("im2col", x, *args).shape
    y = rand(*cols_shape)
    folded = run("col2im", y, [5, 6], *args)
    assert folded.shape == x.shape
    # <im2col(x), y> == <x, col2im(y)>
    close((run("im2col", x, *args) * y).sum(), (x * folded).sum(), 1e-9)
    ones = run("col2im", np.ones((3 * 4, 2 * 3)), [5, 6], [2, 2], [1, 1], [0, 0], [2, 2])
    expect = np.zeros((3, 5, 6))
    expect[:, :4] = 1  # non-overlapping blocks tile rows 0-3 once; row 4 is in no block
    close(ones, expect)


# ---------------------------------------------------------------- padding


def test_constant_pad_nd_pads_crops_and_fills() -> None:
    x = np.arange(6.0).reshape(2, 3)
    out = run("constant_pad_nd", x, [1, -1, 2, 0], 7.5)
    expect = np.full((4, 3), 7.5)
    expect[2:, 1:] = x[:, :2]
    close(out, expect)
    big = run("constant_pad_nd", np.ones((1, 2), dtype=np.int64), [5, 4], 3)
    np.testing.assert_array_equal(big, [[3] * 5 + [1, 1] + [3] * 4])
    assert big.dtype == np.int64
    empty = run("constant_pad_nd", x, [-2, -1])
    assert empty.shape == (2, 0)
    same = run("constant_pad_nd", x, [0, 0])
    close(same, x)
    assert not np.shares_memory(same, x)


def test_reflection_and_replication_pads() -> None:
    x = np.arange(4.0).reshape(1, 4)
    close(run("reflection_pad1d", x, [3, 2]), [[3, 2, 1, 0, 1, 2, 3, 2, 1]])
    close(run("replication_pad1d", x, [3, 2]), [[0, 0, 0, 0, 1, 2, 3, 3, 3]])
    x2 = np.arange(6.0).reshape(1, 2, 3)
    close(run("reflection_pad2d", x2, [2, 1, 1, 0]),
          np.pad(x2, [(0, 0), (1, 0), (2, 1)], "reflect"))
    close(run("replication_pad2d", x2, [2, 1, 1, 3]), np.pad(x2, [(0, 0), (1, 3), (2, 1)], "edge"))
    x3 = rand(1, 2, 3, 3, 4)
    widths = [(0, 0), (0, 0), (1, 2), (2, 0), (0, 3)]
    close(run("reflection_pad3d", x3, [0, 3, 2, 0, 1, 2]), np.pad(x3, widths, "reflect"))
    close(run("replication_pad3d", x3, [0, 3, 2, 0, 1, 2]), np.pad(x3, widths, "edge"))


def test_pad_modes() -> None:
    x = rand(2, 3, 4)
    close(run("pad", x, [1, 2]), np.pad(x, [(0, 0), (0, 0), (1, 2)]))
    close(run("pad", x, [1, 2], "constant", 4.0),
          np.pad(x, [(0, 0), (0, 0), (1, 2)], constant_values=4.0))
    close(run("pad", x, [1, 2], "reflect"), np.pad(x, [(0, 0), (0, 0), (1, 2)], "reflect"))
    close(run("pad", x, [1, 2, 2, 0], "replicate"), np.pad(x, [(0, 0), (2, 0), (1, 2)], "edge"))
    close(run("pad", x, [3, 4], "circular"), np.pad(x, [(0, 0), (0, 0), (3, 4)], "wrap"))
    # a negative pad crops first, then the kept part wraps (torch: pad([0..5], [-1, 2]) = [1..5, 1, 2])
    close(run("pad", x, [-1, 2], "circular"), np.pad(x[..., 1:], [(0, 0), (0, 0), (0, 2)], "wrap"))
    close(run("pad", x, [2, -1], "circular"), np.pad(x[..., :-1], [(0, 0), (0, 0), (2, 0)], "wrap"))


# ----------------------------------------------------------- pixel shuffle


def test_pixel_shuffle_and_unshuffle() -> None:
    x = rand(2, 8, 2, 3)
    out = run("pixel_shuffle", x, 2)
    for n, c, h, w, i, j in itertools.product(range(2), range(2), range(2), range(3),
                                              range(2), range(2)):
        assert out[n, c, h * 2 + i, w * 2 + j] == x[n, c * 4 + i * 2 + j, h, w]
    back = run("pixel_unshuffle", out, 2)
    close(back, x)
    close(run("pixel_shuffle", x[0], 1), x[0])
    assert not np.shares_memory(run("pixel_shuffle", x, 1), x)


# ----------------------------------------------------------------- timing


def test_conv_3x3_64_channels_is_fast() -> None:
    """A 1x64x56x56 3x3 conv is BLAS-bound (about 0.23 GFLOP): far below a second."""
    import time

    x, w = rand(1, 64, 56, 56, dtype=np.float32), rand(64, 64, 3, 3, dtype=np.float32)
    run("conv2d", x, w, None, [1, 1], [1, 1])
    start = time.perf_counter()
    run("conv2d", x, w, None, [1, 1], [1, 1])
    assert time.perf_counter() - start < 0.5


# ------------------------------------------------------------ empty batch


@pytest.mark.parametrize(("op", "args"), [
    ("convolution", ([1, 1], [1, 1], [1, 1], False, [0, 0], 1)),
    ("convolution", ([2, 2], [1, 1], [1, 1], True, [1, 1], 1)),
])
def test_convolution_with_empty_batch(op: str, args: tuple[Any, ...]) -> None:
    x = np.zeros((0, 2, 5, 5))
    w = np.ones((2, 3, 3, 3)) if args[3] else np.ones((4, 2, 3, 3))
    out = run(op, x, w, None, *args)
    assert out.shape[0] == 0 and out.shape[1] == (3 if args[3] else 4)
    grads = run("convolution_backward", np.zeros(out.shape), x, w, None, *args,
                [True, True, True])
    close(grads[1], np.zeros(w.shape))


def test_pools_with_empty_batch() -> None:
    x = np.zeros((0, 2, 5, 5))
    values, indices = run("max_pool2d_with_indices", x, [2, 2])
    assert values.shape == indices.shape == (0, 2, 2, 2)
    grad = run("max_pool2d_with_indices_backward", values, x, [2, 2], [2, 2], [0, 0], [1, 1],
               False, indices)
    assert grad.shape == x.shape
    assert run("adaptive_max_pool2d", x, [2, 3])[0].shape == (0, 2, 2, 3)
    assert run("col2im", np.zeros((0, 8, 16)), [5, 5], [2, 2], [1, 1], [0, 0], [1, 1]).shape == (
        0, 2, 5, 5)
