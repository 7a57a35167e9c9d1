"""The one table of linalg lowerings: op key → (family, function).

A key is an ATen op's registry key (``aten.relu.default``) or the name of
another texport op (``tx.mul``, ``control.cond``). A function takes the
``Lowering`` of one op and returns its results in upstream types (None for a
result nothing uses, where computing it would be wasted)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from texport.dialects.aten import AtenOp

from .builder import Lowering

LowerFn = Callable[[Lowering], Sequence[SSAValue | None]]

# The families, one pass each (``lower-core-to-linalg-<family>``), in the
# order ``lower-core-to-linalg`` lists them.
FAMILIES = ("scalars", "pointwise", "matmul", "conv-pool", "reductions", "norms", "views", "indexing", "control")


@dataclass(frozen=True)
class LinalgLowering:
    family: str
    lower: LowerFn


LOWERINGS: dict[str, LinalgLowering] = {}


def lowers(family: str, *keys: str) -> Callable[[LowerFn], LowerFn]:
    """Register ``function`` as the lowering of the ops ``keys``."""
    if family not in FAMILIES:
        raise ValueError(f"unknown lowering family {family!r} (known: {', '.join(FAMILIES)})")

    def register(function: LowerFn) -> LowerFn:
        for key in keys:
            if key in LOWERINGS:
                raise ValueError(f"{key} has a linalg lowering already (in {LOWERINGS[key].family})")
            LOWERINGS[key] = LinalgLowering(family, function)
        return function

    return register


def op_key(op: Operation) -> str:
    return op.op_def.key if isinstance(op, AtenOp) else op.name
