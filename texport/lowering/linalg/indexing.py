"""Linalg lowerings: indexing.

A gather (embedding, index_select, gather, advanced indexing) is a
``linalg.generic`` over the result whose body reads the source with
``tensor.extract`` at coordinates made of ``linalg.index`` and the index
tensors' elements. A scatter (index_put, scatter, scatter_add, scatter_reduce) is a reduction,
for each element, over the writes that may reach it (see below): later writes
win and duplicates accumulate as torch's CPU loops do.


Not lowered, named by ``legalize-linalg``: ``nonzero`` (its size depends on the
data). Refused by name: ``_embedding_bag`` with its other results used, a boolean
mask index (but index_put's with one value), uint8 where signedness matters."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from texport.dialects.dtypes import DType

from .builder import PARALLEL, REDUCTION, Body, Lowering, dims_map
from .registry import lowers
from .types import element_type, extreme_identity, is_float, opmath_dtype, tensor_type

# ---------------------------------------------------------------------------
# Gathers
# ---------------------------------------------------------------------------


def _gather_along(lw: Lowering, source: SSAValue, dim: int, index_map: AffineMap, index: SSAValue
                  ) -> SSAValue:
    """result[p] = source[p with p[dim] = index[index_map(p)]]: a generic over the result."""
    result = lw.result_type()
    rank = len(result.shape)
    source_value = lw.value(source)
    element = tensor_type(result).element_type

    def body(b: Body) -> list[SSAValue]:
        coords = [b.as_index(b.args[0]) if axis == dim else b.index(axis) for axis in range(rank)]
        return [b.insert(tensor.ExtractOp(source_value, coords, element))]

    return lw.generic([(lw.value(index), index_map)], [lw.empty(result)], [PARALLEL] * rank, body)[0]


def _dim(lw: Lowering, dim: int, rank: int) -> int:
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise lw.unsupported(f"expected a dim in [{-rank}, {rank}), found {dim}")
    return dim % max(rank, 1)


@lowers("indexing", "aten.embedding.default")
def embedding(lw: Lowering) -> list[SSAValue]:
    """result[i..., j] = weight[indices[i...], j]."""
    weight, indices = lw.op.arguments()[:2]
    result = lw.result_type()
    rank = len(result.shape)
    weight_value = lw.value(weight)
    element = tensor_type(result).element_type

    def body(b: Body) -> list[SSAValue]:
        coords = [b.as_index(b.args[0]), b.index(rank - 1)]
        return [b.insert(tensor.ExtractOp(weight_value, coords, element))]

    return lw.generic([(lw.value(indices), dims_map(rank, range(rank - 1)))], [lw.empty(result)],
                      [PARALLEL] * rank, body)


@lowers("indexing", "aten.index_select.default")
def index_select(lw: Lowering) -> list[SSAValue]:
    source, dim, index = lw.op.arguments()
    rank = len(source.type.shape)
    if rank == 0 or len(index.type.shape) != 1:
        raise lw.unsupported("expected a source of rank >= 1 and a 1-d index")
    dim = _dim(lw, dim, rank)
    return [_gather_along(lw, source, dim, dims_map(rank, [dim]), index)]


@lowers("indexing", "aten.gather.default")
def gather(lw: Lowering) -> list[SSAValue]:
    source, dim, index = lw.op.arguments()[:3]
    rank = len(source.type.shape)
    if rank == 0 or len(index.type.shape) != rank:
        raise lw.unsupported("expected a source of rank >= 1 and an index of the same rank")
    return [_gather_along(lw, source, _dim(lw, dim, rank), AffineMap.identity(rank), index)]


_SUM, _MEAN, _MAX = 0, 1, 2


@lowers("indexing", "aten._embedding_bag.default")
def embedding_bag(lw: Lowering) -> list[SSAValue | None]:
    """The output of a sum, mean or max bag: bag b holds indices[offsets[b]:offsets[b + 1]]
    (the last one runs to the end), padding_idx skipped; a reduction over the index
    positions, those of other bags adding nothing. A mean divides the sum, rounded to
    the weight's dtype, by the bag's count (1 for an empty bag); an empty bag's max
    is 0, as torch."""
    (weight, indices, offsets, _scale_grad, mode, _sparse, per_sample_weights,
     include_last_offset, padding_idx) = lw.op.arguments()
    if mode not in (_SUM, _MEAN, _MAX):
        raise lw.unsupported(f"expected mode sum (0), mean (1) or max (2), found {mode}")
    if any(result.uses for result in lw.op.results[1:]):
        raise lw.unsupported("only the output of _embedding_bag is lowered (offset2bag, bag_size and "
                             "max_indices are used here)")
    if len(indices.type.shape) != 1:
        raise lw.unsupported("expected 1-d indices and offsets")
    result = lw.result_type()
    element = tensor_type(result).element_type
    accumulator = element_type(opmath_dtype(result.dtype))
    bags = lw.index(result.shape[0])
    positions = lw.index(indices.type.shape[0])
    weight_value, offsets_value = lw.value(weight), lw.value(offsets)

    def in_bag(b: Body, bag: SSAValue, position: SSAValue, index: SSAValue) -> SSAValue:
        start = b.as_index(b.insert(tensor.ExtractOp(offsets_value, [bag], offsets_value.type.element_type)))
        following = b.insert(arith.AddiOp(bag, b.index_constant(1)))
        last = b.insert(arith.CmpiOp(following, bags, "sge"))
        clamped = b.insert(arith.MinSIOp(following, b.insert(arith.SubiOp(bags, b.index_constant(1)))))
        next_start = b.as_index(b.insert(tensor.ExtractOp(offsets_value, [clamped],
                                                          offsets_value.type.element_type)))
        end = b.insert(arith.SelectOp(last, positions, next_start))
        inside = b.insert(arith.AndIOp(b.insert(arith.CmpiOp(start, position, "sle")),
                                       b.insert(arith.CmpiOp(position, end, "slt"))))
        if padding_idx is None or padding_idx < 0:
            return inside
        kept = b.insert(arith.CmpiOp(index, b.constant(padding_idx, index.type), "ne"))
        return b.insert(arith.AndIOp(inside, kept))

    def add_row(b: Body) -> list[SSAValue]:
        index, *weights, running = b.args
        bag, column, position = b.index(0), b.index(1), b.index(2)
        row = b.insert(tensor.ExtractOp(weight_value, [b.as_index(index), column], element))
        value = b.convert(row, accumulator)
        if weights:
            value = b.insert(arith.MulfOp(value, b.convert(weights[0], accumulator)))
        combined = b.insert((arith.MaximumfOp if mode == _MAX else arith.AddfOp)(running, value))
        return [b.insert(arith.SelectOp(in_bag(b, bag, position, index), combined, running))]

    if not is_float(element):
        raise lw.unsupported(f"expected a floating-point weight, found {element}")
    inputs = [lw.value(indices)] + ([lw.value(per_sample_weights)] if per_sample_weights is not None else [])
    total = lw.filled(result.shape, accumulator, float("-inf") if mode == _MAX else 0)
    total = lw.generic([(v, dims_map(3, [2])) for v in inputs], [(total, dims_map(3, [0, 1]))],
                       [PARALLEL, PARALLEL, REDUCTION], add_row)[0]
    if mode == _SUM:
        return [lw.pointwise([total], result, lambda b: b.args[0]), None, None, None]

    def count_row(b: Body) -> list[SSAValue]:
        index, running = b.args
        hit = in_bag(b, b.index(0), b.index(1), index)
        return [b.insert(arith.SelectOp(hit, b.insert(arith.AddiOp(running, b.constant(1, running.type))), running))]

    counts = lw.filled(result.shape[:1], IntegerType(64), 0)
    counts = lw.generic([(lw.value(indices), dims_map(2, [1]))], [(counts, dims_map(2, [0]))],
                        [PARALLEL, REDUCTION], count_row)[0]

    def finish(b: Body) -> list[SSAValue]:
        total_element, count, _out = b.args
        if mode == _MAX:
            some = b.insert(arith.CmpiOp(count, b.constant(0, count.type), "sgt"))
            return [b.convert(b.insert(arith.SelectOp(some, total_element, b.constant(0.0, accumulator))), element)]
        rounded = b.convert(b.convert(total_element, element), accumulator)
        divisor = b.insert(arith.MaxSIOp(count, b.constant(1, count.type)))
        return [b.convert(b.insert(arith.DivfOp(rounded, b.convert(divisor, accumulator))), element)]

    output = lw.generic([total, (counts, dims_map(2, [0]))], [lw.empty(result)], [PARALLEL] * 2, finish)[0]
    return [output, None, None, None]


# ---------------------------------------------------------------------------
# Advanced indexing: x[i0, :, i2] with index tensors (some None)
# ---------------------------------------------------------------------------


class Advanced:
    """Where the dims of ``x[indices]`` come from, as torch (numpy) lays them out:
    the index tensors broadcast to one block, in place of the indexed dims when
    these are adjacent, else in front; the other dims of x keep their order."""

    def __init__(self, lw: Lowering, source: SSAValue, indices: Sequence[SSAValue | None]) -> None:
        self.rank = len(source.type.shape)
        self.indices = list(indices) + [None] * (self.rank - len(indices))
        self.indexed = [axis for axis, index in enumerate(self.indices) if index is not None]
        if not self.indexed:
            raise lw.unsupported("expected at least one index tensor")
        for index in self.indices:
            if index is not None and _is_mask(index):
                raise lw.unsupported("a boolean mask index has a data-dependent size (nonzero)")
        adjacent = self.indexed == list(range(self.indexed[0], self.indexed[-1] + 1))
        self.block_start = self.indexed[0] if adjacent else 0
        shapes = [list(self.indices[axis].type.shape) for axis in self.indexed]
        self.block_rank = max(len(shape) for shape in shapes)
        self.block = [_broadcast_size([s[len(s) - self.block_rank + j] for s in shapes
                                       if len(s) - self.block_rank + j >= 0]) for j in range(self.block_rank)]
        kept = [axis for axis in range(self.rank) if axis not in self.indexed]
        self.kept_position = {}  # a kept dim of x -> its dim in the result
        position = 0
        for axis in kept:
            if position == self.block_start:
                position += self.block_rank
            self.kept_position[axis] = position
            position += 1
        self.sizes = list(source.type.shape)
        self.shape = [None] * (len(kept) + self.block_rank)
        for axis, at in self.kept_position.items():
            self.shape[at] = self.sizes[axis]
        self.shape[self.block_start:self.block_start + self.block_rank] = self.block
        self.size_value = {axis: lw.index(self.sizes[axis]) for axis in self.indexed}

    def index_coords(self, index: SSAValue) -> list[int | None]:
        """The result dims an index tensor's dims follow (None: a broadcast dim, read at 0)."""
        shape = index.type.shape
        offset = self.block_start + self.block_rank - len(shape)
        return [None if size == 1 and self.shape[offset + j] != 1 else offset + j
                for j, size in enumerate(shape)]

    def source_coords(self, b: Body, position: Callable[[int], SSAValue], elements: Sequence[SSAValue]
                      ) -> list[SSAValue]:
        """x's coordinates for a result position (``position(dim)``), given the
        index tensors' elements there; a negative index counts from the end."""
        coords, values = [], iter(elements)
        for axis in range(self.rank):
            if axis in self.kept_position:
                coords.append(position(self.kept_position[axis]))
            else:
                coords.append(_wrapped(b, b.as_index(next(values)), self.size_value[axis]))
        return coords


