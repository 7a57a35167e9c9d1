"""texport.nn's loss modules (torch's loss.py) and their functional forms:
numbers against numpy formulas, buffers and state-dict keys as torch registers
them, and the deprecated size_average/reduce pair."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import texport
import texport.nn as nn
import texport.nn.functional as F

RNG = np.random.default_rng(16)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def unit(*shape: int) -> np.ndarray:
    return (RNG.random(shape) * 0.98 + 0.01).astype(np.float32)


def t(array: np.ndarray) -> texport.Tensor:
    return texport.tensor(array)


def close(actual: texport.Tensor, expected: np.ndarray, tol: float = 1e-5) -> None:
    assert tuple(actual.shape) == np.shape(expected)
    np.testing.assert_allclose(actual.numpy(), expected, rtol=tol, atol=tol)


def test_binary_cross_entropy_matches_numpy() -> None:
    x, y, w = unit(4, 5), unit(4, 5), unit(5)
    per = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
    close(F.binary_cross_entropy(t(x), t(y)), np.float32(per.mean()))
    close(F.binary_cross_entropy(t(x), t(y), weight=t(w), reduction="sum"), np.float32((per * w).sum()))
    close(F.binary_cross_entropy(t(x), t(y), reduction="none"), per)


def test_binary_cross_entropy_rejects_other_target_size() -> None:
    with pytest.raises(ValueError, match="target size"):
        F.binary_cross_entropy(t(unit(4, 5)), t(unit(4, 1)))


def test_modules_match_numpy() -> None:
    x, y = rand(4, 5), rand(4, 5)
    close(nn.L1Loss()(t(x), t(y)), np.float32(np.abs(x - y).mean()))
    close(nn.MSELoss(reduction="sum")(t(x), t(y)), np.float32(((x - y) ** 2).sum()), 1e-4)
    d = np.abs(x - y)
    close(nn.SmoothL1Loss(beta=0.5)(t(x), t(y)), np.float32(np.where(d < 0.5, 0.5 * d * d / 0.5, d - 0.25).mean()))
    close(nn.HuberLoss(delta=0.7)(t(x), t(y)), np.float32(np.where(d < 0.7, 0.5 * d * d, 0.7 * (d - 0.35)).mean()))
    p, q = unit(4, 5), unit(4, 5)
    close(nn.BCELoss()(t(p), t(q)), np.float32((-(q * np.log(p) + (1 - q) * np.log1p(-p))).mean()))
    w, pw = unit(5), unit(5) * 3
    logsig = -np.logaddexp(0, -x)
    logsig_neg = -np.logaddexp(0, x)
    bce = -w * (pw * q * logsig + (1 - q) * logsig_neg)
    close(nn.BCEWithLogitsLoss(weight=t(w), pos_weight=t(pw))(t(x), t(q)), np.float32(bce.mean()))
    classes = np.array([0, 3, 1, 4])
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    close(nn.CrossEntropyLoss()(t(x), t(classes)), np.float32(-logp[np.arange(4), classes].mean()))
    close(nn.NLLLoss(weight=t(w), reduction="none")(t(logp), t(classes)), -(w[classes] * logp[np.arange(4), classes]))


def test_weight_buffers_and_state_dict_keys() -> None:
    w = texport.ones(5)
    assert list(nn.BCEWithLogitsLoss(weight=w, pos_weight=w).state_dict()) == ["weight", "pos_weight"]
    assert list(nn.BCEWithLogitsLoss().state_dict()) == []
    assert list(dict(nn.BCEWithLogitsLoss().named_buffers())) == []
    assert nn.BCEWithLogitsLoss().weight is None and nn.BCEWithLogitsLoss().pos_weight is None
    for cls in (nn.BCELoss, nn.CrossEntropyLoss, nn.NLLLoss):
        assert list(cls(weight=w).state_dict()) == ["weight"]
        assert cls().weight is None
    assert list(nn.MSELoss().state_dict()) == []


def test_constructor_defaults_and_legacy_reduction() -> None:
    ce = nn.CrossEntropyLoss()
    assert (ce.ignore_index, ce.reduction, ce.label_smoothing) == (-100, "mean", 0.0)
    assert nn.SmoothL1Loss().beta == 1.0 and nn.HuberLoss().delta == 1.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert nn.MSELoss(size_average=False).reduction == "sum"
        assert nn.L1Loss(reduce=False).reduction == "none"
        assert nn.NLLLoss(size_average=True, reduce=True).reduction == "mean"
    assert len(caught) == 3 and "deprecated" in str(caught[0].message)


def signs(*shape: int) -> np.ndarray:
    return np.where(RNG.random(shape) < 0.5, -1.0, 1.0).astype(np.float32)


def test_soft_margin_loss_matches_numpy() -> None:
    x, y = rand(4, 5), signs(4, 5)
    per = np.log1p(np.exp(-x * y))
    close(F.soft_margin_loss(t(x), t(y)), np.float32(per.mean()))
    close(F.soft_margin_loss(t(x), t(y), reduction="none"), per)
    close(nn.SoftMarginLoss(reduction="sum")(t(x), t(y)), np.float32(per.sum()), 1e-4)


def test_margin_ranking_loss_matches_numpy() -> None:
    a, b, y = rand(4, 5), rand(4, 5), signs(4, 5)
    per = np.maximum(-y * (a - b) + 0.3, 0)
    close(F.margin_ranking_loss(t(a), t(b), t(y), margin=0.3), np.float32(per.mean()))
    close(F.margin_ranking_loss(t(a), t(b), t(y), 0.3, reduction="none"), per)
    close(nn.MarginRankingLoss(margin=0.3, reduction="sum")(t(a), t(b), t(y)), np.float32(per.sum()), 1e-4)
    assert nn.MarginRankingLoss().margin == 0.0


def test_margin_ranking_loss_rejects_mixed_dims() -> None:
    with pytest.raises(RuntimeError, match="same dimension"):
        F.margin_ranking_loss(t(rand(4)), t(rand(4)), t(signs(1, 4)))


def test_kl_div_matches_numpy() -> None:
    x, y = rand(4, 5), unit(4, 5)
    y[0, :2] = 0
    per = np.where(y == 0, 0, y * np.log(np.where(y == 0, 1, y))) - y * x
    close(F.kl_div(t(x), t(y), reduction="none"), per)
    close(F.kl_div(t(x), t(y), reduction="batchmean"), np.float32(per.sum() / 4), 1e-4)
    close(F.kl_div(t(x), t(y), reduction="sum"), np.float32(per.sum()), 1e-4)
    with pytest.warns(UserWarning, match="batchmean"):
        close(F.kl_div(t(x), t(y)), np.float32(per.mean()))
    z = rand(4, 5)
    close(F.kl_div(t(x), t(z), reduction="none", log_target=True), np.exp(z) * (z - x), 1e-4)
    loss = nn.KLDivLoss(reduction="batchmean", log_target=True)
    assert loss.log_target and loss.reduction == "batchmean"
    close(loss(t(x), t(z)), np.float32((np.exp(z) * (z - x)).sum() / 4), 1e-4)


def test_poisson_nll_loss_matches_numpy() -> None:
    x, y = rand(4, 5), RNG.integers(0, 6, (4, 5)).astype(np.float32)
    close(F.poisson_nll_loss(t(x), t(y)), np.float32((np.exp(x) - y * x).mean()), 1e-4)
    rate = unit(4, 5) * 4
    with np.errstate(divide="ignore", invalid="ignore"):
        stirling = np.where(y <= 1, 0, y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y))
    per = rate - y * np.log(rate + 1e-8) + stirling
    close(F.poisson_nll_loss(t(rate), t(y), log_input=False, full=True, reduction="none"), per, 1e-4)
    loss = nn.PoissonNLLLoss(log_input=False, full=True, reduction="sum")
    assert (loss.log_input, loss.full, loss.eps) == (False, True, 1e-8)
    close(loss(t(rate), t(y)), np.float32(per.sum()), 1e-4)
    with pytest.raises(ValueError, match="not a valid value"):
        F.poisson_nll_loss(t(x), t(y), reduction="batchmean")


def test_gaussian_nll_loss_matches_numpy() -> None:
    x, y, var = rand(4, 5), rand(4, 5), unit(4, 5)
    var[0, 0] = 1e-9
    clamped = np.maximum(var, 1e-6)
    per = 0.5 * (np.log(clamped) + (x - y) ** 2 / clamped)
    close(F.gaussian_nll_loss(t(x), t(y), t(var), reduction="none"), per, 1e-4)
    close(nn.GaussianNLLLoss(full=True)(t(x), t(y), t(var)), np.float32((per + 0.5 * np.log(2 * np.pi)).mean()), 1e-4)
    row_var = unit(4)
    per_row = 0.5 * (np.log(row_var[:, None]) + (x - y) ** 2 / row_var[:, None])
    close(F.gaussian_nll_loss(t(x), t(y), t(row_var), reduction="sum"), np.float32(per_row.sum()), 1e-3)
    close(F.gaussian_nll_loss(t(x), t(y), 0.5), np.float32((0.5 * (np.log(0.5) + (x - y) ** 2 / 0.5)).mean()), 1e-4)
    kept = t(var)
    F.gaussian_nll_loss(t(x), t(y), kept)
    np.testing.assert_array_equal(kept.numpy(), var)  # the clamp is on a clone
    loss = nn.GaussianNLLLoss()
    assert (loss.full, loss.eps, loss.reduction) == (False, 1e-6, "mean")


def test_gaussian_nll_loss_errors() -> None:
    x = t(rand(4, 5))
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(x, x, -1.0)
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(x, x, t(-unit(4, 5)))
    with pytest.raises(ValueError, match="incorrect size"):
        F.gaussian_nll_loss(x, x, t(unit(3, 2)))
    with pytest.raises(ValueError, match="not valid"):
        F.gaussian_nll_loss(x, x, t(unit(4, 5)), reduction="batchmean")
