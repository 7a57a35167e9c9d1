"""Shape (meta) rules: pure functions from symbolic argument metadata to result metadata.

A rule takes the op's arguments in schema order (defaults filled in): tensors
as TensorMeta (None for an absent Tensor?), tensor lists as lists, SymInts as
int or sympy expressions, ScalarType as DType. It returns a TensorMeta, a
tuple of them (tuple returns), a list (Tensor[] returns) or a ScalarMeta.
The tracer and the IR verifier both call these, so they cannot disagree.
In-place variants (``add_``) and view copies (``permute_copy``) have no rule of
their own: load_all derives theirs from the functional twin's and the view's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import bootstrap
from ..registry import Registry
from ..tags import import_families

ShapeRule = Callable[..., Any]

SHAPE_RULES: Registry[ShapeRule] = Registry("shape rule", stage="shape rules")


def shape_rule(*names: str) -> Callable[[ShapeRule], ShapeRule]:
    """Register one rule for the named ops (``add.Tensor``, ``relu``...)."""
    return SHAPE_RULES.decorator(*names)


def load_all() -> None:
    """Start-up stage "shape rules" (dialects/bootstrap.py): import the rule module of
    every family (each registers on import), then register the rules derived
    from theirs: in-place variants and view copies."""
    bootstrap.start(SHAPE_RULES.stage)  # called from outside, it runs through the start-up
    import_families(__name__)
    from . import variants

    variants.derive_rules()
