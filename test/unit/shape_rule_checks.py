"""Shared test helpers for shape rules: metadata builders, the expected-error
context and an oracle that decides symbolic conditions from example values."""

from __future__ import annotations

import re
from typing import Any

import pytest
import sympy

from texport.dialects.dtypes import DType
from texport.dialects.meta import TensorMeta
from texport.dialects.shape_rules.guards import ShapeGuardError
from texport.dialects.symbolic import symbol


def t(*shape: Any, dtype: DType = DType.float32) -> TensorMeta:
    """A tensor's metadata: ``t(s0, 3)`` is a float32 tensor of shape [s0, 3]."""
    return TensorMeta(tuple(shape), dtype)


def raises(message: str) -> Any:
    """The block raises ShapeGuardError whose message contains ``message``."""
    return pytest.raises(ShapeGuardError, match=re.escape(message))


class HintOracle:
    """What the tracer's ShapeEnv does: answer a condition from example values
    (``HintOracle(s0=8)``) and record every condition it was asked."""

    def __init__(self, **hints: int) -> None:
        self.hints = {symbol(name): value for name, value in hints.items()}
        self.asked: list[sympy.Basic] = []

    def decide(self, condition: sympy.Basic) -> bool:
        self.asked.append(condition)
        return bool(condition.subs(self.hints))
