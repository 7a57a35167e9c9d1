"""torch's SymInt-aware helpers and checks: ``sym_int``, ``sym_max``, ...,
``sym_constrain_range``, ``_check_with`` and its family.

On Python numbers each is its Python meaning (and torch's promotions); on a
traced SymInt it builds an expression without guarding (``sym_max(s0, 3)`` is
``Max(3, s0)``), and the range helpers narrow a symbol's range with the same
runtime asserts torch's ``_assert_scalar`` nodes make.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

from texport.dialects._lazy import sympy

from .dispatcher import current_mode
from .symint import SymBool, SymFloat, SymInt, SymNode
from .tensor import Tensor
from .tracing import Tracer

_DEFAULT_MESSAGE = ("Expected cond to be True, but got False. (Could this error message be improved? "
                    "If so, please report an enhancement request to PyTorch.)")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


# --------------------------------------------------------------------------
# sym_* helpers
# --------------------------------------------------------------------------


def _symbolic(node: SymNode, expr: Any, kind: str) -> Any:
    return node._make(expr, kind)


def sym_int(a: Any) -> Any:
    """``int(a)`` that keeps a SymInt symbolic; a SymFloat truncates toward zero."""
    if isinstance(a, SymInt):
        return a
    if isinstance(a, SymFloat):
        if a.expr.is_integer:  # sym_int(sym_float(n)) is n
            return _symbolic(a, a.expr, "int")
        return math.trunc(float(a))
    return builtins.int(a)


def sym_float(a: Any) -> Any:
    if isinstance(a, SymFloat):
        return a
    if isinstance(a, SymInt):
        return _symbolic(a, a.expr, "float")
    return builtins.float(a)


def _min_max(a: Any, b: Any, name: str) -> Any:
    for value in (a, b):
        if not isinstance(value, (builtins.int, builtins.float, SymInt, SymFloat)):
            raise AssertionError(f"expected (<class 'int'>, <class 'float'>), got {type(value)}")
    symbolic = a if isinstance(a, SymNode) else b if isinstance(b, SymNode) else None
    floating = any(isinstance(v, (builtins.float, SymFloat)) for v in (a, b))
    if symbolic is None:
        result = (builtins.max if name == "max" else builtins.min)(a, b)
        return builtins.float(result) if floating else result
    exprs = [v.expr if isinstance(v, SymNode) else v for v in (a, b)]
    expr = (sympy.Max if name == "max" else sympy.Min)(*exprs)
    return _symbolic(symbolic, expr, "float" if floating else "int")


def sym_max(a: Any, b: Any) -> Any:
    """``max(a, b)`` without a guard on ``a < b``; a float argument makes the result float."""
    return _min_max(a, b, "max")


def sym_min(a: Any, b: Any) -> Any:
    return _min_max(a, b, "min")


def sym_not(a: Any) -> Any:
    if isinstance(a, SymBool):
        return _symbolic(a, sympy.Not(a.expr), "bool")
    return not a


def sym_ite(b: Any, t: Any, f: Any) -> Any:
    """``t if b else f``; on a SymBool, a piecewise expression (no guard)."""
    if not isinstance(b, (SymBool, builtins.bool)):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    if isinstance(b, SymBool):
        kind = t.kind if isinstance(t, SymNode) else "float" if isinstance(t, builtins.float) else "int"
        branches = [v.expr if isinstance(v, SymNode) else v for v in (t, f)]
        return _symbolic(b, sympy.Piecewise((branches[0], b.expr), (branches[1], True)), kind)
    return t if b else f


def sym_sqrt(a: Any) -> Any:
    if isinstance(a, SymNode):
        return _symbolic(a, sympy.sqrt(a.expr), "float")
    return math.sqrt(a)


def sym_sum(*args: Any) -> Any:
    """``sum(args)`` (``sym_sum([a, b])`` or ``sym_sum(a, b)``), one n-ary sum of symbols."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    symbolic = next((a for a in args if isinstance(a, SymInt)), None)
    if symbolic is None or not all(isinstance(a, (SymInt, builtins.int)) for a in args):
        return builtins.sum(args)
    return _symbolic(symbolic, sympy.Add(*[a.expr if isinstance(a, SymNode) else a for a in args]), "int")


