"""Element types with torch's names and torch's type-promotion rules.

The xDSL side (f32, i64, ...) lives in tx.py; numpy names are plain strings
so that this layer needs no numpy.
"""

from __future__ import annotations

import enum
from typing import Any


class DType(enum.Enum):
    """A torch dtype: (torch name, short IR name, torch ScalarType number, itemsize, kind).

    kind: 'b' bool, 'u' unsigned int, 'i' signed int, 'f' float, 'c' complex.
    """

    uint8 = ("uint8", "ui8", 0, 1, "u")
    int8 = ("int8", "i8", 1, 1, "i")
    int16 = ("int16", "i16", 2, 2, "i")
    int32 = ("int32", "i32", 3, 4, "i")
    int64 = ("int64", "i64", 4, 8, "i")
    float16 = ("float16", "f16", 5, 2, "f")
    float32 = ("float32", "f32", 6, 4, "f")
    float64 = ("float64", "f64", 7, 8, "f")
    complex64 = ("complex64", "complex<f32>", 9, 8, "c")
    complex128 = ("complex128", "complex<f64>", 10, 16, "c")
    bool = ("bool", "i1", 11, 1, "b")
    bfloat16 = ("bfloat16", "bf16", 15, 2, "f")

    def __init__(self, torch_name: str, ir_name: str, scalar_type: int, itemsize: int, kind: str):
        self.torch_name = torch_name
        self.ir_name = ir_name
        self.scalar_type = scalar_type
        self.itemsize = itemsize
        self.kind = kind

    @property
    def is_floating_point(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_integral(self) -> bool:
        """Integral, bool excluded (torch's isIntegralType(t, includeBool=False))."""
        return self.kind in "ui"

    @property
    def numpy_name(self) -> str:
        """The numpy dtype's name (bfloat16 is ml_dtypes' type: interpreter/dtypes.py)."""
        return self.torch_name

    @property
    def short_name(self) -> str:
        """torch's print_readable prefix: f32, i64, b8, bf16, c64, u8."""
        return _SHORT[self]

    def __repr__(self) -> str:
        return f"texport.{self.torch_name}"

    __str__ = __repr__


_SHORT = {
    DType.uint8: "u8", DType.int8: "i8", DType.int16: "i16", DType.int32: "i32",
    DType.int64: "i64", DType.float16: "f16", DType.float32: "f32", DType.float64: "f64",
    DType.complex64: "c64", DType.complex128: "c128", DType.bool: "b8", DType.bfloat16: "bf16",
}
BY_SCALAR_TYPE = {d.scalar_type: d for d in DType}
BY_IR_NAME = {d.ir_name: d for d in DType}
DEFAULT_FLOAT = DType.float32
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_TO_COMPLEX = {DType.float64: DType.complex128}


def category(dtype: DType) -> int:
    """0 bool, 1 integral, 2 floating, 3 complex: the order promotion respects."""
    return _CATEGORY[dtype.kind]


def promote_types(a: DType, b: DType) -> DType:
    """torch.promote_types."""
    if a is b:
        return a
    if a is DType.bool:
        return b
    if b is DType.bool:
        return a
    ca, cb = category(a), category(b)
    if ca != cb:
        high, low = (a, b) if ca > cb else (b, a)
        if high.is_complex and low is DType.float64:
            return DType.complex128
        return high
    if ca == 1:
        if {a, b} == {DType.uint8, DType.int8}:
            return DType.int16
        return a if a.itemsize >= b.itemsize else b
    if ca == 2:
        if {a, b} == {DType.float16, DType.bfloat16}:
            return DType.float32
        return a if a.itemsize >= b.itemsize else b
    return a if a.itemsize >= b.itemsize else b


def _combine_categories(higher: DType | None, lower: DType | None) -> DType | None:
    """torch's combine_categories: a higher-priority class wins unless the
    lower one has a strictly higher category."""
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return _TO_COMPLEX.get(higher, DType.complex64) if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is DType.bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(value: Any) -> DType:
    """The dtype a Python scalar takes as a wrapped number (bool before int)."""
    if isinstance(value, bool):
        return DType.bool
    if isinstance(value, int):
        return DType.int64
    if isinstance(value, complex):
        return DType.complex64
    if isinstance(value, float):
        return DEFAULT_FLOAT
    kind = getattr(value, "scalar_kind", None)  # symbolic scalars carry their kind
    if kind is not None:
        return {"int": DType.int64, "float": DEFAULT_FLOAT, "bool": DType.bool}[kind]
    raise TypeError(f"expected a Python scalar, found {type(value).__name__}")


def result_type(*operands: Any) -> DType:
    """torch.result_type over tensors (objects with .dtype and .shape) and scalars.

    Three priority classes, as torch: tensors with dims, zero-dim tensors,
    Python scalars (wrapped numbers)."""
    classes: list[DType | None] = [None, None, None]
    for operand in operands:
        if operand is None:
            continue
        dtype = getattr(operand, "dtype", None)
        if dtype is None:
            slot, dtype = 2, scalar_dtype(operand)
        else:
            slot = 0 if len(operand.shape) > 0 else 1
        current = classes[slot]
        classes[slot] = dtype if current is None else promote_types(current, dtype)
    result = _combine_categories(classes[0], _combine_categories(classes[1], classes[2]))
    if result is None:
        raise ValueError("result_type needs at least one operand")
    return result