def _broadcast_size(sizes: Sequence[Any]) -> Any:
    for size in sizes:
        if size != 1:
            return size
    return 1


def _wrapped(b: Body, index: SSAValue, size: SSAValue) -> SSAValue:
    negative = b.insert(arith.CmpiOp(index, b.index_constant(0), "slt"))
    return b.insert(arith.SelectOp(negative, b.insert(arith.AddiOp(index, size)), index))


def _index_map(rank: int, coords: Sequence[int | None]) -> AffineMap:
    exprs = tuple(AffineExpr.constant(0) if c is None else AffineExpr.dimension(c) for c in coords)
    return AffineMap(rank, 0, exprs)


@lowers("indexing", "aten.index.Tensor")
def index_tensor(lw: Lowering) -> list[SSAValue]:
    source, indices = lw.op.arguments()
    layout = Advanced(lw, source, indices)
    result = lw.result_type()
    rank = len(result.shape)
    tensors = [layout.indices[axis] for axis in layout.indexed]
    source_value = lw.value(source)
    element = tensor_type(result).element_type

    def body(b: Body) -> list[SSAValue]:
        coords = layout.source_coords(b, lambda dim: b.index(dim), b.args[:len(tensors)])
        return [b.insert(tensor.ExtractOp(source_value, coords, element))]

    inputs = [(lw.value(t), _index_map(rank, layout.index_coords(t))) for t in tensors]
    return lw.generic(inputs, [lw.empty(result)], [PARALLEL] * rank, body)


