"""Kernels: tensor factories and random fills.

dtype=None follows torch: float factories give float32, full() infers from its
fill value (bool -> bool, int -> int64, float -> float32), arange() gives int64
for all-integer bounds and float32 otherwise, the *_like and new_* forms keep
self's dtype. Layout, device, pin_memory and memory_format are accepted and
ignored: every result is a C-contiguous CPU array (empty_strided excepted,
which honours its strides). ``empty*`` return zeros, so that runs are
reproducible. Every random kernel draws from rng.generator() (the streams are
numpy's PCG64, not torch's). A float16/bfloat16 fill value rounds as torch
converts it (through float32).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from texport.dialects.dtypes import DType
from texport.dialects.shape_rules.factories import fill_dtype

from .. import rng
from ..dtypes import cast, checked_fill, finfo, is_floating, to_numpy
from . import kernel
from .common import check_arguments
from .views import np_dtype, strided_view

_FLOAT = np.dtype(np.float32)
_LONG = np.dtype(np.int64)


def _shape(size: Sequence[int]) -> tuple[int, ...]:
    shape = tuple([int(s) for s in size])
    if shape and min(shape) < 0:
        bad = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(shape)}")
    return shape


# ---------------------------------------------------------------------------- constant fills


@kernel("zeros", "empty.memory_format")
def _zeros(size: Sequence[int], dtype: Any = None, *_: Any) -> np.ndarray:
    return np.zeros(_shape(size), np_dtype(dtype, _FLOAT))


@kernel("ones")
def _ones(size: Sequence[int], dtype: Any = None, *_: Any) -> np.ndarray:
    return np.ones(_shape(size), np_dtype(dtype, _FLOAT))


@kernel("empty_permuted")
def _empty_permuted(size: Sequence[int], physical_layout: Sequence[int], dtype: Any = None, *_: Any) -> np.ndarray:
    """Zeros stored dims-in-``physical_layout`` order: a row-major array of the permuted
    shape, transposed back to the logical order."""
    check_arguments("empty_permuted", size, physical_layout)
    shape = _shape(size)
    stored = np.zeros([shape[d] for d in physical_layout], np_dtype(dtype, _FLOAT))
    return stored.transpose(np.argsort(physical_layout))


@kernel("empty_strided")
def _empty_strided(
    size: Sequence[int], stride: Sequence[int], dtype: Any = None, *_: Any
) -> np.ndarray:
    """Zeros laid out with the given element strides over a storage just large enough."""
    return _strided_zeros(size, stride, np_dtype(dtype, _FLOAT))


def _strided_zeros(size: Sequence[int], stride: Sequence[int], dtype: np.dtype) -> np.ndarray:
    shape = _shape(size)
    if len(stride) != len(shape):
        raise RuntimeError("mismatch in length of strides and shape")
    extent = 0 if 0 in shape else 1 + sum((n - 1) * int(s) for n, s in zip(shape, stride))
    return strided_view(np.zeros(extent, dtype), shape, stride, 0)


@kernel("new_empty_strided")
def _new_empty_strided(self: np.ndarray, size: Sequence[int], stride: Sequence[int], dtype: Any = None,
                       *_: Any) -> np.ndarray:
    """empty_strided in self's dtype unless told."""
    return _strided_zeros(size, stride, np_dtype(dtype, self.dtype))


@kernel("full")
def _full(size: Sequence[int], fill_value: Any, dtype: Any = None, *_: Any) -> np.ndarray:
    out = np_dtype(dtype, _FLOAT) if dtype is not None else to_numpy(fill_dtype(fill_value))
    return _filled(_shape(size), checked_fill(fill_value, out))


def _filled(shape: tuple[int, ...], value: np.ndarray) -> np.ndarray:
    """A fresh array of ``shape`` holding the 0-d ``value`` in its dtype (np.full without its
    Python-level checks)."""
    out = np.empty(shape, value.dtype)
    out.fill(value)
    return out


@kernel("scalar_tensor")
def _scalar_tensor(s: Any, dtype: Any = None, *_: Any) -> np.ndarray:
    """Unlike full(), no inference from the value: dtype=None is float32."""
    out = np_dtype(dtype, _FLOAT)
    return np.array(checked_fill(s, out), out)


@kernel("zeros_like", "empty_like")
def _zeros_like(self: np.ndarray, dtype: Any = None, *_: Any) -> np.ndarray:
    return np.zeros(self.shape, np_dtype(dtype, self.dtype))


@kernel("ones_like")
def _ones_like(self: np.ndarray, dtype: Any = None, *_: Any) -> np.ndarray:
    return np.ones(self.shape, np_dtype(dtype, self.dtype))


