"""Linalg lowerings: reductions, arg-extremes, variance, vector norms, softmax, sorting
(sort, topk, median) and the cumulative sum.

A reduction is a ``linalg.generic`` over its input's shape whose reduced dims are
``reduction`` iterators; its init is a ``linalg.fill`` of the identity (0, 1,
-inf, false...). With ``keepdim`` the result's map reads index 0 for each
reduced dim, so no reshape follows. float16/bfloat16 accumulate in float32 and
are rounded once at the end, as torch and the interpreter do (prod excepted: torch
rounds each product). The building blocks (``reduction``, ``moments``, ...) are
in ``reducing.py``, shared with the norms family.

cumsum has no reduction form (each output element sums a prefix), and linalg has
no scan op: it is a generic with one extra reduction loop ``j`` over the scanned
dim, accumulating ``x[j]`` where ``j <= i`` (a triangular mask, by ``select`` so an
inf or nan outside the prefix does not leak in). One dispatch, O(L²) work per
line of length L instead of O(L): fine for the short dims models scan, the price
of staying in upstream linalg (an ``scf.for`` of slices would be O(L) work but L
dispatches, and IREE's own ``iree_linalg_ext.scan`` is not upstream MLIR). Sorting
is built the same way, as linalg has no sort either: each element's rank along the
dim is a count over a second loop, and output k gathers the element of rank k (sort,
topk, kthvalue, the medians); bucketize/searchsorted count the boundaries below each
value over a loop of the boundaries."""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from texport.dialects.dtypes import DType

from .builder import PARALLEL, REDUCTION, Body, Lowering, Operand, broadcast_map
from .reducing import element_count, moments, reduced_dims, reduced_map, reduction
from .registry import lowers
from .shapes import collapse
from .types import (
    UnsupportedType,
    element_type,
    extreme_identity,
    is_float,
    is_unsigned,
    opmath_dtype,
)

F32 = element_type(DType.float32)
I64 = IntegerType(64)


# ---------------------------------------------------------------- building blocks


def axes_of(dim: Any, rank: int) -> tuple[int, ...]:
    """The reduced axes: None or [] is every dim (a 0-d input has none)."""
    dims = [] if dim is None else [dim] if isinstance(dim, int) else list(dim)
    if rank == 0:
        return ()
    if not dims:
        return tuple(range(rank))
    return tuple(sorted({d % rank for d in dims}))


def _shape(value: SSAValue) -> tuple[Any, ...]:
    return value.type.shape


# ---------------------------------------------------------------- sum, mean, prod


def _sum(lw: Lowering, x: SSAValue, axes: Sequence[int], keepdim: bool, divide: bool) -> SSAValue:
    """sum (or mean, ``divide``) of ``x`` over ``axes`` as the result's dtype."""
    result = lw.result_type()
    element = element_type(opmath_dtype(result.dtype))
    shape = _shape(x)
    (total,) = reduction(lw, shape, axes, keepdim, [lw.value(x)], [(element, 0)],
                         lambda b: [b.add(b.convert(b.args[0], element, is_unsigned(x.type.dtype)), b.args[1])])
    if not divide:
        return lw.converted(total, element_type(result.dtype), result.shape)
    count = element_count(lw, shape, axes, element)
    return lw.elementwise(result.shape, element_type(result.dtype), [total],
                          lambda b, v: b.insert(arith.DivfOp(v[0], count)))


@lowers("reductions", "aten.sum.dim_IntList")
def sum_dim(lw: Lowering) -> list[SSAValue]:
    x, dim, keepdim, _dtype = lw.op.arguments()
    return [_sum(lw, x, axes_of(dim, len(_shape(x))), keepdim, divide=False)]


@lowers("reductions", "aten.mean.dim")
def mean_dim(lw: Lowering) -> list[SSAValue]:
    x, dim, keepdim, _dtype = lw.op.arguments()
    return [_sum(lw, x, axes_of(dim, len(_shape(x))), keepdim, divide=True)]


@lowers("reductions", "aten.mean.default")
def mean_all(lw: Lowering) -> list[SSAValue]:
    x, _dtype = lw.op.arguments()
    return [_sum(lw, x, axes_of(None, len(_shape(x))), False, divide=True)]


def _product(lw: Lowering, x: SSAValue, axes: Sequence[int], keepdim: bool) -> SSAValue:
    """prod in the result's dtype; float16/bfloat16 round each product, as torch."""
    result = lw.result_type()
    element = element_type(result.dtype)

    def step(b: Body) -> list[SSAValue]:
        if not is_float(element) or element in (F32, element_type(DType.float64)):
            return [b.mul(b.convert(b.args[0], element, is_unsigned(x.type.dtype)), b.args[1])]
        factors = [b.convert(v, F32) for v in b.args]
        return [b.convert(b.insert(arith.MulfOp(*factors)), element)]

    return reduction(lw, _shape(x), axes, keepdim, [lw.value(x)], [(element, 1)], step)[0]


@lowers("reductions", "aten.prod.default")
def prod_all(lw: Lowering) -> list[SSAValue]:
    x, _dtype = lw.op.arguments()
    return [_product(lw, x, axes_of(None, len(_shape(x))), False)]


