"""Linalg lowerings: control. texport's control ops (``texport.dialects.control``)
become upstream ``scf``, their regions moved, not copied:

- ``control.cond`` → ``scf.if`` on the predicate (a one-element bool tensor,
  ``tensor.extract``ed; or a ``!tx.symbool`` compared from its sizes);
- ``control.scan`` → ``scf.for`` over the length of the scanned tensors, the
  carries and the stacked outputs as ``iter_args``: each step reads its slices
  with a rank-reducing ``tensor.extract_slice`` and writes its outputs with
  ``tensor.insert_slice`` (a reverse scan walks the indices down);
- ``control.map`` → the same loop with no carries;
- ``control.while_loop`` → ``scf.while``, the cond region's predicate extracted
  into ``scf.condition``.

The ops inside the regions are not touched here: the walker visits an op
before its regions, so they are lowered afterwards, in place, by their own
family's pattern. The regions' block arguments therefore keep their texport
types for those ops: an upstream argument (an ``scf.for`` iteration value, an
``scf.while`` carry) is cast to the texport type at the block's entry, a value
the region reads from outside (a cond's operands, additional inputs) is the
op's operand itself, and a yielded value is cast to its upstream type before
the ``scf`` terminator, exactly as ``Lowering`` casts operands and results;
the casts fold in pairs when the whole pipeline is done.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    TensorType,
    UnrealizedConversionCastOp,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from texport.dialects.control import CondOp, MapOp, ScanOp, WhileLoopOp, YieldOp
from texport.dialects.tx import SymBoolType
from texport.dialects.tx import TensorType as TxTensorType

from .builder import Lowering
from .registry import lowers
from .shapes import extract_slice, insert_slice, size_operand
from .types import UnsupportedType, tensor_type, upstream_type

# --------------------------------------------------------------------------
# The ops
# --------------------------------------------------------------------------


@lowers("control", "control.cond")
def cond(lw: Lowering) -> list[SSAValue]:
    op: CondOp = lw.op
    pred = _predicate(lw, op.pred, InsertPoint.before(op))
    result_types = [upstream_type(r.type) for r in op.res]
    branches = []
    for region in (op.true_region, op.false_region):
        branch = _MovedBlock(lw, region)
        branch.bind(list(op.inputs))  # a branch reads the cond's operands
        branch.end(scf.YieldOp(*branch.yielded(result_types)))
        branches.append(Region(branch.block))
    if_op = lw.insert(scf.IfOp(pred, result_types, *branches))
    return list(if_op.results)


@lowers("control", "control.scan")
def scan(lw: Lowering) -> list[SSAValue]:
    op: ScanOp = lw.op
    reverse = op.reverse is not None and bool(op.reverse.value.data)
    return _loop_over_slices(lw, op.body, list(op.init), list(op.xs), list(op.additional_inputs), reverse)


@lowers("control", "control.map")
def map_(lw: Lowering) -> list[SSAValue]:
    op: MapOp = lw.op
    return _loop_over_slices(lw, op.body, [], list(op.xs), list(op.args), reverse=False)


@lowers("control", "control.while_loop")
def while_loop(lw: Lowering) -> list[SSAValue]:
    op: WhileLoopOp = lw.op
    carried = [lw.value(v) for v in op.carried]
    types = [v.type for v in carried]
    tx_types = [v.type for v in op.carried]
    extra = list(op.additional_inputs)

    before = _MovedBlock(lw, op.cond_region)
    before.bind(before.as_texport(before.add_arguments(types), tx_types) + extra)
    (pred,) = before.terminator.operands
    condition = _predicate(lw, pred, before.end_point())
    before.end(scf.ConditionOp(condition, *before.block.args))

    body = _MovedBlock(lw, op.body)
    body.bind(body.as_texport(body.add_arguments(types), tx_types) + extra)
    body.end(scf.YieldOp(*body.yielded(types)))

    loop = lw.insert(scf.WhileOp(carried, types, Region(before.block), Region(body.block)))
    return _as_results(lw, list(loop.results))


def _loop_over_slices(lw: Lowering, region: Region, init: list[SSAValue], xs: list[SSAValue],
                      extra: list[SSAValue], reverse: bool) -> list[SSAValue]:
    """scan and map: an ``scf.for`` over dim 0 of ``xs``; iteration values are
    the carries (``init``) then one stacked tensor per per-step output."""
    op = lw.op
    stacked_types = [r.type for r in op.results[len(init):]]
    iter_init = [lw.value(v) for v in init] + [lw.empty(t) for t in stacked_types]
    length = lw.index(xs[0].type.shape[0]) if xs else lw.index(0)
    last = lw.insert(arith.SubiOp(length, lw.index(1))).results[0] if reverse else None
    sources = [lw.value(x) for x in xs]

    body = _MovedBlock(lw, region)
    slice_types = [arg.type for arg in body.old_args[len(init):len(init) + len(xs)]]  # after the carries
    step, *iter_args = body.add_arguments([IndexType(), *(v.type for v in iter_init)])
    position = body.at_entry(arith.SubiOp(last, step)) if reverse else step
    carries = body.as_texport(iter_args[:len(init)], [v.type for v in init])
    slices = body.as_texport([body.at_entry(_slice_of(lw, x, source, position)) for x, source in zip(xs, sources)],
                             slice_types)
    body.bind(carries + slices + extra)

    yielded = body.yielded([v.type for v in iter_init[:len(init)]] + [None] * len(stacked_types))
    outputs = [body.before_end(_insert_step(lw, value, into, stacked, position))
               for value, into, stacked in zip(yielded[len(init):], iter_args[len(init):], stacked_types,
                                               strict=True)]
    body.end(scf.YieldOp(*yielded[:len(init)], *outputs))

    loop = lw.insert(scf.ForOp(lw.index(0), length, lw.index(1), iter_init, Region(body.block)))
    return _as_results(lw, list(loop.results))


# --------------------------------------------------------------------------
# Slices of one step
# --------------------------------------------------------------------------


def _slice_of(lw: Lowering, x: SSAValue, source: SSAValue, position: SSAValue) -> Operation:
    """``x[position]``: a rank-reducing ``tensor.extract_slice`` of ``source`` (``x`` upstream)."""
    shape = x.type.shape
    sizes = [1, *(size_operand(lw, d) for d in shape[1:])]
    offsets = [position, *([0] * (len(shape) - 1))]
    result = tensor_type(TxTensorType.get(shape[1:], x.type.dtype))
    return extract_slice(source, offsets, sizes, [1] * len(shape), result)


def _insert_step(lw: Lowering, value: SSAValue, into: SSAValue, stacked: TxTensorType,
                 position: SSAValue) -> Operation:
    """``into[position] = value``: a rank-reducing ``tensor.insert_slice``."""
    shape = stacked.shape
    sizes = [1, *(size_operand(lw, d) for d in shape[1:])]
    offsets = [position, *([0] * (len(shape) - 1))]
    return insert_slice(value, into, offsets, sizes, [1] * len(shape))


# --------------------------------------------------------------------------
# Predicates
# --------------------------------------------------------------------------


def _predicate(lw: Lowering, value: SSAValue, point: InsertPoint) -> SSAValue:
    """An ``i1`` for a predicate: the element of a one-element bool tensor, or
    a ``!tx.symbool`` (a size comparison, ``arith.cmpi`` once lowered)."""
    if isinstance(value.type, TxTensorType):
        source = lw.value(value, point)
        indices = [lw.index(0) for _ in value.type.shape]
        extract = tensor.ExtractOp(source, indices, IntegerType(1))
        lw.rewriter.insert(extract, point)
        return extract.results[0]
    if isinstance(value.type, SymBoolType):  # a size comparison: tx.cmp is arith.cmpi (scalars)
        return lw.value(value, point)
    raise UnsupportedType(f"a predicate must be a one-element bool tensor or a !tx.symbool made by "
                          f"tx.cmp, found {value.type}")


# --------------------------------------------------------------------------
# Moving a region's block into an scf op
# --------------------------------------------------------------------------


class _MovedBlock:
    """The block of a control op's region, detached (so erasing the op leaves
    its ops alive and in the walker's worklist) and rebuilt for an scf op:
    upstream arguments added in front, the old arguments bound to values,
    the ``control.yield`` replaced by the scf terminator."""

    def __init__(self, lw: Lowering, region: Region) -> None:
        self.lw = lw
        self.block: Block = region.detach_block(0)
        self.old_args = list(self.block.args)
        self.terminator = self.block.last_op
        if not isinstance(self.terminator, YieldOp):
            raise UnsupportedType(f"a control region ends in control.yield, found {self.terminator}")
        self._entry = InsertPoint.before(self.block.first_op)  # ops made here come in order
        self._casts: list[Operation] = []  # argument casts, dropped at the end if unread

    def add_arguments(self, types: Sequence[Attribute]) -> list[SSAValue]:
        return [self.lw.rewriter.insert_block_argument(self.block, index, t) for index, t in enumerate(types)]

    def at_entry(self, op: Operation) -> SSAValue:
        self.lw.rewriter.insert(op, self._entry)
        return op.results[0]

    def as_texport(self, values: Sequence[SSAValue], tx_types: Sequence[Attribute]) -> list[SSAValue]:
        """``values`` (upstream, at the entry) in the texport types the region's ops read."""
        views = []
        for value, tx_type in zip(values, tx_types, strict=True):
            if value.type != tx_type:
                cast = UnrealizedConversionCastOp.get([value], [tx_type])
                self._casts.append(cast)
                value = self.at_entry(cast)
            views.append(value)
        return views

    def bind(self, values: Sequence[SSAValue]) -> None:
        """The old arguments' uses read ``values``; the old arguments go."""
        if len(values) != len(self.old_args):
            raise UnsupportedType(f"a control region takes {len(self.old_args)} arguments, "
                                  f"the op gives {len(values)}")
        for arg, value in zip(self.old_args, values, strict=True):
            arg.replace_all_uses_with(value)
            self.lw.rewriter.erase_block_argument(arg)

    def end_point(self) -> InsertPoint:
        """Before the ``control.yield`` (so before the scf terminator that replaces it)."""
        return InsertPoint.before(self.terminator)

    def before_end(self, op: Operation) -> SSAValue:
        self.lw.rewriter.insert(op, self.end_point())
        return op.results[0]

    def yielded(self, types: Sequence[Attribute | None]) -> list[SSAValue]:
        """The yielded values upstream, each of ``types`` (``tensor.cast`` where a
        dim is static on one side only); None: its own upstream type."""
        values = []
        for value, wanted in zip(self.terminator.operands, types, strict=True):
            upstream = self.lw.value(value, self.end_point())
            if wanted is not None and upstream.type != wanted:
                upstream = self.before_end(tensor.CastOp(upstream, wanted))
            values.append(upstream)
        return values

    def end(self, terminator: Operation) -> None:
        """``terminator`` in place of the ``control.yield``; the argument casts
        nothing reads (an argument only yielded, or unused) go."""
        self.lw.rewriter.insert(terminator, self.end_point())
        self.lw.rewriter.erase(self.terminator)
        for cast in self._casts:
            if not cast.results[0].uses:
                self.lw.rewriter.erase(cast)


def _as_results(lw: Lowering, values: list[SSAValue]) -> list[SSAValue]:
    """Each value in its result's upstream type (a carry static where the result
    has an unbacked dim, or the reverse, goes through ``tensor.cast``)."""
    results = []
    for value, result in zip(values, lw.op.results, strict=True):
        wanted = upstream_type(result.type)
        if isinstance(wanted, TensorType) and value.type != wanted:
            value = lw.insert(tensor.CastOp(value, wanted)).results[0]
        results.append(value)
    return results
