"""The op registry: each op declared once by its schema; every other concern
(shape rule, kernel, decomposition) hangs off its key in a registry of its own.

Keys are torch's OpOverload names: ``aten.add.Tensor``, ``aten.convolution.default``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from . import bootstrap
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
    is the key of the view a ``view_copy`` op copies. The schema text is
    parsed when first read: start-up registers every row, a program uses a few."""

    key: str
    schema_text: str
    tags: frozenset[str] = frozenset()
    family: str | None = None
    copied_view: str | None = None

    @functools.cached_property
    def schema(self) -> OpSchema:
        return parse_schema(self.schema_text)

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

    @functools.cached_property
    def name(self) -> str:
        """The op's name without namespace and overload: ``add_`` of ``aten.add_.Tensor``."""
        return self.key.split(".")[1]

    @functools.cached_property
    def ir_name(self) -> str:
        """Op name inside a level dialect: ``add.Tensor``, ``convolution``,
        ``mylib.foo`` for custom namespaces (read off the key: no parse)."""
        namespace, name, overload = self.key.split(".")
        qualified = name if overload == "default" else f"{name}.{overload}"
        return qualified if namespace == "aten" else f"{namespace}.{qualified}"


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


def schema_text_key(text: str) -> str:
    """``schema_key`` read off the head of a schema text (``aten::add.Tensor(...``)
    without parsing the rest."""
    head = text.partition("(")[0].strip()
    namespace, _, name = head.rpartition("::")
    op, _, overload = name.partition(".")
    return f"{namespace or 'aten'}.{op}.{overload or 'default'}"


class DuplicateRegistrationError(ValueError):
    pass


class SealedRegistryError(RuntimeError):
    """A registry changed after start-up other than through texport.library."""


T = TypeVar("T")


class Registry(Generic[T]):
    """A map from op key to one entry; registering a key twice is an error.

    A registry belongs to a start-up ``stage`` (dialects/bootstrap.py): its
    first read runs the start-up up to that stage, which fills it; after that
    it is sealed and changes only inside ``Registry.opened_for_library()``."""

    _all: ClassVar[list[Registry[Any]]] = []
    _library_open: ClassVar[bool] = False
    # called after any registry changes once start-up is over: caches built from the
    # entries (eager mode binds each op's kernel once) drop what they hold
    on_change: ClassVar[list[Callable[[], None]]] = []

    def __init__(self, concern: str, stage: str) -> None:
        self.concern = concern
        self.stage = stage
        self._entries: dict[str, T] = {}
        self._ready = False
        Registry._all.append(self)

    def _start(self) -> dict[str, T]:
        if not self._ready:
            bootstrap.start(self.stage)
            self._ready = bootstrap.is_done(self.stage)
        return self._entries

    def _check_open(self, key: str) -> None:
        if bootstrap.is_done(self.stage) and not Registry._library_open:
            raise SealedRegistryError(
                f"cannot change the {self.concern} of {key} after start-up: texport's registries "
                "change only through texport.library (custom_op, define, register_decomposition)")

    def register(self, name: str, entry: T) -> T:
        key = op_key(name)
        self._check_open(key)
        if key in self._entries:
            raise DuplicateRegistrationError(f"duplicate registrations of {self.concern} for {key}")
        self._entries[key] = entry
        Registry._changed()
        return entry

    def decorator(self, *names: str) -> Callable[[T], T]:
        def wrap(entry: T) -> T:
            for name in names:
                self.register(name, entry)
            return entry

        return wrap

    # Reads try ``name`` as a key first: the hot callers (dispatch, the executor,
    # lowering) pass keys already normalised.
    def get(self, name: str) -> T | None:
        entries = self._entries if self._ready else self._start()
        entry = entries.get(name)
        return entry if entry is not None else entries.get(op_key(name))

    def __getitem__(self, name: str) -> T:
        entry = self.get(name)
        if entry is None:
            raise KeyError(f"no {self.concern} registered for {op_key(name)}")
        return entry

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def keys(self) -> list[str]:
        return list(self._entries if self._ready else self._start())

    def unregister(self, name: str) -> None:
        key = op_key(name)
        self._check_open(key)
        del self._entries[key]
        Registry._changed()

    @classmethod
    def _changed(cls) -> None:
        for forget in cls.on_change:
            forget()

    @classmethod
    @contextlib.contextmanager
    def opened_for_library(cls) -> Iterator[None]:
        """texport.library's way in: registries may change inside this block."""
        was_open, cls._library_open = cls._library_open, True
        try:
            yield
        finally:
            cls._library_open = was_open

    @classmethod
    @contextlib.contextmanager
    def restored(cls) -> Iterator[None]:
        """Every registry is put back as it was on entry (tests that register ops)."""
        snapshot = [(registry, dict(registry._entries)) for registry in cls._all]
        try:
            yield
        finally:
            for registry, entries in snapshot:
                registry._entries = entries
            cls._changed()


OPS: Registry[OpDef] = Registry("op definition", stage="op table")


def register_op(schema_text: str, *, facts: Facts | None = None, family: str | None = None) -> OpDef:
    """Register one op: its schema, and for a row of the op table its tags and family
    (a custom op has neither)."""
    key = schema_text_key(schema_text)
    facts = facts or Facts(frozenset())
    copied_view = op_key(facts.copied_view) if facts.copied_view else None
    return OPS.register(key, OpDef(key, schema_text, facts.tags, family, copied_view))


def lookup_op(name: str) -> OpDef:
    return OPS[name]


def derive_missing(registry: Registry[T], derive: Callable[[OpDef], T | None]) -> None:
    """Register ``derive(op)`` for each op the registry lacks (derive gives None
    for an op with nothing to derive its entry from)."""
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
    if not op_def.name.endswith("_") or op_def.has_tag("inplace_view"):
        return None
    schema = op_def.schema
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
