"""Run an op's shape rule from a Python-style call."""

from __future__ import annotations

from typing import Any

from .. import op_table  # noqa: F401 - registers the table
from ..registry import lookup_op
from ..schema import bind_arguments
from . import SHAPE_RULES, load_all


def infer(op_name: str, *args: Any, **kwargs: Any) -> Any:
    """``infer("add.Tensor", a, b, alpha=2)``: bind by schema, run the rule."""
    load_all()
    schema = lookup_op(op_name).schema
    return SHAPE_RULES[op_name](*bind_arguments(schema, args, kwargs))
