"""What a lowering function gets: ``Lowering``, the op being lowered and the
means to build its replacement before it.

The passes convert one op at a time (MLIR's partial conversion): an operand of
a texport type is reached through ``builtin.unrealized_conversion_cast`` to
its upstream type, and each result is cast back for the ops not lowered yet.
The last step of ``lower-core-to-linalg`` converts the function's signature,
and the casts fold away in pairs (``reconcile-unrealized-casts``).

``Lowering.pointwise`` builds the ``linalg.generic`` of an elementwise op with
torch's broadcasting: an operand's dim of static size 1 against a result dim
that is not reads index 0 (IREE and upstream MLIR reject ``linalg.add`` and
kin for broadcasting; a generic is what torch-mlir emits too)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.linalg.ops import GenericOp, IteratorType, IteratorTypeAttr, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from texport.dialects.tx import TensorType as TxTensorType

from .sizes import SizeTable
from .types import is_float, tensor_type, upstream_type


def upstream_value(value: SSAValue) -> SSAValue | None:
    """``value`` in its upstream type if it has it or is a cast from it, else None."""
    if upstream_type(value.type) is value.type:
        return value
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1:
        source = owner.inputs[0]
        if source.type == upstream_type(value.type):
            return source
    return None


class Lowering:
    """The op being lowered, and builders that insert before it."""

    def __init__(self, op: Operation, rewriter: PatternRewriter, sizes: SizeTable) -> None:
        self.op = op
        self.rewriter = rewriter
        self.sizes = sizes

    # ---- inserting ---------------------------------------------------------

    def insert(self, op: Operation) -> Operation:
        self.rewriter.insert(op, InsertPoint.before(self.op))
        return op

    def value(self, value: SSAValue) -> SSAValue:
        """An operand (tensor or size) in its upstream type."""
        found = upstream_value(value)
        if found is not None:
            return found
        return self.insert(UnrealizedConversionCastOp.get([value], [upstream_type(value.type)])).results[0]

    def index(self, size: Any) -> SSAValue:
        """An ``index`` for a size: a Python int or dim expression, or an SSA size."""
        if isinstance(size, SSAValue):
            return self.value(size)
        return self.sizes.size(size)

    def constant(self, value: int | float | bool, element: Attribute) -> SSAValue:
        return self.insert(scalar_constant(value, element)).results[0]

    # ---- tensors ---------------------------------------------------------------

    def empty(self, tx_type: TxTensorType) -> SSAValue:
        """``tensor.empty`` of a result's shape (its dynamic sizes from the size table)."""
        dynamic = [self.sizes.size(d) for d in tx_type.shape if not isinstance(d, int)]
        return self.insert(tensor.EmptyOp(dynamic, tensor_type(tx_type))).results[0]

    def result_type(self, index: int = 0) -> TxTensorType:
        return self.op.results[index].type

    def pointwise(self, operands: Sequence[SSAValue], result: TxTensorType,
                  body: Callable[[Body], SSAValue]) -> SSAValue:
        """A ``linalg.generic`` over ``result``'s shape: ``body`` gets the operands'
        elements (``Body.args``, broadcast as torch broadcasts) and returns the result's."""
        rank = len(result.shape)
        values = [self.value(v) for v in operands]
        maps = [_broadcast_map(v.type, result.shape, rank) for v in values]
        maps.append(AffineMapAttr(AffineMap.identity(rank)))
        element = tensor_type(result).element_type
        block = Block(arg_types=[v.type.element_type for v in values] + [element])
        builder = Body(Builder(InsertPoint.at_end(block)), list(block.args[:-1]), element)
        builder.insert(YieldOp(builder.convert(body(builder), element)))
        generic = GenericOp(values, [self.empty(result)], Region(block), maps,
                            [IteratorTypeAttr(IteratorType.PARALLEL)] * rank, [tensor_type(result)])
        return self.insert(generic).results[0]


def _broadcast_map(operand: TensorType, result_shape: Sequence[Any], rank: int) -> AffineMapAttr:
    shape = operand.get_shape()
    offset = rank - len(shape)
    exprs = []
    for axis, size in enumerate(shape):
        target = result_shape[offset + axis]
        broadcast = size == 1 and target != 1
        exprs.append(AffineExpr.constant(0) if broadcast else AffineExpr.dimension(offset + axis))
    return AffineMapAttr(AffineMap(rank, 0, tuple(exprs)))


class Body:
    """Builds the scalar body of a ``linalg.generic``: ``args`` are the operands'
    elements, ``element`` the result's element type."""

    def __init__(self, builder: Builder, args: list[SSAValue], element: Attribute) -> None:
        self.builder = builder
        self.args = args
        self.element = element

    def insert(self, op: Operation) -> SSAValue | None:
        self.builder.insert(op)
        return op.results[0] if op.results else None

    def constant(self, value: int | float | bool, element: Attribute) -> SSAValue:
        return self.insert(scalar_constant(value, element))

    def convert(self, value: SSAValue, element: Attribute) -> SSAValue:
        """``value`` as ``element``, as torch casts: float<->float, int->float,
        float->int (toward zero), int<->int (sign-extending; bool zero-extends)."""
        return self.insert_all(conversion_ops(value, element), value)

    def insert_all(self, ops: list[Operation], default: SSAValue) -> SSAValue:
        for op in ops:
            self.builder.insert(op)
        return ops[-1].results[0] if ops else default


def conversion_ops(value: SSAValue, element: Attribute) -> list[Operation]:
    source = value.type
    if source == element:
        return []
    source_float, target_float = is_float(source), is_float(element)
    if source_float and target_float:
        wider = _width(element) > _width(source)
        return [(arith.ExtFOp if wider else arith.TruncFOp)(value, element)]
    if target_float:
        return [(arith.UIToFPOp if _is_bool(source) else arith.SIToFPOp)(value, element)]
    if _is_bool(element):  # torch: x != 0
        zero = scalar_constant(0.0 if source_float else 0, source)
        compare = (arith.CmpfOp(value, zero.results[0], "une") if source_float
                   else arith.CmpiOp(value, zero.results[0], "ne"))
        return [zero, compare]
    if source_float:
        return [arith.FPToSIOp(value, element)]
    if _width(element) > _width(source):
        return [(arith.ExtUIOp if _is_bool(source) else arith.ExtSIOp)(value, element)]
    return [arith.TruncIOp(value, element)]


def _is_bool(element: Attribute) -> bool:
    return isinstance(element, IntegerType) and element.width.data == 1


def _width(element: Attribute) -> int:
    return element.bitwidth if hasattr(element, "bitwidth") else element.width.data


def scalar_constant(value: int | float | bool, element: Attribute) -> arith.ConstantOp:
    if is_float(element):
        return arith.ConstantOp(FloatAttr(float(value), element))
    if isinstance(element, IndexType):
        return arith.ConstantOp.from_int_and_width(int(value), element)
    if _is_bool(element):
        return arith.ConstantOp(IntegerAttr(-1 if value else 0, element))
    return arith.ConstantOp(IntegerAttr(int(value), element))
