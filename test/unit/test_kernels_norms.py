"""numpy kernels for batch, layer, group and instance normalisation against formulas
written out separately, hand-computed numbers and finite differences.

Every call goes through kernel_checks.run, which also checks the op's shape rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from kernel_checks import run

RNG = np.random.default_rng(1)


def rand(*shape: int, dtype: Any = np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def close(actual: np.ndarray, expected: Any, tol: float = 1e-10) -> None:
    np.testing.assert_allclose(actual, np.asarray(expected, dtype=np.float64), rtol=tol, atol=tol)


def numeric_grad(f: Callable[[np.ndarray], float], x: np.ndarray, h: float = 1e-6) -> np.ndarray:
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


def per_channel_reference(x: np.ndarray, w: np.ndarray | None, b: np.ndarray | None,
                          eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Batch norm written channel by channel: (out, mean, biased var, unbiased var)."""
    out = np.empty_like(x, dtype=np.float64)
    channels = x.shape[1]
    mean, biased, unbiased = np.empty(channels), np.empty(channels), np.empty(channels)
    for c in range(channels):
        values = x[:, c].astype(np.float64).ravel()
        m = values.sum() / values.size
        sq = ((values - m) ** 2).sum()
        mean[c], biased[c], unbiased[c] = m, sq / values.size, sq / (values.size - 1)
        y = (x[:, c] - m) / np.sqrt(biased[c] + eps)
        out[:, c] = y * (1 if w is None else w[c]) + (0 if b is None else b[c])
    return out, mean, biased, unbiased


# ---------------------------------------------------------------- batch norm


def test_native_batch_norm_training_step_updates_running_stats() -> None:
    x, w, b = rand(4, 3, 2, 5) * 2 + 1, rand(3), rand(3)
    running_mean, running_var = rand(3), np.abs(rand(3)) + 0.5
    old_mean, old_var = running_mean.copy(), running_var.copy()
    out, save_mean, save_invstd = run("native_batch_norm", x, w, b, running_mean, running_var,
                                      True, 0.1, 1e-5)
    expect, mean, biased, unbiased = per_channel_reference(x, w, b, 1e-5)
    close(out, expect)
    close(save_mean, mean)
    close(save_invstd, 1 / np.sqrt(biased + 1e-5))  # saved stats use the biased variance
    close(running_mean, old_mean + 0.1 * (mean - old_mean))
    close(running_var, old_var + 0.1 * (unbiased - old_var))  # running var is unbiased


def test_native_batch_norm_eval_uses_running_stats_and_returns_empty_saves() -> None:
    x, w, b = rand(2, 3, 4), rand(3), rand(3)
    running_mean, running_var = rand(3), np.abs(rand(3)) + 0.5
    before = running_mean.copy(), running_var.copy()
    out, save_mean, save_invstd = run("native_batch_norm", x, w, b, running_mean, running_var,
                                      False, 0.1, 1e-3)
    expect = ((x - running_mean[:, None]) / np.sqrt(running_var[:, None] + 1e-3) * w[:, None]
              + b[:, None])
    close(out, expect)
    assert save_mean.shape == (0,) and save_invstd.shape == (0,)
    close(running_mean, before[0])
    close(running_var, before[1])
    with pytest.raises(Exception, match="running_mean"):
        run("native_batch_norm", x, w, b, None, None, False, 0.1, 1e-3)