@lowers("reductions", "aten.prod.dim_int")
def prod_dim(lw: Lowering) -> list[SSAValue]:
    x, dim, keepdim, _dtype = lw.op.arguments()
    return [_product(lw, x, axes_of(dim, len(_shape(x))), keepdim)]


# ---------------------------------------------------------------- amax, amin, any


def _extreme_op(element: Attribute, unsigned: bool, maximum: bool) -> type:
    """max/min that propagate nan (arith.maximumf), or the integer ones."""
    if is_float(element):
        return arith.MaximumfOp if maximum else arith.MinimumfOp
    if unsigned:
        return arith.MaxUIOp if maximum else arith.MinUIOp
    return arith.MaxSIOp if maximum else arith.MinSIOp


def _extreme(lw: Lowering, maximum: bool) -> list[SSAValue]:
    x, dim, keepdim = lw.op.arguments()
    dtype = x.type.dtype
    element = element_type(dtype)
    identity = extreme_identity(element, maximum, is_unsigned(dtype))
    combine = _extreme_op(element, is_unsigned(dtype), maximum)
    return reduction(lw, _shape(x), axes_of(dim, len(_shape(x))), keepdim, [lw.value(x)], [(element, identity)],
                     lambda b: [b.insert(combine(b.args[0], b.args[1]))])


@lowers("reductions", "aten.amax.default")
def amax(lw: Lowering) -> list[SSAValue]:
    return _extreme(lw, maximum=True)


@lowers("reductions", "aten.amin.default")
def amin(lw: Lowering) -> list[SSAValue]:
    return _extreme(lw, maximum=False)


def _any(lw: Lowering, x: SSAValue, dim: Any, keepdim: bool) -> list[SSAValue]:
    """Whether any element is nonzero (nan counts); a uint8 input gives uint8 0/1."""
    bool_element = IntegerType(1)
    (found,) = reduction(lw, _shape(x), axes_of(dim, len(_shape(x))), keepdim, [lw.value(x)],
                         [(bool_element, False)],
                         lambda b: [b.insert(arith.OrIOp(b.convert(b.args[0], bool_element), b.args[1]))])
    result = lw.result_type()
    if element_type(result.dtype) == bool_element:
        return [found]
    return [lw.elementwise(result.shape, element_type(result.dtype), [found],
                           lambda b, v: b.insert(arith.ExtUIOp(v[0], b.element)))]


@lowers("reductions", "aten.any.dim", "aten.any.dims")
def any_dims(lw: Lowering) -> list[SSAValue]:
    x, dim, keepdim = lw.op.arguments()
    return _any(lw, x, dim, keepdim)


@lowers("reductions", "aten.any.default")
def any_all(lw: Lowering) -> list[SSAValue]:
    (x,) = lw.op.arguments()
    return _any(lw, x, None, False)


# ---------------------------------------------------------------- values and indices


def _position(b: Body, axes: Sequence[int], sizes: Sequence[SSAValue]) -> SSAValue:
    """The int64 index of the current element along ``axes`` (row-major over them;
    ``sizes``: those of ``axes[1:]``)."""
    if not axes:  # a 0-d input: its one element is at 0
        return b.constant(0, I64)
    position = b.index(axes[0])
    for axis, size in zip(axes[1:], sizes, strict=True):
        scaled = b.insert(arith.MuliOp(position, size))
        position = b.insert(arith.AddiOp(scaled, b.index(axis)))
    return b.insert(arith.IndexCastOp(position, I64))


def _takes_over(b: Body, value: SSAValue, best: SSAValue, tie_wins: SSAValue, maximum: bool,
                unsigned: bool) -> SSAValue:
    """Whether ``value`` replaces the running max (min) ``best``: it is larger (smaller), or
    equal and ``tie_wins`` (its index is the one torch keeps); a nan beats any number, and
    between nans ``tie_wins`` decides."""
    if not is_float(value.type):
        order = ("ugt" if maximum else "ult") if unsigned else ("sgt" if maximum else "slt")
        better, equal = b.insert(arith.CmpiOp(value, best, order)), b.insert(arith.CmpiOp(value, best, "eq"))
        return b.insert(arith.OrIOp(better, b.insert(arith.AndIOp(equal, tie_wins))))
    better = b.insert(arith.CmpfOp(value, best, "ogt" if maximum else "olt"))
    equal = b.insert(arith.CmpfOp(value, best, "oeq"))
    take = b.insert(arith.OrIOp(better, b.insert(arith.AndIOp(equal, tie_wins))))
    value_nan = b.insert(arith.CmpfOp(value, value, "uno"))
    best_nan = b.insert(arith.CmpfOp(best, best, "uno"))
    nan_wins = b.insert(arith.AndIOp(value_nan, tie_wins))
    return b.insert(arith.SelectOp(best_nan, nan_wins, b.insert(arith.OrIOp(take, value_nan))))


