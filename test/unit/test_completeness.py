"""Completeness of the registries: every op has a shape rule; the core dialect
holds exactly the 193 overloads of core_aten_ops.txt."""

from __future__ import annotations

import texport.dialects.op_table as op_table
from texport.dialects.aten import level_dialect
from texport.dialects.registry import OPS
from texport.dialects.shape_rules import SHAPE_RULES, load_all


def test_reference_core_list_is_complete() -> None:
    rows = op_table.core_schemas()
    assert len(rows) == 193
    assert len({key.rsplit(".", 1)[0] for key, _ in rows}) == 164


def test_core_dialect_has_every_core_overload() -> None:
    core_names = {op.name for op in level_dialect("core").operations}
    for key, _schema in op_table.core_schemas():
        name = key[len("aten."):].removesuffix(".default")
        assert f"core.{name}" in core_names, key
    assert len(core_names) == 193


def test_levels_are_derived_from_schemas() -> None:
    training = {op.name.split(".", 1)[1] for op in level_dialect("training").operations}
    functional = {op.name.split(".", 1)[1] for op in level_dialect("functional").operations}
    assert "add_.Tensor" in training and "add_.Tensor" not in functional
    assert "conv2d" in functional and "view" in functional
    assert len(training) == len(OPS.keys())


def test_every_op_has_a_shape_rule() -> None:
    load_all()
    missing = sorted(key for key in OPS.keys() if key not in SHAPE_RULES)
    assert not missing, f"{len(missing)} ops lack a shape rule: {', '.join(missing)}"


def test_every_op_has_a_kernel() -> None:
    from texport.interpreter.kernels import KERNELS
    from texport.interpreter.kernels import load_all as load_kernels

    load_kernels()
    missing = sorted(key for key in OPS.keys() if key not in KERNELS)
    assert not missing, f"{len(missing)} ops lack a kernel: {', '.join(missing)}"
    unknown = sorted(key for key in KERNELS.keys() if key not in OPS)
    assert not unknown, f"kernels registered for ops not in the table: {', '.join(unknown)}"
