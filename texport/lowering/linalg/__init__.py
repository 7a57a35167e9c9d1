"""Below core: passes from the core dialect to upstream MLIR (linalg, tensor,
arith, math, scf, func), one per family of ops, and ``lower-core-to-linalg``
running them all; ``legalize-linalg`` names an op left behind."""

from .passes import LINALG_PASSES, lower_to_linalg, lower_to_linalg_text

__all__ = ["LINALG_PASSES", "lower_to_linalg", "lower_to_linalg_text"]
