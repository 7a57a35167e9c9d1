"""What decompositions share: op handles, small shape helpers, and torch's
reshape (a view when the strides allow it, else a copy)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from texport.dialects.dtypes import DType
from texport.dialects.meta import TensorMeta
from texport.dialects.shape_rules.strides import is_contiguous as contiguous_meta
from texport.dialects.shape_rules.strides import view_strides
from texport.tracer.handles import ops
from texport.tracer.tensor import Tensor
from texport.tracer.tracing import layout_of

from ..table import register_decomposition

aten = ops.aten

__all__ = ["DType", "Tensor", "aten", "can_view", "canonical_dim", "cast_to", "contiguous", "is_contiguous",
           "numel", "register_decomposition", "reshape_to", "shape_of"]


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


def _dim(size: Any) -> Any:
    """A size as the shape rules take it (a traced SymInt's expression)."""
    return getattr(size, "expr", size)


def is_contiguous(x: Tensor, memory_format: Any = "contiguous_format") -> bool:
    """Whether torch sees ``x`` as laid out in ``memory_format`` (its strides are
    read off the ops that made it: dialects/layout.py)."""
    dims, strides = layout_of(x)
    return contiguous_meta(TensorMeta(dims, x.dtype, strides), memory_format)


def can_view(x: Tensor, shape: Sequence[Any]) -> bool:
    """Whether ``view(x, shape)`` is legal: strides can express it (ATen's computeStride)."""
    dims, strides = layout_of(x)
    return strides is None or view_strides(dims, strides, [_dim(s) for s in shape]) is not None


# contiguous(x) = x when contiguous, else clone(x, contiguous_format)
def contiguous(x: Tensor, memory_format: Any = "contiguous_format") -> Tensor:
    """x.contiguous(): x itself when torch sees it so laid out, else a clone that is."""
    return x if is_contiguous(x, memory_format) else aten.clone.default(x, memory_format=memory_format)


# reshape(x, s) = view(x, s) when the strides allow it, else view(clone(x), s)
def reshape_to(x: Tensor, shape: list[Any]) -> Tensor:
    """torch's reshape (ATen's reshape_symint, ``shape`` without -1): a view when
    x's strides can express the shape, else a row-major copy, viewed (torch's
    _unsafe_view of the clone, which core decomposes to a view)."""
    if not can_view(x, shape):
        return aten._unsafe_view.default(aten.clone.default(x, memory_format="contiguous_format"), shape)
    return aten.view.default(x, shape)