@kernel("full_like")
def _full_like(self: np.ndarray, fill_value: Any, dtype: Any = None, *_: Any) -> np.ndarray:
    """Keeps self's dtype: no inference from the fill value."""
    out = np_dtype(dtype, self.dtype)
    return _filled(self.shape, checked_fill(fill_value, out))


@kernel("new_zeros", "new_empty")
def _new_zeros(self: np.ndarray, size: Sequence[int], dtype: Any = None, *_: Any) -> np.ndarray:
    return np.zeros(_shape(size), np_dtype(dtype, self.dtype))


@kernel("new_ones")
def _new_ones(self: np.ndarray, size: Sequence[int], dtype: Any = None, *_: Any) -> np.ndarray:
    return np.ones(_shape(size), np_dtype(dtype, self.dtype))


@kernel("new_full")
def _new_full(
    self: np.ndarray, size: Sequence[int], fill_value: Any, dtype: Any = None, *_: Any
) -> np.ndarray:
    out = np_dtype(dtype, self.dtype)
    return _filled(_shape(size), checked_fill(fill_value, out))


@kernel("eye")
def _eye(n: int, dtype: Any = None, *_: Any) -> np.ndarray:
    return _eye_m(n, n, dtype)


@kernel("eye.m")
def _eye_m(n: int, m: int, dtype: Any = None, *_: Any) -> np.ndarray:
    if n < 0 or m < 0:
        raise RuntimeError(f"n and m must be greater or equal to 0, got {n} and {m}")
    return np.eye(n, m, dtype=np_dtype(dtype, _FLOAT))


# ---------------------------------------------------------------------------- ranges


def _arange_length(start: Any, end: Any, step: Any, out: np.dtype) -> int:
    """torch's arange_out: an int64 result counts in int64 over the truncated bounds,
    ceil((end - start + step - sign(step)) / step) with C division; any other dtype
    ceil((end - start) / step) in double over the bounds as given."""
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if out == np.int64:
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if all(isinstance(v, int) for v in (start, end, step)):
        return -((start - end) // step)
    return math.ceil((end - start) / step)


@kernel("arange")
def _arange(end: Any, dtype: Any = None, *_: Any) -> np.ndarray:
    return _arange_step(0, end, 1, dtype)


@kernel("arange.start")
def _arange_start(start: Any, end: Any, dtype: Any = None, *_: Any) -> np.ndarray:
    return _arange_step(start, end, 1, dtype)


@kernel("arange.start_step")
def _arange_step(start: Any, end: Any, step: Any = 1, dtype: Any = None, *_: Any) -> np.ndarray:
    """start + i * step, computed in int64 for an integer dtype (over the truncated
    bounds, as torch's accscalar_t), in double otherwise, then cast."""
    integral = all(isinstance(v, int) for v in (start, end, step))
    out = np_dtype(dtype, _LONG if integral else _FLOAT)
    length = _arange_length(start, end, step, out)
    if out.kind in "iu":
        first, stride = int(start), int(step)
        return (first + np.arange(length, dtype=np.int64) * stride).astype(out, copy=False)
    with np.errstate(invalid="ignore", over="ignore"):
        return cast(start + np.arange(length, dtype=np.float64) * step, out)


@kernel("linspace")
def linspace_values(start: Any, end: Any, steps: int, dtype: Any = None, *_: Any) -> np.ndarray:
    """torch's symmetric formula: the first half counts up from start, the second half down
    from end, so both ends are exact. Floats compute in the output dtype, as torch does;
    integer dtypes in double from the bounds converted to the dtype, truncated."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    out = np_dtype(dtype, _FLOAT)
    if steps <= 1:
        return np.full((steps,), start, out)
    work = out if is_floating(out) else np.dtype(np.float64)
    if not is_floating(out):  # torch converts the bounds to the integer dtype first (4.3 -> 4)
        start, end = checked_fill(start, out), checked_fill(end, out)
    first, last = work.type(start), work.type(end)
    step = (last - first) / work.type(steps - 1)
    index = np.arange(steps)
    half = steps // 2
    # the counts are integers converted to the working dtype (bfloat16 rounds 299 to 300)
    values = np.concatenate([first + step * index[:half].astype(work),
                             last - step * (steps - 1 - index[half:]).astype(work)])
    return values.astype(out, copy=False)


@kernel("logspace")
def _logspace(start: Any, end: Any, steps: int, base: float = 10.0, dtype: Any = None, *_: Any) -> np.ndarray:
    """base ** linspace(start, end, steps) in double (integer dtypes: over the truncated bounds), cast."""
    out = np_dtype(dtype, _FLOAT)
    if not is_floating(out):
        start, end = int(start), int(end)
    exponents = linspace_values(start, end, steps, DType.float64)
    with np.errstate(all="ignore"):
        return cast(np.power(np.float64(base), exponents), out)


def _item(name: str, op: str, value: Any) -> Any:
    """torch's kernel reads a 0-d tensor bound with item() and calls the Scalar overload."""
    if not isinstance(value, np.ndarray):
        return value
    if value.ndim:
        raise RuntimeError(f"{op} only supports 0-dimensional start and end tensors, "
                           f"but got {name} with {value.ndim} dimension(s).")
    return value.item()


@kernel("linspace.Tensor_Tensor", "linspace.Tensor_Scalar", "linspace.Scalar_Tensor")
def _linspace_tensor(start: Any, end: Any, steps: int, dtype: Any = None, *_: Any) -> np.ndarray:
    return linspace_values(_item("start", "linspace", start), _item("end", "linspace", end), steps, dtype)


@kernel("logspace.Tensor_Tensor", "logspace.Tensor_Scalar", "logspace.Scalar_Tensor")
def _logspace_tensor(start: Any, end: Any, steps: int, base: float = 10.0, dtype: Any = None,
                     *_: Any) -> np.ndarray:
    return _logspace(_item("start", "logspace", start), _item("end", "logspace", end), steps, base, dtype)


# ---------------------------------------------------------------------------- random


def _float_draw(shape: tuple[int, ...], dtype: np.dtype, normal: bool, op: str) -> np.ndarray:
    """Uniform [0, 1) or standard normal samples of a float dtype (reduced floats drawn as float32).
    A complex sample draws its real and imaginary parts so, as torch: uniform each, or
    normal of variance 1/2 each (so E|z|^2 = 1)."""
    if dtype.kind == "c":
        part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        pairs = _float_draw((*shape, 2), part, normal, op) * part.type(np.sqrt(0.5) if normal else 1)
        return (pairs[..., 0] + 1j * pairs[..., 1]).astype(dtype)
    if not is_floating(dtype):
        raise RuntimeError(f'"{op}" not implemented for \'{dtype.name}\'')
    work = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)
    gen = rng.generator()
    if normal:
        return gen.standard_normal(shape, dtype=work).astype(dtype, copy=False)
    draw = gen.random(shape, dtype=work).astype(dtype, copy=False)
    # Rounding to a narrower float can reach 1.0: keep the interval half-open.
    return np.minimum(draw, np.nextafter(dtype.type(1), dtype.type(0)))


