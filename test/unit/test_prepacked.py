"""Packed linear weights (interpreter/prepacked.py): from a weight's first use on,
linear multiplies by a row-major copy of weight.T; every write to the weight's
memory, by any route texport sees, drops the copy, and memory the user shares is
never packed. Each test checks the numbers against numpy's own product of the
weight as it is now."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import texport as torch
from texport.interpreter import prepacked

F = torch.nn.functional
RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    prepacked.clear()
    yield
    prepacked.clear()


def reference(x: torch.Tensor, weight: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    out = x.numpy().astype(np.float64) @ weight.astype(np.float64).T
    return out if bias is None else out + bias


def check(out: torch.Tensor, x: torch.Tensor, weight: np.ndarray, bias: np.ndarray | None = None) -> None:
    np.testing.assert_allclose(out.numpy(), reference(x, weight, bias), rtol=1e-5, atol=1e-5)


def warm(lin: torch.nn.Linear, x: torch.Tensor) -> None:
    """A call packs the weight (asserted, so the tests below test the packed path)."""
    lin(x)
    assert any(entry[0]() is lin.weight._value for entry in prepacked._PACKED.values())


def test_linear_by_a_packed_weight_gives_the_product() -> None:
    lin, x = torch.nn.Linear(16, 32), torch.randn(8, 16)
    warm(lin, x)
    check(lin(x), x, lin.weight._value, lin.bias._value)
    x3 = torch.randn(2, 5, 16)  # batched input: one GEMM of the folded rows
    np.testing.assert_allclose(lin(x3).numpy(), reference(x3, lin.weight._value, lin.bias._value), rtol=1e-5, atol=1e-5)


def test_few_rows_do_not_pack() -> None:
    lin, x = torch.nn.Linear(16, 32), torch.randn(2, 16)
    for _ in range(3):
        check(lin(x), x, lin.weight._value, lin.bias._value)
    assert not prepacked._PACKED


@pytest.mark.parametrize("write", ["mul_", "view_fill_", "transposed_add_", "copy_", "setitem",
                                   "load_state_dict", "data_mul_"])
def test_a_write_to_the_weight_drops_its_packed_copy(write: str) -> None:
    lin, x = torch.nn.Linear(16, 32), torch.randn(8, 16)
    warm(lin, x)
    with torch.no_grad():
        if write == "mul_":
            lin.weight.mul_(2.0)
        elif write == "view_fill_":
            lin.weight[3].fill_(1.5)
        elif write == "transposed_add_":
            lin.weight.t().add_(1.0)
        elif write == "copy_":
            lin.weight.copy_(torch.randn(32, 16))
        elif write == "setitem":
            lin.weight[:, 2] = 7.0
        elif write == "load_state_dict":
            lin.load_state_dict({"weight": torch.randn(32, 16), "bias": torch.randn(32)})
        else:
            lin.weight.data.mul_(-1.0)
    expected = lin.weight._value.copy()
    check(lin(x), x, expected, lin.bias._value)
    check(lin(x), x, expected, lin.bias._value)  # packed anew, from the new values


def test_memory_shared_with_numpy_is_never_packed() -> None:
    lin, x = torch.nn.Linear(16, 32), torch.randn(8, 16)
    warm(lin, x)
    held = lin.weight.detach().numpy()  # the caller may write it at any time from now on
    for value in (0.5, -2.0):
        held[:] = value
        check(lin(x), x, np.full((32, 16), value, np.float32), lin.bias._value)
    array = RNG.standard_normal((32, 16)).astype(np.float32)
    lin.weight = torch.nn.Parameter(torch.from_numpy(array))
    for _ in range(3):
        array *= 2.0
        check(lin(x), x, array, lin.bias._value)
    assert not prepacked._PACKED


def test_apply_writes_are_seen() -> None:
    lin, x = torch.nn.Linear(16, 32), torch.randn(8, 16)
    warm(lin, x)
    with torch.no_grad():
        lin.weight.apply_(lambda v: v * 3.0)
    check(lin(x), x, lin.weight._value.copy(), lin.bias._value)


class DecayingWeight(torch.nn.Module):
    """A weight buffer the program itself halves each call, then multiplies by."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("weight", torch.randn(32, 16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.weight.mul_(0.5)
        return F.linear(x, self.weight)


@pytest.mark.parametrize("level", ["training", "functional", "core"])
def test_a_program_writing_its_weight_runs_with_the_new_values(level: str) -> None:
    x = torch.randn(8, 16)
    model = DecayingWeight()
    start = model.weight._value.copy()
    ep = torch.export.export(model, (x,))
    if level != "training":
        ep = ep.run_decompositions({} if level == "functional" else None)
    module = ep.module()
    weight = start.copy()  # export ran the forward on fake values: the buffer is as it was
    for _ in range(4):
        weight = weight * 0.5
        check(module(x), x, weight)


@pytest.mark.parametrize("level", ["training", "core"])
def test_a_programs_parameter_written_between_calls(level: str) -> None:
    x = torch.randn(8, 16)
    ep = torch.export.export(torch.nn.Sequential(torch.nn.Linear(16, 32)), (x,))
    if level == "core":
        ep = ep.run_decompositions()
    module = ep.module()
    for _ in range(3):
        module(x)
    layer = module.get_submodule("0")
    with torch.no_grad():
        layer.weight.mul_(-3.0)
    check(module(x), x, layer.weight._value.copy(), layer.bias._value)


def test_every_call_and_the_exported_program_give_the_same_bits() -> None:
    """Packed on first use: the first call, later calls and ep.module()'s own copy of the
    weight all run the same product."""
    model = torch.nn.Sequential(torch.nn.Linear(300, 50), torch.nn.Linear(50, 64))
    x = torch.randn(3, 300)  # a shape where x @ w.T and x @ (w.T row-major) round differently
    first = model(x).numpy().copy()
    module = torch.export.export(model, (x,)).module()
    for out in (model(x), model(x), module(x), module(x)):
        np.testing.assert_array_equal(out.numpy(), first)
