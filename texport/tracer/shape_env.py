"""The ShapeEnv: size symbols with hints and ranges, and the guards tracing needs.

Every dynamic input dim gets a symbol named as torch names it (``s<N>``, N =
sha256 of its source ``L['x'].size()[0]`` mod 100, linear probing). When a
shape rule or Python code needs to decide a condition over symbols, the
ShapeEnv answers from the symbols' ranges if it can (no guard), else from the
example values (hints), recording the guard with the user source line that
asked. Equalities become replacements (``s77 == s17`` unifies the two).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any

from texport.dialects import symbolic as _symbolic
from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.shape_rules.guards import SizeObliviousOracle
from texport.dialects.symbolic import symbol, to_dim

from .sources import SourceLocation, caller_location

INF = float("inf")  # equal to sympy.oo in comparisons; keeps sympy unloaded


class ValueRange:
    """``VR[4, 256]``: the values a symbol (or derived expression) may take."""

    def __init__(self, lower: Any, upper: Any) -> None:
        self.lower, self.upper = lower, upper
        self.is_int = True

    def __repr__(self) -> str:
        upper = "int_oo" if self.upper == INF else self.upper
        lower = "-int_oo" if self.lower == -INF else self.lower
        return f"VR[{lower}, {upper}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ValueRange) and (self.lower, self.upper) == (other.lower, other.upper)

    def __iter__(self):  # noqa: ANN204 - (low, high) unpacking for the executor
        return iter((self.lower, self.upper))



@dataclass
class Guard:
    expr: Any
    location: SourceLocation | None


@dataclass
class SymbolInfo:
    source: str
    hint: int
    low: Any
    high: Any


@dataclass
class ShapeEnv:
    symbols: dict[sympy.Symbol, SymbolInfo] = field(default_factory=dict)
    replacements: dict[sympy.Symbol, Any] = field(default_factory=dict)
    guards: list[Guard] = field(default_factory=list)
    claimed: set[int] = field(default_factory=set)  # symbol numbers taken
    _version: int = 0
    _equal_memo: dict[Any, bool] = field(default_factory=dict)

    # ---- symbols ------------------------------------------------------------

    def create_symbol(self, source: str, hint: int, low: Any = 2, high: Any = INF, *,
                      named_by: str | None = None) -> sympy.Symbol:
        """A new size symbol, numbered from ``named_by`` (default: its source)."""
        sym = symbol(f"s{self.claim_number(named_by or source)}")
        self.symbols[sym] = SymbolInfo(source, hint, low, high)
        return sym

    def claim_number(self, source: str) -> int:
        """torch's unique id of a source: sha256 mod 100, then the next free one.
        Every dynamic input dim claims one, even one that takes a Dim's symbol."""
        number = int(hashlib.sha256(source.encode()).hexdigest(), 16) % 100
        while number in self.claimed:
            number = (number + 1) % 100 if len(self.claimed) < 100 else number + 100
        self.claimed.add(number)
        return number

    def add_unbacked(self, sym: sympy.Symbol) -> None:
        """A size from data (u0): no hint, any integer until asserts narrow it."""
        self.symbols[sym] = SymbolInfo("", None, -INF, INF)

    def narrow(self, condition: Any) -> None:
        self._narrow(condition)

    def unbacked_ranges(self) -> dict[sympy.Symbol, ValueRange]:
        return {s: ValueRange(i.low, i.high) for s, i in self.symbols.items() if i.hint is None}

    def source(self, sym: sympy.Symbol) -> str:
        return self.symbols[sym].source

    # ---- expressions ----------------------------------------------------------

    def simplify(self, expr: Any) -> Any:
        if type(expr) is int or not self.replacements:
            return expr
        return _substitute(expr, tuple(self.replacements.items()), self._version)

    def hint(self, expr: Any) -> Any:
        expr = self.simplify(expr)
        if type(expr) is int or isinstance(expr, (bool, sympy.logic.boolalg.BooleanAtom)):
            return expr
        values = {s: sympy.Integer(self.symbols[s].hint) for s in expr.free_symbols
                  if s in self.symbols and self.symbols[s].hint is not None}
        return expr.xreplace(values)

    def bounds(self, expr: Any) -> tuple[Any, Any]:
        """A (possibly loose) interval containing every value of ``expr``."""
        expr = self.simplify(expr)
        return bounds_in(expr, self._ranges())

    def _ranges(self) -> dict[sympy.Symbol, tuple[Any, Any]]:
        return {s: (i.low, i.high) for s, i in self.symbols.items()}

    # ---- deciding conditions --------------------------------------------------

    def decide_equal(self, a: Any, b: Any) -> bool:
        """``a == b`` for dims, memoised (broadcasting asks it for every dim)."""
        key = (a, b, self._version)
        cached = self._equal_memo.get(key)
        if cached is None:
            a, b = self.simplify(a), self.simplify(b)
            cached = a == b or self.decide(sympy.Eq(a, b))
            self._equal_memo[key] = cached
        return cached

    def decide(self, condition: Any) -> bool:
        """The Oracle protocol of the shape rules: decide, guarding if needed."""
        condition = self.simplify(condition)
        if condition in (sympy.true, sympy.false) or isinstance(condition, bool):
            return bool(condition)
        static = self._static(condition)
        if static is not None:
            return static
        if any(self.symbols.get(s) is not None and self.symbols[s].hint is None for s in condition.free_symbols):
            return SizeObliviousOracle().decide(condition)  # unbacked: no hint to guard on
        value = bool(self.hint(condition))
        self.record(condition if value else _negate(condition))
        return value

    def _static(self, condition: Any) -> bool | None:
        """Decide from ranges alone; a size equal to 0 or 1 is False, as
        torch's size-oblivious rule (0/1 inputs are specialised up front)."""
        if isinstance(condition, (sympy.Eq, sympy.Ne)):
            lhs, rhs = condition.args
            for side, other in ((lhs, rhs), (rhs, lhs)):
                backed = all(s in self.symbols and self.symbols[s].hint is not None for s in side.free_symbols)
                if other in (0, 1) and side.free_symbols and not side.has(sympy.Mod):
                    low, _ = self.bounds(side)
                    if low >= 2 or backed:
                        return isinstance(condition, sympy.Ne)
        if isinstance(condition, (sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge, sympy.Eq, sympy.Ne)):
            low, high = self.bounds(condition.lhs - condition.rhs)
            return decide_interval(type(condition), low, high)
        return None

    def record(self, condition: Any, location: SourceLocation | None = None) -> None:
        location = location or caller_location(keep_nn=False)
        self.guards.append(Guard(condition, location))
        if isinstance(condition, sympy.Eq):
            self._replace(condition)
        self._narrow(condition)

    def _replace(self, equality: Any) -> None:
        """x == y unifies: the higher-numbered symbol is replaced (torch keeps the
        lower); sym == constant specialises; sym == linear(other) relates."""
        if equality.has(_symbolic.FloorDiv, sympy.Mod):
            return  # divisibility facts stay guards; only linear equalities replace
        free = sorted(equality.free_symbols, key=lambda s: int(s.name[1:]), reverse=True)
        for sym in free:
            solved = isolate(equality, sym)
            if solved is not None and _is_integral(solved.rhs):
                self.replacements[sym] = to_dim(solved.rhs)
                self._version += 1
                return

    def _narrow(self, condition: Any) -> None:
        """A guard on one symbol narrows its range (x > 10 gives [11, ...];
        (x - 1)//2 >= 1 gives [3, ...]); one it cannot solve stays a guard."""
        if not isinstance(condition, (sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge)):
            return
        free = condition.free_symbols
        if len(free) != 1:
            return
        (sym,) = free
        if sym not in self.symbols:
            return
        solved = isolate(condition, sym)
        if solved is None or not solved.rhs.is_Number:
            return
        info = self.symbols[sym]
        bound = solved.rhs
        if isinstance(solved, (sympy.Ge, sympy.Gt)):  # integers: an open end moves inward
            low = sympy.floor(bound) + 1 if isinstance(solved, sympy.Gt) else sympy.ceiling(bound)
            info.low = max(info.low, low)
        else:
            high = sympy.ceiling(bound) - 1 if isinstance(solved, sympy.Lt) else sympy.floor(bound)
            info.high = min(info.high, high)

    def guard(self, expr: Any, location: SourceLocation | None) -> Any:
        """Python code needs a concrete value: bools guard, ints specialise."""
        if isinstance(expr, sympy.logic.boolalg.Boolean) and not expr.is_Atom:
            value = self.decide(expr)
            return value
        value = self.hint(expr)
        if isinstance(value, sympy.Integer):
            self.record(sympy.Eq(expr, value), location)
            return int(value)
        if isinstance(value, sympy.Float):
            return float(value)
        return bool(value)