@kernel("rand")
def _rand(size: Sequence[int], dtype: Any = None, *_: Any) -> np.ndarray:
    return _float_draw(_shape(size), np_dtype(dtype, _FLOAT), False, "rand")


@kernel("randn")
def _randn(size: Sequence[int], dtype: Any = None, *_: Any) -> np.ndarray:
    return _float_draw(_shape(size), np_dtype(dtype, _FLOAT), True, "randn")


@kernel("rand_like")
def _rand_like(self: np.ndarray, dtype: Any = None, *_: Any) -> np.ndarray:
    return _float_draw(self.shape, np_dtype(dtype, self.dtype), False, "rand_like")


@kernel("randn_like")
def _randn_like(self: np.ndarray, dtype: Any = None, *_: Any) -> np.ndarray:
    return _float_draw(self.shape, np_dtype(dtype, self.dtype), True, "randn_like")


def _integers(low: int, high: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Uniform integers in [low, high)."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    return rng.generator().integers(low, high, size=shape, dtype=np.int64).astype(dtype, copy=False)


@kernel("randint")
def _randint(high: int, size: Sequence[int], dtype: Any = 4, *_: Any) -> np.ndarray:
    return _integers(0, int(high), _shape(size), np_dtype(dtype, _LONG))


@kernel("randint.low")
def _randint_low(low: int, high: int, size: Sequence[int], dtype: Any = 4, *_: Any) -> np.ndarray:
    return _integers(int(low), int(high), _shape(size), np_dtype(dtype, _LONG))


@kernel("randint_like")
def _randint_like(self: np.ndarray, high: int, dtype: Any = None, *_: Any) -> np.ndarray:
    return _integers(0, int(high), self.shape, np_dtype(dtype, self.dtype))


@kernel("randint_like.low_dtype")
def _randint_like_low(
    self: np.ndarray, low: int, high: int, dtype: Any = None, *_: Any
) -> np.ndarray:
    return _integers(int(low), int(high), self.shape, np_dtype(dtype, self.dtype))


@kernel("randperm")
def _randperm(n: int, dtype: Any = 4, *_: Any) -> np.ndarray:
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got {n}")
    return rng.generator().permutation(int(n)).astype(np_dtype(dtype, _LONG))


def _check_probability(p: Any) -> None:
    p = np.asarray(p)
    if p.size and (p.min() < 0 or p.max() > 1):
        raise RuntimeError("bernoulli_ expects p to be in [0, 1]")


def _coin_flips(shape: tuple[int, ...], p: Any, dtype: np.dtype) -> np.ndarray:
    """1 with probability p (p a number or an array broadcast to shape), else 0."""
    _check_probability(p)
    return (rng.generator().random(shape) < p).astype(dtype)


@kernel("bernoulli")
def _bernoulli(self: np.ndarray, generator: Any = None) -> np.ndarray:
    """self holds the probabilities."""
    return _coin_flips(self.shape, self, self.dtype)


@kernel("bernoulli.p")
def _bernoulli_p(self: np.ndarray, p: float, generator: Any = None) -> np.ndarray:
    return _coin_flips(self.shape, p, self.dtype)


@kernel("bernoulli_.Tensor")
def _bernoulli_tensor_(self: np.ndarray, p: np.ndarray, generator: Any = None) -> np.ndarray:
    self[...] = _coin_flips(self.shape, np.broadcast_to(p, self.shape), self.dtype)
    return self


@kernel("bernoulli_.float")
def _bernoulli_float_(self: np.ndarray, p: float = 0.5, generator: Any = None) -> np.ndarray:
    self[...] = _coin_flips(self.shape, p, self.dtype)
    return self


@kernel("uniform_")
def _uniform_(
    self: np.ndarray, low: float = 0.0, high: float = 1.0, generator: Any = None
) -> np.ndarray:
    """`from` and `to` are Python keywords: bound positionally as low, high."""
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low} "
                           f"> to={high}")
    draw = _float_draw(self.shape, self.dtype, False, "check_uniform_bounds")
    start = complex(low, low) if self.dtype.kind == "c" else low  # torch draws both parts in [from, to)
    self[...] = start + (high - low) * draw
    return self


