"""Decomposition tables: op handle → function written in texport's API.

The registry ``DECOMPOSITIONS`` holds one decomposition per op, registered
with ``@register_decomposition(aten.X.Y)`` (twice is an error, as in torch).
``default_decompositions()`` returns an editable copy: a ``DecompTable``,
dict-like and keyed by op handles (``texport.ops.aten.conv2d.default``).
Deleting an entry keeps that op; assigning one replaces the decomposition.

    table = default_decompositions()
    del table[aten.conv2d.default]            # keep conv2d
    table[aten.linear.default] = my_linear    # use my_linear instead
    ep.run_decompositions(table)

(``default_decompositions`` lives in ``default_table``, which imports every
decomposition module; the modules import this one to register.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from texport.dialects.registry import Registry, op_key
from texport.tracer.handles import OpOverload, OpOverloadPacket, handle_for

Decomposition = Callable[..., Any]

DECOMPOSITIONS: Registry[Decomposition] = Registry("decomposition", stage="decompositions")


def _key(op: Any) -> str:
    if isinstance(op, OpOverload):
        return op.key
    if isinstance(op, OpOverloadPacket):
        raise TypeError(f"a decomposition table is keyed by overloads: use {op}.default (or another overload)")
    if isinstance(op, str):
        return op_key(op)
    raise TypeError(f"a decomposition table is keyed by op overloads, got {type(op).__name__} {op!r}")


def _overloads(op: Any) -> list[str]:
    if isinstance(op, OpOverloadPacket):
        return [getattr(op, name).key for name in op.overloads()]
    if isinstance(op, (list, tuple)):
        return [key for item in op for key in _overloads(item)]
    return [_key(op)]


def register_decomposition(op: Any, registry: Registry[Decomposition] = DECOMPOSITIONS,
                           ) -> Callable[[Decomposition], Decomposition]:
    """Register the decorated function as the decomposition of ``op`` (an
    overload, a packet — every overload — or a list of them)."""
    keys = _overloads(op)

    def wrap(fn: Decomposition) -> Decomposition:
        for key in keys:
            registry.register(key, fn)
        return fn

    return wrap


class DecompTable(MutableMapping[OpOverload, Decomposition]):
    """An editable decomposition table (``default_decompositions()`` gives its lazy subclass, torch's CustomDecompTable)."""

    def __init__(self, entries: dict[str, Decomposition] | None = None) -> None:
        self._entries: dict[str, Decomposition] = dict(entries or {})

    def __getitem__(self, op: Any) -> Decomposition:
        key = _key(op)
        try:
            return self._entries[key]
        except KeyError:
            raise KeyError(f"no decomposition for {key} in this table") from None

    def __setitem__(self, op: Any, fn: Decomposition) -> None:
        if not callable(fn):
            raise TypeError(f"the decomposition of {_key(op)} must be callable, got {type(fn).__name__}")
        self._entries[_key(op)] = fn

    def __delitem__(self, op: Any) -> None:
        key = _key(op)
        if key not in self._entries:
            raise KeyError(f"no decomposition for {key} in this table")
        del self._entries[key]

    def __contains__(self, op: object) -> bool:
        try:
            return _key(op) in self._entries
        except TypeError:
            return False

    def __iter__(self) -> Iterator[OpOverload]:
        return (handle_for(key) for key in self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def by_key(self) -> dict[str, Decomposition]:
        """The entries by registry key (``aten.conv2d.default``), for the passes."""
        return self._entries

    def copy(self) -> DecompTable:
        return DecompTable(self._entries)

    def __repr__(self) -> str:
        return f"DecompTable({len(self)} decompositions)"


def as_key_table(table: Any) -> dict[str, Decomposition]:
    """Any table the user gives (DecompTable, dict of handles) by registry key."""
    if isinstance(table, DecompTable):
        return table.by_key()
    return {_key(op): fn for op, fn in dict(table).items()}

