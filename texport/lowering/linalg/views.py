"""Linalg lowerings: view ops, as value semantics (core's result is a new tensor).

Each result's shape is read from the op's result type (the shape rule has
resolved ``-1``, clamped slice bounds, squeezed dims), so a lowering only
chooses how to move the data:

- reshapes (view, squeeze, unsqueeze): ``tensor.collapse_shape`` then
  ``tensor.expand_shape`` over the groups of dims whose products match;
- sub-tensors (slice, select, split, narrow's slice): ``tensor.extract_slice``
  (rank-reduced for select), their scatters ``tensor.insert_slice``;
- permute: ``linalg.transpose``; expand: a broadcasting ``linalg.generic``;
  cat: ``tensor.insert_slice`` of each input into a ``tensor.empty`` (IREE takes
  no ``tensor.concat``); constant_pad_nd: ``tensor.pad`` (negative pads slice);
- element moves affine maps cannot say (flip, diagonal, as_strided):
  a ``linalg.generic`` reading its input with ``tensor.extract`` at indices made
  from ``linalg.index``.

Start and index operands follow Python's rules (negative counts from the end,
slice bounds clamp), as the interpreter's kernels do; a dynamic size makes them
index arithmetic."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.ops import (
    TransposeOp,
)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from texport.dialects import symbolic
from texport.dialects.tx import TensorType as TxTensorType

from . import shapes
from .builder import PARALLEL, Body, Lowering, Operand
from .registry import lowers
from .shapes import Size, collapse, extract_slice, insert_slice, size_operand
from .sizes import SizeError
from .types import is_float, is_unsigned, tensor_type

# ---------------------------------------------------------------------------- sizes


def _normal(dim: Any) -> Any:
    """A size with a static value as a Python int."""
    return int(dim) if symbolic.is_static(dim) else dim


def _dims(tx_type: TxTensorType) -> tuple[Any, ...]:
    return tuple(_normal(d) for d in tx_type.shape)


def _wrap(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


def _literals(values: Sequence[Any], what: str) -> list[int]:
    """``values`` as Python ints; a symbolic one is named (the pass adds the op and its line)."""
    if any(isinstance(v, SSAValue) for v in values):
        raise SizeError(f"symbolic {what} are not supported (expected integers, found {list(values)})")
    return [int(v) for v in values]


def _counts(values: Sequence[Any]) -> list[Any]:
    """Counts as dims: an int, or a size's expression (``!tx.symint<s77>``), which the
    size table computes where a shape needs it."""
    counts = []
    for value in values:
        if isinstance(value, SSAValue):
            expression = getattr(value.type, "value", None)
            if expression is None:
                raise SizeError(f"a count of unknown size: {value.type}")
            counts.append(expression)
        else:
            counts.append(int(value))
    return counts


def _emit(lw: Lowering, op: Operation) -> SSAValue:
    """Insert ``op`` before the op being lowered; its (first) result."""
    return lw.insert(op).results[0]


def _start(lw: Lowering, start: Any, size: Any) -> Size:
    """A slice start as Python reads it: negative counts from the end, clamped to [0, size]."""
    if start is None or (isinstance(start, int) and start == 0):
        return 0
    if isinstance(start, int) and isinstance(size, int):
        return min(max(start + size if start < 0 else start, 0), size)
    value, length = lw.index(start), lw.index(size)

    def from_start() -> SSAValue:
        return _emit(lw, arith.MinSIOp(value, length))

    def from_end() -> SSAValue:
        return _emit(lw, arith.MaxSIOp(_emit(lw, arith.AddiOp(value, length)), lw.index(0)))

    if isinstance(start, int):
        return from_start() if start > 0 else from_end()
    negative = _emit(lw, arith.CmpiOp(value, lw.index(0), "slt"))
    return _emit(lw, arith.SelectOp(negative, from_end(), from_start()))


def _position(lw: Lowering, index: Any, size: Any) -> Size:
    """An element index (select's): negative counts from the end (the shape rule checked bounds)."""
    if isinstance(index, int) and (index >= 0 or isinstance(size, int)):
        return index + size if index < 0 else index
    value = lw.index(index)
    shifted = _emit(lw, arith.AddiOp(value, lw.index(size)))
    if isinstance(index, int):
        return shifted
    negative = _emit(lw, arith.CmpiOp(value, lw.index(0), "slt"))
    return _emit(lw, arith.SelectOp(negative, shifted, value))


# ---------------------------------------------------------------------------- builders


def _generic(lw: Lowering, inputs: Sequence[Operand], result: TxTensorType,
             body: Callable[[Body], SSAValue]) -> SSAValue:
    """A parallel ``linalg.generic`` over ``result``'s shape making its element."""
    return lw.generic(inputs, [lw.empty(result)], [PARALLEL] * len(result.shape), lambda b: [body(b)])[0]


# ---------------------------------------------------------------------------- reshapes


def reshape_groups(source: Sequence[Any], target: Sequence[Any]) -> list[tuple[list[int], list[int]]] | None:
    """Consecutive groups of ``source`` and ``target`` dims with equal products (size-1
    dims join a neighbour), or None when the shapes do not split so."""
    sympy = symbolic.sympy
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(source) and j < len(target):
        src, dst = [i], [j]
        left, right = source[i], target[j]
        i, j = i + 1, j + 1
        while sympy.expand(left - right) != 0:
            if _smaller(left, right):
                if i == len(source):
                    return None
                left, i = left * source[i], i + 1
                src.append(i - 1)
            else:
                if j == len(target):
                    return None
                right, j = right * target[j], j + 1
                dst.append(j - 1)
        groups.append((src, dst))
    rest_source, rest_target = list(range(i, len(source))), list(range(j, len(target)))
    if any(source[k] != 1 for k in rest_source) or any(target[k] != 1 for k in rest_target):
        return None
    if groups:
        groups[-1][0].extend(rest_source)
        groups[-1][1].extend(rest_target)
    return groups


def _smaller(left: Any, right: Any) -> bool:
    """Whether ``left < right`` for sizes (a symbol read as a large size, so ``s0 > 4``)."""
    sympy = symbolic.sympy
    hint = {s: 1009 for s in sympy.sympify(left * right).free_symbols}
    return bool(sympy.sympify(left).subs(hint) < sympy.sympify(right).subs(hint))


def reshape(lw: Lowering, source: SSAValue, source_shape: Sequence[Any], result: TxTensorType) -> SSAValue:
    """``source`` (of ``source_shape``) as ``result``'s shape: a collapse to one dim per
    group of matching products, then an expansion (either left out when it does nothing)."""
    target = _dims(result)
    groups = reshape_groups(source_shape, target)
    if groups is None:  # no common groups: through one dim of all elements
        groups = [(list(range(len(source_shape))), list(range(len(target))))]
    middle = [_product([source_shape[k] for k in src]) for src, _ in groups]
    element = tensor_type(result).element_type
    value = source
    if len(middle) != len(source_shape):
        value = collapse(lw, value, [src for src, _ in groups], _upstream_shape(middle, element))
    if len(middle) != len(target):
        value = shapes.expand(lw, value, [dst for _, dst in groups], target)
    return value


def _product(dims: Sequence[Any]) -> Any:
    total: Any = 1
    for d in dims:
        total = total * d
    return _normal(total)


def _upstream_shape(shape: Sequence[Any], element: Any) -> TensorType:
    return TensorType(element, [d if isinstance(d, int) else DYNAMIC_INDEX for d in shape])


@lowers("views", "aten.view.default", "aten.squeeze.dim", "aten.squeeze.dims", "aten.unsqueeze.default")
def view(lw: Lowering) -> list[SSAValue]:
    source = lw.op.arguments()[0]
    return [reshape(lw, lw.value(source), _dims(source.type), lw.result_type())]


# ---------------------------------------------------------------------------- layout moves


@lowers("views", "aten.permute.default")
def permute(lw: Lowering) -> list[SSAValue]:
    source, dims = lw.op.arguments()
    rank = len(dims)
    permutation = [_wrap(d, rank) for d in dims]
    result = lw.result_type()
    op = TransposeOp(lw.value(source), lw.empty(result), DenseArrayBase.from_list(i64, permutation),
                     tensor_type(result))
    return [_emit(lw, op)]


@lowers("views", "aten.expand.default")
def expand(lw: Lowering) -> list[SSAValue]:
    """A broadcasting copy: a size-1 dim stretched reads index 0, new dims lead (none
    when nothing stretches: decompositions expand to the same shape)."""
    source = lw.op.arguments()[0]
    if _dims(source.type) == _dims(lw.result_type()):
        return [lw.value(source)]
    return [lw.pointwise([source], lw.result_type(), lambda body: body.args[0])]


@lowers("views", "aten.repeat.default")
def repeat(lw: Lowering) -> list[SSAValue]:
    """Each dim ``s`` repeated ``r`` times: ``s`` broadcast to ``(r, s)`` (a generic), then
    the pairs collapsed (the input gets leading size-1 dims up to len(repeats))."""
    source, repeats = lw.op.arguments()
    shape = _dims(source.type)
    lead = len(repeats) - len(shape)
    sizes = [1] * lead + list(shape)
    paired = [d for r, s in zip(_counts(repeats), sizes, strict=True) for d in (r, s)]
    loops = len(paired)
    input_map = AffineMap(loops, 0, tuple(AffineExpr.dimension(2 * (lead + k) + 1) for k in range(len(shape))))
    result = lw.result_type()
    stretched = TxTensorType.get(paired, result.dtype)
    broadcast = _generic(lw, [(lw.value(source), input_map)], stretched, lambda b: b.args[0])
    groups = [[2 * k, 2 * k + 1] for k in range(len(repeats))]
    return [collapse(lw, broadcast, groups, tensor_type(result))]


@lowers("views", "aten.flip.default")
def flip(lw: Lowering) -> list[SSAValue]:
    """``out[.., i, ..] = x[.., n-1-i, ..]`` on the flipped dims: a generic with
    ``tensor.extract`` (an affine map has no reversal of a dynamic size)."""
    source, dims = lw.op.arguments()
    shape = _dims(source.type)
    flipped = {_wrap(d, len(shape)) for d in dims}
    value = lw.value(source)
    last = {d: lw.index(_normal(shape[d] - 1)) for d in flipped}

    def body(b: Body) -> SSAValue:
        indices = b.indices(len(shape))
        for d in sorted(flipped):
            indices[d] = b.insert(arith.SubiOp(last[d], indices[d]))
        return b.insert(tensor.ExtractOp(value, indices, value.type.element_type))

    return [_generic(lw, [], lw.result_type(), body)]


@lowers("views", "aten.diagonal.default")
def diagonal(lw: Lowering) -> list[SSAValue]:
    """The other dims, then the diagonal ``k``: ``x[.., k + row0, .., k + col0]`` (torch's
    first element at ``offset``) read with ``tensor.extract`` (an input map naming one
    loop twice makes linalg infer two sizes for it)."""
    source, offset, dim1, dim2 = lw.op.arguments()
    rank = len(source.type.shape)
    first, second = _wrap(dim1, rank), _wrap(dim2, rank)
    value = lw.value(source)
    starts = {first: max(-offset, 0), second: max(offset, 0)}
    shifts = {axis: lw.index(start) for axis, start in starts.items() if start}

    def body(b: Body) -> SSAValue:
        loops = b.indices(rank - 1)
        rest, position = iter(loops[:-1]), loops[-1]
        indices = []
        for axis in range(rank):
            if axis in starts:
                shift = shifts.get(axis)
                indices.append(position if shift is None else b.insert(arith.AddiOp(position, shift)))
            else:
                indices.append(next(rest))
        return b.insert(tensor.ExtractOp(value, indices, value.type.element_type))

    return [_generic(lw, [], lw.result_type(), body)]


@lowers("views", "aten.as_strided.default")
def as_strided(lw: Lowering) -> list[SSAValue]:
    """``out[i] = storage[offset + sum(i * stride)]`` with the input as its own row-major
    storage (a core value is a fresh tensor): the input collapsed to one dim, read by a
    generic with ``tensor.extract``."""
    source, _size_list, strides, offset = lw.op.arguments()
    shape = _dims(source.type)
    flat = reshape(lw, lw.value(source), shape, TxTensorType.get([_product(shape)], source.type.dtype))
    element = flat.type.element_type
    steps = [lw.index(stride) for stride in strides]
    start = lw.index(offset or 0)

    def body(b: Body) -> SSAValue:
        position = start
        for loop, step in zip(b.indices(len(steps)), steps, strict=True):
            position = b.insert(arith.AddiOp(position, b.insert(arith.MuliOp(loop, step))))
        return b.insert(tensor.ExtractOp(flat, [position], element))

    return [_generic(lw, [], lw.result_type(), body)]


# ---------------------------------------------------------------------------- sub-tensors


def _full(lw: Lowering, shape: Sequence[Any]) -> tuple[list[Size], list[Size], list[Size]]:
    """Offsets, sizes and strides of a whole tensor of ``shape``."""
    return [0] * len(shape), [size_operand(lw, d) for d in shape], [1] * len(shape)


@lowers("views", "aten.slice.Tensor")
def slice_tensor(lw: Lowering) -> list[SSAValue]:
    source, dim, start, _end, step = lw.op.arguments()
    shape = _dims(source.type)
    axis = _wrap(dim, len(shape))
    result = lw.result_type()
    offsets, sizes, strides = _full(lw, _dims(result))
    offsets[axis] = _start(lw, start, shape[axis])
    strides[axis] = size_operand(lw, step)
    return [_emit(lw, extract_slice(lw.value(source), offsets, sizes, strides, tensor_type(result)))]


@lowers("views", "aten.select.int")
def select(lw: Lowering) -> list[SSAValue]:
    """A slice of size 1 at ``index``, that dim dropped (a rank-reduced extract_slice)."""
    source, dim, index = lw.op.arguments()
    shape = _dims(source.type)
    axis = _wrap(dim, len(shape))
    offsets, sizes, strides = _full(lw, shape)
    offsets[axis], sizes[axis] = _position(lw, index, shape[axis]), 1
    return [_emit(lw, extract_slice(lw.value(source), offsets, sizes, strides, tensor_type(lw.result_type())))]


@lowers("views", "aten.split_with_sizes.default")
def split(lw: Lowering) -> list[SSAValue]:
    """One slice per piece, each starting where the pieces before it end."""
    source, _sizes, dim = lw.op.arguments()
    shape = _dims(source.type)
    axis = _wrap(dim, len(shape))
    value, start = lw.value(source), 0
    pieces = []
    for result in lw.op.results:
        piece = _dims(result.type)
        offsets, sizes, strides = _full(lw, piece)
        offsets[axis] = size_operand(lw, _normal(start))
        pieces.append(_emit(lw, extract_slice(value, offsets, sizes, strides, tensor_type(result.type))))
        start = start + piece[axis]
    return pieces


@lowers("views", "aten.slice_scatter.default")
def slice_scatter(lw: Lowering) -> list[SSAValue]:
    source, src, dim, start, _end, step = lw.op.arguments()
    shape = _dims(source.type)
    axis = _wrap(dim, len(shape))
    offsets, sizes, strides = _full(lw, _dims(src.type))
    offsets[axis] = _start(lw, start, shape[axis])
    strides[axis] = size_operand(lw, step)
    return [_emit(lw, insert_slice(lw.value(src), lw.value(source), offsets, sizes, strides))]


@lowers("views", "aten.select_scatter.default")
def select_scatter(lw: Lowering) -> list[SSAValue]:
    source, src, dim, index = lw.op.arguments()
    shape = _dims(source.type)
    axis = _wrap(dim, len(shape))
    offsets, sizes, strides = _full(lw, shape)
    offsets[axis], sizes[axis] = _position(lw, index, shape[axis]), 1
    return [_emit(lw, insert_slice(lw.value(src), lw.value(source), offsets, sizes, strides))]


@lowers("views", "aten.cat.default")
def cat(lw: Lowering) -> list[SSAValue]:
    """Each input inserted into an empty result at the sum of the sizes before it
    (a 1-D empty input is skipped, as torch's cat does)."""
    tensors, dim = lw.op.arguments()
    result = lw.result_type()
    axis = _wrap(dim, len(result.shape))
    dest, start = lw.empty(result), 0
    for piece in tensors:
        shape = _dims(piece.type)
        if shape == (0,) and len(result.shape) != 1:
            continue
        offsets, sizes, strides = _full(lw, shape)
        offsets[axis] = size_operand(lw, _normal(start))
        dest = _emit(lw, insert_slice(_converted(lw, piece, result), dest, offsets, sizes, strides))
        start = start + shape[axis]
    return [dest]


def _converted(lw: Lowering, value: SSAValue, result: TxTensorType) -> SSAValue:
    """``value`` in ``result``'s dtype (cat promotes its inputs)."""
    if value.type.dtype == result.dtype:
        return lw.value(value)
    unsigned = is_unsigned(value.type.dtype)  # a uint8 widens unsigned
    return lw.pointwise([value], TxTensorType.get(value.type.shape, result.dtype),
                        lambda body: body.convert(body.args[0], body.element, unsigned))


@lowers("views", "aten.constant_pad_nd.default")
def constant_pad_nd(lw: Lowering) -> list[SSAValue]:
    """``tensor.pad`` with ``value``; the negative pads first cut the input (a slice)."""
    source, pad, value = lw.op.arguments()
    shape = _dims(source.type)
    rank = len(shape)
    low, high = [0] * rank, [0] * rank
    pad = _literals(pad, "pads")
    for k in range(len(pad) // 2):  # pairs from the last dim backwards
        low[rank - 1 - k], high[rank - 1 - k] = pad[2 * k], pad[2 * k + 1]
    current = lw.value(source)
    if any(p < 0 for p in low + high):
        cut = [d + min(lo, 0) + min(hi, 0) for d, lo, hi in zip(shape, low, high, strict=True)]
        offsets = [-min(lo, 0) for lo in low]
        element = current.type.element_type
        current = _emit(lw, extract_slice(current, offsets, [size_operand(lw, _normal(d)) for d in cut], [1] * rank,
                                          _upstream_shape([_normal(d) for d in cut], element)))
    if all(p <= 0 for p in low + high):
        return [current]
    result = tensor_type(lw.result_type())
    return [shapes.pad(lw, current, [max(p, 0) for p in low], [max(p, 0) for p in high],
                       _pad_value(value, result.element_type), result)]


def _pad_value(value: Any, element: Any) -> int | float | bool:
    if is_float(element):
        return float(value)
    return int(value)
