"""CrossMapLRN2d against torch's legacy sliding-window loop, written out in numpy."""

from __future__ import annotations

import numpy as np
import pytest

import texport
import texport.nn as nn


def sliding_lrn(x: np.ndarray, size: int, alpha: float, beta: float, k: float) -> np.ndarray:
    """torch's loop: the first window sums channels < pre_pad; each next one adds
    channel c + pre_pad - 1 and drops channel c - pre_pad only when c > pre_pad."""
    square = x.astype(np.float64) ** 2
    channels = x.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    scale = np.zeros_like(square)
    scale[:, 0] = square[:, :min(pre_pad, channels)].sum(1)
    for c in range(1, channels):
        scale[:, c] = scale[:, c - 1]
        if c < channels - pre_pad + 1:
            scale[:, c] += square[:, c + pre_pad - 1]
        if c > pre_pad:
            scale[:, c] -= square[:, c - pre_pad]
    return x * (scale * alpha / size + k) ** -beta


@pytest.mark.parametrize(("size", "channels"), [(3, 5), (5, 8), (1, 3), (2, 4), (9, 6)])
def test_cross_map_lrn2d_is_torchs_sliding_window(size: int, channels: int) -> None:
    x = np.random.default_rng(size).standard_normal((2, channels, 3, 2)).astype(np.float32)
    out = nn.CrossMapLRN2d(size, 1e-2, 0.75, 2)(texport.tensor(x)).numpy()
    np.testing.assert_allclose(out, sliding_lrn(x, size, 1e-2, 0.75, 2), rtol=1e-5, atol=1e-6)


def test_cross_map_lrn2d_repr_and_rank() -> None:
    layer = nn.CrossMapLRN2d(3)
    assert repr(layer) == "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"
    with pytest.raises(ValueError, match="Expected input to be 4D, got 3D instead"):
        layer(texport.ones(2, 3, 4))
