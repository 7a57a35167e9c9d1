"""BatchNorm, InstanceNorm, LayerNorm, GroupNorm and RMSNorm against their formulas in numpy."""

from __future__ import annotations

import numpy as np
import pytest

import texport
import texport.nn as nn

RNG = np.random.default_rng(11)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def t(array: np.ndarray) -> texport.Tensor:
    return texport.tensor(array)


def close(actual: texport.Tensor | np.ndarray, expected: np.ndarray, tol: float = 1e-5) -> None:
    values = actual.numpy() if isinstance(actual, texport.Tensor) else actual
    np.testing.assert_allclose(values, expected, rtol=tol, atol=tol)


def with_affine(layer: nn.Module, channels: int) -> tuple[np.ndarray, np.ndarray]:
    weight, bias = rand(channels), rand(channels)
    layer.weight.copy_(t(weight))
    layer.bias.copy_(t(bias))
    return weight, bias


# ---------------------------------------------------------------- BatchNorm


def test_batch_norm2d_training_step() -> None:
    bn = nn.BatchNorm2d(3)
    weight, bias = with_affine(bn, 3)
    x = rand(4, 3, 2, 5) * 2 + 1
    mean_buffer, var_buffer = bn.running_mean, bn.running_var
    mean_storage = mean_buffer.numpy()
    y = bn(t(x))
    axes = (0, 2, 3)
    mean = x.mean(axis=axes, dtype=np.float64)
    biased = x.var(axis=axes, dtype=np.float64)
    unbiased = x.var(axis=axes, ddof=1, dtype=np.float64)
    shape = (1, 3, 1, 1)
    expected = (x - mean.reshape(shape)) / np.sqrt(biased.reshape(shape) + 1e-5) * weight.reshape(shape)
    close(y, expected + bias.reshape(shape), 1e-4)
    # running stats move by the momentum formula, in place (same objects, same storage)
    assert bn.running_mean is mean_buffer and bn.running_var is var_buffer
    close(mean_storage, 0.9 * 0 + 0.1 * mean)
    close(bn.running_var, 0.9 * 1 + 0.1 * unbiased)
    tracked = bn.num_batches_tracked
    assert tracked.dtype is texport.int64 and tracked.dim() == 0 and int(tracked) == 1
    bn(t(x))
    assert int(bn.num_batches_tracked) == 2
    close(bn.running_mean, 0.9 * (0.1 * mean) + 0.1 * mean)


def test_batch_norm_momentum_none_is_a_cumulative_average() -> None:
    bn = nn.BatchNorm1d(2, momentum=None)
    first, second = rand(6, 2), rand(6, 2) + 3
    bn(t(first))
    close(bn.running_mean, first.mean(0))  # factor 1/1
    bn(t(second))
    close(bn.running_mean, (first.mean(0) + second.mean(0)) / 2)  # factor 1/2
    close(bn.running_var, (first.var(0, ddof=1) + second.var(0, ddof=1)) / 2)
    assert int(bn.num_batches_tracked) == 2


def test_batch_norm_eval_uses_running_stats_and_leaves_them() -> None:
    bn = nn.BatchNorm2d(2, eps=1e-3)
    weight, bias = with_affine(bn, 2)
    running_mean, running_var = np.array([0.5, -1.0], np.float32), np.array([2.0, 0.25], np.float32)
    bn.running_mean.copy_(t(running_mean))
    bn.running_var.copy_(t(running_var))
    bn.eval()
    x = rand(3, 2, 4, 4)
    shape = (1, 2, 1, 1)
    expected = (x - running_mean.reshape(shape)) / np.sqrt(running_var.reshape(shape) + 1e-3)
    close(bn(t(x)), expected * weight.reshape(shape) + bias.reshape(shape), 1e-4)
    close(bn.running_mean, running_mean)
    close(bn.running_var, running_var)
    assert int(bn.num_batches_tracked) == 0


def test_batch_norm1d_on_sequences_and_input_checks() -> None:
    bn = nn.BatchNorm1d(3, affine=False)
    assert list(bn.named_parameters()) == []
    x = rand(4, 3, 5)
    mean = x.mean(axis=(0, 2), keepdims=True)
    var = x.var(axis=(0, 2), keepdims=True)
    close(bn(t(x)), (x - mean) / np.sqrt(var + 1e-5), 1e-4)
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        bn(t(rand(1, 3, 2, 2)))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(3)(t(x))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training, "
                                         r"got input size texport.Size\(\[1, 3\]\)"):
        bn(t(rand(1, 3)))


def test_batch_norm_without_running_stats_always_uses_the_batch() -> None:
    bn = nn.BatchNorm1d(2, track_running_stats=False)
    assert bn.running_mean is None and bn.num_batches_tracked is None
    assert list(bn.state_dict()) == ["weight", "bias"]
    x = rand(5, 2)
    expected = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    close(bn(t(x)), expected, 1e-4)
    bn.eval()
    close(bn(t(x)), expected, 1e-4)