def test_native_batch_norm_legit_overloads() -> None:
    x = rand(3, 2, 4)
    rm, rv = np.zeros(2), np.ones(2)
    out, mean, invstd = run("_native_batch_norm_legit", x, None, None, rm, rv, True, 0.5, 1e-5)
    expect, m, biased, unbiased = per_channel_reference(x, None, None, 1e-5)
    close(out, expect)
    close(rm, 0.5 * m)
    close(rv, 0.5 * unbiased + 0.5)
    no_stats = run("_native_batch_norm_legit.no_stats", x, None, None, True, 0.5, 1e-5)
    close(no_stats[0], expect)
    close(no_stats[2], 1 / np.sqrt(biased + 1e-5))
    w, b = rand(2), rand(2)
    rm2, rv2 = rand(2), np.abs(rand(2)) + 1
    evaluated = run("_native_batch_norm_legit_no_training", x, w, b, rm2, rv2, 0.1, 1e-5)
    close(evaluated[0], (x - rm2[:, None]) / np.sqrt(rv2[:, None] + 1e-5) * w[:, None]
          + b[:, None])
    assert evaluated[1].shape == (0,)


def test_native_batch_norm_legit_functional_returns_new_stats_without_mutating() -> None:
    x = rand(5, 3)
    rm, rv = rand(3), np.abs(rand(3)) + 1
    before = rm.copy(), rv.copy()
    out, mean, invstd, new_mean, new_var = run(
        "_native_batch_norm_legit_functional", x, None, None, rm, rv, True, 0.2, 1e-5)
    _, m, _, unbiased = per_channel_reference(x, None, None, 1e-5)
    close(new_mean, 0.8 * before[0] + 0.2 * m)
    close(new_var, 0.8 * before[1] + 0.2 * unbiased)
    close(rm, before[0])
    close(rv, before[1])
    evaluated = run("_native_batch_norm_legit_functional", x, None, None, rm, rv, False, 0.2,
                    1e-5)
    close(evaluated[3], rm)
    close(evaluated[4], rv)
    assert not np.shares_memory(evaluated[3], rm)


def test_batch_norm_with_update_variants_and_no_update() -> None:
    x, w = rand(4, 2, 3), rand(2)
    rm, rv = rand(2), np.abs(rand(2)) + 1
    start = rm.copy(), rv.copy()
    _, m, _, unbiased = per_channel_reference(x, w, None, 1e-5)
    out, mean, invstd, reserve, new_mean, new_var = run(
        "_batch_norm_with_update_functional", x, w, None, rm, rv, 0.3, 1e-5)
    assert reserve.shape == (0,)
    close(new_mean, 0.7 * start[0] + 0.3 * m)
    close(new_var, 0.7 * start[1] + 0.3 * unbiased)
    close(rm, start[0])
    updated = run("_batch_norm_with_update", x, w, None, rm, rv, 0.3, 1e-5)
    assert updated[3].shape == (0,) and updated[3].dtype == np.uint8
    close(updated[0], out)
    close(rm, new_mean)
    close(rv, new_var)
    frozen = run("_batch_norm_no_update", x, w, None, rm, rv, 0.3, 1e-5)
    close(frozen[0], (x - rm[:, None]) / np.sqrt(rv[:, None] + 1e-5) * w[:, None])
    close(rm, new_mean)


def test_batch_norm_composite_mutates_only_when_training() -> None:
    x = rand(6, 2, 2)
    rm, rv = np.zeros(2), np.ones(2)
    out = run("batch_norm", x, None, None, rm, rv, False, 0.1, 1e-5, False)
    close(out, x / np.sqrt(1 + 1e-5))
    close(rm, [0, 0])
    trained = run("batch_norm", x, None, None, rm, rv, True, 0.1, 1e-5, False)
    expect, m, _, unbiased = per_channel_reference(x, None, None, 1e-5)
    close(trained, expect)
    close(rm, 0.1 * m)
    close(rv, 0.9 + 0.1 * unbiased)
    close(run("batch_norm", x, None, None, None, None, True, 0.1, 1e-5, False), expect)


