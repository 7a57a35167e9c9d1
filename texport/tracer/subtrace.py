"""Tracing a function into the ops of an existing function.

Decompositions and functionalization rules are plain texport code. To apply
one to an op, its operands become traced tensors whose SSA values are the op's
own operands (``Tracer.fake``), the function runs in tracing mode, and every op
it calls is appended to a scratch block at ``level`` (functional by default:
any op that writes nothing). The caller splices that block in place of the op.

Differences from export's tracer:

- new ops carry the location of the op they replace;
- a ``rewrite`` hook sees every call first: functionalization uses it to turn
  an in-place call (``x.add_(1)``) into its functional form and *rebind* the
  traced tensor to the result; rebinding an operand records a write
  (``writes``) that functionalization turns into a mutation of the program;
- sizes are decided from the types alone (size-oblivious, like torch's
  decompositions); a size symbol is read from the function's inputs with
  ``sym_size.int`` the first time a rule needs it as a value;
- an operand's strides are read off the ops that made it (dialects/layout.py),
  so a rule sees the layout torch's fake tensor would have; an operand in
  ``parameters`` requires grad, any other does not (torch retraces a program
  under no_grad: a parameter and the program's views of one require grad);
- a rule cannot capture an eager tensor (it would become a new program input).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from xdsl.ir import Block, SSAValue

from texport.dialects import tx
from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.layout import StridesMemo, value_strides
from texport.dialects.names import set_name
from texport.dialects.shape_rules.guards import guard_bool
from texport.dialects.tx import SymBoolType, SymFloatType, SymIntType, TensorType

from .dispatcher import using_mode
from .errors import TracingError
from .handles import OpOverload, handle_for
from .symbolic_ir import SymbolSource, size_source
from .symint import SymBool, SymFloat, SymInt, SymNode
from .tensor import Tensor
from .tracing import NameTable, Tracer

Rewrite = Callable[["SubTracer", OpOverload, list[Any]], Any]
NOT_HANDLED: Any = object()  # what a rewrite hook returns to let a call trace as usual
_SYM_KINDS = {SymIntType: SymInt, SymFloatType: SymFloat, SymBoolType: SymBool}


class SubTracer(Tracer):
    """The tracing mode of a rule applied to one op (see module docstring)."""

    records_fresh_constants = False  # a rule's constants are its own, not the user's

    def __init__(self, block: Block, *, level: str = "functional", location: Any = None,
                 names: NameTable | None = None, symbol_sources: dict[Any, SymbolSource] | None = None,
                 known_symbols: dict[Any, SSAValue] | None = None, strides: StridesMemo | None = None,
                 parameters: AbstractSet[SSAValue] = frozenset(),
                 rewrite: Rewrite | None = None, what: str = "a decomposition") -> None:
        super().__init__(block, level=level)
        self.location = location
        if names is not None:
            self.names = names
        self.symbol_sources = symbol_sources if symbol_sources is not None else {}
        if known_symbols:
            self.sym_values.update(known_symbols)
        self.rewrite = rewrite
        self.what = what
        self.strides: StridesMemo = strides if strides is not None else {}  # of values above, by value
        self.parameters = parameters  # the values that require grad
        self.writes: dict[int, Tensor] = {}  # id of a rebound operand tensor -> the tensor
        # A rule replacing a data-dependent op (item, nonzero) must give its results the
        # op's own unbacked symbols, which the rest of the program's types mention:
        # fresh symbols are taken from ``reuse_unbacked`` first, then from ``fresh_unbacked``.
        self.reuse_unbacked: list[sympy.Symbol] = []
        self.fresh_unbacked: Callable[[], sympy.Symbol] | None = None

    # ---- operands -----------------------------------------------------------

    def traced(self, value: Any) -> Any:
        """The traced form of an op argument: SSA tensors and scalars become
        traced values, lists are converted item by item, literals stay."""
        if isinstance(value, SSAValue):
            value_type = value.type
            if isinstance(value_type, TensorType):
                tensor = self.fake(value_type.shape, value_type.dtype, value, value_strides(value, self.strides))
                tensor.requires_grad = value in self.parameters
                return tensor
            kind = _SYM_KINDS.get(type(value_type))
            if kind is None:
                raise TracingError(f"{self.what} cannot take a value of type {value_type}")
            expr = value_type.value
            if expr is None:
                expr = self.new_unbacked()
            elif not isinstance(expr, sympy.Basic) or not expr.free_symbols:
                return int(expr) if kind is SymInt else float(expr) if kind is SymFloat else bool(expr)
            self.sym_values.setdefault(("float", expr) if kind is SymFloat else expr, value)
            return kind(expr, self)
        if isinstance(value, list):
            return [self.traced(v) for v in value]
        return value

    # ---- what differs from export's tracer ------------------------------------

    def _location(self) -> Any:
        return self.location

    def new_unbacked(self) -> sympy.Symbol:
        if self.reuse_unbacked:
            return self.reuse_unbacked.pop(0)
        if self.fresh_unbacked is not None:
            return self.fresh_unbacked()
        return super().new_unbacked()

    def lift_constant(self, tensor: Tensor) -> SSAValue:
        raise TracingError(
            f"{self.what} reads an eager tensor of shape {list(tensor._value.shape)}: a rule cannot "
            "capture tensors (build constants with ops: full, scalar_tensor, arange)"
        )

    def guard_value(self, node: SymNode) -> Any:
        """Decide a size condition from the types alone (size-oblivious)."""
        expr = node.expr
        if isinstance(expr, (sympy.Rel, sympy.logic.boolalg.Boolean)) and not isinstance(expr, sympy.Symbol):
            return guard_bool(expr)
        if isinstance(expr, sympy.Basic) and expr.is_number:
            return int(expr) if node.kind == "int" else float(expr)
        raise TracingError(
            f"{self.what} needs the concrete value of the symbolic size {node!r}; write it "
            "without Python branching on sizes (or return NotImplemented to keep the op)"
        )

    def call(self, op: OpOverload, values: list[Any]) -> Any:
        if self.rewrite is not None:
            result = self.rewrite(self, op, values)
            if result is not NOT_HANDLED:
                return result
        if op._schema.is_mutable:
            raise TracingError(f"{self.what} calls {op}, which writes its operands: call its functional form")
        return super().call(op, values)

    def rebind(self, target: Tensor, value: Tensor) -> None:
        """``target`` now holds ``value`` (cast to its dtype): a write."""
        if value._dtype is not target._dtype:
            value = super().call(handle_for("_to_copy.default"), _to_copy_values(value, target._dtype))
        target._value = value._value
        self.writes[id(target)] = target


def _to_copy_values(tensor: Tensor, dtype: Any) -> list[Any]:
    schema = handle_for("_to_copy.default")._schema
    values = [a.default if a.has_default else None for a in schema.arguments]
    values[0] = tensor
    names = [a.name for a in schema.arguments]
    values[names.index("dtype")] = dtype
    return values


# --------------------------------------------------------------------------
# Running a rule
# --------------------------------------------------------------------------


def call_rule(tracer: SubTracer, fn: Callable[..., Any], op_values: Sequence[Any],
              kwarg_only: Sequence[bool], arg_names: Sequence[str]) -> tuple[Any, list[Any]]:
    """Run ``fn`` on the traced operands: positional for positional schema
    arguments, by name for keyword-only ones (as torch calls decompositions).
    Returns the result and the traced arguments (to find rebound ones)."""
    args, kwargs, traced_args = [], {}, []
    for value, is_kw, name in zip(op_values, kwarg_only, arg_names):
        traced = tracer.traced(value)
        traced_args.append(traced)
        if is_kw:
            kwargs[name] = traced
        else:
            args.append(traced)
    with using_mode(tracer):
        return fn(*args, **kwargs), traced_args


def output_values(tracer: SubTracer, result: Any) -> list[SSAValue | None]:
    """The SSA values of a rule's result (a tensor, a scalar, a tuple or list of them)."""
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    values: list[SSAValue | None] = []
    for item in items:
        if isinstance(item, (tuple, list)):
            values.extend(output_values(tracer, item))
        elif item is None:
            values.append(None)
        elif isinstance(item, Tensor):
            values.append(tracer.ir_value(item))
        elif isinstance(item, SymNode):
            values.append(_scalar_value(tracer, item))
        elif isinstance(item, (bool, int)):
            values.append(_constant(tracer, int(item)))
        else:
            raise TracingError(f"{tracer.what} returned {type(item).__name__} {item!r}, not a tensor")
    return values


