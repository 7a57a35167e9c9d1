"""What decompositions share: op handles and small shape helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from texport.dialects.dtypes import DType
from texport.tracer.handles import ops
from texport.tracer.tensor import Tensor

from ..table import register_decomposition

aten = ops.aten

__all__ = ["DType", "Tensor", "aten", "canonical_dim", "cast_to", "is_contiguous", "numel",
           "register_decomposition", "reshape_to", "shape_of"]


def canonical_dim(dim: int, rank: int) -> int:
    """A dim in [0, rank) (negative dims count from the end; a 0-d tensor has dim 0)."""
    if rank == 0:
        return 0
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    return dim % rank


def cast_to(x: Tensor, dtype: DType | None) -> Tensor:
    """``x`` in ``dtype`` (None: as it is)."""
    if dtype is None or dtype is x.dtype:
        return x
    return aten._to_copy.default(x, dtype=dtype)


def shape_of(x: Tensor) -> list[Any]:
    return list(x.shape)


def numel(sizes: Sequence[Any]) -> Any:
    total: Any = 1
    for size in sizes:
        total = total * size
    return total


def is_contiguous(x: Tensor) -> bool:
    """Whether torch would see ``x`` as contiguous: false for a permuted,
    expanded or strided view, or a slice/select past the leading dim (the IR has
    no strides: the layout is read from the op that made the value)."""
    owner = getattr(getattr(x._value, "ssa", None), "owner", None)
    op_def = getattr(owner, "op_def", None)
    if op_def is None:
        return True
    name = op_def.schema.name
    if name == "permute":
        return list(owner.arguments()[1]) == sorted(owner.arguments()[1])
    if op_def.has_tag("strided_view"):
        return False
    if name in ("slice", "select"):
        args = owner.arguments()
        return args[1] % max(len(owner.operands[0].type.shape), 1) == 0 and (name == "select" or args[4] == 1)
    return True


def reshape_to(x: Tensor, shape: list[Any]) -> Tensor:
    """torch's reshape: a view, after a contiguous copy when ``x`` is laid out
    so that the view cannot express the new shape."""
    if not is_contiguous(x):
        x = aten.clone.default(x, memory_format="contiguous_format")
    return aten.view.default(x, shape)
