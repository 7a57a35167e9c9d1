"""The declarative rewrite rules: parsing, matching, the rule tables
(in-place renamings, legalizations, canonicalizations)."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.transforms.canonicalize import CanonicalizePass

from texport.dialects.aten import op_class
from texport.dialects.canonicalization import CANONICALIZATIONS
from texport.dialects.context import parse_module, print_module
from texport.dialects.registry import lookup_op
from texport.lowering.patterns import (
    RuleSyntaxError,
    RuleTable,
    parse_rule,
    register_canonicalizations,
    rule_walker,
)
from texport.lowering.rules import CANONICALIZE, INPLACE, LEGALIZE_CORE


def _rewrite(text: str, table: RuleTable) -> str:
    module = parse_module(text)
    rule_walker(table).rewrite_module(module)
    module.verify()
    return print_module(module)


def _canonicalize(text: str) -> str:
    """Stock canonicalize, which finds texport's rules on the ops."""
    module = parse_module(text)
    CanonicalizePass().apply(Context(), module)
    module.verify()
    return print_module(module)


def _func(body: str, args: str = "%x: !tx.tensor<[2, 3], f32>", result: str = "!tx.tensor<[2, 3], f32>") -> str:
    return f"func.func @f({args}) -> {result} {{\n{body}\n}}"


def test_a_rule_line_parses_into_source_result_and_conditions() -> None:
    rule = parse_rule("mul_one: mul.Tensor($x, 1) -> $x if same_type($x)", "x * 1 -> x")
    assert rule.name == "mul_one" and rule.comment == "x * 1 -> x"
    assert rule.source.name == "mul.Tensor" and rule.conditions[0][0] == "same_type"


@pytest.mark.parametrize(("line", "message"), [
    ("no arrow here", "a rule reads"),
    ("bad: nosuchop($x) -> $x", "unknown op 'nosuchop'"),
    ("bad: mul.Tensor($x, 1) -> $x if no_such_check($x)", "unknown condition 'no_such_check'"),
    ("bad: $x -> $x", "must be an op pattern"),
])
def test_malformed_rules_are_clear_errors(line: str, message: str) -> None:
    with pytest.raises(RuleSyntaxError, match=message):
        parse_rule(line)


def test_rule_names_are_unique_in_a_table() -> None:
    with pytest.raises(ValueError, match="duplicate rule"):
        RuleTable("t", "a: neg($x) -> $x\na: abs($x) -> $x")


def test_every_rule_has_an_algebra_comment() -> None:
    for table in (CANONICALIZE, LEGALIZE_CORE, INPLACE):
        for rule in table:
            assert rule.comment, f"{table.name}.{rule.name} has no comment"


def test_inplace_renamings_are_derived_from_schemas() -> None:
    sources = {r.source.name: r for r in INPLACE.rules}
    assert "add_.Tensor" in sources and "relu_" in sources and "dropout_" in sources
    assert "unsqueeze_" not in sources, "in-place view ops are not renamings"
    assert str(INPLACE.rule_named("pow_scalar").result.name) == "pow.Tensor_Scalar"


def test_canonicalize_removes_identities() -> None:
    text = _func("""  %a = functional.mul.Tensor(%x, 1) : !tx.tensor<[2, 3], f32>
  %b = functional.add.Tensor(%a, 0) : !tx.tensor<[2, 3], f32>
  %c = core.clone(%b) : !tx.tensor<[2, 3], f32>
  %d = core.expand(%c, [2, 3]) : !tx.tensor<[2, 3], f32>
  %e = core.permute(%d, [0, 1]) : !tx.tensor<[2, 3], f32>
  func.return %e : !tx.tensor<[2, 3], f32>""")
    out = _canonicalize(text)
    assert "func.return %x" in out and "functional." not in out and "core." not in out


def test_canonicalize_keeps_what_changes_types() -> None:
    text = _func("""  %b = functional.mul.Tensor(%x, 1.0) : !tx.tensor<[2, 3], f32>
  func.return %b : !tx.tensor<[2, 3], f32>""", "%x: !tx.tensor<[2, 3], i64>")
    out = _canonicalize(text)
    assert out.count("functional.mul.Tensor") == 1  # int * 1.0 is a float: not x


