"""The dynamic-shapes spec, as ``torch.export.dynamic_shapes``: what the user
says about each input dim, and which input each entry of the spec belongs to.

    dx = Dim("dx", min=4, max=256)
    export(m, (x, y), dynamic_shapes={"x": (dx, None), "y": (2 * dx, Dim("dh", max=512))})

Here live Dim (named), derived dims (``2*dx + 1``), the hints Dim.AUTO /
DYNAMIC / STATIC, the other ways to write a spec (ShapesCollection,
AdditionalInputs), applying a ConstraintViolationError's suggested fixes to a
spec, and ``leaf_specs``: the spec matched to the inputs, one entry per input
path. Nothing here creates a symbol: input_dims.py turns the entries into the
inputs' dims, solver.py checks the traced guards against them.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from typing import Any

from . import pytree
from .errors import UserError
from .shape_env import INF
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
        if not high > low:  # as torch: min == max is a constant, not a dim
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
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
# The spec matched to the inputs
# --------------------------------------------------------------------------


def leaf_specs(named: dict[str, Any], spec: Any) -> dict[str, Any]:
    """Each input path's entry of the spec: every tensor's (a dict or sequence
    of dim entries, or None for static), and every int marked dynamic's.
    ``named`` is the forward's arguments by name; no spec is an empty map."""
    if spec is None:
        return {}
    out: dict[str, Any] = {}
    by_name = _spec_by_argument(named, spec)
    for name, value in named.items():
        _match(value, by_name.get(name), name, f"dynamic_shapes['{name}']", out)
    return out


def _spec_by_argument(named: dict[str, Any], spec: Any) -> dict[str, Any]:
    if isinstance(spec, dict):
        if set(spec) - set(named):
            raise UserError(
                "When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg "
                f"names {list(named)} of `inputs`, but here they are {list(spec)}. Alternatively, "
                "you could also ignore arg names entirely and specify `dynamic_shapes` as a "
                "list/tuple matching `inputs`.", "INVALID_INPUT",
            )
        return spec
    if isinstance(spec, (tuple, list)):
        if len(spec) != len(named):
            raise UserError(
                f"When `dynamic_shapes` is a tuple/list it must have one entry per input "
                f"({len(named)}), but it has {len(spec)}.", "INVALID_INPUT",
            )
        return dict(zip(named, spec))
    raise UserError(f"dynamic_shapes must be a dict, tuple or list, got {type(spec).__name__}")


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


# --------------------------------------------------------------------------
# ShapesCollection, AdditionalInputs: other ways to write a spec
# --------------------------------------------------------------------------


def _bound_arguments(m: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> dict[str, Any]:
    return dict(inspect.signature(m.forward).bind(*args, **(kwargs or {})).arguments)


def as_spec(dynamic_shapes: Any, m: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The nested spec export() takes, from any of the ways to write one."""
    if isinstance(dynamic_shapes, (ShapesCollection, AdditionalInputs)):
        return dynamic_shapes.dynamic_shapes(m, args, kwargs)
    return dynamic_shapes


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
        found: set[int] = set()
        result = {name: self._spec_of(value, found) for name, value in _bound_arguments(m, args, kwargs).items()}
        if set(self._shapes) - found:
            raise ValueError(
                "Some tensors that were assigned shapes were not found in args. Maybe such tensors "
                "were copied when passing them as args? Maybe such tensors are contained in "
                "classes that were not registered with pytree?"
            )
        return result

    def _spec_of(self, value: Any, found: set[int]) -> Any:
        if isinstance(value, Tensor):
            if id(value) in self._shapes:
                found.add(id(value))
                return self._shapes[id(value)][1]
            return None
        if isinstance(value, dict):
            return {k: self._spec_of(v, found) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            specs = (self._spec_of(v, found) for v in value)
            return [*specs] if hasattr(value, "_fields") else type(value)(specs)
        return None


class AdditionalInputs:
    """More example inputs: dims whose sizes differ between samples become
    Dim.DYNAMIC; ``verify(ep)`` runs the exported program on every sample."""

    def __init__(self) -> None:
        self._examples: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def add(self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> None:
        self._examples.append((tuple(args), dict(kwargs or {})))

    def dynamic_shapes(self, m: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
        samples = [(tuple(args), dict(kwargs or {}))] + self._examples
        flats = [pytree.tree_flatten(_bound_arguments(m, a, k)) for a, k in samples]
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


# --------------------------------------------------------------------------
# Applying suggested fixes
# --------------------------------------------------------------------------


def refine_dynamic_shapes_from_suggested_fixes(message: str, dynamic_shapes: Any) -> Any:
    """Apply the ``Suggested fixes:`` of a ConstraintViolationError message to a spec.

    The fixes are parsed (never executed): ``dx = Dim('dx', min=5, max=100)``,
    ``dx = 4``, ``dy = 2*dx``, ``_dx = Dim('_dx', ...)`` then ``dx = 2*_dx``."""
    _, _, tail = message.partition("Suggested fixes:")
    fixes: dict[str, Any] = {}
    for line in (raw.strip() for raw in tail.splitlines()):
        if not line:
            continue
        target, _, source = line.partition("=")
        fixes[target.strip()] = _evaluate_fix(ast.parse(source.strip(), mode="eval").body, fixes, dynamic_shapes)
    return _substitute_dims(dynamic_shapes, fixes)


def _evaluate_fix(node: ast.expr, fixes: dict[str, Any], spec: Any) -> Any:
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