# Scatters: which write reaches each element, as a reduction over the writes
# ---------------------------------------------------------------------------
#
# Each element of the result looks at every write that may reach it (a reduction
# dim per dim of the writes): a plain write keeps the last one in torch's loop
# order (the largest flat position of the writes, a max: order-free), then a
# second generic reads its value; an accumulating write adds every hit. All
# linalg, so IREE makes dispatches of it (an scf.for of tensor.insert runs on the
# host, and IREE 3.13's runtime fails on it: "OUT_OF_RANGE ... queue.alloca").
# The work is |result| x |writes per element|.


def _and(b: Body, x: SSAValue | None, y: SSAValue) -> SSAValue:
    return y if x is None else b.insert(arith.AndIOp(x, y))


def _flat(b: Body, coords: Sequence[SSAValue], sizes: Sequence[SSAValue]) -> SSAValue:
    flat = coords[0]
    for coord, size in zip(coords[1:], sizes[1:], strict=True):
        flat = b.insert(arith.AddiOp(b.insert(arith.MuliOp(flat, size)), coord))
    return flat


def _unflat(b: Body, flat: SSAValue, sizes: Sequence[SSAValue]) -> list[SSAValue]:
    coords = []
    for size in reversed(sizes[1:]):
        coords.append(b.insert(arith.RemSIOp(flat, size)))
        flat = b.insert(arith.DivSIOp(flat, size))
    return [flat, *reversed(coords)]


