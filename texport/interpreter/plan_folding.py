"""Constant folding in the plan: ops that depend on nothing the call brings run once,
when the plan is compiled.

A core program builds from constants what the call never changes: scaled dot-product
attention's causal mask (full, arange, unsqueeze, sub, le, logical_and, scalar_tensor,
where: 8 of its 35 ops), the fills and index grids of decompositions. Each such op runs
here once, its result kept in the plan's namespace, and the plan reads it (as torch's
compilers fold constants before code generation).

An op is folded when every operand is itself folded (no function argument, no size
read from one), it writes nothing and is not seeded-random, it has one result of at
most FOLDED_BYTES, its kernel runs here, and its result can never reach the user or a
write: the kept array is shared by every call, so it must not be returned or yielded,
written, read by a control-flow op or a fused step, or viewed by an op whose own result
could do any of these (an out-of-place kernel returns a fresh array, a view op an alias).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Block, Operation, SSAValue

from texport.dialects.aten import AtenOp

from .kernels import KERNELS
from .plan_patterns import resolve

FOLDED_BYTES = 1 << 22  # a folded result stays in memory as long as the plan


def folded_values(block: Block, grouped: dict[Operation, Any]) -> dict[Operation, Any]:
    """op -> its value, for the ops of ``block`` that run once at compile time
    (``grouped``: the ops plan_patterns.py runs as fused steps, never folded)."""
    values: dict[SSAValue, Any] = {}
    producers: dict[SSAValue, Operation] = {}
    for op in block.ops:
        if op in grouped or not _may_fold(op) or any(v not in values for v in op.operands):
            continue
        value = _evaluate(op, values)
        if value is not None:
            values[op.results[0]] = value
            producers[op.results[0]] = op
    dropped = True
    while dropped:  # a value that escapes is computed at run time, and so is all that reads it
        dropped = False
        for result, op in list(producers.items()):
            if any(v not in values for v in op.operands) or _escapes(result, producers, grouped):
                del values[result], producers[result]
                dropped = True
    return {op: values[result] for result, op in producers.items()}


def _may_fold(op: Operation) -> bool:
    if not isinstance(op, AtenOp) or len(op.results) != 1:
        return False
    op_def = op.op_def
    schema = op_def.schema
    return (not schema.is_mutable and not op_def.has_tag("nondeterministic_seeded")
            and not schema.returns_tuple and not any(r.type.is_list for r in schema.returns)
            and op_def.key in KERNELS)


def _evaluate(op: AtenOp, values: dict[SSAValue, Any]) -> Any:
    """The op's result from its folded operands; None when it cannot be kept (a failure
    is left for the call to report, at the op's line)."""
    try:
        result = KERNELS[op.op_def.key](*(resolve(a, values) for a in op.arguments()))
    except Exception:  # noqa: BLE001 - run at call time instead, where the error is reported
        return None
    if not isinstance(result, np.ndarray) or result.nbytes > FOLDED_BYTES:
        return None
    result.flags.writeable = False  # shared by every call: a write would be a bug, and fails
    return result


def _escapes(value: SSAValue, producers: dict[SSAValue, Operation], grouped: dict[Operation, Any]) -> bool:
    """``value`` (or an alias of it) may reach a return, a write, a fused step or a region."""
    for use in value.uses:
        user = use.operation
        if not isinstance(user, AtenOp) or user in grouped:
            return True  # return, yield, control flow, size ops; a fused step may return a view
        schema = user.op_def.schema
        if schema.is_mutable:
            return True
        if schema.is_view or user.op_def.has_tag("inplace_view"):
            folded = user.results[0] if len(user.results) == 1 and user.results[0] in producers else None
            if folded is None:
                return True  # an alias computed at run time: it may go anywhere
    return False
