"""Linalg lowerings: elementwise ops, each a ``linalg.generic`` (``Lowering.pointwise``)
with torch's broadcasting; Python-number operands become constants of the body,
a size (``!tx.symint``) an ``i64`` computed before the generic and read in it.

Each op computes in one dtype, as texport's kernels do: the result's, or for a
comparison the operands' promoted dtype (``dtypes.result_type``, torch's
promotion); float16 and bfloat16 compute in float32 and round once at the end
(torch's opmath). ``Scalars`` picks arith's float, signed or unsigned op for that
dtype (bool and uint8 compare, divide and extend unsigned). The factories
(``full``, ``arange``, ...) and the copies (``_to_copy``, ``clone``, ``copy``) are
here too: each is a fill or a generic over its result.

What IREE's CPU backend lacks is built from arith and math here: integer pow
(math.ipowi), erfc, log10 (a libm call it does not link), the special functions
(float32 series and fits, each with its source and measured error); its powf is
only right for a positive base, so pow takes the sign and the special cases itself."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import Float64Type, IntegerType
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import irdl_op_definition
from xdsl.rewriter import InsertPoint

from texport.dialects.dtypes import DType, result_type
from texport.dialects.tx import SymIntType
from texport.dialects.tx import TensorType as TxTensorType

from .builder import Body, Lowering, conversion_ops
from .registry import lowers
from .types import UnsupportedType, element_type, is_float, is_unsigned, opmath_dtype, tensor_type


@irdl_op_definition
class RemFOp(arith.FloatingPointLikeBinaryOperation):
    """MLIR's ``arith.remf`` (C's fmod), which xDSL's arith dialect lacks."""

    name = "arith.remf"


_BOOL = IntegerType(1)

# ---------------------------------------------------------------- the scalar ops of a body

_FLOAT_PREDICATES = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_SIGNED_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_UNSIGNED_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