def _last_write(lw: Lowering, rank: int, writes: Sequence[Any], inputs: Sequence[SSAValue],
                input_maps: Sequence[AffineMap], hit: Callable[[Body], SSAValue]) -> SSAValue:
    """winner[p] = the largest flat write position (over ``writes``, reduction dims
    after the result's ``rank`` dims) whose ``hit`` is true at p, else -1."""
    result = lw.result_type()
    winner = lw.filled(result.shape, IntegerType(64), -1)
    loops = rank + len(writes)
    write_sizes = [lw.index(size) for size in writes]

    def body(b: Body) -> list[SSAValue]:
        position = _flat(b, [b.index(rank + k) for k in range(len(writes))], write_sizes)
        position = b.insert(arith.IndexCastOp(position, IntegerType(64)))
        running = b.args[-1]
        later = b.insert(arith.MaxSIOp(running, position))
        return [b.insert(arith.SelectOp(hit(b), later, running))]

    window = lw.empty_of(writes, IntegerType(1))
    return lw.generic([(window, dims_map(loops, range(rank, loops))), *zip(inputs, input_maps, strict=True)],
                      [(winner, dims_map(loops, range(rank)))], [PARALLEL] * rank + [REDUCTION] * len(writes),
                      body)[0]


def _written(lw: Lowering, source: SSAValue, winner: SSAValue,
             value_at: Callable[[Body, SSAValue], SSAValue]) -> SSAValue:
    """result[p] = value_at(winner[p]) where a write reached p, else source[p]."""
    result = lw.result_type()
    rank = len(result.shape)
    element = tensor_type(result).element_type

    def body(b: Body) -> list[SSAValue]:
        won, kept, _out = b.args
        reached = b.insert(arith.CmpiOp(won, b.constant(0, won.type), "sge"))
        clamped = b.insert(arith.MaxSIOp(won, b.constant(0, won.type)))
        return [b.insert(arith.SelectOp(reached, b.convert(value_at(b, b.as_index(clamped)), element), kept))]

    return lw.generic([winner, lw.value(source)], [lw.empty(result)], [PARALLEL] * rank, body)[0]


