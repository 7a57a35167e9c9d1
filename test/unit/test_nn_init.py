"""texport.nn.init and the layers' default initialisation: bounds and
statistics as torch's formulas give them, and reproducibility under manual_seed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import texport
import texport.nn as nn
from texport.nn import init


def values(t: texport.Tensor) -> np.ndarray:
    return np.asarray(t.numpy(), dtype=np.float64).ravel()


def assert_uniform(sample: np.ndarray, bound: float, bins: int = 8, slack: float = 0.15) -> None:
    """All within ±bound, reaching near it, with flat histogram and variance bound²/3."""
    assert np.abs(sample).max() <= bound * (1 + 1e-6)
    assert np.abs(sample).max() > bound * 0.97
    counts, _ = np.histogram(sample, bins=bins, range=(-bound, bound))
    expected = sample.size / bins
    assert np.all(np.abs(counts - expected) < slack * expected), counts
    assert abs(sample.var() - bound**2 / 3) < 0.05 * bound**2 / 3
    assert abs(sample.mean()) < 0.05 * bound


# ---------------------------------------------------------------- layer defaults


def test_linear_default_init_is_kaiming_uniform_with_bound_one_over_sqrt_fan_in() -> None:
    texport.manual_seed(0)
    layer = nn.Linear(256, 256)
    assert_uniform(values(layer.weight), 1 / 16)
    bias = values(layer.bias)
    assert np.abs(bias).max() <= 1 / 16 and np.abs(bias).max() > 0.9 / 16
    assert layer.weight.dtype is texport.float32 and layer.weight.requires_grad


def test_conv_default_init_bounds() -> None:
    texport.manual_seed(0)
    conv = nn.Conv2d(8, 16, 3)  # fan_in = 8 * 3 * 3 = 72
    assert_uniform(values(conv.weight), 1 / math.sqrt(72), slack=0.3)
    assert np.abs(values(conv.bias)).max() <= 1 / math.sqrt(72)
    grouped = nn.Conv2d(8, 16, 3, groups=4)  # weight [16, 2, 3, 3]: fan_in = 18
    assert tuple(grouped.weight.shape) == (16, 2, 3, 3)
    assert 0.9 / math.sqrt(18) < np.abs(values(grouped.weight)).max() <= 1 / math.sqrt(18)


def test_conv_transpose_fan_in_reads_weight_dim_one_like_torch() -> None:
    texport.manual_seed(0)
    deconv = nn.ConvTranspose2d(8, 4, 3)  # weight [8, 4, 3, 3]; torch's fan_in = 4 * 9 = 36
    assert tuple(deconv.weight.shape) == (8, 4, 3, 3)
    assert init._calculate_fan_in_and_fan_out(deconv.weight) == (36, 72)
    top = np.abs(values(deconv.weight)).max()
    assert 0.9 / 6 < top <= 1 / 6  # not 1/sqrt(72) ≈ 0.118
    assert np.abs(values(deconv.bias)).max() <= 1 / 6


def test_embedding_is_standard_normal_with_zero_padding_row() -> None:
    texport.manual_seed(0)
    emb = nn.Embedding(1000, 16, padding_idx=-1)
    assert emb.padding_idx == 999
    table = emb.weight.numpy()
    assert np.all(table[999] == 0)
    sample = table[:999].ravel().astype(np.float64)
    assert abs(sample.mean()) < 0.03 and abs(sample.std() - 1) < 0.03


def test_norm_layers_start_as_identity_transforms() -> None:
    bn = nn.BatchNorm2d(3)
    assert bn.weight.tolist() == [1.0] * 3 and bn.bias.tolist() == [0.0] * 3
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3
    assert bn.num_batches_tracked.dtype is texport.int64 and bn.num_batches_tracked.dim() == 0
    ln = nn.LayerNorm((2, 3))
    assert ln.weight.tolist() == [[1.0] * 3] * 2 and ln.bias.tolist() == [[0.0] * 3] * 2
    gn = nn.GroupNorm(2, 4)
    assert gn.weight.tolist() == [1.0] * 4 and gn.bias.tolist() == [0.0] * 4


def test_multihead_attention_init() -> None:
    texport.manual_seed(0)
    mha = nn.MultiheadAttention(32, 4)
    bound = math.sqrt(6 / (32 + 96))  # xavier on [3E, E]
    assert_uniform(values(mha.in_proj_weight), bound, slack=0.2)
    assert np.all(values(mha.in_proj_bias) == 0) and np.all(values(mha.out_proj.bias) == 0)
    assert np.abs(values(mha.out_proj.weight)).max() <= 1 / math.sqrt(32)


# ---------------------------------------------------------------- init functions


def test_init_functions_fill_in_place_and_return_the_tensor() -> None:
    t = texport.empty(3, 4)
    assert init.constant_(t, 2.5) is t and np.all(t.numpy() == 2.5)
    assert init.zeros_(t) is t and np.all(t.numpy() == 0)
    assert init.ones_(t) is t and np.all(t.numpy() == 1)
    assert init.eye_(t) is t and np.array_equal(t.numpy(), np.eye(3, 4))
    assert init.uniform_(t, 2.0, 3.0) is t and np.all((t.numpy() >= 2) & (t.numpy() < 3))
    assert init.normal_(t) is t


def test_normal_family_standard_deviations() -> None:
    texport.manual_seed(3)
    t = texport.empty(400, 300)
    init.xavier_normal_(t, gain=2.0)
    assert abs(values(t).std() - 2 * math.sqrt(2 / 700)) < 0.02 * 2 * math.sqrt(2 / 700)
    init.kaiming_normal_(t, nonlinearity="relu")  # std = sqrt(2 / fan_in)
    assert abs(values(t).std() - math.sqrt(2 / 300)) < 0.02 * math.sqrt(2 / 300)
    init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    assert abs(values(t).std() - math.sqrt(2 / 400)) < 0.02 * math.sqrt(2 / 400)
    init.normal_(t, 5.0, 0.5)
    assert abs(values(t).mean() - 5) < 0.01 and abs(values(t).std() - 0.5) < 0.01


def test_uniform_family_bounds() -> None:
    texport.manual_seed(4)
    t = texport.empty(200, 100)
    init.xavier_uniform_(t)
    assert_uniform(values(t), math.sqrt(6 / 300))
    init.kaiming_uniform_(t, a=0, nonlinearity="relu")  # bound = sqrt(6 / fan_in)
    assert_uniform(values(t), math.sqrt(6 / 100))


def test_trunc_normal_stays_in_bounds_with_truncated_moments() -> None:
    texport.manual_seed(5)
    t = texport.empty(20000)
    init.trunc_normal_(t, mean=1.0, std=2.0, a=-1.0, b=3.0)  # ±1 std around the mean
    sample = values(t)
    assert sample.min() >= -1.0 and sample.max() <= 3.0
    # a normal truncated at ±1σ has std σ·sqrt(1 - 2φ(1)/(2Φ(1)-1)) ≈ 0.5376σ
    phi = math.exp(-0.5) / math.sqrt(2 * math.pi)
    big_phi = 0.5 * (1 + math.erf(1 / math.sqrt(2)))
    expected_std = 2.0 * math.sqrt(1 - 2 * phi / (2 * big_phi - 1))
    assert abs(sample.mean() - 1.0) < 0.03 and abs(sample.std() - expected_std) < 0.02
    # inverse-CDF sampling: the quartiles match the truncated normal's
    quartile = np.quantile((sample - 1.0) / 2.0, 0.75)
    expected_quartile = math.sqrt(2) * _erfinv_reference(0.5 * (2 * big_phi - 1))
    assert abs(quartile - expected_quartile) < 0.02


def _erfinv_reference(y: float) -> float:
    """erfinv by bisection on math.erf (an independent reference)."""
    low, high = -6.0, 6.0
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if math.erf(mid) < y else (low, mid)
    return (low + high) / 2


def test_calculate_gain_table() -> None:
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01**2)))
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    assert init.calculate_gain("selu") == pytest.approx(0.75)
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


def test_fans_and_their_errors() -> None:
    assert init._calculate_fan_in_and_fan_out(texport.empty(6, 4, 3, 2)) == (24, 36)
    assert init._calculate_fan_in_and_fan_out(texport.empty(5, 7)) == (7, 5)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(texport.empty(5))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(texport.empty(2, 2), mode="fan_avg")
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(texport.empty(0, 3))


# ---------------------------------------------------------------- reproducibility


def build() -> nn.Module:
    return nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.Flatten(), nn.Linear(12, 5),
                         nn.Embedding(7, 3), nn.MultiheadAttention(4, 2))


def test_manual_seed_makes_models_reproducible() -> None:
    texport.manual_seed(42)
    first = build().state_dict()
    texport.manual_seed(42)
    second = build().state_dict()
    texport.manual_seed(43)
    third = build().state_dict()
    assert list(first) == list(second)
    for name in first:
        np.testing.assert_array_equal(first[name].numpy(), second[name].numpy(), err_msg=name)
    assert not np.array_equal(first["0.weight"].numpy(), third["0.weight"].numpy())
    assert not np.array_equal(first["4.weight"].numpy(), third["4.weight"].numpy())
