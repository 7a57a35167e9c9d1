"""The remembered per-shape plans of kernels/conv_pool.py (small convolutions, transposed
convolutions, max and average pools, constant and edge pads), each against an independent
reference: a direct formula in float64 (one einsum per kernel offset), np.pad, or a loop
over windows; and each checked to be the path the call took."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from kernel_checks import run

from texport.interpreter.kernels import KERNELS, conv_pool

RNG = np.random.default_rng(11)


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def close(actual: np.ndarray, expected: np.ndarray, dtype: Any) -> None:
    tol = 1e-5 if np.dtype(dtype) == np.float32 else 1e-12
    assert actual.dtype == np.dtype(dtype) and actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


def spatial_slices(offset: Sequence[int], dilation: Sequence[int], counts: Sequence[int],
                   stride: Sequence[int]) -> tuple[slice, ...]:
    """Positions offset * dilation + i * stride, i < count, per spatial dim."""
    return tuple(slice(k * d, k * d + (c - 1) * s + 1, s) for k, d, c, s in zip(offset, dilation, counts, stride))


def direct_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: Sequence[int],
                pads: Sequence[tuple[int, int]], dilation: Sequence[int], groups: int) -> np.ndarray:
    """y[n, o, p] = b[o] + sum over c, k of padded x[n, c, p * stride + k * dilation] w[o, c, k]."""
    n = w.ndim - 2
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), *pads])
    out = [(s - d * (k - 1) - 1) // st + 1 for s, k, st, d in zip(xp.shape[2:], w.shape[2:], stride, dilation)]
    per_in, per_out = x.shape[1] // groups, w.shape[0] // groups
    y = np.zeros((x.shape[0], w.shape[0], *out))
    for offset in np.ndindex(*w.shape[2:]):
        taps = xp[(slice(None), slice(None), *spatial_slices(offset, dilation, out, stride))]
        for g in range(groups):
            weight = w[(slice(g * per_out, (g + 1) * per_out), slice(None), *offset)].astype(np.float64)
            y[:, g * per_out:(g + 1) * per_out] += np.einsum("nc...,oc->no...", taps[:, g * per_in:(g + 1) * per_in],
                                                             weight)
    return y if b is None else y + b.reshape(-1, *(1,) * n)


def direct_conv_transpose(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: Sequence[int],
                          padding: Sequence[int], output_padding: Sequence[int], dilation: Sequence[int],
                          groups: int) -> np.ndarray:
    """The scatter definition: x[n, c, i] w[c, o, k] lands at i * stride + k * dilation - padding."""
    n = w.ndim - 2
    spatial, kernel = x.shape[2:], w.shape[2:]
    out = [(s - 1) * st - 2 * p + d * (k - 1) + op + 1
           for s, st, p, d, k, op in zip(spatial, stride, padding, dilation, kernel, output_padding)]
    full = [max((s - 1) * st + d * (k - 1) + 1, p + o) for s, st, d, k, p, o in
            zip(spatial, stride, dilation, kernel, padding, out)]
    per_in, per_out = x.shape[1] // groups, w.shape[1]
    y = np.zeros((x.shape[0], groups * per_out, *full))
    for offset in np.ndindex(*kernel):
        target = spatial_slices(offset, dilation, spatial, stride)
        for g in range(groups):
            weight = w[(slice(g * per_in, (g + 1) * per_in), slice(None), *offset)].astype(np.float64)
            y[(slice(None), slice(g * per_out, (g + 1) * per_out), *target)] += np.einsum(
                "nc...,co->no...", x[:, g * per_in:(g + 1) * per_in].astype(np.float64), weight)
    y = y[(Ellipsis, *(slice(p, p + o) for p, o in zip(padding, out)))]
    return y if b is None else y + b.reshape(-1, *(1,) * n)


def conv_plan_kind(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: list[int], padding: Any,
                   dilation: list[int], groups: int) -> str:
    plan = conv_pool._planned_conv(x, w, b, stride, padding, dilation, groups)
    return "general" if plan is None else plan.__qualname__.split(".")[0]


# ------------------------------------------------------------ convolution

CONV_CASES = [  # x shape, w shape, stride, padding, dilation, groups, the planned path
    ((1, 3, 13, 10), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, "_wide_forward"),
    ((2, 4, 7, 6), (6, 2, 3, 2), [1, 1], [2, 1], [2, 1], 2, "_wide_forward"),
    ((1, 16, 14, 14), (8, 16, 3, 3), [1, 1], [0, 0], [1, 1], 1, "_wide_forward"),
    ((1, 2, 4, 6, 8), (3, 2, 2, 2, 2), [1, 1, 1], [0, 0, 0], [1, 1, 1], 1, "_wide_forward"),
    ((1, 2, 5, 4, 6), (3, 2, 2, 3, 2), [1, 1, 1], [1, 0, 1], [1, 1, 2], 1, "_matmul_forward"),
    ((2, 4, 8, 8), (8, 4, 3, 3), [2, 2], [1, 1], [1, 1], 1, "_matmul_forward"),
    ((1, 8, 14, 14), (16, 8, 3, 3), [2, 1], [0, 1], [1, 1], 1, "_matmul_forward"),
    ((2, 32, 8, 8), (32, 1, 3, 3), [1, 1], [1, 1], [1, 1], 32, "_wide_forward"),  # depthwise
    ((2, 32, 8, 8), (32, 1, 3, 3), [2, 2], [1, 1], [1, 1], 32, "_matmul_forward"),
    ((2, 3, 5, 4), (40, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, "_matmul_forward"),  # over WIDE_MAX_OUTPUTS
    ((2, 1, 64), (8, 1, 9), [2], [4], [1], 1, "_matmul_forward"),
    ((2, 8, 34), (8, 8, 2), [1], [0], [2], 1, "_matmul_forward"),
    ((2, 6, 5, 4), (6, 3, 1, 1), [1, 1], [0, 0], [1, 1], 2, "_matmul_forward"),  # pointwise
    ((2, 4, 8, 7), (8, 4, 1, 1), [2, 3], [0, 0], [1, 1], 1, "_matmul_forward"),  # pointwise, strided
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize(("x_shape", "w_shape", "stride", "padding", "dilation", "groups", "path"), CONV_CASES)
def test_a_planned_convolution_is_the_direct_sum(x_shape, w_shape, stride, padding, dilation, groups, path, bias,
                                                 dtype) -> None:
    x, w = rand(*x_shape, dtype=dtype), rand(*w_shape, dtype=dtype)
    b = rand(w_shape[0], dtype=dtype) if bias else None
    assert conv_plan_kind(x, w, b, stride, padding, dilation, groups) == path
    n = len(w_shape) - 2
    want = direct_conv(x, w, b, stride, [(p, p) for p in padding], dilation, groups)
    for _ in range(2):  # the plan's first call and a remembered one
        got = run(f"conv{n}d", x, w, b, stride, padding, dilation, groups)
        close(got, want, dtype)
        assert got.flags.c_contiguous
    close(run("convolution", x, w, b, stride, padding, dilation, False, [0] * n, groups), want, dtype)


@pytest.mark.parametrize("padding", ["same", "valid"])
def test_a_planned_string_padding_is_the_direct_sum(padding: str) -> None:
    """'same': total d*(k-1), the odd remainder on the right."""
    x, w, b = rand(2, 3, 9, 8), rand(4, 3, 4, 3), rand(4)
    assert conv_plan_kind(x, w, b, [1, 1], padding, [2, 1], 1) != "general"
    pads = [(3, 3), (1, 1)] if padding == "same" else [(0, 0), (0, 0)]
    close(run("conv2d.padding", x, w, b, [1, 1], padding, [2, 1], 1), direct_conv(x, w, b, [1, 1], pads, [2, 1], 1),
          np.float32)


def test_a_planned_convolution_reads_a_strided_input() -> None:
    """A transposed (non row-major) input: padded or not, its values, not its memory order."""
    x = np.ascontiguousarray(rand(1, 4, 9, 7).swapaxes(2, 3)).swapaxes(2, 3)
    w = rand(4, 4, 3, 3)
    for padding in ([1, 1], [0, 0]):
        want = direct_conv(x, w, None, [1, 1], [(p, p) for p in padding], [1, 1], 1)
        close(KERNELS["conv2d"](x, w, None, [1, 1], padding, [1, 1], 1), want, np.float32)


@pytest.mark.parametrize(("dtype", "bias_dtype", "x_shape"), [
    (np.float16, np.float16, (1, 3, 6, 5)),  # reduced floats compute in float32 (opmath)
    (np.float32, np.float64, (1, 3, 6, 5)),  # a bias of another dtype
    (np.float32, np.float32, (3, 6, 5)),  # unbatched
    (np.float32, np.float32, (0, 3, 6, 5)),  # empty
])
def test_what_no_plan_takes_runs_the_general_path(dtype, bias_dtype, x_shape) -> None:
    x, w, b = rand(*x_shape, dtype=dtype), rand(4, 3, 3, 3, dtype=dtype), rand(4, dtype=bias_dtype)
    assert conv_pool._planned_conv(x, w, b, [1, 1], [1, 1], [1, 1], 1) is None
    got = KERNELS["conv2d"](x, w, b, [1, 1], [1, 1], [1, 1], 1)
    batched = x if x.ndim == 4 else x[None]
    want = direct_conv(batched, w, b, [1, 1], [(1, 1), (1, 1)], [1, 1], 1)
    np.testing.assert_allclose(got, want if x.ndim == 4 else want[0], rtol=2e-3, atol=2e-3)


def test_a_malformed_convolution_fails_as_before() -> None:
    """Channels that do not match the weight: no plan, the general path's error."""
    x, w = rand(1, 5, 6, 6), rand(4, 3, 3, 3)
    assert conv_pool._planned_conv(x, w, None, [1, 1], [1, 1], [1, 1], 1) is None
    with pytest.raises(ValueError):
        KERNELS["conv2d"](x, w, None, [1, 1], [1, 1], [1, 1], 1)