# --------------------------------------------------------------------------
# Ranges
# --------------------------------------------------------------------------


def _constrain(size: Any, low: int, high: int) -> None:
    """``low <= size <= high``: checked now on a number; on a SymInt, the runtime
    asserts torch records (one per finite bound), which narrow its range."""
    if isinstance(size, SymNode):
        if low > INT64_MIN:
            _check(size >= low)
        if high < INT64_MAX:
            _check(size <= high)
        return
    if not low <= size <= high:
        raise RuntimeError(f"Invalid value range for {size} between [{low}, {high}].")


def sym_constrain_range(size: Any, *, min: int | None = None, max: int | None = None) -> None:  # noqa: A002
    _constrain(size, INT64_MIN if min is None else min, INT64_MAX if max is None else max)


def sym_constrain_range_for_size(size: Any, *, min: int | None = None, max: int | None = None) -> None:  # noqa: A002
    low, high = 0 if min is None else min, INT64_MAX if max is None else max
    if high < low:
        raise ValueError("Maximum value to constrain_as_size can't be less than the specified min value, "
                         f"received min={low} and max={high}")
    if isinstance(size, SymNode):  # torch asserts >= min even when min is 0
        _check(size >= low)
        if high < INT64_MAX:
            _check(size <= high)
        return
    _constrain(size, low, high)


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------


def _check_with(error_type: type[BaseException], cond: Any, message: Callable[[], Any] | None = None) -> None:
    """Raise ``error_type(message())`` unless ``cond``; a SymBool under export becomes
    a runtime assert (and narrows ranges), as torch's expect_true."""
    if not isinstance(cond, (builtins.bool, SymBool)):
        if isinstance(cond, Tensor):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if isinstance(cond, SymBool):
        mode = current_mode()
        if isinstance(mode, Tracer):
            mode.assert_condition(cond.expr)
            return
    if cond:
        return
    if not issubclass(error_type, Exception) or issubclass(error_type, Warning):
        raise AssertionError(f"error_type must be a subclass of Exception but not Warning, got {error_type}")
    if message is None:
        raise error_type(_DEFAULT_MESSAGE)
    if not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(str(message()))


def _check(cond: Any, message: Callable[[], Any] | None = None) -> None:
    _check_with(RuntimeError, cond, message)


def _check_index(cond: Any, message: Callable[[], Any] | None = None) -> None:
    _check_with(IndexError, cond, message)


def _check_value(cond: Any, message: Callable[[], Any] | None = None) -> None:
    _check_with(ValueError, cond, message)


def _check_type(cond: Any, message: Callable[[], Any] | None = None) -> None:
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond: Any, message: Callable[[], Any] | None = None) -> None:
    _check_with(NotImplementedError, cond, message)


def _check_tensor_all_with(error_type: type[BaseException], cond: Any,
                           message: Callable[[], Any] | None = None) -> None:
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype.name != "bool":
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, builtins.bool(cond.all().item()), message)


def _check_tensor_all(cond: Any, message: Callable[[], Any] | None = None) -> None:
    _check_tensor_all_with(RuntimeError, cond, message)


def _check_is_size(i: Any, message: Callable[[], Any] | None = None, *, max: int | None = None) -> None:  # noqa: A002
    """``_check(i >= 0)`` (and ``i <= max``): ``i`` is a size."""
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


__all__: Sequence[str] = [
    "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite", "sym_sqrt", "sym_sum",
    "sym_constrain_range", "sym_constrain_range_for_size", "_check", "_check_with", "_check_index",
    "_check_value", "_check_type", "_check_not_implemented", "_check_tensor_all",
    "_check_tensor_all_with", "_check_is_size",
]
