"""Linalg lowerings: convolution and pooling.

What IREE compiles fast: ``linalg.conv_2d_nchw_fchw`` (``conv_2d_ngchw_gfchw``
for groups > 1) and ``linalg.pooling_nchw_max`` on an input padded by
``tensor.pad``; a 1-d convolution is the 2-d one over a unit height, a
transposed one the forward one over its input spread with zeros. The rest are
``linalg.generic``s: a window's dims are reduction dims whose bounds come from a
window-shaped ``tensor.empty`` operand (as the named pooling ops take it), and a
resampled image reads its input with ``tensor.extract`` at indices computed from
``linalg.index``. Pools take 2 or 3 spatial dims (3-d max pooling always by the
generic: linalg has no ncdhw pooling op), batched or not.

The structured-op building blocks are the machinery's (``Lowering.generic``,
``Lowering.filled``, ``shapes.pad``, ...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import Any

from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    Float32Type,
    IndexType,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.ops import Conv2DNchwFchwOp, Conv2DNgchwGfchwOp, PoolingNchwMaxOp
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from texport.dialects.dtypes import DType
from texport.dialects.symbolic import is_static
from texport.interpreter.dtypes import to_numpy
from texport.interpreter.kernels.conv_pool import adaptive_bounds, area_pixel_scale

from .builder import PARALLEL, REDUCTION, Body, Lowering, dims_map
from .registry import lowers
from .shapes import collapse, expand, insert_slice, pad
from .types import element_type, extreme_identity, is_float, opmath_dtype, tensor_type

# ---------------------------------------------------------------------------
# Helpers of this family
# ---------------------------------------------------------------------------


def dense_i64(values: Sequence[int]) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), list(values))


def sum_element(dtype: DType) -> Attribute:
    """The element a pool sums in: torch's opmath type for floats, int64 for integers."""
    return element_type(opmath_dtype(dtype)) if is_float(element_type(dtype)) else IntegerType(64)


# ---------------------------------------------------------------------------
# Window geometry
# ---------------------------------------------------------------------------


def _ints(lw: Lowering, value: Any, n: int, name: str, default: Sequence[int] | None = None) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * n
    values = list(value) if value is not None else []
    if not values and default is not None:
        return tuple(default)
    if len(values) == 1:
        values = values * n
    if len(values) != n or not all(isinstance(v, int) for v in values):
        raise lw.unsupported(f"expected {n} integer {name}, found {value!r}")
    return tuple(values)


def _pool_sizes(lw: Lowering, x: SSAValue, n: int, ceil_mode: bool) -> list[Any]:
    """The ``n`` spatial sizes of a pool's input (texport dims)."""
    sizes = list(x.type.shape[-n:])
    if ceil_mode and not all(is_static(s) for s in sizes):
        raise lw.unsupported("ceil_mode needs static spatial sizes (its last window's reach is read off them)")
    return sizes


def _batched(lw: Lowering, x: SSAValue, result_shape: Sequence[Any], n: int) -> tuple[SSAValue, list[Any], bool]:
    """A pool's input as (N, C, *spatial) and its output's sizes so: an unbatched
    (C, *spatial) input gets a unit batch (``_unbatched`` drops it from a result)."""
    value = lw.value(x)
    shape = list(x.type.shape)
    if len(shape) == n + 1:
        return expand(lw, value, _unit_batch(n), [1, *shape]), [1, *result_shape], True
    if len(shape) != n + 2:
        raise lw.unsupported(f"expected an (N, C, {n} spatial) or (C, {n} spatial) input, found rank {len(shape)}")
    return value, list(result_shape), False


def _unit_batch(n: int) -> list[list[int]]:
    return [[0, 1], *([axis] for axis in range(2, n + 2))]


def _unbatched(lw: Lowering, value: SSAValue, unbatched: bool) -> SSAValue:
    return collapse(lw, value, _unit_batch(value.type.get_num_dims() - 2)) if unbatched else value


