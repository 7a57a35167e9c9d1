"""Convolution as one matrix product per kernel offset, each read in place from the
zero-padded input: no im2col copy.

Stride 1 first. Flatten the padded input's spatial dims into one axis (row-major,
steps ``step[i]``). Keep each output row as wide as a padded input row (the "wide"
grid: ``out[0]`` rows of ``prod(padded[1:])`` positions). Kernel offset k then
reads, for every wide position, the flat input shifted by one constant
``shift(k) = sum_i k_i * dilation_i * step[i]``, so

    out_wide[O, L] += weight[:, :, k] [O, C] @ x_flat[C, shift(k) : shift(k) + L]

is one BLAS gemm on a window of the flat input, in place (rows of ``C`` channels,
leading dimension the flat length) with beta = 1 (interpreter/blas.py). The wide
grid's extra ``dilation * (kernel - 1)`` positions per row are computed and dropped.

Stride s: the padded input is split into its ``prod(s)`` phase planes (plane r holds
the positions ``s * y + r``); offset k reads plane ``(k * d) mod s`` shifted by
``(k * d) // s``, again a stride-1 read. The planes, zero-filled to one common
shape, are written in one pass over the input: the copy padding costs anyway.

Against im2col (conv_pool.py's ``_conv``): the same multiply-adds, as ``prod(k)``
gemms with K = C instead of one with K = C * prod(k), plus the extra positions; no
im2col copy (``prod(k) / prod(s)`` times the input, single-threaded). Measured with
2 threads on ResNet18's 3x3 layers (``benchmarks/conv.py``), this wins where C is in
the tens or more and rows are wide; ``worth_it`` says where.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from .. import blas
from ..prepacked import packed

Array = np.ndarray
Pairs = list[tuple[int, int]]

# Where the offsets' gemms beat im2col (benchmarks/conv.py, 1 and 2 threads): K = C of at
# least this many channels, output rows the wide grid widens by at most this ratio, and
# each gemm's right operand (C x the wide grid) of at least this many elements. Below it
# the im2col copy is cheap and prod(k) small gemms cost more than one large one (2 threads:
# 16 channels over 16x16 3.2x slower, 128 over 14x14 1.2x; at 52-57 thousand elements even;
# 64 over 56x56, 208 thousand, 0.58x).
MIN_CHANNELS = 16
MAX_WIDENING = 1.2
MIN_WINDOW_ELEMENTS = 1 << 16


def _grid(x_shape: Sequence[int], w_shape: Sequence[int], stride: Sequence[int], pads: Pairs,
          dilation: Sequence[int]) -> tuple[list[int], list[int]]:
    """(output sizes, phase-plane sizes) per spatial dim."""
    padded = [s + lo + hi for s, (lo, hi) in zip(x_shape[2:], pads)]
    out = [(p - d * (k - 1) - 1) // st + 1 for p, k, st, d in zip(padded, w_shape[2:], stride, dilation)]
    plane = [-(-p // st) for p, st in zip(padded, stride)]
    return out, plane


def worth_it(x: Array, w: Array, stride: Sequence[int], pads: Pairs, dilation: Sequence[int],
             groups: int) -> bool:
    """This convolution runs faster here than through im2col."""
    return x.dtype == w.dtype and worth_it_for(x.shape, w.shape, x.dtype, stride, pads, dilation, groups)


def worth_it_for(x_shape: Sequence[int], w_shape: Sequence[int], dtype: np.dtype, stride: Sequence[int],
                 pads: Pairs, dilation: Sequence[int], groups: int) -> bool:
    """``worth_it`` from the shapes and the (common) dtype alone: conv_pool.py's
    per-shape plans decide with it once."""
    if groups != 1 or not blas.available(dtype) or len(w_shape) < 3:
        return False
    out, plane = _grid(x_shape, w_shape, stride, pads, dilation)
    window = x_shape[1] * out[0] * math.prod(plane[1:])
    if min(out) < 1 or x_shape[1] < MIN_CHANNELS or window < MIN_WINDOW_ELEMENTS:
        return False
    return math.prod(plane[1:]) <= MAX_WIDENING * math.prod(out[1:])


def phase_slices(size: int, low: int, phase: int, stride: int, length: int) -> tuple[slice, slice]:
    """Along one dim of an input of ``size`` padded by ``low`` in front: the plane of
    ``phase`` (plane index j is padded position ``phase + j * stride``, ``length`` of
    them) takes the input's elements at ``source`` into its positions ``inside``; the
    rest of the plane is padding. (Also max pool's planes: conv_pool.py.)"""
    first = max(0, -(-(low - phase) // stride))  # the first j inside the input ...
    last = max(first, min(length, -(-(size + low - phase) // stride)))  # ... and one past the last
    start = phase + first * stride - low
    source = slice(start, start + (last - first - 1) * stride + 1, stride) if last > first else slice(0, 0)
    return slice(first, last), source


def _phase_planes(x: Array, stride: Sequence[int], pads: Pairs, plane: Sequence[int], tail: int) -> Array:
    """[N, prod(stride), C, prod(plane) + tail]: phase r of the zero-padded input, flat,
    with ``tail`` zeros after each channel's plane (the last offsets' windows run past it)."""
    batch, channels, spatial = x.shape[0], x.shape[1], x.shape[2:]
    planes = np.zeros((batch, math.prod(stride), channels, math.prod(plane) + tail), x.dtype)
    for index, phase in enumerate(itertools.product(*(range(s) for s in stride))):
        inside, source = zip(*(phase_slices(size, low, r, s, length)
                               for size, (low, _), r, s, length in zip(spatial, pads, phase, stride, plane)))
        if all(part.stop > part.start for part in inside):
            view = planes[:, index, :, :math.prod(plane)].reshape(batch, channels, *plane)
            view[(Ellipsis, *inside)] = x[(Ellipsis, *source)]
    return planes


def _by_offset(weight: Array) -> Array:
    """[O, C, *k] -> [prod(k), O, C] contiguous: offset k's matrix is one slice."""
    return np.ascontiguousarray(weight.reshape(*weight.shape[:2], -1).transpose(2, 0, 1))


def convolution(x: Array, w: Array, stride: Sequence[int], pads: Pairs, dilation: Sequence[int]) -> Array:
    """The ungrouped convolution of x [N, C, *in] by w [O, C, *k] (``worth_it`` said
    so): [N, O, *out], contiguous."""
    out, plane = _grid(x.shape, w.shape, stride, pads, dilation)
    steps = [math.prod(plane[i + 1:]) for i in range(len(plane))]
    wide = out[0] * steps[0]
    offsets = []  # (phase plane, shift) per kernel offset, in weight order
    for kernel in itertools.product(*(range(k) for k in w.shape[2:])):
        reach = [k * d for k, d in zip(kernel, dilation)]
        phase = np.ravel_multi_index([r % s for r, s in zip(reach, stride)], stride)
        offsets.append((int(phase), sum(r // s * step for r, s, step in zip(reach, stride, steps))))
    tail = max(0, max(shift for _, shift in offsets) + wide - math.prod(plane))
    planes = _phase_planes(x, stride, pads, plane, tail)
    weights = packed(w, "by kernel offset", _by_offset)
    if weights is None:
        weights = _by_offset(w)
    result = np.empty((x.shape[0], w.shape[0], wide), x.dtype)
    for image in range(x.shape[0]):
        for index, (phase, shift) in enumerate(offsets):
            blas.gemm_into(weights[index], planes[image, phase, :, shift:shift + wide], result[image], index > 0)
    grid = result.reshape(x.shape[0], w.shape[0], out[0], *plane[1:])
    return np.ascontiguousarray(grid[(Ellipsis, *(slice(0, o) for o in out[1:]))])