def test_batch_norm_float16_float32_and_running_dtype_promotion() -> None:
    x = (rand(8, 3, 4) * 3 + 100).astype(np.float16)
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    out, mean, invstd = run("native_batch_norm", x, None, None, rm, rv, True, 0.1, 1e-5)
    assert out.dtype == mean.dtype == invstd.dtype == np.float16 and rm.dtype == np.float32
    expect, m, _, unbiased = per_channel_reference(x.astype(np.float64), None, None, 1e-5)
    np.testing.assert_allclose(out, expect, atol=5e-3, rtol=5e-3)
    np.testing.assert_allclose(rm, 0.1 * m, rtol=1e-5)
    functional = run("_native_batch_norm_legit_functional", x.astype(np.float32), None, None,
                     np.zeros(3), np.ones(3), True, 0.1, 1e-5)
    assert functional[0].dtype == np.float32 and functional[3].dtype == np.float64


def test_batch_norm_single_value_per_channel_gives_non_finite_running_var() -> None:
    x = rand(1, 2)
    rm, rv = np.zeros(2), np.ones(2)
    out = run("native_batch_norm", x, None, None, rm, rv, True, 0.1, 1e-5)[0]
    close(out, np.zeros((1, 2)))
    assert not np.isfinite(rv).any()  # torch divides the variance sum by n - 1 = 0


@pytest.mark.parametrize("train", [True, False])
def test_native_batch_norm_backward_matches_finite_differences(train: bool) -> None:
    x, w, b = rand(3, 2, 4), rand(2), rand(2)
    rm, rv = rand(2), np.abs(rand(2)) + 0.5
    eps = 1e-5

    def forward(x_: np.ndarray, w_: np.ndarray, b_: np.ndarray) -> np.ndarray:
        return run("native_batch_norm", x_, w_, b_, rm.copy(), rv.copy(), train, 0.1, eps)[0]

    _, save_mean, save_invstd = run("native_batch_norm", x, w, b, rm.copy(), rv.copy(), train,
                                    0.1, eps)
    probe = rand(*x.shape)
    dx, dw, db = run("native_batch_norm_backward", probe, x, w, rm, rv, save_mean, save_invstd,
                     train, eps, [True, True, True])
    close(dx, numeric_grad(lambda v: float((forward(v, w, b) * probe).sum()), x.copy()), 1e-6)
    close(dw, numeric_grad(lambda v: float((forward(x, v, b) * probe).sum()), w.copy()), 1e-6)
    close(db, numeric_grad(lambda v: float((forward(x, w, v) * probe).sum()), b.copy()), 1e-6)
    masked = run("native_batch_norm_backward", probe, x, None, rm, rv, save_mean, save_invstd,
                 train, eps, [True, False, False])
    assert masked[1] is None and masked[2] is None


# ----------------------------------------------------------- instance norm


def test_instance_norm_normalises_each_instance_and_averages_running_stats() -> None:
    x, w, b = rand(2, 3, 5), rand(3), rand(3)
    rm, rv = np.zeros(3), np.ones(3)
    out = run("instance_norm", x, w, b, rm, rv, True, 0.1, 1e-5, False)
    mean = x.mean(axis=2, keepdims=True)
    var = x.var(axis=2, keepdims=True)
    close(out, (x - mean) / np.sqrt(var + 1e-5) * w[:, None] + b[:, None])
    close(rm, 0.1 * mean[..., 0].mean(axis=0))
    close(rv, 0.9 + 0.1 * (x.var(axis=2, ddof=1)).mean(axis=0))
    frozen = run("instance_norm", x, None, None, rm, rv, False, 0.1, 1e-5, False)
    close(frozen, (x - rm[:, None]) / np.sqrt(rv[:, None] + 1e-5))


# ------------------------------------------------------------------ rms norm


@pytest.mark.parametrize("normalized", [[5], [4, 5]])
def test_rms_norm_divides_by_the_root_mean_square(normalized: list[int]) -> None:
    x, w = rand(2, 3, 4, 5), rand(*normalized)
    rows = x.reshape(-1, int(np.prod(normalized)))
    root_mean_square = np.sqrt((rows * rows).sum(axis=1) / rows.shape[1] + 1e-3)
    expected = (rows / root_mean_square[:, None]).reshape(x.shape)
    close(run("rms_norm", x, normalized, w, 1e-3), expected * w)
    close(run("rms_norm", x, normalized, None, 1e-3), expected)


