"""Moving a tensor's elements without computing: reshapes (``tensor.collapse_shape``,
``tensor.expand_shape``), pads (``tensor.pad``) and slices (``tensor.extract_slice``,
``tensor.insert_slice``), for every family.

A size here is a Python int, a dim expression (its ``index`` from the size table)
or an ``index`` value; slices take the static ones in their properties and the
others as operands, as ``custom<DynamicIndexList>`` prints them. The slice builders
return the op, not inserted: control flow inserts them inside the regions it moves."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from xdsl.dialects import tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from texport.dialects.symbolic import is_static

from .builder import Lowering, scalar_constant

Size = int | SSAValue  # a static size or offset, or an ``index`` value


def size_operand(lw: Lowering, dim: Any) -> Size:
    """A slice's size or offset: a Python int as it is, else its ``index``."""
    return dim if isinstance(dim, int) else lw.index(dim)


def _static_and_dynamic(lw: Lowering, sizes: Sequence[Any]) -> tuple[list[int], list[SSAValue]]:
    """Sizes (ints, dim expressions, ``index`` values) as the static list (``?`` for the
    others) and the ``index`` values of the others."""
    return ([s if is_static(s) else DYNAMIC_INDEX for s in sizes],
            [lw.index(s) for s in sizes if not is_static(s)])


def reassociation(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in group]) for group in groups])


def collapse(lw: Lowering, value: SSAValue, groups: Sequence[Sequence[int]],
             result: TensorType | None = None) -> SSAValue:
    """``tensor.collapse_shape`` of ``value``, one dim per group (``result``: its type,
    by default the groups' products, ``?`` where one holds a ``?``)."""
    if result is None:
        shape = value.type.get_shape()
        parts = [[shape[d] for d in group] for group in groups]
        result = TensorType(value.type.element_type,
                            [DYNAMIC_INDEX if DYNAMIC_INDEX in p else math.prod(p) for p in parts])
    op = tensor.CollapseShapeOp.create(operands=[value], result_types=[result],
                                       properties={"reassociation": reassociation(groups)})
    return lw.insert(op).results[0]


def expand(lw: Lowering, value: SSAValue, groups: Sequence[Sequence[int]], sizes: Sequence[Any]) -> SSAValue:
    """``tensor.expand_shape`` of ``value`` to ``sizes``, each group of them from one dim."""
    static, dynamic = _static_and_dynamic(lw, sizes)
    result = TensorType(value.type.element_type, static)
    return lw.insert(tensor.ExpandShapeOp(value, dynamic, reassociation(groups), static, result)).results[0]


def pad(lw: Lowering, value: SSAValue, low: Sequence[int], high: Sequence[int], padding: int | float | bool,
        result: TensorType | None = None) -> SSAValue:
    """``value`` padded by ``low``/``high`` elements per dim with ``padding`` (itself
    when nothing is padded); ``result``: its type when more is known than ``value``'s."""
    if not any(low) and not any(high):
        return value
    source: TensorType = value.type
    if result is None:
        result = TensorType(source.element_type, [
            DYNAMIC_INDEX if s == DYNAMIC_INDEX else s + lo + hi
            for s, lo, hi in zip(source.get_shape(), low, high, strict=True)])
    block = Block(arg_types=[IndexType()] * len(low))
    constant = scalar_constant(padding, source.element_type)
    block.add_ops([constant, tensor.YieldOp(constant)])
    return lw.insert(tensor.PadOp(value, [], [], Region(block), list(low), list(high), result)).results[0]


def extract_slice(source: SSAValue, offsets: Sequence[Size], sizes: Sequence[Size], strides: Sequence[Size],
                  result: Attribute) -> Operation:
    """``tensor.extract_slice`` (rank-reducing when ``result`` has fewer dims), not inserted."""
    return _sliced(tensor.ExtractSliceOp, [source], offsets, sizes, strides, result)


def insert_slice(source: SSAValue, dest: SSAValue, offsets: Sequence[Size], sizes: Sequence[Size],
                 strides: Sequence[Size]) -> Operation:
    """``tensor.insert_slice`` of ``source`` into ``dest``, not inserted."""
    return _sliced(tensor.InsertSliceOp, [source, dest], offsets, sizes, strides, dest.type)


def _sliced(op_class: type, tensors: list[SSAValue], offsets: Sequence[Size], sizes: Sequence[Size],
            strides: Sequence[Size], result: Attribute) -> Operation:
    def split(values: Sequence[Size]) -> tuple[list[SSAValue], DenseArrayBase]:
        static = [v if isinstance(v, int) else DYNAMIC_INDEX for v in values]
        return [v for v in values if not isinstance(v, int)], DenseArrayBase.from_list(i64, static)

    (dynamic_offsets, static_offsets), (dynamic_sizes, static_sizes), (dynamic_strides, static_strides) = (
        split(offsets), split(sizes), split(strides))
    return op_class.build(
        operands=[*tensors, dynamic_offsets, dynamic_sizes, dynamic_strides], result_types=[result],
        properties={"static_offsets": static_offsets, "static_sizes": static_sizes,
                    "static_strides": static_strides})
