"""The op registry: each op declared once by its schema; every other concern
(shape rule, kernel, decomposition) hangs off its key in a registry of its own.

Keys are torch's OpOverload names: ``aten.add.Tensor``, ``aten.convolution.default``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .schema import OpSchema, parse_schema
from .tags import Facts

LEVELS = ("training", "functional", "core")


@dataclass(frozen=True)
class OpDef:
    """One registered op, its facts and the IR levels it belongs to.

    training: every op; functional: no argument is written (views allowed);
    core: the Core ATen overloads (core_aten_ops.txt), tagged ``core``.
    ``family`` names the files of its shape rule, kernel and decomposition
    (None for a custom op, registered outside the op table); ``copied_view``
    is the key of the view a ``view_copy`` op copies."""

    key: str
    schema: OpSchema
    tags: frozenset[str] = frozenset()
    family: str | None = None
    copied_view: str | None = None

    def has_tag(self, tag: str) -> bool:
        return tag in self.tags

    @property
    def is_core(self) -> bool:
        return "core" in self.tags

    @property
    def levels(self) -> tuple[str, ...]:
        levels = ["training"]
        if not self.schema.is_mutable:
            levels.append("functional")
        if self.is_core:
            levels.append("core")
        return tuple(levels)

    @property
    def ir_name(self) -> str:
        """Op name inside a level dialect: ``add.Tensor``, ``convolution``,
        ``mylib.foo`` for custom namespaces."""
        if self.schema.namespace == "aten":
            return self.schema.qualified_name
        return f"{self.schema.namespace}.{self.schema.qualified_name}"


def op_key(name: str) -> str:
    """Normalise ``add.Tensor`` / ``relu`` / ``aten.relu.default`` /
    ``mylib::foo`` to the registry key ``aten.add.Tensor`` / ``aten.relu.default``."""
    namespace = "aten"
    if "::" in name:
        namespace, name = name.split("::", 1)
    elif name.count(".") >= 2:  # a full key: namespace.name.overload (op names have no dots)
        namespace, name = name.split(".", 1)
    if "." not in name:
        name += ".default"
    return f"{namespace}.{name}"


def schema_key(schema: OpSchema) -> str:
    return f"{schema.namespace}.{schema.name}.{schema.overload}"


class DuplicateRegistrationError(ValueError):
    pass


T = TypeVar("T")


class Registry(Generic[T]):
    """A map from op key to one entry; registering a key twice is an error."""

    def __init__(self, concern: str) -> None:
        self.concern = concern
        self._entries: dict[str, T] = {}

    def register(self, name: str, entry: T) -> T:
        key = op_key(name)
        if key in self._entries:
            raise DuplicateRegistrationError(f"duplicate registrations of {self.concern} for {key}")
        self._entries[key] = entry
        return entry

    def decorator(self, *names: str) -> Callable[[T], T]:
        def wrap(entry: T) -> T:
            for name in names:
                self.register(name, entry)
            return entry

        return wrap

    def get(self, name: str) -> T | None:
        return self._entries.get(op_key(name))

    def __getitem__(self, name: str) -> T:
        key = op_key(name)
        try:
            return self._entries[key]
        except KeyError:
            raise KeyError(f"no {self.concern} registered for {key}") from None

    def __contains__(self, name: str) -> bool:
        return op_key(name) in self._entries

    def keys(self) -> list[str]:
        return list(self._entries)

    def unregister(self, name: str) -> None:
        del self._entries[op_key(name)]


OPS: Registry[OpDef] = Registry("op definition")


def register_op(
    schema_text: str, *, facts: Facts = Facts(frozenset()), family: str | None = None
) -> OpDef:
    schema = parse_schema(schema_text)
    key = schema_key(schema)
    copied_view = op_key(facts.copied_view) if facts.copied_view else None
    return OPS.register(key, OpDef(key, schema, facts.tags, family, copied_view))


def lookup_op(name: str) -> OpDef:
    return OPS[name]


_derived: set[str] = set()  # the registries (by concern) whose entries are derived


def derive_missing(registry: Registry[T], derive: Callable[[OpDef], T | None]) -> None:
    """Register ``derive(op)`` for each op the registry lacks (derive gives None
    for an op with nothing to derive its entry from). Once per registry: the
    registries' load_all runs on every trace and compile."""
    if registry.concern in _derived:
        return
    _derived.add(registry.concern)
    for key in OPS.keys():
        if key not in registry:
            entry = derive(OPS[key])
            if entry is not None:
                registry.register(key, entry)


def functional_twin(op_def: OpDef) -> OpDef | None:
    """The functional op an in-place op is the variant of: ``name_.overload``,
    whose schema writes only ``self`` (its first argument, ``Tensor(a!)``),
    pairs with ``name.overload`` when that op writes nothing and takes the same
    arguments. In-place views change metadata, not values: they have no twin."""
    schema = op_def.schema
    if not schema.name.endswith("_") or op_def.has_tag("inplace_view"):
        return None
    if not _writes_only_first(schema):
        return None
    twin = OPS.get(f"{schema.namespace}.{schema.name[:-1]}.{schema.overload}")
    if twin is None or twin.schema.is_mutable or _signature(twin.schema) != _signature(schema):
        return None
    return twin


def _writes_only_first(schema: OpSchema) -> bool:
    written = schema.mutated_arguments
    return len(written) == 1 and written[0] is schema.arguments[0]


def _signature(schema: OpSchema) -> list[tuple[Any, bool]]:
    """Argument types and keyword-ness; names may differ: ``dropout(input)``,
    ``dropout_(self)``."""
    return [(argument.type, argument.kwarg_only) for argument in schema.arguments]