def test_batch_norm_repr_and_state_dict_versions() -> None:
    bn = nn.BatchNorm2d(4, momentum=None)
    assert repr(bn) == "BatchNorm2d(4, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)"
    state = bn.state_dict()
    assert state._metadata[""] == {"version": 2}
    # a plain dict (no version) may omit num_batches_tracked, as torch's old checkpoints did
    plain = {k: v for k, v in state.items() if k != "num_batches_tracked"}
    assert bn.load_state_dict(plain).missing_keys == []
    # a versioned state dict may not
    del state["num_batches_tracked"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
        bn.load_state_dict(state)


# ---------------------------------------------------------------- LayerNorm, GroupNorm


def test_layer_norm_over_trailing_dims() -> None:
    ln = nn.LayerNorm((3, 4), eps=1e-6)
    weight, bias = rand(3, 4), rand(3, 4)
    ln.weight.copy_(t(weight))
    ln.bias.copy_(t(bias))
    x = rand(2, 5, 3, 4)
    mean = x.mean(axis=(2, 3), keepdims=True)
    var = x.var(axis=(2, 3), keepdims=True)
    close(ln(t(x)), (x - mean) / np.sqrt(var + 1e-6) * weight + bias, 1e-4)
    assert repr(ln) == "LayerNorm((3, 4), eps=1e-06, elementwise_affine=True)"


def test_layer_norm_affine_options() -> None:
    x = rand(3, 6)
    normalized = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    plain = nn.LayerNorm(6, elementwise_affine=False)
    assert plain.weight is None and list(plain.state_dict()) == []
    close(plain(t(x)), normalized, 1e-4)
    no_bias = nn.LayerNorm(6, bias=False)
    assert list(no_bias.state_dict()) == ["weight"] and no_bias.bias is None
    close(no_bias(t(x)), normalized, 1e-4)


def test_group_norm_formula() -> None:
    gn = nn.GroupNorm(2, 6)
    weight, bias = with_affine(gn, 6)
    x = rand(3, 6, 2, 3)
    groups = x.reshape(3, 2, -1)
    normalized = (groups - groups.mean(-1, keepdims=True)) / np.sqrt(groups.var(-1, keepdims=True) + 1e-5)
    expected = normalized.reshape(x.shape) * weight.reshape(1, 6, 1, 1) + bias.reshape(1, 6, 1, 1)
    close(gn(t(x)), expected, 1e-4)
    assert repr(gn) == "GroupNorm(2, 6, eps=1e-05, affine=True)"
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)


# ---------------------------------------------------------------- InstanceNorm, RMSNorm


def instance_normalized(x: np.ndarray) -> np.ndarray:
    axes = tuple(range(2, x.ndim))
    return (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)


def test_instance_norm_normalizes_each_sample_and_channel() -> None:
    norm = nn.InstanceNorm2d(3, affine=True)
    weight, bias = with_affine(norm, 3)
    x = rand(2, 3, 4, 5)
    close(norm(t(x)), instance_normalized(x) * weight.reshape(1, 3, 1, 1) + bias.reshape(1, 3, 1, 1), 1e-4)
    assert repr(norm) == "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False)"
    assert list(nn.InstanceNorm1d(3).state_dict()) == []
    unbatched = rand(3, 6)  # InstanceNorm1d without the batch dim: one sample
    close(nn.InstanceNorm1d(3)(t(unbatched)), instance_normalized(unbatched[None])[0], 1e-4)
    with pytest.raises(ValueError, match="expected 4D or 5D input"):
        nn.InstanceNorm3d(3)(t(rand(3, 4)))


def test_instance_norm_running_stats_average_the_samples() -> None:
    norm = nn.InstanceNorm1d(2, track_running_stats=True)
    assert list(norm.state_dict()) == ["running_mean", "running_var", "num_batches_tracked"]
    x = rand(3, 2, 5)
    norm(t(x))
    close(norm.running_mean, 0.1 * x.mean(2).mean(0))
    close(norm.running_var, 0.9 + 0.1 * x.var(2, ddof=1).mean(0))
    norm.eval()  # eval: the running statistics normalize
    mean, var = norm.running_mean.numpy(), norm.running_var.numpy()
    close(norm(t(x)), (x - mean[:, None]) / np.sqrt(var[:, None] + 1e-5), 1e-4)


def test_rms_norm_formula_and_surface() -> None:
    norm = nn.RMSNorm([2, 3], eps=1e-3)
    weight = rand(2, 3)
    norm.weight.copy_(t(weight))
    x = rand(4, 2, 3)
    root_mean_square = np.sqrt((x ** 2).mean((1, 2), keepdims=True) + 1e-3)
    close(norm(t(x)), x / root_mean_square * weight, 1e-4)
    assert repr(norm) == "RMSNorm((2, 3), eps=0.001, elementwise_affine=True)"
    plain = nn.RMSNorm(3, elementwise_affine=False)
    assert plain.weight is None and list(plain.state_dict()) == [] and plain.eps is None
    assert np.all(nn.RMSNorm(3).weight.numpy() == 1)
