"""lowering: how IR changes — passes, decomposition tables, declarative rewrite
patterns, pipelines and per-level legality checks.

Public names: ``default_decompositions``, ``register_decomposition``,
``DecompTable`` (alias ``CustomDecompTable``); ``run.run_decompositions``
(what ``ExportedProgram.run_decompositions`` calls) and the pass classes of
``passes`` (registered by name in texport.universe).
"""

from .default_table import default_decompositions
from .table import CustomDecompTable, DecompTable, register_decomposition

__all__ = ["CustomDecompTable", "DecompTable", "default_decompositions", "register_decomposition"]
