"""Shape rules derived from other rules: the in-place variant of a functional
op, the copy of a view; and the stride rules of in-place and pointwise ops."""

from __future__ import annotations

import functools
from typing import Any

from ..meta import TensorMeta
from ..registry import OpDef, derive_missing, functional_twin
from ..schema import OpSchema
from . import SHAPE_RULES, STRIDE_RULES, ShapeRule, StrideRule
from .common import check_inplace
from .strides import Strides, elementwise_strides


def derive_rules() -> None:
    """Register the rule of each in-place op from its functional twin's, and of
    each view copy from its view's. An op whose rule is written by hand keeps
    it (torch gives cumsum_ its own dtype rule). Then the stride rules: an op
    that returns the tensor it writes keeps that tensor's strides, a pointwise
    op lays its result out as torch's TensorIterator does; a view copy, like
    any op without a stride rule, makes a row-major tensor."""
    derive_missing(SHAPE_RULES, derived_rule)
    derive_missing(STRIDE_RULES, derived_stride_rule)


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


def derived_stride_rule(op_def: OpDef) -> StrideRule | None:
    written = tuple(written_arguments(op_def.schema))
    if any(index is not None for index in written):
        return _keeps_written(written)
    if op_def.has_tag("pointwise"):
        return _elementwise_strides
    return None


def written_arguments(schema: OpSchema) -> list[int | None]:
    """For each return, the index of the argument it writes and returns, or None."""
    written: list[int | None] = []
    for ret in schema.returns:
        alias = ret.alias
        written.append(None if alias is None or not alias.is_write else next(
            (i for i, arg in enumerate(schema.arguments)
             if arg.alias is not None and arg.alias.before == alias.before), None))
    return written


def _keeps_written(written: tuple[int | None, ...]) -> StrideRule:
    def rule(out: Any, *args: Any) -> Any:
        """An in-place op returns the very tensor it writes: that tensor's strides."""
        strides = [None if index is None else args[index].strides for index in written]
        return strides if isinstance(out, (tuple, list)) else strides[0]

    return rule


def _elementwise_strides(out: Any, *args: Any) -> Any:
    """torch's TensorIterator layout (strides.py); row-major inputs, row-major results."""
    several = isinstance(out, (tuple, list))
    for arg in args:
        if type(arg) is TensorMeta and arg.strides is not None:
            strides: Strides | None = elementwise_strides((out[0] if several else out).shape, args)
            return [strides] * len(out) if several else strides
    return [None] * len(out) if several else None
