"""Symbolic scalars seen by Python code while tracing (``x.shape[0]``, ``t.item()``).

A SymInt holds a sympy expression and the tracer that made it. Arithmetic
builds new expressions (traced into ``tx`` ops when an op needs the value);
turning one into a Python bool or int asks the tracer to guard — which for a
data-dependent (unbacked) value is an error that names the user's line.
"""

from __future__ import annotations

from typing import Any

from texport.dialects import symbolic as _symbolic
from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.symbolic import dim_str, to_dim


def _expr(value: Any) -> Any:
    return value.expr if isinstance(value, SymNode) else value


class SymNode:
    """Base of SymInt/SymFloat/SymBool: an expression and its tracer."""

    is_symbolic_scalar = True
    kind = "int"
    __slots__ = ("expr", "tracer")

    def __init__(self, expr: Any, tracer: Any) -> None:
        self.expr = expr
        self.tracer = tracer

    def _make(self, expr: Any, kind: str = "int") -> Any:
        if not isinstance(expr, sympy.Basic) or not expr.free_symbols:
            return _python(expr, kind)
        cls = {"int": SymInt, "bool": SymBool, "float": SymFloat}[kind]
        return cls(expr, self.tracer)

    def concrete(self) -> Any:
        return self.tracer.guard_value(self)

    def __repr__(self) -> str:
        return dim_str(self.expr) if self.kind == "int" else str(self.expr)

    def __bool__(self) -> bool:
        return bool(self.tracer.guard_value(self))

    def __int__(self) -> int:
        return int(self.tracer.guard_value(self))

    def __index__(self) -> int:
        return int(self.tracer.guard_value(self))

    def __float__(self) -> float:
        return float(self.tracer.guard_value(self))

    def __hash__(self) -> int:
        return hash(self.expr)


def _python(expr: Any, kind: str) -> Any:
    if kind == "bool":
        return bool(expr)
    if kind == "float":
        return float(expr)
    return int(expr)


def _binary(fn: Any, reflected: bool = False, kind: str = "int") -> Any:
    def method(self: SymNode, other: Any) -> Any:
        if not isinstance(other, (int, float, bool, SymNode, sympy.Basic)):
            return NotImplemented
        a, b = (_expr(other), self.expr) if reflected else (self.expr, _expr(other))
        result_kind = "float" if kind == "int" and (isinstance(other, float) or getattr(other, "kind", "") == "float") else kind
        return self._make(fn(a, b), result_kind)

    return method


class SymInt(SymNode):
    kind = "int"
    __slots__ = ()

    __add__ = _binary(lambda a, b: a + b)
    __radd__ = _binary(lambda a, b: a + b, reflected=True)
    __sub__ = _binary(lambda a, b: a - b)
    __rsub__ = _binary(lambda a, b: a - b, reflected=True)
    __mul__ = _binary(lambda a, b: a * b)
    __rmul__ = _binary(lambda a, b: a * b, reflected=True)
    __floordiv__ = _binary(lambda a, b: to_dim(_symbolic.FloorDiv(sympy.sympify(a), sympy.sympify(b))))
    __rfloordiv__ = _binary(lambda a, b: to_dim(_symbolic.FloorDiv(sympy.sympify(a), sympy.sympify(b))), reflected=True)
    __mod__ = _binary(lambda a, b: sympy.Mod(a, b))
    __truediv__ = _binary(lambda a, b: sympy.sympify(a) / b, kind="float")
    __lt__ = _binary(lambda a, b: sympy.Lt(a, b), kind="bool")
    __le__ = _binary(lambda a, b: sympy.Le(a, b), kind="bool")
    __gt__ = _binary(lambda a, b: sympy.Gt(a, b), kind="bool")
    __ge__ = _binary(lambda a, b: sympy.Ge(a, b), kind="bool")

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        if not isinstance(other, (int, SymNode, sympy.Basic)):
            return False
        return self._make(sympy.Eq(self.expr, _expr(other)), "bool")

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        if not isinstance(other, (int, SymNode, sympy.Basic)):
            return True
        return self._make(sympy.Ne(self.expr, _expr(other)), "bool")

    def __neg__(self) -> Any:
        return self._make(-self.expr)

    __hash__ = SymNode.__hash__


class SymFloat(SymNode):
    kind = "float"
    __slots__ = ()

    __add__ = _binary(lambda a, b: a + b, kind="float")
    __radd__ = _binary(lambda a, b: a + b, reflected=True, kind="float")
    __sub__ = _binary(lambda a, b: a - b, kind="float")
    __rsub__ = _binary(lambda a, b: a - b, reflected=True, kind="float")
    __mul__ = _binary(lambda a, b: a * b, kind="float")
    __rmul__ = _binary(lambda a, b: a * b, reflected=True, kind="float")
    __truediv__ = _binary(lambda a, b: sympy.sympify(a) / b, kind="float")
    __rtruediv__ = _binary(lambda a, b: sympy.sympify(a) / b, reflected=True, kind="float")
    __lt__ = _binary(lambda a, b: sympy.Lt(a, b), kind="bool")
    __le__ = _binary(lambda a, b: sympy.Le(a, b), kind="bool")
    __gt__ = _binary(lambda a, b: sympy.Gt(a, b), kind="bool")
    __ge__ = _binary(lambda a, b: sympy.Ge(a, b), kind="bool")

    def __neg__(self) -> Any:
        return self._make(-self.expr, "float")

    __hash__ = SymNode.__hash__


class SymBool(SymNode):
    kind = "bool"
    __slots__ = ()
