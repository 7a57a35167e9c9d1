"""Tracing symbolic integers into IR: an expression over size symbols becomes
``sym_size.int`` reads and ``tx`` arithmetic, emitted once per expression."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, SSAValue

from texport.dialects import symbolic as _symbolic
from texport.dialects import tx
from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.aten import op_class
from texport.dialects.names import set_name
from texport.dialects.registry import lookup_op
from texport.dialects.symbolic import relation_name, to_dim

SymbolSource = Callable[[Any], SSAValue]  # emits the ops that read a symbol, in a tracer


def size_source(value: SSAValue, axis: int, dim: Any, level: str) -> SymbolSource:
    """A symbol read as ``sym_size.int(value, axis)``, emitted on first use:
    an input dim, or a size from data that the op making ``value`` defines."""
    def source(tracer: Any) -> SSAValue:
        op = op_class(lookup_op("sym_size.int"), level).build([value, axis], [tx.symint(dim)],
                                                              location=getattr(tracer, "location", None))
        return _emit(tracer, op, "sym_size_int")

    return source


def materialize(tracer: Any, expr: Any, kind: str = "int") -> SSAValue:
    if kind == "float":
        return _materialize_float(tracer, sympy.sympify(expr))
    if kind == "bool":
        return materialize_condition(tracer, expr)
    expr = to_dim(expr)
    known = tracer.sym_values.get(expr)
    if known is not None:
        return known
    source = tracer.symbol_sources.get(expr) if type(expr) is not int else None
    if source is not None:  # an input dim (s0, or derived: 4*s0), or a size from data (u0)
        value = source(tracer)
    elif type(expr) is int or isinstance(expr, sympy.Integer):
        value = _emit(tracer, tx.ConstantOp(int(expr)), f"c{int(expr)}".replace("-", "m"))
    elif isinstance(expr, sympy.Symbol):
        value = _root_of_derived(tracer, expr)
    elif isinstance(expr, sympy.Mul) and _multiple_of_derived(tracer, expr) is not None:
        dim, factor = _multiple_of_derived(tracer, expr)
        value = _emit_binary(tracer, tx.MulOp, materialize(tracer, dim), materialize(tracer, factor), expr, "mul")
    elif isinstance(expr, (sympy.Add, sympy.Mul)):
        value = _fold(tracer, type(expr), list(expr.args))
    elif isinstance(expr, _symbolic.FloorDiv):
        value = _binary(tracer, tx.FloorDivOp, expr, "floordiv")
    elif isinstance(expr, sympy.Mod):
        value = _binary(tracer, tx.ModOp, expr, "mod")
    elif isinstance(expr, (sympy.Max, sympy.Min)):
        value = _fold_extremum(tracer, expr)
    else:
        raise NotImplementedError(f"cannot trace the symbolic expression {expr} into the IR")
    tracer.sym_values[expr] = value
    return value


def _emit(tracer: Any, op: Any, name: str) -> SSAValue:
    tracer.blocks[-1].add_op(op)
    set_name(op.results[0], tracer.names.claim(name))
    return op.results[0]


def _fold(tracer: Any, kind: type, terms: list[Any]) -> SSAValue:
    """a + b + c as ((a + b) + c): each partial sum is an SSA value with its expression."""
    op_type = tx.AddOp if kind is sympy.Add else tx.MulOp
    partial = terms[0]
    result = materialize(tracer, partial)
    for term in terms[1:]:
        partial = partial + term if kind is sympy.Add else partial * term
        op = op_type.create(operands=[result, materialize(tracer, term)],
                            result_types=[tx.symint(to_dim(partial))])
        result = _emit(tracer, op, "add" if kind is sympy.Add else "mul")
    return result


def _fold_extremum(tracer: Any, expr: Any) -> SSAValue:
    """Max(a, b, c) as sym_max(sym_max(a, b), c), each partial one SSA value."""
    kind = type(expr)
    op_type, name = (tx.MaxOp, "sym_max") if kind is sympy.Max else (tx.MinOp, "sym_min")
    args = list(expr.args)
    partial, result = args[0], materialize(tracer, args[0])
    for arg in args[1:]:
        partial = kind(partial, arg)
        result = _emit_binary(tracer, op_type, result, materialize(tracer, arg), partial, name)
    return result


def _binary(tracer: Any, op_type: type, expr: Any, name: str) -> SSAValue:
    lhs, rhs = (materialize(tracer, a) for a in expr.args)
    return _emit_binary(tracer, op_type, lhs, rhs, expr, name)


def _emit_binary(tracer: Any, op_type: type, lhs: SSAValue, rhs: SSAValue, expr: Any, name: str) -> SSAValue:
    return _emit(tracer, op_type.create(operands=[lhs, rhs], result_types=[tx.symint(to_dim(expr))]), name)


def _derived_dims(tracer: Any, sym: sympy.Symbol) -> list[tuple[Any, Any, Any]]:
    """The readable dims ``a*sym + b`` (a, b integers, a > 0), as (dim, a, b)."""
    found = []
    for dim in tracer.symbol_sources:
        if isinstance(dim, (sympy.Add, sympy.Mul)) and dim.free_symbols == {sym}:
            a, b = dim.coeff(sym), dim.subs(sym, 0)
            if a.is_Integer and a > 0 and b.is_Integer and dim == a * sym + b:
                found.append((dim, a, b))
    return found


def _root_of_derived(tracer: Any, sym: sympy.Symbol) -> SSAValue:
    """A symbol no input dim is exactly (the root h of an input dim 4*h): read
    a dim derived from it and solve the linear relation, (dim - b) // a."""
    derived = _derived_dims(tracer, sym)
    if not derived:
        if getattr(tracer, "meta_only", False):  # a shape-only trace: the IR is thrown away
            return Block(arg_types=[tx.symint(sym)]).args[0]
        raise NotImplementedError(f"no input size defines the symbol {sym}")
    dim, a, b = derived[0]
    value = materialize(tracer, dim)
    if not 0 <= b < a:  # (a*h + b) // a is h itself when 0 <= b < a
        value = _emit_binary(tracer, tx.AddOp, value, materialize(tracer, -b), dim - b, "add")
    return _emit_binary(tracer, tx.FloorDivOp, value, materialize(tracer, a), sym, "floordiv")


