"""Constant folding in the plan (interpreter/plan_folding.py): what depends on nothing
the call brings runs once at compile time, and nothing the user can reach or write
is ever shared between calls."""

from __future__ import annotations

import math

import numpy as np
import pytest

import texport as torch
import texport.nn.functional as F
from texport.export import Dim, export


def compiled(module: object) -> str:
    return module._compiled().source


def folded_lines(source: str) -> int:
    return sum(" = folded" in line for line in source.splitlines())


class CausalAttention(torch.nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def attention_reference(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(q k^T / sqrt(d) + causal mask) v, in float64."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    length = scores.shape[-1]
    scores = np.where(np.tril(np.ones((length, length), bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return (weights / weights.sum(-1, keepdims=True)) @ v


def test_the_causal_mask_of_decomposed_attention_is_built_once() -> None:
    q, k, v = (torch.randn(2, 4, 16, 8) for _ in range(3))
    module = export(CausalAttention(), (q, k, v)).run_decompositions().module()
    source = compiled(module)
    assert folded_lines(source) >= 8  # full, arange x2, unsqueeze x2, sub, le, logical_and, where...
    for _ in range(2):  # the kept mask serves every call
        out = module(q, k, v).numpy()
        np.testing.assert_allclose(out, attention_reference(q.numpy(), k.numpy(), v.numpy()), atol=1e-5)


class ReturnsConstants(torch.nn.Module):
    def forward(self, x):
        return x + 1, torch.ones(3), torch.arange(6).view(2, 3)


@pytest.mark.parametrize("level", ["training", "core"])
def test_a_constant_the_user_receives_is_made_at_each_call(level: str) -> None:
    """Returned (directly or through a view), a constant is the user's to write."""
    ep = export(ReturnsConstants(), (torch.randn(3),))
    module = (ep if level == "training" else ep.run_decompositions()).module()
    assert folded_lines(compiled(module)) == 0
    _, ones, grid = module(torch.randn(3))
    ones.add_(5)
    grid.mul_(0)
    _, ones_again, grid_again = module(torch.randn(3))
    np.testing.assert_array_equal(ones_again.numpy(), np.ones(3, np.float32))
    np.testing.assert_array_equal(grid_again.numpy(), np.arange(6).reshape(2, 3))


class WritesIntoAConstant(torch.nn.Module):
    def forward(self, x):
        total = torch.zeros(3)
        total.add_(x)
        return total * 2


def test_a_constant_an_op_writes_is_made_at_each_call() -> None:
    module = export(WritesIntoAConstant(), (torch.randn(3),)).module()  # training level: add_ stays
    x = torch.randn(3)
    first, second = module(x).numpy(), module(x).numpy()  # a shared zeros would accumulate x
    np.testing.assert_allclose(first, 2 * x.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(first, second)


class RandomNoise(torch.nn.Module):
    def forward(self, x):
        return x + torch.rand(4)


def test_random_ops_are_not_folded() -> None:
    module = export(RandomNoise(), (torch.zeros(4),)).run_decompositions().module()
    a, b = module(torch.zeros(4)).numpy(), module(torch.zeros(4)).numpy()
    assert not np.array_equal(a, b)


class PositionGrid(torch.nn.Module):
    def forward(self, x):
        return x + torch.arange(x.shape[0]).float()


def test_sizes_read_from_inputs_are_not_folded() -> None:
    batch = Dim("batch", min=2, max=64)
    module = export(PositionGrid(), (torch.randn(5),), dynamic_shapes={"x": {0: batch}}).run_decompositions().module()
    for size in (5, 9):
        x = torch.randn(size)
        np.testing.assert_allclose(module(x).numpy(), x.numpy() + np.arange(size), rtol=1e-6)


class ConstantGrid(torch.nn.Module):
    def forward(self, x):
        return x * torch.arange(4).float().view(2, 2)


def test_a_folded_value_read_through_a_view_stays_folded() -> None:
    """A view of a constant read by an out-of-place op never reaches the user: both fold."""
    module = export(ConstantGrid(), (torch.randn(2, 2),)).run_decompositions().module()
    assert folded_lines(compiled(module)) >= 2
    x = torch.randn(2, 2)
    np.testing.assert_allclose(module(x).numpy(), x.numpy() * np.arange(4).reshape(2, 2), rtol=1e-6)
