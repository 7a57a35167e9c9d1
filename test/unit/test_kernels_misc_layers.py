"""channel_shuffle and conv_tbc kernels against formulas written out here, the
layers around them (Fold/Unfold, LocalResponseNorm) against
numpy references, and their refusals of bad shapes."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_checks import run

import texport
import texport.nn as nn

RNG = np.random.default_rng(5)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("op", ["channel_shuffle", "native_channel_shuffle"])
def test_channel_shuffle(op: str) -> None:
    x = np.arange(2 * 6 * 2, dtype=np.float32).reshape(2, 6, 2)
    out = run(op, x, 3)
    groups, per_group = 3, 2
    for c in range(6):  # output channel j·g + i is input channel i·k + j
        j, i = divmod(c, groups)
        np.testing.assert_array_equal(out[:, c], x[:, i * per_group + j])


def test_channel_shuffle_refusals() -> None:
    with pytest.raises(Exception, match="expects input with > 2 dims"):
        run("channel_shuffle", rand(2, 6), 2)
    with pytest.raises(Exception, match="Got 5 channels and 2 groups"):
        run("channel_shuffle", rand(2, 5, 3), 2)
    with pytest.raises(Exception, match="must be positive"):
        run("channel_shuffle", rand(2, 6, 3), 0)


@pytest.mark.parametrize("pad", [0, 1, 2])
def test_conv_tbc(pad: int) -> None:
    x, w, b = rand(6, 2, 3), rand(3, 3, 4), rand(4)
    out = run("conv_tbc", x, w, b, pad)
    steps = 6 + 2 * pad - 3 + 1
    expected = np.tile(b, (steps, 2, 1)).astype(np.float64)
    for t in range(steps):
        for k in range(3):
            source = t + k - pad
            if 0 <= source < 6:
                expected[t] += x[source] @ w[k]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_conv_tbc_refusals() -> None:
    with pytest.raises(Exception, match="input channels"):
        run("conv_tbc", rand(5, 2, 3), rand(2, 4, 5), rand(5), 1)
    with pytest.raises(Exception, match="Bias size"):
        run("conv_tbc", rand(5, 2, 3), rand(2, 3, 5), rand(4), 1)


def test_unfold_then_fold_counts_each_pixel_once_per_block() -> None:
    x = texport.ones(1, 2, 4, 4)
    columns = nn.Unfold(2)(x)
    assert tuple(columns.shape) == (1, 8, 9)
    counts = nn.Fold((4, 4), 2)(columns).numpy()[0, 0]
    rows = np.array([1, 2, 2, 1])
    np.testing.assert_array_equal(counts, np.outer(rows, rows))


def test_local_response_norm_matches_the_formula() -> None:
    x = rand(2, 5, 3, 3)
    out = nn.LocalResponseNorm(3, alpha=0.2, beta=0.6, k=1.5)(texport.tensor(x)).numpy()
    expected = np.empty_like(x)
    for c in range(5):
        window = x[:, max(0, c - 1): min(5, c + 2)] ** 2
        expected[:, c] = x[:, c] / (1.5 + 0.2 * window.sum(1) / 3) ** 0.6
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)

