"""Completeness: the core dialect holds exactly the 193 overloads of
core_aten_ops.txt; every registry agrees with the op table both ways (every op
has a shape rule and a kernel, every non-core op a decomposition or a tag
saying why not, no entry for an unknown op, each entry in its family's file);
the facts on the rows of the op table are valid."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import texport.dialects.op_table as op_table
from texport.dialects import shape_rules
from texport.dialects.aten import level_dialect
from texport.dialects.registry import OPS, schema_key, schema_text_key
from texport.dialects.schema import parse_schema
from texport.dialects.shape_rules import SHAPE_RULES, STRIDE_RULES
from texport.dialects.tags import FAMILIES, Facts, TagError
from texport.interpreter import kernels
from texport.interpreter.kernels import KERNELS
from texport.lowering import decompositions
from texport.lowering.table import DECOMPOSITIONS


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


# ---------------------------------------------------------------- registries against the table
TABLE = [OPS[key] for key in OPS.keys() if OPS[key].family is not None]  # custom ops have none
LAYERS = {"shape rule": SHAPE_RULES, "kernel": KERNELS, "decomposition": DECOMPOSITIONS}
# Modules of a layer that hold no op's entries: helpers and derivations.
HELPERS = {"__init__", "common", "guards", "infer", "loader", "variants", "_common", "strides", "layout",
           "conv_by_offsets"}


@pytest.mark.parametrize("concern", ["shape rule", "kernel"])
def test_every_op_has_a_shape_rule_and_a_kernel(concern: str) -> None:
    missing = sorted(op.key for op in TABLE if op.key not in LAYERS[concern])
    assert not missing, f"{len(missing)} ops lack a {concern}: {', '.join(missing)}"


@pytest.mark.parametrize("concern", LAYERS)
def test_no_entry_for_an_op_outside_the_table(concern: str) -> None:
    unknown = sorted(key for key in LAYERS[concern].keys() if key not in OPS)
    assert not unknown, f"{concern}s registered for ops not in the table: {', '.join(unknown)}"


def test_every_non_core_op_decomposes_or_is_tagged_why_not() -> None:
    """Ops that write reach the functional level by functionalization; every
    other non-core op has a decomposition, or a tag saying why not."""
    why_not = ("kept_in_core", "no_decomposition")
    wrong = []
    for op in TABLE:
        tagged = any(op.has_tag(tag) for tag in why_not)
        if op.is_core or op.schema.is_mutable:
            continue
        if (op.key in DECOMPOSITIONS) == tagged:
            wrong.append(f"{op.key}: {'a decomposition and' if tagged else 'neither a decomposition nor'} {why_not}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("concern", LAYERS)
def test_every_entry_lives_in_its_ops_family_file(concern: str) -> None:
    registry = LAYERS[concern]
    wrong = [f"{op.key}: {registry[op.key].__module__}, family {op.family}" for op in TABLE
             if op.key in registry and registry[op.key].__module__.rsplit(".", 1)[1] != op.family]
    assert not wrong, "\n".join(wrong)


def test_every_view_has_a_stride_rule() -> None:
    """A view's strides follow from its input's: torch's reshape decides view or
    copy by them, and a view torch refuses must be refused."""
    missing = sorted(op.key for op in TABLE if (op.schema.is_view or op.has_tag("inplace_view"))
                     and op.key not in STRIDE_RULES)
    assert not missing, f"views without a stride rule: {', '.join(missing)}"


def test_stride_rules_are_for_table_ops_and_written_ones_live_in_their_family_file() -> None:
    unknown = sorted(key for key in STRIDE_RULES.keys() if key not in OPS)
    derived = "texport.dialects.shape_rules.variants"  # in-place and pointwise ops: no family of their own
    wrong = [f"{op.key}: {STRIDE_RULES[op.key].__module__}, family {op.family}" for op in TABLE
             if op.key in STRIDE_RULES and STRIDE_RULES[op.key].__module__ not in (derived, f"texport.dialects."
                                                                                  f"shape_rules.{op.family}")]
    assert not unknown and not wrong, "\n".join(unknown + wrong)


@pytest.mark.parametrize("package", [shape_rules, kernels, decompositions], ids=lambda p: p.__name__)
def test_every_family_file_is_named_after_a_family(package: ModuleType) -> None:
    names = {path.stem for path in Path(package.__file__).parent.glob("*.py")}
    assert names - HELPERS <= set(FAMILIES), sorted(names - HELPERS - set(FAMILIES))


# ---------------------------------------------------------------- facts on the rows


def test_core_tagged_rows_are_exactly_the_reference_list() -> None:
    core_rows = {(schema_key(parse_schema(row.schema)), row.schema) for row in op_table.table_rows()
                 if "core" in row.facts.tags}
    assert core_rows == set(op_table.core_schemas())


def test_every_row_has_a_family() -> None:
    assert {OPS[key].family for key in OPS.keys() if key.startswith("aten.")} == set(FAMILIES)


def test_an_unknown_tag_or_family_is_an_error() -> None:
    with pytest.raises(TagError, match=r"op_table.txt:2: unknown tag 'shiny' \(known: core, pointwise"):
        op_table.parse_table("family: elementwise\naten::neg(Tensor self) -> Tensor  [core, shiny]")
    with pytest.raises(TagError, match="op_table.txt:1: unknown family 'maths'"):
        op_table.parse_table("family: maths")
    with pytest.raises(TagError, match="tag 'view_copy' needs a value"):
        op_table.parse_table("family: views\naten::t_copy(Tensor self) -> Tensor  [view_copy]")


def test_a_row_reads_its_tags_and_the_view_it_copies() -> None:
    (row,) = op_table.parse_table("family: views\naten::t_copy(Tensor self) -> Tensor  [view_copy=t]")
    assert row == op_table.Row("aten::t_copy(Tensor self) -> Tensor", Facts(frozenset({"view_copy"}), "t"), "views")
    assert OPS["t_copy"].copied_view == "aten.t.default" and OPS["t_copy"].has_tag("view_copy")


def test_tags_agree_with_the_schemas() -> None:
    """A tag never contradicts what the schema says (writes, aliasing)."""
    wrong = []
    for op_def in map(OPS.__getitem__, OPS.keys()):
        schema = op_def.schema
        if op_def.has_tag("inplace_view") and not schema.is_mutable:
            wrong.append(f"{op_def.key}: inplace_view but writes nothing")
        if op_def.has_tag("view_copy") and (op_def.copied_view not in OPS or not OPS[op_def.copied_view].schema.is_view):
            wrong.append(f"{op_def.key}: view_copy of {op_def.copied_view}, not a view in the table")
        if op_def.is_core and (op_def.has_tag("kept_in_core") or op_def.has_tag("no_decomposition")):
            wrong.append(f"{op_def.key}: core, and tagged as a non-core op")
    assert not wrong, "\n".join(wrong)


def test_keys_read_off_the_schema_text_are_the_parsed_keys() -> None:
    # the op table registers rows by their text's head and parses a schema when first used
    rows = op_table.table_rows()
    assert [schema_text_key(r.schema) for r in rows] == [schema_key(parse_schema(r.schema)) for r in rows]
    assert schema_text_key("mylib::foo(Tensor x) -> Tensor") == "mylib.foo.default"
