"""Where torch rounds float16 intermediates and where it computes in float32 and
rounds once, against float64 formulas rounded as torch does (issue 16, item 6)."""

from __future__ import annotations

import numpy as np
from kernel_checks import run

import texport.dialects.op_table  # noqa: F401  (registers the schemas run() binds against)
from texport.dialects.dtypes import DType

HALF = np.float16
NONE, MEAN = 0, 1


def halves(*shape: int, scale: float = 1.0, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).normal(size=shape) * scale).astype(HALF)


def test_huber_loss_takes_the_difference_unrounded_and_rounds_each_element_once() -> None:
    a, b, delta = halves(64, scale=20), halves(64, scale=20, seed=1), 8.698115367693557
    z = np.abs(a.astype(np.float64) - b.astype(np.float64))
    loss = np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).astype(HALF)
    np.testing.assert_array_equal(run("huber_loss", a, b, NONE, delta), loss)
    mean = run("huber_loss", a, b, MEAN, delta)
    assert mean.dtype == HALF and mean == HALF(loss.astype(np.float64).mean())


def test_soft_margin_loss_rounds_each_step_so_a_half_exp_overflows() -> None:
    x, y = np.array([-12.0, 0.5], HALF), np.array([1.0, 1.0], HALF)  # exp(12) > 65504
    assert run("soft_margin_loss", x, y, MEAN) == np.inf
    small = run("soft_margin_loss", x[1:], y[1:], NONE)
    assert small.dtype == HALF and small[0] == HALF(np.log1p(float(HALF(np.exp(-0.5)))))
    np.testing.assert_allclose(run("soft_margin_loss", np.array([-12.0], np.float32), np.ones(1, np.float32), MEAN),
                               np.log1p(np.exp(12.0)), rtol=1e-6)


def test_softmax_backward_in_float16_computes_in_float32_and_rounds_once() -> None:
    for dim in (0, 1):
        logits = np.random.default_rng(dim).normal(size=(5, 7))
        y = (np.exp(logits) / np.exp(logits).sum(dim, keepdims=True)).astype(HALF)
        g = halves(5, 7, seed=3)
        wide_y, wide_g = y.astype(np.float64), g.astype(np.float64)
        want = (wide_y * (wide_g - (wide_g * wide_y).sum(dim, keepdims=True))).astype(HALF)
        got = run("_softmax_backward_data", g, y, dim, DType.float16)
        assert got.dtype == HALF
        np.testing.assert_array_equal(got, want)
        log_y = np.log(wide_y).astype(HALF)
        want = (wide_g - np.exp(log_y.astype(np.float64)) * wide_g.sum(dim, keepdims=True)).astype(HALF)
        np.testing.assert_array_equal(run("_log_softmax_backward_data", g, log_y, dim, DType.float16), want)


def naive_adaptive_avg_pool3d_half(x: np.ndarray, sizes: tuple[int, int, int]) -> np.ndarray:
    """torch's scalar loop: sum in float16 over t, h, w, then / kT / kH / kW, each rounded."""
    def bounds(i: int, size: int, out: int) -> tuple[int, int]:
        return i * size // out, -(-(i + 1) * size // out)

    out = np.zeros((*x.shape[:-3], *sizes), HALF)
    for d in range(sizes[0]):
        t0, t1 = bounds(d, x.shape[-3], sizes[0])
        for r in range(sizes[1]):
            h0, h1 = bounds(r, x.shape[-2], sizes[1])
            for c in range(sizes[2]):
                w0, w1 = bounds(c, x.shape[-1], sizes[2])
                total = np.zeros(x.shape[:-3], HALF)
                for t in range(t0, t1):
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            total = (total + x[..., t, h, w]).astype(HALF)
                for k in (t1 - t0, h1 - h0, w1 - w0):
                    total = (total / HALF(k)).astype(HALF)
                out[..., d, r, c] = total
    return out


def test_adaptive_avg_pool3d_in_float16_sums_and_divides_in_float16() -> None:
    x = halves(2, 3, 9, 7, 10, scale=5)
    for sizes in ((4, 3, 5), (2, 5, 3), (1, 1, 1)):
        np.testing.assert_array_equal(run("_adaptive_avg_pool3d", x, list(sizes)),
                                      naive_adaptive_avg_pool3d_half(x, sizes))


def naive_grid_sample_bilinear_half(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """torch's scalar float16 loop (zeros padding, align_corners=False): every step rounded."""
    n_batch, channels, height, width = x.shape
    out = np.zeros((n_batch, channels, *grid.shape[1:3]), HALF)
    for n in range(n_batch):
        for h in range(grid.shape[1]):
            for w in range(grid.shape[2]):
                ix = HALF(HALF(HALF(grid[n, h, w, 0] + HALF(1)) * HALF(width)) - HALF(1)) / HALF(2)
                iy = HALF(HALF(HALF(grid[n, h, w, 1] + HALF(1)) * HALF(height)) - HALF(1)) / HALF(2)
                x0, y0 = int(np.floor(ix)), int(np.floor(iy))
                taps = [(y0, x0, HALF(HALF(x0 + 1) - ix) * HALF(HALF(y0 + 1) - iy)),
                        (y0, x0 + 1, HALF(ix - HALF(x0)) * HALF(HALF(y0 + 1) - iy)),
                        (y0 + 1, x0, HALF(HALF(x0 + 1) - ix) * HALF(iy - HALF(y0))),
                        (y0 + 1, x0 + 1, HALF(ix - HALF(x0)) * HALF(iy - HALF(y0)))]
                total = np.zeros(channels, HALF)
                for yy, xx, weight in taps:
                    if 0 <= yy < height and 0 <= xx < width:
                        total = (total + (x[n, :, yy, xx] * HALF(weight)).astype(HALF)).astype(HALF)
                out[n, :, h, w] = total
    return out


def test_grid_sampler_2d_bilinear_in_float16_weighs_and_sums_tap_by_tap_in_float16() -> None:
    x = halves(2, 3, 5, 5, scale=3)
    grid = (np.random.default_rng(4).random((2, 4, 4, 2)) * 2.4 - 1.2).astype(HALF)
    np.testing.assert_array_equal(run("grid_sampler_2d", x, grid, 0, 0, False), naive_grid_sample_bilinear_half(x, grid))
