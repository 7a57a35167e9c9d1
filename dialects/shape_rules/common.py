"""Helpers shared by the shape-rule families."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..dtypes import DType, result_type
from ..meta import TensorMeta
from ..symbolic import Dim, dim_str
from .guards import ShapeGuardError, check, sym_eq


def normalize_dim(dim: int, ndim: int, *, what: str = "dim") -> int:
    """Wrap a negative dim; a 0-d tensor accepts dims -1 and 0 (as torch)."""
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise ShapeGuardError(
            f"{what} out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})"
        )
    return dim + bound if dim < 0 else dim


def normalize_dims(dims: Sequence[int] | int | None, ndim: int) -> list[int]:
    """Normalise a dim list; None or [] means every dim (reductions)."""
    if dims is None:
        return list(range(ndim))
    if isinstance(dims, int):
        dims = [dims]
    if len(dims) == 0:
        return list(range(ndim))
    out = [normalize_dim(d, ndim) for d in dims]
    check(len(set(out)) == len(out), f"dim {dims} appears multiple times in the list of dims")
    return out


def shape_text(shape: Sequence[Dim | None]) -> str:
    return "[" + ", ".join("?" if d is None else dim_str(d) for d in shape) + "]"


def broadcast_shapes(*shapes: Sequence[Dim]) -> tuple[Dim, ...]:
    """numpy/torch broadcasting over symbolic dims."""
    ndim = max((len(s) for s in shapes), default=0)
    out: list[Dim] = [1] * ndim
    for shape in shapes:
        offset = ndim - len(shape)
        for i, size in enumerate(shape):
            current = out[offset + i]
            if sym_eq(size, 1):
                continue
            if sym_eq(current, 1) or sym_eq(current, size):
                out[offset + i] = size
                continue
            raise ShapeGuardError(
                f"The size of tensor a ({dim_str(current)}) must match the size of tensor b "
                f"({dim_str(size)}) at non-singleton dimension {offset + i}: shapes "
                + " and ".join(shape_text(s) for s in shapes)
            )
    return tuple(out)


def shape_of(value: Any) -> tuple[Dim, ...]:
    """Shape of a tensor meta, or () for a Python scalar used as a tensor."""
    return value.shape if isinstance(value, TensorMeta) else ()


def binary_result_dtype(*operands: Any) -> DType:
    return result_type(*operands)


def product(values: Sequence[Dim]) -> Dim:
    total: Dim = 1
    for value in values:
        total = total * value
    return total


def to_float_dtype(dtype: DType) -> DType:
    """Integral and bool inputs of float-valued ops (sin, mean...) give float32."""
    return dtype if dtype.is_floating_point or dtype.is_complex else DType.float32
