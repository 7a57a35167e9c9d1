"""Building ATen ops from Python, reading their arguments back, verifying them."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.utils.exceptions import VerifyException

from texport.dialects.aten import op_class
from texport.dialects.context import parse_module, print_module
from texport.dialects.dtypes import DType
from texport.dialects.registry import lookup_op
from texport.dialects.symbolic import symbol
from texport.dialects.tx import TensorType, symint

F32 = DType.float32


def _module(build) -> ModuleOp:  # noqa: ANN001
    s0 = symbol("s0")
    x_type = TensorType.get((s0, 4), F32)
    func = FuncOp("main", ((x_type, symint(s0)), ()))
    block = func.body.block
    for op in build(block.args):
        block.add_op(op)
    block.add_op(ReturnOp())
    return ModuleOp([func])


def test_build_print_parse_arguments_round_trip() -> None:
    add = op_class(lookup_op("add.Tensor"), "core")
    view = op_class(lookup_op("view"), "core")

    def build(args):  # noqa: ANN001, ANN202
        x, n = args
        ops = [
            add.build([x, 2.5, 3], [x.type]),
            view.build([x, [n, 2, 2]], [TensorType.get((symbol("s0"), 2, 2), F32)]),
        ]
        for op in ops:
            op.results[0].name_hint = op.op_def.schema.name
        return ops

    module = _module(build)
    module.verify()
    text = print_module(module)
    assert "%add = core.add.Tensor(%0, 2.5, alpha = 3) : !tx.tensor<[s0, 4], f32>" in text
    assert "core.view(%0, [%1, 2, 2]) : !tx.tensor<[s0, 2, 2], f32>" in text
    reparsed = parse_module(text)
    assert print_module(reparsed) == text
    add_again = next(op for op in reparsed.walk() if op.name == "core.add.Tensor")
    x_arg, other, alpha = add_again.arguments()
    assert (other, alpha) == (2.5, 3)
    assert add_again.argument("alpha") == 3
    view_again = next(op for op in reparsed.walk() if op.name == "core.view")
    size = view_again.argument("size")
    assert size[1:] == [2, 2] and size[0].type == symint(symbol("s0"))


def test_verifier_names_op_and_both_types() -> None:
    relu = op_class(lookup_op("relu"), "core")

    def build(args):  # noqa: ANN001, ANN202
        return [relu.build([args[0]], [TensorType.get((symbol("s0"), 5), F32)])]

    with pytest.raises(VerifyException) as info:
        _module(build).verify()
    message = str(info.value)
    assert "'core.relu' op result #0 has type !tx.tensor<[s0, 5], f32>" in message
    assert "shape rule gives !tx.tensor<[s0, 4], f32>" in message


def test_mutable_ops_only_in_training() -> None:
    op_def = lookup_op("add_.Tensor")
    assert op_def.levels == ("training",)
    with pytest.raises(KeyError, match="not an op of the functional dialect"):
        op_class(op_def, "functional")
    assert op_class(lookup_op("convolution"), "core").name == "core.convolution"


def test_generated_ops_are_pure_unless_mutating_or_random() -> None:
    from xdsl.traits import Pure

    assert op_class(lookup_op("relu"), "core").has_trait(Pure)
    assert not op_class(lookup_op("add_.Tensor"), "training").has_trait(Pure)
    assert not op_class(lookup_op("randn"), "core").has_trait(Pure)
    # every op that draws random numbers (torch: nondeterministic_seeded), dropouts included
    random = [op for op in ("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout",
                            "native_dropout", "bernoulli.p", "rand_like")]
    assert [op for op in random if op_class(lookup_op(op), "functional").has_trait(Pure)] == []


def test_cse_keeps_two_draws_of_a_random_op() -> None:
    text = """
    func.func @f(%x: !tx.tensor<[4], f32>) -> (!tx.tensor<[4], f32>, !tx.tensor<[4], f32>) {
      %a = functional.feature_alpha_dropout(%x, 0.5, true) : !tx.tensor<[4], f32>
      %b = functional.feature_alpha_dropout(%x, 0.5, true) : !tx.tensor<[4], f32>
      func.return %a, %b : !tx.tensor<[4], f32>, !tx.tensor<[4], f32>
    }"""
    from xdsl.context import Context
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

    module = parse_module(text)
    CommonSubexpressionElimination().apply(Context(), module)
    assert print_module(module).count("functional.feature_alpha_dropout") == 2
