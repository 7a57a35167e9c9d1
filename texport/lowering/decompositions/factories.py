"""Factories: zeros/ones/*_like/new_* become full, full_like or empty; random
factories become rand/randn of the core set."""

from __future__ import annotations

from typing import Any

from texport.dialects.shape_rules.strides import memory_format_name, physical_layout
from texport.tracer.tracing import layout_of

from ._common import DType, Tensor, aten, cast_to, register_decomposition

_DEFAULT_FLOAT = DType.float32


# zeros(size) = full(size, 0)
@register_decomposition(aten.zeros.default)
def zeros(size: list[Any], *, dtype: DType | None = None, layout: Any = None, device: Any = None,
          pin_memory: Any = None) -> Tensor:
    return aten.full.default(size, 0, dtype=dtype or _DEFAULT_FLOAT)


# ones(size) = full(size, 1)
@register_decomposition(aten.ones.default)
def ones(size: list[Any], *, dtype: DType | None = None, layout: Any = None, device: Any = None,
         pin_memory: Any = None) -> Tensor:
    return aten.full.default(size, 1, dtype=dtype or _DEFAULT_FLOAT)


# zeros_like(x) = full_like(x, 0)
@register_decomposition(aten.zeros_like.default)
def zeros_like(self: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
               pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return aten.full_like.default(self, 0, dtype=dtype)


# ones_like(x) = full_like(x, 1)
@register_decomposition(aten.ones_like.default)
def ones_like(self: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return aten.full_like.default(self, 1, dtype=dtype)


# empty_like(x) = empty_permuted(shape(x), x's dims from slowest to fastest) under preserve_format
# (torch's ref), else empty(shape(x), memory_format)
@register_decomposition(aten.empty_like.default)
def empty_like(self: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
               pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    if memory_format_name(memory_format) != "preserve_format":
        return aten.empty.memory_format(list(self.shape), dtype=dtype or self.dtype, memory_format=memory_format)
    return aten.empty_permuted.default(list(self.shape), physical_layout(*layout_of(self)), dtype=dtype or self.dtype)


# new_zeros(x, size) = full(size, 0, dtype(x))
@register_decomposition(aten.new_zeros.default)
def new_zeros(self: Tensor, size: list[Any], *, dtype: DType | None = None, layout: Any = None,
              device: Any = None, pin_memory: Any = None) -> Tensor:
    return aten.full.default(size, 0, dtype=dtype or self.dtype)


# new_ones(x, size) = full(size, 1, dtype(x))
@register_decomposition(aten.new_ones.default)
def new_ones(self: Tensor, size: list[Any], *, dtype: DType | None = None, layout: Any = None,
             device: Any = None, pin_memory: Any = None) -> Tensor:
    return aten.full.default(size, 1, dtype=dtype or self.dtype)


# new_full(x, size, v) = full(size, v, dtype(x))
@register_decomposition(aten.new_full.default)
def new_full(self: Tensor, size: list[Any], fill_value: Any, *, dtype: DType | None = None, layout: Any = None,
             device: Any = None, pin_memory: Any = None) -> Tensor:
    return aten.full.default(size, fill_value, dtype=dtype or self.dtype)


# new_empty(x, size) = empty(size, dtype(x))
@register_decomposition(aten.new_empty.default)
def new_empty(self: Tensor, size: list[Any], *, dtype: DType | None = None, layout: Any = None,
              device: Any = None, pin_memory: Any = None) -> Tensor:
    return aten.empty.memory_format(size, dtype=dtype or self.dtype)


# arange(end) = arange(0, end, 1)
@register_decomposition(aten.arange.default)
def arange(end: Any, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
           pin_memory: Any = None) -> Tensor:
    return aten.arange.start_step(0, end, 1, dtype=dtype)


# arange(start, end) = arange(start, end, 1)
@register_decomposition(aten.arange.start)
def arange_start(start: Any, end: Any, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Tensor:
    return aten.arange.start_step(start, end, 1, dtype=dtype)


# linspace(a, b, n)[i] = a + i·step for the first half, b - (n-1-i)·step for the rest (torch's symmetric form)
@register_decomposition(aten.linspace.default)
def linspace(start: Any, end: Any, steps: int, *, dtype: DType | None = None, layout: Any = None,
             device: Any = None, pin_memory: Any = None) -> Tensor:
    dtype = dtype or _DEFAULT_FLOAT
    if dtype.is_integral:  # the bounds in the integer dtype first, as torch's kernel (4.3 -> 4)
        start, end = (int(v) if isinstance(v, float) else v for v in (start, end))
    if steps == 1:
        return aten.full.default([1], start, dtype=dtype)
    index = aten.arange.start_step(0, steps, 1, dtype=DType.float64 if dtype is DType.float64 else _DEFAULT_FLOAT)
    step = (end - start) / (steps - 1)
    low = aten.add.Tensor(aten.mul.Tensor(index, step), start)
    high = aten.sub.Tensor(end, aten.mul.Tensor(aten.sub.Tensor(steps - 1, index), step))
    values = aten.where.self(aten.lt.Scalar(index, steps // 2), low, high)
    return aten._to_copy.default(values, dtype=dtype) if values.dtype is not dtype else values


# linspace with 0-d tensor bounds, as torch's reference: the bounds in float64, step = (end - start)/(n-1),
# an int64 arange cast to the computation dtype (float32 for reduced floats, int64 for integers)
@register_decomposition([aten.linspace.Tensor_Tensor, aten.linspace.Tensor_Scalar, aten.linspace.Scalar_Tensor])
def linspace_tensor(start: Any, end: Any, steps: int, *, dtype: DType | None = None, layout: Any = None,
                    device: Any = None, pin_memory: Any = None) -> Tensor:
    start, end = (cast_to(v, DType.float64) if isinstance(v, Tensor) else v for v in (start, end))
    dtype = dtype or (DType.complex64 if isinstance(start, complex) or isinstance(end, complex) else _DEFAULT_FLOAT)
    if steps == 0:
        return aten.full.default([0], 0, dtype=dtype)
    if steps == 1:
        if isinstance(start, Tensor):
            return aten.copy.default(aten.empty.memory_format([1], dtype=dtype), start)
        return aten.full.default([1], start, dtype=dtype)
    index = aten.arange.start_step(0, steps, 1)
    compute = dtype if dtype.is_floating_point or dtype.is_complex else DType.int64
    compute = DType.float32 if compute in (DType.float16, DType.bfloat16) else compute
    step = aten.div.Tensor(aten.sub.Tensor(end, start), steps - 1)
    rise = aten.mul.Tensor(step, cast_to(index, compute))
    low = aten.add.Tensor(start, rise) if isinstance(start, Tensor) else aten.add.Tensor(rise, start)
    fall = aten.mul.Tensor(step, cast_to(aten.sub.Tensor(steps - 1, index), compute))
    high = aten.sub.Tensor(end, fall)
    return cast_to(aten.where.self(aten.lt.Scalar(index, steps / 2), low, high), dtype)


# logspace with 0-d tensor bounds = base ** linspace(start, end, n) in float64, to dtype (torch's
# reference; integer dtypes take the bounds in the dtype first)
@register_decomposition([aten.logspace.Tensor_Tensor, aten.logspace.Tensor_Scalar, aten.logspace.Scalar_Tensor])
def logspace_tensor(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: DType | None = None,
                    layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    dtype = dtype or _DEFAULT_FLOAT
    if dtype.is_integral:
        start, end = (cast_to(v, dtype) if isinstance(v, Tensor) else int(v) if isinstance(v, float) else v
                      for v in (start, end))
    exponents = linspace_tensor(start, end, steps, dtype=DType.float64)
    return aten._to_copy.default(aten.pow.Scalar(base, exponents), dtype=dtype)


# eye(n, m) = (arange(n)[:, None] == arange(m)[None, :]).to(dtype)
@register_decomposition(aten.eye.m)
def eye_m(n: Any, m: Any, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
          pin_memory: Any = None) -> Tensor:
    rows = aten.unsqueeze.default(aten.arange.start_step(0, n, 1), -1)
    same = aten.eq.Tensor(rows, aten.arange.start_step(0, m, 1))
    return aten._to_copy.default(same, dtype=dtype or _DEFAULT_FLOAT)


# eye(n) = eye(n, n)
@register_decomposition(aten.eye.default)
def eye(n: Any, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
        pin_memory: Any = None) -> Tensor:
    return eye_m(n, n, dtype=dtype)


# rand_like(x) = rand(shape(x))
@register_decomposition(aten.rand_like.default)
def rand_like(self: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return aten.rand.default(list(self.shape), dtype=dtype or self.dtype)


# randn_like(x) = randn(shape(x))
@register_decomposition(aten.randn_like.default)
def randn_like(self: Tensor, *, dtype: DType | None = None, layout: Any = None, device: Any = None,
               pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return aten.randn.default(list(self.shape), dtype=dtype or self.dtype)


def _integers(low: Any, high: Any, size: list[Any], dtype: DType) -> Tensor:
    """floor(rand(size) · (high - low)) + low, as ``dtype``."""
    uniform = aten.rand.default(size, dtype=DType.float64)
    scaled = aten.floor.default(aten.mul.Tensor(uniform, high - low))
    return aten._to_copy.default(aten.add.Tensor(scaled, low), dtype=dtype)


# randint(high, size) = floor(rand(size) · high)
@register_decomposition(aten.randint.default)
def randint(high: Any, size: list[Any], *, dtype: Any = DType.int64, layout: Any = None, device: Any = None,
            pin_memory: Any = None) -> Tensor:
    return _integers(0, high, size, _dtype(dtype, DType.int64))


# randint(low, high, size) = floor(rand(size) · (high - low)) + low
@register_decomposition(aten.randint.low)
def randint_low(low: Any, high: Any, size: list[Any], *, dtype: Any = DType.int64, layout: Any = None,
                device: Any = None, pin_memory: Any = None) -> Tensor:
    return _integers(low, high, size, _dtype(dtype, DType.int64))


# randint_like(x, high) = randint(high, shape(x), dtype(x))
@register_decomposition(aten.randint_like.default)
def randint_like(self: Tensor, high: Any, *, dtype: DType | None = None, layout: Any = None,
                 device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return _integers(0, high, list(self.shape), dtype or self.dtype)


# randint_like(x, low, high) = randint(low, high, shape(x), dtype(x))
@register_decomposition(aten.randint_like.low_dtype)
def randint_like_low(self: Tensor, low: Any, high: Any, *, dtype: DType | None = None, layout: Any = None,
                     device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return _integers(low, high, list(self.shape), dtype or self.dtype)


def _dtype(value: Any, default: DType) -> DType:
    return value if isinstance(value, DType) else default


# bernoulli(p) = (rand_like(p) < p).to(dtype(p))
@register_decomposition(aten.bernoulli.default)
def bernoulli(self: Tensor, *, generator: Any = None) -> Tensor:
    return aten._to_copy.default(aten.lt.Tensor(rand_like(self), self), dtype=self.dtype)


# logspace(a, b, n, base) = base ** linspace(a, b, n) in double, to dtype (torch._refs; integer
# dtypes over the truncated bounds); linspace as torch's ref traces it: from an int64 arange
@register_decomposition(aten.logspace.default)
def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: DType | None = None,
             layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    dtype = dtype or _DEFAULT_FLOAT
    if dtype.is_integral:
        start, end = (int(v) if isinstance(v, float) else v for v in (start, end))
    if steps == 1:
        exponents = aten.full.default([1], start, dtype=DType.float64)
    else:
        index = aten.arange.start_step(0, steps, 1)
        step = (end - start) / (steps - 1)
        low = aten.add.Tensor(aten.mul.Tensor(aten._to_copy.default(index, dtype=DType.float64), step), start)
        back = aten._to_copy.default(aten.sub.Tensor(steps - 1, index), dtype=DType.float64)
        high = aten.sub.Tensor(end, aten.mul.Tensor(back, step))
        exponents = aten.where.self(aten.lt.Scalar(index, steps / 2), low, high)
    return aten._to_copy.default(aten.pow.Scalar(base, exponents), dtype=dtype)
