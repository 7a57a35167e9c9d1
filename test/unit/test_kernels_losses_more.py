"""Kernels of the margin and embedding losses (hinge, cosine embedding, triplet,
multi-class and multi-label margin) and of empty_permuted, each against a formula
written out here element by element, and against its shape rule."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kernel_checks import run

RNG = np.random.default_rng(7)
NONE, MEAN, SUM = 0, 1, 2


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def close(actual: np.ndarray, expected: object) -> None:
    np.testing.assert_allclose(actual, np.asarray(expected, np.float32), rtol=1e-5, atol=1e-6)


def test_hinge_embedding_loss() -> None:
    x = np.array([[0.5, -2.0, 3.0]], np.float32)
    y = np.array([[1.0, -1.0, -1.0]], np.float32)
    # y = 1: x; y = -1: max(0, margin - x)
    close(run("hinge_embedding_loss", x, y, 1.0, NONE), [[0.5, 3.0, 0.0]])
    close(run("hinge_embedding_loss", x, y, 2.0, SUM), 0.5 + 4.0 + 0.0)
    close(run("hinge_embedding_loss", x, y), (0.5 + 3.0) / 3)


def test_cosine_embedding_loss() -> None:
    a, b = rand(3, 4), rand(3, 4)
    y = np.array([1.0, -1.0, -1.0], np.float32)
    expected = []
    for row in range(3):
        cos = (a[row] @ b[row]) / np.sqrt((a[row] @ a[row] + 1e-12) * (b[row] @ b[row] + 1e-12))
        expected.append(1 - cos if y[row] == 1 else max(0.0, cos - 0.1))
    close(run("cosine_embedding_loss", a, b, y, 0.1, NONE), expected)
    close(run("cosine_embedding_loss", a, b, y, 0.1), np.mean(expected))
    vector = run("cosine_embedding_loss", a[0], b[0], np.array(1.0, np.float32), 0.0, NONE)
    close(vector, expected[0])


def test_cosine_embedding_loss_rejects_a_2d_target() -> None:
    with pytest.raises(Exception, match="0D or 1D target"):
        run("cosine_embedding_loss", rand(3, 4), rand(3, 4), rand(3, 1))


@pytest.mark.parametrize(("p", "swap"), [(2.0, False), (1.0, True), (3.0, False)])
def test_triplet_margin_loss(p: float, swap: bool) -> None:
    a, pos, neg = rand(4, 5), rand(4, 5), rand(4, 5)

    def dist(u: np.ndarray, v: np.ndarray) -> float:
        return float(np.sum(np.abs(u - v + 1e-6) ** p) ** (1 / p))

    expected = []
    for row in range(4):
        d_neg = dist(a[row], neg[row])
        if swap:
            d_neg = min(d_neg, dist(pos[row], neg[row]))
        expected.append(max(0.0, 0.5 + dist(a[row], pos[row]) - d_neg))
    close(run("triplet_margin_loss", a, pos, neg, 0.5, p, 1e-6, swap, NONE), expected)
    close(run("triplet_margin_loss", a, pos, neg, 0.5, p, 1e-6, swap, SUM), np.sum(expected))


def test_triplet_margin_loss_rejects_other_ranks() -> None:
    with pytest.raises(Exception, match="same number of dimensions"):
        run("triplet_margin_loss", rand(4, 5), rand(4, 5), rand(5))


@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss(p: int) -> None:
    x, y, w = rand(3, 4), np.array([2, 0, 3]), np.abs(rand(4))
    expected = []
    for n in range(3):
        total = sum(w[y[n]] * max(0.0, 0.7 - x[n, y[n]] + x[n, i]) ** p for i in range(4) if i != y[n])
        expected.append(total / 4)
    close(run("multi_margin_loss", x, y, p, 0.7, w, NONE), expected)
    close(run("multi_margin_loss", x, y, p, 0.7, w, MEAN), np.mean(expected))
    close(run("multi_margin_loss", x, y, p, 0.7, None, SUM),
          sum(sum(max(0.0, 0.7 - x[n, y[n]] + x[n, i]) ** p for i in range(4) if i != y[n]) / 4 for n in range(3)))


def test_multi_margin_loss_of_a_vector_is_0d() -> None:
    x = np.array([0.1, 0.2, 0.4], np.float32)
    close(run("multi_margin_loss", x, np.array(1), 1, 1.0, None, NONE), (1 - 0.2 + 0.1 + 1 - 0.2 + 0.4) / 3)


def test_multi_margin_loss_rejects_p3() -> None:
    with pytest.raises(Exception, match="only p == 1 and p == 2"):
        run("multi_margin_loss", rand(3, 4), np.array([0, 1, 2]), 3)


def _multilabel(x: np.ndarray, y: np.ndarray) -> tuple[list[float], np.ndarray]:
    losses, is_target = [], np.zeros_like(x)
    for n in range(x.shape[0]):
        labels = list(itertools.takewhile(lambda label: label != -1, y[n]))
        is_target[n, labels] = 1
        others = [i for i in range(x.shape[1]) if i not in labels]
        losses.append(sum(max(0.0, 1 - x[n, j] + x[n, i]) for j in labels for i in others) / x.shape[1])
    return losses, is_target


def test_multilabel_margin_loss_forward() -> None:
    x = rand(4, 5)
    y = np.array([[0, 3, -1, 1, 2], [4, -1, 0, 0, 0], [0, 1, 2, 3, 4], [2, 2, -1, -1, 3]])
    expected, is_target = _multilabel(x, y)
    output, mask = run("multilabel_margin_loss_forward", x, y, NONE)
    close(output, expected)
    close(mask, is_target)
    close(run("multilabel_margin_loss_forward", x, y, MEAN)[0], np.mean(expected))
    close(run("multilabel_margin_loss", x, y, SUM), np.sum(expected))


def test_multilabel_margin_loss_rejects_another_target_shape() -> None:
    with pytest.raises(Exception, match="inconsistent target size"):
        run("multilabel_margin_loss_forward", rand(4, 5), np.zeros((4, 4), np.int64), MEAN)


def test_empty_permuted_lays_dims_out_in_the_given_order() -> None:
    out = run("empty_permuted", [2, 3, 4], [2, 0, 1])
    assert out.shape == (2, 3, 4) and out.dtype == np.float32
    assert tuple(s // 4 for s in out.strides) == (3, 1, 6)
    assert not out.any()


def test_empty_permuted_rejects_a_layout_that_is_not_a_permutation() -> None:
    with pytest.raises(Exception, match="physical_layout"):
        run("empty_permuted", [2, 3], [0, 0])