@functools.lru_cache(maxsize=4096)
def isolate(condition: Any, sym: Any) -> Any:
    """``condition`` rewritten as ``sym <rel> rhs`` with ``sym`` not in rhs, or
    None (torch's try_solve). Only exact steps: move terms free of ``sym``
    across, divide by a nonzero number (flipping for a negative one), and
    ``a//k >= r`` -> ``a >= k*r`` for a positive integer k and integral r, so
    sympy's solvers are never asked (they raise on FloorDiv and Mod)."""
    mirror = {sympy.Eq: sympy.Eq, sympy.Ne: sympy.Ne, sympy.Ge: sympy.Le, sympy.Gt: sympy.Lt,
              sympy.Le: sympy.Ge, sympy.Lt: sympy.Gt}
    lhs, rhs, kind = condition.lhs - condition.rhs, sympy.Integer(0), type(condition)
    while lhs.has(sym):
        if lhs == sym:
            return kind(lhs, rhs, evaluate=False)
        if isinstance(lhs, sympy.Add):
            rest = sympy.Add(*(a for a in lhs.args if not a.has(sym)))
            if rest == 0:
                return None  # sym in two terms (x//2 <= x): not solved here
            lhs, rhs = lhs - rest, rhs - rest
        elif isinstance(lhs, sympy.Mul):
            number = sympy.Mul(*(a for a in lhs.args if not a.has(sym)))
            if not number.is_Number or number in (0, 1):
                return None
            lhs, rhs = lhs / number, rhs / number
            kind = mirror[kind] if number < 0 else kind
        elif isinstance(lhs, _symbolic.FloorDiv) and lhs.args[1].is_Integer and lhs.args[1] > 0 \
                and rhs.is_integer and kind not in (sympy.Eq, sympy.Ne):
            numerator, k = lhs.args  # a//k >= r <=> a >= k*r; a//k < r <=> a < k*r
            quotient = rhs + 1 if kind in (sympy.Gt, sympy.Le) else rhs
            lhs, rhs, kind = numerator, k * quotient, sympy.Ge if kind in (sympy.Ge, sympy.Gt) else sympy.Lt
        else:
            return None
    return None