def _value_and_index(lw: Lowering, x: SSAValue, axes: Sequence[int], keepdim: bool,
                     maximum: bool) -> list[SSAValue]:
    """(max, first index of it) over ``axes`` (min with ``maximum`` False), a nan winning
    with its first index, as torch. The combine is order-free (ties go to the smaller
    index), so the reduction may run in any order."""
    dtype = x.type.dtype
    shape = _shape(x)
    element = element_type(dtype)
    unsigned = is_unsigned(dtype)
    sizes = [lw.index(shape[a]) for a in axes[1:]]  # the sizes a flat index is made of

    def step(b: Body) -> list[SSAValue]:
        value, best, best_index = b.args
        index = _position(b, axes, sizes)
        earlier = b.insert(arith.CmpiOp(index, best_index, "slt"))
        take = _takes_over(b, value, best, earlier, maximum, unsigned)
        return [b.insert(arith.SelectOp(take, value, best)), b.insert(arith.SelectOp(take, index, best_index))]

    identity = extreme_identity(element, maximum, unsigned)
    return reduction(lw, shape, axes, keepdim, [lw.value(x)], [(element, identity), (I64, 0)], step)


@lowers("reductions", "aten.max.dim")
def max_dim(lw: Lowering) -> list[SSAValue]:
    x, dim, keepdim = lw.op.arguments()
    return _value_and_index(lw, x, axes_of(dim, len(_shape(x))), keepdim, maximum=True)


@lowers("reductions", "aten.min.dim")
def min_dim(lw: Lowering) -> list[SSAValue]:
    x, dim, keepdim = lw.op.arguments()
    return _value_and_index(lw, x, axes_of(dim, len(_shape(x))), keepdim, maximum=False)


def _arg_extreme(lw: Lowering, maximum: bool) -> list[SSAValue]:
    """argmax/argmin: dim None is the index into the flattened tensor."""
    x, dim, keepdim = lw.op.arguments()
    values_and_indices = _value_and_index(lw, x, axes_of(dim, len(_shape(x))), keepdim, maximum)
    return [values_and_indices[1]]


@lowers("reductions", "aten.argmax.default")
def argmax(lw: Lowering) -> list[SSAValue]:
    return _arg_extreme(lw, maximum=True)


@lowers("reductions", "aten.argmin.default")
def argmin(lw: Lowering) -> list[SSAValue]:
    return _arg_extreme(lw, maximum=False)


# ---------------------------------------------------------------- variance


def _variance(lw: Lowering, x: SSAValue, dim: Any, correction: float, keepdim: bool) -> list[SSAValue]:
    """(variance, mean): squared deviations / max(count - correction, 0), inf or nan when
    count <= correction."""
    result = lw.result_type()
    element = element_type(opmath_dtype(result.dtype))
    shape = _shape(x)
    axes = axes_of(dim, len(shape))
    mean, squares, count = moments(lw, lw.value(x), shape, axes, keepdim, element)
    corrected = lw.insert(arith.SubfOp(count, lw.constant(correction, element))).results[0]
    divisor = lw.insert(arith.MaximumfOp(corrected, lw.constant(0.0, element))).results[0]
    variance = lw.elementwise(result.shape, element_type(result.dtype), [squares],
                              lambda b, v: b.insert(arith.DivfOp(v[0], divisor)))
    return [variance, lw.converted(mean, element_type(result.dtype), result.shape)]


def _correction(correction: Any) -> float:
    return 1.0 if correction is None else float(correction)


@lowers("reductions", "aten.var.correction")
def var_correction(lw: Lowering) -> list[SSAValue]:
    x, dim, correction, keepdim = lw.op.arguments()
    return _variance(lw, x, dim, _correction(correction), keepdim)[:1]


@lowers("reductions", "aten.var_mean.correction")
def var_mean(lw: Lowering) -> list[SSAValue]:
    x, dim, correction, keepdim = lw.op.arguments()
    return _variance(lw, x, dim, _correction(correction), keepdim)


@lowers("reductions", "aten.var.dim")
def var_dim(lw: Lowering) -> list[SSAValue]:
    x, dim, unbiased, keepdim = lw.op.arguments()
    return _variance(lw, x, dim, 1.0 if unbiased else 0.0, keepdim)[:1]


# ---------------------------------------------------------------- vector norm


