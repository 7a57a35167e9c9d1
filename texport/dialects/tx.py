"""The ``tx`` base dialect: the symbolic tensor type, symbolic scalars, and
ops on symbolic integers (constants, arithmetic, comparisons, runtime asserts).

    !tx.tensor<[s0, 3, 2*s0 + 1], f32>     a tensor whose dims are sympy expressions
    !tx.symint<2*s0>                        a symbolic int SSA value (its expression)
    %c = tx.constant 2 : !tx.symint<2>
    %m = tx.mul %a, %c : !tx.symint<2*s0>
    tx.assert %ok, "Runtime assertion failed for expression u0 >= 0"
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    ComplexType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Data, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from texport.dialects._lazy import sympy  # loaded on first use

from .asm import parse_defined_operand, string_literal
from .dtypes import BY_IR_NAME, DType
from .meta import TensorMeta
from .symbolic import (
    MAX_TENSOR_DEGREE,
    MAX_TENSOR_TERMS,
    Dim,
    DimSyntaxError,
    dim_size,
    dim_str,
    parse_dim,
    parse_scalar_expr,
    parse_tensor_dim,
    to_dim,
)

# --------------------------------------------------------------------------
# Element types: xDSL builtin types <-> DType
# --------------------------------------------------------------------------

_ELEMENT_TYPES: dict[DType, Attribute] = {
    DType.float32: Float32Type(), DType.float64: Float64Type(), DType.float16: Float16Type(),
    DType.bfloat16: BFloat16Type(), DType.int64: IntegerType(64), DType.int32: IntegerType(32),
    DType.int16: IntegerType(16), DType.int8: IntegerType(8), DType.bool: IntegerType(1),
    DType.uint8: IntegerType(8, Signedness.UNSIGNED),
    DType.complex64: ComplexType(Float32Type()), DType.complex128: ComplexType(Float64Type()),
}
_DTYPE_OF = {attr: dtype for dtype, attr in _ELEMENT_TYPES.items()}


def element_type(dtype: DType) -> Attribute:
    return _ELEMENT_TYPES[dtype]


def dtype_of(element: Attribute) -> DType:
    try:
        return _DTYPE_OF[element]
    except KeyError:
        raise VerifyException(f"unsupported tensor element type {element}") from None


# --------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------

_TENSOR_TEXT: dict[tuple[tuple[Dim, ...], DType], str] = {}
_TENSOR_PARSED: dict[str, tuple[tuple[Dim, ...], DType]] = {}


def _parse_dims_text(text: str) -> tuple[tuple[Dim, ...], DType] | tuple[str, int, int]:
    """Body of ``!tx.tensor<...>`` → (dims, dtype); on failure (message, start, end)
    with the offsets of the offending text inside the body (for a bad dim, its
    offending token)."""
    head, sep, elem = text.rpartition("]")
    head = head.strip()
    elem = elem.strip()
    if not sep or not head.startswith("[") or not elem.startswith(","):
        return "expected '[dims], element-type' in !tx.tensor<...>", 0, len(text)
    dtype = BY_IR_NAME.get(elem[1:].strip())
    if dtype is None:
        name = elem[1:].strip()
        start = text.rindex(name)
        return (
            f"unknown element type '{name}' (expected one of {', '.join(BY_IR_NAME)})",
            start, start + len(name),
        )
    inner_start = text.index("[") + 1
    if not head[1:].strip():
        return (), dtype
    dims = []
    offset = inner_start
    for part in _split_dims(head[1:]):
        try:
            dims.append(parse_tensor_dim(part))
        except DimSyntaxError as err:
            shown = part.strip() if len(part.strip()) <= 80 else part.strip()[:77] + "..."
            return f"invalid dim '{shown}' in !tx.tensor: {err}", offset + err.offset, \
                offset + err.offset + err.length
        offset += len(part) + 1
    too_large = _numel_too_large(dims)
    if too_large:
        return f"invalid dims in !tx.tensor: {too_large}", inner_start, inner_start + len(head) - 1
    return tuple(dims), dtype


def _numel_too_large(dims: list[Dim]) -> str | None:
    """Why the product of ``dims`` (the numel shape rules expand) is too large, or None."""
    if all(type(d) is int for d in dims):
        return None
    terms, degree = 1, 0
    for dim in dims:
        dim_terms, dim_degree = dim_size(dim)
        terms, degree = terms * dim_terms, degree + dim_degree
    if terms > MAX_TENSOR_TERMS:
        return f"their product expands to {terms} terms, more than the limit of {MAX_TENSOR_TERMS}"
    if degree > MAX_TENSOR_DEGREE:
        return f"their product has degree {degree}, more than the limit of {MAX_TENSOR_DEGREE}"
    return None


def _split_dims(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


@irdl_attr_definition
class TensorType(Data[tuple[tuple[Dim, ...], DType]], TypeAttribute):
    """``!tx.tensor<[s0, 3], f32>``: a tensor with symbolic dims and an element type.

    Printing and parsing are memoised on the text: models repeat few types."""

    name = "tx.tensor"

    @staticmethod
    def get(shape: Sequence[Dim], dtype: DType) -> TensorType:
        return TensorType((tuple(to_dim(d) for d in shape), dtype))

    @property
    def shape(self) -> tuple[Dim, ...]:
        return self.data[0]

    @property
    def dtype(self) -> DType:
        return self.data[1]

    @property
    def element_type(self) -> Attribute:
        return _ELEMENT_TYPES[self.data[1]]

    def numel(self) -> Dim:
        total: Dim = 1
        for dim in self.data[0]:
            total = total * dim
        return total

    @property
    def meta(self) -> TensorMeta:
        return TensorMeta(self.data[0], self.data[1])

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[tuple[Dim, ...], DType]:
        start = parser._current_token.span.start  # noqa: SLF001 - fast raw scan, xdsl pinned
        if parser._current_token.text != "<":  # noqa: SLF001
            parser.raise_error("expected '<' after !tx.tensor")
        body = parser._parse_dialect_symbol_body()  # noqa: SLF001
        parsed = _TENSOR_PARSED.get(body)
        if parsed is None:
            parsed = _parse_dims_text(body)
            if isinstance(parsed[0], str):
                message, first, last = parsed
                parser.raise_error(message, start + 1 + first, start + 1 + last)
            _TENSOR_PARSED[body] = parsed
        return parsed

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(tensor_body_text(self.data))

    def print_fast(self, printer: Printer) -> None:
        """Print ``!tx.tensor<...>`` from the memo, skipping the attribute dispatch."""
        printer.print_string("!tx.tensor" + tensor_body_text(self.data))

    def verify(self) -> None:
        dims, dtype = self.data
        if not isinstance(dtype, DType):
            raise VerifyException(f"tx.tensor element type must be a DType, got {dtype!r}")
        for dim in dims:
            if type(dim) is int and dim < 0:
                raise VerifyException(f"tx.tensor dims must be non-negative, got {dim}")


_TENSOR_TYPES: dict[str, TensorType] = {}


def tensor_type_from_body(body: str) -> TensorType | None:
    """The TensorType whose text is ``!tx.tensor<body>``, from the memo; None
    when the body does not parse (the caller then reports the error)."""
    cached = _TENSOR_TYPES.get(body)
    if cached is None:
        parsed = _TENSOR_PARSED.get(body) or _parse_dims_text(body)
        if isinstance(parsed[0], str):
            return None
        _TENSOR_PARSED[body] = parsed
        cached = _TENSOR_TYPES[body] = TensorType(parsed)
    return cached


def tensor_body_text(data: tuple[tuple[Dim, ...], DType]) -> str:
    text = _TENSOR_TEXT.get(data)
    if text is None:
        text = "<[" + ", ".join(dim_str(d) for d in data[0]) + "], " + data[1].ir_name + ">"
        _TENSOR_TEXT[data] = text
    return text


class _SymScalarType(ParametrizedAttribute, TypeAttribute):
    """Base of !tx.symint / !tx.symfloat / !tx.symbool: an optional expression."""

    KIND: ClassVar[str]
    expr: Attribute  # SymExprAttr, or NoExpr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        if parser._current_token.text != "<":  # noqa: SLF001
            return (SymExprAttr(None),)
        start = parser._current_token.span.start  # noqa: SLF001
        body = parser._parse_dialect_symbol_body()  # noqa: SLF001
        parse = parse_dim if cls.KIND == "int" else parse_scalar_expr  # a symint is integral
        return (SymExprAttr(_parse_located(parser, parse, body, start + 1)),)

    def print_parameters(self, printer: Printer) -> None:
        value = self.expr.data
        if value is not None:
            printer.print_string(f"<{dim_str(value)}>")

    @property
    def value(self) -> Dim | None:
        return self.expr.data


def _parse_located(parser: AttrParser, parse: Callable[[str], Dim], body: str, where: int) -> Dim:
    """``parse(body)``; a DimSyntaxError becomes a ParseError under its token
    (``where`` is the body's position in the input)."""
    try:
        return parse(body)
    except DimSyntaxError as err:
        shown = body.strip() if len(body.strip()) <= 80 else body.strip()[:77] + "..."
        parser.raise_error(f"invalid symbolic expression '{shown}': {err}", where + err.offset,
                           where + err.offset + err.length)


@irdl_attr_definition
class SymExprAttr(Data[object]):
    """A symbolic expression (int or sympy) held by !tx.symint; None if unknown."""

    name = "tx.expr"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> object:
        start = parser._current_token.span.start  # noqa: SLF001
        body = parser._parse_dialect_symbol_body()  # noqa: SLF001
        return _parse_located(parser, parse_scalar_expr, body, start + 1) if body.strip() != "?" else None

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string("<?>" if self.data is None else f"<{dim_str(self.data)}>")


@irdl_attr_definition
class SymIntType(_SymScalarType):
    """``!tx.symint<s0 + 1>``: a symbolic integer; ``!tx.symint`` if its value is unknown."""

    name = "tx.symint"
    KIND = "int"
    expr: SymExprAttr


@irdl_attr_definition
class SymFloatType(_SymScalarType):
    name = "tx.symfloat"
    KIND = "float"
    expr: SymExprAttr


@irdl_attr_definition
class SymBoolType(_SymScalarType):
    name = "tx.symbool"
    KIND = "bool"
    expr: SymExprAttr


def symint(value: Dim | None = None) -> SymIntType:
    return SymIntType(SymExprAttr(value))


SYM_TYPES = (SymIntType, SymFloatType, SymBoolType)


@irdl_attr_definition
class NoneAttr(ParametrizedAttribute):
    """``#tx.none``: an absent entry in a list argument such as ``Tensor?[] indices``."""

    name = "tx.none"


@irdl_attr_definition
class SSAMarkerAttr(ParametrizedAttribute):
    """``#tx.ssa``: in a list argument, 'the next SSA operand of this argument goes here'."""

    name = "tx.ssa"


# --------------------------------------------------------------------------
# Ops on symbolic integers
# --------------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A constant symbolic scalar: ``tx.constant 2 : !tx.symint<2>``,
    ``tx.constant 3.0 : !tx.symfloat<3.0>``."""

    name = "tx.constant"
    value = prop_def(IntegerAttr | FloatAttr)
    result = result_def(SymIntType | SymFloatType)
    traits = traits_def(Pure())

    def __init__(self, value: int | float) -> None:
        if isinstance(value, float):
            super().__init__(properties={"value": FloatAttr(value, f64)},
                             result_types=[SymFloatType(SymExprAttr(sympy.Float(value)))])
            return
        super().__init__(properties={"value": IntegerAttr(value, i64)}, result_types=[symint(value)])

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        start = parser.pos
        value = parser.parse_number()
        problem = _constant_problem(value)
        if problem is not None:
            parser.raise_error(f"tx.constant {problem}", start, parser._current_token.span.start)  # noqa: SLF001
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        attr = FloatAttr(value, f64) if isinstance(value, float) else IntegerAttr(value, i64)
        return cls.create(properties={"value": attr}, result_types=[parser.parse_type()], attributes=attrs)

    def print(self, printer: Printer) -> None:
        value = self.value.value.data
        printer.print_string(f" {value!r}" if isinstance(value, float) else f" {value}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        expected = self.value.value.data
        problem = _constant_problem(expected)
        if problem is not None:
            raise VerifyException(f"tx.constant {problem}")
        declared = self.result.type.value
        if declared is not None and declared != expected:
            raise VerifyException(
                f"tx.constant {expected} declares result type !tx.symint<{declared}>"
            )


def _constant_problem(value: int | float) -> str | None:
    """Why ``value`` cannot be a tx.constant (held as i64 or a finite f64, the
    only floats a float literal prints and parses back as)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, found {value}"
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return f"{value if value.bit_length() < 256 else 'literal'} is out of the int64 range"
    return None


class _BinarySymOp(IRDLOperation):
    """Integer arithmetic on symbolic ints; Python semantics (floor division/modulo).

    ``%m = tx.mul %a, %b : !tx.symint<2*s0>``"""

    lhs = operand_def(SymIntType | SymFloatType)
    rhs = operand_def(SymIntType | SymFloatType)
    result = result_def(SymIntType | SymFloatType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> _BinarySymOp:
        lhs = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        rhs = parse_defined_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.create(operands=[lhs, rhs], result_types=[parser.parse_type()], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class AddOp(_BinarySymOp):
    name = "tx.add"


@irdl_op_definition
class SubOp(_BinarySymOp):
    name = "tx.sub"


@irdl_op_definition
class MulOp(_BinarySymOp):
    name = "tx.mul"


@irdl_op_definition
class FloorDivOp(_BinarySymOp):
    name = "tx.floordiv"


@irdl_op_definition
class ModOp(_BinarySymOp):
    name = "tx.mod"


@irdl_op_definition
class MaxOp(_BinarySymOp):
    """torch.sym_max: the larger of two symbolic ints, without a guard on which."""

    name = "tx.max"


@irdl_op_definition
class MinOp(_BinarySymOp):
    name = "tx.min"


@irdl_op_definition
class ToFloatOp(IRDLOperation):
    """A symbolic int as a float (torch's sym_float): ``%f = tx.to_float %i : !tx.symfloat<s0>``."""

    name = "tx.to_float"
    input = operand_def(SymIntType)
    result = result_def(SymFloatType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> ToFloatOp:
        value = parse_defined_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.create(operands=[value], result_types=[parser.parse_type()], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


# Python's spelling of each symbolic operation: the one table the executor's
# generated code, the xDSL interpreter functions, the readable listing and
# constant folding all read.
PYTHON_OPERATORS = {"tx.add": "+", "tx.sub": "-", "tx.mul": "*", "tx.floordiv": "//", "tx.mod": "%"}
# Symbolic ops that are a Python function of their operands: op -> (Python builtin, torch's name)
PYTHON_FUNCTIONS = {"tx.max": ("max", "torch.sym_max"), "tx.min": ("min", "torch.sym_min")}
PREDICATES = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
COMPARISONS = tuple(PREDICATES)
_EVALUATE = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
             "%": operator.mod, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
             "<=": operator.le, ">": operator.gt, ">=": operator.ge, "max": max, "min": min}


def evaluate(python_operator: str, lhs: object, rhs: object) -> object:
    """Apply a symbolic op's Python operator to concrete values."""
    return _EVALUATE[python_operator](lhs, rhs)


@irdl_op_definition
class CmpOp(IRDLOperation):
    """``%b = tx.cmp ge, %a, %c : !tx.symbool``; predicate one of eq ne lt le gt ge."""

    name = "tx.cmp"
    predicate = prop_def(StringAttr)
    lhs = operand_def(SymIntType)
    rhs = operand_def(SymIntType)
    result = result_def(SymBoolType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> CmpOp:
        pos = parser.pos
        predicate = parser.parse_identifier(context_msg=" (a comparison predicate)")
        if predicate not in COMPARISONS:
            parser.raise_error(f"expected one of {', '.join(COMPARISONS)}, found '{predicate}'", pos)
        parser.parse_punctuation(",")
        lhs = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        rhs = parse_defined_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.create(
            operands=[lhs, rhs], result_types=[parser.parse_type()],
            properties={"predicate": StringAttr(predicate)}, attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.predicate.data}, ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if self.predicate.data not in COMPARISONS:
            raise VerifyException(
                f"tx.cmp predicate must be one of {', '.join(COMPARISONS)}, got '{self.predicate.data}'"
            )


@irdl_op_definition
class AssertOp(IRDLOperation):
    """Runtime assert on a symbolic bool, carrying torch's message."""

    name = "tx.assert"
    condition = operand_def(SymBoolType)
    message = prop_def(StringAttr)

    @classmethod
    def parse(cls, parser: Parser) -> AssertOp:
        condition = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        message = parser.parse_str_literal(context_msg=" (the assert message)")
        attrs = parser.parse_optional_attr_dict()
        return cls.create(
            operands=[condition], properties={"message": StringAttr(message)}, attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.condition)
        printer.print_string(", ")
        printer.print_string(string_literal(self.message.data))
        printer.print_op_attributes(self.attributes)


TX = Dialect(
    "tx",
    [ConstantOp, AddOp, SubOp, MulOp, FloorDivOp, ModOp, MaxOp, MinOp, ToFloatOp, CmpOp, AssertOp],
    [TensorType, SymIntType, SymFloatType, SymBoolType, SymExprAttr, NoneAttr, SSAMarkerAttr],
)


def is_bool_type(attr: Attribute) -> bool:
    return attr == i1
