"""CTC loss against a brute-force sum over every alignment path (collapse repeats,
drop blanks), for padded and concatenated targets, ragged lengths, repeated labels,
impossible alignments; and ctc_loss's reductions and zero_infinity through the
decomposition at every level."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kernel_checks import run

import texport
import texport.nn as nn
import texport.nn.functional as F

RNG = np.random.default_rng(11)


def log_probs(steps: int, batch: int, classes: int) -> np.ndarray:
    return np.log(RNG.dirichlet(np.ones(classes), size=(steps, batch))).astype(np.float32)


def brute_force(lp: np.ndarray, target: list[int], blank: int) -> float:
    """-log Σ over paths π of length T that collapse to target of Π_t p(π_t)."""
    steps, classes = lp.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=steps):
        collapsed = [label for i, label in enumerate(path) if label != blank and (i == 0 or path[i - 1] != label)]
        if collapsed == target:
            total += float(np.exp(sum(lp[t, c] for t, c in enumerate(path))))
    return -np.log(total) if total > 0 else np.inf


@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_forward_sums_every_alignment(blank: int) -> None:
    lp = log_probs(5, 4, 4)
    labels = [c for c in range(4) if c != blank]
    targets = [[labels[0], labels[1]], [labels[2], labels[2]], [labels[1]], []]
    inputs = [5, 4, 5, 3]
    padded = np.zeros((4, 2), np.int64)
    for b, target in enumerate(targets):
        padded[b, :len(target)] = target
    nll, alpha = run("_ctc_loss", lp, padded, inputs, [len(t) for t in targets], blank)
    expected = [brute_force(lp[:inputs[b], b], targets[b], blank) for b in range(4)]
    np.testing.assert_allclose(nll, expected, rtol=1e-5)
    assert alpha.shape == (4, 5, 5)


def test_ctc_concatenated_targets_and_impossible_alignments() -> None:
    lp = log_probs(3, 2, 3)
    # [1, 1, 1] needs 5 steps (blanks between repeats): impossible in 3
    nll, _ = run("_ctc_loss.Tensor", lp, np.array([2, 1, 1, 1]), np.array([3, 3]), np.array([1, 3]))
    np.testing.assert_allclose(nll[0], brute_force(lp[:, 0], [2], 0), rtol=1e-5)
    assert nll[1] == np.inf


def test_ctc_refusals() -> None:
    lp = log_probs(4, 2, 3)
    with pytest.raises(Exception, match="input_lengths must be of size batch_size"):
        run("_ctc_loss", lp, np.ones((2, 2), np.int64), [4], [1, 1])
    with pytest.raises(Exception, match="blank must be in label range"):
        run("_ctc_loss", lp, np.ones((2, 2), np.int64), [4, 4], [1, 1], 3)
    with pytest.raises(RuntimeError, match="Expected tensor to have size at least 3 at dimension 1"):
        run("_ctc_loss", lp, np.ones((2, 2), np.int64), [4, 4], [3, 1])


@pytest.mark.parametrize(("reduction", "zero_infinity"), [("mean", True), ("sum", True), ("none", False)])
def test_ctc_loss_reductions_at_every_level(reduction: str, zero_infinity: bool) -> None:
    lp = log_probs(4, 3, 3)
    targets = np.array([[1, 2], [1, 1], [2, 0]])
    lengths, inputs = [2, 2, 1], [4, 2, 3]  # the second is impossible: [1, 1] in 2 steps
    nll = np.array([brute_force(lp[:inputs[b], b], list(targets[b, :lengths[b]]), 0) for b in range(3)])
    if zero_infinity:
        nll = np.where(np.isinf(nll), 0, nll)
    expected = {"mean": (nll / np.maximum(lengths, 1)).mean(), "sum": nll.sum(), "none": nll}[reduction]

    class Loss(nn.Module):
        def forward(self, x: texport.Tensor, y: texport.Tensor) -> texport.Tensor:
            return F.ctc_loss(x, y, inputs, lengths, reduction=reduction, zero_infinity=zero_infinity)

    x, y = texport.tensor(lp), texport.tensor(targets)
    program = texport.export.export(Loss(), (x, y))
    for module in (Loss(), program.module(), program.run_decompositions({}).module(),
                   program.run_decompositions().module()):
        np.testing.assert_allclose(module(x, y).numpy(), expected, rtol=1e-5)


def test_ctc_loss_module_with_length_tensors_and_an_unbatched_input() -> None:
    lp = log_probs(4, 1, 3)
    loss = nn.CTCLoss(blank=1, reduction="none")
    out = loss(texport.tensor(lp[:, 0]), texport.tensor(np.array([2, 0])), texport.tensor(np.array([4])),
               texport.tensor(np.array([2])))
    assert out.shape == ()
    np.testing.assert_allclose(out.numpy(), brute_force(lp[:, 0], [2, 0], 1), rtol=1e-5)
    assert repr(nn.CTCLoss()) == "CTCLoss()"
