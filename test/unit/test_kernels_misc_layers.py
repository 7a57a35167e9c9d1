"""channel_shuffle and conv_tbc kernels against formulas written out here, the
layers around them (Fold/Unfold, LocalResponseNorm) against
numpy references, and their refusals of bad shapes."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_checks import run

import texport
import texport.nn as nn
import texport.nn.functional as F

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



def test_grouped_mm_groups_rows_columns_and_the_contraction() -> None:
    a3, b3 = rand(2, 4, 8), rand(2, 8, 8)
    np.testing.assert_allclose(run("_grouped_mm", a3, b3), np.stack([a3[0] @ b3[0], a3[1] @ b3[1]]), rtol=1e-5)
    rows = rand(6, 8)
    out = run("_grouped_mm", rows, b3, np.array([2, 5], np.int32))
    np.testing.assert_allclose(out[:5], np.concatenate([rows[:2] @ b3[0], rows[2:5] @ b3[1]]), rtol=1e-5, atol=1e-6)
    wide = rand(8, 8)
    out = run("_grouped_mm", a3, wide, np.array([4, 8], np.int32))
    np.testing.assert_allclose(out, np.concatenate([a3[0] @ wide[:, :4], a3[1] @ wide[:, 4:]], 1), rtol=1e-5, atol=1e-6)
    a2, b2 = rand(4, 8), rand(8, 4)
    out = run("_grouped_mm", a2, b2, np.array([4, 8], np.int32))
    np.testing.assert_allclose(out, np.stack([a2[:, :4] @ b2[:4], a2[:, 4:] @ b2[4:]]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("args", "message"), [
    ((rand(2, 4, 8), rand(2, 8, 6)), "strides should be multiple of 16 bytes"),
    ((rand(2, 4, 8), rand(3, 8, 8)), "batched dimension has to match"),
    ((rand(6, 8), rand(2, 8, 8)), "Have to provide offsets"),
    ((rand(6, 8), rand(2, 8, 8), np.array([2, 6])), "Offsets have to be int32"),
    ((rand(6, 8).astype(np.float64), rand(2, 8, 8).astype(np.float64), np.array([2, 6], np.int32)),
     "Expected mat_a to be Float32, BFloat16 or Float16 matrix, got Double"),
])
def test_grouped_mm_refusals(args: tuple, message: str) -> None:
    with pytest.raises(Exception, match=message):
        F.grouped_mm(*(texport.tensor(a) for a in args[:2]), offs=texport.tensor(args[2]) if len(args) > 2 else None)


def test_scaling_enums_and_the_float8_matmuls() -> None:
    assert [(m.name, int(m)) for m in F.ScalingType] == [
        ("TensorWise", 0), ("RowWise", 1), ("BlockWise1x16", 2), ("BlockWise1x32", 3), ("BlockWise1x128", 4),
        ("BlockWise128x128", 5)]
    assert [(m.name, int(m)) for m in F.SwizzleType] == [("NO_SWIZZLE", 0), ("SWIZZLE_32_4_4", 1)]
    assert repr(F.ScalingType.RowWise) == "<_ScalingType.RowWise: 1>"
    a, scale = texport.randn(16, 32), texport.tensor(1.0)
    with pytest.raises(ValueError, match="Invalid scaling configuration"):
        F.scaled_mm(a, a.t(), scale, F.ScalingType.TensorWise, scale, F.ScalingType.TensorWise)
    with pytest.raises(NotImplementedError, match="_scaled_grouped_mm_v2' with arguments from the 'CPU' backend"):
        F.scaled_grouped_mm(a, a.t(), scale, F.ScalingType.TensorWise, scale, F.ScalingType.TensorWise)