def test_rms_norm_default_eps_is_the_machine_epsilon_of_its_computation_dtype() -> None:
    zeros = np.zeros((2, 3), np.float16)  # computed in float32: 0 / sqrt(0 + eps) = 0
    assert run("rms_norm", zeros, [3]).dtype == np.float16
    x = np.array([[3e-4, -4e-4]], np.float32)  # mean square 1.25e-7, about float32's eps (2**-23)
    expected = x / np.sqrt(1.25e-7 + 2.0 ** -23)
    np.testing.assert_allclose(run("rms_norm", x, [2]), expected, rtol=1e-5)
    x64 = x.astype(np.float64)
    close(run("rms_norm", x64, [2]), x64 / np.sqrt(1.25e-7 + 2.0 ** -52), 1e-9)


# ---------------------------------------------------------------- layer norm


@pytest.mark.parametrize("normalized", [[5], [4, 5]])
def test_native_layer_norm_matches_formula(normalized: list[int]) -> None:
    x = rand(2, 3, 4, 5)
    w, b = rand(*normalized), rand(*normalized)
    out, mean, rstd = run("native_layer_norm", x, normalized, w, b, 1e-5)
    rows = x.reshape(-1, int(np.prod(normalized)))
    m = rows.sum(axis=1) / rows.shape[1]
    var = ((rows - m[:, None]) ** 2).sum(axis=1) / rows.shape[1]
    stat_shape = x.shape[:x.ndim - len(normalized)] + (1,) * len(normalized)
    close(mean, m.reshape(stat_shape))
    close(rstd, (1 / np.sqrt(var + 1e-5)).reshape(stat_shape))
    normed = ((rows - m[:, None]) / np.sqrt(var[:, None] + 1e-5)).reshape(x.shape)
    close(out, normed * w + b)
    close(run("layer_norm", x, normalized, w, b), out)
    close(run("layer_norm", x, normalized), normed)


def test_layer_norm_float16_and_size_one_dims() -> None:
    x = (rand(3, 8) + 50).astype(np.float16)
    out, mean, rstd = run("native_layer_norm", x, [8], None, None, 1e-5)
    assert out.dtype == mean.dtype == rstd.dtype == np.float16
    x64 = x.astype(np.float64)
    expect = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, expect, atol=1e-2, rtol=1e-2)
    single = run("native_layer_norm", rand(4, 1), [1], None, None, 1e-5)
    close(single[0], np.zeros((4, 1)))  # one element: x - mean is 0
    close(single[2], np.full((4, 1), 1 / np.sqrt(1e-5)), 1e-6)


def test_layer_norm_non_contiguous_input() -> None:
    x = rand(5, 4).T  # [4, 5] transposed view
    out = run("layer_norm", x, [5])
    xc = np.ascontiguousarray(x)
    close(out, (xc - xc.mean(1, keepdims=True)) / np.sqrt(xc.var(1, keepdims=True) + 1e-5))


def test_native_layer_norm_backward_matches_finite_differences() -> None:
    x, w, b = rand(3, 2, 4), rand(2, 4), rand(2, 4)
    shape = [2, 4]

    def forward(x_: np.ndarray, w_: np.ndarray, b_: np.ndarray) -> np.ndarray:
        return run("native_layer_norm", x_, shape, w_, b_, 1e-5)[0]

    _, mean, rstd = run("native_layer_norm", x, shape, w, b, 1e-5)
    probe = rand(*x.shape)
    dx, dw, db = run("native_layer_norm_backward", probe, x, shape, mean, rstd, w, b,
                     [True, True, True])
    close(dx, numeric_grad(lambda v: float((forward(v, w, b) * probe).sum()), x.copy()), 1e-6)
    close(dw, numeric_grad(lambda v: float((forward(x, v, b) * probe).sum()), w.copy()), 1e-6)
    close(db, numeric_grad(lambda v: float((forward(x, w, v) * probe).sum()), b.copy()), 1e-6)
    only_input = run("native_layer_norm_backward", probe, x, shape, mean, rstd, None, None,
                     [True, True, True])
    assert only_input[1] is None and only_input[2] is None
    masked = run("native_layer_norm_backward", probe, x, shape, mean, rstd, w, b,
                 [False, True, False])
    assert masked[0] is None and masked[2] is None
    close(masked[1], dw)


