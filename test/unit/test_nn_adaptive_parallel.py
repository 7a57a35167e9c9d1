"""AdaptiveLogSoftmaxWithLoss against its own definition (the log-probability
of each target class, read off a softmax over the head and the clusters
computed in numpy), DataParallel and SyncBatchNorm on the CPU."""

from __future__ import annotations

import numpy as np
import pytest

import texport
import texport.nn as nn

RNG = np.random.default_rng(16)


def log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


def full_log_prob(model: nn.AdaptiveLogSoftmaxWithLoss, x: np.ndarray) -> np.ndarray:
    """log p(c) = head[c] for the shortlist; head[cluster] + cluster[c - start] for a tail class."""
    head = log_softmax(x @ model.head.weight.numpy().T)
    columns = [head[:, :model.shortlist_size]]
    for i, (first, second) in enumerate(model.tail):
        cluster = log_softmax(x @ first.weight.numpy().T @ second.weight.numpy().T)
        columns.append(cluster + head[:, model.shortlist_size + i:model.shortlist_size + i + 1])
    return np.concatenate(columns, 1)


def test_adaptive_log_softmax_layout() -> None:
    model = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
    assert list(model.state_dict()) == ["head.weight", "tail.0.0.weight", "tail.0.1.weight", "tail.1.0.weight",
                                        "tail.1.1.weight"]
    assert tuple(model.tail[1][0].weight.shape) == (2, 8)  # 8 // 2**2 hidden units
    assert (model.cutoffs, model.shortlist_size, model.n_clusters, model.head_size) == ([3, 6, 10], 3, 2, 5)
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])


def test_adaptive_log_softmax_outputs_are_the_targets_log_probabilities() -> None:
    model = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
    x = RNG.standard_normal((6, 8)).astype(np.float32)
    target = np.array([0, 4, 9, 2, 7, 5])
    expected = full_log_prob(model, x)
    np.testing.assert_allclose(model.log_prob(texport.tensor(x)).numpy(), expected, rtol=1e-5, atol=1e-6)
    result = model(texport.tensor(x), texport.tensor(target))
    assert result._fields == ("output", "loss")
    picked = expected[np.arange(6), target]
    np.testing.assert_allclose(result.output.numpy(), picked, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result.loss.numpy(), -picked.mean(), rtol=1e-5)
    np.testing.assert_array_equal(model.predict(texport.tensor(x)).numpy(), expected.argmax(1))
    single = model(texport.tensor(x[1]), texport.tensor(np.array(4)))
    np.testing.assert_allclose(single.output.numpy(), picked[1], rtol=1e-5)
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        model(texport.tensor(x[:2]), texport.tensor(np.array([0, 10])))


def test_data_parallel_calls_its_module() -> None:
    inner = nn.Linear(3, 2)
    parallel = nn.DataParallel(inner, device_ids=[0])
    assert parallel.module is inner and parallel.device_ids == []
    assert list(parallel.state_dict()) == ["module.weight", "module.bias"]
    x = texport.randn(4, 3)
    np.testing.assert_array_equal(parallel(x).numpy(), inner(x).numpy())


def test_sync_batch_norm_is_a_batch_norm_of_any_rank() -> None:
    norm = nn.SyncBatchNorm(3)
    x = RNG.standard_normal((2, 3, 2, 2, 2)).astype(np.float32)
    out = norm(texport.tensor(x)).numpy()
    mean, var = x.mean((0, 2, 3, 4), keepdims=True), x.var((0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        norm(texport.ones(3))
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3, affine=False))
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert type(converted[1]) is nn.SyncBatchNorm and converted[1].running_mean is model[1].running_mean
    assert converted[1].weight is None