def _p_norm(lw: Lowering, inputs: Sequence[Operand], shape: Sequence[Any], axes: Sequence[int], keepdim: bool,
            order: float, element: Attribute, magnitude: Callable[[Body], SSAValue]) -> SSAValue:
    """The ``order``-norm of the ``magnitude``s (|x|, made from the inputs' elements) over
    ``axes`` of ``shape``, in the result's dtype: inf: the largest, -inf: the smallest,
    0: the count of nonzeros (nan included), else (sum m^order)^(1/order); sqrt for 2,
    no root for 1."""
    result = lw.result_type()
    if math.isinf(order):
        combine = arith.MaximumfOp if order > 0 else arith.MinimumfOp
        identity = 0.0 if order > 0 else math.inf  # |x| >= 0; a nan propagates either way
        (total,) = reduction(lw, shape, axes, keepdim, inputs, [(element, identity)],
                             lambda b: [b.insert(combine(magnitude(b), b.args[-1]))])
        return lw.converted(total, element_type(result.dtype), result.shape)

    def term(b: Body) -> SSAValue:
        size = magnitude(b)
        if order == 0:
            nonzero = b.insert(arith.CmpfOp(size, b.constant(0.0, element), "une"))
            return b.insert(arith.UIToFPOp(nonzero, element))
        if order == 1:
            return size
        if order == 2:
            return b.insert(arith.MulfOp(size, size))
        return b.insert(mathd.PowFOp(size, b.constant(order, element)))

    (total,) = reduction(lw, shape, axes, keepdim, inputs, [(element, 0.0)],
                         lambda b: [b.insert(arith.AddfOp(term(b), b.args[-1]))])
    if order in (0, 1):
        return lw.converted(total, element_type(result.dtype), result.shape)

    def root(b: Body, v: list[SSAValue]) -> SSAValue:
        if order == 2:
            return b.insert(mathd.SqrtOp(v[0]))
        return b.insert(mathd.PowFOp(v[0], b.constant(1 / order, element)))

    return lw.elementwise(result.shape, element_type(result.dtype), [total], root)


@lowers("reductions", "aten.linalg_vector_norm.default")
def vector_norm(lw: Lowering) -> list[SSAValue]:
    """||x||_ord over ``dim`` (None/[] = all), |x| taken in ``dtype`` if given."""
    x, order, dim, keepdim, dtype = lw.op.arguments()
    element = element_type(opmath_dtype(lw.result_type().dtype))
    source = element_type(dtype) if dtype is not None else element_type(x.type.dtype)
    shape = _shape(x)

    def magnitude(b: Body) -> SSAValue:
        return b.convert(b.insert(mathd.AbsFOp(b.convert(b.args[0], source))), element)

    return [_p_norm(lw, [lw.value(x)], shape, axes_of(dim, len(shape)), keepdim, float(order), element,
                    magnitude)]


@lowers("reductions", "aten.dist.default")
def dist(lw: Lowering) -> list[SSAValue]:
    """||x - y||_p over every element of x and y broadcast together."""
    x, other, order = lw.op.arguments()
    shape = broadcast_shape(_shape(x), _shape(other))
    element = element_type(opmath_dtype(x.type.dtype))
    operands = [lw.value(x), lw.value(other)]
    inputs = [(v, broadcast_map(v.type, shape, len(shape)).data) for v in operands]

    def magnitude(b: Body) -> SSAValue:
        difference = b.insert(arith.SubfOp(*(b.convert(v, element) for v in b.args[:2])))
        return b.insert(mathd.AbsFOp(difference))

    return [_p_norm(lw, inputs, shape, tuple(range(len(shape))), False, float(order), element, magnitude)]


def broadcast_shape(*shapes: Sequence[Any]) -> list[Any]:
    """torch's broadcast of texport shapes (a dim of 1 takes the other's size)."""
    rank = max(len(s) for s in shapes)
    dims = []
    for axis in range(rank):
        sizes = [s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0]
        dims.append(next((d for d in sizes if d != 1), 1))
    return dims


# ---------------------------------------------------------------- softmax


def _softmax(lw: Lowering, log: bool) -> list[SSAValue]:
    """exp(x - max) / sum, or (x - max) - log(sum), along ``dim`` in the result's
    precision (float32 for float16/bfloat16)."""
    x, dim, _half_to_float = lw.op.arguments()
    result = lw.result_type()
    element = element_type(opmath_dtype(result.dtype))
    shape = _shape(x)
    rank = len(shape)
    axes = axes_of(dim, rank) if rank else ()
    value = lw.value(x)
    keep = reduced_map(rank, axes, keepdim=True)
    (peak,) = reduction(lw, shape, axes, True, [value], [(element, -math.inf)],
                        lambda b: [b.insert(arith.MaximumfOp(b.convert(b.args[0], element), b.args[1]))])

    def shifted(b: Body, x_element: SSAValue, peak_element: SSAValue) -> SSAValue:
        return b.insert(arith.SubfOp(b.convert(x_element, element), peak_element))

    (total,) = reduction(lw, shape, axes, True, [value, (peak, keep)], [(element, 0.0)],
                         lambda b: [b.insert(arith.AddfOp(b.insert(mathd.ExpOp(shifted(b, *b.args[:2]))),
                                                          b.args[2]))])
    reduced_last = log and axes == (rank - 1,) and element != element_type(result.dtype)

    def normalised(b: Body, v: list[SSAValue]) -> SSAValue:
        difference = shifted(b, v[0], v[1])
        if not log:
            return b.insert(arith.DivfOp(b.insert(mathd.ExpOp(difference)), v[2]))
        total_element = v[2]
        if reduced_last:  # torch's last-dim kernel keeps the sum and its log in the input dtype
            low = element_type(result.dtype)
            logged = b.rounded_through(b.insert(mathd.LogOp(b.rounded_through(total_element, low))), low)
            return b.insert(arith.SubfOp(difference, logged))
        return b.insert(arith.SubfOp(difference, b.insert(mathd.LogOp(total_element))))

    return [lw.elementwise(result.shape, element_type(result.dtype), [value, (peak, keep), (total, keep)],
                           normalised)]


