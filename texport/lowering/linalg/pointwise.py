"""Linalg lowerings: elementwise ops, each a ``linalg.generic`` (``Lowering.pointwise``)
with torch's broadcasting; Python-number operands become constants of the body."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from .builder import Body, Lowering
from .registry import lowers
from .types import is_float


def _elementwise(lw: Lowering, operands: list[Any], compute: Callable[[Body, list[SSAValue]], SSAValue]
                 ) -> list[SSAValue]:
    """The result of ``compute`` on the operands' elements, each converted to the
    result's element type (tensors through the generic's arguments, numbers as constants)."""
    tensors = [v for v in operands if isinstance(v, SSAValue)]
    result = lw.result_type()

    def body(b: Body) -> SSAValue:
        elements, args = [], iter(b.args)
        for value in operands:
            if isinstance(value, SSAValue):
                elements.append(b.convert(next(args), b.element))
            else:
                elements.append(b.constant(value, b.element))
        return compute(b, elements)

    return [lw.pointwise(tensors, result, body)]


def _float_or_int(float_op: type, int_op: type) -> Callable[[Body, SSAValue, SSAValue], SSAValue]:
    def apply(b: Body, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.insert((float_op if is_float(b.element) else int_op)(x, y))
    return apply


_add = _float_or_int(arith.AddfOp, arith.AddiOp)
_mul = _float_or_int(arith.MulfOp, arith.MuliOp)


@lowers("pointwise", "aten.add.Tensor")
def add(lw: Lowering) -> list[SSAValue]:
    x, other, alpha = lw.op.arguments()

    def compute(b: Body, v: list[SSAValue]) -> SSAValue:
        scaled = v[1] if alpha == 1 else _mul(b, v[1], b.constant(alpha, b.element))
        return _add(b, v[0], scaled)

    return _elementwise(lw, [x, other], compute)


@lowers("pointwise", "aten.mul.Tensor")
def mul(lw: Lowering) -> list[SSAValue]:
    x, other = lw.op.arguments()
    return _elementwise(lw, [x, other], lambda b, v: _mul(b, v[0], v[1]))


@lowers("pointwise", "aten.relu.default")
def relu(lw: Lowering) -> list[SSAValue]:
    (x,) = lw.op.arguments()

    def compute(b: Body, v: list[SSAValue]) -> SSAValue:
        zero = b.constant(0, b.element)
        if is_float(b.element):
            return b.insert(arith.MaximumfOp(v[0], zero))
        return b.insert(arith.MaxSIOp(v[0], zero))

    return _elementwise(lw, [x], compute)