def _negate(condition: Any) -> Any:
    return sympy.Not(condition)  # sympy turns Not(Lt(a, b)) into Ge(a, b)


def _is_integral(expr: Any) -> bool:
    expr = sympy.sympify(expr)
    if expr.is_Integer:
        return True
    coeffs = sympy.Poly(expr, *expr.free_symbols).coeffs() if expr.free_symbols else [expr]
    return all(c.is_Integer for c in coeffs)


def decide_interval(kind: type, low: Any, high: Any) -> bool | None:
    if kind is sympy.Gt:
        return True if low > 0 else False if high <= 0 else None
    if kind is sympy.Ge:
        return True if low >= 0 else False if high < 0 else None
    if kind is sympy.Lt:
        return True if high < 0 else False if low >= 0 else None
    if kind is sympy.Le:
        return True if high <= 0 else False if low > 0 else None
    if kind is sympy.Eq:
        return False if low > 0 or high < 0 else (True if low == high == 0 else None)
    if kind is sympy.Ne:
        return True if low > 0 or high < 0 else (False if low == high == 0 else None)
    return None


def bounds_in(expr: Any, ranges: dict[Any, tuple[Any, Any]]) -> tuple[Any, Any]:
    """An interval containing every value of ``expr`` when each symbol lies in its range."""
    if type(expr) is int or getattr(expr, "is_Number", False):
        return expr, expr
    if isinstance(expr, sympy.Symbol):
        return ranges.get(expr, (0 if expr.name.startswith("s") else -INF, INF))
    if isinstance(expr, sympy.Add):
        parts = [bounds_in(a, ranges) for a in expr.args]
        return sum(p[0] for p in parts), sum(p[1] for p in parts)
    if isinstance(expr, sympy.Mul):
        low, high = sympy.Integer(1), sympy.Integer(1)
        for arg in expr.args:
            a, b = bounds_in(arg, ranges)
            candidates = [_mul(x, y) for x in (low, high) for y in (a, b)]
            low, high = min(candidates), max(candidates)
        return low, high
    if isinstance(expr, _symbolic.FloorDiv):
        (a, b), (c, d) = bounds_in(expr.args[0], ranges), bounds_in(expr.args[1], ranges)
        if c > 0:  # floor(x / y) is monotone in each: its extremes are at the corners
            corners = [_floor_div(x, y) for x in (a, b) for y in (c, d)]
            return min(corners), max(corners)
    if isinstance(expr, sympy.Mod):
        (a, b), (c, d) = bounds_in(expr.args[0], ranges), bounds_in(expr.args[1], ranges)
        if c > 0:
            if a >= 0 and b < c:
                return a, b  # a numerator below every divisor is its own remainder
            return sympy.Integer(0), (d - 1 if a < 0 else min(d - 1, b))
    return -INF, INF


def _floor_div(x: Any, y: Any) -> Any:
    """floor(x / y) for a positive y, either possibly infinite."""
    if x in (INF, -INF):
        return x
    if y == INF:
        return sympy.Integer(0) if x >= 0 else sympy.Integer(-1)
    return sympy.floor(sympy.Integer(x) / y) if not isinstance(x, sympy.Basic) else sympy.floor(x / y)


def _mul(x: Any, y: Any) -> Any:
    if x == 0 or y == 0:
        return sympy.Integer(0)
    return x * y


@functools.lru_cache(maxsize=65536)
def _substitute(expr: Any, replacements: tuple[tuple[Any, Any], ...], version: int) -> Any:
    """Apply replacements to a fixed point (memoised: tracing repeats few dims)."""
    mapping = dict(replacements)
    for _ in range(8):
        new = sympy.sympify(expr).xreplace({k: sympy.sympify(v) for k, v in mapping.items()})
        if new == expr:
            break
        expr = new
    return to_dim(expr) if not isinstance(expr, sympy.logic.boolalg.Boolean) else expr