@lowers("reductions", "aten._softmax.default")
def softmax(lw: Lowering) -> list[SSAValue]:
    return _softmax(lw, log=False)


@lowers("reductions", "aten._log_softmax.default")
def log_softmax(lw: Lowering) -> list[SSAValue]:
    return _softmax(lw, log=True)


# ---------------------------------------------------------------- sort, top-k


def _precedes(b: Body, a: SSAValue, c: SSAValue, a_first: SSAValue, descending: bool,
              unsigned: bool) -> SSAValue:
    """Whether ``a`` comes before ``c`` in torch's stable sort (``a_first``: a's index is the
    lower): by value, a nan the largest, ties by index (descending keeps them in order too)."""
    if descending:
        a, c = c, a
    if is_float(a.type):
        a_nan = b.insert(arith.CmpfOp(a, a, "uno"))
        c_nan = b.insert(arith.CmpfOp(c, c, "uno"))
        below_nan = b.insert(arith.AndIOp(c_nan, b.insert(arith.XOrIOp(a_nan, b.constant(True, a_nan.type)))))
        less = b.insert(arith.OrIOp(b.insert(arith.CmpfOp(a, c, "olt")), below_nan))
        equal = b.insert(arith.OrIOp(b.insert(arith.CmpfOp(a, c, "oeq")), b.insert(arith.AndIOp(a_nan, c_nan))))
    else:
        less = b.insert(arith.CmpiOp(a, c, "ult" if unsigned else "slt"))
        equal = b.insert(arith.CmpiOp(a, c, "eq"))
    return b.insert(arith.OrIOp(less, b.insert(arith.AndIOp(equal, a_first))))


def _scan_maps(rank: int, axis: int) -> tuple[AffineMap, AffineMap]:
    """Over ``rank`` dims and one more loop: the map reading at the dims, and the map
    reading at the extra loop in place of ``axis``."""
    dims = [AffineExpr.dimension(a) for a in range(rank)]
    at_loop = [AffineExpr.dimension(rank) if a == axis else d for a, d in enumerate(dims)]
    return AffineMap(rank + 1, 0, tuple(dims)), AffineMap(rank + 1, 0, tuple(at_loop))


def _sorted(lw: Lowering, value: SSAValue, shape: Sequence[Any], axis: int, descending: bool,
            out_shape: Sequence[Any], unsigned: bool, first: Operand | None = None) -> list[SSAValue]:
    """(values, indices) of ``value`` (upstream, of ``shape``) sorted along ``axis``: those of
    rank ``first`` on (0 by default; an i64 scalar, or a tensor of one rank per line read by
    its map), ``out_shape[axis]`` of them. linalg has no sort: each element's rank is the
    count of elements before it (a reduction over a second loop along ``axis``), then
    output k gathers the element of rank first + k (a reduction selecting it). O(L²) per
    line of length L, as cumsum."""
    rank = len(shape)
    here, there = _scan_maps(rank, axis)
    iterators = [PARALLEL] * rank + [REDUCTION]

    def count_before(b: Body) -> list[SSAValue]:
        mine, other, count = b.args
        other_first = b.insert(arith.CmpiOp(b.index(rank), b.index(axis), "ult"))
        before = _precedes(b, other, mine, other_first, descending, unsigned)
        return [b.insert(arith.AddiOp(count, b.insert(arith.ExtUIOp(before, I64))))]

    (ranks,) = lw.generic([(value, here), (value, there)], [(lw.filled(shape, I64, 0), here)], iterators,
                          count_before)
    per_line = isinstance(first, tuple)

    def gather(b: Body) -> list[SSAValue]:
        element, element_rank, *line_first, found, found_index = b.args
        position = b.insert(arith.IndexCastOp(b.index(axis), I64))
        offset = line_first[0] if per_line else first
        if offset is not None:
            position = b.insert(arith.AddiOp(position, offset))
        hit = b.insert(arith.CmpiOp(element_rank, position, "eq"))
        index = b.insert(arith.IndexCastOp(b.index(rank), I64))
        return [b.insert(arith.SelectOp(hit, element, found)), b.insert(arith.SelectOp(hit, index, found_index))]

    inputs = [(value, there), (ranks, there), *([first] if per_line else [])]
    outputs = [(lw.filled(out_shape, value.type.element_type, 0), here), (lw.filled(out_shape, I64, 0), here)]
    return lw.generic(inputs, outputs, iterators, gather)


def _sort(lw: Lowering, x: SSAValue, dim: int, descending: bool, count: Any = None) -> list[SSAValue]:
    shape = _shape(x)
    if not shape:  # a 0-d tensor: itself, at index 0
        return [lw.value(x), lw.filled((), I64, 0)]
    axis = dim % len(shape)
    out_shape = [count if a == axis and count is not None else size for a, size in enumerate(shape)]
    return _sorted(lw, lw.value(x), shape, axis, descending, out_shape, is_unsigned(x.type.dtype))


@lowers("reductions", "aten.sort.default")
def sort(lw: Lowering) -> list[SSAValue]:
    x, dim, descending = lw.op.arguments()
    return _sort(lw, x, dim, descending)


