"""Deciding symbolic conditions inside shape rules.

Shape rules are pure functions of shapes, but a condition such as
``s0 == 1`` cannot always be decided from the expressions alone. Rules ask
``guard_bool``; the answer comes from sympy when the expressions decide it,
otherwise from the active oracle. The tracer installs its ShapeEnv as the
oracle (it evaluates on hints and records a guard); without one (IR
verification) answers are size-oblivious: a size is assumed not to be 0 or 1
and the relations a well-formed program needs are assumed to hold.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator
from typing import Protocol

from texport.dialects._lazy import sympy  # loaded on first use

from ..symbolic import Dim, dim_bounds, dim_size


class ShapeGuardError(ValueError):
    """A shape rule found its inputs invalid (wrong rank, mismatched sizes)."""


class DataDependentOutputException(RuntimeError):
    """The op's result is a Python value read off tensor data (allclose, equal): it cannot be traced."""


class Oracle(Protocol):
    def decide(self, condition: sympy.Basic) -> bool:
        """Answer a condition that sympy could not decide statically."""
        ...


class SizeObliviousOracle:
    """Default oracle: a size equals 0 or 1 is False; any other relation —
    including divisibility, ``Eq(Mod(x, k), 0)`` — is True (a well-formed
    program guarded it)."""

    def decide(self, condition: sympy.Basic) -> bool:
        if isinstance(condition, sympy.Eq):
            lhs, rhs = condition.args
            if rhs in (0, 1) and _is_size(lhs) or lhs in (0, 1) and _is_size(rhs):
                return False
            return True
        if isinstance(condition, sympy.Ne):
            return not self.decide(sympy.Eq(*condition.args, evaluate=False))
        return True


def _is_size(expr: sympy.Basic) -> bool:
    """A size-like expression (symbols, sums, products), not a remainder."""
    return bool(expr.free_symbols) and not expr.has(sympy.Mod)


_ORACLE: contextvars.ContextVar[Oracle] = contextvars.ContextVar(
    "texport_shape_oracle", default=SizeObliviousOracle()  # noqa: B039 - stateless
)


@contextlib.contextmanager
def using_oracle(oracle: Oracle) -> Iterator[None]:
    token = _ORACLE.set(oracle)
    try:
        yield
    finally:
        _ORACLE.reset(token)


def guard_bool(condition: bool | sympy.Basic) -> bool:
    """Decide a condition over dims; static answers never reach the oracle."""
    if isinstance(condition, bool):
        return condition
    if condition is sympy.true:
        return True
    if condition is sympy.false:
        return False
    return _ORACLE.get().decide(condition)


def sym_eq(a: Dim, b: Dim) -> bool:
    if type(a) is int and type(b) is int:
        return a == b
    if a == b:
        return True
    oracle = _ORACLE.get()
    fast = getattr(oracle, "decide_equal", None)  # an oracle may answer without sympy.Eq
    if fast is not None:
        return fast(a, b)
    low, high, large = _difference(b, a)
    if low is not None and low > 0 or high is not None and high < 0:
        return False
    if low == high == 0:
        return True
    if large:  # sympy's proof would take seconds
        return oracle.decide(sympy.Eq(a, b, evaluate=False))
    return guard_bool(sympy.Eq(a, b))


# Up to this size sympy is asked to decide a relation; its proofs (real roots
# of a derivative) grow fast with the degree of a polynomial.
_SYMPY_EQ_TERMS = 16
_SYMPY_EQ_DEGREE = 8


@functools.lru_cache(maxsize=8192)
def _difference(b: Dim, a: Dim) -> tuple[int | None, int | None, bool]:
    """Bounds of ``b - a`` and whether it is too large for sympy's proofs;
    memoised, as shape rules compare the same dims again and again."""
    difference = sympy.sympify(b - a)  # dims are expanded: like terms cancel
    low, high = dim_bounds(difference)
    terms, degree = dim_size(difference)
    return low, high, terms > _SYMPY_EQ_TERMS or degree > _SYMPY_EQ_DEGREE


def sym_lt(a: Dim, b: Dim) -> bool:
    if type(a) is int and type(b) is int:
        return a < b
    return _decide_order(sympy.Lt, a, b, strict=True)


def sym_le(a: Dim, b: Dim) -> bool:
    if type(a) is int and type(b) is int:
        return a <= b
    return _decide_order(sympy.Le, a, b, strict=False)


def _decide_order(relation: type, a: Dim, b: Dim, *, strict: bool) -> bool:
    """``a < b`` (strict) or ``a <= b``: from the bounds of ``b - a`` when they
    decide it, from sympy when the difference is small, else from the oracle."""
    low, high, large = _difference(b, a)
    if low is not None and (low > 0 or low == 0 and not strict):
        return True
    if high is not None and (high < 0 or high == 0 and strict):
        return False
    if large:  # sympy's proof would take seconds
        return _ORACLE.get().decide(relation(a, b, evaluate=False))
    return guard_bool(relation(a, b))


def check(condition: bool, message: str) -> None:
    """Raise ShapeGuardError(message) unless condition holds."""
    if not condition:
        raise ShapeGuardError(message)
