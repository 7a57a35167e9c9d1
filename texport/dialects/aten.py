"""The ``training``, ``functional`` and ``core`` dialects, generated from the op table.

Every ATen op is one class per level it belongs to (``core.add.Tensor``,
``training.add_.Tensor``), made from its schema. The layout of an op:

- operands: the SSA values of every argument, in schema order; the property
  ``operandSegmentSizes`` says how many belong to each schema argument;
- properties: each argument's literal value (int, float, bool, str, dtype,
  list), absent when the argument is None or entirely SSA. In a list, ``#tx.ssa``
  marks where the argument's next SSA operand goes and ``#tx.none`` a None;
- results: one per returned tensor or scalar.

Custom format, torch-like, one op per line; arguments equal to their default
are left out (keyword-only ones are written ``name = value``):

    %conv = core.convolution(%x, %w, %b, [1, 1], [0, 0], [1, 1], false, [0, 0], 1) : !tx.tensor<[1, 3, 3, 3], f32>
    %add = training.add_.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.dialects.complex import ComplexNumberAttr
from xdsl.ir import Attribute, Dialect, Operation, SSAValue, TypeAttribute
from xdsl.irdl import OpTraits
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .asm import string_literal
from .aten_syntax import UNSET, literal_mismatch, parse_arguments, parse_result_types
from .canonicalization import RegisteredCanonicalizations
from .dtypes import DType
from .layout import value_strides
from .meta import ScalarMeta, TensorMeta
from .registry import OPS, OpDef
from .schema import ArgType, Argument
from .shape_rules import SHAPE_RULES
from .shape_rules.guards import ShapeGuardError
from .symbolic import DimTooLargeError, dim_str
from .tx import (
    SYM_TYPES,
    NoneAttr,
    SSAMarkerAttr,
    SymBoolType,
    SymExprAttr,
    SymFloatType,
    SymIntType,
    TensorType,
    dtype_of,
    element_type,
    symint,
)

SEGMENTS = "operandSegmentSizes"
_NONE = NoneAttr()
_SSA = SSAMarkerAttr()
_SEGMENT_CACHE: dict[tuple[int, ...], DenseArrayBase] = {}


# --------------------------------------------------------------------------
# Python values <-> attributes
# --------------------------------------------------------------------------


_ATTR_MEMO: dict[tuple[Any, ...], Attribute] = {}


def to_attr(value: Any, arg_type: ArgType) -> Attribute:
    """A literal argument value as a property attribute (memoised: models repeat
    the same strides, dims and scalars thousands of times)."""
    key = _memo_key(value, arg_type.base)
    if key is None:
        return _to_attr(value, arg_type)
    attr = _ATTR_MEMO.get(key)
    if attr is None:
        attr = _ATTR_MEMO[key] = _to_attr(value, arg_type)
    return attr


def _memo_key(value: Any, base: str) -> tuple[Any, ...] | None:
    if isinstance(value, (list, tuple)):
        if all(type(v) in (int, float, bool) for v in value):
            return (base, "list", tuple(_scalar_key(v) for v in value))
        return None
    if type(value) in (int, float, bool, str):
        return (base, *_scalar_key(value))
    return None


def _scalar_key(value: Any) -> tuple[Any, Any]:
    # A float by its repr: -0.0 == 0.0 would share one memo entry (the sign lost), and
    # nan != nan would add one entry per call.
    return (float, repr(value)) if type(value) is float else (type(value), value)


def _to_attr(value: Any, arg_type: ArgType) -> Attribute:
    if value is None:
        return _NONE
    if isinstance(value, SSAValue):
        return _SSA
    if isinstance(value, bool):
        return IntegerAttr(int(value), i1)
    if isinstance(value, DType):
        return element_type(value)
    if isinstance(value, int):
        if arg_type.base in ("float", "SymFloat"):
            return FloatAttr(float(value), f64)
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, complex):
        return ComplexNumberAttr(value.real, value.imag, ComplexType(f64))
    if isinstance(value, (list, tuple)):
        return ArrayAttr([to_attr(item, arg_type) for item in value])
    raise TypeError(f"cannot hold {type(value).__name__} {value!r} as a {arg_type.render()} argument")


def from_attr(attr: Attribute, operands: list[SSAValue]) -> Any:
    """A property attribute back as a Python value; ``#tx.ssa`` pops the next operand."""
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        return bool(value) if attr.type == i1 else value
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, ComplexNumberAttr):
        return complex(attr.real.data, attr.imag.data)
    if isinstance(attr, ArrayAttr):
        return [from_attr(item, operands) for item in attr.data]
    if attr is _NONE or isinstance(attr, NoneAttr):
        return None
    if isinstance(attr, SSAMarkerAttr):
        if not operands:
            raise VerifyException("an argument has more #tx.ssa markers than operands")
        return operands.pop(0)
    if isinstance(attr, TypeAttribute):
        return dtype_of(attr)
    raise VerifyException(f"unexpected argument attribute {attr}")


