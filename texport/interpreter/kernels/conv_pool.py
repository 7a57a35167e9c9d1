"""Kernels: convolution, pooling, resampling, grid sampling, padding, pixel shuffle.

Windowed ops share two primitives over the last n (spatial) dims:

- ``_windows``: a zero-copy strided view ``[..., *out, *kernel]`` of every
  (strided, dilated) window, built with ``sliding_window_view``. im2col is one
  transpose+reshape copy of it; convolution is then one batched BLAS matmul
  per call (groups and batch are matmul batch dims, never Python loops).
- ``_col2im``: the adjoint, a scatter-add of per-window values back onto the
  input grid. Windows overlap, and numpy's scatter-adds (``np.add.at``,
  ``bincount``) need a materialised int64 index per element, so it adds one
  strided slice per kernel offset instead: prod(kernel) vectorised adds (9 for
  a 3x3 kernel), as ATen's col2im loops over kernel offsets.
  Transposed convolution, conv/pool backward and ``col2im`` use it.

float16 and bfloat16 inputs are computed in float32 and rounded back once
(torch's opmath); float32/float64 compute in their own dtype.

Models call the same shapes over and over, and on small inputs deriving a call's
geometry (padded and output sizes, window strides, slices, which path) cost more
than its numpy work: small convolutions, transposed convolutions, pools and pads
run from plans remembered per input shape and arguments (functools.lru_cache;
any array a plan holds is read-only).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..dtypes import cast, is_floating, is_reduced_float, opmath_dtype
from . import conv_by_offsets, kernel
from .common import add_into, check_arguments, ones_vector, opmath, quiet, read_only

Array = np.ndarray
IntArg = int | Sequence[int]
Pairs = list[tuple[int, int]]


# ----------------------------------------------------------------- helpers


def _ints(value: IntArg, n: int) -> tuple[int, ...]:
    """An ``int[n]`` argument: a single value (int or 1-list) repeats n times."""
    if type(value) is list and len(value) == n and all(type(v) is int for v in value):
        return tuple(value)  # the common case, checked cheaply (kernels are called per op)
    values = [value] if isinstance(value, (int, np.integer)) else list(value)
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise ValueError(f"expected a single value or a list of {n} values, but got {values}")
    return tuple(int(v) for v in values)


def _lowest(dtype: np.dtype) -> Any:
    """The padding value of a max pool: -inf, or the dtype's minimum for integers."""
    if is_floating(dtype):
        return -np.inf
    if dtype == np.bool_:
        return False
    return np.iinfo(dtype).min


def _pad_last(x: Array, pads: Pairs, value: Any = 0) -> Array:
    """Pad the last len(pads) dims by (low, high) pairs, outermost dim first (a filled
    array and one slice assignment: np.pad costs ~20x that in Python on small inputs)."""
    if not any(lo or hi for lo, hi in pads):
        return x
    n = len(pads)
    lead = x.shape[:x.ndim - n]
    padded = np.full((*lead, *(s + lo + hi for s, (lo, hi) in zip(x.shape[x.ndim - n:], pads))),
                     value, dtype=x.dtype)
    padded[(Ellipsis, *(slice(lo, lo + s) for s, (lo, _) in zip(x.shape[x.ndim - n:], pads)))] = x
    return padded


