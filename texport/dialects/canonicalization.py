"""The canonicalization patterns of the ATen ops, one registry keyed by op.

Every generated op class carries ``RegisteredCanonicalizations``, xDSL's
canonicalization trait: stock ``canonicalize`` (texport-opt, xdsl-opt) asks it
for an op's patterns, and it reads them from ``CANONICALIZATIONS`` at that
moment. The rules themselves are written in lowering/ (rules.CANONICALIZE),
which registers them here: dialects never import the layer above.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait

from .registry import Registry

CANONICALIZATIONS: Registry[RewritePattern] = Registry("canonicalization pattern", stage="canonicalizations")


@dataclass(frozen=True)
class RegisteredCanonicalizations(HasCanonicalizationPatternsTrait):
    """An ATen op's canonicalization pattern: the one registered for its key, if any."""

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        pattern = CANONICALIZATIONS.get(op.op_def.key)
        return () if pattern is None else (pattern,)

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()  # per op: see get_patterns
