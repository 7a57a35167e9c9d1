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

from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from texport.dialects.aten import AtenOp, dims_equal
from texport.dialects.layout import StridesMemo
from texport.dialects.registry import OPS
from texport.dialects.symbolic import symbol
from texport.dialects.tx import SymBoolType, SymFloatType, SymIntType, TensorType
from texport.tracer.errors import TracingError
from texport.tracer.subtrace import SubTracer, call_rule, output_values, symbol_sources
from texport.tracer.symbolic_ir import size_source
from texport.tracer.tracing import NameTable

from .errors import DecompositionError
from .functionalize import rewrite_call
from .legality import where
from .table import DECOMPOSITIONS

Decomposition = Callable[..., Any]
_SYM_TYPES = (SymIntType, SymFloatType, SymBoolType)
# Views whose result never requires grad: detach, and the alias texport's
# decompositions make of it.
_GRAD_CUTTING_VIEWS = frozenset({"aten.detach.default", "aten.alias.default"})



class Splicer:
    """Replaces ops of one block by their traced decompositions."""

    def __init__(self, block: Block, level: str = "functional",
                 parameters: frozenset[SSAValue] = frozenset()) -> None:
        self.block = block
        # The values that require grad as torch retraces the program (under no_grad):
        # the parameters and the program's own views of them, not the ops a
        # decomposition makes (torch runs those below autograd).
        self.requires_grad: set[SSAValue] = set(parameters)
        self.level = level
        self.names = NameTable()
        self.sources = symbol_sources(block.args, level)
        self.known: dict[Any, SSAValue] = {}  # size expression -> a value defined above
        # Strides of the values above (dialects/layout.py): ops are replaced in program
        # order, so everything above the op being replaced is final.
        self.strides: StridesMemo = {}
        self.next_unbacked: int | None = None  # the next free u<N>, found on first need

    def note(self, op: Operation) -> None:
        """Remember symbolic scalars ``op`` defines (later rules reuse them), and
        where to read the sizes from data its results introduce (nonzero's u0)."""
        for result in op.results:
            if isinstance(result.type, SymIntType) and result.type.value is not None:
                self.known.setdefault(result.type.value, result)
            elif isinstance(result.type, TensorType):
                for axis, dim in enumerate(result.type.shape):
                    if type(dim) is not int and dim.is_Symbol and dim not in self.sources:
                        self.sources[dim] = size_source(result, axis, dim, self.level)

    def replace(self, op: AtenOp, fn: Decomposition) -> list[Operation] | None:
        """Splice ``fn``'s ops in place of ``op``; None when it keeps the op."""
        scratch = Block()
        tracer = SubTracer(scratch, level=self.level, location=op.location, names=self.names,
                           symbol_sources=self.sources, known_symbols=self.known, strides=self.strides,
                           parameters=self.requires_grad, rewrite=rewrite_call,
                           what=f"the decomposition of {op.op_def.key}")
        tracer.reuse_unbacked = _unbacked_symbols(op)
        tracer.fresh_unbacked = self.fresh_unbacked
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
                if old in self.requires_grad:
                    self.requires_grad.add(new)
        self.block.erase_op(op)
        for expr, value in tracer.sym_values.items():
            self.known.setdefault(expr, value)
        return made


    def note_program_op(self, op: Operation) -> None:
        """An op of the program (not of a decomposition): a view of a value that
        requires grad does too (torch's view rule under no_grad)."""
        op_def = getattr(op, "op_def", None)
        if (op_def is not None and op_def.schema.is_view and op_def.key not in _GRAD_CUTTING_VIEWS
                and op.operands and op.operands[0] in self.requires_grad):
            self.requires_grad.update(op.results)

    def fresh_unbacked(self) -> Any:
        if self.next_unbacked is None:
            root = self.block
            while root.parent_op() is not None and root.parent_op().parent_block() is not None:
                root = root.parent_op().parent_block()
            used = [int(s.name[1:]) for op in root.walk() for r in op.results for s in _type_symbols(r.type)
                    if s.name[1:].isdigit() and s.name.startswith("u")]
            self.next_unbacked = max(used, default=-1) + 1
        name = f"u{self.next_unbacked}"
        self.next_unbacked += 1
        return symbol(name)


def _type_symbols(value_type: Any) -> list[Any]:
    if isinstance(value_type, TensorType):
        exprs = [d for d in value_type.shape if type(d) is not int]
    elif isinstance(value_type, _SYM_TYPES) and value_type.value is not None:
        exprs = [value_type.value]
    else:
        return []
    found = []
    for expr in exprs:
        found.extend(sorted(getattr(expr, "free_symbols", ()), key=lambda s: s.name))
    return found


def _unbacked_symbols(op: Operation) -> list[Any]:
    """The unbacked symbols (u<N>) the op's results introduce, in order."""
    unbacked = [sym for result in op.results for sym in _type_symbols(result.type) if sym.name.startswith("u")]
    if not unbacked:  # most results: no operand needs looking at
        return []
    given = {sym for operand in op.operands for sym in _type_symbols(operand.type)}
    seen: list[Any] = []
    for sym in unbacked:
        if sym not in seen and sym not in given:
            seen.append(sym)
    return seen


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
    """Decompose every op of ``func`` (nested regions included) that has an
    entry in ``table`` (by registry key), recursively. Returns the number of
    ops replaced."""
    block = func.body.block
    return _decompose_block(Splicer(block, parameters=_parameters(func)), table)


def decompose_before_functionalize(func: FuncOp) -> int:
    """Decompose the ops tagged ``decomposed_by_functionalize`` (CompositeImplicitAutograd
    ops that may alias or write: reshape, flatten, view_as, to.dtype, dropout, ...)
    at the training level. torch's functionalization decomposes them as it meets
    them, so run_decompositions never keeps one; here it happens just before."""
    splicer = Splicer(func.body.block, level="training", parameters=_parameters(func))
    return _decompose_block(splicer, _functionalize_decompositions())


def _functionalize_decompositions() -> dict[str, Decomposition]:
    return {key: DECOMPOSITIONS[key] for key in OPS.keys()
            if OPS[key].has_tag("decomposed_by_functionalize") and key in DECOMPOSITIONS}


def _parameters(func: FuncOp) -> frozenset[SSAValue]:
    """The arguments the signature marks as parameters (they require grad)."""
    attrs = func.arg_attrs.data if func.arg_attrs else ()
    return frozenset(arg for arg, attr in zip(func.body.block.args, attrs)
                     if attr.data.get("tx.input") == StringAttr("PARAMETER"))


def _decompose_block(splicer: Splicer, table: Mapping[str, Decomposition]) -> int:
    expanding: dict[Operation, frozenset[str]] = {}
    count = 0
    op = splicer.block.first_op
    while op is not None:
        following = op.next_op
        for region in op.regions:
            for inner in region.blocks:
                nested = Splicer(inner, level=splicer.level)
                nested.sources = {**splicer.sources, **nested.sources}
                nested.names = splicer.names
                count += _decompose_block(nested, table)
        fn = table.get(op.op_def.key) if isinstance(op, AtenOp) else None
        ancestry = expanding.pop(op, frozenset())
        if not ancestry:
            splicer.note_program_op(op)
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
        inner_ancestry = ancestry | {op.op_def.key}
        for new in made:
            expanding[new] = inner_ancestry
        op = made[0] if made else following
    return count