def _multiple_of_derived(tracer: Any, expr: Any) -> tuple[Any, Any] | None:
    """``12*h`` as ``(4*h) * 3`` when an input dim is ``4*h`` (torch multiplies the size it read)."""
    coeff, rest = expr.as_coeff_Mul()
    if not coeff.is_Integer or not rest.is_Symbol or rest in tracer.symbol_sources:
        return None
    for dim, a, b in _derived_dims(tracer, rest):
        if b == 0 and coeff % a == 0:
            return dim, coeff // a
    return None


def _materialize_float(tracer: Any, expr: Any) -> SSAValue:
    """Float expressions over int symbols: ints convert with tx.to_float."""
    key = ("float", expr)
    known = tracer.sym_values.get(key)
    if known is not None:
        return known
    if expr.is_Number:
        value = _emit(tracer, tx.ConstantOp(float(expr)), "c_float")
    elif isinstance(expr, sympy.Symbol) or expr.is_integer:
        source = materialize(tracer, expr)
        op = tx.ToFloatOp.create(operands=[source], result_types=[tx.SymFloatType(tx.SymExprAttr(expr))])
        value = _emit(tracer, op, "sym_float")
    elif isinstance(expr, (sympy.Add, sympy.Mul)):
        value = _materialize_float(tracer, expr.args[0])
        partial = expr.args[0]
        for term in expr.args[1:]:
            partial = partial + term if isinstance(expr, sympy.Add) else partial * term
            op_type = tx.AddOp if isinstance(expr, sympy.Add) else tx.MulOp
            op = op_type.create(operands=[value, _materialize_float(tracer, term)],
                                result_types=[tx.SymFloatType(tx.SymExprAttr(partial))])
            value = _emit(tracer, op, "add" if isinstance(expr, sympy.Add) else "mul")
    else:
        raise NotImplementedError(f"cannot trace the symbolic float {expr} into the IR")
    tracer.sym_values[key] = value
    return value


def materialize_condition(tracer: Any, condition: Any, name: str | None = None) -> SSAValue:
    """A relation over symbols as ``tx.cmp`` (a !tx.symbool value)."""
    known = tracer.sym_values.get(("bool", condition))
    if known is not None:
        return known
    predicate = relation_name(condition)
    if predicate is None:
        raise NotImplementedError(f"cannot trace the symbolic condition {condition} into the IR")
    lhs, rhs = (materialize(tracer, side) for side in condition.args)
    op = tx.CmpOp.create(operands=[lhs, rhs], result_types=[tx.SymBoolType(tx.SymExprAttr(None))],
                         properties={"predicate": StringAttr(predicate)})
    value = _emit(tracer, op, name or predicate)
    tracer.sym_values[("bool", condition)] = value
    return value
