"""The errors of lowering. Each is an xDSL PassFailedException (texport-opt and
xdsl-opt report it as a diagnostic) and a ValueError (what Python callers of
``run_decompositions`` catch)."""

from __future__ import annotations

from xdsl.utils.exceptions import PassFailedException


class LoweringError(PassFailedException, ValueError):
    """A pass could not lower the program; the message says what, and where."""


class LegalityError(LoweringError):
    """A program holds an op its level does not allow."""


class DecompositionError(LoweringError):
    """A decomposition failed or returned values that do not fit its op."""


class FunctionalizationError(LoweringError):
    """A write functionalize cannot express (a parameter, an expanded view...)."""
