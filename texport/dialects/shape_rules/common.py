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


def broadcasts_to(shape: Sequence[Dim], target: Sequence[Dim]) -> bool:
    """An operand of ``shape`` broadcasts to ``target`` without widening it."""
    if len(shape) > len(target):
        return False
    lead = len(target) - len(shape)
    return all(sym_eq(s, 1) or sym_eq(s, t) for s, t in zip(shape, target[lead:]))


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


# Added for the elementwise/reduction/norm rules; shared by any in-place or reduction rule.

_SCALAR_TYPE_NAMES = {
    DType.uint8: "Byte", DType.int8: "Char", DType.int16: "Short", DType.int32: "Int",
    DType.int64: "Long", DType.float16: "Half", DType.float32: "Float", DType.float64: "Double",
    DType.complex64: "ComplexFloat", DType.complex128: "ComplexDouble", DType.bool: "Bool",
    DType.bfloat16: "BFloat16",
}


def scalar_type_name(dtype: DType) -> str:
    """torch's ScalarType spelling in error messages: Float, Long, Bool."""
    return _SCALAR_TYPE_NAMES[dtype]


def can_cast(source: DType, target: DType) -> bool:
    """torch.can_cast: never complex -> real, float -> integral/bool, or non-bool -> bool."""
    if source.is_complex and not target.is_complex:
        return False
    if source.is_floating_point and not (target.is_floating_point or target.is_complex):
        return False
    return source is DType.bool or target is not DType.bool


def check_inplace(self: TensorMeta, result: TensorMeta) -> TensorMeta:
    """An in-place op writes ``result`` into self: same shape, castable dtype. Returns self."""
    same = len(result.shape) == len(self.shape) and all(
        sym_eq(a, b) for a, b in zip(self.shape, result.shape)
    )
    if not same:
        raise ShapeGuardError(
            f"output with shape {shape_text(self.shape)} doesn't match the broadcast shape "
            f"{shape_text(result.shape)}"
        )
    if not can_cast(result.dtype, self.dtype):
        raise ShapeGuardError(
            f"result type {scalar_type_name(result.dtype)} can't be cast to the desired output "
            f"type {scalar_type_name(self.dtype)}"
        )
    return self


def reduced_shape(shape: Sequence[Dim], dims: Sequence[int], keepdim: bool) -> tuple[Dim, ...]:
    """Shape after reducing the normalised ``dims``: 1 with keepdim, else dropped."""
    reduced = set(dims)
    if keepdim:
        return tuple(1 if i in reduced else size for i, size in enumerate(shape))
    return tuple(size for i, size in enumerate(shape) if i not in reduced)
