"""Run an op's shape rule from a Python-style call."""

from __future__ import annotations

from typing import Any

from ..registry import lookup_op
from ..schema import bind_arguments
from . import SHAPE_RULES


def infer(op_name: str, *args: Any, **kwargs: Any) -> Any:
    """``infer("add.Tensor", a, b, alpha=2)``: bind by schema, run the rule."""
    schema = lookup_op(op_name).schema
    return SHAPE_RULES[op_name](*bind_arguments(schema, args, kwargs))
