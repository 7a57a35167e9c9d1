"""The default decomposition table: every decomposition module registered,
plus the decompositions of custom ops (texport.library), as an editable copy."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from texport.tracer.library import custom_decompositions

from .table import DECOMPOSITIONS, Decomposition, DecompTable, _key

# The modules whose functions register, on import, into DECOMPOSITIONS,
# FUNCTIONALIZATIONS and SCATTERS.
REGISTERING_MODULES = (
    "texport.lowering.decompositions",
    "texport.lowering.functionalizations",
    "texport.lowering.view_scatters",
)


def load_all() -> None:
    """Start-up stage "decompositions" (dialects/bootstrap.py)."""
    for name in REGISTERING_MODULES:
        importlib.import_module(name)


def default_decompositions() -> CustomDecompTable:
    """A fresh, editable copy of the default table: it takes every op to core ATen."""
    return CustomDecompTable()


class CustomDecompTable(DecompTable):
    """torch.export's CustomDecompTable: the ATen entries at once; custom ops' entries
    (texport.library) on the first read (``materialize()``), so a custom op defined
    after the table was made is still decomposed. Deleting a custom op that has
    not been materialized yet is remembered (``deleted_custom_ops``), as torch's."""

    def __init__(self) -> None:
        super().__init__({key: DECOMPOSITIONS[key] for key in DECOMPOSITIONS.keys()})
        self.deleted_custom_ops: set[str] = set()
        self.has_materialized = False

    @property
    def decomp_table(self) -> dict[str, Decomposition]:
        return self._entries

    def materialize(self) -> dict[Any, Decomposition]:
        for key, fn in custom_decompositions().items():
            if key not in self._entries and key not in self.deleted_custom_ops:
                self._entries[key] = fn
        self.has_materialized = True
        self.deleted_custom_ops = set()
        return dict(super().items())

    def _materialize_if_needed(self) -> None:
        if not self.has_materialized:
            self.materialize()

    def __getitem__(self, op: Any) -> Decomposition:
        self._materialize_if_needed()
        return super().__getitem__(op)

    def __setitem__(self, op: Any, fn: Decomposition) -> None:
        super().__setitem__(op, fn)
        self.deleted_custom_ops.discard(_key(op))

    def __contains__(self, op: object) -> bool:
        self._materialize_if_needed()
        return super().__contains__(op)

    def __iter__(self) -> Iterator[Any]:
        self._materialize_if_needed()
        return super().__iter__()

    def __len__(self) -> int:
        self._materialize_if_needed()
        return super().__len__()

    def by_key(self) -> dict[str, Decomposition]:
        self._materialize_if_needed()
        return self._entries

    def __delitem__(self, op: Any) -> None:
        self.pop(op)

    _MISSING = object()

    def pop(self, op: Any, default: Any = _MISSING) -> Any:
        """Keep ``op`` (take its entry out); a custom op not read in yet is remembered."""
        key = _key(op)
        try:
            if key.startswith("aten.") or key in self._entries:
                if not key.startswith("aten."):
                    self.deleted_custom_ops.add(key)
                if key not in self._entries:
                    raise KeyError(f"no decomposition for {key} in this table")
                return self._entries.pop(key)
            if key in self.deleted_custom_ops or key not in custom_decompositions():
                raise KeyError(f"{key} doesn't exist in the table")
            self.deleted_custom_ops.add(key)
            return custom_decompositions()[key]
        except KeyError:
            if default is self._MISSING:
                raise
            return default

    def copy(self) -> CustomDecompTable:
        new = CustomDecompTable.__new__(CustomDecompTable)
        new._entries = dict(self._entries)
        new.deleted_custom_ops = set(self.deleted_custom_ops)
        new.has_materialized = self.has_materialized
        return new

    def __repr__(self) -> str:
        return f"CustomDecompTable({len(self)} decompositions)"


class DefaultTableView(Mapping[str, Decomposition]):
    """The default table as the decompose pass reads it, in place: each key is
    looked up in the registries once (copying the table costs more than
    lowering a small program)."""

    def __init__(self) -> None:
        self._custom = custom_decompositions()
        self._seen: dict[str, Decomposition | None] = {}

    def get(self, key: str, default: Any = None) -> Any:  # the decompose pass asks for every op
        try:
            fn = self._seen[key]
        except KeyError:
            fn = self._seen[key] = self._custom.get(key) or DECOMPOSITIONS.get(key)
        return default if fn is None else fn

    def __getitem__(self, key: str) -> Decomposition:
        fn = self.get(key)
        if fn is None:
            raise KeyError(key)
        return fn

    def __iter__(self) -> Iterator[str]:
        return iter(set(DECOMPOSITIONS.keys()) | set(self._custom))

    def __len__(self) -> int:
        return len(set(DECOMPOSITIONS.keys()) | set(self._custom))


# Named tables for the decompose pass (``decompose{table=core}``).
NAMED_TABLES: dict[str, Callable[[], Mapping[str, Decomposition]]] = {
    "core": DefaultTableView,
}
