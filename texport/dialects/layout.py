"""The strides of an IR value, read from the ops that made it.

The IR types carry no strides (``!tx.tensor<[2, 3], f32>``): a value's strides
are what its op's stride rule (shape_rules/strides.py) makes of its operands'
strides, back to the function's arguments and to ops without a stride rule,
whose results are row-major. So they are a function of the program text and
survive printing and parsing as the program does. Decompositions and the IR
verifier read them here; the tracer carries them on its fake values instead.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Operation, SSAValue

from .meta import TensorMeta
from .shape_rules import STRIDE_RULES
from .shape_rules.guards import ShapeGuardError
from .shape_rules.strides import Strides, result_strides
from .tx import TensorType

StridesMemo = dict[SSAValue, "Strides | None"]


class _Unknown(Exception):
    """An argument whose value the IR does not say (an unbacked scalar)."""


def value_strides(value: SSAValue, memo: StridesMemo | None = None) -> Strides | None:
    """The strides of ``value`` (None: row-major). ``memo`` keeps what was
    computed for later calls: share one across the ops of a pass, as long as
    no op above the values asked about is replaced."""
    memo = {} if memo is None else memo
    pending = [value]
    while pending:  # depth-first over the operands still unknown, without recursion
        top = pending[-1]
        if top in memo:
            pending.pop()
            continue
        owner = top.owner
        op_def = getattr(owner, "op_def", None)  # an ATen op; block arguments have none
        if op_def is None or STRIDE_RULES.get(op_def.key) is None:
            memo[top] = None
            pending.pop()
            continue
        unknown = [v for v in owner.operands if isinstance(v.type, TensorType) and v not in memo]
        if unknown:
            pending.extend(unknown)
            continue
        pending.pop()
        for result, strides in zip(owner.results, _op_strides(owner, memo) or [None] * len(owner.results)):
            memo[result] = strides
    return memo[value]


def _op_strides(op: Operation, memo: StridesMemo) -> list[Strides | None] | None:
    schema = op.op_def.schema  # type: ignore[attr-defined]
    metas = [TensorMeta(r.type.shape, r.type.dtype) if isinstance(r.type, TensorType) else None
             for r in op.results]
    several = schema.returns_tuple or len(schema.returns) > 1
    expected: Any = tuple(metas) if several else metas if schema.returns[0].type.is_list else metas[0]
    try:
        args = [_meta(v, memo) for v in op.arguments()]  # type: ignore[attr-defined]
        return result_strides(op.op_def.key, args, expected)  # type: ignore[attr-defined]
    except (_Unknown, ShapeGuardError):  # not decidable from the IR: row-major
        return None


def _meta(value: Any, memo: StridesMemo) -> Any:
    if isinstance(value, SSAValue):
        if isinstance(value.type, TensorType):
            return TensorMeta(value.type.shape, value.type.dtype, memo[value])
        expr = getattr(value.type, "value", None)
        if expr is None:
            raise _Unknown
        return expr
    if isinstance(value, list):
        return [_meta(v, memo) for v in value]
    return value
