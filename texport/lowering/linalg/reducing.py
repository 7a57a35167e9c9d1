"""Reductions as the families build them (reductions, norms): a ``linalg.generic``
over the input's shape whose reduced dims are ``reduction`` iterators, each output
filled with its identity first; with ``keepdim`` the output's map reads index 0 for
each reduced dim, so no reshape follows. ``moments`` is torch's two-pass mean and
squared deviations."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import arith
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from texport.dialects.symbolic import is_static

from .builder import PARALLEL, REDUCTION, Body, Lowering, Operand


def reduced_map(rank: int, axes: Sequence[int], keepdim: bool) -> AffineMap:
    """How a reduction's result is indexed from its input's loops: reduced dims dropped,
    or read at index 0 with ``keepdim``."""
    exprs = []
    for axis in range(rank):
        if axis not in axes:
            exprs.append(AffineExpr.dimension(axis))
        elif keepdim:
            exprs.append(AffineExpr.constant(0))
    return AffineMap(rank, 0, tuple(exprs))


def reduced_dims(shape: Sequence[Any], axes: Sequence[int], keepdim: bool) -> list[Any]:
    return [1 if axis in axes else size for axis, size in enumerate(shape) if keepdim or axis not in axes]


def reduction(lw: Lowering, shape: Sequence[Any], axes: Sequence[int], keepdim: bool,
              inputs: Sequence[Operand], accumulators: Sequence[tuple[Attribute, int | float | bool | SSAValue]],
              step: Callable[[Body], Sequence[SSAValue]]) -> list[SSAValue]:
    """A generic over ``shape`` reducing ``axes``: one output per (element, identity) of
    ``accumulators``, each filled with its identity; ``step`` combines the inputs'
    elements with the accumulators' (``Body.args``: inputs, then accumulators)."""
    rank = len(shape)
    out_dims = reduced_dims(shape, axes, keepdim)
    out_map = reduced_map(rank, axes, keepdim)
    outputs = [(lw.filled(out_dims, element, identity), out_map) for element, identity in accumulators]
    iterators = [REDUCTION if axis in axes else PARALLEL for axis in range(rank)]
    return lw.generic(inputs, outputs, iterators, step)


def element_count(lw: Lowering, shape: Sequence[Any], axes: Sequence[int], element: Attribute) -> SSAValue:
    """The number of elements a reduction over ``axes`` combines, as a float scalar."""
    sizes = [shape[a] for a in axes]
    if all(is_static(s) for s in sizes):
        return lw.constant(float(math.prod(int(s) for s in sizes)), element)
    count = lw.index(sizes[0])
    for size in sizes[1:]:
        count = lw.insert(arith.MuliOp(count, lw.index(size))).results[0]
    return lw.convert(count, element)


def moments(lw: Lowering, x: SSAValue, shape: Sequence[Any], axes: Sequence[int], keepdim: bool,
            element: Attribute) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(mean, sum of squared deviations from it, count) over ``axes``, in ``element``
    (torch's two passes: the mean, then the deviations)."""
    count = element_count(lw, shape, axes, element)
    (total,) = reduction(lw, shape, axes, keepdim, [x], [(element, 0.0)],
                         lambda b: [b.add(b.convert(b.args[0], element), b.args[1])])
    dims = reduced_dims(shape, axes, keepdim)
    mean = lw.elementwise(dims, element, [total], lambda b, v: b.insert(arith.DivfOp(v[0], count)))

    def square(b: Body) -> list[SSAValue]:
        deviation = b.insert(arith.SubfOp(b.convert(b.args[0], element), b.args[1]))
        return [b.add(b.insert(arith.MulfOp(deviation, deviation)), b.args[2])]

    (squares,) = reduction(lw, shape, axes, keepdim, [x, (mean, reduced_map(len(shape), axes, keepdim))],
                           [(element, 0.0)], square)
    return mean, squares, count
