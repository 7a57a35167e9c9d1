"""The default decomposition table: every decomposition module registered,
plus the decompositions of custom ops (texport.library), as an editable copy."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from texport.tracer.library import custom_decompositions

from .table import DECOMPOSITIONS, Decomposition, DecompTable

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


def default_decompositions() -> DecompTable:
    """A fresh, editable copy of the default table: it takes every op to core ATen."""
    entries = {key: DECOMPOSITIONS[key] for key in DECOMPOSITIONS.keys()}
    return DecompTable(entries | custom_decompositions())


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
