"""``texport.ops.aten.<name>.<overload>`` handles, spelled as torch spells them."""

from __future__ import annotations

import pytest

import texport
from texport.tracer.handles import handle_for


def test_overload_handles_carry_torch_schemas() -> None:
    add_ = texport.ops.aten.add_.Tensor
    assert str(add_._schema) == (
        "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
    )
    assert add_._schema.is_mutable
    assert add_.name() == "aten::add_.Tensor"
    assert str(add_) == "aten.add_.Tensor"
    conv = texport.ops.aten.conv2d.default
    assert conv.name() == "aten::conv2d"
    assert not conv._schema.is_mutable
    assert [a.name for a in conv._schema.arguments][:3] == ["input", "weight", "bias"]


def test_handles_are_unique_and_hashable() -> None:
    assert texport.ops.aten.add.Tensor is texport.ops.aten.add.Tensor
    assert handle_for("add.Tensor") is texport.ops.aten.add.Tensor
    table = {texport.ops.aten.relu.default: "kept"}
    assert table[handle_for("aten.relu.default")] == "kept"


def test_packets_list_overloads() -> None:
    overloads = set(texport.ops.aten.add.overloads())
    assert {"Tensor", "Scalar"} <= overloads
    assert str(texport.ops.aten.add) == "aten.add"


def test_unknown_names_fail_like_torch() -> None:
    with pytest.raises(AttributeError, match="'_OpNamespace' 'aten' object has no attribute 'nope'"):
        _ = texport.ops.aten.nope
    with pytest.raises(AttributeError, match="has no overload name 'Banana'"):
        _ = texport.ops.aten.add.Banana
