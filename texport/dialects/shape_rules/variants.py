"""Shape rules derived from other rules: the in-place variant of a functional
op, the copy of a view."""

from __future__ import annotations

import functools
from typing import Any

from ..meta import TensorMeta
from ..registry import OpDef, derive_missing, functional_twin
from . import SHAPE_RULES, ShapeRule
from .common import check_inplace


def derive_rules() -> None:
    """Register the rule of each in-place op from its functional twin's, and of
    each view copy from its view's. An op whose rule is written by hand keeps
    it (torch gives cumsum_ its own dtype rule)."""
    derive_missing(SHAPE_RULES, derived_rule)


def derived_rule(op_def: OpDef) -> ShapeRule | None:
    if op_def.copied_view is not None:
        return SHAPE_RULES[op_def.copied_view]  # a copy has its view's shape and dtype
    twin = functional_twin(op_def)
    return None if twin is None else in_place(SHAPE_RULES[twin.key])


def in_place(functional: ShapeRule) -> ShapeRule:
    """``x.op_(...)`` writes ``op(x, ...)`` into x: the result must fit x's shape
    and cast to x's dtype; the result is x."""

    # wraps: the entry keeps its source's module, so it reads as part of its family
    @functools.wraps(functional)
    def rule(self: TensorMeta, *args: Any) -> TensorMeta:
        return check_inplace(self, functional(self, *args))

    rule.__name__ = rule.__qualname__ = f"{functional.__name__}_inplace"
    return rule