def _scalar_value(tracer: SubTracer, node: SymNode) -> SSAValue:
    """The SSA value of a symbolic scalar: the op result that defines it when
    there is one (of the node's own kind), else traced with tx ops."""
    wanted = {"int": SymIntType, "float": SymFloatType, "bool": SymBoolType}[node.kind]
    for key in (node.expr, (node.kind, node.expr)):
        known = tracer.sym_values.get(key)
        if known is not None and isinstance(known.type, wanted):
            return known
    return tracer.materialize(node)


def _constant(tracer: SubTracer, value: int) -> SSAValue:
    op = tx.ConstantOp(value)
    tracer.blocks[-1].add_op(op)
    set_name(op.results[0], tracer.names.claim(f"c{value}".replace("-", "m")))
    return op.results[0]


# --------------------------------------------------------------------------
# Size symbols read from the function's inputs
# --------------------------------------------------------------------------


def symbol_sources(args: Sequence[SSAValue], level: str) -> dict[Any, SymbolSource]:
    """For each symbolic dim of the inputs' types (a symbol ``s0``, or a derived
    dim ``4*s0``): emit ``sym_size.int(arg, axis)`` of the first input dim that
    is exactly it."""
    sources: dict[Any, SymbolSource] = {}
    for arg in args:
        arg_type = arg.type
        if not isinstance(arg_type, TensorType):
            continue
        for axis, dim in enumerate(arg_type.shape):
            if type(dim) is not int and dim not in sources:
                sources[dim] = size_source(arg, axis, dim, level)
    return sources
