"""The ``control`` dialect: torch's control-flow operators as ops with regions.

    %r = control.cond %pred (%x) : (!tx.tensor<[], i1>, !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
    ^bb0(%a: !tx.tensor<[3], f32>):
      %s = core.sin(%a) : !tx.tensor<[3], f32>
      control.yield %s : !tx.tensor<[3], f32>
    }, {
    ^bb0(%a: !tx.tensor<[3], f32>):
      %c = core.cos(%a) : !tx.tensor<[3], f32>
      control.yield %c : !tx.tensor<[3], f32>
    }

Each region takes the op's operands as block arguments (closures over
parameters and buffers are lifted into the operands, as torch does) and ends
in ``control.yield``. Semantics (running the regions) come with the interpreter;
the verifiers here check the types that connect operands, regions and results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, i1, i64
from xdsl.ir import Attribute, Dialect, Operation, Region
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import HasCanonicalizationPatternsTrait, IsTerminator, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from .aten import dims_equal
from .symbolic import unbacked_symbols
from .tx import PREDICATES, SymBoolType, TensorType, evaluate


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a control region, giving its values to the parent op."""

    name = "control.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "($values^ `:` type($values))? attr-dict"


def _yielded(region: Region, op_name: str, what: str) -> Sequence[Attribute]:
    if len(region.blocks) != 1:
        raise VerifyException(f"'{op_name}' {what} region must have exactly one block")
    last = region.block.last_op
    if not isinstance(last, YieldOp):
        raise VerifyException(f"'{op_name}' {what} region must end in control.yield")
    return [v.type for v in last.values]


def _check_block_args(region: Region, expected: Sequence[Attribute], op_name: str, what: str) -> None:
    got = [arg.type for arg in region.block.args]
    if list(got) != list(expected):
        raise VerifyException(
            f"'{op_name}' {what} region arguments {_types(got)} must match {_types(expected)}"
        )


def _types(types: Sequence[Attribute]) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


def _compatible(result: Attribute, given: Attribute) -> bool:
    """Same type, or tensors whose differing dims are unbacked in the result
    (torch gives differently-shaped branch outputs a fresh unbacked dim)."""
    if result == given:
        return True
    if not (isinstance(result, TensorType) and isinstance(given, TensorType)):
        return False
    if result.dtype != given.dtype or len(result.shape) != len(given.shape):
        return False
    return all(
        dims_equal(a, b) or _is_unbacked(a) for a, b in zip(result.shape, given.shape)
    )


def _is_unbacked(dim: object) -> bool:
    return bool(unbacked_symbols((dim,)))


def _check_yield(types: Sequence[Attribute], results: Sequence[Attribute], op_name: str, what: str) -> None:
    if len(types) != len(results) or not all(map(_compatible, results, types)):
        raise VerifyException(
            f"'{op_name}' {what} yields {_types(types)}, but the op returns {_types(results)}"
        )


def _slice_type(attr: Attribute, op_name: str) -> TensorType:
    if not isinstance(attr, TensorType) or not attr.shape:
        raise VerifyException(f"'{op_name}' maps over tensors with a leading dim, found {attr}")
    return TensorType.get(attr.shape[1:], attr.dtype)


def _stacked(attr: Attribute, length: object) -> Attribute:
    assert isinstance(attr, TensorType)
    return TensorType.get((length, *attr.shape), attr.dtype)


def constant_predicate(value: Any) -> bool | None:
    """The value of a predicate known at compile time, else None: a comparison
    of two ``tx.constant``s, or a one-element bool tensor filled with a literal."""
    owner = getattr(value, "owner", None)
    if not isinstance(owner, Operation):
        return None  # a block argument: known only at run time
    if owner.name == "tx.cmp":
        lhs, rhs = (getattr(v.owner, "name", None) == "tx.constant" and v.owner.value.value.data
                    for v in owner.operands)
        if isinstance(lhs, bool) or isinstance(rhs, bool):
            return None
        return bool(evaluate(PREDICATES[owner.predicate.data], lhs, rhs))
    if owner.name.endswith((".scalar_tensor", ".full")):
        fill = owner.argument("s" if owner.name.endswith("scalar_tensor") else "fill_value")
        return bool(fill) if isinstance(fill, (bool, int, float)) else None
    return None



class FoldConstantCond(RewritePattern):
    """cond(true, t, f, xs) -> t(xs): inline the branch a constant predicate picks."""

    def match_and_rewrite(self, op: Any, rewriter: PatternRewriter) -> None:
        if not isinstance(op, CondOp):
            return
        taken = constant_predicate(op.pred)
        if taken is None:
            return
        block = (op.true_region if taken else op.false_region).block
        yielded = block.last_op
        values = list(yielded.operands)
        rewriter.erase(yielded)
        rewriter.inline_block(block, InsertPoint.before(op), arg_values=list(op.inputs))
        rewriter.replace(op, [], values)


class CondCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (FoldConstantCond(),)