@kernel("normal_")
def _normal_(
    self: np.ndarray, mean: float = 0.0, std: float = 1.0, generator: Any = None
) -> np.ndarray:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if self.dtype.kind == "c":  # torch draws both parts: normal(mean, std / sqrt(2)) each
        mean = complex(mean, mean)
    self[...] = mean + std * _float_draw(self.shape, self.dtype, True, "normal_kernel_cpu")
    return self


# ---------------------------------------------------------------------------- triangle indices


def _triangle_indices(rows: np.ndarray, cols: np.ndarray, row: int, col: int, dtype: Any) -> np.ndarray:
    if row < 0 or col < 0:
        raise RuntimeError(f"{'row' if row < 0 else 'col'} must be non-negative, got{row if row < 0 else col}")
    return np.stack([rows, cols]).astype(np_dtype(dtype, _LONG))


@kernel("tril_indices")
def _tril_indices(row: int, col: int, offset: int = 0, dtype: Any = 4, *_: Any) -> np.ndarray:
    """The (row, col) coordinates of the lower triangle, row by row."""
    return _triangle_indices(*np.tril_indices(max(row, 0), offset, max(col, 0)), row, col, dtype)


@kernel("triu_indices")
def _triu_indices(row: int, col: int, offset: int = 0, dtype: Any = 4, *_: Any) -> np.ndarray:
    """The (row, col) coordinates of the upper triangle, row by row."""
    return _triangle_indices(*np.triu_indices(max(row, 0), offset, max(col, 0)), row, col, dtype)


# ---------------------------------------------------------------------------- draws from distributions
# Seeded through rng.generator(), like every random kernel: the distributions are torch's,
# the streams are not (unit tests check them statistically).


def _uniform_open(shape: tuple[int, ...], dtype: np.dtype, op: str) -> np.ndarray:
    """Uniform samples in (0, 1) in float64 (no endpoint: the inverse CDFs below stay finite)."""
    if not is_floating(dtype):
        raise RuntimeError(f'"{op}" not implemented for \'{dtype.name}\'')
    draw = rng.generator().random(shape)
    return np.where(draw == 0.0, np.nextafter(0.0, 1.0), draw)


@kernel("exponential")
def _exponential(self: np.ndarray, lambd: float = 1.0, generator: Any = None) -> np.ndarray:
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return cast(-np.log(_uniform_open(self.shape, self.dtype, "exponential_cpu")) / lambd, self.dtype)