@lowers("reductions", "aten.sort.stable")
def sort_stable(lw: Lowering) -> list[SSAValue]:
    x, _stable, dim, descending = lw.op.arguments()  # torch's sort is stable either way
    return _sort(lw, x, dim, descending)


@lowers("reductions", "aten.topk.default")
def topk(lw: Lowering) -> list[SSAValue]:
    """The k largest (smallest) in order, ties by lowest index; ``sorted`` False too."""
    x, _count, dim, largest, _sorted_flag = lw.op.arguments()
    rank = len(_shape(x))
    count = lw.result_type(0).shape[dim % rank] if rank else None  # k as a dim (int or expression)
    return _sort(lw, x, dim, largest, count)


# ---------------------------------------------------------------- k-th values, medians

Target = Callable[[SSAValue, Sequence[Any], int], SSAValue | Operand]  # (value, shape, axis) -> rank


def _drop_axis(lw: Lowering, value: SSAValue, axis: int) -> SSAValue:
    """``value`` without its unit dim ``axis`` (``tensor.collapse_shape`` into a neighbour)."""
    shape = list(value.type.get_shape())
    groups = [[a] for a in range(len(shape)) if a != axis]
    if groups:  # the unit dim joins the group before it (or the first one)
        neighbour = groups[max(axis - 1, 0)]
        neighbour.insert(0 if axis == 0 else len(neighbour), axis)
    return collapse(lw, value, groups)


def _selected(lw: Lowering, value: SSAValue, shape: Sequence[Any], dtype: DType, dim: int, keepdim: bool,
              target: Target, nan_first: bool = False) -> list[SSAValue]:
    """The element of rank ``target`` along ``dim`` of ``value`` (upstream, of ``shape``) in
    ascending order (a nan largest, ties by index) and its index. ``target`` gives the rank
    for every line (an i64) or per line (a keepdim-shaped tensor and its map).
    ``nan_first``: a line holding a nan gives its first nan instead (median)."""
    if not shape:  # a 0-d tensor: itself, at index 0
        return [value, lw.filled((), I64, 0)]
    axis = dim % len(shape)
    kept_shape = reduced_dims(shape, (axis,), True)
    found = _sorted(lw, value, shape, axis, False, kept_shape, is_unsigned(dtype), target(value, shape, axis))
    if nan_first and is_float(value.type.element_type):
        found = _first_nan_instead(lw, value, shape, axis, found)
    return found if keepdim else [_drop_axis(lw, v, axis) for v in found]


def _first_nan_instead(lw: Lowering, value: SSAValue, shape: Sequence[Any], axis: int,
                       found: list[SSAValue]) -> list[SSAValue]:
    """(nan, the first nan's index) on the lines (kept dim) holding a nan, ``found`` elsewhere."""
    rank = len(shape)
    limit = lw.insert(arith.IndexCastOp(lw.index(shape[axis]), I64)).results[0]  # past every index: no nan

    def first_nan(b: Body) -> list[SSAValue]:
        element, first = b.args
        here = b.insert(arith.IndexCastOp(b.index(axis), I64))
        candidate = b.insert(arith.SelectOp(b.insert(arith.CmpfOp(element, element, "uno")), here, limit))
        return [b.insert(arith.MinSIOp(candidate, first))]

    (first,) = reduction(lw, shape, (axis,), True, [value], [(I64, limit)], first_nan)
    kept_shape = reduced_dims(shape, (axis,), True)
    element = value.type.element_type

    def pick(b: Body) -> list[SSAValue]:
        median, index, nan_index = b.args[:3]
        has_nan = b.insert(arith.CmpiOp(nan_index, limit, "slt"))
        return [b.insert(arith.SelectOp(has_nan, b.constant(math.nan, element), median)),
                b.insert(arith.SelectOp(has_nan, nan_index, index))]

    identity = AffineMap.identity(rank)
    outputs = [(lw.empty_of(kept_shape, element), identity), (lw.empty_of(kept_shape, I64), identity)]
    return lw.generic([(found[0], identity), (found[1], identity), (first, identity)], outputs,
                      [PARALLEL] * rank, pick)


def _middle_rank(lw: Lowering, value: SSAValue, shape: Sequence[Any], axis: int) -> SSAValue:
    """(n - 1) // 2 for the n elements along ``axis``: the lower median's rank, an i64."""
    last = lw.insert(arith.SubiOp(lw.index(shape[axis]), lw.index(1))).results[0]
    middle = lw.insert(arith.FloorDivSIOp(last, lw.index(2))).results[0]
    return lw.insert(arith.IndexCastOp(middle, I64)).results[0]