def test_the_plan_follows_the_im2col_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan remembered under one IM2COL_BLOCK_BYTES is not taken under another: the
    row-block path runs when the budget shrinks (as the tests patching it expect)."""
    x, w = rand(2, 2, 7, 6, dtype=np.float64), rand(4, 2, 3, 2, dtype=np.float64)
    assert conv_plan_kind(x, w, None, [1, 1], [1, 1], [1, 1], 1) != "general"
    monkeypatch.setattr(conv_pool, "IM2COL_BLOCK_BYTES", 200)
    assert conv_plan_kind(x, w, None, [1, 1], [1, 1], [1, 1], 1) == "general"
    close(KERNELS["conv2d"](x, w, None, [1, 1], [1, 1], [1, 1], 1),
          direct_conv(x, w, None, [1, 1], [(1, 1), (1, 1)], [1, 1], 1), np.float64)


# --------------------------------------------------- transposed convolution

TRANSPOSED_CASES = [  # x shape, w shape, stride, padding, output padding, dilation, groups, path
    ((3, 16, 4, 4), (16, 8, 4, 4), [2, 2], [1, 1], [0, 0], [1, 1], 1, "_wide_forward"),
    ((3, 8, 1, 1), (8, 16, 4, 4), [1, 1], [0, 0], [0, 0], [1, 1], 1, "_matmul_forward"),
    ((2, 8, 4, 4), (8, 4, 4, 4), [2, 2], [1, 1], [1, 1], [1, 1], 1, "_wide_forward"),
    ((2, 6, 3, 5), (6, 2, 3, 2), [3, 2], [1, 0], [2, 1], [1, 2], 3, "_wide_forward"),
    ((2, 4, 5), (4, 3, 3), [2], [1], [1], [2], 2, "_matmul_forward"),
    ((1, 2, 3, 2, 3), (2, 2, 2, 3, 2), [1, 2, 2], [0, 1, 0], [0, 1, 1], [2, 1, 1], 1, "_matmul_forward"),
]


@pytest.fixture
def unbounded_transposed_columns(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(conv_pool, "TRANSPOSED_MAX_COLUMNS_GROWTH", 1 << 20)
    conv_pool._conv_transpose_plan.cache_clear()
    yield
    conv_pool._conv_transpose_plan.cache_clear()


def test_a_transposed_convolution_whose_spread_columns_outgrow_col2im_keeps_col2im() -> None:
    """A DCGAN layer (3x16x4x4 by 16x8x4x4, stride 2): the spread input's columns are 8x
    col2im's, memory a forward holds at its peak, so col2im runs."""
    x, w = rand(3, 16, 4, 4), rand(16, 8, 4, 4)
    assert conv_pool._planned_conv_transpose(x, w, None, [2, 2], [1, 1], [0, 0], 1, [1, 1]) is None
    close(KERNELS["conv_transpose2d.input"](x, w, None, [2, 2], [1, 1], [0, 0], 1, [1, 1]),
          direct_conv_transpose(x, w, None, [2, 2], [1, 1], [0, 0], [1, 1], 1), np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize(("x_shape", "w_shape", "stride", "padding", "output_padding", "dilation", "groups", "path"),
                         TRANSPOSED_CASES)
def test_a_planned_transposed_convolution_is_the_scatter_sum(x_shape, w_shape, stride, padding, output_padding,
                                                             dilation, groups, path, bias, dtype,
                                                             unbounded_transposed_columns: None) -> None:
    """The ordinary convolution of the zero-spread input by the flipped kernel: the
    definition's numbers, row-major (the columns' memory bound lifted: these shapes'
    spread columns are more than twice col2im's)."""
    x, w = rand(*x_shape, dtype=dtype), rand(*w_shape, dtype=dtype)
    b = rand(w_shape[1] * groups, dtype=dtype) if bias else None
    plan = conv_pool._planned_conv_transpose(x, w, b, stride, padding, output_padding, groups, dilation)
    assert plan is not None and plan.__qualname__.split(".")[0] == path
    n = len(w_shape) - 2
    want = direct_conv_transpose(x, w, b, stride, padding, output_padding, dilation, groups)
    op = "conv_transpose1d" if n == 1 else f"conv_transpose{n}d.input"
    got = run(op, x, w, b, stride, padding, output_padding, groups, dilation)
    close(got, want, dtype)
    assert got.flags.c_contiguous
    close(run("convolution", x, w, b, stride, padding, dilation, True, output_padding, groups), want, dtype)


def test_a_cropping_or_large_transposed_convolution_keeps_col2im() -> None:
    x, w = rand(1, 4, 5, 5), rand(4, 2, 1, 1)
    assert conv_pool._planned_conv_transpose(x, w, None, [2, 2], [1, 1], [0, 0], 1, [1, 1]) is None  # pad > d*(k-1)
    close(KERNELS["conv_transpose2d.input"](x, w, None, [2, 2], [1, 1], [0, 0], 1, [1, 1]),
          direct_conv_transpose(x, w, None, [2, 2], [1, 1], [0, 0], [1, 1], 1), np.float32)
    big, wide = rand(1, 64, 16, 16), rand(64, 32, 4, 4)
    assert conv_pool._planned_conv_transpose(big, wide, None, [2, 2], [1, 1], [0, 0], 1, [1, 1]) is None


# ------------------------------------------------------------------ pools


def window_reference(x: np.ndarray, kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                     dilation: Sequence[int], out: Sequence[int], fill: Any, combine: Any) -> np.ndarray:
    """combine() over each window's elements of x padded with ``fill`` (enough on the right
    for a ceil_mode window), one kernel offset at a time."""
    n = len(kernel)
    right = [max(p, (o - 1) * st + d * (k - 1) + 1 - s - p)
             for s, k, st, p, d, o in zip(x.shape[-n:], kernel, stride, padding, dilation, out)]
    xp = np.pad(x, [(0, 0)] * (x.ndim - n) + list(zip(padding, right)), constant_values=fill)
    taps = [xp[(Ellipsis, *spatial_slices(offset, dilation, out, stride))] for offset in np.ndindex(*kernel)]
    return combine(np.stack(taps))


MAX_CASES = [  # x shape, kernel, stride, padding, dilation, ceil mode
    ((1, 4, 13, 10), [2, 2], [2, 2], [0, 0], [1, 1], False),
    ((2, 3, 9, 11), [3, 3], [2, 2], [1, 1], [1, 1], True),
    ((2, 3, 9, 11), [2, 3], [3, 2], [1, 1], [2, 1], True),
    ((2, 5, 12), [3], [1], [1], [1], False),
    ((1, 2, 5, 6, 7), [2, 3, 2], [2, 1, 2], [1, 1, 0], [1, 2, 1], True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize(("shape", "kernel", "stride", "padding", "dilation", "ceil_mode"), MAX_CASES)
def test_a_planned_max_pool_is_each_windows_max(shape, kernel, stride, padding, dilation, ceil_mode, dtype) -> None:
    x = (rand(*shape) * 10).astype(dtype)
    if dtype != np.int32:
        x.flat[::7] = np.nan  # NaN wins its windows, as in torch
    n = len(kernel)
    for _ in range(2):  # the plan's first call and a remembered one
        got = run(f"max_pool{n}d", x, kernel, stride, padding, dilation, ceil_mode)
    fill = -np.inf if dtype != np.int32 else np.iinfo(np.int32).min
    want = window_reference(x, kernel, stride, padding, dilation, got.shape[-n:], fill, lambda t: np.max(t, axis=0))
    np.testing.assert_array_equal(got, want)
    assert got.dtype == x.dtype and got.flags.c_contiguous and not np.shares_memory(got, x)


def test_a_max_pool_plan_is_remembered_per_geometry() -> None:
    x = rand(1, 4, 13, 10)
    conv_pool._max_pool_plan.cache_clear()
    for _ in range(3):
        KERNELS["max_pool2d"](x, [2, 2], [2, 2], [0, 0], [1, 1], False)
    info = conv_pool._max_pool_plan.cache_info()
    assert (info.misses, info.hits) == (1, 2)


def avg_divisors(shape: Sequence[int], kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                 out: Sequence[int], count_include_pad: bool) -> np.ndarray:
    """Per window: its positions inside the padded input (or the input itself)."""
    counts = np.ones(out, np.int64)
    for axis, (size, k, st, p, o) in enumerate(zip(shape, kernel, stride, padding, out)):
        along = []
        for i in range(o):
            start, end = i * st - p, min(i * st - p + k, size + p)
            if not count_include_pad:
                start, end = max(start, 0), min(end, size)
            along.append(end - start)
        counts = counts * np.array(along).reshape([-1 if a == axis else 1 for a in range(len(out))])
    return counts


AVG_CASES = [  # x shape, kernel, stride, padding, ceil mode, count_include_pad, divisor_override
    ((2, 8, 32), [2], [], [0], False, True, None),
    ((2, 4, 32), [4], [], [0], False, True, None),
    ((2, 4, 31), [3], [2], [1], True, False, None),
    ((2, 3, 9, 11), [3, 3], [2, 2], [1, 1], True, True, None),
    ((2, 3, 9, 11), [3, 2], [2, 1], [1, 1], False, False, None),
    ((1, 3, 8, 8), [2, 2], [2, 2], [0, 0], False, True, 3),
    ((1, 2, 4, 5, 6), [2, 3, 2], [1, 2, 2], [1, 1, 0], True, False, None),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "kernel", "stride", "padding", "ceil_mode", "count_include_pad", "divisor"),
                         AVG_CASES)
def test_a_planned_avg_pool_is_each_windows_mean(shape, kernel, stride, padding, ceil_mode, count_include_pad,
                                                 divisor, dtype) -> None:
    """Against the window sums over the divisors in float64, and the unplanned kernel's
    numbers exactly (the same sums, the same quotients)."""
    x = rand(*shape, dtype=dtype)
    n = len(kernel)
    args = (kernel, stride, padding, ceil_mode, count_include_pad, divisor)
    assert conv_pool._avg_pool_plan(x.shape, x.dtype, n, *map(conv_pool._hashable, args[:3]), *args[3:],
                                    conv_pool._PHASED_POOL_SIZE) is not None
    got = run(f"avg_pool{n}d", x, *(args if n > 1 else args[:5]))
    strides = stride or kernel
    sums = window_reference(x.astype(np.float64), kernel, strides, padding, [1] * n, got.shape[-n:], 0,
                            lambda t: np.sum(t, axis=0))
    counts = divisor or avg_divisors(shape[-n:], kernel, strides, padding, got.shape[-n:], count_include_pad)
    close(got, sums / counts, dtype)
    pool = conv_pool._Pool(x.shape, n, kernel, stride, padding, 1, ceil_mode)
    np.testing.assert_array_equal(got, conv_pool._avg_pool(x, pool, count_include_pad, divisor))


def test_an_avg_pool_plan_holds_no_writable_array() -> None:
    x = rand(1, 3, 9, 11)
    plan = conv_pool._avg_pool_plan(x.shape, x.dtype, 2, (3, 3), (2, 2), (1, 1), True, False, None,
                                    conv_pool._PHASED_POOL_SIZE)
    assert isinstance(plan[2], np.ndarray) and not plan[2].flags.writeable


# ------------------------------------------------------------------ pads


@pytest.mark.parametrize(("shape", "pad"), [((2, 8, 32), [2, 0]), ((1, 3, 5, 4), [1, 2, 0, 3]),
                                            ((1, 3, 5, 4), [-1, 2, 1, -2]), ((2, 3), [-3, 1])])
@pytest.mark.parametrize("value", [0, 0.0, -0.0, 2.5, False])
def test_a_constant_pad_fills_with_the_value(shape, pad, value) -> None:
    """0 fills with np.zeros, -0.0 keeps its sign; negative pads crop."""
    x = rand(*shape)
    got = run("constant_pad_nd", x, pad, value)
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)][::-1]
    grown = np.pad(x, [(0, 0)] * (x.ndim - len(pairs)) + [(max(lo, 0), max(hi, 0)) for lo, hi in pairs],
                   constant_values=value)
    want = grown[(Ellipsis, *(slice(max(-lo, 0), s - max(-hi, 0)) for s, (lo, hi) in
                             zip(grown.shape[-len(pairs):], pairs)))]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize(("shape", "pad"), [((1, 16, 12, 12), [1, 1, 1, 1]), ((1, 3, 12, 12), [2, 2, 2, 2]),
                                            ((2, 3, 7), [2, 3]), ((1, 2, 4, 5, 3), [1, 2, 2, 1, 0, 2]),
                                            ((4, 5), [1, 2])])