def test_canonicalize_folds_view_and_transpose_chains() -> None:
    text = _func("""  %a = core.view(%x, [3, 2]) : !tx.tensor<[3, 2], f32>
  %b = core.view(%a, [6]) : !tx.tensor<[6], f32>
  %c = core.view(%b, [2, 3]) : !tx.tensor<[2, 3], f32>
  %t = functional.transpose.int(%c, 0, 1) : !tx.tensor<[3, 2], f32>
  %u = functional.transpose.int(%t, 1, 0) : !tx.tensor<[2, 3], f32>
  func.return %u : !tx.tensor<[2, 3], f32>""")
    out = _canonicalize(text)
    assert "func.return %x" in out


def test_canonicalize_leaves_training_ops_alone() -> None:
    text = _func("""  %a = training.clone(%x) : !tx.tensor<[2, 3], f32>
  %b = training.add_.Tensor(%a, 1) : !tx.tensor<[2, 3], f32>
  %c = functional.mul.Tensor(%x, 1) : !tx.tensor<[2, 3], f32>
  func.return %a, %c : !tx.tensor<[2, 3], f32>, !tx.tensor<[2, 3], f32>""",
                 result="(!tx.tensor<[2, 3], f32>, !tx.tensor<[2, 3], f32>)")
    out = _canonicalize(text)
    assert "training.clone" in out and "functional.mul" not in out and "func.return %a, %x" in out


def test_the_rules_are_the_ops_canonicalization_patterns() -> None:
    roots = {rule.source.name for rule in CANONICALIZE}
    assert set(CANONICALIZATIONS.keys()) == {lookup_op(root).key for root in roots}
    for level in ("training", "functional", "core"):
        cls = op_class(lookup_op("view"), level)
        (trait,) = cls.get_traits_of_type(HasCanonicalizationPatternsTrait)
        (pattern,) = trait.get_patterns(cls)
        assert [r.name for r in pattern.rules] == ["view_of_view", "view_noop"]
    (trait,) = op_class(lookup_op("relu"), "core").get_traits_of_type(HasCanonicalizationPatternsTrait)
    assert trait.get_patterns(op_class(lookup_op("relu"), "core")) == ()


def test_a_canonicalization_names_its_root_op() -> None:
    with pytest.raises(RuleSyntaxError, match="names its root op"):
        register_canonicalizations(RuleTable("any", "to_core: functional.*(...) -> core.*(...)"))


def test_legalize_core_retags_core_ops_only() -> None:
    text = _func("""  %a = functional.relu(%x) : !tx.tensor<[2, 3], f32>
  %b = functional.silu(%a) : !tx.tensor<[2, 3], f32>
  func.return %b : !tx.tensor<[2, 3], f32>""")
    out = _rewrite(text, LEGALIZE_CORE)
    assert "%a = core.relu(%x)" in out and "%b = functional.silu(%a)" in out


def test_rules_apply_to_traced_calls() -> None:
    rule = INPLACE.rule_named("zero")
    match = rule.match_values(["x"])
    assert match == {"x": "x"}


def test_a_one_to_many_rule_builds_typed_ops() -> None:
    table = RuleTable("demo", """
# s - x (alpha 1) = neg(x) + s
rsub_one: rsub.Scalar($x, $s, 1) -> add.Tensor(neg($x), $s)
# t(x) of a matrix = permute(x, [1, 0])
t_matrix: t($x) -> permute($x, [1, 0])
""")
    text = _func("""  %a = functional.rsub.Scalar(%x, 2.0) : !tx.tensor<[2, 3], f32>
  %b = functional.t(%a) : !tx.tensor<[3, 2], f32>
  func.return %b : !tx.tensor<[3, 2], f32>""", result="!tx.tensor<[3, 2], f32>")
    out = _rewrite(text, table)
    assert "%0 = functional.neg(%x) : !tx.tensor<[2, 3], f32>" in out
    assert "%a = functional.add.Tensor(%0, 2.0) : !tx.tensor<[2, 3], f32>" in out
    assert "functional.permute(" in out and "[1, 0]) : !tx.tensor<[3, 2], f32>" in out