def _high_padding(size: Any, out: Any, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """Padding after the input so that every window read stays inside (ceil_mode's
    last window may run past the right padding); never less than ``padding``."""
    if not (is_static(size) and is_static(out)):
        return padding
    reach = (int(out) - 1) * stride + dilation * (kernel - 1) + 1
    return max(padding, reach - int(size) - padding)


def _window_map(rank_before: int, stride: Sequence[int], dilation: Sequence[int]) -> AffineMap:
    """(lead..., o0, o1, k0, k1) -> (lead..., o0*s0 + k0*d0, o1*s1 + k1*d1)."""
    n = len(stride)
    loops = rank_before + 2 * n
    exprs = [AffineExpr.dimension(d) for d in range(rank_before)]
    for axis in range(n):
        out = AffineExpr.dimension(rank_before + axis) * stride[axis]
        window = AffineExpr.dimension(rank_before + n + axis) * dilation[axis]
        exprs.append(out + window)
    return AffineMap(loops, 0, tuple(exprs))


def _window_input(lw: Lowering, kernel: Sequence[int], element: Attribute) -> SSAValue:
    """A kernel-shaped tensor giving the window dims their bounds (its values are not read)."""
    return lw.empty_of(kernel, element)


# ---------------------------------------------------------------------------
# Convolution
# ---------------------------------------------------------------------------


@lowers("conv-pool", "aten.convolution.default")
def convolution(lw: Lowering) -> list[SSAValue]:
    x, weight, bias, stride, padding, dilation, transposed, output_padding, groups = lw.op.arguments()
    n = len(x.type.shape) - 2
    if n not in (1, 2):
        raise lw.unsupported(f"expected a 1-d or 2-d convolution, found {n}-d")
    if not isinstance(groups, int):
        raise lw.unsupported(f"expected an integer groups, found {groups!r}")
    stride, padding, dilation, output_padding = (
        _ints(lw, v, n, name) for v, name in ((stride, "strides"), (padding, "paddings"),
                                              (dilation, "dilations"), (output_padding, "output paddings")))
    result = lw.result_type()
    element = element_type(result.dtype)
    compute = element_type(opmath_dtype(result.dtype))
    input_value = lw.converted(lw.value(x), compute)
    weight_value = lw.converted(lw.value(weight), compute)
    out_sizes = list(result.shape)
    if n == 1:  # (N, C, L) as (N, C, 1, L)
        input_value = expand(lw, input_value, [[0], [1], [2, 3]], [*x.type.shape[:2], 1, x.type.shape[2]])
        weight_value = expand(lw, weight_value, [[0], [1], [2, 3]],
                              [*weight.type.shape[:2], 1, weight.type.shape[2]])
        stride, padding, dilation = (1, *stride), (0, *padding), (1, *dilation)
        output_padding = (0, *output_padding)
        out_sizes = [*out_sizes[:2], 1, out_sizes[2]]
    if transposed:
        input_value = _spread(lw, input_value, weight_value, stride, padding, dilation, output_padding)
        weight_value = _flipped_weight(lw, weight_value, groups)
        stride, padding = (1, 1), (0, 0)
    input_value = pad(lw, input_value, [0, 0, *padding], [0, 0, *padding], 0)
    init = _conv_init(lw, bias, out_sizes, compute)
    out = _conv2d(lw, input_value, weight_value, init, stride, dilation, groups, out_sizes)
    if n == 1:
        out = collapse(lw, out, [[0], [1], [2, 3]])
    return [lw.converted(out, element)]


def _spread(lw: Lowering, x: SSAValue, weight: SSAValue, stride: Sequence[int], padding: Sequence[int],
            dilation: Sequence[int], output_padding: Sequence[int]) -> SSAValue:
    """A transposed convolution is the forward one, stride 1, over its input with
    stride - 1 zeros between elements and dilation * (k - 1) - padding zeros around
    (output_padding more after): the input inserted, strided, into zeros."""
    shape = x.type.get_shape()
    kernel = weight.type.get_shape()[2:]
    around = [d * (k - 1) - p for d, k, p in zip(dilation, kernel, padding, strict=True)]
    if any(a < 0 for a in around) or DYNAMIC_INDEX in shape[1:]:
        raise lw.unsupported("a transposed convolution needs static channels and spatial sizes, and "
                             "padding <= dilation * (kernel - 1)")
    spread = [(size - 1) * s + 1 + 2 * a + extra
              for size, s, a, extra in zip(shape[2:], stride, around, output_padding, strict=True)]
    batch = lw.op.operands[0].type.shape[0]
    zeros = lw.filled([batch, shape[1], *spread], x.type.element_type, 0)
    sizes = [lw.index(batch) if shape[0] == DYNAMIC_INDEX else shape[0], *shape[1:]]
    return lw.insert(insert_slice(x, zeros, [0, 0, *around], sizes, [1, 1, *stride])).results[0]


def _flipped_weight(lw: Lowering, weight: SSAValue, groups: int) -> SSAValue:
    """A transposed convolution's weight (G*C, F, kh, kw) as the forward one's
    (G*F, C, kh, kw): channels swapped within each group, the kernel flipped."""
    in_channels, per_group_out, kh, kw = weight.type.get_shape()
    per_group_in = in_channels // groups
    shape = [groups * per_group_out, per_group_in, kh, kw]

    def body(b: Body) -> list[SSAValue]:
        out_channel, in_channel = b.index(0), b.index(1)
        group = b.insert(arith.DivUIOp(out_channel, b.index_constant(per_group_out)))
        filter_index = b.insert(arith.RemUIOp(out_channel, b.index_constant(per_group_out)))
        source_channel = b.insert(arith.AddiOp(
            b.insert(arith.MuliOp(group, b.index_constant(per_group_in))), in_channel))
        row = b.insert(arith.SubiOp(b.index_constant(kh - 1), b.index(2)))
        column = b.insert(arith.SubiOp(b.index_constant(kw - 1), b.index(3)))
        return [b.insert(tensor.ExtractOp(weight, [source_channel, filter_index, row, column],
                                          weight.type.element_type))]

    return lw.generic([], [lw.empty_of(shape, weight.type.element_type)], [PARALLEL] * 4, body)[0]


def _conv_init(lw: Lowering, bias: SSAValue | None, sizes: Sequence[Any], element: Attribute) -> SSAValue:
    """The convolution's accumulator: zeros, or the bias along dim 1."""
    if bias is None:
        return lw.filled(sizes, element, 0)
    bias_value = lw.converted(lw.value(bias), element)
    return lw.generic([(bias_value, dims_map(4, [1]))], [lw.empty_of(sizes, element)], [PARALLEL] * 4,
                      lambda b: [b.args[0]])[0]


def _conv2d(lw: Lowering, x: SSAValue, weight: SSAValue, init: SSAValue, stride: Sequence[int],
            dilation: Sequence[int], groups: int, out_sizes: Sequence[Any]) -> SSAValue:
    attrs = {"strides": dense_i64(stride), "dilations": dense_i64(dilation)}
    if groups == 1:
        return lw.insert(Conv2DNchwFchwOp([x, weight], [init], [init.type], **attrs)).results[0]
    # (N, G*C, H, W) as (N, G, C, H, W); (G*F, C, kh, kw) as (G, F, C, kh, kw)
    batch, channels, height, width = lw.sizes_of(x)
    filters, per_group, kh, kw = weight.type.get_shape()
    if DYNAMIC_INDEX in (channels, filters):
        raise lw.unsupported("a grouped convolution needs static channel counts")
    grouped_x = expand(lw, x, [[0], [1, 2], [3], [4]], [batch, groups, channels // groups, height, width])
    grouped_w = expand(lw, weight, [[0, 1], [2], [3], [4]], [groups, filters // groups, per_group, kh, kw])
    grouped_init = expand(lw, init, [[0], [1, 2], [3], [4]],
                          [out_sizes[0], groups, filters // groups, *out_sizes[2:]])
    out = lw.insert(Conv2DNgchwGfchwOp([grouped_x, grouped_w], [grouped_init], [grouped_init.type],
                                       **attrs)).results[0]
    return collapse(lw, out, [[0], [1, 2], [3], [4]])


# ---------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------


def _pool_rank(lw: Lowering) -> int:
    """The spatial rank of a pool, from its name (its input may be unbatched)."""
    return 3 if "pool3d" in lw.op.op_def.key else 2


def _pool_arguments(lw: Lowering, n: int, kernel: Any, stride: Any, padding: Any,
                    dilation: Any = 1) -> tuple[tuple[int, ...], ...]:
    kernel = _ints(lw, kernel, n, "kernel sizes")
    return (kernel, _ints(lw, stride, n, "strides", default=kernel), _ints(lw, padding, n, "paddings"),
            _ints(lw, dilation, n, "dilations"))


@lowers("conv-pool", "aten.max_pool2d_with_indices.default", "aten.max_pool3d_with_indices.default")
def max_pool_with_indices(lw: Lowering) -> list[SSAValue | None]:
    x, kernel, stride, padding, dilation, ceil_mode = lw.op.arguments()
    n = _pool_rank(lw)
    kernel, stride, padding, dilation = _pool_arguments(lw, n, kernel, stride, padding, dilation)
    result = lw.result_type(0)
    element = element_type(result.dtype)
    lw.refuse_unsigned(result.dtype)
    sizes = _pool_sizes(lw, x, n, ceil_mode)
    source, out_shape, unbatched = _batched(lw, x, result.shape, n)
    high = [_high_padding(s, o, k, st, p, d) for s, o, k, st, p, d in
            zip(sizes, out_shape[2:], kernel, stride, padding, dilation, strict=True)]
    padded = pad(lw, source, [0, 0, *padding], [0, 0, *high], extreme_identity(element, maximum=True))
    values = lw.filled(out_shape, element, extreme_identity(element, maximum=True))
    window = _window_input(lw, kernel, element)
    if n == 2 and not lw.op.results[1].uses:
        pool = PoolingNchwMaxOp([padded, window], [values], [values.type],
                                strides=dense_i64(stride), dilations=dense_i64(dilation))
        return [_unbatched(lw, lw.insert(pool).results[0], unbatched), None]
    indices = lw.filled(out_shape, IntegerType(64), -1)
    values, indices = _max_pool_with_indices(lw, padded, window, values, indices, sizes, stride, padding, dilation)
    return [_unbatched(lw, values, unbatched), _unbatched(lw, indices, unbatched) if lw.op.results[1].uses else None]


def _max_pool_with_indices(lw: Lowering, padded: SSAValue, window: SSAValue, values: SSAValue,
                           indices: SSAValue, sizes: Sequence[Any], stride: Sequence[int],
                           padding: Sequence[int], dilation: Sequence[int]) -> list[SSAValue]:
    """One generic with two outputs: the running max and its flat index into the
    input plane (or volume), updated as torch's loop does (``val > max || isnan(val)``;
    a window of lowest values points at its first element inside the input)."""
    n = len(sizes)
    bounds = [lw.index(s) for s in sizes]

    def body(b: Body) -> list[SSAValue]:
        value, _window, running, index = b.args
        flat, inside = None, None
        for axis, bound in enumerate(bounds):
            start = b.insert(arith.MuliOp(b.index(2 + axis), b.index_constant(stride[axis])))
            offset = b.insert(arith.MuliOp(b.index(2 + n + axis), b.index_constant(dilation[axis])))
            coord = b.insert(arith.SubiOp(b.insert(arith.AddiOp(start, offset)),
                                          b.index_constant(padding[axis])))
            above = b.insert(arith.CmpiOp(coord, b.index_constant(0), "sge"))
            below = b.insert(arith.CmpiOp(coord, bound, "slt"))
            both = b.insert(arith.AndIOp(above, below))
            inside = both if inside is None else b.insert(arith.AndIOp(inside, both))
            flat = coord if flat is None else b.insert(arith.AddiOp(b.insert(arith.MuliOp(flat, bound)), coord))
        if is_float(value.type):
            better = b.insert(arith.OrIOp(b.insert(arith.CmpfOp(value, running, "ogt")),
                                          b.insert(arith.CmpfOp(value, value, "uno"))))
        else:
            better = b.insert(arith.CmpiOp(value, running, "sgt"))
        first = b.insert(arith.CmpiOp(index, b.constant(-1, index.type), "eq"))
        take = b.insert(arith.AndIOp(inside, b.insert(arith.OrIOp(better, first))))
        flat = b.insert(arith.IndexCastOp(flat, index.type))
        return [b.insert(arith.SelectOp(take, value, running)), b.insert(arith.SelectOp(take, flat, index))]

    loops = 2 + 2 * n
    out_map = dims_map(loops, range(2 + n))
    return lw.generic([(padded, _window_map(2, stride, dilation)), (window, dims_map(loops, range(2 + n, loops)))],
                      [(values, out_map), (indices, out_map)], [PARALLEL] * (2 + n) + [REDUCTION] * n, body)


@lowers("conv-pool", "aten.avg_pool2d.default", "aten.avg_pool3d.default")
def avg_pool(lw: Lowering) -> list[SSAValue]:
    x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override = lw.op.arguments()
    n = _pool_rank(lw)
    kernel, stride, padding, _dilation = _pool_arguments(lw, n, kernel, stride, padding)
    result = lw.result_type()
    element = element_type(result.dtype)
    lw.refuse_unsigned(result.dtype)
    accumulator = sum_element(result.dtype)
    sizes = _pool_sizes(lw, x, n, ceil_mode)
    source, out_shape, unbatched = _batched(lw, x, result.shape, n)
    high = [_high_padding(s, o, k, st, p, 1) for s, o, k, st, p in
            zip(sizes, out_shape[2:], kernel, stride, padding, strict=True)]
    padded = pad(lw, lw.converted(source, accumulator), [0, 0, *padding], [0, 0, *high], 0)
    total = _window_sum(lw, padded, kernel, stride, out_shape, accumulator)
    if divisor_override or (not any(padding) and not any(high)):
        # every window lies inside the input: one divisor for all
        constant = divisor_override or prod(kernel)
        divisor = lambda b: b.constant(constant, accumulator)  # noqa: E731
    else:
        counts = [_window_count(lw, s, k, st, p, count_include_pad)
                  for s, k, st, p in zip(sizes, kernel, stride, padding, strict=True)]

        def divisor(b: Body) -> SSAValue:
            count = None
            for axis, axis_count in enumerate(counts):
                this = axis_count(b, b.index(2 + axis))
                count = this if count is None else b.insert(arith.MuliOp(count, this))
            return b.convert(count, accumulator)

    def divide(b: Body) -> SSAValue:
        if is_float(accumulator):
            return b.insert(arith.DivfOp(b.args[0], divisor(b)))
        return b.insert(arith.DivSIOp(b.args[0], divisor(b)))  # C++'s truncating division

    return [_unbatched(lw, _per_element(lw, total, out_shape, element, divide), unbatched)]


def _per_element(lw: Lowering, value: SSAValue, out_shape: Sequence[Any], element: Attribute,
                 compute: Callable[[Body], SSAValue]) -> SSAValue:
    """A generic over ``value``'s shape: ``compute`` (reading ``Body.args[0]`` and
    ``linalg.index``) converted to ``element``."""
    return lw.elementwise(out_shape, element, [value], lambda b, _: compute(b))


def _window_sum(lw: Lowering, padded: SSAValue, kernel: Sequence[int], stride: Sequence[int],
                out_sizes: Sequence[Any], accumulator: Attribute) -> SSAValue:
    n = len(kernel)
    loops = 2 + 2 * n
    total = lw.filled(out_sizes, accumulator, 0)
    window = _window_input(lw, kernel, accumulator)
    add = arith.AddfOp if is_float(accumulator) else arith.AddiOp
    return lw.generic([(padded, _window_map(2, stride, (1,) * n)), (window, dims_map(loops, range(2 + n, loops)))],
                      [(total, dims_map(loops, range(2 + n)))], [PARALLEL] * (2 + n) + [REDUCTION] * n,
                      lambda b: [b.insert(add(b.args[2], b.args[0]))])[0]


def _window_count(lw: Lowering, size: Any, kernel: int, stride: int, padding: int,
                  count_include_pad: bool) -> Callable[[Body, SSAValue], SSAValue]:
    """torch's divide_factor along one axis: the window clipped to the padded input
    (or to the input itself when padding is not counted), as an ``index``."""
    bound = lw.index(size)

    def count(b: Body, out_index: SSAValue) -> SSAValue:
        start = b.insert(arith.SubiOp(b.insert(arith.MuliOp(out_index, b.index_constant(stride))),
                                      b.index_constant(padding)))
        padded_end = b.insert(arith.AddiOp(bound, b.index_constant(padding)))
        end = b.insert(arith.MinSIOp(b.insert(arith.AddiOp(start, b.index_constant(kernel))), padded_end))
        if not count_include_pad:
            start = b.insert(arith.MaxSIOp(start, b.index_constant(0)))
            end = b.insert(arith.MinSIOp(end, bound))
        return b.insert(arith.SubiOp(end, start))

    return count


# ---------------------------------------------------------------------------
# Adaptive average pooling
# ---------------------------------------------------------------------------


@lowers("conv-pool", "aten._adaptive_avg_pool2d.default", "aten._adaptive_avg_pool3d.default")
def adaptive_avg_pool(lw: Lowering) -> list[SSAValue]:
    """Each output sums the box [floor(i*in/out), ceil((i+1)*in/out)) of its plane:
    a reduction over the largest box, reading in-box elements by ``tensor.extract``."""
    x, _output_size = lw.op.arguments()
    n = _pool_rank(lw)
    result = lw.result_type()
    element = element_type(result.dtype)
    lw.refuse_unsigned(result.dtype)
    accumulator = sum_element(result.dtype)
    sizes, outs = list(x.type.shape[-n:]), list(result.shape[-n:])
    if not all(is_static(s) for s in (*sizes, *outs)):
        raise lw.unsupported("adaptive pooling needs static spatial sizes")
    sizes, outs = [int(s) for s in sizes], [int(s) for s in outs]
    boxes = [int((end - start).max()) for start, end in (adaptive_bounds(s, o) for s, o in zip(sizes, outs))]
    batched, out_shape, unbatched = _batched(lw, x, result.shape, n)
    source = lw.converted(batched, accumulator)
    total = lw.filled(out_shape, accumulator, 0)
    window = _window_input(lw, boxes, accumulator)
    add = arith.AddfOp if is_float(accumulator) else arith.AddiOp

    def body(b: Body) -> list[SSAValue]:
        _window, running = b.args
        coords, inside = [], None
        for axis, (size, out) in enumerate(zip(sizes, outs, strict=True)):
            start, end = _box(b, b.index(2 + axis), size, out)
            coord = b.insert(arith.AddiOp(start, b.index(2 + n + axis)))
            in_box = b.insert(arith.CmpiOp(coord, end, "ult"))
            inside = in_box if inside is None else b.insert(arith.AndIOp(inside, in_box))
            coords.append(b.insert(arith.MinUIOp(coord, b.index_constant(size - 1))))
        value = b.insert(tensor.ExtractOp(source, [b.index(0), b.index(1), *coords], accumulator))
        zero = b.constant(0, accumulator)
        return [b.insert(add(running, b.insert(arith.SelectOp(inside, value, zero))))]

    loops = 2 + 2 * n
    summed = lw.generic([(window, dims_map(loops, range(2 + n, loops)))], [(total, dims_map(loops, range(2 + n)))],
                        [PARALLEL] * (2 + n) + [REDUCTION] * n, body)[0]

    def divide(b: Body) -> SSAValue:
        count = None
        for axis, (size, out) in enumerate(zip(sizes, outs, strict=True)):
            start, end = _box(b, b.index(2 + axis), size, out)
            this = b.insert(arith.SubiOp(end, start))
            count = this if count is None else b.insert(arith.MuliOp(count, this))
        divide_op = arith.DivfOp if is_float(accumulator) else arith.DivSIOp
        return b.insert(divide_op(b.args[0], b.convert(count, accumulator)))

    return [_unbatched(lw, _per_element(lw, summed, out_shape, element, divide), unbatched)]


def _box(b: Body, out_index: SSAValue, size: int, out: int) -> tuple[SSAValue, SSAValue]:
    scaled = b.insert(arith.MuliOp(out_index, b.index_constant(size)))
    start = b.insert(arith.DivUIOp(scaled, b.index_constant(out)))
    following = b.insert(arith.AddiOp(scaled, b.index_constant(size)))  # (i + 1) * in
    return start, b.insert(arith.CeilDivUIOp(following, b.index_constant(out)))


# ---------------------------------------------------------------------------
# Resampling
# ---------------------------------------------------------------------------


class _ResampleAxis:
    """One spatial axis of a resampling, made before its generic: the input's size and
    last index (``index``), and torch's scale (area_pixel_compute_scale) in ``element``,
    a constant for static sizes, else computed as torch does from the sizes."""

    def __init__(self, lw: Lowering, size: Any, out: Any, align_corners: bool, scale: float | None,
                 element: Attribute) -> None:
        self.static = (int(size), int(out)) if is_static(size) and is_static(out) else None
        self.size, self.out = lw.index(size), lw.index(out)
        self.last = lw.index(size - 1) if is_static(size) else lw.insert(arith.SubiOp(self.size, lw.index(1))).result
        opmath = to_numpy(DType.float64 if element.bitwidth == 64 else DType.float32)
        if self.static is not None:  # torch's scale, as the interpreter's kernel computes it
            self.ratio = lw.constant(float(area_pixel_scale(*self.static, align_corners, scale, opmath)), element)
        elif not align_corners and scale is not None and scale > 0:  # the size does not enter
            self.ratio = lw.constant(float(area_pixel_scale(1, 1, False, scale, opmath)), element)
        elif align_corners:  # (in - 1) / (out - 1), or 0 for one output
            one = lw.index(1)
            span = lw.insert(arith.SubiOp(self.out, one)).result
            ratio = lw.insert(arith.DivfOp(lw.convert(self.last, element), lw.convert(span, element))).result
            several = lw.insert(arith.CmpiOp(self.out, one, "sgt")).result
            self.ratio = lw.insert(arith.SelectOp(several, ratio, lw.constant(0.0, element))).result
        else:
            self.ratio = lw.insert(arith.DivfOp(lw.convert(self.size, element), lw.convert(self.out, element))).result


def _resample_axes(lw: Lowering, x: SSAValue, result: Any, align_corners: bool,
                   scale_factors: Sequence[float] | None, element: Attribute) -> list[_ResampleAxis]:
    scales = [None, None] if scale_factors is None else [float(s) for s in scale_factors]
    return [_ResampleAxis(lw, x.type.shape[2 + axis], result.shape[2 + axis], align_corners, scales[axis], element)
            for axis in range(2)]


@lowers("conv-pool", "aten.upsample_nearest2d.vec")
def upsample_nearest2d(lw: Lowering) -> list[SSAValue]:
    """out[n, c, h, w] = x[n, c, src(h), src(w)] with torch's nearest_idx: the identity
    for equal sizes, dst >> 1 for twice the size, else min(floor(dst * scale), in - 1) in f32
    (for dynamic sizes the three chosen at run time)."""
    x, _output_size, scale_factors = lw.op.arguments()
    result = lw.result_type()
    axes = _resample_axes(lw, x, result, False, scale_factors, Float32Type())
    cases = [None if axis.static else _nearest_cases(lw, axis) for axis in axes]
    source = lw.value(x)
    element = tensor_type(result).element_type

    def nearest(b: Body, axis: _ResampleAxis, dst: SSAValue, case: tuple[SSAValue, SSAValue] | None) -> SSAValue:
        if axis.static is not None:
            size, out = axis.static
            if out == size:
                return dst
            return _halved(b, dst) if out == 2 * size else _scaled(b, axis, dst)
        same, double = case
        return b.insert(arith.SelectOp(same, dst, b.insert(arith.SelectOp(double, _halved(b, dst),
                                                                          _scaled(b, axis, dst)))))

    def body(b: Body) -> list[SSAValue]:
        coords = [b.index(0), b.index(1),
                  *(nearest(b, axis, b.index(2 + j), cases[j]) for j, axis in enumerate(axes))]
        return [b.insert(tensor.ExtractOp(source, coords, element))]

    return lw.generic([], [lw.empty(result)], [PARALLEL] * 4, body)


def _halved(b: Body, dst: SSAValue) -> SSAValue:
    return b.insert(arith.ShRUIOp(dst, b.index_constant(1)))


def _scaled(b: Body, axis: _ResampleAxis, dst: SSAValue) -> SSAValue:
    """min(floor(dst * scale), in - 1), in f32."""
    position = b.insert(arith.MulfOp(b.convert(dst, Float32Type()), axis.ratio))
    floor = b.insert(arith.FPToSIOp(b.insert(math.FloorOp(position)), IntegerType(64)))
    return b.insert(arith.MinSIOp(b.as_index(floor), axis.last))


def _nearest_cases(lw: Lowering, axis: _ResampleAxis) -> tuple[SSAValue, SSAValue]:
    """Whether the output is as large as the input, or twice as large (run time)."""
    same = lw.insert(arith.CmpiOp(axis.out, axis.size, "eq")).result
    twice = lw.insert(arith.AddiOp(axis.size, axis.size)).result
    return same, lw.insert(arith.CmpiOp(axis.out, twice, "eq")).result


@lowers("conv-pool", "aten.upsample_bilinear2d.vec")
def upsample_bilinear2d(lw: Lowering) -> list[SSAValue]:
    """Separable linear interpolation as torch's kernel: along W, then H, with
    torch's source index, lambda (stored in the input's dtype) and upper tap."""
    x, _output_size, align_corners, scale_factors = lw.op.arguments()
    result = lw.result_type()
    element = tensor_type(result).element_type
    if not is_float(element):
        raise lw.unsupported(f"expected a floating-point input, found {element}")
    source = lw.value(x)
    f32 = element_type(opmath_dtype(result.dtype))
    axes = _resample_axes(lw, x, result, align_corners, scale_factors, f32)

    def taps(b: Body, axis: _ResampleAxis, dst: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
        """(lower index, upper index, 1 - lambda, lambda) of an output's position along ``axis``."""
        dst = b.convert(dst, f32)
        if align_corners:
            src = b.insert(arith.MulfOp(axis.ratio, dst))
        else:
            half = b.constant(0.5, f32)
            src = b.insert(arith.SubfOp(b.insert(arith.MulfOp(axis.ratio, b.insert(arith.AddfOp(dst, half)))), half))
            src = b.insert(arith.MaximumfOp(src, b.constant(0.0, f32)))
        floor = b.insert(arith.FPToSIOp(b.insert(math.FloorOp(src)), IntegerType(64)))
        lower = b.insert(arith.MinSIOp(b.as_index(floor), axis.last))
        lam = b.insert(arith.SubfOp(src, b.convert(lower, f32)))
        lam = b.insert(arith.MinimumfOp(b.insert(arith.MaximumfOp(lam, b.constant(0.0, f32))), b.constant(1.0, f32)))
        if element != f32:  # torch stores lambda in the input's dtype
            lam = b.convert(b.convert(lam, element), f32)
        step = b.insert(arith.CmpiOp(lower, axis.last, "slt"))
        upper = b.insert(arith.AddiOp(lower, b.insert(arith.IndexCastOp(
            b.insert(arith.ExtUIOp(step, IntegerType(64))), IndexType()))))
        return lower, upper, b.insert(arith.SubfOp(b.constant(1.0, f32), lam)), lam

    def body(b: Body) -> list[SSAValue]:
        n, c = b.index(0), b.index(1)
        h0, h1, h_low, h_high = taps(b, axes[0], b.index(2))
        w0, w1, w_low, w_high = taps(b, axes[1], b.index(3))

        def along_width(h: SSAValue) -> SSAValue:
            left = b.convert(b.insert(tensor.ExtractOp(source, [n, c, h, w0], element)), f32)
            right = b.convert(b.insert(tensor.ExtractOp(source, [n, c, h, w1], element)), f32)
            return b.insert(arith.AddfOp(b.insert(arith.MulfOp(left, w_low)), b.insert(arith.MulfOp(right, w_high))))

        top, bottom = along_width(h0), along_width(h1)
        value = b.insert(arith.AddfOp(b.insert(arith.MulfOp(top, h_low)), b.insert(arith.MulfOp(bottom, h_high))))
        return [b.convert(value, element)]

    return lw.generic([], [lw.empty(result)], [PARALLEL] * 4, body)

