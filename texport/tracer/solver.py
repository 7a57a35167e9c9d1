"""The solver: what the guards the trace recorded mean for the exported program.

After the trace the ShapeEnv holds the guards (each with the user line that
asked for it), the replacements equalities made and the ranges inequalities
narrowed. Checked against what the user asked of each input dim
(input_dims.DimSpec) they give either a ConstraintViolationError, with
torch's message and suggested fixes the user can paste, or a Solution: the
replacements the IR's types take, the range constraints, and the runtime
guards the types cannot express.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from texport.dialects import symbolic as _symbolic  # FloorDiv: made with sympy, on first use
from texport.dialects._lazy import sympy  # loaded on first use

from .errors import ConstraintViolationError, specialized_bullet
from .input_dims import DimSpec, InputDims
from .shape_env import INF, Guard, ShapeEnv, ValueRange, bounds_in, decide_interval, isolate

# (bullet, fixes) or (bullet, fixes, the Dim name torch files the problem under)
Problem = tuple[Any, ...]


@dataclass
class Solution:
    """The solved guards: final dims, range constraints, runtime guards."""

    shape_env: ShapeEnv
    range_constraints: dict[Any, ValueRange]
    runtime_guards: list[Any]

    @property
    def replaces_symbols(self) -> bool:
        """Whether an equality replaced a symbol (else every traced type is final)."""
        return bool(self.shape_env.replacements)

    def final_dim(self, dim: Any) -> Any:
        return self.shape_env.simplify(dim)


def solve(dims: InputDims) -> Solution:
    """Raise ConstraintViolationError if the traced guards narrow the spec, else the Solution."""
    _check_constraints(dims)
    ranges = _range_constraints(dims)
    ranges.update(dims.shape_env.unbacked_ranges())
    return Solution(dims.shape_env, ranges, _runtime_guards(dims.shape_env))


# --------------------------------------------------------------------------
# Constraint violations
# --------------------------------------------------------------------------


def _check_constraints(dims: InputDims) -> None:
    env = dims.shape_env
    problems: list[tuple[str, str, list[str]]] = []  # (name, bullet, fixes)
    symbol_spec = {s.symbol: s for s in dims.specs if s.kind != "derived" and s.symbol is not None}
    for spec in dims.specs:
        if spec.kind in ("derived", "auto") or spec.symbol is None:
            continue
        problem = _relation_problem(spec, dims, symbol_spec) or _range_problem(spec, env) \
            or _divisibility_problem(spec, env)
        if problem is not None:
            bullet, fixes, *subject = problem
            name = (subject[0] if subject else spec.name) if spec.kind == "named" else spec.source
            problems.append((name, bullet + _guard_note(env, spec.symbol), fixes if spec.kind == "named" else []))
        for bullet, fixes in _unsolved_guard_problems(spec, env):
            problems.append((spec.name, bullet, fixes))
    if problems:
        names = ", ".join(sorted({p[0] for p in problems}))
        fixes = list(dict.fromkeys(f for p in problems for f in p[2]))
        raise ConstraintViolationError.of(names, [p[1] for p in problems], fixes)


def _names_text(expr: Any, dims: InputDims) -> str:
    """An expression over symbols, written with the user's Dim names."""
    names = {s.symbol: sympy.Symbol(s.name) for s in dims.specs if s.kind == "named" and s.symbol is not None}
    return str(sympy.sympify(expr).xreplace(names))


def _guard_note(shape_env: ShapeEnv, sym: Any) -> str:
    for guard in shape_env.guards:
        if sym in getattr(guard.expr, "free_symbols", ()) and guard.location is not None:
            return _location_note(guard)
    return ""


def _location_note(guard: Guard) -> str:
    loc = guard.location
    return "" if loc is None else f"\n    (guard from {loc.filename}:{loc.line}: {loc.code})"


def _declared_text(spec: DimSpec) -> str:
    """`` 4 <= n <= 100``: the range the user declared, as torch quotes it (a
    lower bound of at most 2, its default, left out)."""
    low = f"{spec.low} <= " if spec.low > 2 else ""
    high = f" <= {spec.high}" if spec.high != INF else ""
    return f" {low}{spec.name}{high}" if low or high else ""


def _relation_problem(spec: DimSpec, dims: InputDims, symbol_spec: dict[Any, DimSpec]) -> Problem | None:
    """The guards made the dim a constant, or a function of another input dim."""
    value = dims.shape_env.simplify(spec.symbol)
    if value == spec.symbol:
        return None
    if type(value) is int or getattr(value, "is_Integer", False):
        return specialized_bullet(spec.name, int(value)), [f"{spec.name} = {int(value)}"]
    others = [symbol_spec[s] for s in value.free_symbols if s in symbol_spec]
    if spec.kind != "named" or not others or all(o.kind != "named" for o in others):
        return None
    other = others[0]
    subject, target, relation = spec, other, value
    if relation == other.symbol and dims.specs.index(other) > dims.specs.index(spec):
        subject, target = other, spec  # torch names the later input first
    if relation == target.symbol or relation == subject.symbol:
        bullet = (f"The values of {subject.name} = {subject.source} and {target.name} = "
                  f"{target.source} must always be equal.")
        return bullet, [f"{subject.name} = {target.name}"], subject.name
    text = _names_text(relation, dims)
    bullet = (f"The values of {spec.name} = {spec.source} must always be related to the values "
              f"of {other.name} = {other.source} by {spec.name} = {text}.")
    return bullet, [f"{spec.name} = {text}"]


