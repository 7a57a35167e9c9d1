"""exponential draws and gumbel_softmax: the Exp(lambda) law, the Gumbel-max law
(argmax frequencies follow softmax(logits)), hard samples one-hot, seeded repeats."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_checks import run

import texport
import texport.nn.functional as F


def test_exponential_draws_follow_exp_lambda() -> None:
    draws = run("exponential", np.zeros(200000, np.float32), 2.0)
    assert draws.dtype == np.float32 and (draws >= 0).all()
    assert abs(draws.mean() - 0.5) < 0.01 and abs(np.median(draws) - np.log(2) / 2) < 0.01


def test_exponential_refuses_a_non_positive_lambda() -> None:
    with pytest.raises(RuntimeError, match="expects lambda > 0.0, but found lambda=0.0"):
        run("exponential", np.zeros(3, np.float32), 0.0)


def test_gumbel_max_frequencies_follow_the_softmax() -> None:
    logits = np.log(np.array([0.5, 0.3, 0.2], np.float32))
    texport.manual_seed(0)
    samples = F.gumbel_softmax(texport.tensor(np.tile(logits, (40000, 1))), hard=True).numpy()
    assert set(np.unique(samples)) == {0.0, 1.0} and (samples.sum(-1) == 1).all()
    np.testing.assert_allclose(samples.mean(0), [0.5, 0.3, 0.2], atol=0.01)


def test_soft_samples_are_distributions_and_repeat_under_a_seed() -> None:
    logits = texport.randn(5, 7)
    texport.manual_seed(4)
    first = F.gumbel_softmax(logits, tau=0.3, dim=0).numpy()
    np.testing.assert_allclose(first.sum(0), np.ones(7), rtol=1e-6)
    texport.manual_seed(4)
    np.testing.assert_array_equal(F.gumbel_softmax(logits, tau=0.3, dim=0).numpy(), first)


def test_eps_is_deprecated() -> None:
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(texport.randn(2, 3), eps=1e-5)