Combine = Callable[[Body, SSAValue, SSAValue], SSAValue]


def _accumulated(lw: Lowering, init: SSAValue, rank: int, writes: Sequence[Any], inputs: Sequence[SSAValue],
                 input_maps: Sequence[AffineMap], hit: Callable[[Body], SSAValue],
                 value: Callable[[Body], SSAValue], combine: Combine) -> SSAValue:
    """result[p] = init[p] combined with each written value that hits p, in write order."""
    loops = rank + len(writes)

    def body(b: Body) -> list[SSAValue]:
        running = b.args[-1]
        combined = combine(b, running, b.convert(value(b), running.type))
        return [b.insert(arith.SelectOp(hit(b), combined, running))]

    window = lw.empty_of(writes, IntegerType(1))
    return lw.generic([(window, dims_map(loops, range(rank, loops))), *zip(inputs, input_maps, strict=True)],
                      [(init, dims_map(loops, range(rank)))], [PARALLEL] * rank + [REDUCTION] * len(writes),
                      body)[0]


def _broadcast_read(b: Body, source: SSAValue, source_shape: Sequence[Any], target_shape: Sequence[Any],
                    coords: Sequence[SSAValue]) -> SSAValue:
    """``source`` broadcast (right-aligned) to ``target_shape``, read at ``coords``."""
    offset = len(target_shape) - len(source_shape)
    at = [b.index_constant(0) if size == 1 and target_shape[offset + j] != 1 else coords[offset + j]
          for j, size in enumerate(source_shape)]
    return b.insert(tensor.ExtractOp(source, at, source.type.element_type))


@lowers("indexing", "aten.index_put.default")
def index_put(lw: Lowering) -> list[SSAValue]:
    """x[indices] = values (or += with accumulate): the writes are the index block."""
    source, indices, values, accumulate = lw.op.arguments()
    if any(index is not None and _is_mask(index) for index in indices):
        return [_masked_put(lw, source, indices, values, accumulate)]
    layout = Advanced(lw, source, indices)
    rank, block = layout.rank, layout.block
    loops = rank + len(block)
    tensors = [layout.indices[axis] for axis in layout.indexed]
    maps = [_index_map(loops, [None if c is None else rank + c - layout.block_start
                               for c in layout.index_coords(t)]) for t in tensors]
    values_value = lw.value(values)

    def hit(b: Body) -> SSAValue:
        reached = None
        for axis, element in zip(layout.indexed, b.args[1:1 + len(tensors)], strict=True):
            target = _wrapped(b, b.as_index(element), layout.size_value[axis])
            reached = _and(b, reached, b.insert(arith.CmpiOp(target, b.index(axis), "eq")))
        return reached

    def value_at(b: Body, block_coords: Sequence[SSAValue]) -> SSAValue:
        coords: list[Any] = [None] * len(layout.shape)
        for axis, at in layout.kept_position.items():
            coords[at] = b.index(axis)
        coords[layout.block_start:layout.block_start + len(block)] = block_coords
        return _broadcast_read(b, values_value, values.type.shape, layout.shape, coords)

    inputs = [lw.value(t) for t in tensors]
    if accumulate:
        return [_accumulated(lw, lw.value(source), rank, block, inputs, maps, hit,
                             lambda b: value_at(b, [b.index(rank + k) for k in range(len(block))]), Body.add)]
    winner = _last_write(lw, rank, block, inputs, maps, hit)
    sizes = [lw.index(size) for size in block]
    return [_written(lw, source, winner, lambda b, won: value_at(b, _unflat(b, won, sizes)))]


