"""lowering: how IR changes — passes, decomposition tables, declarative rewrite
patterns, pipelines and per-level legality checks.

Public names: ``default_decompositions``, ``register_decomposition``,
``DecompTable``, ``run_decompositions`` and the pass classes of ``passes``.
"""

from . import functionalizations, view_scatters  # noqa: F401 - register their rules
from .table import DecompTable, default_decompositions, register_decomposition

__all__ = ["DecompTable", "default_decompositions", "register_decomposition"]