def test_an_edge_pad_is_one_gather_of_np_pad(shape, pad, mode) -> None:
    x = rand(*shape)
    assert conv_pool._edge_pad_plan(x.shape, tuple(pad), mode) is not None
    got = run("pad", x, pad, mode)
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)][::-1]
    numpy_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0)] * (x.ndim - len(pairs)) + pairs, mode=numpy_mode))
    assert got.flags.c_contiguous and not np.shares_memory(got, x)


def test_an_edge_pad_too_large_for_its_dim_keeps_the_per_dim_gathers() -> None:
    """A source index outside its dim: no flat plan (it would read a neighbouring row);
    the per-dim gathers fail as they did."""
    x = np.arange(9.0).reshape(1, 1, 3, 3)
    assert conv_pool._edge_pad_plan(x.shape, (3, 3, 3, 3), "reflect") is None
    with pytest.raises(IndexError):
        KERNELS["pad"](x, [3, 3, 3, 3], "reflect", None)
    plan = conv_pool._edge_pad_plan(x.shape, (1, 1, 1, 1), "reflect")
    assert plan is not None and not plan[1].flags.writeable


def test_a_plan_per_input_shape() -> None:
    """Plans are keyed by shape: another size gets its own geometry."""
    for h, w in itertools.product((5, 6), (4, 7)):
        x = rand(1, 2, h, w)
        got = KERNELS["conv2d"](x, np.ones((3, 2, 3, 3), np.float32), None, [1, 1], [1, 1], [1, 1], 1)
        assert got.shape == (1, 3, h, w)
        center = x[:, :, h // 2 - 1:h // 2 + 2, w // 2 - 1:w // 2 + 2].sum()
        assert math.isclose(float(got[0, 0, h // 2, w // 2]), float(center), rel_tol=1e-5)