@kernel("cauchy")
def _cauchy(self: np.ndarray, median: float = 0.0, sigma: float = 1.0, generator: Any = None) -> np.ndarray:
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    draw = _uniform_open(self.shape, self.dtype, "cauchy_cpu")
    return cast(median + sigma * np.tan(np.pi * (draw - 0.5)), self.dtype)


@kernel("geometric")
def _geometric(self: np.ndarray, p: float, generator: Any = None) -> np.ndarray:
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    draw = rng.generator().random(self.shape)
    return cast(np.ceil(np.log1p(-draw) / math.log1p(-p)).clip(1), self.dtype)


@kernel("log_normal")
def _log_normal(self: np.ndarray, mean: float = 1.0, std: float = 2.0, generator: Any = None) -> np.ndarray:
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    if not is_floating(self.dtype):
        raise RuntimeError(f'"log_normal_cpu" not implemented for \'{self.dtype.name}\'')
    return cast(np.exp(mean + std * rng.generator().standard_normal(self.shape)), self.dtype)


def _random_range(dtype: np.dtype) -> tuple[int, int]:
    """[low, high) of random_() without bounds: every integer the dtype holds exactly (floats:
    0..2^digits), from 0."""
    if dtype == np.bool_:
        return 0, 2
    if is_floating(dtype):
        return 0, 2 ** (int(finfo(dtype).nmant) + 1) + 1
    return 0, int(np.iinfo(dtype).max) + 1


@kernel("random")
def _random(self: np.ndarray, generator: Any = None) -> np.ndarray:
    low, high = _random_range(self.dtype)
    return _integer_draw(low, high, self)


@kernel("random.from")
def _random_from(self: np.ndarray, low: int, high: int | None, generator: Any = None) -> np.ndarray:
    if high is None:
        high = _random_range(self.dtype)[1]
    return _integer_draw(low, high, self)


@kernel("random.to")
def _random_to(self: np.ndarray, high: int, generator: Any = None) -> np.ndarray:
    return _integer_draw(0, high, self)


def _integer_draw(low: int, high: int, like: np.ndarray) -> np.ndarray:
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    draw = rng.generator().integers(low, high, size=like.shape, dtype=np.int64 if high <= 2 ** 63 else np.uint64)
    return draw.astype(like.dtype)


def _check_std(std: Any) -> None:
    if np.any(np.asarray(std) < 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _normal_draw(mean: Any, std: Any, dtype: np.dtype) -> np.ndarray:
    _check_std(std)
    shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
    noise = _float_draw(shape, dtype, True, "normal_kernel_cpu")
    return cast(np.asarray(mean, np.float64) + np.asarray(std, np.float64) * noise, dtype)


@kernel("normal.Tensor_float")
def _normal_tensor_float(mean: np.ndarray, std: float = 1.0, generator: Any = None) -> np.ndarray:
    return _normal_draw(mean, std, mean.dtype)


@kernel("normal.float_Tensor")
def _normal_float_tensor(mean: float, std: np.ndarray, generator: Any = None) -> np.ndarray:
    return _normal_draw(mean, std, std.dtype)


@kernel("normal.Tensor_Tensor")
def _normal_tensor_tensor(mean: np.ndarray, std: np.ndarray, generator: Any = None) -> np.ndarray:
    return _normal_draw(mean, std, np.result_type(mean, std))


@kernel("normal.float_float")
def _normal_float_float(mean: float, std: float, size: Sequence[int], generator: Any = None, dtype: Any = None,
                        *_: Any) -> np.ndarray:
    return _normal_draw(np.full(_shape(size), mean), std, np_dtype(dtype, _FLOAT))


@kernel("multinomial")
def _multinomial(self: np.ndarray, num_samples: int, replacement: bool = False, generator: Any = None) -> np.ndarray:
    """Category indices drawn by weight per row: with replacement by the inverse CDF,
    without by the largest u^(1/w) keys (each draw removes its category)."""
    weights = np.atleast_2d(self.astype(np.float64))
    if (weights < 0).any() or not np.isfinite(weights).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (weights.sum(-1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > weights.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    draw = rng.generator().random((weights.shape[0], num_samples if replacement else weights.shape[-1]))
    if replacement:
        cdf = np.cumsum(weights, -1) / weights.sum(-1, keepdims=True)
        picked = (cdf[:, None, :] <= draw[:, :, None]).sum(-1).clip(max=weights.shape[-1] - 1)
    else:
        with np.errstate(divide="ignore"):
            keys = np.where(weights > 0, np.log(draw) / weights, -np.inf)
        picked = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    return picked.astype(np.int64).reshape(*self.shape[:-1], num_samples)
