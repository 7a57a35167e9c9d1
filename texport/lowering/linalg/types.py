"""texport's types as upstream MLIR's: ``!tx.tensor<[s0, 3], f32>`` is
``tensor<?x3xf32>``, a size (``!tx.symint``) is an ``index``, a size
comparison (``!tx.symbool``) an ``i1``.

Upstream arith and linalg take signless integers only, so ``ui8`` becomes
``i8`` (the ops that care about unsignedness choose the unsigned arith op)
and bool is ``i1``."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute

from texport.dialects.dtypes import DType
from texport.dialects.symbolic import is_static
from texport.dialects.tx import SymBoolType, SymIntType
from texport.dialects.tx import TensorType as TxTensorType
from texport.dialects.tx import element_type as tx_element_type

# texport's element types (tx.element_type), signless: upstream has no ui8 nor complex
_ELEMENTS: dict[DType, Attribute] = {
    dtype: IntegerType(8) if dtype is DType.uint8 else tx_element_type(dtype)
    for dtype in DType if dtype.kind != "c"
}


class UnsupportedType(ValueError):
    """A texport type upstream MLIR's tensors cannot hold (complex numbers)."""


def element_type(dtype: DType) -> Attribute:
    try:
        return _ELEMENTS[dtype]
    except KeyError:
        raise UnsupportedType(f"no upstream element type for {dtype.name}") from None


def tensor_type(tx_type: TxTensorType) -> TensorType:
    shape = [dim if is_static(dim) else DYNAMIC_INDEX for dim in tx_type.shape]
    return TensorType(element_type(tx_type.dtype), shape)


def upstream_type(attr: Attribute) -> Attribute:
    """The upstream type of a texport value's type (tensors and sizes); others unchanged."""
    if isinstance(attr, TxTensorType):
        return tensor_type(attr)
    if isinstance(attr, SymIntType):
        return IndexType()
    if isinstance(attr, SymBoolType):
        return IntegerType(1)
    return attr


_OPMATH = {DType.float16: DType.float32, DType.bfloat16: DType.float32}


def opmath_dtype(dtype: DType) -> DType:
    """The dtype torch computes ``dtype`` in (its opmath type): float32 for float16
    and bfloat16, else ``dtype`` itself."""
    return _OPMATH.get(dtype, dtype)


def is_unsigned(dtype: DType) -> bool:
    """bool and uint8 compare, divide and widen unsigned (upstream's integers are signless)."""
    return dtype in (DType.bool, DType.uint8)


def is_float(element: Attribute) -> bool:
    return isinstance(element, (Float16Type, BFloat16Type, Float32Type, Float64Type))


def extreme_identity(element: Attribute, maximum: bool, unsigned: bool = False) -> int | float:
    """The identity of max (the lowest value: -inf, or the integer minimum; 0 for bool and
    ``unsigned``) or of min (the highest: inf, or the integer maximum; all ones unsigned)."""
    if is_float(element):
        return -math.inf if maximum else math.inf
    width = element.width.data
    if unsigned or width == 1:
        return 0 if maximum else -1  # -1: all ones, the largest unsigned value
    return -(1 << (width - 1)) if maximum else (1 << (width - 1)) - 1
