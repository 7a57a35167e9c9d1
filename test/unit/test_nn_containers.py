"""Sequential, ModuleList and ModuleDict: structure, naming, indexing, mutation."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import texport
import texport.nn as nn


class Add(nn.Module):
    def __init__(self, amount: float) -> None:
        super().__init__()
        self.amount = amount

    def forward(self, x: texport.Tensor) -> texport.Tensor:
        return x + self.amount

    def extra_repr(self) -> str:
        return f"amount={self.amount}"


def amounts(container: nn.Module) -> list[float]:
    return [m.amount for m in container]


# ---------------------------------------------------------------- Sequential


def test_sequential_chains_children_in_order() -> None:
    seq = nn.Sequential(Add(1), nn.ReLU(), Add(10))
    x = texport.tensor([-5.0, 2.0])
    assert seq(x).tolist() == [10.0, 13.0]  # relu(x + 1) + 10
    assert list(seq._modules) == ["0", "1", "2"]
    assert len(seq) == 3 and isinstance(seq[1], nn.ReLU)


def test_sequential_from_ordered_dict_keeps_names() -> None:
    seq = nn.Sequential(OrderedDict([("first", Add(1)), ("second", Add(2))]))
    assert [name for name, _ in seq.named_children()] == ["first", "second"]
    assert seq.first.amount == 1 and seq[-1].amount == 2


def test_sequential_indexing_and_slicing() -> None:
    modules = [Add(i) for i in range(4)]
    seq = nn.Sequential(*modules)
    assert seq[0] is modules[0] and seq[-1] is modules[3] and seq[-4] is modules[0]
    with pytest.raises(IndexError, match="index 4 is out of range"):
        seq[4]
    with pytest.raises(IndexError, match="index -5 is out of range"):
        seq[-5]
    tail = seq[1:3]
    assert isinstance(tail, nn.Sequential) and list(tail) == modules[1:3]
    assert list(tail._modules) == ["1", "2"]  # slices keep the original keys, as torch
    assert amounts(seq[::2]) == [0, 2]


def test_sequential_mutation_renumbers() -> None:
    seq = nn.Sequential(Add(0), Add(1), Add(2))
    assert seq.append(Add(3)) is seq
    assert list(seq._modules) == ["0", "1", "2", "3"]
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"] and amounts(seq) == [0, 2, 3]
    del seq[0:2]
    assert list(seq._modules) == ["0"] and amounts(seq) == [3]
    seq[0] = Add(7)
    seq.insert(0, Add(5))
    seq.extend([Add(8)])
    assert amounts(seq) == [5, 7, 8] and list(seq._modules) == ["0", "1", "2"]
    popped = seq.pop(1)
    assert popped.amount == 7 and amounts(seq) == [5, 8]
    joined = seq + nn.Sequential(Add(9))
    assert amounts(joined) == [5, 8, 9] and list(joined._modules) == ["0", "1", "2"]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        seq + [Add(1)]


def test_sequential_parameters_are_prefixed_by_index() -> None:
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1, bias=False))
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "2.weight"]


# ---------------------------------------------------------------- ModuleList


def test_module_list_registers_children() -> None:
    layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
    holder = nn.Module()
    holder.layers = layers
    assert [n for n, _ in holder.named_parameters()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias",
    ]
    with pytest.raises(NotImplementedError, match=r"Module \[ModuleList\] is missing"):
        layers(texport.zeros(2))


def test_module_list_list_operations() -> None:
    mods = nn.ModuleList()
    assert len(mods) == 0
    mods.append(Add(0)).extend([Add(1), Add(2)])
    mods += [Add(3)]
    assert amounts(mods) == [0, 1, 2, 3] and mods[-1].amount == 3
    mods.insert(1, Add(9))
    assert amounts(mods) == [0, 9, 1, 2, 3] and list(mods._modules) == ["0", "1", "2", "3", "4"]
    del mods[0]
    assert amounts(mods) == [9, 1, 2, 3] and list(mods._modules) == ["0", "1", "2", "3"]
    sliced = mods[1:3]
    assert isinstance(sliced, nn.ModuleList) and list(sliced._modules) == ["0", "1"]
    assert amounts(sliced) == [1, 2]
    mods[0] = Add(4)
    assert mods.pop(0).amount == 4 and amounts(mods) == [1, 2, 3]
    assert amounts(mods + nn.ModuleList([Add(5)])) == [1, 2, 3, 5]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        mods[3]
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, but got Add"):
        mods.extend(Add(1))


def test_module_list_repr_compresses_repeats() -> None:
    mods = nn.ModuleList([Add(1), Add(1), Add(1), Add(2)])
    assert repr(mods) == (
        "ModuleList(\n  (0-2): 3 x Add(amount=1)\n  (3): Add(amount=2)\n)"
    )
    assert repr(nn.ModuleList()) == "ModuleList()"


# ---------------------------------------------------------------- ModuleDict


def test_module_dict_keeps_insertion_order() -> None:
    heads = nn.ModuleDict({"b": nn.Linear(1, 1), "a": nn.Linear(1, 2)})
    heads["c"] = nn.ReLU()
    assert list(heads) == ["b", "a", "c"] and list(heads.keys()) == ["b", "a", "c"]
    assert "a" in heads and "z" not in heads and len(heads) == 3
    assert [n for n, _ in heads.named_parameters()] == ["b.weight", "b.bias", "a.weight", "a.bias"]
    assert isinstance(heads.pop("c"), nn.ReLU) and list(heads) == ["b", "a"]
    del heads["b"]
    assert list(heads.values())[0] is heads["a"]
    assert [k for k, _ in heads.items()] == ["a"]
    heads.clear()
    assert len(heads) == 0


def test_module_dict_update_from_pairs_and_errors() -> None:
    heads = nn.ModuleDict([("x", Add(1)), ("y", Add(2))])
    heads.update(nn.ModuleDict({"z": Add(3)}))
    assert list(heads) == ["x", "y", "z"]
    with pytest.raises(ValueError, match="ModuleDict update sequence element #0 has length 3; 2 is required"):
        heads.update([("a", Add(1), 3)])
    with pytest.raises(TypeError, match="ModuleDict.update should be called with an iterable"):
        heads.update(3)


def test_containers_run_numerically() -> None:
    texport.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 5
    w0, b0 = model[0].weight.numpy(), model[0].bias.numpy()
    w2, b2 = model[2].weight.numpy(), model[2].bias.numpy()
    expected = np.maximum(x @ w0.T + b0, 0) @ w2.T + b2
    np.testing.assert_allclose(model(texport.tensor(x)).numpy(), expected, rtol=1e-5, atol=1e-6)