def _middle_of_numbers(lw: Lowering, value: SSAValue, shape: Sequence[Any], axis: int) -> Operand:
    """nanmedian's rank per line: (m - 1) // 2 of its m non-nan elements ((n - 1) // 2 of all
    when every one is nan), a keepdim-shaped tensor read at the line."""
    rank = len(shape)

    def count(b: Body) -> list[SSAValue]:
        number = b.insert(arith.CmpfOp(b.args[0], b.args[0], "ord"))
        return [b.insert(arith.AddiOp(b.args[1], b.insert(arith.ExtUIOp(number, I64))))]

    (numbers,) = reduction(lw, shape, (axis,), True, [value], [(I64, 0)], count)
    all_nan = _middle_rank(lw, value, shape, axis)

    def middle(b: Body, v: list[SSAValue]) -> SSAValue:
        lower = b.insert(arith.FloorDivSIOp(b.insert(arith.SubiOp(v[0], b.constant(1, I64))), b.constant(2, I64)))
        some = b.insert(arith.CmpiOp(v[0], b.constant(0, I64), "sgt"))
        return b.insert(arith.SelectOp(some, lower, all_nan))

    ranks = lw.elementwise(reduced_dims(shape, (axis,), True), I64, [numbers], middle)
    at_line = reduced_map(rank, (axis,), True)
    return ranks, AffineMap(rank + 1, 0, at_line.results)


def _median(lw: Lowering, value: SSAValue, shape: Sequence[Any], dtype: DType, dim: int, keepdim: bool,
            ignore_nan: bool) -> list[SSAValue]:
    """The lower median along ``dim`` and its index: median lets a nan win (the first one),
    nanmedian takes the median of the numbers."""
    if ignore_nan and is_float(value.type.element_type):
        return _selected(lw, value, shape, dtype, dim, keepdim, partial(_middle_of_numbers, lw))
    return _selected(lw, value, shape, dtype, dim, keepdim, partial(_middle_rank, lw), nan_first=True)


@lowers("reductions", "aten.median.dim")
def median_dim(lw: Lowering) -> list[SSAValue]:
    x, dim, keepdim = lw.op.arguments()
    return _median(lw, lw.value(x), _shape(x), x.type.dtype, dim, keepdim, ignore_nan=False)


@lowers("reductions", "aten.nanmedian.dim")
def nanmedian_dim(lw: Lowering) -> list[SSAValue]:
    x, dim, keepdim = lw.op.arguments()
    return _median(lw, lw.value(x), _shape(x), x.type.dtype, dim, keepdim, ignore_nan=True)


def _whole_median(lw: Lowering, ignore_nan: bool) -> list[SSAValue]:
    """median()/nanmedian(): that of the flattened tensor, 0-d."""
    (x,) = lw.op.arguments()
    shape = _shape(x)
    if not shape:
        return [lw.value(x)]
    size = functools.reduce(operator.mul, shape, 1)
    flat = collapse(lw, lw.value(x), [list(range(len(shape)))])
    return _median(lw, flat, [size], x.type.dtype, 0, False, ignore_nan)[:1]


@lowers("reductions", "aten.median.default")
def median(lw: Lowering) -> list[SSAValue]:
    return _whole_median(lw, ignore_nan=False)


@lowers("reductions", "aten.nanmedian.default")
def nanmedian(lw: Lowering) -> list[SSAValue]:
    return _whole_median(lw, ignore_nan=True)


@lowers("reductions", "aten.kthvalue.default")
def kthvalue(lw: Lowering) -> list[SSAValue]:
    """The k-th smallest (1-based) along ``dim`` and its index; a nan sorts last."""
    x, k, dim, keepdim = lw.op.arguments()
    k_index = lw.insert(arith.IndexCastOp(lw.index(k), I64)).results[0]
    rank_of_k = lw.insert(arith.SubiOp(k_index, lw.constant(1, I64))).results[0]
    return _selected(lw, lw.value(x), _shape(x), x.type.dtype, dim, keepdim, lambda *_: rank_of_k)


# ---------------------------------------------------------------- bucketize, searchsorted


def _search(lw: Lowering, boundaries: SSAValue, values: Any, right: bool) -> SSAValue:
    """How many boundaries (along their last dim) come before each value: < (left) or <=
    (right). 1-d boundaries order as numpy's searchsorted (a nan the largest); a row of
    boundaries per line of values compares plainly, as the interpreter. A count over a
    reduction loop: O(values x boundaries) instead of a binary search."""
    result = lw.result_type()
    bounds = lw.value(boundaries)
    dtype = boundaries.type.dtype
    element = element_type(dtype)
    shape = list(result.shape)
    rank = len(shape)
    loop = AffineExpr.dimension(rank)
    if len(boundaries.type.shape) == 1:
        bounds_map = AffineMap(rank + 1, 0, (loop,))
    else:
        bounds_map = AffineMap(rank + 1, 0, (*(AffineExpr.dimension(a) for a in range(rank - 1)), loop))
    here = _scan_maps(rank, rank - 1)[0] if rank else AffineMap(1, 0, ())
    inputs = [(bounds, bounds_map)]
    if isinstance(values, SSAValue):
        inputs.append((lw.value(values), here))
    ordered = len(boundaries.type.shape) == 1

    def count(b: Body) -> list[SSAValue]:
        bound = b.args[0]
        value = (b.convert(b.args[1], element, is_unsigned(values.type.dtype)) if isinstance(values, SSAValue)
                 else b.constant(values, element))
        before = _bound_before(b, bound, value, right, ordered, is_unsigned(dtype))
        total = b.args[-1]
        return [b.insert(arith.AddiOp(total, b.insert(arith.ExtUIOp(before, total.type))))]

    init = lw.filled(shape, element_type(result.dtype), 0)
    return lw.generic(inputs, [(init, here)], [PARALLEL] * rank + [REDUCTION], count)[0]


