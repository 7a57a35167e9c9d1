"""Bilinear (the bilinear and _trilinear kernels), pdist, PairwiseDistance and
CosineSimilarity against explicit-loop and textbook numpy references."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from kernel_checks import run

import texport
import texport.nn as nn
import texport.nn.functional as F
from texport.dialects.shape_rules.guards import ShapeGuardError

RNG = np.random.default_rng(16)


def rand(*shape: int, dtype: type = np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def loop_bilinear(x1: np.ndarray, x2: np.ndarray, w: np.ndarray) -> np.ndarray:
    """y[n, o] = sum_i sum_j x1[n, i] w[o, i, j] x2[n, j], one scalar at a time."""
    out = np.zeros((x1.shape[0], w.shape[0]))
    for n, o, i, j in itertools.product(range(x1.shape[0]), range(w.shape[0]), range(w.shape[1]),
                                        range(w.shape[2])):
        out[n, o] += x1[n, i] * w[o, i, j] * x2[n, j]
    return out


def test_trilinear_as_bilinear_calls_it() -> None:
    x1, w, x2 = rand(4, 3), rand(5, 3, 2), rand(4, 2)
    out = run("_trilinear", x1, w, x2, [1, 3], [0], [1, 2], [2, 3])
    np.testing.assert_allclose(out, loop_bilinear(x1, x2, w), rtol=1e-12)


def test_trilinear_broadcasts_size_one_dims_and_keeps_float32() -> None:
    # i1 [1, 3] against i3 [4, 3]: the size-1 row broadcasts; nothing summed
    i1, i2, i3 = rand(1, 3, dtype=np.float32), rand(3, dtype=np.float32), rand(4, 3, dtype=np.float32)
    out = run("_trilinear", i1, i2, i3, [], [0], [], [])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, i1 * i2[None] * i3, rtol=1e-6)


def test_bilinear_kernel_with_batch_dims_and_bias() -> None:
    x1, x2, w, b = rand(2, 3, 4), rand(2, 3, 5), rand(6, 4, 5), rand(6)
    out = run("bilinear", x1, x2, w, b)
    expected = loop_bilinear(x1.reshape(6, 4), x2.reshape(6, 5), w).reshape(2, 3, 6) + b
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_bilinear_shape_errors_name_both_sizes() -> None:
    with pytest.raises(ShapeGuardError, match="input1 size does not match weight size: got 3 but expected 4"):
        run("bilinear", rand(2, 3), rand(2, 5), rand(6, 4, 5))
    with pytest.raises(ShapeGuardError, match="input batch dimensions do not match: got 2 and 3"):
        run("bilinear", rand(2, 4), rand(3, 5), rand(6, 4, 5))
    with pytest.raises(ShapeGuardError, match="bias size does not match weight size: got 5 but expected 6"):
        run("bilinear", rand(2, 4), rand(2, 5), rand(6, 4, 5), rand(5))


def test_pdist_is_the_upper_triangle_of_pairwise_norms() -> None:
    x = rand(4, 3)
    expected = [np.linalg.norm(x[i] - x[j], 1.0) for i in range(4) for j in range(i + 1, 4)]
    np.testing.assert_allclose(run("pdist", x, 1.0), expected, rtol=1e-12)


def test_bilinear_module_matches_torch_layout_and_init() -> None:
    layer = nn.Bilinear(20, 30, 40)
    assert list(layer.state_dict()) == ["weight", "bias"]
    assert tuple(layer.weight.shape) == (40, 20, 30)
    assert repr(layer) == "Bilinear(in1_features=20, in2_features=30, out_features=40, bias=True)"
    bound = 1 / math.sqrt(20)  # U(-1/sqrt(in1), 1/sqrt(in1)) for weight and bias
    for p in (layer.weight.numpy(), layer.bias.numpy()):
        assert np.abs(p).max() <= bound and np.abs(p).max() > 0.9 * bound
    assert nn.Bilinear(2, 3, 4, bias=False).bias is None
    with pytest.raises(ValueError, match="in1_features must be > 0"):
        nn.Bilinear(0, 3, 4)
    x1, x2 = rand(3, 20, dtype=np.float32), rand(3, 30, dtype=np.float32)
    out = layer(texport.tensor(x1), texport.tensor(x2)).numpy()
    expected = loop_bilinear(x1, x2, layer.weight.numpy().astype(np.float64)) + layer.bias.numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_distance_modules() -> None:
    a, b = rand(3, 5, dtype=np.float32), rand(3, 5, dtype=np.float32)
    distance = nn.PairwiseDistance(1.0, keepdim=True)
    assert (distance.norm, distance.eps, distance.keepdim) == (1.0, 1e-6, True)
    assert repr(distance) == "PairwiseDistance()"
    out = distance(texport.tensor(a), texport.tensor(b)).numpy()
    np.testing.assert_allclose(out, np.abs(a - b + 1e-6).sum(-1, keepdims=True), rtol=1e-5)
    similarity = nn.CosineSimilarity(dim=0)
    out = similarity(texport.tensor(a), texport.tensor(b)).numpy()
    expected = (a * b).sum(0) / (np.linalg.norm(a, axis=0) * np.linalg.norm(b, axis=0))
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    np.testing.assert_allclose(F.pairwise_distance(texport.tensor(a), texport.tensor(b)).numpy(),
                               np.linalg.norm(a - b + 1e-6, axis=-1), rtol=1e-5)