def _range_problem(spec: DimSpec, env: ShapeEnv) -> Problem | None:
    """The guards narrowed the range the user declared."""
    info = env.symbols.get(spec.symbol)
    if info is None or spec.kind != "named":
        return None
    narrowed_low = info.low > max(spec.low, 2)
    narrowed_high = info.high < spec.high
    if not (narrowed_low or narrowed_high):
        return None
    declared_text = _declared_text(spec)
    high = "IntInfinity()" if info.high == INF else info.high
    bullet = (f"Not all values of {spec.name} = {spec.source} in the specified range{declared_text} "
              f"satisfy the generated guard {info.low} <= {spec.source} and {spec.source} <= {high}")
    fix = f"{spec.name} = Dim('{spec.name}', min={info.low}" + (
        f", max={info.high})" if info.high != INF else ")")
    return bullet, [fix]


def _divisibility_problem(spec: DimSpec, env: ShapeEnv) -> Problem | None:
    """A guard says the dim is a multiple of some k: the fix makes it ``k*_dim``."""
    if spec.kind != "named":
        return None
    for guard in env.guards:
        expr = guard.expr
        if not isinstance(expr, sympy.Eq) or spec.symbol not in expr.free_symbols:
            continue
        divided = _divided(expr)
        if divided is not None:
            numerator, k = divided
            divisor = int(k / sympy.gcd(k, _coefficient(numerator, spec.symbol)))
            if divisor == 1:
                continue
            bullet = (f"Not all values of {spec.name} = {spec.source} in the specified range satisfy "
                      f"the generated guard ({spec.source} % {divisor}) == 0.")
            return bullet, _congruence_fixes(spec, divisor, 0)
    return None


