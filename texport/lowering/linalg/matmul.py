"""Linalg lowerings: matrix products, as contractions IREE recognises.

A 2-D product is the named ``linalg.matmul`` accumulating into its init (a
``linalg.fill`` of zero, or addmm's bias broadcast to the result: one
contraction, no separate add); a batched product is a ``linalg.generic`` with
three parallel loops and one reduction (xDSL has no ``linalg.batch_matmul``;
IREE treats the generic as the same contraction).

Numbers as the interpreter has them: f16/bf16 products accumulate in f32 and
are rounded once at the end; addmm's ``beta``/``alpha`` are converted to the
accumulation type first (an integer product truncates them) and ``beta=0``
ignores ``self`` (its NaNs do not propagate)."""

from __future__ import annotations

from xdsl.dialects.linalg.ops import MatmulOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap

from texport.dialects.tx import TensorType as TxTensorType

from .builder import PARALLEL, REDUCTION, Body, Lowering
from .registry import lowers
from .types import element_type, is_float, opmath_dtype


def _product(lw: Lowering, a: SSAValue, b: SSAValue, result: TxTensorType, init: SSAValue | None = None
             ) -> SSAValue:
    """``init + a @ b`` (2-D or batched 3-D) over ``result``'s shape, in ``init``'s
    element type (when None: zeros in the accumulation type of ``result``'s dtype)."""
    a, b = lw.value(a), lw.value(b)
    if init is None:
        init = lw.filled(result.shape, element_type(opmath_dtype(result.dtype)), 0)
    if len(result.shape) == 2 and init.type.element_type == a.type.element_type:
        return lw.insert(MatmulOp([a, b], [init])).results[0]
    return _contraction(lw, a, b, init, batched=len(result.shape) == 3)


def _contraction(lw: Lowering, a: SSAValue, b: SSAValue, init: SSAValue, batched: bool) -> SSAValue:
    """``init[.., i, j] += a[.., i, k] * b[.., k, j]`` as a generic (inputs cast to ``init``'s type)."""
    if batched:
        maps = [AffineMap.from_callable(lambda n, i, j, k: (n, i, k)),
                AffineMap.from_callable(lambda n, i, j, k: (n, k, j)),
                AffineMap.from_callable(lambda n, i, j, k: (n, i, j))]
    else:
        maps = [AffineMap.from_callable(lambda i, j, k: (i, k)),
                AffineMap.from_callable(lambda i, j, k: (k, j)),
                AffineMap.from_callable(lambda i, j, k: (i, j))]
    accumulate = init.type.element_type

    def multiply_add(body: Body) -> list[SSAValue]:
        x, y = (body.convert(arg, accumulate) for arg in body.args[:2])
        return [body.add(body.mul(x, y), body.args[2])]

    loops = [PARALLEL] * len(maps[2].results) + [REDUCTION]
    return lw.generic([(a, maps[0]), (b, maps[1])], [(init, maps[2])], loops, multiply_add)[0]


def _rounded(lw: Lowering, product: SSAValue, result: TxTensorType) -> SSAValue:
    """The product in the result's element type (the half floats rounded once)."""
    if product.type.element_type == element_type(result.dtype):
        return product
    return lw.pointwise([product], result, lambda b: b.args[0])


@lowers("matmul", "aten.mm.default", "aten.bmm.default")
def mm(lw: Lowering) -> list[SSAValue]:
    a, b = lw.op.arguments()
    result = lw.result_type()
    return [_rounded(lw, _product(lw, a, b, result), result)]


@lowers("matmul", "aten.addmm.default")
def addmm(lw: Lowering) -> list[SSAValue]:
    """``beta * self + alpha * (a @ b)``; the usual ``beta = alpha = 1`` (a linear layer)
    accumulates the product into ``self`` broadcast to the result: one contraction."""
    bias, a, b, beta, alpha = lw.op.arguments()
    result = lw.result_type()
    accumulate = element_type(opmath_dtype(result.dtype))
    if beta == 1 and alpha == 1 and opmath_dtype(result.dtype) == result.dtype:
        init = lw.pointwise([bias], result, lambda body: body.args[0])
        return [_product(lw, a, b, result, init)]
    product = _product(lw, a, b, result)
    scale = float if is_float(accumulate) else int  # torch's scalar.to<opmath_t>()
    beta, alpha = scale(beta), scale(alpha)

    def combine(body: Body) -> SSAValue:
        total = body.args[-1]
        if alpha != 1:
            total = body.mul(total, body.constant(alpha, accumulate))
        if beta == 0:
            return total
        scaled = body.convert(body.args[0], accumulate)
        if beta != 1:
            scaled = body.mul(scaled, body.constant(beta, accumulate))
        return body.add(scaled, total)

    operands = [product] if beta == 0 else [bias, product]
    return [lw.pointwise(operands, result, combine)]