def _is_mask(index: SSAValue) -> bool:
    return index.type.dtype in (DType.bool, DType.uint8)


def _masked_put(lw: Lowering, source: SSAValue, indices: Sequence[SSAValue | None], values: SSAValue,
                accumulate: bool) -> SSAValue:
    """x[mask] = v with one value (``y[y > t] = t``): where(mask, v, x), or x + v
    where mask; the mask covers the dims from its position. More values than one
    are written in the mask's order: data-dependent, refused."""
    tensors = [(axis, index) for axis, index in enumerate(indices) if index is not None]
    if len(tensors) != 1 or not all(size == 1 for size in values.type.shape):
        raise lw.unsupported("a boolean mask index is lowered only alone and with one value "
                             "(more values go where the mask's true elements are: data-dependent)")
    (start, mask), = tensors
    result = lw.result_type()
    rank = len(result.shape)
    element = tensor_type(result).element_type
    value = lw.value(values)
    mask_map = dims_map(rank, range(start, start + len(mask.type.shape)))
    value_map = AffineMap(rank, 0, tuple(AffineExpr.constant(0) for _ in values.type.shape))

    def body(b: Body) -> list[SSAValue]:
        kept, chosen, new, _out = b.args
        new = b.convert(new, element)
        if accumulate:
            new = b.add(kept, new)
        return [b.insert(arith.SelectOp(b.convert(chosen, IntegerType(1)), new, kept))]

    return lw.generic([lw.value(source), (lw.value(mask), mask_map), (value, value_map)], [lw.empty(result)],
                      [PARALLEL] * rank, body)[0]


def _scatter(lw: Lowering, reduce: str | None, include_self: bool = True) -> list[SSAValue]:
    """The writes to p are index[q] for q = p with q[dim] = j, j over index.shape[dim]
    (only where p lies inside index's shape in the other dims); ``reduce`` None: the
    last write wins."""
    source, dim, index, src = lw.op.arguments()[:4]
    rank = len(source.type.shape)
    if rank == 0 or len(index.type.shape) != rank:
        raise lw.unsupported("expected a source of rank >= 1 and an index of the same rank")
    dim = _dim(lw, dim, rank)
    index_value = lw.value(index)
    index_sizes = [lw.index(size) for size in index.type.shape]
    src_value = lw.value(src) if isinstance(src, SSAValue) else None
    element = tensor_type(lw.result_type()).element_type

    def write_coords(b: Body, j: SSAValue) -> tuple[list[SSAValue], SSAValue | None]:
        """q (clamped into index's shape) and whether p lies inside it."""
        coords, inside = [], None
        for axis in range(rank):
            if axis == dim:
                coords.append(j)
                continue
            p = b.index(axis)
            last = b.insert(arith.SubiOp(index_sizes[axis], b.index_constant(1)))
            inside = _and(b, inside, b.insert(arith.CmpiOp(p, index_sizes[axis], "slt")))
            coords.append(b.insert(arith.MinSIOp(p, last)))
        return coords, inside

    def hit(b: Body) -> SSAValue:
        coords, inside = write_coords(b, b.index(rank))
        target = b.as_index(b.insert(tensor.ExtractOp(index_value, coords, index_value.type.element_type)))
        return _and(b, inside, b.insert(arith.CmpiOp(target, b.index(dim), "eq")))

    def value_at(b: Body, j: SSAValue) -> SSAValue:
        if src_value is None:
            return b.constant(src, element)
        coords, _inside = write_coords(b, j)
        return b.insert(tensor.ExtractOp(src_value, coords, src_value.type.element_type))

    writes = [index.type.shape[dim]]
    if reduce is None:
        winner = _last_write(lw, rank, writes, [], [], hit)
        return [_written(lw, source, winner, lambda b, won: value_at(b, won))]
    return [_reduced(lw, source, rank, writes, hit, lambda b: value_at(b, b.index(rank)), reduce,
                     include_self)]