def _congruence_fixes(spec: DimSpec, divisor: int, remainder: int) -> list[str]:
    """``n = k*_n + r`` and the range of ``_n`` (torch omits a min of 2, its default)."""
    root = f"_{spec.name}"
    low = max(1, -(-(max(spec.low, 2) - remainder) // divisor))
    high = "oo" if spec.high == INF else (spec.high - remainder) // divisor
    bounds = ([f"min={low}"] if low != 2 else []) + [f"max={high}"]
    offset = f" + {remainder}" if remainder else ""
    return [f"{root} = Dim('{root}', {', '.join(bounds)})", f"{spec.name} = {divisor}*{root}{offset}"]


def _unsolved_guard_problems(spec: DimSpec, env: ShapeEnv) -> list[Problem]:
    """Guards on a named dim that its declared range does not imply and that no
    range or relation expresses (``x[:x.shape[0] // 2]`` guards ``(n//2) <= n``):
    torch reports each; a floor division or remainder by k in one makes the fix
    ``n = k*_n + r``, r the example's remainder (torch's congruences)."""
    if spec.kind != "named":
        return []
    declared = {spec.symbol: (max(spec.low, 2), spec.high)}
    problems: list[Problem] = []
    for guard in env.guards:
        expr = env.simplify(guard.expr)
        if not isinstance(expr, sympy.core.relational.Relational) or isinstance(expr, sympy.Eq) \
                or expr.free_symbols != {spec.symbol} or _narrows(expr, spec.symbol):
            continue
        low, high = bounds_in(expr.lhs - expr.rhs, declared)
        if decide_interval(type(expr), low, high) is True:
            continue
        range_text = _declared_text(spec)
        bullet = (f"Not all values of {spec.name} = {spec.source} in the specified range{range_text} "
                  f"satisfy the generated guard {guard_text(expr, {spec.symbol: spec.source})}.")
        problems.append((bullet + _location_note(guard), _guard_congruence(expr, spec, env)))
    return problems


def _narrows(expr: Any, sym: Any) -> bool:
    """Whether the shape env narrowed the range by ``expr`` (the range problem reports it)."""
    if not isinstance(expr, (sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge)):
        return False
    solved = isolate(expr, sym)
    return solved is not None and solved.rhs.is_Number


def guard_text(expr: Any, sources: dict[Any, str]) -> str:
    """A guard as torch prints it, over input sources: ``(L['x'].size()[0] // 2) <= L['x'].size()[0]``."""
    operator = {sympy.Eq: "==", sympy.Ne: "!=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">",
                sympy.Ge: ">="}[type(expr)]
    return f"{_wrapped(expr.lhs, sources)} {operator} {_wrapped(expr.rhs, sources)}"


def _wrapped(expr: Any, sources: dict[Any, str]) -> str:
    text = _python_text(expr, sources)
    return f"({text})" if isinstance(expr, (sympy.Add, sympy.Mul)) else text


def _python_text(expr: Any, sources: dict[Any, str]) -> str:
    """torch's Python printer: constants lead a sum, negative numbers in parentheses."""
    if isinstance(expr, sympy.Symbol):
        return sources.get(expr, expr.name)
    if expr.is_Integer:
        return f"({expr})" if expr < 0 else str(expr)
    if isinstance(expr, (_symbolic.FloorDiv, sympy.Mod)):
        operator = "//" if isinstance(expr, _symbolic.FloorDiv) else "%"
        base, divisor = (_wrapped(a, sources) for a in expr.args)
        return f"({base} {operator} {divisor})"
    if isinstance(expr, sympy.Add):
        terms = sorted(expr.args, key=lambda t: not t.is_Number)
        return " + ".join(_python_text(t, sources) for t in terms)
    if isinstance(expr, sympy.Mul):
        return "*".join(_wrapped(f, sources) if isinstance(f, sympy.Add) else _python_text(f, sources)
                        for f in expr.args)
    return str(expr)


def _guard_congruence(expr: Any, spec: DimSpec, env: ShapeEnv) -> list[str]:
    for atom in sorted(expr.atoms(_symbolic.FloorDiv, sympy.Mod), key=str):
        base, divisor = atom.args
        if divisor.is_Integer and divisor > 1 and (base - spec.symbol).is_Integer:
            offset = int(base - spec.symbol)
            remainder = (int(env.hint(base)) % int(divisor) - offset) % int(divisor)
            return _congruence_fixes(spec, int(divisor), remainder)
    return []


def _divided(expr: Any) -> tuple[Any, Any] | None:
    """(n, k) when ``expr`` says k divides n: ``Eq(Mod(n, k), 0)`` or ``Eq(k*(n//k), n)``."""
    for mod in expr.atoms(sympy.Mod):
        if 0 in (expr.lhs, expr.rhs):
            return mod.args[0], mod.args[1]
    difference = sympy.expand(expr.lhs - expr.rhs)
    for floor in expr.atoms(_symbolic.FloorDiv):
        numerator, k = floor.args
        scale = difference.coeff(floor) / k  # 6*(s//2) == 3*s is 3*(2*(s//2) - s) == 0
        if scale != 0 and sympy.expand(difference - scale * (k * floor - numerator)) == 0:
            return numerator, k
    return None


def _coefficient(expr: Any, sym: Any) -> Any:
    coeff = sympy.sympify(expr).coeff(sym)
    return coeff if coeff != 0 else 1


# --------------------------------------------------------------------------
# Range constraints and runtime guards
# --------------------------------------------------------------------------


def _range_constraints(dims: InputDims) -> dict[Any, ValueRange]:
    """The range of every input symbol that survived the replacements (the
    user's declared low bound unless a guard raised it), then of every
    derived input dim (``2*s0``)."""
    env = dims.shape_env
    ranges: dict[Any, ValueRange] = {}
    reported = {s.symbol: s for s in dims.specs if s.kind != "derived" and s.symbol is not None}
    for sym, info in env.symbols.items():
        if env.simplify(sym) != sym or info.hint is None:
            continue
        spec = reported.get(sym)
        declared_low = spec.low if spec is not None else info.low
        low = info.low if info.low > max(declared_low, 2) else declared_low
        ranges[sym] = ValueRange(low, info.high)
    for tensor_dims in dims.tensors.values():
        for dim in tensor_dims:
            dim = env.simplify(dim)
            if type(dim) is int or dim.is_Symbol or dim in ranges:
                continue
            low, high = bounds_in(dim, {s: (r.lower, r.upper) for s, r in ranges.items()})
            ranges[dim] = ValueRange(low, high)
    return ranges


def _runtime_guards(env: ShapeEnv) -> list[Any]:
    """Guards the input types and ranges cannot express (divisibility,
    two-symbol relations, x.shape[0] != 4), to be checked when the program runs."""
    kept = []
    for guard in env.guards:
        expr = env.simplify(guard.expr)
        if not isinstance(expr, sympy.core.relational.Relational) or expr in (sympy.true, sympy.false):
            continue
        divided = _divided(expr) if isinstance(expr, sympy.Eq) else None
        if divided is not None:
            kept.append(sympy.Eq(sympy.Mod(*divided), 0, evaluate=False))
        elif expr.has(sympy.Mod, _symbolic.FloorDiv) or len(expr.free_symbols) > 1 \
                or not _narrows(expr, next(iter(expr.free_symbols))):
            kept.append(expr)
    return list(dict.fromkeys(kept))