class Scalars:
    """Builds scalar maths of one compute dtype in a generic's body; ``stored`` is
    the dtype it stands for (float16 computes in float32)."""

    def __init__(self, body: Body, dtype: DType, stored: DType | None = None) -> None:
        self.body = body
        self.dtype = dtype
        self.stored = dtype if stored is None else stored
        self.element = element_type(dtype)
        self.is_float = is_float(self.element)
        self.unsigned = is_unsigned(dtype)

    def insert(self, op: Any) -> SSAValue:
        return self.body.insert(op)

    def constant(self, value: int | float | bool) -> SSAValue:
        return self.body.constant(_wrapped(value, self.element), self.element)

    def rounded(self, value: int | float | bool) -> SSAValue:
        """A Python number as torch's kernels meet it: rounded to the stored dtype
        (0.1 as a float16), then in the compute dtype."""
        if self.stored is self.dtype:
            return self.constant(value)
        return self.body.convert(self.body.constant(value, element_type(self.stored)), self.element)

    def pick(self, float_op: type, signed_op: type, unsigned_op: type | None = None) -> type:
        if self.is_float:
            return float_op
        return unsigned_op if self.unsigned and unsigned_op is not None else signed_op

    def add(self, x: SSAValue, y: SSAValue) -> SSAValue:
        if self.dtype is DType.bool:  # torch: True + True is True (logical or)
            return self.insert(arith.OrIOp(x, y))
        return self.insert(self.pick(arith.AddfOp, arith.AddiOp)(x, y))

    def sub(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert(self.pick(arith.SubfOp, arith.SubiOp)(x, y))

    def mul(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert(self.pick(arith.MulfOp, arith.MuliOp)(x, y))

    def maximum(self, x: SSAValue, y: SSAValue) -> SSAValue:  # maximumf: nan propagates, as torch
        return self.insert(self.pick(arith.MaximumfOp, arith.MaxSIOp, arith.MaxUIOp)(x, y))

    def minimum(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert(self.pick(arith.MinimumfOp, arith.MinSIOp, arith.MinUIOp)(x, y))

    def compare(self, predicate: str, x: SSAValue, y: SSAValue) -> SSAValue:
        if self.is_float:
            return self.insert(arith.CmpfOp(x, y, _FLOAT_PREDICATES[predicate]))
        table = _UNSIGNED_PREDICATES if self.unsigned else _SIGNED_PREDICATES
        return self.insert(arith.CmpiOp(x, y, table[predicate]))

    def select(self, condition: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert(arith.SelectOp(condition, x, y))

    def truth(self, x: SSAValue) -> SSAValue:
        """x != 0 as i1 (nan is true), as torch's cast to bool."""
        return self.body.convert(x, _BOOL)

    def math(self, op: type, *operands: SSAValue) -> SSAValue:
        return self.insert(op(*operands))


def _wrapped(value: int | float | bool, element: Attribute) -> int | float | bool:
    """An int as an integer type of ``element``'s width holds it: wrapped around, as
    torch's C++ cast of a Python int (300 as int8 is 44)."""
    if type(value) is not int or not isinstance(element, IntegerType) or element.width.data == 1:
        return value
    width = element.width.data
    value &= (1 << width) - 1
    return value - (1 << width) if value >= 1 << (width - 1) else value


def _promotion_operand(value: Any) -> Any:
    """What ``result_type`` reads of an operand: a tensor's type, a size as an int."""
    if isinstance(value, SSAValue):
        return value.type if isinstance(value.type, TxTensorType) else 0
    return value


def promoted_dtype(operands: Sequence[Any]) -> DType:
    """torch's result type over the operands (tensors, sizes, Python numbers; None skipped)."""
    return result_type(*(_promotion_operand(v) for v in operands if v is not None))


def _convert(b: Body, value: SSAValue, source: DType, element: Attribute) -> SSAValue:
    """``value`` of dtype ``source`` as ``element`` (uint8 and bool widen unsigned)."""
    return b.convert(value, element, unsigned=is_unsigned(source))


def _scalar_outside(lw: Lowering, value: SSAValue) -> SSAValue:
    """A size operand as an ``i64`` made before the generic (its body reads it)."""
    if not isinstance(value.type, SymIntType):
        raise UnsupportedType(f"'{lw.op.name}': expected a tensor, a size or a Python number as "
                              f"an elementwise operand, found {value.type}")
    return lw.insert(arith.IndexCastOp(lw.value(value), IntegerType(64))).results[0]


Compute = Callable[[Scalars, list[Any]], SSAValue]


def _elementwise(lw: Lowering, operands: Sequence[Any], compute: Compute, dtype: DType | None = None,
                 exact_numbers: bool = False) -> list[SSAValue]:
    """The result of ``compute`` on the operands' elements, each converted to the
    compute dtype (``dtype``, by default the result's, in its opmath dtype): tensors
    through the generic's arguments, Python numbers as constants (rounded to
    ``dtype`` first, unless ``exact_numbers``: torch keeps a factor or divisor of
    mul and div in float32), None as None."""
    stored = lw.result_type().dtype if dtype is None else dtype
    work = opmath_dtype(stored)
    tensors = [v for v in operands if isinstance(v, SSAValue) and isinstance(v.type, TxTensorType)]
    sizes = {id(v): _scalar_outside(lw, v) for v in operands
             if isinstance(v, SSAValue) and not isinstance(v.type, TxTensorType)}

    def body(b: Body) -> SSAValue:
        s = Scalars(b, work, stored)
        elements, args = [], iter(b.args)
        for value in operands:
            if value is None:
                elements.append(None)
            elif id(value) in sizes:
                elements.append(_convert(b, sizes[id(value)], DType.int64, s.element))
            elif isinstance(value, SSAValue):
                elements.append(_convert(b, next(args), value.type.dtype, s.element))
            else:
                elements.append(s.constant(value) if exact_numbers else s.rounded(value))
        return compute(s, elements)

    return [lw.pointwise(tensors, lw.result_type(), body)]


def _binary(compute: Callable[[Scalars, SSAValue, SSAValue], SSAValue]) -> Callable[[Lowering], list[SSAValue]]:
    """The lowering of an op ``(self, other)`` computed in its result's dtype."""
    def lower(lw: Lowering) -> list[SSAValue]:
        x, other = lw.op.arguments()[:2]
        return _elementwise(lw, [x, other], lambda s, v: compute(s, v[0], v[1]))
    return lower


def _unary(compute: Callable[[Scalars, SSAValue], SSAValue]) -> Callable[[Lowering], list[SSAValue]]:
    def lower(lw: Lowering) -> list[SSAValue]:
        x = lw.op.arguments()[0]
        return _elementwise(lw, [x], lambda s, v: compute(s, v[0]))
    return lower


# ---------------------------------------------------------------- arithmetic


def _scaled(s: Scalars, other: SSAValue, alpha: Any) -> SSAValue:
    return other if alpha == 1 else s.mul(other, s.rounded(alpha))


@lowers("pointwise", "aten.add.Tensor", "aten.add.Scalar")
def add(lw: Lowering) -> list[SSAValue]:
    x, other, alpha = lw.op.arguments()
    return _elementwise(lw, [x, other], lambda s, v: s.add(v[0], _scaled(s, v[1], alpha)))


@lowers("pointwise", "aten.sub.Tensor", "aten.sub.Scalar")
def sub(lw: Lowering) -> list[SSAValue]:
    x, other, alpha = lw.op.arguments()
    return _elementwise(lw, [x, other], lambda s, v: s.sub(v[0], _scaled(s, v[1], alpha)))


@lowers("pointwise", "aten.mul.Tensor", "aten.mul.Scalar")
def mul(lw: Lowering) -> list[SSAValue]:
    x, other = lw.op.arguments()
    return _elementwise(lw, [x, other], lambda s, v: s.mul(v[0], v[1]), exact_numbers=True)


lowers("pointwise", "aten.maximum.default")(_binary(lambda s, x, y: s.maximum(x, y)))
lowers("pointwise", "aten.minimum.default")(_binary(lambda s, x, y: s.minimum(x, y)))
# fmax/fmin: the number wins over a nan (maxnumf), unlike maximum
lowers("pointwise", "aten.fmax.default")(_binary(lambda s, x, y: s.insert(
    s.pick(arith.MaxnumfOp, arith.MaxSIOp, arith.MaxUIOp)(x, y))))
lowers("pointwise", "aten.fmin.default")(_binary(lambda s, x, y: s.insert(
    s.pick(arith.MinnumfOp, arith.MinSIOp, arith.MinUIOp)(x, y))))
lowers("pointwise", "aten.atan2.default")(_binary(lambda s, x, y: s.math(mathd.Atan2Op, x, y)))
lowers("pointwise", "aten.copysign.Tensor", "aten.copysign.Scalar")(
    _binary(lambda s, x, y: s.math(mathd.CopySignOp, x, y)))


def _hypot(s: Scalars, x: SSAValue, y: SSAValue) -> SSAValue:
    return s.math(mathd.SqrtOp, s.add(s.mul(x, x), s.mul(y, y)))


lowers("pointwise", "aten.hypot.default")(_binary(_hypot))


def _floor_divide_float(s: Scalars, a: SSAValue, b: SSAValue) -> SSAValue:
    """Python's a // b on floats (numpy's npy_divmod, which the interpreter's
    floor_divide is): from fmod, so a quotient just below an integer is not
    rounded up by a / b; b == 0 gives a / b (inf or nan)."""
    zero = s.constant(0.0)
    mod = s.insert(RemFOp(a, b))
    div = s.insert(arith.DivfOp(s.sub(a, mod), b))
    signs_differ = s.insert(arith.XOrIOp(s.compare("lt", b, zero), s.compare("lt", mod, zero)))
    shift = s.insert(arith.AndIOp(s.compare("ne", mod, zero), signs_differ))
    div = s.select(shift, s.sub(div, s.constant(1.0)), div)
    floor = s.math(mathd.FloorOp, div)
    round_up = s.compare("gt", s.sub(div, floor), s.constant(0.5))
    floor = s.select(round_up, s.add(floor, s.constant(1.0)), floor)
    quotient = s.insert(arith.DivfOp(a, b))
    signed_zero = s.math(mathd.CopySignOp, zero, quotient)
    floor = s.select(s.compare("eq", div, zero), signed_zero, floor)
    return s.select(s.compare("eq", b, zero), quotient, floor)


def _divide(s: Scalars, x: SSAValue, y: SSAValue, rounding_mode: str | None) -> SSAValue:
    if rounding_mode is None:  # a float result (integers divide in float32)
        return s.insert(arith.DivfOp(x, y))
    if rounding_mode == "trunc":
        if s.is_float:
            return s.math(mathd.TruncOp, s.insert(arith.DivfOp(x, y)))
        return s.insert(s.pick(arith.DivfOp, arith.DivSIOp, arith.DivUIOp)(x, y))
    if rounding_mode == "floor":
        if s.is_float:
            return _floor_divide_float(s, x, y)
        return s.insert(s.pick(arith.DivfOp, arith.FloorDivSIOp, arith.DivUIOp)(x, y))
    raise UnsupportedType(f"div: expected rounding_mode None, 'trunc' or 'floor', found {rounding_mode!r}")


@lowers("pointwise", "aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode", "aten.div.Scalar_mode")
def div(lw: Lowering) -> list[SSAValue]:
    x, other, *mode = lw.op.arguments()
    rounding_mode = mode[0] if mode else None
    return _elementwise(lw, [x, other], lambda s, v: _divide(s, v[0], v[1], rounding_mode), exact_numbers=True)


def _fmod(s: Scalars, x: SSAValue, y: SSAValue) -> SSAValue:
    """C's fmod: the dividend's sign (integer division by zero is undefined, torch raises)."""
    return s.insert(s.pick(RemFOp, arith.RemSIOp, arith.RemUIOp)(x, y))


def _remainder(s: Scalars, x: SSAValue, y: SSAValue) -> SSAValue:
    """Python's %: fmod, then shifted by the divisor when its sign differs (torch)."""
    mod = _fmod(s, x, y)
    if s.unsigned:
        return mod
    zero = s.constant(0)
    signs_differ = s.insert(arith.XOrIOp(s.compare("lt", y, zero), s.compare("lt", mod, zero)))
    shift = s.insert(arith.AndIOp(s.compare("ne", mod, zero), signs_differ))
    return s.select(shift, s.add(mod, y), mod)


Carried = Sequence[SSAValue]


def _while(s: Scalars, initial: Carried, going: Callable[[Scalars, Carried], SSAValue],
           step: Callable[[Scalars, Carried], Carried]) -> Carried:
    """A loop in the body (scf.while; IREE runs it per element): the values ``initial``
    carried through ``step`` while ``going`` holds of them; their last values."""
    types = [v.type for v in initial]
    before, after = Block(arg_types=types), Block(arg_types=types)
    test = Scalars(Body(Builder(InsertPoint.at_end(before)), [], s.body.element), s.dtype, s.stored)
    test.insert(scf.ConditionOp(going(test, before.args), *before.args))
    body = Scalars(Body(Builder(InsertPoint.at_end(after)), [], s.body.element), s.dtype, s.stored)
    body.insert(scf.YieldOp(*step(body, after.args)))
    loop = scf.WhileOp(list(initial), types, Region(before), Region(after))
    s.insert(loop)
    return loop.results


def _gcd(s: Scalars, x: SSAValue, y: SSAValue) -> SSAValue:
    """Euclid's algorithm as torch's calc_gcd, >= 0."""
    if not s.unsigned:
        x, y = s.math(mathd.AbsIOp, x), s.math(mathd.AbsIOp, y)
    return _while(s, [x, y], lambda t, v: t.compare("ne", v[1], t.constant(0)),
                  lambda t, v: [v[1], _fmod(t, v[0], v[1])])[0]


def _lcm(s: Scalars, x: SSAValue, y: SSAValue) -> SSAValue:
    """|x / gcd * y|, 0 when both are 0 (torch's calc_lcm)."""
    divisor = _gcd(s, x, y)
    zero = s.constant(0)
    nonzero = s.select(s.compare("eq", divisor, zero), s.constant(1), divisor)
    quotient = s.insert(s.pick(arith.DivfOp, arith.DivSIOp, arith.DivUIOp)(x, nonzero))
    value = _abs(s, s.mul(quotient, y))
    return s.select(s.compare("eq", divisor, zero), zero, value)


lowers("pointwise", "aten.gcd.default")(_binary(_gcd))
lowers("pointwise", "aten.lcm.default")(_binary(_lcm))
lowers("pointwise", "aten.fmod.Tensor", "aten.fmod.Scalar")(_binary(_fmod))
lowers("pointwise", "aten.remainder.Tensor", "aten.remainder.Scalar")(_binary(_remainder))


# ---------------------------------------------------------------- pow


def _square_and_multiply(s: Scalars, base: SSAValue, exponent: SSAValue) -> SSAValue:
    """base ** exponent (>= 0) wrapping as integers do, one step per exponent bit
    (IREE cannot lower math.ipowi of a variable exponent)."""
    result, square, one = s.constant(1), base, s.constant(1)
    width = s.element.width.data
    for bit in range(width if s.unsigned else width - 1):  # a signed exponent's sign bit is 0 here
        if bit:
            square = s.mul(square, square)
        shifted = s.insert(arith.ShRUIOp(exponent, s.constant(bit))) if bit else exponent
        taken = s.compare("ne", s.insert(arith.AndIOp(shifted, one)), s.constant(0))
        result = s.select(taken, s.mul(result, square), result)
    return result


def _known_power(s: Scalars, base: SSAValue, exponent: int) -> SSAValue:
    """base ** exponent for a known exponent >= 0: the multiplications of its bits."""
    result, square = None, base
    while exponent:
        if exponent & 1:
            result = square if result is None else s.mul(result, square)
        exponent >>= 1
        if exponent:
            square = s.mul(square, square)
    return s.constant(1) if result is None else result


def _integer_power(s: Scalars, base: SSAValue, exponent: SSAValue) -> SSAValue:
    """torch's integer pow: a negative exponent gives 1 for base 1, +-1 for base -1, else 0
    (math.ipowi's own answer for it is not defined the same way)."""
    if s.dtype is DType.bool:  # x ** False = 1, x ** True = x
        return s.insert(arith.OrIOp(base, s.insert(arith.XOrIOp(exponent, s.constant(True)))))
    zero, one = s.constant(0), s.constant(1)
    power = _square_and_multiply(s, base, s.maximum(exponent, zero))
    if s.unsigned:
        return power
    odd = s.compare("ne", s.insert(arith.AndIOp(exponent, one)), zero)
    minus_one = s.constant(-1)
    at_minus_one = s.select(odd, minus_one, one)
    negative = s.select(s.compare("eq", base, one), one,
                        s.select(s.compare("eq", base, minus_one), at_minus_one, zero))
    return s.select(s.compare("lt", exponent, zero), negative, power)


def _float_power(s: Scalars, base: SSAValue, exponent: SSAValue) -> SSAValue:
    """C's pow from pow(|x|, y) (IREE's powf is exp(y log x), right for x > 0 only):
    an odd whole exponent keeps the base's sign (-0 and -inf included), a finite
    negative base to a fractional exponent is nan; x ** 0, 1 ** y and (-1) ** +-inf are 1,
    even for nan."""
    zero, one = s.constant(0), s.constant(1)
    magnitude = s.math(mathd.PowFOp, s.math(mathd.AbsFOp, base), exponent)
    whole = s.compare("eq", s.math(mathd.FloorOp, exponent), exponent)
    half_remainder = s.math(mathd.AbsFOp, s.insert(RemFOp(exponent, s.constant(2))))
    odd = s.compare("eq", half_remainder, one)  # false for inf and nan exponents
    signed = s.select(s.insert(arith.AndIOp(odd, _signbit(s, base))), s.insert(arith.NegfOp(magnitude)),
                      magnitude)
    finite_negative = s.insert(arith.AndIOp(s.compare("lt", base, zero),
                                            s.compare("ne", base, s.constant(-math.inf))))
    undefined = s.insert(arith.AndIOp(finite_negative, s.insert(arith.XOrIOp(whole, s.body.constant(True, _BOOL)))))
    value = s.select(undefined, s.constant(math.nan), signed)
    trivial = s.insert(arith.OrIOp(s.compare("eq", exponent, zero), s.compare("eq", base, one)))
    infinite = s.compare("eq", s.math(mathd.AbsFOp, exponent), s.constant(math.inf))
    trivial = s.insert(arith.OrIOp(trivial, s.insert(arith.AndIOp(s.compare("eq", base, s.constant(-1)), infinite))))
    return s.select(trivial, one, value)


def _power(s: Scalars, base: SSAValue, exponent: SSAValue) -> SSAValue:
    if s.is_float:
        return _float_power(s, base, exponent)
    return _integer_power(s, base, exponent)


@lowers("pointwise", "aten.pow.Tensor_Scalar")
def pow_tensor_scalar(lw: Lowering) -> list[SSAValue]:
    x, exponent = lw.op.arguments()
    result_float = is_float(element_type(lw.result_type().dtype))
    if result_float and exponent == 2:  # torch's float kernel: x * x
        return _elementwise(lw, [x], lambda s, v: s.mul(v[0], v[0]))
    if result_float and exponent == 0.5:
        return _elementwise(lw, [x], lambda s, v: s.math(mathd.SqrtOp, v[0]))
    if not result_float and type(exponent) is int and exponent >= 0 and lw.result_type().dtype is not DType.bool:
        return _elementwise(lw, [x], lambda s, v: _known_power(s, v[0], exponent))
    return _elementwise(lw, [x, exponent], lambda s, v: _power(s, v[0], v[1]))


lowers("pointwise", "aten.pow.Tensor_Tensor", "aten.pow.Scalar")(_binary(_power))


# ---------------------------------------------------------------- comparisons, bitwise, logical


def _comparison(predicate: str) -> Callable[[Lowering], list[SSAValue]]:
    """A bool result of comparing in the operands' promoted dtype (int < 1.5 in float32)."""
    def lower(lw: Lowering) -> list[SSAValue]:
        x, other = lw.op.arguments()
        compute = promoted_dtype([x, other])
        return _elementwise(lw, [x, other], lambda s, v: s.compare(predicate, v[0], v[1]), compute)
    return lower


for _predicate in _FLOAT_PREDICATES:
    lowers("pointwise", f"aten.{_predicate}.Tensor", f"aten.{_predicate}.Scalar")(_comparison(_predicate))

for _name, _op in (("and", arith.AndIOp), ("or", arith.OrIOp), ("xor", arith.XOrIOp)):
    lowers("pointwise", f"aten.bitwise_{_name}.Tensor", f"aten.bitwise_{_name}.Scalar")(
        _binary(lambda s, x, y, op=_op: s.insert(op(x, y))))


def _shift(left: bool) -> Callable[[Scalars, SSAValue, SSAValue], SSAValue]:
    """x << n or x >> n (arithmetic for signed types); a count below 0 or of the
    type's width or more gives 0, or the sign (-1 or 0) shifting right, as torch."""
    def compute(s: Scalars, x: SSAValue, count: SSAValue) -> SSAValue:
        if s.is_float or s.dtype is DType.bool:
            raise UnsupportedType(f"bit shifts take integers, found {s.dtype.name}")
        width = s.element.width.data
        outside = s.insert(arith.OrIOp(s.compare("lt", count, s.constant(0)),
                                       s.compare("ge", count, s.constant(width))))
        if left:
            return s.select(outside, s.constant(0), s.insert(arith.ShLIOp(x, count)))
        shifted = s.insert((arith.ShRUIOp if s.unsigned else arith.ShRSIOp)(x, count))
        sign = s.constant(0) if s.unsigned else s.select(s.compare("lt", x, s.constant(0)), s.constant(-1),
                                                          s.constant(0))
        return s.select(outside, sign, shifted)
    return compute


for _name, _left in (("left", True), ("right", False)):
    lowers("pointwise", f"aten.bitwise_{_name}_shift.Tensor", f"aten.bitwise_{_name}_shift.Tensor_Scalar",
           f"aten.bitwise_{_name}_shift.Scalar_Tensor", f"aten.__{_name[0]}shift__.Tensor",
           f"aten.__{_name[0]}shift__.Scalar")(_binary(_shift(_left)))


def _logical(op: type) -> Callable[[Lowering], list[SSAValue]]:
    """Both operands as truths (nonzero, nan included), combined as i1."""
    def lower(lw: Lowering) -> list[SSAValue]:
        x, other = lw.op.arguments()
        compute = promoted_dtype([x, other])
        return _elementwise(lw, [x, other], lambda s, v: s.insert(op(s.truth(v[0]), s.truth(v[1]))), compute)
    return lower


lowers("pointwise", "aten.logical_and.default")(_logical(arith.AndIOp))
lowers("pointwise", "aten.logical_or.default")(_logical(arith.OrIOp))
lowers("pointwise", "aten.logical_xor.default")(_logical(arith.XOrIOp))


def _invert(s: Scalars, x: SSAValue) -> SSAValue:
    return s.insert(arith.XOrIOp(x, s.constant(-1)))  # all ones; for bool, true


lowers("pointwise", "aten.bitwise_not.default")(_unary(_invert))


@lowers("pointwise", "aten.logical_not.default")
def logical_not(lw: Lowering) -> list[SSAValue]:
    (x,) = lw.op.arguments()

    def compute(s: Scalars, v: list[SSAValue]) -> SSAValue:
        return s.insert(arith.XOrIOp(s.truth(v[0]), s.body.constant(True, _BOOL)))

    return _elementwise(lw, [x], compute, x.type.dtype)


@lowers("pointwise", "aten.where.self")
def where(lw: Lowering) -> list[SSAValue]:
    """condition ? self : other; the condition (bool, or uint8 read as a truth) takes
    no part in promotion."""
    condition, x, other = lw.op.arguments()
    work = opmath_dtype(lw.result_type().dtype)

    def body(b: Body) -> SSAValue:
        s = Scalars(b, work)
        args = iter(b.args)
        truth = s.truth(next(args))
        values = [_convert(b, next(args), v.type.dtype, s.element) if isinstance(v, SSAValue) else s.constant(v)
                  for v in (x, other)]
        return s.select(truth, *values)

    tensors = [v for v in (condition, x, other) if isinstance(v, SSAValue)]
    return [lw.pointwise(tensors, lw.result_type(), body)]


# ---------------------------------------------------------------- clamping and activations


def _clamp_to(s: Scalars, x: SSAValue, low: SSAValue | None, high: SSAValue | None) -> SSAValue:
    """min(max(x, low), high): with low > high every element is high; nan propagates."""
    if low is not None:
        x = s.maximum(x, low)
    if high is not None:
        x = s.minimum(x, high)
    return x


@lowers("pointwise", "aten.clamp.default", "aten.clamp.Tensor", "aten.hardtanh.default")
def clamp(lw: Lowering) -> list[SSAValue]:
    x, low, high = lw.op.arguments()
    return _elementwise(lw, [x, low, high], lambda s, v: _clamp_to(s, *v))


@lowers("pointwise", "aten.relu.default")
def relu(lw: Lowering) -> list[SSAValue]:
    (x,) = lw.op.arguments()
    return _elementwise(lw, [x], lambda s, v: s.maximum(v[0], s.constant(0)))


@lowers("pointwise", "aten.leaky_relu.default")
def leaky_relu(lw: Lowering) -> list[SSAValue]:
    x, slope = lw.op.arguments()

    def compute(s: Scalars, v: list[SSAValue]) -> SSAValue:
        positive = s.compare("gt", v[0], s.constant(0))
        return s.select(positive, v[0], s.mul(v[0], s.constant(slope)))

    return _elementwise(lw, [x], compute)


@lowers("pointwise", "aten.elu.default")
def elu(lw: Lowering) -> list[SSAValue]:
    """x <= 0 ? expm1(x * input_scale) * alpha * scale : x * scale."""
    x, alpha, scale, input_scale = lw.op.arguments()

    def compute(s: Scalars, v: list[SSAValue]) -> SSAValue:
        negative = s.math(mathd.ExpM1Op, s.mul(v[0], s.constant(input_scale)))
        negative = s.mul(negative, s.constant(alpha * scale))
        return s.select(s.compare("le", v[0], s.constant(0)), negative, s.mul(v[0], s.constant(scale)))

    return _elementwise(lw, [x], compute)


def _sigmoid(s: Scalars, x: SSAValue) -> SSAValue:
    """1 / (1 + exp(-x)), torch's formula."""
    denominator = s.add(s.constant(1), s.math(mathd.ExpOp, s.insert(arith.NegfOp(x))))
    return s.insert(arith.DivfOp(s.constant(1), denominator))


lowers("pointwise", "aten.sigmoid.default")(_unary(_sigmoid))


@lowers("pointwise", "aten.gelu.default")
def gelu(lw: Lowering) -> list[SSAValue]:
    """x / 2 (1 + erf(x / sqrt 2)), or with approximate="tanh"
    x / 2 (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))."""
    x, approximate = lw.op.arguments()
    if approximate not in ("none", "tanh"):
        raise UnsupportedType(f"gelu: expected approximate 'none' or 'tanh', found {approximate!r}")

    def compute(s: Scalars, v: list[SSAValue]) -> SSAValue:
        (value,) = v
        if approximate == "tanh":
            cube = s.mul(s.mul(value, value), value)
            inner = s.mul(s.constant(math.sqrt(2 / math.pi)), s.add(value, s.mul(s.constant(0.044715), cube)))
            curve = s.math(mathd.TanhOp, inner)
        else:
            curve = s.math(mathd.ErfOp, s.mul(value, s.constant(math.sqrt(0.5))))
        return s.mul(s.mul(s.constant(0.5), value), s.add(s.constant(1), curve))

    return _elementwise(lw, [x], compute)


# ---------------------------------------------------------------- unary maths

# float-valued: an integer or bool operand computes in the float result dtype
_MATH_UNARY = {
    "exp": mathd.ExpOp, "exp2": mathd.Exp2Op, "expm1": mathd.ExpM1Op, "log": mathd.LogOp,
    "log2": mathd.Log2Op, "log1p": mathd.Log1pOp, "sqrt": mathd.SqrtOp,
    "rsqrt": mathd.RsqrtOp, "sin": mathd.SinOp, "cos": mathd.CosOp, "tan": mathd.TanOp,
    "asin": mathd.AsinOp, "acos": mathd.AcosOp, "atan": mathd.AtanOp, "sinh": mathd.SinhOp,
    "cosh": mathd.CoshOp, "tanh": mathd.TanhOp, "asinh": mathd.AsinhOp, "acosh": mathd.AcoshOp,
    "atanh": mathd.AtanhOp, "erf": mathd.ErfOp,
}
for _name, _op in _MATH_UNARY.items():
    lowers("pointwise", f"aten.{_name}.default")(_unary(lambda s, x, op=_op: s.math(op, x)))

# IREE's CPU backend has no log10 of its own (it would call libm's log10f, not linked)
lowers("pointwise", "aten.log10.default")(_unary(
    lambda s, x: s.insert(arith.DivfOp(s.math(mathd.LogOp, x), s.constant(math.log(10))))))
lowers("pointwise", "aten.reciprocal.default")(_unary(lambda s, x: s.insert(arith.DivfOp(s.constant(1), x))))


def _whole(op: type) -> Callable[[Scalars, SSAValue], SSAValue]:
    """floor, ceil, round, trunc: integers and bools are whole already."""
    return lambda s, x: s.math(op, x) if s.is_float else x


for _name, _op in (("floor", mathd.FloorOp), ("ceil", mathd.CeilOp), ("round", mathd.RoundEvenOp),
                   ("trunc", mathd.TruncOp)):  # roundeven: half to even, as torch
    lowers("pointwise", f"aten.{_name}.default")(_unary(_whole(_op)))


@lowers("pointwise", "aten.round.decimals")
def round_decimals(lw: Lowering) -> list[SSAValue]:
    """torch: nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d for d < 0."""
    x, decimals = lw.op.arguments()

    def compute(s: Scalars, v: list[SSAValue]) -> SSAValue:
        scale = s.constant(10.0 ** abs(decimals))
        if decimals < 0:
            return s.mul(s.math(mathd.RoundEvenOp, s.insert(arith.DivfOp(v[0], scale))), scale)
        return s.insert(arith.DivfOp(s.math(mathd.RoundEvenOp, s.mul(v[0], scale)), scale))

    return _elementwise(lw, [x], compute)


def _abs(s: Scalars, x: SSAValue) -> SSAValue:
    if s.is_float:
        return s.math(mathd.AbsFOp, x)
    return x if s.unsigned else s.math(mathd.AbsIOp, x)


def _neg(s: Scalars, x: SSAValue) -> SSAValue:
    return s.insert(arith.NegfOp(x)) if s.is_float else s.sub(s.constant(0), x)


def _sign(s: Scalars, x: SSAValue) -> SSAValue:
    """(0 < x) - (x < 0): sign(nan) and sign(-0.0) are 0, as torch."""
    if s.dtype is DType.bool:
        return x
    zero = s.constant(0)
    below = s.select(s.compare("lt", x, zero), s.constant(-1), zero)
    return s.select(s.compare("gt", x, zero), s.constant(1), below)


def _signbit(s: Scalars, x: SSAValue) -> SSAValue:
    """The sign bit: true for -0.0 and for a nan with it set (copysign keeps it)."""
    if not s.is_float:
        return s.compare("lt", x, s.constant(0)) if not s.unsigned else s.body.constant(False, _BOOL)
    return s.compare("lt", s.math(mathd.CopySignOp, s.constant(1), x), s.constant(0))


lowers("pointwise", "aten.abs.default")(_unary(_abs))
lowers("pointwise", "aten.neg.default")(_unary(_neg))
lowers("pointwise", "aten.sign.default")(_unary(_sign))


def _float_test(test: Callable[[Scalars, SSAValue], SSAValue]) -> Callable[[Lowering], list[SSAValue]]:
    """isnan, isinf, signbit: a bool of the operand in its own dtype (integers are never nan or inf)."""
    def lower(lw: Lowering) -> list[SSAValue]:
        (x,) = lw.op.arguments()
        return _elementwise(lw, [x], lambda s, v: test(s, v[0]), x.type.dtype)
    return lower


def _isnan(s: Scalars, x: SSAValue) -> SSAValue:
    return s.insert(arith.CmpfOp(x, x, "uno")) if s.is_float else s.body.constant(False, _BOOL)


def _isinf(s: Scalars, x: SSAValue) -> SSAValue:
    if not s.is_float:
        return s.body.constant(False, _BOOL)
    return s.insert(arith.CmpfOp(s.math(mathd.AbsFOp, x), s.constant(math.inf), "oeq"))


def _angle(s: Scalars, x: SSAValue) -> SSAValue:
    """A real number's argument: pi below zero, else 0; nan stays nan."""
    zero = s.constant(0)
    value = s.select(s.compare("lt", x, zero), s.constant(math.pi), zero)
    return s.select(s.insert(arith.CmpfOp(x, x, "uno")), x, value)


lowers("pointwise", "aten.angle.default")(_unary(_angle))
lowers("pointwise", "aten.isnan.default")(_float_test(_isnan))
lowers("pointwise", "aten.isinf.default")(_float_test(_isinf))
lowers("pointwise", "aten.signbit.default")(_float_test(_signbit))


# ---------------------------------------------------------------- special functions


def _series(s: Scalars, t: SSAValue, coefficients: Sequence[float]) -> SSAValue:
    """sum c_k t^k by Horner's rule."""
    value = s.constant(coefficients[-1])
    for coefficient in reversed(coefficients[:-1]):
        value = s.add(s.constant(coefficient), s.mul(t, value))
    return value


# Numerical Recipes' erfcc (Chebyshev fit): erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z / 2),
# for z >= 0, relative error below 1.2e-7 (IREE has no math.erfc)
_ERFC_COEFFICIENTS = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
                      -1.13520398, 1.48851587, -0.82215223, 0.17087277)


def _erfc(s: Scalars, x: SSAValue) -> SSAValue:
    """1 - erf(x) without its cancellation: the tail's own formula for |x|, and
    erfc(-z) = 2 - erfc(z)."""
    z = s.math(mathd.AbsFOp, x)
    t = s.insert(arith.DivfOp(s.constant(1), s.add(s.constant(1), s.mul(s.constant(0.5), z))))
    series = _series(s, t, _ERFC_COEFFICIENTS)
    tail = s.mul(t, s.math(mathd.ExpOp, s.sub(series, s.mul(z, z))))
    return s.select(s.compare("lt", x, s.constant(0)), s.sub(s.constant(2), tail), tail)


lowers("pointwise", "aten.erfc.default")(_unary(_erfc))


def _erfcx(s: Scalars, x: SSAValue) -> SSAValue:
    """e^(x^2) erfc(x): the tail's fit without its e^(-z^2) (no overflow, no underflow);
    below 0, 2 e^(x^2) less it."""
    z = s.math(mathd.AbsFOp, x)
    t = s.insert(arith.DivfOp(s.constant(1), s.add(s.constant(1), s.mul(s.constant(0.5), z))))
    scaled_tail = s.mul(t, s.math(mathd.ExpOp, _series(s, t, _ERFC_COEFFICIENTS)))
    mirrored = s.sub(s.mul(s.constant(2), s.math(mathd.ExpOp, s.mul(x, x))), scaled_tail)
    return s.select(s.compare("lt", x, s.constant(0)), mirrored, scaled_tail)


lowers("pointwise", "aten.special_erfcx.default")(_unary(_erfcx))


# sin t / t and cos t as series in t^2, to t^14: below float32's rounding on |t| <= pi / 2
_SIN_SERIES = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(8))
_COS_SERIES = tuple((-1) ** k / math.factorial(2 * k) for k in range(8))


# Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011), single
# precision: erfinv(x) = x P(w), w = -log((1 - x)(1 + x)), one polynomial in w - 2.5
# below w = 5 and one in sqrt(w) - 3 above (relative error ~3e-7 in float32)
_ERFINV_CENTRAL = (1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087, -4.39150654e-06,
                   -3.5233877e-06, 3.43273939e-07, 2.81022636e-08)
_ERFINV_TAIL = (2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773, -0.00367342844,
                0.00134934322, 0.000100950558, -0.000200214257)


def _erfinv(s: Scalars, x: SSAValue) -> SSAValue:
    """erfinv by Giles' polynomials; +-inf at +-1, nan beyond, -0 stays -0."""
    one = s.constant(1)
    w = s.insert(arith.NegfOp(s.math(mathd.LogOp, s.mul(s.sub(one, x), s.add(one, x)))))
    central = _series(s, s.sub(w, s.constant(2.5)), _ERFINV_CENTRAL)
    tail = _series(s, s.sub(s.math(mathd.SqrtOp, w), s.constant(3)), _ERFINV_TAIL)
    value = s.mul(s.select(s.compare("lt", w, s.constant(5)), central, tail), x)
    edge = s.compare("eq", s.math(mathd.AbsFOp, x), one)
    return s.select(edge, s.math(mathd.CopySignOp, s.constant(math.inf), x), value)


lowers("pointwise", "aten.erfinv.default")(_unary(_erfinv))


def _ndtri(s: Scalars, p: SSAValue) -> SSAValue:
    """The normal quantile: for the lower tail q = min(p, 1 - p), Giles' erfinv of 2q - 1
    (its w = -log(4 q (1 - q)) from q itself, so a tiny q keeps its digits), or the tail's
    asymptotic form past its range, as the first guess, then three Newton steps on Phi(y) = q with Phi from erfc's tail fit, the step
    (Phi - q) / phi = Phi / phi (1 - q / Phi) formed without Phi's underflow."""
    one, zero, half = s.constant(1), s.constant(0), s.constant(0.5)
    q = s.minimum(p, s.sub(one, p))
    w = s.insert(arith.NegfOp(s.math(mathd.LogOp, s.mul(s.constant(4), s.mul(q, s.sub(one, q))))))
    central = _series(s, s.sub(w, s.constant(2.5)), _ERFINV_CENTRAL)
    tail = _series(s, s.sub(s.math(mathd.SqrtOp, w), s.constant(3)), _ERFINV_TAIL)
    y = s.mul(s.constant(math.sqrt(2)), s.mul(s.select(s.compare("lt", w, s.constant(5)), central, tail),
                                               s.sub(s.add(q, q), one)))
    # past Giles' range (w > 16, q < 1e-7): y^2 = L - log(2 pi L), L = -2 log q
    log_q = s.math(mathd.LogOp, q)
    twice = s.mul(s.constant(-2), log_q)
    far = s.sub(twice, s.math(mathd.LogOp, s.mul(s.constant(2 * math.pi), twice)))
    y = s.select(s.compare("gt", w, s.constant(16)), s.insert(arith.NegfOp(s.math(mathd.SqrtOp, far))), y)
    for _ in range(3):
        z = s.mul(s.insert(arith.NegfOp(y)), s.constant(math.sqrt(0.5)))  # >= 0
        t = s.insert(arith.DivfOp(one, s.add(one, s.mul(half, z))))
        fit = _series(s, t, _ERFC_COEFFICIENTS)
        log_tail = s.add(s.math(mathd.LogOp, s.mul(half, t)), fit)  # log Phi(y) + z^2
        ratio = s.math(mathd.ExpOp, s.add(s.sub(log_q, log_tail), s.mul(z, z)))  # q / Phi
        scale = s.mul(s.constant(math.sqrt(2 * math.pi)), s.mul(half, s.mul(t, s.math(mathd.ExpOp, fit))))
        y = s.sub(y, s.mul(scale, s.sub(one, ratio)))
    value = s.select(s.compare("gt", p, half), s.insert(arith.NegfOp(y)), y)
    value = s.select(s.compare("eq", p, half), zero, value)
    value = s.select(s.compare("eq", p, zero), s.constant(-math.inf), value)
    value = s.select(s.compare("eq", p, one), s.constant(math.inf), value)
    outside = s.insert(arith.OrIOp(s.compare("lt", p, zero), s.compare("gt", p, one)))
    return s.select(outside, s.constant(math.nan), value)


lowers("pointwise", "aten.special_ndtri.default")(_unary(_ndtri))


# Abramowitz and Stegun 9.8.1-9.8.4 (Numerical Recipes' bessi0, bessi1): I0 and I1 as
# polynomials in (x / 3.75)^2 below |x| = 3.75, e^|x| / sqrt|x| times polynomials in
# 3.75 / |x| above (relative error below 6e-7, measured against scipy)
_BESSEL_I_SMALL = {0: (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2),
                   1: (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3)}
_BESSEL_I_LARGE = {
    0: (0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
        -0.1647633e-1, 0.392377e-2),
    1: (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
        0.1787654e-1, -0.420059e-2)}


def _bessel_i(order: int, scaled: bool) -> Callable[[Scalars, SSAValue], SSAValue]:
    """The modified Bessel function I0 or I1 of x, or e^-|x| times it (``scaled``: i0e, i1e);
    I1 is odd."""
    def compute(s: Scalars, x: SSAValue) -> SSAValue:
        magnitude = s.math(mathd.AbsFOp, x)
        ratio = s.insert(arith.DivfOp(x, s.constant(3.75)))
        near = _series(s, s.mul(ratio, ratio), _BESSEL_I_SMALL[order])
        if order == 1:
            near = s.mul(near, magnitude)
        if scaled:
            near = s.mul(near, s.math(mathd.ExpOp, s.insert(arith.NegfOp(magnitude))))
        far = _series(s, s.insert(arith.DivfOp(s.constant(3.75), magnitude)), _BESSEL_I_LARGE[order])
        if scaled:
            far = s.mul(far, s.math(mathd.RsqrtOp, magnitude))
        else:  # e^|x| / sqrt|x| * P as one exp (P > 0): finite up to I's own overflow
            exponent = s.sub(s.add(magnitude, s.math(mathd.LogOp, far)),
                             s.mul(s.constant(0.5), s.math(mathd.LogOp, magnitude)))
            far = s.math(mathd.ExpOp, exponent)
            # at +-inf nan, as the interpreter's (scipy's: e^x / sqrt x is inf / inf there)
            far = s.select(s.compare("eq", magnitude, s.constant(math.inf)), s.constant(math.nan), far)
        value = s.select(s.compare("lt", magnitude, s.constant(3.75)), near, far)
        return s.math(mathd.CopySignOp, value, x) if order == 1 else value
    return compute


lowers("pointwise", "aten.i0.default", "aten.special_modified_bessel_i0.default")(_unary(_bessel_i(0, False)))
lowers("pointwise", "aten.special_i0e.default")(_unary(_bessel_i(0, True)))
lowers("pointwise", "aten.special_i1.default", "aten.special_modified_bessel_i1.default")(_unary(_bessel_i(1, False)))
lowers("pointwise", "aten.special_i1e.default")(_unary(_bessel_i(1, True)))


# Abramowitz and Stegun 9.8.5-9.8.8 (Numerical Recipes' bessk0, bessk1): K0 and K1 from
# log(x / 2) I(x) and a polynomial in x^2 / 4 up to x = 2, e^-x / sqrt x times a
# polynomial in 2 / x above (relative error below 2e-7, measured against scipy)
_BESSEL_K_SMALL = {0: (-0.57721566, 0.42278420, 0.23069756, 0.3488590e-1, 0.262698e-2, 0.10750e-3, 0.74e-5),
                   1: (1.0, 0.15443144, -0.67278579, -0.18156897, -0.1919402e-1, -0.110404e-2, -0.4686e-4)}
_BESSEL_K_LARGE = {0: (1.25331414, -0.7832358e-1, 0.2189568e-1, -0.1062446e-1, 0.587872e-2, -0.251540e-2,
                       0.53208e-3),
                   1: (1.25331414, 0.23498619, -0.3655620e-1, 0.1504268e-1, -0.780353e-2, 0.325614e-2,
                       -0.68245e-3)}


def _bessel_k(order: int, scaled: bool) -> Callable[[Scalars, SSAValue], SSAValue]:
    """The modified Bessel function K0 or K1 of x, or e^x times it (``scaled``);
    inf at 0, nan below."""
    def compute(s: Scalars, x: SSAValue) -> SSAValue:
        log_half = s.math(mathd.LogOp, s.mul(x, s.constant(0.5)))
        near = _series(s, s.mul(s.mul(x, x), s.constant(0.25)), _BESSEL_K_SMALL[order])
        if order == 0:
            near = s.sub(near, s.mul(log_half, _bessel_i(0, False)(s, x)))
        else:
            near = s.add(s.insert(arith.DivfOp(near, x)), s.mul(log_half, _bessel_i(1, False)(s, x)))
        if scaled:
            near = s.mul(near, s.math(mathd.ExpOp, x))
        far = _series(s, s.insert(arith.DivfOp(s.constant(2), x)), _BESSEL_K_LARGE[order])
        decay = (s.math(mathd.RsqrtOp, x) if scaled else
                 s.math(mathd.ExpOp, s.sub(s.insert(arith.NegfOp(x)),
                                           s.mul(s.constant(0.5), s.math(mathd.LogOp, x)))))
        value = s.select(s.compare("le", x, s.constant(2)), near, s.mul(far, decay))
        value = s.select(s.compare("lt", x, s.constant(0)), s.constant(math.nan), value)
        return s.select(s.compare("eq", x, s.constant(0)), s.constant(math.inf), value)
    return compute


lowers("pointwise", "aten.special_modified_bessel_k0.default")(_unary(_bessel_k(0, False)))
lowers("pointwise", "aten.special_modified_bessel_k1.default")(_unary(_bessel_k(1, False)))
lowers("pointwise", "aten.special_scaled_modified_bessel_k0.default")(_unary(_bessel_k(0, True)))
lowers("pointwise", "aten.special_scaled_modified_bessel_k1.default")(_unary(_bessel_k(1, True)))


# Numerical Recipes' bessj0, bessj1, bessy0, bessy1 (Hart's rational fits): below |x| = 8 a
# ratio of polynomials in x^2, above sqrt(2 / (pi x)) (cos or sin of x - phase) P - z Q)
# with z = 8 / x (absolute error below 4e-8, measured against scipy)
_BESSEL_JY_NEAR = {
    "j0": ((57568490574.0, -13362590354.0, 651619640.7, -11214424.18, 77392.33017, -184.9052456),
           (57568490411.0, 1029532985.0, 9494680.718, 59272.64853, 267.8532712, 1.0)),
    "j1": ((72362614232.0, -7895059235.0, 242396853.1, -2972611.439, 15704.48260, -30.16036606),
           (144725228442.0, 2300535178.0, 18583304.74, 99447.43394, 376.9991397, 1.0)),
    "y0": ((-2957821389.0, 7062834065.0, -512359803.6, 10879881.29, -86327.92757, 228.4622733),
           (40076544269.0, 745249964.8, 7189466.438, 47447.26470, 226.1030244, 1.0)),
    "y1": ((-0.4900604943e13, 0.1275274390e13, -0.5153438139e11, 0.7349264551e9, -0.4237922726e7,
            0.8511937935e4),
           (0.2499580570e14, 0.4244419664e12, 0.3733650367e10, 0.2245904002e8, 0.1020426050e6,
            0.3549632885e3, 1.0))}
_BESSEL_JY_FAR = {  # (phase, P, Q) of each order
    0: (0.785398164, (1.0, -0.1098628627e-2, 0.2734510407e-4, -0.2073370639e-5, 0.2093887211e-6),
        (-0.1562499995e-1, 0.1430488765e-3, -0.6911147651e-5, 0.7621095161e-6, -0.934935152e-7)),
    1: (2.356194491, (1.0, 0.183105e-2, -0.3516396496e-4, 0.2457520174e-5, -0.240337019e-6),
        (0.04687499995, -0.2002690873e-3, 0.8449199096e-5, -0.88228987e-6, 0.105787412e-6))}


def _bessel_near(s: Scalars, name: str, x: SSAValue) -> SSAValue:
    numerator, denominator = _BESSEL_JY_NEAR[name]
    square = s.mul(x, x)
    ratio = s.insert(arith.DivfOp(_series(s, square, numerator), _series(s, square, denominator)))
    return s.mul(x, ratio) if name.endswith("1") else ratio


def _bessel_far(s: Scalars, order: int, second_kind: bool, magnitude: SSAValue) -> SSAValue:
    phase, p_series, q_series = _BESSEL_JY_FAR[order]
    z = s.insert(arith.DivfOp(s.constant(8), magnitude))
    square = s.mul(z, z)
    shifted = s.sub(magnitude, s.constant(phase))
    cosine, sine = s.math(mathd.CosOp, shifted), s.math(mathd.SinOp, shifted)
    p, q = _series(s, square, p_series), s.mul(z, _series(s, square, q_series))
    wave = (s.add(s.mul(sine, p), s.mul(cosine, q)) if second_kind
            else s.sub(s.mul(cosine, p), s.mul(sine, q)))
    amplitude = s.math(mathd.SqrtOp, s.insert(arith.DivfOp(s.constant(2 / math.pi), magnitude)))
    value = s.mul(amplitude, wave)  # nan at +-inf, as the interpreter's (scipy's)
    return s.select(s.compare("eq", magnitude, s.constant(math.inf)), s.constant(math.nan), value)


def _bessel_j(order: int) -> Callable[[Scalars, SSAValue], SSAValue]:
    """J0 (even) or J1 (odd) of the first kind."""
    def compute(s: Scalars, x: SSAValue) -> SSAValue:
        magnitude = s.math(mathd.AbsFOp, x)
        far = _bessel_far(s, order, False, magnitude)
        if order == 1:  # odd
            far = s.select(s.compare("lt", x, s.constant(0)), s.insert(arith.NegfOp(far)), far)
        return s.select(s.compare("lt", magnitude, s.constant(8)), _bessel_near(s, f"j{order}", x), far)
    return compute


def _bessel_y(order: int) -> Callable[[Scalars, SSAValue], SSAValue]:
    """Y0 or Y1 of the second kind: -inf at 0, nan below."""
    def compute(s: Scalars, x: SSAValue) -> SSAValue:
        logarithm = s.mul(s.constant(2 / math.pi), s.math(mathd.LogOp, x))
        near = s.add(_bessel_near(s, f"y{order}", x), s.mul(logarithm, _bessel_j(order)(s, x)))
        if order == 1:
            near = s.sub(near, s.insert(arith.DivfOp(s.constant(2 / math.pi), x)))
        value = s.select(s.compare("lt", x, s.constant(8)), near, _bessel_far(s, order, True, x))
        value = s.select(s.compare("eq", x, s.constant(0)), s.constant(-math.inf), value)
        return s.select(s.compare("lt", x, s.constant(0)), s.constant(math.nan), value)
    return compute


lowers("pointwise", "aten.special_bessel_j0.default")(_unary(_bessel_j(0)))
lowers("pointwise", "aten.special_bessel_j1.default")(_unary(_bessel_j(1)))
lowers("pointwise", "aten.special_bessel_y0.default")(_unary(_bessel_y(0)))
lowers("pointwise", "aten.special_bessel_y1.default")(_unary(_bessel_y(1)))


def _spherical_bessel_j0(s: Scalars, x: SSAValue) -> SSAValue:
    """sin(x) / x: its series near 0 (to x^14, as sin's), 0 at +-inf."""
    near = _series(s, s.mul(x, x), _SIN_SERIES)
    far = s.insert(arith.DivfOp(s.math(mathd.SinOp, x), x))
    magnitude = s.math(mathd.AbsFOp, x)
    value = s.select(s.compare("lt", magnitude, s.constant(1)), near, far)
    return s.select(s.compare("eq", magnitude, s.constant(math.inf)), s.constant(0), value)


lowers("pointwise", "aten.special_spherical_bessel_j0.default")(_unary(_spherical_bessel_j0))


def _reflected(s: Scalars, x: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
    """(x < 1/2, y = 1 - x there and x elsewhere, sin(pi r), cos(pi r)) for r = x - round(x),
    exact: the reflection formulas' parts, their sine right to its last digits near the
    poles (IREE's sin is right to 3e-7 absolute only) and for large |x|."""
    reflect = s.compare("lt", x, s.constant(0.5))
    y = s.select(reflect, s.sub(s.constant(1), x), x)
    angle = s.mul(s.constant(math.pi), s.sub(x, s.math(mathd.RoundEvenOp, x)))
    square = s.mul(angle, angle)
    return reflect, y, s.mul(angle, _series(s, square, _SIN_SERIES)), _series(s, square, _COS_SERIES)


def _shifted(s: Scalars, y: SSAValue, steps: int) -> tuple[SSAValue, SSAValue, list[SSAValue]]:
    """y moved up by ``steps`` when below it (the asymptotic series needs a large
    argument): (whether it moved, the argument, the terms y + k it moved over)."""
    small = s.compare("lt", y, s.constant(steps))
    z = s.select(small, s.add(y, s.constant(steps)), y)
    return small, z, [s.add(y, s.constant(k)) if k else y for k in range(steps)]


def _lgamma(s: Scalars, x: SSAValue) -> SSAValue:
    """log |Gamma(x)|: Stirling's series at z >= 8 (x shifted up, the shift's product
    divided out), reflected below 1/2 as log(pi / |sin(pi x)|) - lgamma(1 - x);
    inf at the poles and at +-inf."""
    reflect, y, sine, _ = _reflected(s, x)
    small, z, terms = _shifted(s, y, 8)
    product = terms[0]
    for term in terms[1:]:
        product = s.mul(product, term)
    inverse = s.insert(arith.DivfOp(s.constant(1), z))
    square = s.mul(inverse, inverse)
    series = _series(s, square, (1 / 12, -1 / 360, 1 / 1260, -1 / 1680))
    stirling = s.add(s.sub(s.mul(s.sub(z, s.constant(0.5)), s.math(mathd.LogOp, z)), z),
                     s.add(s.constant(0.5 * math.log(2 * math.pi)), s.mul(series, inverse)))
    value = s.select(small, s.sub(stirling, s.math(mathd.LogOp, product)), stirling)
    magnitude = s.math(mathd.AbsFOp, sine)
    mirrored = s.sub(s.math(mathd.LogOp, s.insert(arith.DivfOp(s.constant(math.pi), magnitude))), value)
    value = s.select(reflect, mirrored, value)
    infinite = s.compare("eq", s.math(mathd.AbsFOp, x), s.constant(math.inf))
    return s.select(infinite, s.constant(math.inf), value)


def _digamma(s: Scalars, x: SSAValue) -> SSAValue:
    """psi(x): the asymptotic series at z >= 6 less the shift's 1 / (y + k), reflected
    below 1/2 as psi(1 - x) - pi / tan(pi x); -inf at 0 (+inf at -0), nan at the
    negative integers."""
    reflect, y, sine, cosine = _reflected(s, x)
    small, z, terms = _shifted(s, y, 6)
    one = s.constant(1)
    steps = s.insert(arith.DivfOp(one, terms[0]))
    for term in terms[1:]:
        steps = s.add(steps, s.insert(arith.DivfOp(one, term)))
    inverse = s.insert(arith.DivfOp(one, z))
    square = s.mul(inverse, inverse)
    series = _series(s, square, (1 / 12, -1 / 120, 1 / 252))
    value = s.sub(s.sub(s.math(mathd.LogOp, z), s.mul(s.constant(0.5), inverse)), s.mul(series, square))
    value = s.select(small, s.sub(value, steps), value)
    cotangent = s.insert(arith.DivfOp(cosine, sine))
    value = s.select(reflect, s.sub(value, s.mul(s.constant(math.pi), cotangent)), value)
    pole = s.insert(arith.AndIOp(s.compare("lt", x, s.constant(0)),
                                 s.compare("eq", s.math(mathd.FloorOp, x), x)))
    value = s.select(pole, s.constant(math.nan), value)
    at_zero = s.math(mathd.CopySignOp, s.constant(math.inf), s.insert(arith.NegfOp(x)))
    return s.select(s.compare("eq", x, s.constant(0)), at_zero, value)


lowers("pointwise", "aten.lgamma.default")(_unary(_lgamma))
lowers("pointwise", "aten.digamma.default")(_unary(_digamma))

_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66)  # B2 .. B10


def _sum_below(s: Scalars, start: SSAValue, limit: int, term: Callable[[Scalars, SSAValue], SSAValue]
               ) -> tuple[SSAValue, SSAValue]:
    """(z, the sum of term(start + k) for start + k < limit): the first z at the limit or
    past it, where an asymptotic series takes over. Stops at -inf and at |start| >= 2^24,
    where z + 1 is z."""
    def going(t: Scalars, v: Carried) -> SSAValue:
        moving = t.compare("ne", t.add(v[0], t.constant(1)), v[0])
        return t.insert(arith.AndIOp(t.compare("lt", v[0], t.constant(limit)), moving))

    z, total = _while(s, [start, s.constant(0)], going,
                      lambda t, v: [t.add(v[0], t.constant(1)), t.add(v[1], term(t, v[0]))])
    return z, total


def _polygamma_of(s: Scalars, order: int, x: SSAValue) -> SSAValue:
    """psi^(n)(x) = (-1)^(n+1) n! sum_k 1 / (x + k)^(n+1): the terms below z = 6 summed
    by a loop (scf.while: any x, negative ones too), the rest by its asymptotic series
    (n-1)! / z^n + n! / (2 z^(n+1)) + sum_j B_2j (2j+n-1)! / ((2j)! z^(2j+n)). At the
    poles (x <= 0 whole) +-inf; the interpreter's nan at +inf (n >= 2) and -inf (n = 1)."""
    z, total = _sum_below(s, x, 6, lambda t, z: t.insert(arith.DivfOp(t.constant(1), _known_power(t, z, order + 1))))
    inverse = s.insert(arith.DivfOp(s.constant(1), z))
    corrections = [math.factorial(2 * j + order - 1) / math.factorial(2 * j) * bernoulli
                   for j, bernoulli in enumerate(_BERNOULLI, start=1)]
    series = s.add(s.mul(s.constant(math.factorial(order) / 2), inverse),
                   _series(s, s.mul(inverse, inverse), (math.factorial(order - 1), *corrections)))
    asymptotic = s.mul(series, _known_power(s, inverse, order))
    value = s.add(s.mul(s.constant(math.factorial(order)), total), asymptotic)
    sign = 1 if order % 2 else -1
    value = s.mul(s.constant(sign), value)
    pole = s.insert(arith.AndIOp(s.compare("le", x, s.constant(0)), s.compare("eq", s.math(mathd.FloorOp, x), x)))
    value = s.select(pole, s.constant(sign * math.inf), value)
    undefined = s.constant(-math.inf if order == 1 else math.inf)
    return s.select(s.compare("eq", x, undefined), s.constant(math.nan), value)


_BERNOULLI_12 = (*_BERNOULLI, -691 / 2730)  # B2 .. B12


def _zeta(s: Scalars, order: SSAValue, q: SSAValue) -> SSAValue:
    """Hurwitz's zeta(s, q) = sum_k (q + k)^-s: the terms below q + k = 9 summed by a
    loop, the rest by Euler-Maclaurin (z^(1-s) / (s-1) + z^-s / 2 + the Bernoulli terms
    to B12), C's pow for a negative q + k; inf at s = 1 and at the poles (q <= 0
    whole), nan for s < 1 and at q = +inf, at s = +inf only q^-s, as the interpreter's
    (scipy's)."""
    z, total = _sum_below(s, q, 9, lambda t, z: _float_power(t, z, t.insert(arith.NegfOp(order))))
    power = s.math(mathd.PowFOp, z, s.insert(arith.NegfOp(order)))  # z^-s, z >= 9
    one = s.constant(1)
    value = s.add(total, s.insert(arith.DivfOp(s.mul(power, z), s.sub(order, one))))
    value = s.add(value, s.mul(power, s.constant(0.5)))
    inverse = s.insert(arith.DivfOp(one, z))
    factor = s.mul(power, inverse)  # z^(-s-2j+1) for j = 1
    rising = order  # s (s+1) ... (s+2j-2)
    for j, bernoulli in enumerate(_BERNOULLI_12, start=1):
        if j > 1:
            factor = s.mul(factor, s.mul(inverse, inverse))
            rising = s.mul(rising, s.mul(s.add(order, s.constant(2 * j - 3)), s.add(order, s.constant(2 * j - 2))))
        coefficient = s.constant(bernoulli / math.factorial(2 * j))
        value = s.add(value, s.mul(coefficient, s.mul(rising, factor)))
    pole = s.insert(arith.AndIOp(s.compare("le", q, s.constant(0)), s.compare("eq", s.math(mathd.FloorOp, q), q)))
    value = s.select(pole, s.constant(math.inf), value)
    # s = inf: q^-inf alone counts (0 above 1, 1 at 1, inf below)
    at_infinity = s.select(s.compare("gt", q, one), s.constant(0), s.select(s.compare("eq", q, one), one,
                                                                               s.constant(math.inf)))
    value = s.select(s.compare("eq", order, s.constant(math.inf)), at_infinity, value)
    # scipy's order: s < 1 or q nan gives nan, but s = 1 inf; the interpreter's q = +inf nan
    undefined = s.insert(arith.OrIOp(s.compare("lt", order, one), s.insert(arith.CmpfOp(q, q, "uno"))))
    value = s.select(undefined, s.constant(math.nan), value)
    value = s.select(s.compare("eq", order, one), s.constant(math.inf), value)
    return s.select(s.compare("eq", q, s.constant(math.inf)), s.constant(math.nan), value)


lowers("pointwise", "aten.special_zeta.default", "aten.special_zeta.other_scalar", "aten.special_zeta.self_scalar")(
    _binary(_zeta))


# the incomplete gamma function's loops stop at the float's epsilon (or after 2000 steps)
_EPSILON = {32: 2.0**-24, 64: 2.0**-53}
_STEPS = 2000


def _gamma_series(s: Scalars, a: SSAValue, x: SSAValue) -> SSAValue:
    """sum_n x^n / ((a+1) ... (a+n)): P(a, x) = it times x^a e^-x / Gamma(a + 1) (Cephes' igam)."""
    epsilon = _EPSILON[s.element.bitwidth]

    def going(t: Scalars, v: Carried) -> SSAValue:
        relative = t.insert(arith.DivfOp(v[1], v[2]))
        return t.insert(arith.AndIOp(t.compare("gt", relative, t.constant(epsilon)),
                                     t.compare("lt", v[3], t.constant(_STEPS))))

    def step(t: Scalars, v: Carried) -> Carried:
        r = t.add(v[0], t.constant(1))
        c = t.mul(v[1], t.insert(arith.DivfOp(x, r)))
        return [r, c, t.add(v[2], c), t.add(v[3], t.constant(1))]

    one = s.constant(1)
    return _while(s, [a, one, one, s.constant(0)], going, step)[2]


def _gamma_fraction(s: Scalars, a: SSAValue, x: SSAValue) -> SSAValue:
    """Q(a, x)'s continued fraction (Cephes' igamc): Q = it times x^a e^-x / Gamma(a),
    its convergents rescaled when they grow past 1 / epsilon."""
    epsilon = _EPSILON[s.element.bitwidth]
    one = s.constant(1)
    y = s.sub(one, a)
    z = s.add(s.add(x, y), one)
    numerator, denominator = s.add(x, one), s.mul(z, x)
    start = [s.constant(0), y, z, one, numerator, x, denominator,
             s.insert(arith.DivfOp(numerator, denominator)), one, s.constant(0)]

    def going(t: Scalars, v: Carried) -> SSAValue:
        return t.insert(arith.AndIOp(t.compare("gt", v[8], t.constant(epsilon)),
                                     t.compare("lt", v[9], t.constant(_STEPS))))

    def step(t: Scalars, v: Carried) -> Carried:
        count, y, z, p2, p1, q2, q1, answer, _, steps = v
        count, y, z = t.add(count, t.constant(1)), t.add(y, t.constant(1)), t.add(z, t.constant(2))
        yc = t.mul(y, count)
        p = t.sub(t.mul(p1, z), t.mul(p2, yc))
        q = t.sub(t.mul(q1, z), t.mul(q2, yc))
        defined = t.compare("ne", q, t.constant(0))
        ratio = t.insert(arith.DivfOp(p, q))
        change = t.math(mathd.AbsFOp, t.insert(arith.DivfOp(t.sub(answer, ratio), ratio)))
        change, answer = t.select(defined, change, t.constant(1)), t.select(defined, ratio, answer)
        big = t.compare("gt", t.math(mathd.AbsFOp, p), t.constant(1 / epsilon))
        scale = t.select(big, t.constant(epsilon), t.constant(1))
        return [count, y, z, t.mul(p1, scale), t.mul(p, scale), t.mul(q1, scale), t.mul(q, scale), answer,
                change, t.add(steps, t.constant(1))]

    return _while(s, start, going, step)[7]


def _incomplete_gamma(upper: bool) -> Callable[[Scalars, SSAValue, SSAValue], SSAValue]:
    """The regularized incomplete gamma P(a, x) (igamma) or Q = 1 - P (igammac): the
    series where x <= max(1, a), the continued fraction beyond (Cephes' choice); each
    loop gets a trivial argument where the other is taken. scipy's special values."""
    def compute(s: Scalars, a: SSAValue, x: SSAValue) -> SSAValue:
        one, zero = s.constant(1), s.constant(0)
        by_fraction = s.insert(arith.AndIOp(s.compare("gt", x, one), s.compare("gt", x, a)))
        series_x = s.select(by_fraction, zero, x)
        fraction_a, fraction_x = s.select(by_fraction, a, one), s.select(by_fraction, x, s.constant(2))
        log_power = s.sub(s.mul(a, s.math(mathd.LogOp, x)), x)
        series = s.mul(_gamma_series(s, a, series_x),
                       s.math(mathd.ExpOp, s.sub(log_power, _lgamma(s, s.add(a, one)))))
        log_prefactor = s.sub(log_power, _lgamma(s, a))
        fraction = s.mul(_gamma_fraction(s, fraction_a, fraction_x), s.math(mathd.ExpOp, log_prefactor))
        # x^a e^-x / Gamma(a) below the least normal float: Q is 0 (its fraction overflows there)
        least = math.log(2.0 ** (-126 if s.element.bitwidth == 32 else -1022))
        fraction = s.select(s.compare("lt", log_prefactor, s.constant(least)), zero, fraction)
        lower = s.select(by_fraction, s.sub(one, fraction), series)
        value = s.sub(one, lower) if upper else lower
        if upper:
            value = s.select(by_fraction, fraction, value)
        full, empty = (zero, one) if upper else (one, zero)
        value = s.select(s.compare("eq", x, zero), empty, value)
        value = s.select(s.insert(arith.OrIOp(s.compare("eq", x, s.constant(math.inf)),
                                              s.compare("eq", a, zero))), full, value)
        value = s.select(s.compare("eq", a, s.constant(math.inf)), empty, value)
        undefined = s.insert(arith.OrIOp(s.compare("lt", a, zero), s.compare("lt", x, zero)))
        undefined = s.insert(arith.OrIOp(undefined, s.insert(arith.AndIOp(s.compare("eq", a, zero),
                                                                          s.compare("eq", x, zero)))))
        undefined = s.insert(arith.OrIOp(undefined, s.insert(arith.CmpfOp(a, x, "uno"))))
        both_infinite = s.insert(arith.AndIOp(s.compare("eq", a, s.constant(math.inf)),
                                              s.compare("eq", x, s.constant(math.inf))))
        undefined = s.insert(arith.OrIOp(undefined, both_infinite))
        return s.select(undefined, s.constant(math.nan), value)
    return compute


lowers("pointwise", "aten.igamma.default")(_binary(_incomplete_gamma(upper=False)))
lowers("pointwise", "aten.igammac.default")(_binary(_incomplete_gamma(upper=True)))


# ---- orthogonal polynomials P_n(x), as torch's Math.h (the interpreter's): special cases
# first, else the three-term recurrence up to the degree, each step a fused multiply-add


def _degree(s: Scalars, n: SSAValue) -> SSAValue:
    """torch's static_cast<int64_t>(n) as a float: truncated; nan and +-inf give -1."""
    finite = s.compare("lt", s.math(mathd.AbsFOp, n), s.constant(math.inf))
    return s.select(finite, s.math(mathd.TruncOp, _clamp_to(s, n, s.constant(-2.0**62), s.constant(2.0**62))),
                    s.constant(-1))


def _fms(s: Scalars, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
    """a * b - c rounded once (the fused multiply-add torch's compiled loops use)."""
    return s.insert(mathd.FmaOp(a, b, s.insert(arith.NegfOp(c))))


def _recurrence(s: Scalars, first: SSAValue, second: SSAValue, degree: SSAValue,
                step: Callable[[Scalars, SSAValue, SSAValue, SSAValue], SSAValue]) -> SSAValue:
    """P_degree from P_0 = first, P_1 = second and P_(j+1) = step(j, P_(j-1), P_j): a loop
    that stops at the degree or once P_j is nan."""
    def going(t: Scalars, v: Carried) -> SSAValue:
        return t.insert(arith.AndIOp(t.compare("lt", v[0], degree), t.insert(arith.CmpfOp(v[2], v[2], "ord"))))

    return _while(s, [s.constant(1), first, second], going,
                  lambda t, v: [t.add(v[0], t.constant(1)), v[2], step(t, v[0], v[1], v[2])])[2]


def _cases(s: Scalars, cases: Sequence[tuple[SSAValue, SSAValue]], otherwise: SSAValue) -> SSAValue:
    """The value of the first case whose condition holds (numpy's select)."""
    value = otherwise
    for condition, case in reversed(cases):
        value = s.select(condition, case, value)
    return value


def _hermite(physicists: bool) -> Callable[[Scalars, SSAValue, SSAValue], SSAValue]:
    """H_n (physicists') or He_n (probabilists'); nan beyond degree 128 (float32) or 512."""
    def compute(s: Scalars, x: SSAValue, n: SSAValue) -> SSAValue:
        degree = _degree(s, n)
        limit = s.constant(128 if s.element.bitwidth == 32 else 512)
        second = s.add(x, x) if physicists else x

        def step(t: Scalars, j: SSAValue, p: SSAValue, q: SSAValue) -> SSAValue:
            weight = t.add(j, j) if physicists else j
            return _fms(t, second, q, t.mul(weight, p))

        chain = _recurrence(s, s.constant(1), second, s.minimum(degree, s.add(limit, s.constant(1))), step)
        return _cases(s, [(s.compare("lt", degree, s.constant(0)), s.constant(0)),
                          (s.compare("eq", degree, s.constant(0)), s.constant(1)),
                          (s.compare("eq", degree, s.constant(1)), second),
                          (s.compare("gt", degree, limit), s.constant(math.nan))], chain)
    return compute


def _laguerre(s: Scalars, x: SSAValue, n: SSAValue) -> SSAValue:
    degree = _degree(s, n)
    one = s.constant(1)
    second = s.sub(one, x)

    def step(t: Scalars, j: SSAValue, p: SSAValue, q: SSAValue) -> SSAValue:
        value = _fms(t, t.add(t.add(j, j), second), q, t.mul(j, p))
        return t.insert(arith.DivfOp(value, t.add(j, t.constant(1))))

    chain = _recurrence(s, one, second, degree, step)
    return _cases(s, [(s.compare("lt", degree, s.constant(0)), s.constant(0)),
                      (s.compare("eq", x, s.constant(0)), one), (s.compare("eq", degree, s.constant(0)), one),
                      (s.compare("eq", degree, one), second)], chain)


def _legendre(s: Scalars, x: SSAValue, n: SSAValue) -> SSAValue:
    degree = _degree(s, n)
    one = s.constant(1)

    def step(t: Scalars, j: SSAValue, p: SSAValue, q: SSAValue) -> SSAValue:
        value = _fms(t, t.mul(t.add(t.add(j, j), t.constant(1)), x), q, t.mul(j, p))
        return t.insert(arith.DivfOp(value, t.add(j, t.constant(1))))

    chain = _recurrence(s, one, x, degree, step)
    even = s.compare("eq", s.insert(RemFOp(degree, s.constant(2))), s.constant(0))
    ends = s.select(s.insert(arith.OrIOp(s.compare("gt", x, s.constant(0)), even)), one, s.constant(-1))
    return _cases(s, [(s.compare("lt", degree, s.constant(0)), s.constant(0)),
                      (s.compare("eq", s.math(mathd.AbsFOp, x), one), ends),
                      (s.compare("eq", degree, s.constant(0)), one), (s.compare("eq", degree, one), x)], chain)


def _parity(s: Scalars, degree: SSAValue, even: SSAValue, odd: SSAValue) -> SSAValue:
    return s.select(s.compare("eq", s.insert(RemFOp(degree, s.constant(2))), s.constant(0)), even, odd)


def _chebyshev(kind: str, threshold: int, shifted: bool) -> Callable[[Scalars, SSAValue, SSAValue], SSAValue]:
    """T, U, V, W and their shifted forms (of y = 2x - 1): the values at the ends, a
    closed form in theta = acos(y) above ``threshold``, else the recurrence. The
    divisors sin(theta), sin(theta / 2), cos(theta / 2) come from theta / 2's series
    (right to their last digits near the ends, where IREE's sin is not)."""
    def compute(s: Scalars, x: SSAValue, n: SSAValue) -> SSAValue:
        one, two = s.constant(1), s.constant(2)
        degree = _degree(s, n)
        y = s.sub(s.add(x, x), one) if shifted else x
        at_top = s.compare("eq", x, one)
        at_bottom = s.compare("eq", x, s.constant(0 if shifted else -1))
        after = s.add(degree, one)
        odd_sum = s.add(s.add(degree, degree), one)
        alternating = _parity(s, degree, one, s.constant(-1))
        top, bottom = {"t": (one, alternating),
                       "u": (after, _parity(s, degree, after, s.insert(arith.NegfOp(after)))),
                       "v": (one, _parity(s, degree, odd_sum, s.insert(arith.NegfOp(odd_sum)))),
                       "w": (odd_sum, alternating)}[kind]
        theta = s.math(mathd.AcosOp, y)
        half = s.mul(theta, s.constant(0.5))
        square = s.mul(half, half)
        sin_half, cos_half = s.mul(half, _series(s, square, _SIN_SERIES)), _series(s, square, _COS_SERIES)
        if kind == "t":
            inside = s.math(mathd.CosOp, s.mul(degree, theta))
        elif kind == "u":
            sine = s.mul(two, s.mul(sin_half, cos_half))
            angle = s.mul(after, theta)
            inside = s.select(s.compare("ne", sine, s.constant(0)),
                              s.insert(arith.DivfOp(s.math(mathd.SinOp, angle), sine)),
                              s.insert(arith.DivfOp(s.mul(after, s.math(mathd.CosOp, angle)), y)))
        else:
            angle = s.mul(s.add(degree, s.constant(0.5)), theta)
            if kind == "v":
                inside = s.select(s.compare("ne", sin_half, one),
                                  s.insert(arith.DivfOp(s.math(mathd.CosOp, angle), cos_half)), bottom)
            else:
                ends = alternating if shifted else s.select(s.compare("gt", x, s.constant(0)), odd_sum, alternating)
                inside = s.select(s.compare("ne", cos_half, one),
                                  s.insert(arith.DivfOp(s.math(mathd.SinOp, angle), sin_half)), ends)
        double = s.add(y, y)
        second = {"t": y, "u": double, "v": s.sub(double, one), "w": s.add(double, one)}[kind]
        chain = _recurrence(s, one, second, degree, lambda t, j, p, q: _fms(t, double, q, p))
        closed = s.insert(arith.AndIOp(s.compare("gt", degree, s.constant(threshold)),
                                       s.compare("lt", s.math(mathd.AbsFOp, y), one)))
        return _cases(s, [(s.compare("lt", degree, s.constant(0)), s.constant(0)), (at_top, top),
                          (at_bottom, bottom), (closed, inside), (s.compare("eq", degree, s.constant(0)), one),
                          (s.compare("eq", degree, one), second)], chain)
    return compute


_CHEBYSHEV = [(f"chebyshev_polynomial_{kind}", _chebyshev(kind, threshold, False))
              for kind, threshold in (("t", 6), ("u", 8), ("v", 8), ("w", 8))]
_CHEBYSHEV += [(f"shifted_chebyshev_polynomial_{kind}", _chebyshev(kind, threshold, True))
               for kind, threshold in (("t", 6), ("u", 6), ("v", 6), ("w", 4))]
for _name, _compute in (*_CHEBYSHEV, ("hermite_polynomial_h", _hermite(True)), ("hermite_polynomial_he", _hermite(False)),
                        ("laguerre_polynomial_l", _laguerre), ("legendre_polynomial_p", _legendre)):
    lowers("pointwise", f"aten.special_{_name}.default", f"aten.special_{_name}.x_scalar",
           f"aten.special_{_name}.n_scalar")(_binary(_compute))


@lowers("pointwise", "aten.polygamma.default")
def polygamma(lw: Lowering) -> list[SSAValue]:
    order, x = lw.op.arguments()
    if order < 0:
        raise UnsupportedType(f"polygamma: expected an order n >= 0, found {order}")
    if order == 0:
        return _elementwise(lw, [x], lambda s, v: _digamma(s, v[0]))
    return _elementwise(lw, [x], lambda s, v: _polygamma_of(s, order, v[0]))


# ---------------------------------------------------------------- the bits of floats


def _nextafter(s: Scalars, x: SSAValue, toward: SSAValue) -> SSAValue:
    """The float next to x toward y: one step of x's bits (up when moving away from
    zero), the least subnormal of y's sign from a zero, y when equal, nan from a nan."""
    bits_type = IntegerType(s.element.bitwidth)
    bits = s.insert(arith.BitcastOp(x, bits_type))
    one = s.body.constant(1, bits_type)
    away = s.insert(arith.XOrIOp(s.compare("lt", x, toward), s.compare("lt", x, s.constant(0))))
    stepped = s.insert(arith.SelectOp(away, s.insert(arith.AddiOp(bits, one)), s.insert(arith.SubiOp(bits, one))))
    value = s.insert(arith.BitcastOp(stepped, s.element))
    least = s.math(mathd.CopySignOp, s.insert(arith.BitcastOp(one, s.element)), toward)
    value = s.select(s.compare("eq", x, s.constant(0)), least, value)
    value = s.select(s.compare("eq", x, toward), toward, value)
    return s.select(s.insert(arith.CmpfOp(x, toward, "uno")), s.insert(arith.AddfOp(x, toward)), value)


lowers("pointwise", "aten.nextafter.default")(_binary(_nextafter))

# the mantissa's bits and the exponent's bias of each float type
_FLOAT_LAYOUT = {16: (10, 15), 32: (23, 127), 64: (52, 1023)}


def _power_of_two(s: Scalars, exponent: SSAValue) -> SSAValue:
    """2 ** k for a whole float k, exactly (IREE's exp2 is a polynomial): the float's
    bits made, a subnormal below the normal range, 0 below that, inf above."""
    mantissa, bias = _FLOAT_LAYOUT[s.element.bitwidth]
    bits_type = IntegerType(s.element.bitwidth)
    low, high = -bias - mantissa, bias + 1
    k = s.insert(arith.FPToSIOp(_clamp_to(s, exponent, s.constant(low), s.constant(high)), bits_type))

    def integer(value: int) -> SSAValue:
        return s.body.constant(value, bits_type)

    normal = s.insert(arith.ShLIOp(s.insert(arith.AddiOp(k, integer(bias))), integer(mantissa)))
    shift = s.insert(arith.AddiOp(k, integer(bias + mantissa - 1)))
    subnormal = s.insert(arith.ShLIOp(integer(1), s.insert(arith.MaxSIOp(shift, integer(0)))))
    in_normal_range = s.insert(arith.CmpiOp(k, integer(1 - bias), "sge"))
    in_range = s.insert(arith.CmpiOp(k, integer(low), "sgt"))
    bits = s.select(in_normal_range, normal, s.select(in_range, subnormal, integer(0)))
    return s.insert(arith.BitcastOp(bits, s.element))


def _ldexp(s: Scalars, x: SSAValue, exponent: SSAValue) -> SSAValue:
    """x * 2 ** e as torch's mul(x, pow(2., e)): the power exact for a whole e (inf
    above the float's range, 0 below), a subnormal power applied as two normal
    halves (IREE's CPU code flushes a subnormal factor to 0)."""
    whole = s.compare("eq", s.math(mathd.FloorOp, exponent), exponent)
    single = s.mul(x, _power_of_two(s, exponent))
    first = s.math(mathd.FloorOp, s.mul(exponent, s.constant(0.5)))
    halves = s.mul(s.mul(x, _power_of_two(s, first)), _power_of_two(s, s.sub(exponent, first)))
    mantissa, bias = _FLOAT_LAYOUT[s.element.bitwidth]
    subnormal = s.insert(arith.AndIOp(s.compare("ge", exponent, s.constant(1 - bias - mantissa)),
                                      s.compare("lt", exponent, s.constant(1 - bias))))
    exact = s.select(subnormal, halves, single)
    return s.select(whole, exact, s.mul(x, s.math(mathd.Exp2Op, exponent)))


lowers("pointwise", "aten.ldexp.Tensor")(_binary(_ldexp))


def _frexp_parts(s: Scalars, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(mantissa in [1/2, 1) with x's sign, exponent) from x's bits; 0, inf and nan
    are their own mantissa with exponent 0. (A subnormal x is one too: IREE's CPU
    code treats subnormals as 0.)"""
    mantissa_bits, bias = _FLOAT_LAYOUT[s.element.bitwidth]
    width = s.element.bitwidth
    bits_type = IntegerType(width)

    def integer(value: int) -> SSAValue:
        return s.body.constant(_wrapped(value, bits_type), bits_type)

    field_mask = (1 << (width - 1 - mantissa_bits)) - 1
    bits = s.insert(arith.BitcastOp(x, bits_type))
    field = s.insert(arith.AndIOp(s.insert(arith.ShRUIOp(bits, integer(mantissa_bits))), integer(field_mask)))
    exponent = s.insert(arith.SubiOp(field, integer(bias - 1)))
    kept = s.insert(arith.AndIOp(bits, integer(~(field_mask << mantissa_bits))))
    half = s.insert(arith.OrIOp(kept, integer((bias - 1) << mantissa_bits)))
    mantissa = s.insert(arith.BitcastOp(half, s.element))
    finite = s.compare("lt", s.math(mathd.AbsFOp, x), s.constant(math.inf))
    plain = s.insert(arith.AndIOp(finite, s.compare("ne", x, s.constant(0))))
    return s.select(plain, mantissa, x), s.select(plain, exponent, integer(0))


@lowers("pointwise", "aten.frexp.Tensor")
def frexp(lw: Lowering) -> list[SSAValue]:
    """Two generics, one per result (the exponent int32, as torch)."""
    (x,) = lw.op.arguments()
    work = opmath_dtype(x.type.dtype)
    values = []
    for position in (0, 1):
        def body(b: Body, position: int = position) -> SSAValue:
            s = Scalars(b, work)
            part = _frexp_parts(s, _convert(b, b.args[0], x.type.dtype, s.element))[position]
            return part if position == 0 else b.convert(part, IntegerType(32))
        values.append(lw.pointwise([x], lw.result_type(position), body))
    return values


# ---------------------------------------------------------------- copies and casts


@lowers("pointwise", "aten._to_copy.default")
def to_copy(lw: Lowering) -> list[SSAValue]:
    """A dtype change (layout, device and memory format mean nothing here), as torch casts."""
    x = lw.op.arguments()[0]
    element = tensor_type(lw.result_type()).element_type
    if x.type.dtype is lw.result_type().dtype:
        return [lw.value(x)]
    return [lw.pointwise([x], lw.result_type(), lambda b: _convert(b, b.args[0], x.type.dtype, element))]


@lowers("pointwise", "aten.clone.default", "aten.alias.default", "aten._conj_physical.default")
def identity(lw: Lowering) -> list[SSAValue]:
    """Values are immutable upstream: a copy or an alias is the value itself (and a
    real number its own conjugate: complex tensors have no upstream type)."""
    return [lw.value(lw.op.arguments()[0])]


@lowers("pointwise", "aten.copy.default")
def copy(lw: Lowering) -> list[SSAValue]:
    """``src`` broadcast to ``self``'s shape, in its dtype."""
    _, src = lw.op.arguments()[:2]
    element = tensor_type(lw.result_type()).element_type
    return [lw.pointwise([src], lw.result_type(), lambda b: _convert(b, b.args[0], src.type.dtype, element))]


# ---------------------------------------------------------------- factories


def _fill(lw: Lowering, value: Any) -> list[SSAValue]:
    """``linalg.fill`` of the result with ``value`` (a Python number or a size), cast to its dtype."""
    result = lw.result_type()
    element = tensor_type(result).element_type
    if isinstance(value, SSAValue):
        wide = _scalar_outside(lw, value)
        scalar = wide
        for op in conversion_ops(wide, element):
            scalar = lw.insert(op).results[0]
    else:
        scalar = lw.constant(_wrapped(value, element), element)
    return [lw.filled(result.shape, element, scalar)]


@lowers("pointwise", "aten.full.default")
def full(lw: Lowering) -> list[SSAValue]:
    return _fill(lw, lw.op.arguments()[1])


@lowers("pointwise", "aten.full_like.default", "aten.fill.Scalar")
def full_like(lw: Lowering) -> list[SSAValue]:
    return _fill(lw, lw.op.arguments()[1])


@lowers("pointwise", "aten.scalar_tensor.default")
def scalar_tensor(lw: Lowering) -> list[SSAValue]:
    return _fill(lw, lw.op.arguments()[0])


@lowers("pointwise", "aten.arange.start_step")
def arange(lw: Lowering) -> list[SSAValue]:
    """start + i * step over the result's length: in int64 for an integer result
    (the bounds truncated), in double otherwise, then cast (the interpreter's kernel)."""
    start, _, step = lw.op.arguments()[:3]
    result = lw.result_type()
    integral = not is_float(element_type(result.dtype))
    wide = IntegerType(64) if integral else Float64Type()
    if integral:
        start = int(start) if not isinstance(start, SSAValue) else start
        step = int(step) if not isinstance(step, SSAValue) else step
    bounds = [_scalar_outside(lw, v) if isinstance(v, SSAValue) else v for v in (start, step)]

    def body(b: Body) -> SSAValue:
        position = b.index(0)
        count = b.insert(arith.IndexCastOp(position, IntegerType(64)))
        first, stride = (b.convert(v, wide) if isinstance(v, SSAValue) else b.constant(v, wide) for v in bounds)
        s = Scalars(b, DType.int64 if integral else DType.float64)
        return s.add(first, s.mul(b.convert(count, wide), stride))

    return [lw.pointwise([], result, body)]


del _name, _op, _predicate, _left, _compute
