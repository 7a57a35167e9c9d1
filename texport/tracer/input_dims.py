"""The inputs' dims: the spec, applied to the example inputs, before anything is traced.

Each tensor input gets its dims: ints where the spec leaves a dim static, a
ShapeEnv symbol (or ``a*s + b`` for a derived dim) where it makes it dynamic;
each int input marked dynamic gets a symbol. Every symbol is recorded with
what the user asked of it (a DimSpec), which the solver checks the traced
guards against. An example input that contradicts the spec is reported here.
Without a spec every dim is its example size and no symbol (and no sympy)
appears.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from texport.dialects.symbolic import symbol

from .dynamic_shapes import Dim, _DerivedDim, _DimHint
from .errors import ConstraintViolationError, UserError, specialized_bullet
from .shape_env import INF, ShapeEnv
from .sources import user_stacklevel
from .tensor import Tensor


@dataclass
class DimSpec:
    """What the user asked of one input dim, and the symbol it became."""

    source: str  # torch's guard source: ``L['x'].size()[0]``
    kind: str  # "named", "derived", "auto", "dynamic", "static"
    name: str
    low: Any
    high: Any
    symbol: Any = None


@dataclass
class InputDims:
    """The dims of every tensor input and the symbol of every dynamic int
    input, by input path, with the ShapeEnv that owns their symbols."""

    shape_env: ShapeEnv
    tensors: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    ints: dict[str, Any] = field(default_factory=dict)
    specs: list[DimSpec] = field(default_factory=list)  # in input order: torch's message order
    named: dict[str, Any] = field(default_factory=dict)  # Dim name -> its symbol
    renamed: dict[Any, Any] = field(default_factory=dict)  # a Dim's first symbol -> the one it kept


def input_dims(leaves: list[tuple[str, Any]], specs: dict[str, Any]) -> InputDims:
    """The dims of the (path, value) input leaves under their spec entries
    (``dynamic_shapes.leaf_specs``), symbols created in input order."""
    dims = InputDims(ShapeEnv())
    for path, value in leaves:
        if isinstance(value, Tensor):
            dims.tensors[path] = _tensor_dims(dims, path, value, specs.get(path))
        elif specs.get(path) is not None:
            dims.ints[path] = _int_symbol(dims, path, value, specs[path])
    return dims


def _source(path: str) -> str:
    """``inp['x']`` → ``L['inp']['x']`` (torch's guard source names)."""
    head, sep, rest = path.partition("[")
    head, dot, attr = head.partition(".")
    text = f"L['{head}']" + (f".{attr}" if dot else "")
    return text + (sep + rest if sep else "")


def _tensor_dims(dims: InputDims, path: str, tensor: Tensor, spec: Any) -> tuple[Any, ...]:
    """Ints for static dims, symbols or expressions for dynamic ones."""
    shape = tuple(int(s) for s in tensor.shape)
    if spec is None:
        return shape
    entries: list[Any] = [None] * len(shape)
    if isinstance(spec, dict):
        for axis, entry in spec.items():
            entries[axis] = entry
    elif isinstance(spec, (tuple, list)):
        entries = list(spec)
    out = [_dim(dims, path, axis, size, entry) for axis, (size, entry) in enumerate(zip(shape, entries))]
    return tuple(d if type(d) is int else d.xreplace(dims.renamed) for d in out)


def _dim(dims: InputDims, path: str, axis: int, size: int, entry: Any) -> Any:
    source = f"{_source(path)}.size()[{axis}]"
    if entry is None or entry is Dim.STATIC or isinstance(entry, int) and not isinstance(entry, bool):
        if isinstance(entry, int) and entry != size:
            raise ConstraintViolationError(f"Expected input {source} to be equal to {entry}, but got {size}")
        return size
    if isinstance(entry, _DimHint):
        return _hinted(dims, source, path, axis, size, entry)
    if isinstance(entry, _DerivedDim):
        return _derived(dims, source, size, entry)
    if isinstance(entry, Dim):
        return _named(dims, source, size, entry)
    raise UserError(f"Unexpected dynamic shape entry {entry!r} at {source}", "INVALID_INPUT")


def _int_symbol(dims: InputDims, path: str, value: int, spec: Any) -> Any:
    """A Python int input marked dynamic: a symbol (torch's ``Sym(s37)`` input)."""
    source = _source(path)
    sym = dims.shape_env.create_symbol(source, value, 0, INF)
    name = spec.__name__ if isinstance(spec, Dim) else source
    dims.specs.append(DimSpec(source, "auto", name, 0, INF, sym))
    return sym


def _hinted(dims: InputDims, source: str, path: str, axis: int, size: int, hint: _DimHint) -> Any:
    if size in (0, 1):
        if hint.kind == "AUTO":
            warnings.warn(
                f"dimension inputs['{path}'].shape[{axis}] 0/1 specialized; Dim.AUTO was "
                f"specified along with a sample input with hint = {size}.", stacklevel=user_stacklevel(),
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
    high = INF if hint.max is None else hint.max
    sym = dims.shape_env.create_symbol(source, size, max(low, 2), high)
    dims.specs.append(DimSpec(source, hint.kind.lower(), source, low, high, sym))
    return sym


def _named(dims: InputDims, source: str, size: int, dim: Dim, named_by: str | None = None) -> Any:
    known = dims.named.get(dim.__name__)
    if known is not None:
        value = dims.shape_env.hint(known)
        if int(value) != size:
            raise ConstraintViolationError(
                f"Expected input {source} to be equal to {dim.__name__}, where "
                f"{dim.__name__} = {int(value)}, but got {size}"
            )
        return _unify(dims, known, dims.shape_env.claim_number(source))
    if not (max(dim.min, 2) <= size <= dim.max) and size not in (0, 1):
        raise ConstraintViolationError(f"{size} not in range [{max(dim.min, 2)}, {dim.max}]")
    if size in (0, 1):
        raise ConstraintViolationError.of(dim.__name__, [specialized_bullet(dim.__name__, size)],
                                          [f"{dim.__name__} = {size}"])
    sym = dims.shape_env.create_symbol(source, size, max(dim.min, 2), dim.max, named_by=named_by)
    dims.named[dim.__name__] = sym
    dims.specs.append(DimSpec(source, "named", dim.__name__, dim.min, dim.max, sym))
    return sym


def _derived(dims: InputDims, source: str, size: int, dim: _DerivedDim) -> Any:
    root = dims.named.get(dim.root.__name__)
    if root is None:
        if (size - dim.b) % dim.a:
            raise ConstraintViolationError(
                f"Expected input {source} = {size} to be of the form {dim.__name__}"
            )
        # a root no input has (torch's phantom symbol) is numbered by its name
        root = _named(dims, source + f" (root of {dim.__name__})", (size - dim.b) // dim.a, dim.root,
                      named_by=dim.root.__name__)
    else:
        dims.shape_env.claim_number(source)  # torch gives the derived input dim a symbol, then replaces it
    expr = dim.a * root + dim.b
    value = int(dims.shape_env.hint(expr))
    if value != size:
        raise ConstraintViolationError(
            f"Expected input {source} to be equal to {dim.__name__}, where "
            f"{dim.root.__name__} = {int(dims.shape_env.hint(root))}, but got {size}"
        )
    dims.specs.append(DimSpec(source, "derived", dim.__name__, dim.min, dim.max, expr))
    return expr


def _unify(dims: InputDims, sym: Any, number: int) -> Any:
    """A Dim met again: torch made this dim a symbol of its own and unified the
    two, keeping the lower-numbered one; every dim seen so far is renamed."""
    if number >= int(sym.name[1:]):
        return sym
    new = symbol(f"s{number}")
    rename = {sym: new}
    dims.renamed = {k: v.xreplace(rename) for k, v in dims.renamed.items()} | rename
    env = dims.shape_env
    env.symbols = {rename.get(k, k): v for k, v in env.symbols.items()}
    dims.tensors = {p: tuple(d if type(d) is int else d.xreplace(rename) for d in ds) for p, ds in dims.tensors.items()}
    dims.ints = {p: v.xreplace(rename) for p, v in dims.ints.items()}
    dims.named = {n: v.xreplace(rename) for n, v in dims.named.items()}
    for spec in dims.specs:
        spec.symbol = spec.symbol.xreplace(rename) if spec.symbol is not None else None
    return new
