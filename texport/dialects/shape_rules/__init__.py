"""Shape (meta) rules: pure functions from symbolic argument metadata to result metadata.

A rule takes the op's arguments in schema order (defaults filled in): tensors
as TensorMeta (None for an absent Tensor?), tensor lists as lists, SymInts as
int or sympy expressions, ScalarType as DType. It returns a TensorMeta, a
tuple of them (tuple returns), a list (Tensor[] returns) or a ScalarMeta.
The tracer and the IR verifier both call these, so they cannot disagree.
In-place variants (``add_``) and view copies (``permute_copy``) have no rule of
their own: the start-up (loader.py) derives theirs from the functional twin's and the view's.

A stride rule says how an op lays its results out (strides.py): it takes the
shape rule's result, then the op's arguments as the shape rule does (tensors
carrying their strides), and returns the result's strides (a list of them for
several results; None: row-major). Views have one each, beside their shape
rule; elementwise ops and in-place variants get theirs derived; an op without
one makes row-major tensors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..registry import Registry

ShapeRule = Callable[..., Any]
StrideRule = Callable[..., Any]

SHAPE_RULES: Registry[ShapeRule] = Registry("shape rule", stage="shape rules")
STRIDE_RULES: Registry[StrideRule] = Registry("stride rule", stage="shape rules")


def shape_rule(*names: str) -> Callable[[ShapeRule], ShapeRule]:
    """Register one rule for the named ops (``add.Tensor``, ``relu``...)."""
    return SHAPE_RULES.decorator(*names)


def stride_rule(*names: str) -> Callable[[StrideRule], StrideRule]:
    """Register one stride rule for the named ops (``permute``, ``clone``...)."""
    return STRIDE_RULES.decorator(*names)


def reads_strides(rule: ShapeRule) -> ShapeRule:
    """Mark a shape rule whose answer depends on its tensor's strides
    (``sym_stride.int``): whoever runs it must pass the real strides."""
    rule.reads_strides = True  # type: ignore[attr-defined]
    return rule