def _flatten_ssa(value: Any) -> list[SSAValue]:
    if isinstance(value, SSAValue):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, SSAValue)]
    return []


def segments_attr(sizes: tuple[int, ...]) -> DenseArrayBase:
    attr = _SEGMENT_CACHE.get(sizes)
    if attr is None:
        attr = _SEGMENT_CACHE[sizes] = DenseArrayBase.from_list(i32, sizes)
    return attr


# --------------------------------------------------------------------------
# The per-op argument plan
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ArgPlan:
    """How one schema argument is held and printed."""

    arg: Argument
    default_attr: Attribute | None  # None: no default (always printed)

    @property
    def name(self) -> str:
        return self.arg.name


def _plan(op_def: OpDef) -> tuple[ArgPlan, ...]:
    plans = []
    for arg in op_def.schema.arguments:
        default = to_attr(arg.default, arg.type) if arg.has_default and arg.default is not None else None
        if arg.has_default and arg.default is None:
            default = _NONE
        plans.append(ArgPlan(arg, default))
    return tuple(plans)


# --------------------------------------------------------------------------
# The op base
# --------------------------------------------------------------------------


class AtenOp(Operation):
    """Base of every generated ATen op; see the module docstring for the layout."""

    name: ClassVar[str]
    op_def: ClassVar[OpDef]
    level: ClassVar[str]
    plan: ClassVar[tuple[ArgPlan, ...]]
    traits = OpTraits(lambda: ())

    # ---- building -------------------------------------------------------

    @classmethod
    def build(
        cls, values: Sequence[Any], result_types: Sequence[Attribute], **kwargs: Any
    ) -> AtenOp:
        """Make an op from bound argument values (schema order; SSAValues for operands)."""
        operands: list[SSAValue] = []
        sizes: list[int] = []
        properties: dict[str, Attribute] = {}
        for plan, value in zip(cls.plan, values, strict=True):
            ssa = _flatten_ssa(value)
            operands.extend(ssa)
            sizes.append(len(ssa))
            if value is not None and not isinstance(value, SSAValue):
                if not (ssa and len(ssa) == len(value)):  # an all-SSA list needs no property
                    properties[plan.name] = to_attr(value, plan.arg.type)
        properties[SEGMENTS] = segments_attr(tuple(sizes))
        return cls.create(
            operands=operands, result_types=result_types, properties=properties, **kwargs
        )

    # ---- reading --------------------------------------------------------

    def segment_sizes(self) -> tuple[int, ...]:
        attr = self.properties.get(SEGMENTS)
        if not isinstance(attr, DenseArrayBase):
            raise VerifyException(f"'{self.name}' op needs the property {SEGMENTS}")
        return attr.get_values()

    def arguments(self) -> list[Any]:
        """Argument values in schema order: SSAValues, literals, DTypes, lists."""
        operands = list(self.operands)
        values = []
        for plan, size in zip(self.plan, self.segment_sizes()):
            own = operands[:size]
            del operands[:size]
            attr = self.properties.get(plan.name)
            if attr is None:
                if size == 0:
                    values.append(None)
                elif plan.arg.type.is_list:
                    values.append(own)
                    own = []
                else:
                    values.append(own[0])
                    own = own[1:]
            else:
                values.append(from_attr(attr, own))
            if own:  # operands no #tx.ssa marker places would be lost in print
                raise VerifyException(
                    f"'{self.name}' op: argument '{plan.name}' has {size} operands, "
                    f"{size - len(own)} of them placed"
                )
        return values

    def argument(self, name: str) -> Any:
        for plan, value in zip(self.plan, self.arguments()):
            if plan.name == name:
                return value
        raise KeyError(f"'{self.name}' has no argument {name!r}")

    # ---- changing level ---------------------------------------------------

    def move_to(self, level: str) -> None:
        """Make this op the same op at ``level``, in place: all level classes of
        an op share one layout, so only its class changes (operands, properties
        and uses stay)."""
        self.__class__ = op_class(self.op_def, level)

    # ---- printing -------------------------------------------------------

    def print(self, printer: Printer) -> None:
        sizes = self.segment_sizes()
        operands = list(self.operands)
        entries: list[tuple[ArgPlan, Any]] = []
        for plan, size in zip(self.plan, sizes):
            own = operands[:size]
            del operands[:size]
            entries.append((plan, (own, self.properties.get(plan.name))))
        printer.print_string("(")
        last_positional = _last_non_default([e for e in entries if not e[0].arg.kwarg_only])
        first = True
        for index, (plan, (own, attr)) in enumerate(entries):
            if plan.arg.kwarg_only:
                if _is_default(plan, own, attr):
                    continue
            elif index > last_positional:
                continue
            if not first:
                printer.print_string(", ")
            first = False
            if plan.arg.kwarg_only:
                printer.print_string(f"{plan.name} = ")
            _print_value(printer, plan, own, attr)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self.result_types)

    # ---- parsing --------------------------------------------------------

    @classmethod
    def parse(cls, parser: Parser) -> AtenOp:
        values = parse_arguments(parser, cls.name, cls.op_def.schema.arguments)
        for i, plan in enumerate(cls.plan):
            if values[i] is UNSET:
                if not plan.arg.has_default:
                    parser.raise_error(f"'{cls.name}' is missing its required argument '{plan.name}'")
                values[i] = _copy_default(plan.arg.default)
        attrs = parser.parse_optional_attr_dict()
        result_types = parse_result_types(parser) if cls.op_def.schema.returns else []
        return cls.build(values, result_types, attributes=attrs)

    # ---- verification ---------------------------------------------------

    def verify_(self) -> None:
        sizes = self.segment_sizes()
        if len(sizes) != len(self.plan) or sum(sizes) != len(self.operands) or min(sizes, default=0) < 0:
            raise VerifyException(
                f"'{self.name}' op: {SEGMENTS} {list(sizes)} does not fit {len(self.plan)} "
                f"arguments and {len(self.operands)} operands"
            )
        if self.regions or self.successors:  # the custom form has no place for them
            raise VerifyException(f"'{self.name}' op takes no regions or successors")
        values = self.arguments()
        # the first argument may be a wrapped symbolic number too when a later one is
        # a tensor (torch records s - x as sub.Tensor(s, x)); relu(s) is no op
        number_first = bool(values) and _is_symbolic(values[0]) and any(_is_tensor(v) for v in values[1:])
        for index, (plan, value) in enumerate(zip(self.plan, values)):
            _check_argument(self, plan, value, first=index == 0 and not number_first)
            _check_canonical(self, plan, value)
        _check_results(self, values)


