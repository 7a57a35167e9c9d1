"""What decompositions share: op handles and small shape helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from texport.dialects.dtypes import DType
from texport.dialects.handles import ops
from texport.tracer.tensor import Tensor

from ..table import register_decomposition

aten = ops.aten

__all__ = ["DType", "Tensor", "aten", "canonical_dim", "numel", "register_decomposition", "shape_of"]


def canonical_dim(dim: int, rank: int) -> int:
    """A dim in [0, rank) (negative dims count from the end; a 0-d tensor has dim 0)."""
    if rank == 0:
        return 0
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    return dim % rank


def shape_of(x: Tensor) -> list[Any]:
    return list(x.shape)


def numel(sizes: Sequence[Any]) -> Any:
    total: Any = 1
    for size in sizes:
        total = total * size
    return total
