"""The default decomposition table: every decomposition module registered,
plus the decompositions of custom ops (texport.library), as an editable copy."""

from __future__ import annotations

import importlib
from collections.abc import Callable

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


# Named tables for the decompose pass (``decompose{table=core}``).
NAMED_TABLES: dict[str, Callable[[], dict[str, Decomposition]]] = {
    "core": lambda: default_decompositions().by_key(),
}