def _bound_before(b: Body, bound: SSAValue, value: SSAValue, right: bool, ordered: bool,
                  unsigned: bool) -> SSAValue:
    """bound < value (bound <= value with ``right``); ``ordered``: a nan the largest."""
    if not is_float(bound.type):
        return b.insert(arith.CmpiOp(bound, value, ("ule" if right else "ult") if unsigned
                                     else ("sle" if right else "slt")))
    if not ordered:
        return b.insert(arith.CmpfOp(bound, value, "ole" if right else "olt"))
    if right:  # not (value < bound): a nan bound is above any number, a nan value above all
        value_below = _precedes(b, value, bound, b.constant(False, IntegerType(1)), False, False)
        return b.insert(arith.XOrIOp(value_below, b.constant(True, IntegerType(1))))
    return _precedes(b, bound, value, b.constant(False, IntegerType(1)), False, False)


@lowers("reductions", "aten.bucketize.Tensor", "aten.bucketize.Scalar")
def bucketize(lw: Lowering) -> list[SSAValue]:
    values, boundaries, _out_int32, right = lw.op.arguments()
    return [_search(lw, boundaries, values, right)]


@lowers("reductions", "aten.searchsorted.Tensor", "aten.searchsorted.Scalar")
def searchsorted(lw: Lowering) -> list[SSAValue]:
    sorted_sequence, values, _out_int32, right, side, sorter = lw.op.arguments()
    if sorter is not None:
        raise UnsupportedType(f"'{lw.op.name}': a sorter has no lowering here (sort the sequence first)")
    return [_search(lw, sorted_sequence, values, right or side == "right")]


# ---------------------------------------------------------------- scans


@lowers("reductions", "aten.cumsum.default")
def cumsum(lw: Lowering) -> list[SSAValue]:
    """out[.., i, ..] = sum of x[.., j, ..] for j <= i: a generic with the extra reduction
    loop j (the module's docstring says why and what it costs)."""
    x, dim, _dtype = lw.op.arguments()
    result = lw.result_type()
    element = element_type(opmath_dtype(result.dtype))
    shape = _shape(x)
    rank = len(shape)
    if rank == 0:
        return [lw.converted(lw.value(x), element_type(result.dtype), ())]
    axis = dim % rank
    write, read = _scan_maps(rank, axis)
    identity = -0.0 if is_float(element) else 0  # x + -0.0 is x for every x, -0.0 included

    def step(b: Body) -> list[SSAValue]:
        in_prefix = b.insert(arith.CmpiOp(b.index(rank), b.index(axis), "ule"))
        total = b.add(b.convert(b.args[0], element, is_unsigned(x.type.dtype)), b.args[1])
        return [b.insert(arith.SelectOp(in_prefix, total, b.args[1]))]

    init = lw.filled(shape, element, identity)
    (total,) = lw.generic([(lw.value(x), read)], [(init, write)], [PARALLEL] * rank + [REDUCTION], step)
    return [lw.converted(total, element_type(result.dtype), result.shape)]


def _running_extreme(lw: Lowering, maximum: bool) -> list[SSAValue]:
    """cummax/cummin: the running max (min) and the last index holding it, as torch's
    loop: an equal element takes over, a nan once seen stays (the last nan's index).
    Triangular as cumsum; the combine is order-free (later index wins ties)."""
    x, dim = lw.op.arguments()
    shape, rank = _shape(x), len(_shape(x))
    if rank == 0:
        return [lw.value(x), lw.filled((), I64, 0)]
    axis = dim % rank
    here, there = _scan_maps(rank, axis)
    element = element_type(x.type.dtype)
    unsigned = is_unsigned(x.type.dtype)

    def step(b: Body) -> list[SSAValue]:
        value, best, best_index = b.args
        position, current = b.index(rank), b.index(axis)
        index = b.insert(arith.IndexCastOp(position, I64))
        later = b.insert(arith.CmpiOp(index, best_index, "sgt"))
        take = _takes_over(b, value, best, later, maximum, unsigned)
        in_prefix = b.insert(arith.CmpiOp(position, current, "ule"))
        take = b.insert(arith.AndIOp(take, in_prefix))
        return [b.insert(arith.SelectOp(take, value, best)), b.insert(arith.SelectOp(take, index, best_index))]

    outputs = [(lw.filled(shape, element, extreme_identity(element, maximum, unsigned)), here),
               (lw.filled(shape, I64, 0), here)]
    return lw.generic([(lw.value(x), there)], outputs, [PARALLEL] * rank + [REDUCTION], step)


@lowers("reductions", "aten.cummax.default")
def cummax(lw: Lowering) -> list[SSAValue]:
    return _running_extreme(lw, maximum=True)


@lowers("reductions", "aten.cummin.default")
def cummin(lw: Lowering) -> list[SSAValue]:
    return _running_extreme(lw, maximum=False)