# ---------------------------------------------------------------- group norm


def test_native_group_norm_matches_per_group_formula() -> None:
    x, w, b = rand(2, 6, 3, 2), rand(6), rand(6)
    out, mean, rstd = run("native_group_norm", x, w, b, 2, 6, 6, 3, 1e-5)
    assert mean.shape == rstd.shape == (2, 3)
    expect = np.empty_like(x)
    for n in range(2):
        for g in range(3):
            block = x[n, 2 * g:2 * g + 2]
            m, v = block.mean(), block.var()
            close(mean[n, g], m)
            close(rstd[n, g], 1 / np.sqrt(v + 1e-5))
            expect[n, 2 * g:2 * g + 2] = (block - m) / np.sqrt(v + 1e-5)
    close(out, expect * w[:, None, None] + b[:, None, None])
    close(run("group_norm", x, 3, w, b), out)
    close(run("group_norm", x, 6), (x - x.mean(axis=(2, 3), keepdims=True))
          / np.sqrt(x.var(axis=(2, 3), keepdims=True) + 1e-5))


def test_group_norm_float16_and_2d_input() -> None:
    x = rand(3, 4).astype(np.float16)
    out = run("group_norm", x, 2)
    assert out.dtype == np.float16
    x64 = x.astype(np.float64).reshape(3, 2, 2)
    expect = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, expect.reshape(3, 4), atol=5e-3, rtol=5e-3)


def test_native_group_norm_backward_matches_finite_differences() -> None:
    x, w, b = rand(2, 4, 3), rand(4), rand(4)

    def forward(x_: np.ndarray, w_: np.ndarray, b_: np.ndarray) -> np.ndarray:
        return run("native_group_norm", x_, w_, b_, 2, 4, 3, 2, 1e-5)[0]

    _, mean, rstd = run("native_group_norm", x, w, b, 2, 4, 3, 2, 1e-5)
    probe = rand(*x.shape)
    dx, dw, db = run("native_group_norm_backward", probe, x, mean, rstd, w, 2, 4, 3, 2,
                     [True, True, True])
    close(dx, numeric_grad(lambda v: float((forward(v, w, b) * probe).sum()), x.copy()), 1e-6)
    close(dw, numeric_grad(lambda v: float((forward(x, v, b) * probe).sum()), w.copy()), 1e-6)
    close(db, numeric_grad(lambda v: float((forward(x, w, v) * probe).sum()), b.copy()), 1e-6)
    no_weight = run("native_group_norm_backward", probe, x, mean, rstd, None, 2, 4, 3, 2,
                    [True, False, True])
    assert no_weight[1] is None

    def unweighted(v: np.ndarray) -> float:
        return float((run("native_group_norm", v, None, None, 2, 4, 3, 2, 1e-5)[0] * probe).sum())

    close(no_weight[0], numeric_grad(unweighted, x.copy()), 1e-6)
    close(no_weight[2], db)


def test_group_and_layer_norm_with_empty_batch() -> None:
    x = np.zeros((0, 4, 3))
    out, mean, rstd = run("native_group_norm", x, None, None, 0, 4, 3, 2, 1e-5)
    assert out.shape == x.shape and mean.shape == rstd.shape == (0, 2)
    grads = run("native_group_norm_backward", x, x, mean, rstd, np.ones(4), 0, 4, 3, 2,
                [True, True, True])
    close(grads[1], np.zeros(4))
    assert run("layer_norm", x, [3]).shape == x.shape
