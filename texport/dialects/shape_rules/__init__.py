"""Shape (meta) rules: pure functions from symbolic argument metadata to result metadata.

A rule takes the op's arguments in schema order (defaults filled in): tensors
as TensorMeta (None for an absent Tensor?), tensor lists as lists, SymInts as
int or sympy expressions, ScalarType as DType. It returns a TensorMeta, a
tuple of them (tuple returns), a list (Tensor[] returns) or a ScalarMeta.
The tracer and the IR verifier both call these, so they cannot disagree.
In-place variants (``add_``) and view copies (``permute_copy``) have no rule of
their own: the start-up (loader.py) derives theirs from the functional twin's and the view's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..registry import Registry

ShapeRule = Callable[..., Any]

SHAPE_RULES: Registry[ShapeRule] = Registry("shape rule", stage="shape rules")


def shape_rule(*names: str) -> Callable[[ShapeRule], ShapeRule]:
    """Register one rule for the named ops (``add.Tensor``, ``relu``...)."""
    return SHAPE_RULES.decorator(*names)
