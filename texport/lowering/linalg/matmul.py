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

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.dialects.linalg.ops import (
    FillOp,
    GenericOp,
    IteratorType,
    IteratorTypeAttr,
    MatmulOp,
    YieldOp,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint

from texport.dialects.dtypes import DType
from texport.dialects.tx import TensorType as TxTensorType

from .builder import Body, Lowering
from .registry import lowers
from .types import element_type, is_float


def accumulator(dtype: DType) -> DType:
    """The dtype a product of ``dtype``s sums in: f32 for the half floats (torch's opmath)."""
    return DType.float32 if dtype in (DType.float16, DType.bfloat16) else dtype


def _product(lw: Lowering, a: SSAValue, b: SSAValue, result: TxTensorType, init: SSAValue | None = None
             ) -> SSAValue:
    """``init + a @ b`` (2-D or batched 3-D) over ``result``'s shape, in ``init``'s
    element type (when None: zeros in the accumulation type of ``result``'s dtype)."""
    a, b = lw.value(a), lw.value(b)
    if init is None:
        accumulate = TxTensorType.get(result.shape, accumulator(result.dtype))
        zero = lw.constant(0, element_type(accumulate.dtype))
        init = lw.insert(FillOp([zero], [lw.empty(accumulate)])).results[0]
    if len(result.shape) == 2 and init.type.element_type == a.type.element_type:
        return lw.insert(MatmulOp([a, b], [init])).results[0]
    return lw.insert(_contraction(a, b, init, batched=len(result.shape) == 3)).results[0]


def _contraction(a: SSAValue, b: SSAValue, init: SSAValue, batched: bool) -> GenericOp:
    """``init[.., i, j] += a[.., i, k] * b[.., k, j]`` as a generic (inputs cast to ``init``'s type)."""
    if batched:
        maps = [AffineMap.from_callable(lambda n, i, j, k: (n, i, k)),
                AffineMap.from_callable(lambda n, i, j, k: (n, k, j)),
                AffineMap.from_callable(lambda n, i, j, k: (n, i, j))]
    else:
        maps = [AffineMap.from_callable(lambda i, j, k: (i, k)),
                AffineMap.from_callable(lambda i, j, k: (k, j)),
                AffineMap.from_callable(lambda i, j, k: (i, j))]
    loops = [IteratorType.PARALLEL] * (len(maps[2].results)) + [IteratorType.REDUCTION]
    accumulate = init.type.element_type
    block = Block(arg_types=[a.type.element_type, b.type.element_type, accumulate])
    body = Body(Builder(InsertPoint.at_end(block)), list(block.args[:2]), accumulate)
    x, y = (body.convert(arg, accumulate) for arg in block.args[:2])
    total = body.insert(_add(accumulate)(body.insert(_mul(accumulate)(x, y)), block.args[2]))
    body.insert(YieldOp(total))
    return GenericOp([a, b], [init], Region(block), [AffineMapAttr(m) for m in maps],
                     [IteratorTypeAttr(t) for t in loops], [init.type])


def _add(element: Attribute) -> type:
    return arith.AddfOp if is_float(element) else arith.AddiOp


def _mul(element: Attribute) -> type:
    return arith.MulfOp if is_float(element) else arith.MuliOp


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
    accumulate = element_type(accumulator(result.dtype))
    if beta == 1 and alpha == 1 and accumulator(result.dtype) == result.dtype:
        init = lw.pointwise([bias], result, lambda body: body.args[0])
        return [_product(lw, a, b, result, init)]
    product = _product(lw, a, b, result)
    scale = float if is_float(accumulate) else int  # torch's scalar.to<opmath_t>()
    beta, alpha = scale(beta), scale(alpha)

    def combine(body: Body) -> SSAValue:
        add, mul = _add(accumulate), _mul(accumulate)
        total = body.args[-1]
        if alpha != 1:
            total = body.insert(mul(total, body.constant(alpha, accumulate)))
        if beta == 0:
            return total
        scaled = body.convert(body.args[0], accumulate)
        if beta != 1:
            scaled = body.insert(mul(scaled, body.constant(beta, accumulate)))
        return body.insert(add(scaled, total))

    operands = [product] if beta == 0 else [bias, product]
    return [lw.pointwise(operands, result, combine)]