def _windows(x: Array, kernel: Sequence[int], stride: Sequence[int],
             dilation: Sequence[int]) -> Array:
    """Read-only view [..., *out, *kernel] of every window over the last n dims."""
    n = len(kernel)
    spans = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    spatial, steps = x.shape[x.ndim - n:], x.strides[x.ndim - n:]
    out = tuple((size - span) // st + 1 for size, span, st in zip(spatial, spans, stride))
    if x.flags.c_contiguous and x.size and all(size >= span for size, span in zip(spatial, spans)):
        # the view straight from the strides (sliding_window_view's checks and slicing
        # cost ~30 us a call, the whole of a small convolution)
        view = np.ndarray((*x.shape[:x.ndim - n], *out, *kernel), x.dtype, x, 0,
                          (*x.strides[:x.ndim - n], *(a * st for a, st in zip(steps, stride)),
                           *(a * d for a, d in zip(steps, dilation))))
        view.flags.writeable = False
        return view
    view = sliding_window_view(x, spans, axis=tuple(range(x.ndim - n, x.ndim)))
    slices = (*(slice(None, None, st) for st in stride), *(slice(None, None, d) for d in dilation))
    return view[(Ellipsis, *slices)]


def _col2im(cols: Array, size: Sequence[int], stride: Sequence[int],
            dilation: Sequence[int], storage: np.dtype | None = None) -> Array:
    """Scatter-add cols [..., *kernel, *blocks] onto a zero grid [..., *size]:
    window b's offset k lands at b*stride + k*dilation (the adjoint of _windows).
    ``storage``: a reduced float the grid is kept in, each add rounded to it."""
    n = len(size)
    kernel, blocks = cols.shape[-2 * n:-n], cols.shape[-n:]
    out = np.zeros((*cols.shape[:-2 * n], *size), dtype=cols.dtype)
    for offset in np.ndindex(*kernel):
        target = tuple(
            slice(k * d, k * d + (b - 1) * s + 1, s)
            for k, d, b, s in zip(offset, dilation, blocks, stride)
        )
        out[(Ellipsis, *target)] += cols[(Ellipsis, *offset, *([slice(None)] * n))]
        if storage is not None:
            out[(Ellipsis, *target)] = _rounded(out[(Ellipsis, *target)], storage)
    return out


def _rounded(x: Array, storage: np.dtype | None) -> Array:
    """x (float32) rounded to the reduced float ``storage`` and widened back (None: x)."""
    return x if storage is None else cast(x, storage).astype(x.dtype)


def _crop_last(x: Array, starts: Sequence[int], sizes: Sequence[int]) -> Array:
    n = len(starts)
    return x[(Ellipsis, *(slice(a, a + s) for a, s in zip(starts, sizes)))] if n else x


def _batchify(x: Array, n: int, run: Callable[[Array], Array]) -> Array:
    """conv{n}d accept an unbatched [C, *spatial] input: run it with N=1 (torch's batchify)."""
    if x.ndim == n + 1:
        return run(x[None])[0]
    return run(x)


# ------------------------------------------------------------ convolution


def _im2col(x: Array, kernel: Sequence[int], stride: Sequence[int], pads: Pairs,
            dilation: Sequence[int], groups: int) -> tuple[Array, tuple[int, ...]]:
    """[N, C, *in] (unpadded) -> cols [N, G, C/G * prod(k), L] and the out sizes: one copy
    of the padded input's window view. (Copying one strided slice per kernel offset straight
    from the unpadded input, zero-filling the border strips, measured no faster: the pad copy
    it saves is paid back in per-offset overhead, 49 offsets for a 7x7 kernel.)"""
    win = _windows(_pad_last(x, pads), kernel, stride, dilation)  # [N, C, *out, *k]
    return _window_cols(win, groups), win.shape[2:2 + len(kernel)]


def _window_cols(win: Array, groups: int) -> Array:
    """Window view [N, C, *out, *k] -> its im2col copy [N, G, C/G * prod(k), prod(out)]."""
    n = (win.ndim - 2) // 2
    order = (0, 1, *range(2 + n, 2 + 2 * n), *range(2, 2 + n))  # [N, C, *k, *out]
    rows = win.shape[1] // groups * math.prod(win.shape[2 + n:])  # explicit: N may be 0
    return win.transpose(order).reshape(win.shape[0], groups, rows, math.prod(win.shape[2:2 + n]))


def _pointwise_cols(x: Array, stride: Sequence[int], groups: int) -> tuple[Array, tuple[int, ...]]:
    """A 1x1 unpadded convolution's columns: the (subsampled) input itself, a view when the
    stride is 1 (no im2col copy)."""
    if any(st != 1 for st in stride):
        x = x[(Ellipsis, *(slice(None, None, st) for st in stride))]
    out = x.shape[2:]
    return x.reshape(x.shape[0], groups, x.shape[1] // groups, math.prod(out)), out


# The most bytes one im2col copy may hold: a larger one is built and multiplied in
# blocks of output rows, as torch's kernels never hold a whole-image im2col (ResNet18's
# first convolution: 7.4 MB of columns for a 3.2 MB output). A block of 1 MiB still
# makes GEMMs of hundreds of columns, where BLAS runs at full speed.
IM2COL_BLOCK_BYTES = 1 << 20


def _conv(x: Array, w: Array, stride: Sequence[int], pads: Pairs, dilation: Sequence[int],
          groups: int) -> Array:
    """Forward convolution: im2col + one batched matmul [G, O/G, C/G*k] @ [N, G, C/G*k, L]
    (the product is [N, G, O/G, L]: NCHW as it comes, no transpose)."""
    weight = w.reshape(groups, w.shape[0] // groups, -1)
    if all(k == 1 for k in w.shape[2:]) and not any(lo or hi for lo, hi in pads):
        cols, out = _pointwise_cols(x, stride, groups)
        return np.matmul(weight, cols).reshape(x.shape[0], w.shape[0], *out)
    if conv_by_offsets.worth_it(x, w, stride, pads, dilation, groups):
        return conv_by_offsets.convolution(x, w, stride, pads, dilation)
    cols_bytes = x.shape[0] * weight.shape[2] * groups * x.itemsize  # per output position
    padded = _pad_last(x, pads)
    win = _windows(padded, w.shape[2:], stride, dilation)  # [N, C, *out, *k]
    out = win.shape[2:2 + len(pads)]
    if math.prod(out) * cols_bytes <= IM2COL_BLOCK_BYTES or len(out) == 0 or out[0] < 2:
        return np.matmul(weight, _window_cols(win, groups)).reshape(x.shape[0], w.shape[0], *out)
    return _conv_in_row_blocks(win, weight, groups, cols_bytes * math.prod(out[1:]))


def _conv_in_row_blocks(win: Array, weight: Array, groups: int, row_bytes: int) -> Array:
    """The convolution of window view ``win`` [N, C, *out, *k], im2col'd and multiplied
    one block of output rows (first spatial dim) at a time, each block's columns at
    most IM2COL_BLOCK_BYTES: the same products, column by column, as the one-copy path."""
    n_batch, n = win.shape[0], (win.ndim - 2) // 2
    out = win.shape[2:2 + n]
    step = max(1, IM2COL_BLOCK_BYTES // row_bytes)
    result = None
    for start in range(0, out[0], step):
        block = win[:, :, start:start + step]
        rows = block.shape[2]
        product = np.matmul(weight, _window_cols(block, groups))  # [N, G, O/G, rows * prod(out[1:])]
        if result is None:
            result = np.empty((n_batch, groups, weight.shape[1], out[0], math.prod(out[1:])), product.dtype)
        result[:, :, :, start:start + rows] = product.reshape(*product.shape[:3], rows, -1)
    return result.reshape(n_batch, groups * weight.shape[1], *out)


def _conv_transpose(x: Array, w: Array, stride: Sequence[int], padding: Sequence[int],
                    dilation: Sequence[int], groups: int, sizes: Sequence[int],
                    storage: np.dtype | None = None) -> Array:
    """Transposed convolution to spatial ``sizes``: y[n, o, s*stride - pad + k*dil] +=
    x[n, c, s] * w[c, o, k]. One matmul gives every (o, k) product, col2im sums them."""
    batch, spatial = x.shape[0], x.shape[2:]
    kernel_size, out_per_group = w.shape[2:], w.shape[1]
    weight = w.reshape(groups, w.shape[0] // groups, -1).transpose(0, 2, 1)  # [G, O/G*k, C/G]
    grouped = x.reshape(batch, groups, x.shape[1] // groups, math.prod(spatial))
    cols = _rounded(np.matmul(weight, grouped), storage)
    cols = cols.reshape(batch, groups * out_per_group, *kernel_size, *spatial)
    args = zip(spatial, stride, dilation, kernel_size)
    full = [(s - 1) * st + d * (k - 1) + 1 for s, st, d, k in args]
    grid = [max(f, p + o) for f, p, o in zip(full, padding, sizes)]
    return _crop_last(_col2im(cols, grid, stride, dilation, storage), padding, sizes)


def _transposed_sizes(spatial: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                      padding: Sequence[int], dilation: Sequence[int],
                      output_padding: Sequence[int]) -> list[int]:
    args = zip(spatial, kernel, stride, padding, dilation, output_padding)
    return [(s - 1) * st - 2 * p + d * (k - 1) + op + 1 for s, k, st, p, d, op in args]


def _with_bias(out: Array, bias: Array | None) -> Array:
    if bias is not None:
        add_into(out, bias.reshape(-1, *([1] * (out.ndim - 2))).astype(out.dtype, copy=False))
    return out


# ------------------------------------------------- planned small convolutions

# The dtypes a planned convolution takes as they come (opmath keeps them).
_PLANNED_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})

Forward = Callable[[Array, Array, Any], Array]  # (x, w, bias or None) -> out
Source = Callable[[Array], Array]  # x -> the contiguous (zero-padded) array the windows read


def _planned_conv(x: Array, w: Array, bias: Array | None, stride: IntArg, padding: IntArg | str,
                  dilation: IntArg, groups: int) -> Forward | None:
    """The remembered plan of this convolution's geometry (_conv_plan), or None where the
    general path runs: a model calls the same shapes over and over, and on small inputs
    deriving the geometry again (padded and output sizes, window strides, which path)
    cost several times the numpy work itself."""
    try:
        return _conv_plan(x.shape, w.shape, x.dtype, w.dtype, None if bias is None else (bias.shape, bias.dtype),
                          _hashable(stride), _hashable(padding), _hashable(dilation), groups, IM2COL_BLOCK_BYTES)
    except TypeError:  # an argument that cannot be a cache key: the general path takes it
        return None


def _planned_conv_transpose(x: Array, w: Array, bias: Array | None, stride: IntArg, padding: IntArg,
                            output_padding: IntArg, groups: int, dilation: IntArg) -> Forward | None:
    """_planned_conv's counterpart for a transposed convolution (_conv_transpose_plan)."""
    try:
        return _conv_transpose_plan(x.shape, w.shape, x.dtype, w.dtype,
                                    None if bias is None else (bias.shape, bias.dtype), _hashable(stride),
                                    _hashable(padding), _hashable(output_padding), groups, _hashable(dilation))
    except TypeError:
        return None


def _hashable(value: Any) -> Any:
    """A list argument as a cache key (an unhashable item still raises TypeError)."""
    return tuple(value) if type(value) is list else value


def _int_arg(value: Any, n: int, least: int) -> bool:
    """``value`` is an int[n] argument (an int, or a tuple of 1 or n ints), each >= least."""
    values = (value,) if type(value) is int else value
    return (type(values) is tuple and len(values) in (1, n)
            and all(type(v) is int and v >= least for v in values))


def _plannable(x_shape: tuple[int, ...], w_shape: tuple[int, ...], x_dtype: np.dtype, w_dtype: np.dtype,
               groups: Any, in_channels: int) -> bool:
    """A batched float32/float64 input of the weight's dtype and of the ``in_channels`` the
    weight takes, nothing empty, and ``groups`` that splits the weight's first dim."""
    n = len(w_shape) - 2
    return (n >= 1 and len(x_shape) == n + 2 and x_dtype == w_dtype and x_dtype in _PLANNED_FLOATS
            and 0 not in x_shape and 0 not in w_shape and type(groups) is int and groups >= 1
            and w_shape[0] % groups == 0 and x_shape[1] == in_channels)


@functools.lru_cache(maxsize=1024)
def _conv_plan(x_shape: tuple[int, ...], w_shape: tuple[int, ...], x_dtype: np.dtype, w_dtype: np.dtype,
               bias: tuple[tuple[int, ...], np.dtype] | None, stride: Any, padding: Any, dilation: Any,
               groups: Any, block_bytes: int) -> Forward | None:
    """forward(x, w, bias) -> _conv's result plus the bias, for a float32/float64 batched
    input the pointwise or the one-copy im2col path takes; None for anything else (the
    offsets and row-block paths, reduced floats, malformed arguments: the general path,
    its checks and its errors). The same matmuls of the same operands as _conv, but a
    small stride-1 convolution's, whose columns are "wide" (_wide_forward)."""
    n = len(w_shape) - 2
    padding_ok = padding in ("valid", "same") if type(padding) is str else _int_arg(padding, n, 0)
    if (not _plannable(x_shape, w_shape, x_dtype, w_dtype, groups, w_shape[1] * groups)
            or bias not in (None, ((w_shape[0],), x_dtype))
            or not (padding_ok and _int_arg(stride, n, 1) and _int_arg(dilation, n, 1))):
        return None
    stride, dilation, kernel_size = _ints(stride, n), _ints(dilation, n), w_shape[2:]
    if type(padding) is str:  # as _conv_nd_padding: total d*(k-1), odd remainder on the right
        totals = [d * (k - 1) if padding == "same" else 0 for k, d in zip(kernel_size, dilation)]
        pads = [(t // 2, t - t // 2) for t in totals]
    else:
        pads = [(p, p) for p in _ints(padding, n)]
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(x_shape[2:], pads))
    spans = [d * (k - 1) + 1 for k, d in zip(kernel_size, dilation)]
    if any(size < span for size, span in zip(padded, spans)):
        return None
    out = tuple((size - span) // st + 1 for size, span, st in zip(padded, spans, stride))
    batch, channels, outs = x_shape[0], x_shape[1], w_shape[0]
    rows = channels // groups * math.prod(kernel_size)
    weight_shape = (groups, outs // groups, rows)

    def weight(w: Array) -> Array:
        return w.reshape(weight_shape)

    if all(k == 1 for k in kernel_size) and not any(lo or hi for lo, hi in pads):
        columns = _pointwise_columns(x_shape, stride, groups, out)
    elif (conv_by_offsets.worth_it_for(x_shape, w_shape, x_dtype, stride, pads, dilation, groups)
          or math.prod(out) * batch * rows * groups * x_dtype.itemsize > block_bytes and out[0] >= 2):
        return None
    else:
        source = _placed(x_shape, x_dtype, padded, [lo for lo, _ in pads], (1,) * n)
        if _wide_pays(x_shape[0], w_shape[0] // groups, padded, stride, out):
            return _wide_forward((batch, channels, *padded), w_shape, x_dtype, dilation, groups, out, source, weight)
        columns = _im2col_columns((batch, channels, *padded), x_dtype, kernel_size, stride, dilation, groups, out,
                                  source)
    return _matmul_forward(weight, columns, (groups, outs // groups, 1), (batch, outs, *out))


def _matmul_forward(weight: Callable[[Array], Array], columns: Source, bias_shape: tuple[int, ...],
                    out_shape: tuple[int, ...]) -> Forward:
    def forward(x: Array, w: Array, bias: Array | None) -> Array:
        product = np.matmul(weight(w), columns(x))  # [N, G, O/G, L]
        if bias is not None:
            add_into(product, bias.reshape(bias_shape))
        return product.reshape(out_shape)

    return forward


def _placed(x_shape: tuple[int, ...], dtype: np.dtype, padded: Sequence[int], starts: Sequence[int],
            steps: Sequence[int]) -> Source:
    """x -> a zero array [N, C, *padded] holding x[..., i] at starts + i * steps (steps > 1:
    zeros between x's elements, a transposed convolution's input), or x itself (row-major)
    when that is all of it."""
    if tuple(padded) == x_shape[2:]:
        return lambda x: x if x.flags.c_contiguous else np.ascontiguousarray(x)
    shape = (*x_shape[:2], *padded)
    inside = (Ellipsis, *(slice(start, start + (s - 1) * step + 1, step)
                          for s, start, step in zip(x_shape[2:], starts, steps)))

    def source(x: Array) -> Array:
        zeros = np.zeros(shape, dtype)
        zeros[inside] = x
        return zeros

    return source


def _pointwise_columns(x_shape: tuple[int, ...], stride: Sequence[int], groups: int,
                       out: Sequence[int]) -> Source:
    """_pointwise_cols with its geometry fixed."""
    cols_shape = (x_shape[0], groups, x_shape[1] // groups, math.prod(out))
    if all(st == 1 for st in stride):
        return lambda x: x.reshape(cols_shape)
    sampled = (Ellipsis, *(slice(None, None, st) for st in stride))
    return lambda x: x[sampled].reshape(cols_shape)


def _row_major_steps(shape: Sequence[int], dtype: np.dtype) -> list[int]:
    return [dtype.itemsize * math.prod(shape[i + 1:]) for i in range(len(shape))]


def _im2col_columns(padded_shape: tuple[int, ...], dtype: np.dtype, kernel_size: Sequence[int],
                    stride: Sequence[int], dilation: Sequence[int], groups: int, out: Sequence[int],
                    source: Source) -> Source:
    """x -> its im2col copy [N, G, C/G * prod(k), L] (as _window_cols): one strided view
    [N, G, C/G, *k, *out] of the source (the padded x), reshaped (the copy)."""
    n = len(kernel_size)
    batch, channels = padded_shape[:2]
    steps = _row_major_steps(padded_shape, dtype)
    view_shape = (batch, groups, channels // groups, *kernel_size, *out)
    view_strides = (steps[0], steps[1] * (channels // groups), steps[1],
                    *(steps[2 + i] * dilation[i] for i in range(n)),
                    *(steps[2 + i] * stride[i] for i in range(n)))
    cols_shape = (batch, groups, channels // groups * math.prod(kernel_size), math.prod(out))
    return lambda x: np.ndarray(view_shape, dtype, source(x), 0, view_strides).reshape(cols_shape)


# Where the wide im2col (_wide_forward) beats the exact one, measured on 1 thread: stride
# 1, at most this many more columns, output channels per group and products' elements
# (then the im2col copy, one short row loop per output row and column channel,
# dominates; past them the extra columns' multiply-adds and the output's crop copy do).
WIDE_MAX_WIDENING = 1.35
WIDE_MAX_OUTPUTS = 16
WIDE_MAX_ELEMENTS = 1 << 15


def _wide_length(padded: Sequence[int], out: Sequence[int]) -> int:
    """The wide grid's length: output position o sits at sum_i o_i * prod(padded[i+1:]),
    as the window's start in the flat padded input (stride 1), up to the last output."""
    return sum((o - 1) * math.prod(padded[i + 1:]) for i, o in enumerate(out)) + 1


def _wide_pays(batch: int, outs_per_group: int, padded: Sequence[int], stride: Sequence[int],
               out: Sequence[int]) -> bool:
    length = _wide_length(padded, out)
    return (len(out) >= 2 and all(st == 1 for st in stride) and outs_per_group <= WIDE_MAX_OUTPUTS
            and length <= WIDE_MAX_WIDENING * math.prod(out)
            and batch * outs_per_group * length <= WIDE_MAX_ELEMENTS)


def _wide_forward(padded_shape: tuple[int, ...], w_shape: tuple[int, ...], dtype: np.dtype,
                  dilation: Sequence[int], groups: int, out: Sequence[int], source: Source,
                  weight: Callable[[Array], Array]) -> Forward:
    """A stride-1 convolution by a "wide" im2col: its columns are the flat padded input's
    positions from the first output's window start to the last's, so within a channel and
    kernel offset they are one unit-stride run (one copy loop instead of one per output row,
    the most of a small convolution's time); the positions between the rows (past each
    row's last window) are multiplied too and dropped when the output is cut from the
    product (with the bias added in the same pass)."""
    n = len(out)
    batch, channels, outs = padded_shape[0], padded_shape[1], w_shape[0]
    steps = _row_major_steps(padded_shape, dtype)
    length, rows = _wide_length(padded_shape[2:], out), channels // groups * math.prod(w_shape[2:])
    view_shape = (batch, groups, channels // groups, *w_shape[2:], length)
    view_strides = (steps[0], steps[1] * (channels // groups), steps[1],
                    *(steps[2 + i] * dilation[i] for i in range(n)), dtype.itemsize)
    cols_shape = (batch, groups, rows, length)
    out_shape, bias_shape = (batch, outs, *out), (outs, *(1,) * n)
    cut_strides = (outs * length * dtype.itemsize, length * dtype.itemsize, *steps[2:])

    def forward(x: Array, w: Array, bias: Array | None) -> Array:
        cols = np.ndarray(view_shape, dtype, source(x), 0, view_strides).reshape(cols_shape)
        product = np.matmul(weight(w), cols)  # [N, G, O/G, length]
        cut = np.ndarray(out_shape, dtype, product, 0, cut_strides)
        if bias is None:
            return cut.copy()
        return _sum_into(np.empty(out_shape, dtype), cut, bias.reshape(bias_shape))

    return forward


@quiet
def _sum_into(out: Array, a: Array, b: Array) -> Array:
    """out = a + b, silent on overflow (as add_into)."""
    return np.add(a, b, out=out)


# The largest im2col (elements) a planned transposed convolution builds: it multiplies
# prod(stride) times the products col2im's does (the zeros between the input's elements),
# which on small inputs costs less than col2im's prod(kernel) strided adds.
TRANSPOSED_MAX_COLUMNS = 1 << 17
# ... and at most this many times the columns col2im's product makes (N * C_out * prod(k)
# * the input's positions), memory a forward holds at its peak: a DCGAN layer's spread
# columns are 8-16x those (peak memory 0.8 -> 7.5x torch's), so it keeps col2im.
TRANSPOSED_MAX_COLUMNS_GROWTH = 2


@functools.lru_cache(maxsize=512)
def _conv_transpose_plan(x_shape: tuple[int, ...], w_shape: tuple[int, ...], x_dtype: np.dtype,
                         w_dtype: np.dtype, bias: tuple[tuple[int, ...], np.dtype] | None, stride: Any,
                         padding: Any, output_padding: Any, groups: Any, dilation: Any) -> Forward | None:
    """forward(x, w, bias) for a small float32/float64 transposed convolution: the
    ordinary stride-1 convolution, by the flipped kernel, of x spread out by the stride
    (stride - 1 zeros between its elements) and zero-padded by d*(k-1) - padding (plus
    the output padding on the right). None where a padding crops (padding > d*(k-1)),
    for large inputs (col2im does fewer multiply-adds) and anything else the general
    path takes."""
    n = len(w_shape) - 2
    if (not _plannable(x_shape, w_shape, x_dtype, w_dtype, groups, w_shape[0])
            or bias not in (None, ((w_shape[1] * groups,), x_dtype))
            or not (_int_arg(stride, n, 1) and _int_arg(padding, n, 0) and _int_arg(output_padding, n, 0)
                    and _int_arg(dilation, n, 1))):
        return None
    stride, padding, dilation = _ints(stride, n), _ints(padding, n), _ints(dilation, n)
    kernel_size = w_shape[2:]
    out = _transposed_sizes(x_shape[2:], kernel_size, stride, padding, dilation, _ints(output_padding, n))
    reach = [d * (k - 1) for k, d in zip(kernel_size, dilation)]
    padded = tuple(o + r for o, r in zip(out, reach))
    batch, channels, outs = x_shape[0], x_shape[1], w_shape[1] * groups
    rows = channels // groups * math.prod(kernel_size)
    columns = batch * groups * rows * math.prod(out)
    col2im_columns = batch * outs * math.prod(kernel_size) * math.prod(x_shape[2:])
    if (min(out) < 1 or any(p > r for p, r in zip(padding, reach)) or columns > TRANSPOSED_MAX_COLUMNS
            or columns > TRANSPOSED_MAX_COLUMNS_GROWTH * col2im_columns):
        return None
    source = _placed(x_shape, x_dtype, padded, [r - p for r, p in zip(reach, padding)], stride)
    conv_shape = (outs, channels // groups, *kernel_size)  # the equivalent convolution's weight
    split = (groups, channels // groups, outs // groups, *kernel_size)
    flip = (slice(None),) * 3 + (slice(None, None, -1),) * n
    weight_shape = (groups, outs // groups, rows)

    def weight(w: Array) -> Array:
        """[C, O/G, *k] -> [G, O/G, C/G * prod(k)], each kernel flipped."""
        return w.reshape(split).swapaxes(1, 2)[flip].reshape(weight_shape)

    if _wide_pays(batch, outs // groups, padded, (1,) * n, out):
        return _wide_forward((batch, channels, *padded), conv_shape, x_dtype, dilation, groups, out, source, weight)
    columns = _im2col_columns((batch, channels, *padded), x_dtype, kernel_size, (1,) * n, dilation, groups, out,
                              source)
    return _matmul_forward(weight, columns, (groups, outs // groups, 1), (batch, outs, *out))


@kernel("convolution")
def convolution(input: Array, weight: Array, bias: Array | None, stride: IntArg,  # noqa: A002
                padding: IntArg, dilation: IntArg, transposed: bool,
                output_padding: IntArg, groups: int) -> Array:
    plan = (_planned_conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation)
            if transposed else _planned_conv(input, weight, bias, stride, padding, dilation, groups))
    if plan is not None:
        return plan(input, weight, bias)
    n = weight.ndim - 2
    stride, padding, dilation, output_padding = (
        _ints(v, n) for v in (stride, padding, dilation, output_padding)
    )
    x, w = opmath(input), opmath(weight)
    if transposed:
        sizes = _transposed_sizes(x.shape[2:], w.shape[2:], stride, padding, dilation,
                                  output_padding)
        slow = is_reduced_float(input.dtype) and any(o >= s for o, s in zip(output_padding, stride))
        storage = input.dtype if slow else None
        out = _rounded(_conv_transpose(x, w, stride, padding, dilation, groups, sizes, storage), storage)
    else:
        out = _conv(x, w, stride, [(p, p) for p in padding], dilation, groups)
    return _with_bias(out, bias).astype(input.dtype, copy=False)


def _conv_nd(n: int) -> Callable[..., Array]:
    def conv(input: Array, weight: Array, bias: Array | None, stride: IntArg,  # noqa: A002
             padding: IntArg, dilation: IntArg, groups: int) -> Array:
        plan = _planned_conv(input, weight, bias, stride, padding, dilation, groups)
        if plan is not None:
            return plan(input, weight, bias)

        def batched(x: Array) -> Array:
            return convolution(x, weight, bias, stride, padding, dilation, False, [0], groups)

        return _batchify(input, n, batched)

    return conv


def _conv_nd_padding(n: int) -> Callable[..., Array]:
    """padding='valid' | 'same' (stride 1): total pad d*(k-1), odd remainder on the right."""

    def conv(input: Array, weight: Array, bias: Array | None, stride: IntArg,  # noqa: A002
             padding: str, dilation: IntArg, groups: int) -> Array:
        if padding not in ("valid", "same"):
            raise ValueError(f"Invalid padding string: '{padding}'")
        plan = _planned_conv(input, weight, bias, stride, padding, dilation, groups)
        if plan is not None:
            return plan(input, weight, bias)
        dil = _ints(dilation, n)
        same = padding == "same"
        totals = [d * (k - 1) if same else 0 for k, d in zip(weight.shape[2:], dil)]
        pads = [(t // 2, t - t // 2) for t in totals]

        def batched(x: Array) -> Array:
            out = _conv(opmath(x), opmath(weight), _ints(stride, n), pads, dil, groups)
            return _with_bias(out, bias).astype(x.dtype, copy=False)

        return _batchify(input, n, batched)

    return conv


def _conv_transpose_nd(n: int) -> Callable[..., Array]:
    def conv(input: Array, weight: Array, bias: Array | None, stride: IntArg,  # noqa: A002
             padding: IntArg, output_padding: IntArg, groups: int, dilation: IntArg) -> Array:
        plan = _planned_conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation)
        if plan is not None:
            return plan(input, weight, bias)

        def batched(x: Array) -> Array:
            return convolution(x, weight, bias, stride, padding, dilation, True, output_padding,
                               groups)

        return _batchify(input, n, batched)

    return conv


for _n in (1, 2, 3):
    kernel(f"conv{_n}d")(_conv_nd(_n))
    kernel(f"conv{_n}d.padding")(_conv_nd_padding(_n))
kernel("conv_transpose1d")(_conv_transpose_nd(1))
kernel("conv_transpose2d.input")(_conv_transpose_nd(2))
kernel("conv_transpose3d.input")(_conv_transpose_nd(3))


def _conv_weight_grad(x: Array, grad: Array, kernel_size: Sequence[int], stride: Sequence[int],
                      pads: Pairs, dilation: Sequence[int], groups: int) -> Array:
    """sum over batch and positions of grad[n, o, l] * im2col(x)[n, c*k, l], per group:
    [N, G, O/G, L] @ [N, G, L, C/G*k] summed over N -> [O, C/G, *k]."""
    cols, out = _im2col(x, kernel_size, stride, pads, dilation, groups)
    blocks = int(np.prod(grad.shape[2:]))
    if cols.shape[-1] != blocks:  # a transposed conv's output_padding >= stride
        cols = _trim_blocks(cols, out, grad)
    g = grad.reshape(grad.shape[0], groups, grad.shape[1] // groups, blocks)
    per_batch = np.matmul(g, cols.swapaxes(-1, -2))
    return per_batch.sum(axis=0).reshape(grad.shape[1], -1, *kernel_size)


def _trim_blocks(cols: Array, out: Sequence[int], grad: Array) -> Array:
    """Keep only the windows that produced grad's positions (an im2col may yield more)."""
    grid = cols.reshape(*cols.shape[:-1], *out)
    kept = _crop_last(grid, [0] * len(out), grad.shape[2:])
    return kept.reshape(*cols.shape[:-1], int(np.prod(grad.shape[2:])))


def _conv_backward(go: Array, x: Array, w: Array, stride: tuple[int, ...],
                   padding: tuple[int, ...], dilation: tuple[int, ...], transposed: bool,
                   groups: int, mask: Sequence[bool]) -> tuple[Array | None, Array | None]:
    """(grad_input, grad_weight) in opmath dtype; a transposed conv swaps the roles."""
    kernel_size, pads = w.shape[2:], [(p, p) for p in padding]
    grad_input = grad_weight = None
    if transposed:
        if mask[0]:  # output_padding >= stride leaves extra windows past the input
            grad_input = _crop_last(_conv(go, w, stride, pads, dilation, groups),
                                    [0] * len(padding), x.shape[2:])
        if mask[1]:
            # <convT(x, w), go> = <x, conv(go, w)>: w's grad as a conv weight over go
            grad_weight = _conv_weight_grad(go, x, kernel_size, stride, pads, dilation, groups)
    else:
        if mask[0]:
            grad_input = _conv_transpose(go, w, stride, padding, dilation, groups, x.shape[2:])
        if mask[1]:
            grad_weight = _conv_weight_grad(x, go, kernel_size, stride, pads, dilation, groups)
    return grad_input, grad_weight


@kernel("convolution_backward")
def convolution_backward(grad_output: Array, input: Array, weight: Array,  # noqa: A002
                         bias_sizes: Sequence[int] | None, stride: IntArg, padding: IntArg,
                         dilation: IntArg, transposed: bool, output_padding: IntArg,
                         groups: int, output_mask: Sequence[bool]) -> tuple[Array | None, ...]:
    n = weight.ndim - 2
    stride, padding, dilation = (_ints(v, n) for v in (stride, padding, dilation))
    go = opmath(grad_output)
    grad_input, grad_weight = _conv_backward(
        go, opmath(input), opmath(weight), stride, padding, dilation, transposed, groups,
        output_mask,
    )
    grad_bias = None
    if output_mask[2]:
        grad_bias = go.sum(axis=(0, *range(2, go.ndim)))
    dtype = grad_output.dtype
    return tuple(
        None if g is None else g.astype(dtype, copy=False)
        for g in (grad_input, grad_weight, grad_bias)
    )


# ---------------------------------------------------------------- pooling


_PHASED_POOL_SIZE = 1 << 15  # input elements from which a strided pool reads phase planes


class _Pool:
    """Window geometry of an n-d pool over the last n dims (torch's pooling_output_shape)."""

    def __init__(self, shape: Sequence[int], n: int, kernel_size: IntArg, stride: IntArg, padding: IntArg,
                 dilation: IntArg, ceil_mode: bool) -> None:
        self.n = n
        self.kernel = _ints(kernel_size, n)
        has_stride = not (isinstance(stride, (list, tuple)) and len(stride) == 0)
        self.stride = _ints(stride, n) if has_stride else self.kernel
        self.padding = _ints(padding, n)
        self.dilation = _ints(dilation, n)
        self.sizes = tuple(shape[-n:])
        args = zip(self.sizes, self.kernel, self.stride, self.padding, self.dilation)
        self.out = tuple(_pool_out(s, k, st, p, d, ceil_mode) for s, k, st, p, d in args)

    def pads(self) -> Pairs:
        """(low, high) pads so every window, including a ceil_mode last one, is in bounds."""
        args = zip(self.sizes, self.kernel, self.stride, self.padding, self.dilation, self.out)
        return [(p, max(p, (o - 1) * st + d * (k - 1) + 1 - s - p)) for s, k, st, p, d, o in args]

    def windows(self, x: Array, value: Any) -> Array:
        view = _windows(_pad_last(x, self.pads(), value), self.kernel, self.stride, self.dilation)
        return view[(Ellipsis, *(slice(0, o) for o in self.out), *([slice(None)] * self.n))]

    def offset_views(self, x: Array, value: Any) -> list[Array]:
        """Each kernel offset's [..., *out] elements, in np.ndindex order. They are read
        from stride-phase planes (the padded x[..., p::s], copied once per phase), so each
        is a unit-stride block: numpy's loops over stride-2 rows run ~10x slower than
        over contiguous ones, and a pool runs prod(kernel) of them. Unstrided or small
        pools (where the phase copies' calls cost more) read the window view itself."""
        if all(st == 1 for st in self.stride) or x.size < _PHASED_POOL_SIZE:
            win = self.windows(x, value)
            return [win[(Ellipsis, *offset)] for offset in np.ndindex(*self.kernel)]
        pads = self.pads()
        planes: dict[tuple[int, ...], Array] = {}
        views = []
        for offset in np.ndindex(*self.kernel):
            starts = [o * d for o, d in zip(offset, self.dilation)]
            phase = tuple(start % st for start, st in zip(starts, self.stride))
            plane = planes.get(phase)
            if plane is None:
                plane = planes[phase] = _phase_plane(x, pads, phase, self.stride, value)
            # window b's element at start is padded[b * st + start] = plane[b + start // st]
            views.append(plane[(Ellipsis, *(slice(start // st, start // st + o)
                                             for start, st, o in zip(starts, self.stride, self.out)))])
        return views

    def starts(self, axis: int) -> Array:
        """Unpadded start coordinate of each window along spatial axis ``axis``."""
        return np.arange(self.out[axis]) * self.stride[axis] - self.padding[axis]

    def grid(self, axis: int) -> tuple[int, ...]:
        """Broadcast shape placing a per-window vector of ``axis`` among the out dims."""
        return tuple(-1 if a == axis else 1 for a in range(self.n))


def _phase_plane(x: Array, pads: Pairs, phase: Sequence[int], stride: Sequence[int], value: Any) -> Array:
    """The padded x's x[..., p::st] (p the phase) as a contiguous array, built straight
    from x: ``value`` where the padding falls, x's strided elements elsewhere (no padded
    copy of the whole input next to the planes: ResNet18's pool input is 3.2 MB)."""
    n = len(pads)
    lengths, inside, source = [], [], []
    for size, (lo, hi), p, st in zip(x.shape[x.ndim - n:], pads, phase, stride):
        length = -(-(size + lo + hi - p) // st)  # plane index j is padded coordinate p + j * st
        within, taken = conv_by_offsets.phase_slices(size, lo, p, st, length)
        lengths.append(length)
        inside.append(within)
        source.append(taken)
    plane = np.full((*x.shape[:x.ndim - n], *lengths), value, dtype=x.dtype)
    plane[(Ellipsis, *inside)] = x[(Ellipsis, *source)]
    return plane


def _pool_out(size: int, k: int, stride: int, pad: int, dilation: int, ceil_mode: bool) -> int:
    span = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1  # the last window must start inside the input or its left padding
    return out


def _torch_argmax(flat: Array) -> Array:
    """Argmax over the last axis as torch's CPU loops pick it (``val > max || isnan(val)``):
    the first maximum, but the last NaN when a window holds NaNs."""
    arg = flat.argmax(axis=-1)
    if not is_floating(flat.dtype):
        return arg
    nan = np.isnan(flat)
    last_nan = flat.shape[-1] - 1 - nan[..., ::-1].argmax(axis=-1)
    return np.where(nan.any(axis=-1), last_nan, arg)


def _max_pool(x: Array, pool: _Pool) -> Array:
    """The max of each window, one spatial axis at a time: a window's max is the max over
    its first axis of the maxes along the rest, so a 3x3 pool is 3 + 3 running
    np.maximum passes over slices instead of 9 (ResNet18's pool: 1.7 -> 1.2 ms). No
    padded copy: each kernel offset's slice is clipped to the input (padding never
    holds a window's max, it is the lowest value). np.maximum propagates NaN as torch's
    pool does, in any order."""
    return _run_max_steps(x, _max_steps(x.shape, pool), _lowest(x.dtype))


# One spatial axis's pass of _max_pool: (the slices of the 1 or 2 kernel offsets covering
# every output that start it, or none: then the shape of the fill it starts from;
# (target, source) slices of the other offsets, each a running np.maximum).
MaxStep = tuple[tuple[tuple[slice, ...], ...], tuple[int, ...], tuple[tuple[tuple[slice, ...], tuple[slice, ...]], ...]]


def _max_steps(shape: Sequence[int], pool: _Pool) -> list[MaxStep]:
    steps = []
    shape = list(shape)
    for axis in reversed(range(pool.n)):
        at = len(shape) - pool.n + axis
        steps.append(_axis_max(shape, at, pool.kernel[axis], pool.stride[axis], pool.padding[axis],
                               pool.dilation[axis], pool.out[axis]))
        shape[at] = pool.out[axis]
    return steps


def _axis_max(shape: Sequence[int], axis: int, kernel: int, stride: int, pad: int, dilation: int,
              length: int) -> MaxStep:
    """The pass y[..., o, ...] = max over k of x[..., o * stride + k * dilation - pad, ...]
    along ``axis`` (``length`` outputs) of an x of ``shape``, the positions outside x left out."""
    spans = []  # (outputs covered, start, first output, one past the last) per kernel offset
    for offset in range(kernel):
        start = offset * dilation - pad
        first = max(0, -(start // stride))  # the first o with o * stride + start >= 0
        last = min(length, (shape[axis] - 1 - start) // stride + 1)
        if last > first:
            spans.append((last - first, start, first, last))
    spans.sort(key=lambda span: -span[0])  # those covering every output start the max without a fill

    def along(index: slice) -> tuple[slice, ...]:
        return (*([slice(None)] * axis), index)

    def source(start: int, first: int, last: int) -> tuple[slice, ...]:
        return along(slice(first * stride + start, (last - 1) * stride + start + 1, stride))

    full = [source(start, first, last) for covered, start, first, last in spans[:2] if covered == length]
    rest = tuple((along(slice(first, last)), source(start, first, last)) for _, start, first, last in spans[len(full):])
    return tuple(full), (*shape[:axis], length, *shape[axis + 1:]), rest


def _run_max_steps(x: Array, steps: Sequence[MaxStep], lowest: Any) -> Array:
    out = x
    for starts, shape, rest in steps:
        if len(starts) == 2:
            acc = np.maximum(out[starts[0]], out[starts[1]])
        elif starts:
            acc = np.array(out[starts[0]])
        else:  # no window reaches the input, or none covers every output
            acc = np.full(shape, lowest, x.dtype)
        for target, source in rest:
            view = acc[target]
            np.maximum(view, out[source], out=view)
        out = acc
    return out


@functools.lru_cache(maxsize=512)
def _max_pool_plan(shape: tuple[int, ...], dtype: np.dtype, n: int, kernel_size: Any, stride: Any, padding: Any,
                   dilation: Any, ceil_mode: bool) -> tuple[tuple[MaxStep, ...], Any]:
    """_max_pool's passes and padding value for one input shape and geometry, remembered:
    deriving them cost more than a small pool's np.maximum calls."""
    return tuple(_max_steps(shape, _Pool(shape, n, kernel_size, stride, padding, dilation, ceil_mode))), _lowest(dtype)


def _window_max(views: Sequence[Array]) -> Array:
    """The running np.maximum over each kernel offset's elements (_Pool.offset_views)."""
    out = np.array(views[0])
    for view in views[1:]:
        np.maximum(out, view, out=out)
    return out


def _window_argmax(views: Sequence[Array], values: Array) -> Array:
    """Flat kernel offset of each window's max ``values`` (views: _Pool.offset_views) as
    _torch_argmax picks it (``val > max || isnan(val)``: the first maximum, the last
    NaN): one masked write per kernel offset, last offset first so the first match stays."""
    count = len(views)
    arg = np.zeros(values.shape, dtype=np.uint8 if count <= 256 else np.int64)
    for flat in reversed(range(count)):
        np.putmask(arg, views[flat] == values, flat)
    if is_floating(values.dtype) and np.isnan(values).any():
        for flat in range(count):
            np.putmask(arg, np.isnan(views[flat]), flat)
    return arg


def _max_pool_with_indices(x: Array, pool: _Pool) -> tuple[Array, Array]:
    """Max of each window and its flat index in the input plane (see _torch_argmax);
    an all-lowest window points at its first in-bounds element, as torch."""
    n = pool.n
    lowest = _lowest(x.dtype)
    views = pool.offset_views(x, lowest)
    values = _window_max(views)
    arg = _window_argmax(views, values)
    planes = [int(np.prod(pool.sizes[axis + 1:])) for axis in range(n)]
    if not (values == lowest).any():  # every max is in bounds: index = window start + offset
        delta = sum(np.array(o) * d * p for o, d, p in
                    zip(np.unravel_index(np.arange(int(np.prod(pool.kernel))), pool.kernel), pool.dilation, planes))
        base = sum(pool.starts(axis).reshape(pool.grid(axis)) * planes[axis] for axis in range(n))
        return values, delta.take(arg) + base
    offsets = np.unravel_index(arg, pool.kernel)
    index = np.zeros(arg.shape, dtype=np.int64)
    first = np.zeros(arg.shape, dtype=np.int64)
    inside = np.ones(arg.shape, dtype=bool)
    for axis in range(n):  # over the n spatial dims, each step vectorised
        start = pool.starts(axis).reshape(pool.grid(axis))
        coord = start + offsets[axis] * pool.dilation[axis]
        inside &= (coord >= 0) & (coord < pool.sizes[axis])
        skip = -(-np.maximum(-start, 0) // pool.dilation[axis])  # first in-bounds offset
        index = index + coord * planes[axis]
        first = first + (start + skip * pool.dilation[axis]) * planes[axis]
    return values, np.where(inside, index, first)


def _max_pool_nd(n: int, with_indices: bool) -> Callable[..., Any]:
    def pool(self: Array, kernel_size: IntArg, stride: IntArg, padding: IntArg,
             dilation: IntArg, ceil_mode: bool) -> Array | tuple[Array, Array]:
        if not with_indices:
            try:
                steps, lowest = _max_pool_plan(self.shape, self.dtype, n, _hashable(kernel_size), _hashable(stride),
                                               _hashable(padding), _hashable(dilation), ceil_mode)
            except TypeError:  # an argument that cannot be a cache key
                return _max_pool(self, _Pool(self.shape, n, kernel_size, stride, padding, dilation, ceil_mode))
            return _run_max_steps(self, steps, lowest)
        geometry = _Pool(self.shape, n, kernel_size, stride, padding, dilation, ceil_mode)
        return _max_pool_with_indices(self, geometry)

    return pool


for _n in (1, 2, 3):
    kernel(f"max_pool{_n}d")(_max_pool_nd(_n, False))
for _n in (1, 2, 3):
    kernel(f"max_pool{_n}d_with_indices")(_max_pool_nd(_n, True))


@kernel("max_pool2d_with_indices_backward")
def max_pool2d_with_indices_backward(grad_output: Array, self: Array, kernel_size: IntArg,
                                     stride: IntArg, padding: IntArg, dilation: IntArg,
                                     ceil_mode: bool, indices: Array) -> Array:
    """Each output's gradient goes to the input element its index names (summed)."""
    plane = self.shape[-1] * self.shape[-2]
    planes = int(np.prod(self.shape[:-2]))
    target = indices.reshape(planes, int(np.prod(indices.shape[-2:])))
    target = target + np.arange(planes)[:, None] * plane
    summed = np.bincount(target.ravel(), weights=grad_output.reshape(-1).astype(np.float64),
                         minlength=planes * plane)
    return summed.reshape(self.shape).astype(self.dtype)


def _avg_divisor(pool: _Pool, count_include_pad: bool, divisor_override: int | None) -> Any:
    """torch's divide_factor per window: a product of per-dim counts (windows clipped to
    the padded input, or to the input itself when padding is not counted)."""
    if divisor_override:
        return divisor_override
    divisor: Any = 1
    for axis in range(pool.n):
        size, pad, k = pool.sizes[axis], pool.padding[axis], pool.kernel[axis]
        start = pool.starts(axis)
        end = np.minimum(start + k, size + pad)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, size)
        divisor = divisor * (end - start).reshape(pool.grid(axis))
    return divisor


def _divide(total: Array, divisor: Any, dtype: np.dtype) -> Array:
    """Float division, or C++'s truncating division for integer tensors."""
    if np.issubdtype(dtype, np.integer):  # toward zero, whatever the signs (a divisor_override may be negative)
        return (np.sign(total) * np.sign(divisor) * (np.abs(total) // np.abs(divisor))).astype(dtype)
    return (total / divisor).astype(dtype, copy=False)


def _avg_pool(x: Array, pool: _Pool, count_include_pad: bool,
              divisor_override: int | None) -> Array:
    acc = opmath(x) if is_floating(x.dtype) else x.astype(np.int64)
    # a running sum over the kernel offsets, in window order as torch's loop adds them
    # (numpy's sum over the window's strided axes is ~20x slower)
    views = pool.offset_views(acc, 0)
    total = np.array(views[0])
    for view in views[1:]:
        total += view
    return _divide(total, _avg_divisor(pool, count_include_pad, divisor_override), x.dtype)


# A planned average pool: (the pads of its zero-padded copy or None, each kernel offset's
# slice of that copy, in window order, and the divisor: read-only per window, or an int).
AvgPlan = tuple[Pairs | None, tuple[tuple[slice, ...], ...], Any]


@functools.lru_cache(maxsize=256)
def _avg_pool_plan(shape: tuple[int, ...], dtype: np.dtype, n: int, kernel_size: Any, stride: Any, padding: Any,
                   ceil_mode: bool, count_include_pad: bool, divisor_override: Any,
                   phased_size: int) -> AvgPlan | None:
    """_avg_pool's geometry for a float32/float64 input of ``shape`` that reads the window
    view (not phase planes), remembered; None for the others."""
    if dtype not in _PLANNED_FLOATS or 0 in shape:
        return None
    pool = _Pool(shape, n, kernel_size, stride, padding, 1, ceil_mode)
    if min(pool.out) < 1 or not all(st == 1 for st in pool.stride) and math.prod(shape) >= phased_size:
        return None
    pads = pool.pads()
    offsets = tuple(
        (Ellipsis, *(slice(k * d, k * d + (o - 1) * st + 1, st)
                     for k, d, o, st in zip(offset, pool.dilation, pool.out, pool.stride)))
        for offset in np.ndindex(*pool.kernel)
    )
    divisor = _avg_divisor(pool, count_include_pad, divisor_override)
    if isinstance(divisor, np.ndarray):
        if (divisor == divisor.flat[0]).all():
            # one count for every window: an int, so a float32 sum is divided in float32, not
            # float64 then rounded, the same quotient (double rounding is innocuous for a
            # division when the wider format has at least 2p + 2 bits: 53 >= 2 * 24 + 2)
            divisor = int(divisor.flat[0])
        else:
            divisor = read_only(divisor)
    return (pads if any(lo or hi for lo, hi in pads) else None), offsets, divisor


def _planned_avg_pool(x: Array, plan: AvgPlan) -> Array:
    """_avg_pool by its plan: the same running sum and quotient as ``total / divisor``,
    into the sum's buffer."""
    pads, offsets, divisor = plan
    source = x if pads is None else _pad_last(x, pads)
    total = source[offsets[0]] + source[offsets[1]] if len(offsets) > 1 else np.array(source[offsets[0]])
    for offset in offsets[2:]:
        total += source[offset]
    return np.divide(total, divisor, out=total)


def _avg_pool_nd(n: int) -> Callable[..., Array]:
    def pool(self: Array, kernel_size: IntArg, stride: IntArg, padding: IntArg,
             ceil_mode: bool, count_include_pad: bool, divisor_override: int | None = None
             ) -> Array:
        try:
            plan = _avg_pool_plan(self.shape, self.dtype, n, _hashable(kernel_size), _hashable(stride),
                                  _hashable(padding), ceil_mode, count_include_pad, divisor_override,
                                  _PHASED_POOL_SIZE)
        except TypeError:  # an argument that cannot be a cache key
            plan = None
        if plan is not None:
            return _planned_avg_pool(self, plan)
        geometry = _Pool(self.shape, n, kernel_size, stride, padding, 1, ceil_mode)
        return _avg_pool(self, geometry, count_include_pad, divisor_override)

    return pool


for _n in (1, 2, 3):
    kernel(f"avg_pool{_n}d")(_avg_pool_nd(_n))


@kernel("avg_pool2d_backward")
def avg_pool2d_backward(grad_output: Array, self: Array, kernel_size: IntArg, stride: IntArg,
                        padding: IntArg, ceil_mode: bool, count_include_pad: bool,
                        divisor_override: int | None) -> Array:
    """Every input element of a window receives grad/divisor of that window (col2im)."""
    pool = _Pool(self.shape, 2, kernel_size, stride, padding, 1, ceil_mode)
    share = opmath(grad_output) / _avg_divisor(pool, count_include_pad, divisor_override)
    lead = share.shape[:-2]
    cols = np.broadcast_to(share[..., None, None, :, :], (*lead, *pool.kernel, *pool.out))
    grid = [s + lo + hi for s, (lo, hi) in zip(pool.sizes, pool.pads())]
    full = _col2im(cols.astype(share.dtype), grid, pool.stride, pool.dilation)
    return _crop_last(full, pool.padding, pool.sizes).astype(self.dtype)


# ------------------------------------------------------- adaptive pooling


def adaptive_bounds(size: int, out: int) -> tuple[Array, Array]:
    """torch's windows: start = floor(i*in/out), end = ceil((i+1)*in/out)."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_mean_axis(x: Array, axis: int, out: int) -> Array:
    """Window means along one axis from differences of a (float64) prefix sum."""
    start, end = adaptive_bounds(x.shape[axis], out)
    widths = [(0, 0)] * x.ndim
    widths[axis] = (1, 0)
    prefix = np.pad(np.cumsum(x, axis=axis, dtype=np.float64), widths)
    shape = [1] * x.ndim
    shape[axis] = -1
    counts = (end - start).reshape(shape)
    return (prefix.take(end, axis=axis) - prefix.take(start, axis=axis)) / counts


def _adaptive_avg(x: Array, sizes: Sequence[int]) -> Array:
    """The mean over a box is the mean of means along each axis: one axis at a time."""
    out: Array = x
    for j, size in enumerate(sizes):
        out = _adaptive_mean_axis(out, x.ndim - len(sizes) + j, size)
    return out.astype(x.dtype)


def _adaptive_avg_3d_in_dtype(x: Array, sizes: Sequence[int]) -> Array:
    """torch's 3-d CPU kernel in float16/bfloat16: each box summed in the dtype, element by
    element in (t, h, w) order, then divided by kT, kH and kW in turn, each step rounded.
    Vectorised over boxes: one step per offset of the largest box (an offset past a box's
    end adds an exact 0)."""
    bounds = [adaptive_bounds(x.shape[-3 + j], sizes[j]) for j in range(3)]
    starts = [start for start, _ in bounds]
    kernels = [end - start for start, end in bounds]
    grids = np.ix_(*[np.arange(size) for size in sizes])
    total = np.zeros((*x.shape[:-3], *sizes), x.dtype)
    zero = x.dtype.type(0)
    for offset in itertools.product(*[range(int(k.max())) for k in kernels]):
        inside = np.ones(sizes, bool)
        index = []
        for j, step in enumerate(offset):
            inside = inside & (kernels[j] > step)[grids[j]]
            index.append(np.minimum(starts[j] + step, x.shape[-3 + j] - 1)[grids[j]])
        total = (total + np.where(inside, x[..., index[0], index[1], index[2]], zero)).astype(x.dtype)
    for j in range(3):
        total = (total / kernels[j][grids[j]].astype(x.dtype)).astype(x.dtype)
    return total


_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _global_avg(x: Array, n: int) -> Array:
    """A float32/float64 adaptive average pool to size 1 (global average pooling): each
    plane's sum in its dtype, as torch's kernel accumulates it, as one BLAS product
    with ones, divided by the plane's size."""
    lead = x.shape[:x.ndim - n]
    rows = x.reshape(*lead, -1)
    out = np.matmul(rows, ones_vector(rows.shape[-1], x.dtype))
    out /= rows.shape[-1]
    return out.reshape(*lead, *(1,) * n)


def _adaptive_avg_nd(n: int) -> Callable[..., Array]:
    def pool(self: Array, output_size: IntArg) -> Array:
        sizes = _ints(output_size, n)
        if sizes == (1,) * n and self.dtype in _BLAS_FLOATS and self.size:
            return _global_avg(self, n)
        if n == 3 and is_reduced_float(self.dtype):
            return _adaptive_avg_3d_in_dtype(self, sizes)
        return _adaptive_avg(self, sizes)

    return pool


kernel("adaptive_avg_pool1d")(_adaptive_avg_nd(1))
kernel("adaptive_avg_pool2d", "_adaptive_avg_pool2d")(_adaptive_avg_nd(2))
kernel("adaptive_avg_pool3d", "_adaptive_avg_pool3d")(_adaptive_avg_nd(3))


@kernel("_adaptive_avg_pool2d_backward")
def _adaptive_avg_pool2d_backward(grad_output: Array, self: Array) -> Array:
    """Adjoint of the per-axis window means: grad @ A for A[o, i] = [i in window o] / count."""
    grad = opmath(grad_output)
    for axis in (self.ndim - 2, self.ndim - 1):
        size, out = self.shape[axis], grad_output.shape[axis]
        start, end = adaptive_bounds(size, out)
        i = np.arange(size)
        inside = (i >= start[:, None]) & (i < end[:, None])
        means = inside / (end - start)[:, None]
        grad = np.moveaxis(np.tensordot(grad, means.astype(grad.dtype), axes=([axis], [0])),
                           -1, axis)
    return grad.astype(self.dtype)


def _adaptive_max(x: Array, sizes: Sequence[int]) -> tuple[Array, Array]:
    """Gather every variable-size window padded to the largest (repeating its last
    element, which cannot change the max or the chosen element), then argmax."""
    n, lead = len(sizes), x.ndim - len(sizes)
    if 0 in sizes:
        shape = (*x.shape[:lead], *sizes)
        return np.empty(shape, x.dtype), np.empty(shape, np.int64)
    taps = []
    for axis, out in enumerate(sizes):
        start, end = adaptive_bounds(x.shape[lead + axis], out)
        width = int((end - start).max())
        taps.append(np.minimum(start[:, None] + np.arange(width), end[:, None] - 1))
    grids = np.ix_(*[t.ravel() for t in taps])  # cartesian product of (window, tap) pairs
    win = x[(Ellipsis, *grids)]
    shaped = win.reshape(*x.shape[:lead], *(d for t in taps for d in t.shape))
    order = (*range(lead), *(lead + 2 * a for a in range(n)), *(lead + 2 * a + 1 for a in range(n)))
    taps_per_window = int(np.prod([t.shape[1] for t in taps]))
    flat = shaped.transpose(order).reshape(*x.shape[:lead], *sizes, taps_per_window)
    arg = _torch_argmax(flat)
    values = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
    offsets = np.unravel_index(arg, [t.shape[1] for t in taps])
    index = np.zeros(arg.shape, dtype=np.int64)
    for axis, tap in enumerate(taps):
        window = np.arange(sizes[axis]).reshape([-1 if a == axis else 1 for a in range(n)])
        plane = int(np.prod(x.shape[lead + axis + 1:]))
        index = index + tap[window, offsets[axis]] * plane
    return values, index


def _adaptive_max_nd(n: int) -> Callable[..., tuple[Array, Array]]:
    def pool(self: Array, output_size: IntArg) -> tuple[Array, Array]:
        return _adaptive_max(self, _ints(output_size, n))

    return pool


kernel("adaptive_max_pool1d")(_adaptive_max_nd(1))
kernel("adaptive_max_pool2d")(_adaptive_max_nd(2))
kernel("adaptive_max_pool3d")(_adaptive_max_nd(3))


# ------------------------------------------------- fractional max pooling


def _fractional_starts(sample: Array, size: int, out: int, pool: int) -> Array:
    """torch's generate_intervals per plane, in the sample's dtype: window i starts at
    int((i + u)·α) - int(u·α), α = (in - pool)/(out - 1), the last at in - pool."""
    dtype = sample.dtype.type
    starts = np.zeros((*sample.shape, out), np.int64)
    if out > 1:
        alpha = dtype(size - pool) / dtype(out - 1)
        i = np.arange(out, dtype=sample.dtype)
        scaled = ((i + sample[..., None]) * alpha).astype(np.int64)
        starts = scaled - (sample * alpha).astype(np.int64)[..., None]
    if out > 0:
        starts[..., -1] = size - pool
    return starts


def _fractional_max_pool_nd(n: int) -> Callable[..., tuple[Array, Array]]:
    # which random sample drives each spatial axis: 2-d reads (W, H), 3-d reads (T, H, W)
    sample_of_axis = (1, 0) if n == 2 else (0, 1, 2)

    def pool(self: Array, kernel_size: IntArg, output_size: IntArg,
             random_samples: Array) -> tuple[Array, Array]:
        kernel, sizes = _ints(kernel_size, n), _ints(output_size, n)
        batched = self if self.ndim == n + 2 else self[None]
        planes = batched.shape[0] * batched.shape[1]
        spatial = batched.shape[2:]
        shape = (*self.shape[:-n], *sizes)
        if planes == 0:
            return np.empty(shape, self.dtype), np.empty(shape, np.int64)
        samples = random_samples.reshape(planes, n)
        names = ("height", "width") if n == 2 else ("time", "height", "width")
        for name, size, k, out in zip(names, spatial, kernel, sizes):
            if out + k - 1 > size:  # eager runs no shape rule: the kernel refuses as torch does
                raise ValueError(f"fractional_max_pool{n}d(): pool {name} {k} too large relative to input "
                                 f"{name} {size}")
        flat: Any = 0
        for axis in range(n):  # window element positions of each axis, broadcast over the others
            starts = _fractional_starts(samples[:, sample_of_axis[axis]], spatial[axis], sizes[axis], kernel[axis])
            taps = starts[..., None] + np.arange(kernel[axis])  # [P, out, k]
            spread = [planes, *[1] * n, *[1] * n]
            spread[1 + axis], spread[1 + n + axis] = sizes[axis], kernel[axis]
            flat = flat * spatial[axis] + taps.reshape(spread)
        flat = np.broadcast_to(flat, (planes, *sizes, *kernel)).reshape(planes, *sizes, int(np.prod(kernel)))
        windows = np.take_along_axis(batched.reshape(planes, 1, -1), flat.reshape(planes, 1, -1), axis=2)
        windows = windows.reshape(flat.shape)
        arg = _torch_argmax(windows)
        values = np.take_along_axis(windows, arg[..., None], -1)[..., 0]
        indices = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
        return values.reshape(shape), indices.reshape(shape)

    return pool


kernel("fractional_max_pool2d")(_fractional_max_pool_nd(2))
kernel("fractional_max_pool3d")(_fractional_max_pool_nd(3))


# ------------------------------------------------------- max unpooling


def _max_unpool_nd(n: int) -> Callable[..., Array]:
    def unpool(self: Array, indices: Array, output_size: IntArg, *geometry: Any) -> Array:
        """Scatter each value to its index in a zero plane of ``output_size`` (the last write wins)."""
        sizes = _ints(output_size, n)
        lead = self.shape[:-n]
        planes, plane = int(np.prod(lead)), int(np.prod(sizes))
        if planes * plane == 0:
            return np.zeros((*lead, *sizes), self.dtype)
        flat = indices.reshape(planes, -1)
        if flat.size and (flat.min() < 0 or flat.max() >= plane):
            raise IndexError(f"max_unpool{n}d: found an invalid max index {int(flat.max())} "
                             f"(output volumes are of size {'x'.join(map(str, sizes))})")
        out = np.zeros((planes, plane), self.dtype)
        out[np.arange(planes)[:, None], flat] = self.reshape(planes, -1)
        return out.reshape(*lead, *sizes)

    return unpool


kernel("max_unpool2d")(_max_unpool_nd(2))
kernel("max_unpool3d")(_max_unpool_nd(3))


# ------------------------------------------------------------- resampling


def _scale_arg(scales: Sequence[float] | None, axis: int) -> float | None:
    return None if scales is None else scales[axis]


def _out_sizes(x: Array, n: int, output_size: IntArg | None,
               scale_factors: Sequence[float] | None) -> list[int]:
    """torch's compute_output_size: explicit sizes, or floor(in * scale)."""
    if output_size is not None:
        return list(_ints(output_size, n))
    if scale_factors is None:
        raise ValueError("Must specify exactly one of output_size and scale_factors")
    return [int(s * f) for s, f in zip(x.shape[-n:], scale_factors)]


def area_pixel_scale(size: int, out: int, align_corners: bool, scale: float | None, dtype: np.dtype) -> Any:
    """torch's area_pixel_compute_scale, in the opmath dtype."""
    if align_corners:
        return dtype.type(size - 1) / dtype.type(out - 1) if out > 1 else dtype.type(0)
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)
    return dtype.type(size) / dtype.type(out)


def _source(size: int, out: int, align_corners: bool, scale: float | None, dtype: np.dtype,
            cubic: bool) -> Array:
    """torch's area_pixel_compute_source_index for every output index."""
    ratio = area_pixel_scale(size, out, align_corners, scale, dtype)
    dst = np.arange(out, dtype=dtype)
    if align_corners:
        return ratio * dst
    src = ratio * (dst + dtype.type(0.5)) - dtype.type(0.5)
    return src if cubic else np.maximum(src, 0)


def _index_and_lambda(src: Array, size: int) -> tuple[Array, Array]:
    """torch's guard_index_and_lambda."""
    index = np.minimum(np.floor(src).astype(np.int64), size - 1)
    return index, np.clip(src - index, 0, 1).astype(src.dtype)


def _linear_taps(size: int, out: int, align_corners: bool, scale: float | None,
                 dtype: np.dtype, storage: np.dtype) -> tuple[Array, Array]:
    """torch stores lambda in the input's dtype and takes 1 - lambda there (a float16
    weight pair is rounded, then used in float32)."""
    index, lam = _index_and_lambda(_source(size, out, align_corners, scale, dtype, False), size)
    upper = index + (index < size - 1)
    lam = lam.astype(storage)
    return np.stack([index, upper], 1), np.stack([1 - lam, lam], 1).astype(dtype)


def _cubic_weights(t: Array) -> Array:
    """torch's get_cubic_upsample_coefficients (A = -0.75) for taps -1, 0, 1, 2."""
    a = -0.75

    def near(x: Array) -> Array:
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Array) -> Array:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], -1).astype(t.dtype)


def _cubic_taps(size: int, out: int, align_corners: bool, scale: float | None,
                dtype: np.dtype, storage: np.dtype) -> tuple[Array, Array]:
    """torch computes the weights in the opmath dtype and stores them in the input's."""
    index, lam = _index_and_lambda(_source(size, out, align_corners, scale, dtype, True), size)
    taps = np.clip(index[:, None] + np.arange(-1, 3), 0, size - 1)  # upsample_get_value_bounded
    return taps, _cubic_weights(lam).astype(storage).astype(dtype)


def _resample_axis(x: Array, axis: int, taps: Array, weights: Array) -> Array:
    """out[..., o, ...] = sum_t x[..., taps[o, t], ...] * weights[o, t]."""
    gathered = np.moveaxis(x, axis, -1)[..., taps]
    return np.moveaxis(np.einsum("...ot,ot->...o", gathered, weights), -1, axis)


TapMaker = Callable[[int, int, bool, float | None, np.dtype, np.dtype], tuple[Array, Array]]


def _uint8_weights(size: int, out: int, align_corners: bool, scale: float | None,
                   taps: TapMaker) -> tuple[Array, int]:
    """torch's uint8 resampling weights along one axis: the float taps merged per input
    index into a dense [out, size] matrix, rounded to int16 fixed point at the largest
    precision (< 22 bits) its biggest weight allows; returns (weights, precision)."""
    index, weights = taps(size, out, align_corners, scale, np.dtype(np.float64), np.dtype(np.float64))
    dense = np.zeros((out, size))
    np.add.at(dense, (np.arange(out)[:, None], index), weights)
    fits = 0.5 + dense.max() * (1 << (np.arange(22) + 1)) < 1 << 15
    precision = int(fits.sum())
    return np.trunc(dense * (1 << precision) + np.where(dense < 0, -0.5, 0.5)).astype(np.int64), precision


def _interpolate_uint8(x: Array, sizes: Sequence[int], align_corners: bool,
                       scales: Sequence[float | None], taps: TapMaker) -> Array:
    """torch's uint8 path: one fixed-point pass per axis (W first), each rounded and
    saturated back to uint8 before the next."""
    out = x
    n = len(sizes)
    for j in reversed(range(n)):
        axis = x.ndim - n + j
        weights, precision = _uint8_weights(x.shape[axis], sizes[j], align_corners, scales[j], taps)
        acc = np.tensordot(out.astype(np.int64), weights, axes=([axis], [1]))
        acc = np.moveaxis(acc, -1, axis) + (1 << (precision - 1))
        out = np.clip(acc >> precision, 0, 255).astype(np.uint8)
    return out


def _interpolate(x: Array, sizes: Sequence[int], align_corners: bool,
                 scales: Sequence[float | None], taps: TapMaker) -> Array:
    """Separable interpolation, innermost (W) axis first as torch's kernels do."""
    if x.dtype == np.uint8:
        return _interpolate_uint8(x, sizes, align_corners, scales, taps)
    dtype = opmath_dtype(x.dtype)
    out = x.astype(dtype, copy=False)
    n = len(sizes)
    for j in reversed(range(n)):
        axis = x.ndim - n + j
        index, weights = taps(x.shape[axis], sizes[j], align_corners, scales[j], dtype, x.dtype)
        out = _resample_axis(out, axis, index, weights)
    return out.astype(x.dtype, copy=False)


@functools.lru_cache(maxsize=512)
def _nearest_index(size: int, target: int, scale: float | None, exact: bool) -> Array:
    """torch's nearest_idx (remembered per sizes, read-only): out == in copies, out ==
    2*in halves, else min(floor(dst * scale), in - 1) in float32; nearest-exact
    (nearest_exact_idx) is min(floor((dst + 0.5) * scale), in - 1)."""
    return read_only(_nearest_source(size, target, scale, exact))


def _nearest_source(size: int, target: int, scale: float | None, exact: bool) -> Array:
    dst = np.arange(target)
    ratio = area_pixel_scale(size, target, False, scale, np.dtype(np.float32))
    if exact:
        source = ((dst + 0.5) * np.float64(ratio)).astype(np.float32)
    elif target == size:
        return dst
    elif target == 2 * size:
        return dst >> 1
    else:
        source = dst.astype(np.float32) * ratio
    return np.minimum(np.floor(source).astype(np.int64), size - 1)


def _nearest(x: Array, sizes: Sequence[int], scales: Sequence[float | None], exact: bool = False) -> Array:
    out = x
    n = len(sizes)
    for j in range(n):
        axis = x.ndim - n + j
        out = out.take(_nearest_index(x.shape[axis], sizes[j], scales[j], exact), axis=axis)
    return out if out is not x else x.copy()


def _nearest_sized(n: int, exact: bool) -> Callable[..., Array]:
    def upsample(self: Array, output_size: IntArg, *scales: float | None) -> Array:
        return _nearest(self, _ints(output_size, n), [*scales, *[None] * (n - len(scales))], exact)

    return upsample


def _nearest_vec(n: int, exact: bool) -> Callable[..., Array]:
    def upsample(input: Array, output_size: IntArg | None,  # noqa: A002
                 scale_factors: Sequence[float] | None) -> Array:
        sizes = _out_sizes(input, n, output_size, scale_factors)
        return _nearest(input, sizes, [_scale_arg(scale_factors, j) for j in range(n)], exact)

    return upsample


for _n in (1, 2, 3):
    kernel(f"upsample_nearest{_n}d")(_nearest_sized(_n, False))
    kernel(f"upsample_nearest{_n}d.vec")(_nearest_vec(_n, False))
    kernel(f"_upsample_nearest_exact{_n}d")(_nearest_sized(_n, True))
    kernel(f"_upsample_nearest_exact{_n}d.vec")(_nearest_vec(_n, True))


def _interpolate_sized(n: int, taps: TapMaker) -> Callable[..., Array]:
    def upsample(self: Array, output_size: IntArg, align_corners: bool, *scales: float | None) -> Array:
        return _interpolate(self, _ints(output_size, n), align_corners,
                            [*scales, *[None] * (n - len(scales))], taps)

    return upsample


def _interpolate_vec(n: int, taps: TapMaker) -> Callable[..., Array]:
    def upsample(input: Array, output_size: IntArg | None, align_corners: bool,  # noqa: A002
                 scale_factors: Sequence[float] | None) -> Array:
        sizes = _out_sizes(input, n, output_size, scale_factors)
        scales = [_scale_arg(scale_factors, j) for j in range(n)]
        return _interpolate(input, sizes, align_corners, scales, taps)

    return upsample


def _aa_taps(interp_size: int, filter_fn: Callable[[Array], Array]) -> TapMaker:
    """torch's antialiased taps (PIL's): output i centred at scale·(i + 0.5) reads the
    inputs within support = interp_size/2 (times scale when downscaling) of it, weighed
    by the filter at the distance (divided by scale when downscaling), normalised to sum 1."""
    def taps(size: int, out: int, align_corners: bool, scale: float | None, dtype: np.dtype,
             storage: np.dtype) -> tuple[Array, Array]:
        ratio = area_pixel_scale(size, out, align_corners, scale, dtype)  # all in the opmath dtype, as torch
        one, half = dtype.type(1), dtype.type(0.5)
        support = dtype.type(interp_size / 2) * (ratio if ratio >= 1 else one)
        inverse = one / ratio if ratio >= 1 else one
        center = ratio * (np.arange(out, dtype=dtype) + half)
        low = np.maximum((center - support + half).astype(np.int64), 0)  # C++ casts truncate
        count = np.minimum((center + support + half).astype(np.int64), size) - low
        offsets = np.arange(max(int(count.max()), 1))
        inside = offsets < count[:, None]
        distance = ((low[:, None] + offsets).astype(dtype) - center[:, None] + half) * inverse
        weights = np.where(inside, filter_fn(distance), 0).astype(dtype)
        total = weights.sum(1, keepdims=True)
        weights = np.where(total != 0, weights / np.where(total != 0, total, 1), weights)
        index = np.where(inside, low[:, None] + offsets, 0)
        return index, weights.astype(dtype)

    return taps


def _triangle(x: Array) -> Array:
    return np.maximum(1 - np.abs(x), 0)


def _pil_cubic(x: Array) -> Array:
    """PIL's bicubic filter (a = -0.5)."""
    a, x = -0.5, np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return np.where(x < 1, near, np.where(x < 2, far, 0))


def _linear_taps_opmath(size: int, out: int, align_corners: bool, scale: float | None,
                        dtype: np.dtype, storage: np.dtype) -> tuple[Array, Array]:
    """bilinear2d's kernel keeps its float16 weights in float32."""
    return _linear_taps(size, out, align_corners, scale, dtype, dtype)


def _remembered(taps: TapMaker) -> TapMaker:
    """``taps``, computed once per axis size, output size, alignment, scale and dtypes:
    models resample the same sizes call after call, and building the taps (a dozen small
    numpy calls) cost more than resampling a small tensor. The arrays are read-only."""

    @functools.lru_cache(maxsize=512)
    def remembered(*args: Any) -> tuple[Array, Array]:
        return tuple(read_only(array) for array in taps(*args))

    return remembered


for _name, _n, _taps in (("upsample_linear1d", 1, _linear_taps), ("upsample_bilinear2d", 2, _linear_taps_opmath),
                         ("upsample_trilinear3d", 3, _linear_taps), ("upsample_bicubic2d", 2, _cubic_taps),
                         ("_upsample_bilinear2d_aa", 2, _aa_taps(2, _triangle)),
                         ("_upsample_bicubic2d_aa", 2, _aa_taps(4, _pil_cubic))):
    kernel(_name)(_interpolate_sized(_n, _remembered(_taps)))
    kernel(f"{_name}.vec")(_interpolate_vec(_n, _remembered(_taps)))


# ------------------------------------------------------------ grid sampler

_BILINEAR, _NEAREST, _BICUBIC = 0, 1, 2
_ZEROS, _BORDER, _REFLECTION = 0, 1, 2


def _unnormalize(coord: Array, size: int, align_corners: bool) -> Array:
    """[-1, 1] -> pixel coordinates: corner pixel centres, or the image edges."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Array, twice_low: int, twice_high: int) -> Array:
    """torch's reflect_coordinates over [twice_low/2, twice_high/2]."""
    if twice_low == twice_high:
        return np.zeros_like(coord)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = np.abs(coord - low)
    extra = np.fmod(distance, span)
    flips = np.floor(distance / span)
    return np.where(flips % 2 == 0, extra + low, span - extra + low).astype(coord.dtype)


def _pad_coordinates(coord: Array, size: int, padding_mode: int, align_corners: bool) -> Array:
    """torch's compute_coordinates: border clips, reflection mirrors then clips."""
    if padding_mode == _BORDER:
        return np.clip(coord, 0, size - 1)
    if padding_mode == _REFLECTION:
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        return np.clip(_reflect(coord, *twice), 0, size - 1)
    return coord


def _grid_taps(coord: Array, size: int, mode: int, padding_mode: int,
               align_corners: bool) -> tuple[Array, Array]:
    """Integer tap positions [..., T] and their weights along one axis."""
    pixel = _unnormalize(coord, size, align_corners)
    if mode == _BICUBIC:
        base = np.floor(pixel)
        offsets = base[..., None] + np.arange(-1, 3, dtype=pixel.dtype)
        taps = _pad_coordinates(offsets, size, padding_mode, align_corners)
        return np.trunc(taps).astype(np.int64), _cubic_weights(pixel - base)
    pixel = _pad_coordinates(pixel, size, padding_mode, align_corners)
    if mode == _NEAREST:
        return np.rint(pixel).astype(np.int64)[..., None], np.ones_like(pixel)[..., None]
    base = np.floor(pixel)
    taps = base.astype(np.int64)[..., None] + np.arange(2)
    return taps, np.stack([(base + 1) - pixel, pixel - base], -1)  # torch's (ix_se - ix), (ix - ix_nw)


@kernel("grid_sampler", "grid_sampler_2d", "grid_sampler_3d")
def grid_sampler(input: Array, grid: Array, interpolation_mode: int,  # noqa: A002
                 padding_mode: int, align_corners: bool) -> Array:
    """Sample input [N, C, *in] at grid [N, *out, k] whose last axis lists (x, y[, z]), the innermost
    input axis first; every tap outside the input reads 0."""
    # torch's half kernels locate taps in half precision (each step rounded); its scalar
    # bilinear kernel also weighs and sums in half, tap by tap; the others sum in float32
    in_half = grid.dtype == np.float16
    half_sum = in_half and interpolation_mode == _BILINEAR
    x, g = opmath(input), grid if in_half else opmath(grid)
    n, c, *sizes = x.shape
    k, out = len(sizes), g.shape[1:-1]
    flat: Any = 0
    valid: Any = True
    axis_weights = []
    for axis, size in enumerate(sizes):
        taps, weights = _grid_taps(g[..., k - 1 - axis], size, interpolation_mode, padding_mode, align_corners)
        spread = [n, *out, *[1] * k]
        spread[1 + len(out) + axis] = -1  # this axis's taps on their own trailing dim
        taps = taps.reshape(spread)
        axis_weights.append(weights.astype(g.dtype if half_sum else x.dtype).reshape(spread))
        valid = valid & (taps >= 0) & (taps < size)
        flat = flat * size + np.clip(taps, 0, size - 1)
    weight: Any = 1
    for weights in reversed(axis_weights):  # x's weight first, as torch's (ix_se - ix) * (iy_se - iy) * ...
        weight = weight * weights
    flat = np.broadcast_to(flat, np.broadcast_shapes(np.shape(flat), np.shape(weight)))
    values = np.take_along_axis(x.reshape(n, c, -1), flat.reshape(n, 1, -1), axis=2)
    values = values.reshape(n, c, *flat.shape[1:])
    if half_sum:
        return _sum_taps_in_half(values.astype(np.float16), weight, valid, k).astype(input.dtype, copy=False)
    values = values * (valid * weight)[:, None]
    return values.sum(axis=tuple(range(-k, 0))).astype(input.dtype, copy=False)


def _sum_taps_in_half(values: Array, weight: Array, valid: Array, k: int) -> Array:
    """torch's scalar loop: out = 0, then out += value * weight for each tap inside the
    input (taps in row-major order: nw, ne, sw, se), every product and sum rounded."""
    values = values.reshape(*values.shape[:-k], -1)
    weight, valid = weight.reshape(*weight.shape[:-k], -1)[:, None], valid.reshape(*valid.shape[:-k], -1)[:, None]
    total = np.zeros(values.shape[:-1], np.float16)
    for tap in range(values.shape[-1]):
        term = np.where(valid[..., tap], values[..., tap] * weight[..., tap], np.float16(0))
        total = (total + term).astype(np.float16)
    return total


def _linspace_from_neg_one(steps: int, align_corners: bool, dtype: np.dtype) -> Array:
    """Pixel centres in [-1, 1]: the corners themselves, or half a pixel inside them."""
    if steps <= 1:
        return np.zeros(max(steps, 1), dtype)
    end = 1.0 if align_corners else (steps - 1) / steps
    return np.linspace(-end, end, steps).astype(dtype)


@kernel("affine_grid_generator")
def affine_grid_generator(theta: Array, size: IntArg, align_corners: bool) -> Array:
    """grid[n, *p] = theta[n] @ (x, y[, z], 1) at each output pixel p, coordinates in [-1, 1]."""
    spatial = list(size)[2:]
    dtype = opmath_dtype(theta.dtype)
    axes = [_linspace_from_neg_one(s, align_corners, dtype) for s in spatial]
    coords = np.meshgrid(*axes, indexing="ij")
    base = np.stack([*reversed(coords), np.ones(spatial, dtype)], -1)
    grid = np.einsum("...j,nij->n...i", base, theta.astype(dtype))
    return grid.astype(theta.dtype, copy=False)


# ---------------------------------------------------------- im2col/col2im


@kernel("im2col")
def im2col(self: Array, kernel_size: IntArg, dilation: IntArg, padding: IntArg,
           stride: IntArg) -> Array:
    """F.unfold: [N?, C, H, W] -> [N?, C*kh*kw, L], rows ordered (c, ki, kj)."""
    x = self if self.ndim == 4 else self[None]
    pad = _ints(padding, 2)
    cols, _ = _im2col(x, _ints(kernel_size, 2), _ints(stride, 2), [(p, p) for p in pad],
                      _ints(dilation, 2), 1)
    out = cols[:, 0]
    return out if self.ndim == 4 else out[0]


@kernel("col2im")
def col2im(self: Array, output_size: IntArg, kernel_size: IntArg, dilation: IntArg,
           padding: IntArg, stride: IntArg) -> Array:
    """F.fold: [N?, C*kh*kw, L] -> [N?, C, *output_size], overlapping blocks summed."""
    sizes, kernel_ = _ints(output_size, 2), _ints(kernel_size, 2)
    dil, pad, strides = _ints(dilation, 2), _ints(padding, 2), _ints(stride, 2)
    blocks = [(s + 2 * p - d * (k - 1) - 1) // st + 1
              for s, p, d, k, st in zip(sizes, pad, dil, kernel_, strides)]
    lead = self.shape[:-2]
    cols = self.reshape(*lead, self.shape[-2] // int(np.prod(kernel_)), *kernel_, *blocks)
    grid = [s + 2 * p for s, p in zip(sizes, pad)]
    return _crop_last(_col2im(cols, grid, strides, dil), pad, sizes)


# ---------------------------------------------------------------- padding


def _pad_pairs(pad: Sequence[int]) -> Pairs:
    """torch's flat pad list (last dim first) as (low, high) pairs, outermost dim first."""
    pairs = [(int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(len(pad) // 2)]
    return pairs[::-1]


@kernel("constant_pad_nd")
def constant_pad_nd(self: Array, pad: Sequence[int], value: Any = 0) -> Array:
    """Pad with ``value``; negative pads crop."""
    try:
        shape, dst, src = _constant_pad_plan(self.shape, _hashable(pad))
    except TypeError:  # a pad that cannot be a cache key (symbolic sizes...)
        shape, dst, src = _constant_pad_geometry(self.shape, pad)
    if _is_positive_zero(value):
        out = np.zeros(shape, dtype=self.dtype)  # np.full's fill, cheaper
    else:
        out = np.full(shape, value, dtype=self.dtype)
    if dst is not None:
        out[dst] = self[src]
    return out


def _constant_pad_geometry(shape: Sequence[int], pad: Sequence[int]) -> tuple[tuple[int, ...], Any, Any]:
    """(out shape, where the input goes, what of it goes there), None when nothing does."""
    pairs = _pad_pairs(pad)
    lead = len(shape) - len(pairs)
    out = (*shape[:lead], *(s + lo + hi for s, (lo, hi) in zip(shape[lead:], pairs)))
    src = [slice(max(-lo, 0), s - max(-hi, 0)) for s, (lo, hi) in zip(shape[lead:], pairs)]
    dst = [slice(max(lo, 0), o - max(hi, 0)) for o, (lo, hi) in zip(out[lead:], pairs)]
    if all(d.stop > d.start for d in dst):
        return out, (Ellipsis, *dst), (Ellipsis, *src)
    return out, None, None


_constant_pad_plan = functools.lru_cache(maxsize=512)(_constant_pad_geometry)  # per input shape and pads


def _is_positive_zero(value: Any) -> bool:
    """A fill np.zeros gives: 0, False or +0.0 (not -0.0, not a 0-d array)."""
    kind = type(value)
    return (kind is int or kind is bool or kind is float and math.copysign(1.0, value) > 0) and value == 0


def _reflect_index(size: int, lo: int, hi: int) -> Array:
    """torch's reflection_pad source index for each output position (pad < size)."""
    j = np.arange(size + lo + hi)
    src = np.where(j < lo, 2 * lo - j, np.where(j < size + lo, j, 2 * (size + lo - 1) - j))
    return src - max(lo, 0) + max(-lo, 0)


def _replicate_index(size: int, lo: int, hi: int) -> Array:
    j = np.arange(size + lo + hi)
    return np.clip(j - lo, 0, size - 1)


def _circular_index(size: int, lo: int, hi: int) -> Array:
    """torch's _pad_circular: a negative pad crops first; the kept part then wraps around."""
    start = max(-lo, 0)
    kept = size - start - max(-hi, 0)
    left, right = max(lo, 0), max(hi, 0)
    return (np.arange(kept + left + right) - left) % kept + start


_EDGE_INDEX = {"reflect": _reflect_index, "replicate": _replicate_index,
               "circular": _circular_index}


def _edge_pad(x: Array, pad: Sequence[int], mode: str) -> Array:
    """Reflect/replicate/circular pads of the last len(pad)//2 dims: one gather per dim,
    or one over the padded dims flattened (a remembered plan's)."""
    try:
        plan = _edge_pad_plan(x.shape, _hashable(pad), mode)
    except TypeError:  # a pad that cannot be a cache key
        plan = None
    if plan is not None:
        planes, index, shape = plan
        return x.reshape(planes).take(index, axis=-1).reshape(shape)
    out = x
    for axis, index in _edge_gathers(x.shape, pad, mode):
        out = out.take(index, axis=axis)
    return out if out is not x else x.copy()


def _edge_gathers(shape: Sequence[int], pad: Sequence[int], mode: str) -> tuple[tuple[int, Array], ...]:
    """(axis, source index) per padded dim, outermost first."""
    pairs = _pad_pairs(pad)
    axes = range(len(shape) - len(pairs), len(shape))
    return tuple((axis, _EDGE_INDEX[mode](shape[axis], lo, hi)) for axis, (lo, hi) in zip(axes, pairs))


# The most elements the flat gather index of a remembered edge pad holds (one padded
# plane's, 512 KiB; larger planes take one gather per dim): with the cache's 128 plans,
# at most 64 MiB of indices.
EDGE_INDEX_ELEMENTS = 1 << 16


@functools.lru_cache(maxsize=128)
def _edge_pad_plan(shape: tuple[int, ...], pad: Any, mode: str) -> tuple[tuple[int, ...], Array, tuple[int, ...]] | None:
    """The pad as one gather, remembered per input shape, pads and mode: (the input's
    shape with the padded dims flattened, the flat source of each element of an output
    plane (read-only), the output shape). Building the per-dim indices cost several
    numpy calls per dim, more than gathering a small input; one gather over the flat
    plane also reads faster than one per dim (a 4x64x56x56 reflect pad: 1.0 -> 0.6 ms).
    None for no padded dim or more than the input has, a plane over EDGE_INDEX_ELEMENTS,
    or a source index outside its dim (a pad too large for it: the per-dim gathers fail
    or wrap as they did)."""
    if not 0 < len(pad) // 2 <= len(shape):
        return None
    gathers = _edge_gathers(shape, pad, mode)
    if math.prod(len(index) for _, index in gathers) > EDGE_INDEX_ELEMENTS:
        return None
    flat = np.zeros((), np.intp)
    for axis, index in gathers:
        if index.size and (index.min() < 0 or index.max() >= shape[axis]):
            return None
        flat = np.add.outer(flat * shape[axis], index)
    lead = shape[:gathers[0][0]]
    source = read_only(flat.reshape(-1))
    return (*lead, math.prod(shape[len(lead):])), source, (*lead, *flat.shape)


def _edge_pad_op(n: int, mode: str) -> Callable[[Array, Sequence[int]], Array]:
    def pad(self: Array, padding: Sequence[int]) -> Array:
        if len(padding) != 2 * n:
            raise ValueError(f"padding size is expected to be {2 * n}, but got: {len(padding)}")
        return _edge_pad(self, padding, mode)

    return pad


for _n in (1, 2, 3):
    kernel(f"reflection_pad{_n}d")(_edge_pad_op(_n, "reflect"))
for _n in (1, 2, 3):
    kernel(f"replication_pad{_n}d")(_edge_pad_op(_n, "replicate"))


@kernel("pad")
def pad(self: Array, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> Array:
    """F.pad: 'constant' (negative pads crop) | 'reflect' | 'replicate' | 'circular'."""
    if mode == "constant":
        return constant_pad_nd(self, pad, 0 if value is None else value)
    if mode not in _EDGE_INDEX:
        raise ValueError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise ValueError(f'Padding mode "{mode}" doesn\'t take in value argument')
    return _edge_pad(self, pad, mode)


# ----------------------------------------------------------- pixel shuffle


@kernel("pixel_shuffle")
def pixel_shuffle(self: Array, upscale_factor: int) -> Array:
    """[..., C*r*r, H, W] -> [..., C, H*r, W*r]: out[c, h*r+i, w*r+j] = in[c*r*r+i*r+j, h, w]."""
    r, lead = upscale_factor, self.shape[:-3]
    c, h, w = self.shape[-3:]
    x = self.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    x = x.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r).copy()


@kernel("pixel_unshuffle")
def pixel_unshuffle(self: Array, downscale_factor: int) -> Array:
    """[..., C, H*r, W*r] -> [..., C*r*r, H, W], the inverse of pixel_shuffle."""
    r, lead = downscale_factor, self.shape[:-3]
    c, h, w = self.shape[-3:]
    x = self.reshape(*lead, c, h // r, r, w // r, r)
    k = len(lead)
    x = x.transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r).copy()


@kernel("channel_shuffle", "native_channel_shuffle")
def channel_shuffle(self: Array, groups: int) -> Array:
    """[N, g*k, *] -> [N, k*g, *]: out[:, j*g + i] = in[:, i*k + j]."""
    check_arguments("channel_shuffle", self, groups)
    n, c, *rest = self.shape
    x = self.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
    return np.ascontiguousarray(x.reshape(self.shape))


@kernel("conv_tbc")
def conv_tbc(self: Array, weight: Array, bias: Array, pad: int = 0) -> Array:
    """out[t, b, o] = bias[o] + sum_{k, i} in[t + k - pad, b, i] weight[k, i, o] (zero outside)."""
    check_arguments("conv_tbc", self, weight, bias, pad)
    x = opmath(self)
    padded = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
    width = weight.shape[0]
    windows = sliding_window_view(padded, width, axis=0)  # [T_out, B, C_in, K]
    out = np.einsum("tbik,kio->tbo", windows, opmath(weight)) + opmath(bias)
    return out.astype(self.dtype)
