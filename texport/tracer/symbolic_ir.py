"""Tracing symbolic integers into IR: an expression over size symbols becomes
``sym_size.int`` reads and ``tx`` arithmetic, emitted once per expression."""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, SSAValue

from texport.dialects import symbolic as _symbolic
from texport.dialects import tx
from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.names import set_name
from texport.dialects.symbolic import relation_name, to_dim


def materialize(tracer: Any, expr: Any, kind: str = "int") -> SSAValue:
    if kind == "float":
        return _materialize_float(tracer, sympy.sympify(expr))
    if kind == "bool":
        return materialize_condition(tracer, expr)
    expr = to_dim(expr)
    known = tracer.sym_values.get(expr)
    if known is not None:
        return known
    if type(expr) is int or isinstance(expr, sympy.Integer):
        value = _emit(tracer, tx.ConstantOp(int(expr)), f"c{int(expr)}".replace("-", "m"))
    elif isinstance(expr, sympy.Symbol):
        value = _size_of(tracer, expr)
    elif isinstance(expr, (sympy.Add, sympy.Mul)):
        value = _fold(tracer, type(expr), list(expr.args))
    elif isinstance(expr, _symbolic.FloorDiv):
        value = _binary(tracer, tx.FloorDivOp, expr, "floordiv")
    elif isinstance(expr, sympy.Mod):
        value = _binary(tracer, tx.ModOp, expr, "mod")
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


def _binary(tracer: Any, op_type: type, expr: Any, name: str) -> SSAValue:
    lhs, rhs = (materialize(tracer, a) for a in expr.args)
    return _emit(tracer, op_type.create(operands=[lhs, rhs], result_types=[tx.symint(expr)]), name)


def _size_of(tracer: Any, sym: sympy.Symbol) -> SSAValue:
    source = tracer.symbol_sources.get(sym.name) if hasattr(tracer, "symbol_sources") else None
    if source is None and getattr(tracer, "meta_only", False):
        # a shape-only trace: the IR is thrown away
        return Block(arg_types=[tx.symint(sym)]).args[0]
    if source is None:
        raise NotImplementedError(f"no input size defines the symbol {sym}")
    return source(tracer)


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
