"""decompose: each op with a table entry is replaced, in place, by the ops its
decomposition traces to on the op's own operands — then those ops are
decomposed in turn, until no entry applies. The program is never re-traced:
one op at a time, the rest of the function stays as it is.

A decomposition may return ``NotImplemented`` to keep the op (as torch's do),
and an op made while expanding itself is kept (a decomposition that calls its
own op, like a user's ``conv2d`` override calling ``conv2d``, terminates).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from texport.dialects.aten import AtenOp, dims_equal
from texport.dialects.tx import SymBoolType, SymFloatType, SymIntType, TensorType
from texport.tracer.errors import TracingError
from texport.tracer.subtrace import SubTracer, call_rule, output_values, symbol_sources
from texport.tracer.tracing import NameTable

from .functionalize import rewrite_call
from .legality import where

Decomposition = Callable[..., Any]
_SYM_TYPES = (SymIntType, SymFloatType, SymBoolType)


class DecompositionError(ValueError):
    """A decomposition failed or returned values that do not fit its op."""


class Splicer:
    """Replaces ops of one block by their traced decompositions."""

    def __init__(self, block: Block, level: str = "functional") -> None:
        self.block = block
        self.level = level
        self.names = NameTable()
        self.sources = symbol_sources(block.args, level)
        self.known: dict[Any, SSAValue] = {}  # size expression -> a value defined above

    def note(self, op: Operation) -> None:
        """Remember symbolic scalars ``op`` defines (later rules reuse them)."""
        for result in op.results:
            if isinstance(result.type, SymIntType) and result.type.value is not None:
                self.known.setdefault(result.type.value, result)

    def replace(self, op: AtenOp, fn: Decomposition) -> list[Operation] | None:
        """Splice ``fn``'s ops in place of ``op``; None when it keeps the op."""
        scratch = Block()
        tracer = SubTracer(scratch, level=self.level, location=op.location, names=self.names,
                           symbol_sources=self.sources, known_symbols=self.known, rewrite=rewrite_call,
                           what=f"the decomposition of {op.op_def.key}")
        schema = op.op_def.schema
        try:
            result, _ = call_rule(tracer, fn, op.arguments(), [a.kwarg_only for a in schema.arguments],
                                  [a.name for a in schema.arguments])
            if result is NotImplemented:
                return None
            outputs = output_values(tracer, result)
        except (TracingError, TypeError, ValueError, IndexError) as err:
            raise DecompositionError(f"decompose: the decomposition of '{op.name}'{where(op)} failed: "
                                     f"{type(err).__name__}: {err}") from err
        _check_outputs(op, outputs)
        made = list(scratch.ops)
        for new in made:
            scratch.detach_op(new)
        self.block.insert_ops_before(made, op)
        for old, new in zip(op.results, outputs):
            if new is not None:
                old.replace_all_uses_with(new)
        self.block.erase_op(op)
        for expr, value in tracer.sym_values.items():
            self.known.setdefault(expr, value)
        return made


def _check_outputs(op: AtenOp, outputs: list[SSAValue | None]) -> None:
    if len(outputs) != len(op.results):
        raise DecompositionError(
            f"decompose: the decomposition of '{op.name}'{where(op)} returned {len(outputs)} values "
            f"for {len(op.results)} results"
        )
    for index, (old, new) in enumerate(zip(op.results, outputs)):
        if new is None:
            if old.uses:
                raise DecompositionError(
                    f"decompose: the decomposition of '{op.name}'{where(op)} returned None for result "
                    f"#{index}, which is used"
                )
            continue
        if not _fits(old.type, new.type):
            raise DecompositionError(
                f"decompose: the decomposition of '{op.name}'{where(op)} returned {new.type} for result "
                f"#{index}, whose type is {old.type}"
            )


def _fits(expected: Any, got: Any) -> bool:
    if isinstance(expected, TensorType):
        return (isinstance(got, TensorType) and expected.dtype == got.dtype
                and len(expected.shape) == len(got.shape)
                and all(dims_equal(a, b) for a, b in zip(expected.shape, got.shape)))
    return isinstance(got, _SYM_TYPES)


def decompose_function(func: FuncOp, table: Mapping[str, Decomposition]) -> int:
    """Decompose every op of ``func`` that has an entry in ``table`` (by
    registry key), recursively. Returns the number of ops replaced."""
    splicer = Splicer(func.body.block)
    expanding: dict[Operation, frozenset[str]] = {}
    count = 0
    op = splicer.block.first_op
    while op is not None:
        following = op.next_op
        fn = table.get(op.op_def.key) if isinstance(op, AtenOp) else None
        ancestry = expanding.pop(op, frozenset())
        if fn is None or op.op_def.key in ancestry:
            splicer.note(op)
            op = following
            continue
        made = splicer.replace(op, fn)
        if made is None:
            splicer.note(op)
            op = following
            continue
        count += 1
        inner = ancestry | {op.op_def.key}
        for new in made:
            expanding[new] = inner
        op = made[0] if made else following
    return count
