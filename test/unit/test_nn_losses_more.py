"""The loss modules added for issue 16: numbers against numpy formulas (linear
cross entropy, multi-label soft margin), state-dict keys and reprs as torch's,
and their refusals."""

from __future__ import annotations

import numpy as np
import pytest

import texport
import texport.nn as nn
import texport.nn.functional as F

RNG = np.random.default_rng(3)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def t(array: np.ndarray) -> texport.Tensor:
    return texport.tensor(array)


def test_linear_cross_entropy_is_cross_entropy_of_the_logits() -> None:
    x, w, b = rand(4, 5), rand(7, 5), rand(7)
    target = np.array([0, 6, 3, 3])
    logits = x @ w.T + b
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = -logp[np.arange(4), target].mean()
    out = F.linear_cross_entropy(t(x), t(w), t(target), linear_bias=t(b))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)


def test_linear_cross_entropy_loss_module() -> None:
    loss = nn.LinearCrossEntropyLoss(5, 3, out_features=(2,), bias=True)
    assert list(loss.state_dict()) == ["linear.weight", "linear.bias"]
    assert tuple(loss.linear.weight.shape) == (6, 5)
    x, target = rand(4, 5), RNG.integers(0, 3, (4, 2))
    logits = (x @ loss.linear.weight.numpy().T + loss.linear.bias.numpy()).reshape(4, 3, 2)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    expected = -np.take_along_axis(logp, target[:, None, :], 1).mean()
    np.testing.assert_allclose(loss(t(x), t(target)).numpy(), expected, rtol=1e-5)
    assert "in_features=5, num_classes=3, out_features=(2,), bias=True, reduction=mean" in repr(loss)
    with_weight = nn.LinearCrossEntropyLoss(5, 3, weight=texport.ones(3))
    assert list(with_weight.state_dict()) == ["weight", "linear.weight"]


def test_linear_cross_entropy_refusals() -> None:
    with pytest.raises(RuntimeError, match="expected weight shape to be \\(3,\\), got \\(4,\\)"):
        nn.LinearCrossEntropyLoss(5, 3, weight=texport.ones(4))
    with pytest.raises(RuntimeError, match="label_smoothing to be in range"):
        nn.LinearCrossEntropyLoss(5, 3, label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="expected equal input and linear_weight last dimensions"):
        F.linear_cross_entropy(t(rand(4, 5)), t(rand(3, 6)), t(np.zeros(4, np.int64)))


def test_multilabel_soft_margin_loss_matches_numpy() -> None:
    x, y, w = rand(4, 5), (RNG.random((4, 5)) < 0.5).astype(np.float32), rand(5) ** 2
    logsig = -np.logaddexp(0, -x)
    per = -(y * logsig + (1 - y) * (-np.logaddexp(0, x))) * w
    out = F.multilabel_soft_margin_loss(t(x), t(y), weight=t(w), reduction="none")
    np.testing.assert_allclose(out.numpy(), per.mean(-1), rtol=1e-5)


def test_reprs_and_buffers_as_torchs() -> None:
    assert repr(nn.TripletMarginLoss()) == "TripletMarginLoss()"
    assert list(nn.MultiMarginLoss(weight=texport.ones(3)).state_dict()) == ["weight"]
    assert list(nn.MultiLabelSoftMarginLoss().state_dict()) == []
    assert repr(nn.TripletMarginWithDistanceLoss()) == (
        "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)")
    assert repr(nn.ChannelShuffle(3)) == "ChannelShuffle(groups=3)"
    assert repr(nn.LocalResponseNorm(2)) == "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)"


def test_margin_losses_refuse_bad_arguments() -> None:
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
        F.triplet_margin_loss(t(rand(2, 3)), t(rand(2, 3)), t(rand(2, 3)), margin=0)
    with pytest.raises(ValueError, match="TripletMarginLoss: expected margin to be greater than 0"):
        nn.TripletMarginLoss(margin=-1)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="expected weight to be None or 1D tensor, got 2D"):
        nn.MultiMarginLoss(weight=texport.ones(2, 2))
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        F.hinge_embedding_loss(t(rand(3)), t(rand(3)), reduction="bogus")
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_with_distance_loss(t(rand(2, 3)), t(rand(2, 3)), t(rand(3)))