@irdl_op_definition
class CondOp(IRDLOperation):
    """torch.cond: run ``true_region`` if ``pred`` holds, else ``false_region``."""

    name = "control.cond"
    pred = operand_def()  # a one-element bool tensor or a !tx.symbool
    inputs = var_operand_def()
    res = var_result_def()
    true_region = region_def("single_block")
    false_region = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), CondCanonicalization())
    assembly_format = (
        "$pred `(` $inputs `)` attr-dict `:` type($pred) `,` `(` type($inputs) `)` "
        "`->` `(` type($res) `)` $true_region `,` $false_region"
    )

    def verify_(self) -> None:
        pred_type = self.pred.type
        is_bool_tensor = isinstance(pred_type, TensorType) and pred_type.dtype.torch_name == "bool"
        if not (isinstance(pred_type, SymBoolType) or (is_bool_tensor and pred_type.numel() == 1)):
            raise VerifyException(
                f"'control.cond' predicate must be a one-element bool tensor or !tx.symbool, "
                f"found {pred_type}"
            )
        inputs = [v.type for v in self.inputs]
        results = [r.type for r in self.res]
        for region, what in ((self.true_region, "true"), (self.false_region, "false")):
            _check_block_args(region, inputs, self.name, what)
            _check_yield(_yielded(region, self.name, what), results, self.name, f"{what} branch")


@irdl_op_definition
class MapOp(IRDLOperation):
    """torch's map: apply the body to each slice of ``xs`` along dim 0; stack the results."""

    name = "control.map"
    xs = var_operand_def()
    args = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = (
        "`(` $xs `)` `(` $args `)` attr-dict `:` `(` type($xs) `)` `(` type($args) `)` "
        "`->` `(` type($res) `)` $body"
    )

    def verify_(self) -> None:
        if not self.xs:
            raise VerifyException("'control.map' needs at least one mapped tensor")
        slices = [_slice_type(v.type, self.name) for v in self.xs]
        _check_block_args(self.body, [*slices, *(v.type for v in self.args)], self.name, "body")
        length = self.xs[0].type.shape[0]
        per_slice = _yielded(self.body, self.name, "body")
        stacked = [_stacked(t, length) for t in per_slice]
        _check_yield(stacked, [r.type for r in self.res], self.name, "body (stacked)")


@irdl_op_definition
class ScanOp(IRDLOperation):
    """torch's scan: carry ``init`` through the body over slices of ``xs``;
    returns the final carries then the stacked per-step outputs."""

    name = "control.scan"
    init = var_operand_def()
    xs = var_operand_def()
    additional_inputs = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")
    dim = opt_prop_def(IntegerAttr)
    reverse = opt_prop_def(BoolAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = (
        "`(` $init `)` `(` $xs `)` `(` $additional_inputs `)` attr-dict `:` `(` type($init) `)` "
        "`(` type($xs) `)` `(` type($additional_inputs) `)` `->` `(` type($res) `)` $body"
    )

    def verify_(self) -> None:
        if self.dim is not None and self.dim.value.data != 0:
            raise VerifyException("'control.scan' scans along dim 0 (move the dim first)")
        carries = [v.type for v in self.init]
        slices = [_slice_type(v.type, self.name) for v in self.xs]
        extra = [v.type for v in self.additional_inputs]
        _check_block_args(self.body, [*carries, *slices, *extra], self.name, "body")
        yielded = _yielded(self.body, self.name, "body")
        _check_yield(yielded[: len(carries)], carries, self.name, "body (carries)")
        length = self.xs[0].type.shape[0] if self.xs else 0
        outputs = [*carries, *(_stacked(t, length) for t in yielded[len(carries):])]
        _check_yield(outputs, [r.type for r in self.res], self.name, "body (results)")


@irdl_op_definition
class WhileLoopOp(IRDLOperation):
    """torch.while_loop: while ``cond_region`` yields true, carry through ``body``."""

    name = "control.while_loop"
    carried = var_operand_def()
    additional_inputs = var_operand_def()
    res = var_result_def()
    cond_region = region_def("single_block")
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = (
        "`(` $carried `)` `(` $additional_inputs `)` attr-dict `:` `(` type($carried) `)` "
        "`(` type($additional_inputs) `)` `->` `(` type($res) `)` $cond_region `,` $body"
    )

    def verify_(self) -> None:
        carries = [v.type for v in self.carried]
        args = [*carries, *(v.type for v in self.additional_inputs)]
        _check_block_args(self.cond_region, args, self.name, "cond")
        _check_block_args(self.body, args, self.name, "body")
        cond = _yielded(self.cond_region, self.name, "cond")
        if len(cond) != 1 or not _is_predicate(cond[0]):
            raise VerifyException(
                f"'control.while_loop' cond must yield one bool scalar, yields {_types(cond)}"
            )
        _check_yield(_yielded(self.body, self.name, "body"), carries, self.name, "body")
        _check_yield(carries, [r.type for r in self.res], self.name, "loop (results)")


def _is_predicate(attr: Attribute) -> bool:
    if isinstance(attr, SymBoolType):
        return True
    return isinstance(attr, TensorType) and attr.dtype.torch_name == "bool" and attr.numel() == 1


CONTROL = Dialect("control", [CondOp, MapOp, ScanOp, WhileLoopOp, YieldOp], [])

__all__ = ["CONTROL", "CondOp", "MapOp", "ScanOp", "WhileLoopOp", "YieldOp", "i1", "i64"]