def _is_symbolic(value: Any) -> bool:
    return isinstance(value, SSAValue) and isinstance(value.type, SYM_TYPES)


def _is_tensor(value: Any) -> bool:
    return isinstance(value, SSAValue) and isinstance(value.type, TensorType)


def _copy_default(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def _is_default(plan: ArgPlan, own: list[SSAValue], attr: Attribute | None) -> bool:
    if own or plan.default_attr is None:
        return False
    if attr is None:
        return plan.default_attr is _NONE
    return attr == plan.default_attr


def _last_non_default(entries: list[tuple[ArgPlan, Any]]) -> int:
    for index in range(len(entries) - 1, -1, -1):
        plan, (own, attr) = entries[index]
        if not _is_default(plan, own, attr):
            return index
    return -1


# --------------------------------------------------------------------------
# Custom-format helpers
# --------------------------------------------------------------------------


def format_float(value: float) -> str:
    """A float literal the MLIR lexer reads back as a float (always a '.')."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    if "e" in text and "." not in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def _print_literal(printer: Printer, attr: Attribute, own: list[SSAValue]) -> None:
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        printer.print_string(("true" if value else "false") if attr.type == i1 else str(value))
    elif isinstance(attr, FloatAttr):
        printer.print_string(format_float(attr.value.data))
    elif isinstance(attr, StringAttr):
        printer.print_string(string_literal(attr.data))
    elif isinstance(attr, ComplexNumberAttr):
        printer.print_string(f"complex({format_float(attr.real.data)}, {format_float(attr.imag.data)})")
    elif isinstance(attr, ArrayAttr):
        printer.print_string("[")
        for i, item in enumerate(attr.data):
            if i:
                printer.print_string(", ")
            _print_literal(printer, item, own)
        printer.print_string("]")
    elif isinstance(attr, NoneAttr):
        printer.print_string("none")
    elif isinstance(attr, SSAMarkerAttr):
        printer.print_operand(own.pop(0))
    else:
        printer.print_attribute(attr)


def _print_value(printer: Printer, plan: ArgPlan, own: list[SSAValue], attr: Attribute | None) -> None:
    if attr is not None:
        _print_literal(printer, attr, list(own))
    elif not own:
        printer.print_string("none")
    elif plan.arg.type.is_list:
        printer.print_string("[")
        for i, value in enumerate(own):
            if i:
                printer.print_string(", ")
            printer.print_operand(value)
        printer.print_string("]")
    else:
        printer.print_operand(own[0])


def _print_result_types(printer: Printer, types: Sequence[Attribute]) -> None:
    if not types:
        return
    printer.print_string(" : ")
    if len(types) == 1:
        _print_type(printer, types[0])
        return
    printer.print_string("(")
    for i, result_type in enumerate(types):
        if i:
            printer.print_string(", ")
        _print_type(printer, result_type)
    printer.print_string(")")


def _print_type(printer: Printer, attr: Attribute) -> None:
    if isinstance(attr, TensorType):
        attr.print_fast(printer)
    else:
        printer.print_attribute(attr)


# --------------------------------------------------------------------------
# Verification against the schema and the shape rule
# --------------------------------------------------------------------------


def _check_argument(op: AtenOp, plan: ArgPlan, value: Any, first: bool = False) -> None:
    arg_type = plan.arg.type
    if value is None and not arg_type.optional:  # a default is filled in when parsed or built
        raise VerifyException(f"'{op.name}' op: required argument '{plan.name}' is missing")
    mismatch = literal_mismatch(value, arg_type)
    if mismatch is not None:  # a literal of the wrong kind would crash the shape rule
        raise VerifyException(f"'{op.name}' op: argument '{plan.name}' {mismatch[1]}")
    for item in (value if isinstance(value, list) else [value]):
        if isinstance(item, SSAValue):
            # a Tensor argument after the first may hold a symbolic scalar (torch's
            # wrapped numbers: x * n records mul.Tensor(x, n))
            if arg_type.is_tensor_like:
                wanted = (TensorType,) if first or arg_type.is_list else (TensorType, *SYM_TYPES)
            else:
                wanted = SYM_TYPES
            if not isinstance(item.type, wanted):
                kind = "a tensor" if arg_type.is_tensor_like else "a symbolic scalar"
                raise VerifyException(
                    f"'{op.name}' op: argument '{plan.name}' must be {kind}, found {item.type}"
                )


def _check_canonical(op: AtenOp, plan: ArgPlan, value: Any) -> None:
    """A literal is held as texport holds it (an int as i64, a float as f64): the
    custom form prints the value only, so `1 : i32` would come back as `1 : i64`."""
    attr = op.properties.get(plan.name)
    if attr is not None and (canonical := to_attr(value, plan.arg.type)) != attr:
        raise VerifyException(
            f"'{op.name}' op: property '{plan.name}' is {attr}, texport holds this value as {canonical}"
        )


def _meta_of(value: Any, strided: bool = False) -> Any:
    """What a shape rule takes for an argument; a tensor's strides only when
    ``strided`` (a rule that reads them: they are read off the ops above)."""
    if isinstance(value, SSAValue):
        if isinstance(value.type, TensorType):
            if strided:
                return TensorMeta(value.type.shape, value.type.dtype, value_strides(value))
            return value.type.meta
        expr = value.type.value
        if expr is None:
            raise _Unknown
        return expr
    if isinstance(value, list):
        return [_meta_of(v, strided) for v in value]
    return value


class _Unknown(Exception):
    """An SSA scalar with no known expression: the shape rule cannot be run."""


def _check_results(op: AtenOp, values: list[Any]) -> None:
    rule = SHAPE_RULES.get(op.op_def.key)
    if rule is None:
        return
    strided = getattr(rule, "reads_strides", False)
    try:
        expected = rule(*[_meta_of(v, strided) for v in values])
    except _Unknown:
        return
    except (ShapeGuardError, DimTooLargeError) as err:
        raise VerifyException(f"'{op.name}' op: {err}") from None
    except Exception as err:  # noqa: BLE001 - last resort: arguments no shape rule foresaw
        raise VerifyException(
            f"'{op.name}' op: its arguments are out of the op's domain ({type(err).__name__}: {err})"
        ) from err
    expected_list = _as_result_list(expected)
    if len(expected_list) != len(op.results):
        raise VerifyException(
            f"'{op.name}' op has {len(op.results)} results, its shape rule gives {len(expected_list)}"
        )
    for index, (meta, result) in enumerate(zip(expected_list, op.results)):
        if not _result_matches(meta, result.type):
            raise VerifyException(
                f"'{op.name}' op result #{index} has type {result.type}, "
                f"but its shape rule gives {_describe(meta)}"
            )


def _as_result_list(expected: Any) -> list[Any]:
    if isinstance(expected, (tuple, list)):
        return list(expected)
    return [expected]


def _result_matches(meta: Any, result_type: Attribute) -> bool:
    if meta is None:
        return True
    if isinstance(meta, TensorMeta):
        if not isinstance(result_type, TensorType) or result_type.dtype != meta.dtype:
            return False
        shape = result_type.shape
        return len(shape) == len(meta.shape) and all(
            want is None or dims_equal(want, got) for want, got in zip(meta.shape, shape)
        )
    if isinstance(meta, ScalarMeta):
        kinds = {"int": SymIntType, "float": SymFloatType, "bool": SymBoolType}
        if not isinstance(result_type, kinds[meta.kind]):
            return False
        got = result_type.value
        return meta.value is None or got is None or dims_equal(meta.value, got)
    return False


def dims_equal(a: Any, b: Any) -> bool:
    if a == b:
        return True
    if type(a) is int and type(b) is int:
        return False
    try:
        return (a - b).expand() == 0
    except TypeError:
        return False


def _describe(meta: Any) -> str:
    if isinstance(meta, TensorMeta):
        dims = ", ".join("?" if d is None else dim_str(d) for d in meta.shape)  # ?: data-dependent
        return f"!tx.tensor<[{dims}], {meta.dtype.ir_name}>"
    return repr(meta)


# --------------------------------------------------------------------------
# Dialect generation
# --------------------------------------------------------------------------

_PLANS: dict[str, tuple[ArgPlan, ...]] = {}
_CANONICALIZATIONS = RegisteredCanonicalizations()
_CLASSES: dict[tuple[str, str], type[AtenOp]] = {}


def op_class(op_def: OpDef, level: str) -> type[AtenOp]:
    """The generated class of ``op_def`` at ``level`` (made once, then cached)."""
    key = (level, op_def.key)
    cls = _CLASSES.get(key)
    if cls is None:
        if level not in op_def.levels:
            raise KeyError(f"{op_def.key} is not an op of the {level} dialect")
        plan = _PLANS.get(op_def.key)
        if plan is None:
            plan = _PLANS[op_def.key] = _plan(op_def)
        # an op that returns nothing exists for its effect (an assert): never Pure, so dce keeps it
        pure = (not op_def.schema.is_mutable and not op_def.has_tag("nondeterministic_seeded")
                and bool(op_def.schema.returns))
        # every op asks the registry: its patterns may be registered after its class is made
        own = (Pure(), _CANONICALIZATIONS) if pure else (_CANONICALIZATIONS,)
        traits = OpTraits(lambda: own)
        class_name = "".join(p.capitalize() for p in f"{level}_{op_def.ir_name}".replace(".", "_").split("_"))
        cls = type(class_name, (AtenOp,), {
            "name": f"{level}.{op_def.ir_name}", "op_def": op_def, "level": level,
            "plan": plan, "traits": traits, "__doc__": f"``{op_def.schema}``",
        })
        _CLASSES[key] = cls
    return cls


def level_dialect(level: str) -> Dialect:
    """The dialect of one level, from the op table as it stands now."""
    ops = [op_class(op_def, level) for op_def in _ops_sorted() if level in op_def.levels]
    return Dialect(level, ops, [])


def _ops_sorted() -> list[OpDef]:
    return [OPS[key] for key in sorted(OPS.keys())]


def result_type_for(meta: Any) -> Attribute:
    """The IR type of a shape-rule result (TensorMeta or ScalarMeta)."""
    if isinstance(meta, TensorMeta):
        return TensorType.get(meta.shape, meta.dtype)
    if isinstance(meta, ScalarMeta):
        kinds = {"int": SymIntType, "float": SymFloatType, "bool": SymBoolType}
        return kinds[meta.kind](SymExprAttr(meta.value))
    raise TypeError(f"not a result meta: {meta!r}")


__all__ = [
    "AtenOp", "level_dialect", "op_class", "result_type_for", "symint", "IntegerType", "i64",
]
