"""Dynamic shapes: the spec (Dim, derived dims, AUTO/DYNAMIC/STATIC), turning it
into symbols for export, and solving the traced guards against it.

    dx = Dim("dx", min=4, max=256)
    export(m, (x, y), dynamic_shapes={"x": (dx, None), "y": (2 * dx, Dim("dh", max=512))})
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use

from . import pytree
from .errors import UserError
from .shape_env import INF, ShapeEnv, ValueRange
from .tensor import Tensor

INT_OO = INF


class _DimHint:
    """Dim.AUTO / Dim.DYNAMIC / Dim.STATIC, optionally with min/max hints."""

    def __init__(self, kind: str, min: int | None = None, max: int | None = None) -> None:  # noqa: A002
        self.kind, self.min, self.max = kind, min, max

    def __call__(self, min: int | None = None, max: int | None = None) -> _DimHint:  # noqa: A002
        return _DimHint(self.kind, min, max)

    def __repr__(self) -> str:
        return f"DimHint({self.kind})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _DimHint) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.kind)


class Dim:
    """A named dynamic dimension: ``Dim('dx', min=4, max=256)``; the same name is
    the same symbol. ``2*dx``, ``dx + 1`` are derived dims."""

    AUTO = _DimHint("AUTO")
    DYNAMIC = _DimHint("DYNAMIC")
    STATIC = _DimHint("STATIC")

    def __init__(self, name: str, *, min: int | None = None, max: int | None = None) -> None:  # noqa: A002
        low = 0 if min is None else min
        high = INT_OO if max is None else max
        if high < low:
            raise AssertionError(f"Cannot create Dim with inconsistent min={low}, max={high}")
        self.__name__ = name
        self.min, self.max = low, high

    def __repr__(self) -> str:
        text = f"Dim('{self.__name__}', min={self.min}"
        return text + (f", max={self.max})" if self.max != INT_OO else ")")

    def _derive(self, a: int, b: int) -> _DerivedDim:
        return _DerivedDim(self, a, b)

    def __mul__(self, other: Any) -> _DerivedDim:
        if not isinstance(other, int) or isinstance(other, bool) or other <= 0:
            raise NotImplementedError(
                f"Attempted to multiply {other!r} with {self.__name__}, where a positive integer "
                "was expected. (Only increasing linear operations with integer coefficients are "
                "supported.)"
            )
        return self._derive(other, 0)

    __rmul__ = __mul__

    def __add__(self, other: Any) -> _DerivedDim:
        if not isinstance(other, int) or isinstance(other, bool):
            raise NotImplementedError(
                f"Attempted to add {other!r} to {self.__name__}, where an integer was expected. "
                "(Only increasing linear operations with integer coefficients are supported.)"
            )
        return self._derive(1, other)

    __radd__ = __add__

    def __sub__(self, other: Any) -> _DerivedDim:
        return self + (-other if isinstance(other, int) else other)


class _DerivedDim(Dim):
    """``a*root + b`` of a named Dim."""

    def __init__(self, root: Dim, a: int, b: int) -> None:
        if isinstance(root, _DerivedDim):
            a, b, root = a * root.a, a * root.b + b, root.root
        self.root, self.a, self.b = root, a, b
        self.__name__ = _derived_text(root.__name__, a, b)
        self.min = a * root.min + b
        self.max = INT_OO if root.max == INT_OO else a * root.max + b

    def _derive(self, a: int, b: int) -> _DerivedDim:
        return _DerivedDim(self.root, a * self.a, a * self.b + b)

    def __repr__(self) -> str:
        return self.__name__


def _derived_text(name: str, a: int, b: int) -> str:
    text = name if a == 1 else f"{a}*{name}"
    return text if b == 0 else f"{text} + {b}" if b > 0 else f"{text} - {-b}"


def dims(*names: str, min: int | None = None, max: int | None = None) -> tuple[Dim, ...]:  # noqa: A002
    return tuple(Dim(n, min=min, max=max) for n in names)


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


class ConstraintViolationError(UserError):
    """The traced program needs a narrower spec than the one given; the
    message ends in ``Suggested fixes:`` with valid Python, also in
    ``suggested_fixes``."""

    def __init__(self, message: str, suggested_fixes: list[str] | None = None) -> None:
        super().__init__(message, "CONSTRAINT_VIOLATION")
        self.suggested_fixes = suggested_fixes or []


# --------------------------------------------------------------------------
# From the spec to symbols
# --------------------------------------------------------------------------


@dataclass
class DimSpec:
    """What the user asked for one input dim, and the symbol it became."""

    source: str
    kind: str  # "named", "derived", "auto", "dynamic", "static"
    name: str
    low: Any
    high: Any
    symbol: Any = None


@dataclass
class SpecContext:
    shape_env: ShapeEnv
    specs: list[DimSpec] = field(default_factory=list)
    named: dict[str, Any] = field(default_factory=dict)  # Dim name -> symbol
    by_path: dict[str, tuple[Any, ...]] = field(default_factory=dict)


def _source(path: str) -> str:
    """``inp['x']`` → ``L['inp']['x']`` (torch's guard source names)."""
    head, sep, rest = path.partition("[")
    head, dot, attr = head.partition(".")
    text = f"L['{head}']" + (f".{attr}" if dot else "")
    return text + (sep + rest if sep else "")


def spec_leaves(mod: Any, args: tuple[Any, ...], kwargs: dict[str, Any], spec: Any) -> dict[str, Any]:
    """Map each tensor input path to its per-dim spec (dict or sequence)."""
    import inspect

    named = dict(inspect.signature(mod.forward).bind(*args, **kwargs).arguments)
    if isinstance(spec, dict):
        if set(spec) - set(named):
            raise UserError(
                "When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg "
                f"names {list(named)} of `inputs`, but here they are {list(spec)}. Alternatively, "
                "you could also ignore arg names entirely and specify `dynamic_shapes` as a "
                "list/tuple matching `inputs`.", "INVALID_INPUT",
            )
        by_name = spec
    elif isinstance(spec, (tuple, list)):
        values = list(named)
        if len(spec) != len(values):
            raise UserError(
                f"When `dynamic_shapes` is a tuple/list it must have one entry per input "
                f"({len(values)}), but it has {len(spec)}.", "INVALID_INPUT",
            )
        by_name = dict(zip(values, spec))
    else:
        raise UserError(f"dynamic_shapes must be a dict, tuple or list, got {type(spec).__name__}")
    out: dict[str, Any] = {}
    for name, value in named.items():
        _match(value, by_name.get(name), name, f"dynamic_shapes['{name}']", out)
    return out


def _match(value: Any, spec: Any, path: str, where: str, out: dict[str, Any]) -> None:
    if isinstance(value, int) and not isinstance(value, bool):
        if isinstance(spec, (Dim, _DimHint)) and spec is not Dim.STATIC:
            out[path] = spec  # an int marked dynamic becomes a symbolic int input
        return
    if isinstance(value, Tensor):
        if spec is not None:
            _check_rank(value, spec, where)
        out[path] = spec
        return
    if spec is None:
        return
    for key, child in pytree.tree_flatten_with_path(value)[0]:
        entry = _lookup(spec, key, value)
        _match(child, entry, path + pytree.keystr(key), where + pytree.keystr(key), out)


def _lookup(spec: Any, path: tuple[Any, ...], value: Any) -> Any:
    """The spec entry at ``path``; a dataclass may be specified as a list of
    its fields in order (as torch's AdditionalInputs gives it)."""
    import dataclasses

    node = spec
    for key in path:
        if node is None:
            return None
        index = getattr(key, "idx", getattr(key, "key", getattr(key, "name", None)))
        if isinstance(key, pytree.GetAttrKey) and isinstance(node, (list, tuple)):
            names = [f.name for f in dataclasses.fields(value)]
            index = names.index(key.name)
        if isinstance(node, dict):
            node = node.get(index)
        elif isinstance(node, (list, tuple)):
            node = node[index] if isinstance(index, int) and index < len(node) else None
        else:
            node = getattr(node, str(index), None)
        value = getattr(value, key.name) if isinstance(key, pytree.GetAttrKey) else value[index]
    return node


def _check_rank(tensor: Tensor, spec: Any, where: str) -> None:
    if isinstance(spec, (tuple, list)) and len(spec) != tensor.dim():
        raise UserError(
            f"Expected dynamic shape spec {tuple(spec)} specified at `{where}` to have the same "
            f"length as the actual tensor shape texport.Size({list(tensor.shape)}) (expected "
            f"{tensor.dim()}, but got {len(spec)} instead)", "INVALID_INPUT",
        )
    if isinstance(spec, dict):
        bad = [k for k in spec if not isinstance(k, int) or not -tensor.dim() <= k < tensor.dim()]
        if bad:
            raise UserError(f"Dynamic shape spec at `{where}` names dims {bad} that "
                            f"{list(tensor.shape)} does not have", "INVALID_INPUT")


def make_dims(context: SpecContext, path: str, tensor: Tensor, spec: Any) -> tuple[Any, ...]:
    """The dims of one input: ints for static dims, symbols or expressions else."""
    shape = tuple(int(s) for s in tensor.shape)
    entries = [None] * len(shape)
    if isinstance(spec, dict):
        for axis, entry in spec.items():
            entries[axis] = entry
    elif isinstance(spec, (tuple, list)):
        entries = list(spec)
    dims_out = tuple(_dim(context, path, axis, size, entry) for axis, (size, entry) in enumerate(zip(shape, entries)))
    context.by_path[path] = dims_out
    return dims_out


def _dim(context: SpecContext, path: str, axis: int, size: int, entry: Any) -> Any:
    source = f"{_source(path)}.size()[{axis}]"
    if entry is None or entry is Dim.STATIC or isinstance(entry, int) and not isinstance(entry, bool):
        if isinstance(entry, int) and entry != size:
            raise ConstraintViolationError(f"Expected input {source} to be equal to {entry}, but got {size}")
        return size
    if isinstance(entry, _DimHint):
        return _hinted(context, source, path, axis, size, entry)
    if isinstance(entry, _DerivedDim):
        return _derived(context, source, size, entry)
    if isinstance(entry, Dim):
        return _named(context, source, size, entry)
    raise UserError(f"Unexpected dynamic shape entry {entry!r} at {source}", "INVALID_INPUT")


def make_int(context: SpecContext, path: str, value: int, spec: Any) -> Any:
    """A Python int input marked dynamic: a symbol (torch's ``Sym(s37)`` input)."""
    if spec is None:
        return None
    source = _source(path)
    sym = context.shape_env.create_symbol(source, value, 0, INT_OO)
    name = spec.__name__ if isinstance(spec, Dim) else source
    context.specs.append(DimSpec(source, "auto", name, 0, INT_OO, sym))
    return sym


def _hinted(context: SpecContext, source: str, path: str, axis: int, size: int, hint: _DimHint) -> Any:
    if size in (0, 1):
        if hint.kind == "AUTO":
            warnings.warn(
                f"dimension inputs['{path}'].shape[{axis}] 0/1 specialized; Dim.AUTO was "
                f"specified along with a sample input with hint = {size}.", stacklevel=4,
            )
            return size
        raise ValueError(
            "Found the following conflicts between user-specified ranges and inferred ranges "
            "from model tracing:\n- Received user-specified dim hint "
            f"Dim.DYNAMIC(min={hint.min}, max={hint.max}), but export 0/1 specialized due to "
            f"hint of {size} for dimension inputs['{path}'].shape[{axis}]. Use an example "
            "size >= 2 for a dynamic dim."
        )
    low = 2 if hint.min is None else max(hint.min, 0)
    high = INT_OO if hint.max is None else hint.max
    sym = context.shape_env.create_symbol(source, size, max(low, 2), high)
    context.specs.append(DimSpec(source, hint.kind.lower(), source, low, high, sym))
    return sym


def _check_range(size: int, low: Any, high: Any) -> None:
    if not (max(low, 2) <= size <= high) and size not in (0, 1):
        raise ConstraintViolationError(f"{size} not in range [{max(low, 2)}, {high}]")


def _named(context: SpecContext, source: str, size: int, dim: Dim) -> Any:
    known = context.named.get(dim.__name__)
    if known is not None:
        value = context.shape_env.hint(known)
        if int(value) != size:
            raise ConstraintViolationError(
                f"Expected input {source} to be equal to {dim.__name__}, where "
                f"{dim.__name__} = {int(value)}, but got {size}"
            )
        return known
    _check_range(size, dim.min, dim.max)
    if size in (0, 1):
        spec = DimSpec(source, "named", dim.__name__, dim.min, dim.max, None)
        context.specs.append(spec)
        raise _specialization_error([spec], size)
    sym = context.shape_env.create_symbol(source, size, max(dim.min, 2), dim.max)
    context.named[dim.__name__] = sym
    context.specs.append(DimSpec(source, "named", dim.__name__, dim.min, dim.max, sym))
    return sym


def _derived(context: SpecContext, source: str, size: int, dim: _DerivedDim) -> Any:
    root = context.named.get(dim.root.__name__)
    if root is None:
        if (size - dim.b) % dim.a:
            raise ConstraintViolationError(
                f"Expected input {source} = {size} to be of the form {dim.__name__}"
            )
        root = _named(context, source + f" (root of {dim.__name__})", (size - dim.b) // dim.a, dim.root)
    expr = dim.a * root + dim.b
    value = int(context.shape_env.hint(expr))
    if value != size:
        raise ConstraintViolationError(
            f"Expected input {source} to be equal to {dim.__name__}, where "
            f"{dim.root.__name__} = {int(context.shape_env.hint(root))}, but got {size}"
        )
    context.specs.append(DimSpec(source, "derived", dim.__name__, dim.min, dim.max, expr))
    return expr


def _specialization_error(specs: list[DimSpec], value: int) -> ConstraintViolationError:
    names = ", ".join(sorted(s.name for s in specs))
    bullets = [_specialized_bullet(s.name, value) for s in specs]
    fixes = [f"{s.name} = {value}" for s in specs if s.kind == "named"]
    return ConstraintViolationError(_message(names, bullets, fixes), fixes)


def _specialized_bullet(name: str, value: Any) -> str:
    return (
        f"You marked {name} as dynamic but your code specialized it to be a constant ({value}). "
        "If you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're "
        "using Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO."
    )


def _message(names: str, bullets: list[str], fixes: list[str]) -> str:
    text = f'Constraints violated ({names})! For more information, run with TORCH_LOGS="+dynamic".\n'
    text += "\n".join(f"  - {b}" for b in bullets)
    if fixes:
        text += "\nSuggested fixes:\n" + "\n".join(f"  {f}" for f in fixes)
    return text


# --------------------------------------------------------------------------
# Solving the guards against the spec
# --------------------------------------------------------------------------


def _names_text(expr: Any, context: SpecContext) -> str:
    """An expression over symbols, written with the user's Dim names."""
    names = {s.symbol: sympy.Symbol(s.name) for s in context.specs if s.kind == "named" and s.symbol is not None}
    return str(sympy.sympify(expr).xreplace(names))


def _guard_note(shape_env: ShapeEnv, sym: Any) -> str:
    for guard in shape_env.guards:
        if sym in getattr(guard.expr, "free_symbols", ()) and guard.location is not None:
            loc = guard.location
            return f"\n    (guard from {loc.filename}:{loc.line}: {loc.code})"
    return ""


def solve(context: SpecContext) -> None:
    """Raise ConstraintViolationError if the traced guards narrow the spec."""
    env = context.shape_env
    problems: list[tuple[str, str, list[str]]] = []  # (name, bullet, fixes)
    symbol_spec = {s.symbol: s for s in context.specs if s.kind != "derived" and s.symbol is not None}
    for spec in context.specs:
        if spec.kind in ("derived", "auto") or spec.symbol is None:
            continue
        problem = _relation_problem(spec, context, symbol_spec) or _range_problem(spec, env) \
            or _divisibility_problem(spec, env)
        if problem is not None:
            bullet, fixes, *subject = problem
            name = (subject[0] if subject else spec.name) if spec.kind == "named" else spec.source
            problems.append((name, bullet + _guard_note(env, spec.symbol), fixes if spec.kind == "named" else []))
    if problems:
        names = ", ".join(sorted({p[0] for p in problems}))
        fixes = [f for p in problems for f in p[2]]
        raise ConstraintViolationError(_message(names, [p[1] for p in problems], list(dict.fromkeys(fixes))),
                                       list(dict.fromkeys(fixes)))


def _relation_problem(spec: DimSpec, context: SpecContext, symbol_spec: dict[Any, DimSpec]) -> Any:
    env = context.shape_env
    value = env.simplify(spec.symbol)
    if value == spec.symbol:
        return None
    if type(value) is int or getattr(value, "is_Integer", False):
        return _specialized_bullet(spec.name, int(value)), [f"{spec.name} = {int(value)}"]
    others = [symbol_spec[s] for s in value.free_symbols if s in symbol_spec]
    if spec.kind != "named" or not others or all(o.kind != "named" for o in others):
        return None
    other = others[0]
    subject, target, relation = spec, other, value
    if relation == other.symbol and context.specs.index(other) > context.specs.index(spec):
        subject, target = other, spec  # torch names the later input first
    if relation == target.symbol or relation == subject.symbol:
        bullet = (f"The values of {subject.name} = {subject.source} and {target.name} = "
                  f"{target.source} must always be equal.")
        return bullet, [f"{subject.name} = {target.name}"], subject.name
    text = _names_text(relation, context)
    bullet = (f"The values of {spec.name} = {spec.source} must always be related to the values "
              f"of {other.name} = {other.source} by {spec.name} = {text}.")
    return bullet, [f"{spec.name} = {text}"]


def _range_problem(spec: DimSpec, env: ShapeEnv) -> Any:
    info = env.symbols.get(spec.symbol)
    if info is None or spec.kind != "named":
        return None
    narrowed_low = info.low > max(spec.low, 2)
    narrowed_high = info.high < spec.high
    if not (narrowed_low or narrowed_high):
        return None
    declared = []
    if spec.low > 0:
        declared.append(f"{spec.low} <= {spec.name}")
    if spec.high != INT_OO:
        declared.append(f"{spec.name} <= {spec.high}")
    declared_text = f" {' and '.join(declared)}" if declared else ""
    high = "IntInfinity()" if info.high == INT_OO else info.high
    bullet = (f"Not all values of {spec.name} = {spec.source} in the specified range{declared_text} "
              f"satisfy the generated guard {info.low} <= {spec.source} and {spec.source} <= {high}")
    fix = f"{spec.name} = Dim('{spec.name}', min={info.low}" + (
        f", max={info.high})" if info.high != INT_OO else ")")
    return bullet, [fix]


def _divisibility_problem(spec: DimSpec, env: ShapeEnv) -> Any:
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
            root = f"_{spec.name}"
            low = max(1, -(-max(spec.low, 2) // divisor))
            high = "oo" if spec.high == INT_OO else spec.high // divisor
            return bullet, [f"{root} = Dim('{root}', min={low}, max={high})", f"{spec.name} = {divisor}*{root}"]
    return None


def _divided(expr: Any) -> tuple[Any, Any] | None:
    """(n, k) when ``expr`` says k divides n: ``Eq(Mod(n, k), 0)`` or ``Eq(k*(n//k), n)``."""
    from texport.dialects.symbolic import FloorDiv

    for mod in expr.atoms(sympy.Mod):
        if 0 in (expr.lhs, expr.rhs):
            return mod.args[0], mod.args[1]
    for floor in expr.atoms(FloorDiv):
        numerator, k = floor.args
        if sympy.expand(expr.lhs - expr.rhs - (k * floor - numerator)) == 0 or \
                sympy.expand(expr.lhs - expr.rhs + (k * floor - numerator)) == 0:
            return numerator, k
    return None


def _coefficient(expr: Any, sym: Any) -> Any:
    coeff = sympy.sympify(expr).coeff(sym)
    return coeff if coeff != 0 else 1


# --------------------------------------------------------------------------
# After solving: the IR's types and the range constraints
# --------------------------------------------------------------------------


def range_constraints(context: SpecContext, traced_dims: list[tuple[Any, ...]]) -> dict[Any, ValueRange]:
    env = context.shape_env
    ranges: dict[Any, ValueRange] = {}
    reported = {s.symbol: s for s in context.specs if s.kind != "derived" and s.symbol is not None}
    for sym, info in env.symbols.items():
        if env.simplify(sym) != sym or info.hint is None:
            continue
        spec = reported.get(sym)
        declared_low = spec.low if spec is not None else info.low
        low = info.low if info.low > max(declared_low, 2) else declared_low
        ranges[sym] = ValueRange(low, info.high)
    for dims_ in traced_dims:
        for dim in dims_:
            dim = env.simplify(dim)
            if type(dim) is int or dim.is_Symbol or dim in ranges:
                continue
            low, high = _expr_range(dim, ranges)
            ranges[dim] = ValueRange(low, high)
    return ranges


def _expr_range(expr: Any, ranges: dict[Any, ValueRange]) -> tuple[Any, Any]:
    from .shape_env import _bounds

    low, high = _bounds(expr, {s: (r.lower, r.upper) for s, r in ranges.items()})
    return low, high


def finalize_types(module: Any, env: ShapeEnv) -> None:
    """Rewrite every type in the module with the replacements the guards made."""
    from xdsl.rewriter import Rewriter

    from texport.dialects.tx import SymIntType, TensorType, symint

    def rewrite(value: Any) -> None:
        attr = value.type
        new = None
        if isinstance(attr, TensorType) and any(type(d) is not int for d in attr.shape):
            new = TensorType.get(tuple(env.simplify(d) for d in attr.shape), attr.dtype)
        elif isinstance(attr, SymIntType) and attr.value is not None and type(attr.value) is not int:
            new = symint(env.simplify(attr.value))
        if new is not None and new != attr:
            name = value._name  # noqa: SLF001 - keep the exact torch name
            replacement = Rewriter.replace_value_with_new_type(value, new)
            replacement._name = name  # noqa: SLF001

    for op in list(module.walk()):
        for region in op.regions:
            for block in region.blocks:
                for arg in list(block.args):
                    rewrite(arg)
        for result in list(op.results):
            rewrite(result)


def _runtime_guards(env: ShapeEnv) -> list[Any]:
    """Guards the input types cannot express (divisibility, two-symbol
    relations), to be checked when the program runs."""
    from texport.dialects.symbolic import FloorDiv

    kept = []
    for guard in env.guards:
        expr = env.simplify(guard.expr)
        if not isinstance(expr, sympy.core.relational.Relational) or expr in (sympy.true, sympy.false):
            continue
        divided = _divided(expr) if isinstance(expr, sympy.Eq) else None
        if divided is not None:
            kept.append(sympy.Eq(sympy.Mod(*divided), 0, evaluate=False))
        elif expr.has(sympy.Mod, FloorDiv) or len(expr.free_symbols) > 1:
            kept.append(expr)
    return list(dict.fromkeys(kept))


def export_dynamic(mod: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None,
                   dynamic_shapes: Any, strict: bool) -> Any:
    """export() with a dynamic-shape spec: trace with symbols, solve, finalise."""
    from xdsl.dialects.builtin import DictionaryAttr, FunctionType, StringAttr
    from xdsl.dialects.func import ReturnOp

    from texport.dialects.symbolic import dim_str

    from .export import trace

    kwargs = dict(kwargs or {})
    env = ShapeEnv()
    context = SpecContext(env)
    leaves = spec_leaves(mod, args, kwargs, dynamic_shapes)
    traced = trace(mod, args, kwargs, strict=strict, shape_env=env,
                   dims_for=lambda path, tensor: make_dims(context, path, tensor, leaves.get(path)),
                   int_for=lambda path, value: make_int(context, path, value, leaves.get(path)))
    solve(context)
    finalize_types(traced.module, env)
    func = traced.func
    block = func.body.block
    returned = next(op for op in block.ops if isinstance(op, ReturnOp))
    func.function_type = FunctionType.from_lists([a.type for a in block.args],
                                                 [v.type for v in returned.operands])
    traced.range_constraints = range_constraints(context, list(context.by_path.values()))
    traced.range_constraints.update(env.unbacked_ranges())
    traced.runtime_guards = _runtime_guards(env)
    func.attributes["tx.range_constraints"] = DictionaryAttr({
        dim_str(k): StringAttr(repr(v)) for k, v in traced.range_constraints.items()
    })
    return traced


# --------------------------------------------------------------------------
# ShapesCollection, AdditionalInputs, applying suggested fixes
# --------------------------------------------------------------------------


class ShapesCollection:
    """Shapes assigned to tensors by identity: ``sc[x] = (dim, dim + 1, 8)``;
    ``sc.dynamic_shapes(m, args)`` builds the nested spec export() takes."""

    def __init__(self) -> None:
        self._shapes: dict[int, tuple[Tensor, Any]] = {}

    def __setitem__(self, tensor: Tensor, shape: Any) -> None:
        self._shapes[id(tensor)] = (tensor, shape)

    def __getitem__(self, tensor: Tensor) -> Any:
        return self._shapes[id(tensor)][1]

    def __contains__(self, tensor: Tensor) -> bool:
        return id(tensor) in self._shapes

    def dynamic_shapes(self, m: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
        import inspect

        named = dict(inspect.signature(m.forward).bind(*args, **(kwargs or {})).arguments)
        found: set[int] = set()

        def spec_of(value: Any) -> Any:
            if isinstance(value, Tensor):
                if id(value) in self._shapes:
                    found.add(id(value))
                    return self._shapes[id(value)][1]
                return None
            if isinstance(value, dict):
                return {k: spec_of(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(spec_of(v) for v in value) if not hasattr(value, "_fields") else [spec_of(v) for v in value]
            return None

        result = {name: spec_of(value) for name, value in named.items()}
        if set(self._shapes) - found:
            raise ValueError(
                "Some tensors that were assigned shapes were not found in args. Maybe such tensors "
                "were copied when passing them as args? Maybe such tensors are contained in "
                "classes that were not registered with pytree?"
            )
        return result


class AdditionalInputs:
    """More example inputs: dims whose sizes differ between samples become
    Dim.DYNAMIC; ``verify(ep)`` runs the exported program on every sample."""

    def __init__(self) -> None:
        self._examples: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def add(self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> None:
        self._examples.append((tuple(args), dict(kwargs or {})))

    def dynamic_shapes(self, m: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
        import inspect

        samples = [(tuple(args), dict(kwargs or {}))] + self._examples
        bound = [dict(inspect.signature(m.forward).bind(*a, **k).arguments) for a, k in samples]
        flats = [pytree.tree_flatten(b) for b in bound]
        spec = flats[0][1]
        for _leaves, other in flats[1:]:
            if other != spec:
                raise TypeError(f"AdditionalInputs: a sample's structure differs from the example inputs ({other})")
        specs = [_leaf_spec([f[0][i] for f in flats]) for i in range(len(flats[0][0]))]
        return _dataclasses_as_lists(pytree.tree_unflatten(specs, spec))

    def verify(self, ep: Any) -> None:
        module = ep.module()
        for args, kwargs in self._examples:
            module(*args, **kwargs)


def _dataclasses_as_lists(spec: Any) -> Any:
    """torch's form: a dataclass input is specified as the list of its fields."""
    import dataclasses

    if dataclasses.is_dataclass(spec) and not isinstance(spec, type):
        return [_dataclasses_as_lists(getattr(spec, f.name)) for f in dataclasses.fields(spec)]
    if isinstance(spec, dict):
        return {k: _dataclasses_as_lists(v) for k, v in spec.items()}
    if isinstance(spec, (list, tuple)) and not hasattr(spec, "_fields"):
        return type(spec)(_dataclasses_as_lists(v) for v in spec)
    return spec


def _leaf_spec(values: list[Any]) -> Any:
    first = values[0]
    if isinstance(first, Tensor):
        shapes = [tuple(v.shape) for v in values]
        if len({len(s) for s in shapes}) != 1:
            raise ValueError(f"AdditionalInputs: tensor ranks differ between samples: {shapes}")
        return tuple(Dim.DYNAMIC if len({s[i] for s in shapes}) > 1 else None for i in range(len(shapes[0])))
    if all(v == first for v in values):
        return None
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return Dim.DYNAMIC  # differing ints become symbolic int inputs
    raise ValueError(
        "The following inputs were found to have differing values, but they cannot be marked as "
        f"dynamic: {tuple(values)}."
    )


def refine_dynamic_shapes_from_suggested_fixes(message: str, dynamic_shapes: Any) -> Any:
    """Apply the ``Suggested fixes:`` of a ConstraintViolationError message to a spec.

    The fixes are parsed (never executed): ``dx = Dim('dx', min=5, max=100)``,
    ``dx = 4``, ``dy = 2*dx``, ``_dx = Dim('_dx', ...)`` then ``dx = 2*_dx``."""
    import ast

    _, _, tail = message.partition("Suggested fixes:")
    fixes: dict[str, Any] = {}
    for line in (raw.strip() for raw in tail.splitlines()):
        if not line:
            continue
        target, _, source = line.partition("=")
        fixes[target.strip()] = _evaluate_fix(ast.parse(source.strip(), mode="eval").body, fixes, dynamic_shapes)
    return _substitute_dims(dynamic_shapes, fixes)


def _evaluate_fix(node: Any, fixes: dict[str, Any], spec: Any) -> Any:
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in fixes:
            return fixes[node.id]
        found = _find_dim(spec, node.id)
        if found is None:
            raise ValueError(f"suggested fix refers to unknown dim {node.id!r}")
        return found
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Dim":
        name = node.args[0].value
        options = {k.arg: (None if getattr(k.value, "id", "") == "oo" else k.value.value) for k in node.keywords}
        return Dim(name, **options)
    if isinstance(node, ast.BinOp):
        left, right = _evaluate_fix(node.left, fixes, spec), _evaluate_fix(node.right, fixes, spec)
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
    raise ValueError(f"cannot apply the suggested fix {ast.unparse(node)!r}")


def _find_dim(spec: Any, name: str) -> Any:
    if isinstance(spec, Dim) and not isinstance(spec, _DerivedDim) and spec.__name__ == name:
        return spec
    children = spec.values() if isinstance(spec, dict) else spec if isinstance(spec, (list, tuple)) else ()
    for child in children:
        found = _find_dim(child, name)
        if found is not None:
            return found
    return None


def _substitute_dims(spec: Any, fixes: dict[str, Any]) -> Any:
    if isinstance(spec, _DerivedDim):
        root = fixes.get(spec.root.__name__, spec.root)
        return spec.a * root + spec.b if isinstance(root, (Dim, int)) else spec
    if isinstance(spec, Dim):
        return fixes.get(spec.__name__, spec)
    if isinstance(spec, dict):
        return {k: _substitute_dims(v, fixes) for k, v in spec.items()}
    if isinstance(spec, (list, tuple)):
        return type(spec)(_substitute_dims(v, fixes) for v in spec)
    return spec
