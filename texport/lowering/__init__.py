"""lowering: how IR changes — passes, decomposition tables, declarative rewrite
patterns, pipelines and per-level legality checks.

Public names: ``default_decompositions``, ``register_decomposition``,
``DecompTable`` (alias ``CustomDecompTable``); ``pipeline.decomposition_pipeline``
(the passes ``ExportedProgram.run_decompositions`` runs) and the pass classes of
``passes`` (registered by name in texport.universe). Importing lowering
registers nothing: the start-up (dialects/bootstrap.py) does, when a registry
is first read.
"""

from .default_table import CustomDecompTable, default_decompositions
from .table import DecompTable, register_decomposition

__all__ = ["CustomDecompTable", "DecompTable", "default_decompositions", "register_decomposition"]
