"""lowering: how IR changes — passes, decomposition tables, declarative rewrite
patterns, pipelines and per-level legality checks.

Public names: ``default_decompositions``, ``register_decomposition``,
``DecompTable`` (alias ``CustomDecompTable``); ``pipeline.decomposition_pipeline``
(the passes ``ExportedProgram.run_decompositions`` runs) and the pass classes of
``passes`` (registered by name in texport.universe). Importing lowering
registers its rules: functionalizations, view scatters, and the algebraic
rules of ``rules.CANONICALIZE`` as the ops' canonicalization patterns.
"""

from . import functionalizations, rules, view_scatters  # noqa: F401 - register their rules
from .default_table import default_decompositions
from .table import CustomDecompTable, DecompTable, register_decomposition

__all__ = ["CustomDecompTable", "DecompTable", "default_decompositions", "register_decomposition"]
