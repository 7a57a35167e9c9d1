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
kin for broadcasting; a generic is what torch-mlir emits too); ``Lowering.generic``
is the general one every family builds on (its operands read by affine maps, its
loops parallel or reduction). Reshapes, pads and slices are in ``shapes.py``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    BFloat16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.linalg.ops import (
    FillOp,
    GenericOp,
    IndexOp,
    IteratorType,
    IteratorTypeAttr,
    YieldOp,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from texport.dialects.dtypes import DType
from texport.dialects.symbolic import is_static
from texport.dialects.tx import TensorType as TxTensorType

from ..errors import LoweringError
from ..legality import where
from .sizes import SizeTable
from .types import is_float, tensor_type, upstream_type

PARALLEL = IteratorTypeAttr(IteratorType.PARALLEL)
REDUCTION = IteratorTypeAttr(IteratorType.REDUCTION)

# An operand of ``Lowering.generic``: a tensor read by the identity map, or by a map
Operand = SSAValue | tuple[SSAValue, AffineMap]


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

    def value(self, value: SSAValue, at: InsertPoint | None = None) -> SSAValue:
        """An operand (tensor or size) in its upstream type; its cast, if it needs one,
        goes before the op, or ``at`` another point (inside a region being moved)."""
        found = upstream_value(value)
        if found is not None:
            return found
        cast = UnrealizedConversionCastOp.get([value], [upstream_type(value.type)])
        self.rewriter.insert(cast, at or InsertPoint.before(self.op))
        return cast.results[0]

    def index(self, size: Any) -> SSAValue:
        """An ``index`` for a size: a Python int or dim expression, or an SSA size."""
        if isinstance(size, SSAValue):
            return self.value(size)
        return self.sizes.size(size)

    def constant(self, value: int | float | bool, element: Attribute) -> SSAValue:
        return self.insert(scalar_constant(value, element)).results[0]

    def convert(self, value: SSAValue, element: Attribute) -> SSAValue:
        """A scalar (a size's ``index``, say) as ``element``, before the op (``Body.convert``'s casts)."""
        ops = conversion_ops(value, element)
        for op in ops:
            self.insert(op)
        return ops[-1].results[0] if ops else value

    def unsupported(self, what: str) -> LoweringError:
        """The error for an op this lowering refuses, naming the op and its location."""
        return LoweringError(f"lower-core-to-linalg: '{self.op.name}'{where(self.op)}: {what}")

    def refuse_unsigned(self, dtype: DType) -> None:
        """For the lowerings that compare integers signed: uint8 (a signless ``i8``
        upstream) needs the unsigned arith ops, which they do not choose."""
        if dtype == DType.uint8:
            raise self.unsupported("expected a signed or floating-point dtype, found uint8")

    # ---- tensors ---------------------------------------------------------------

    def empty(self, tx_type: TxTensorType) -> SSAValue:
        """``tensor.empty`` of a result's shape (its dynamic sizes from the size table)."""
        dynamic = [self.sizes.size(d) for d in tx_type.shape if not isinstance(d, int)]
        return self.insert(tensor.EmptyOp(dynamic, tensor_type(tx_type))).results[0]

    def empty_of(self, dims: Sequence[Any], element: Attribute) -> SSAValue:
        """``tensor.empty`` of ``element``s and ``dims``: ints, dim expressions (from the
        size table) or ``index`` values."""
        dynamic = [self.index(d) for d in dims if not is_static(d)]
        shape = [d if is_static(d) else DYNAMIC_INDEX for d in dims]
        return self.insert(tensor.EmptyOp(dynamic, TensorType(element, shape))).results[0]

    def filled(self, dims: Sequence[Any], element: Attribute, value: int | float | bool | SSAValue) -> SSAValue:
        """A ``linalg.fill`` of ``value`` (a number, or a scalar of ``element``) over
        ``empty_of(dims, element)``: the init of a reduction."""
        init = self.empty_of(dims, element)
        scalar = value if isinstance(value, SSAValue) else self.constant(value, element)
        return self.insert(FillOp([scalar], [init], [init.type])).results[0]

    def sizes_of(self, value: SSAValue) -> list[int | SSAValue]:
        """The sizes of an upstream tensor: ints, or ``index`` values read by ``tensor.dim``."""
        return [self.insert(tensor.DimOp(value, self.index(axis))).results[0] if size == DYNAMIC_INDEX else size
                for axis, size in enumerate(value.type.get_shape())]

    def result_type(self, index: int = 0) -> TxTensorType:
        return self.op.results[index].type

    def generic(self, inputs: Sequence[Operand], outputs: Sequence[Operand], iterators: Sequence[IteratorTypeAttr],
                body: Callable[[Body], Sequence[SSAValue]]) -> list[SSAValue]:
        """A ``linalg.generic`` with one loop per iterator: ``body`` gets the elements of
        inputs then outputs (``Body.args``; ``Body.element``: the first output's) and
        returns one value per output, converted to the output's element type."""
        rank = len(iterators)
        inputs, outputs = _with_maps(inputs, rank), _with_maps(outputs, rank)
        values = [v for v, _ in (*inputs, *outputs)]
        block = Block(arg_types=[v.type.element_type for v in values])
        builder = Body(Builder(InsertPoint.at_end(block)), list(block.args), outputs[0][0].type.element_type)
        yielded = body(builder)
        builder.insert(YieldOp(*[builder.convert(v, o.type.element_type)
                                 for v, (o, _) in zip(yielded, outputs, strict=True)]))
        maps = [AffineMapAttr(m) for _, m in (*inputs, *outputs)]
        op = GenericOp([v for v, _ in inputs], [v for v, _ in outputs], Region(block), maps, list(iterators),
                       [v.type for v, _ in outputs])
        return list(self.insert(op).results)

    def elementwise(self, dims: Sequence[Any], element: Attribute, inputs: Sequence[Operand],
                    compute: Callable[[Body, list[SSAValue]], SSAValue]) -> SSAValue:
        """A parallel generic over ``dims`` making one tensor of ``element``s; ``compute``
        gets the inputs' elements (read by their maps, the identity by default)."""
        count = len(inputs)
        return self.generic(inputs, [self.empty_of(dims, element)], [PARALLEL] * len(dims),
                            lambda b: [compute(b, b.args[:count])])[0]

    def converted(self, value: SSAValue, element: Attribute, dims: Sequence[Any] | None = None,
                  unsigned: bool = False) -> SSAValue:
        """An upstream tensor with its elements as ``element`` (torch's casts; ``unsigned``:
        its integers are uint8's), or itself when they are already. ``dims``: its sizes
        as texport dims, if known (else its dynamic sizes are read by ``tensor.dim``)."""
        if value.type.element_type == element:
            return value
        dims = self.sizes_of(value) if dims is None else dims
        return self.elementwise(dims, element, [value], lambda b, v: b.convert(v[0], element, unsigned))

    def pointwise(self, operands: Sequence[SSAValue], result: TxTensorType,
                  body: Callable[[Body], SSAValue]) -> SSAValue:
        """A ``linalg.generic`` over ``result``'s shape: ``body`` gets the operands'
        elements (``Body.args``, broadcast as torch broadcasts) and returns the result's."""
        rank = len(result.shape)
        values = [self.value(v) for v in operands]
        inputs = [(v, broadcast_map(v.type, result.shape, rank).data) for v in values]

        def result_element(b: Body) -> list[SSAValue]:
            b.args = b.args[:len(values)]  # the output's element is not read
            return [body(b)]

        return self.generic(inputs, [self.empty(result)], [PARALLEL] * rank, result_element)[0]


def _with_maps(operands: Sequence[Operand], rank: int) -> list[tuple[SSAValue, AffineMap]]:
    return [o if isinstance(o, tuple) else (o, AffineMap.identity(rank)) for o in operands]


def dims_map(rank: int, dims: Sequence[int | AffineExpr]) -> AffineMap:
    """A map of ``rank`` loops to the given dims (an int is a loop)."""
    exprs = tuple(AffineExpr.dimension(d) if isinstance(d, int) else d for d in dims)
    return AffineMap(rank, 0, exprs)


def broadcast_map(operand: TensorType, result_shape: Sequence[Any], rank: int) -> AffineMapAttr:
    """How an operand is read at the loops of a ``rank``-d result, as torch broadcasts:
    right-aligned, a dim of static size 1 against another read at index 0."""
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

    def add(self, x: SSAValue, y: SSAValue) -> SSAValue:
        """x + y of floats or integers (bools: x or y, as torch adds them)."""
        if _is_bool(x.type):
            return self.insert(arith.OrIOp(x, y))
        return self.insert((arith.AddfOp if is_float(x.type) else arith.AddiOp)(x, y))

    def mul(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert((arith.MulfOp if is_float(x.type) else arith.MuliOp)(x, y))

    def index(self, dim: int) -> SSAValue:
        """The loop index of loop ``dim`` (``linalg.index``)."""
        return self.insert(IndexOp(dim))

    def indices(self, rank: int) -> list[SSAValue]:
        return [self.index(dim) for dim in range(rank)]

    def index_constant(self, value: int) -> SSAValue:
        return self.constant(value, IndexType())

    def as_index(self, value: SSAValue) -> SSAValue:
        """An integer element (an index tensor's) as an ``index``."""
        if isinstance(value.type, IndexType):
            return value
        return self.insert(arith.IndexCastOp(value, IndexType()))

    def convert(self, value: SSAValue, element: Attribute, unsigned: bool = False) -> SSAValue:
        """``value`` as ``element``, as torch casts: float<->float, int->float,
        float->int (toward zero), int<->int (sign-extending; bool zero-extends);
        an ``index`` as an int64.
        ``unsigned``: ``value`` is a uint8's element (``types.is_unsigned``), which
        widens and becomes a float unsigned (upstream's ``i8`` is signless)."""
        return self.insert_all(conversion_ops(value, element, unsigned), value)

    def rounded_through(self, value: SSAValue, low: Attribute) -> SSAValue:
        """A float32 ``value`` rounded to the narrower float ``low`` and back, as torch rounds an
        intermediate. bfloat16 by its bits (round to nearest even, a nan kept): IREE folds
        ``extf(truncf(x))`` of bfloat16 to ``x``, which would skip the rounding."""
        if not isinstance(low, BFloat16Type):
            return self.convert(self.convert(value, low), value.type)
        i32 = IntegerType(32)
        bits = self.insert(arith.BitcastOp(value, i32))
        lowest_kept = self.insert(arith.AndIOp(self.insert(arith.ShRUIOp(bits, self.constant(16, i32))),
                                               self.constant(1, i32)))
        bias = self.insert(arith.AddiOp(self.constant(0x7FFF, i32), lowest_kept))
        kept = self.insert(arith.AndIOp(self.insert(arith.AddiOp(bits, bias)), self.constant(-0x10000, i32)))
        is_nan = self.insert(arith.CmpfOp(value, value, "uno"))
        return self.insert(arith.SelectOp(is_nan, value, self.insert(arith.BitcastOp(kept, value.type))))

    def insert_all(self, ops: list[Operation], default: SSAValue) -> SSAValue:
        for op in ops:
            self.builder.insert(op)
        return ops[-1].results[0] if ops else default


def conversion_ops(value: SSAValue, element: Attribute, unsigned: bool = False) -> list[Operation]:
    """The ops of ``Body.convert``; ``unsigned``: an integer ``value`` is unsigned (uint8)."""
    source = value.type
    if source == element:
        return []
    if isinstance(source, IndexType):  # a size or loop index: through int64, signed
        wide = arith.IndexCastOp(value, IntegerType(64))
        return [wide, *conversion_ops(wide.results[0], element)]
    unsigned = unsigned or _is_bool(source)
    source_float, target_float = is_float(source), is_float(element)
    if source_float and target_float:
        if _width(element) == _width(source):  # f16 <-> bf16: arith casts between widths only
            wide = arith.ExtFOp(value, Float32Type())
            return [wide, arith.TruncFOp(wide.results[0], element)]
        wider = _width(element) > _width(source)
        return [(arith.ExtFOp if wider else arith.TruncFOp)(value, element)]
    if target_float:
        return [(arith.UIToFPOp if unsigned else arith.SIToFPOp)(value, element)]
    if _is_bool(element):  # torch: x != 0
        zero = scalar_constant(0.0 if source_float else 0, source)
        compare = (arith.CmpfOp(value, zero.results[0], "une") if source_float
                   else arith.CmpiOp(value, zero.results[0], "ne"))
        return [zero, compare]
    if source_float:
        if _width(element) < 32:  # through int32: fptosi to i8 is poison out of range, torch's cast wraps
            wide = arith.FPToSIOp(value, IntegerType(32))
            return [wide, arith.TruncIOp(wide.results[0], element)]
        return [arith.FPToSIOp(value, element)]
    if _width(element) > _width(source):
        return [(arith.ExtUIOp if unsigned else arith.ExtSIOp)(value, element)]
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