_REDUCE_OPS: dict[str, tuple[type, type]] = {  # (float op, integer op)
    "sum": (arith.AddfOp, arith.AddiOp), "mean": (arith.AddfOp, arith.AddiOp),
    "prod": (arith.MulfOp, arith.MuliOp), "amax": (arith.MaximumfOp, arith.MaxSIOp),
    "amin": (arith.MinimumfOp, arith.MinSIOp),
}


def _reduce_identity(reduce: str, element: Any) -> int | float:
    """What a position starts from when self is not included (torch's identities)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    return extreme_identity(element, maximum=reduce == "amax")


def _reduced(lw: Lowering, source: SSAValue, rank: int, writes: Sequence[Any], hit: Callable[[Body], SSAValue],
             value: Callable[[Body], SSAValue], reduce: str, include_self: bool) -> SSAValue:
    """torch's scatter_reduce: each position combines self (when included) and every
    write that hits it, in write order, in torch's accumulation type (f32 for f16);
    a mean divides by the count of contributions; a position no write hits keeps self."""
    if reduce not in _REDUCE_OPS:
        raise lw.unsupported(f"expected a reduce of {', '.join(_REDUCE_OPS)}, found {reduce!r}")
    result = lw.result_type()
    lw.refuse_unsigned(result.dtype)
    element = tensor_type(result).element_type
    accumulator = element_type(opmath_dtype(result.dtype))
    float_op, int_op = _REDUCE_OPS[reduce]
    op = float_op if is_float(accumulator) else int_op

    def combine(b: Body, running: SSAValue, new: SSAValue) -> SSAValue:
        return b.insert(op(running, new))

    if include_self:
        init = lw.converted(lw.value(source), accumulator)
    else:
        init = lw.filled(result.shape, accumulator, _reduce_identity(reduce, accumulator))
    total = _accumulated(lw, init, rank, writes, [], [], hit, value, combine)
    if include_self and reduce != "mean":
        return lw.converted(total, element)
    counts = lw.filled(result.shape, IntegerType(64), 0)
    counts = _accumulated(lw, counts, rank, writes, [], [], hit, lambda b: b.constant(1, IntegerType(64)),
                          Body.add)

    def finish(b: Body) -> list[SSAValue]:
        reduced, count, kept, _out = b.args
        if reduce == "mean":
            divisor = count if not include_self else b.insert(arith.AddiOp(count, b.constant(1, count.type)))
            divisor = b.insert(arith.MaxSIOp(divisor, b.constant(1, count.type)))
            if is_float(accumulator):
                reduced = b.insert(arith.DivfOp(reduced, b.convert(divisor, accumulator)))
            else:  # torch's floor division
                reduced = b.insert(arith.FloorDivSIOp(reduced, b.convert(divisor, accumulator)))
        written = b.insert(arith.CmpiOp(count, b.constant(0, count.type), "sgt"))
        return [b.insert(arith.SelectOp(written, b.convert(reduced, element), kept))]

    return lw.generic([total, counts, lw.value(source)], [lw.empty(result)], [PARALLEL] * rank, finish)[0]


@lowers("indexing", "aten.scatter.src", "aten.scatter.value")
def scatter(lw: Lowering) -> list[SSAValue]:
    return _scatter(lw, reduce=None)


@lowers("indexing", "aten.scatter_add.default")
def scatter_add(lw: Lowering) -> list[SSAValue]:
    return _scatter(lw, reduce="sum")


@lowers("indexing", "aten.scatter_reduce.two")
def scatter_reduce(lw: Lowering) -> list[SSAValue]:
    reduce, include_self = lw.op.arguments()[4:6]
    return _scatter(lw, reduce=reduce, include_self=include_self)
