"""Tensor factories: ``tensor``, ``zeros``, ``arange``, ``randn``, the ``*_like`` forms.

``Tensor(data)`` is ``tensor(data)``, so the Tensor class builds on this module:
here a tensor is a TensorBase, and a tensor of data is made by the current mode
(tracing lifts a constant; the eager mode wraps the array).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from texport.dialects.dtypes import DType
from texport.interpreter import rng
from texport.interpreter.dtypes import cast, to_numpy
from texport.interpreter.dtypes import from_numpy as dtype_from_numpy
from texport.interpreter.prepacked import note_shared

from .dispatcher import TensorBase, base_mode, call, current_mode, varargs_list
from .handles import op


def _infer_dtype(data: Any, array: np.ndarray) -> DType:
    """torch.tensor's inference: Python floats → float32, ints → int64; a numpy
    array keeps its dtype."""
    if isinstance(data, np.ndarray):
        return dtype_from_numpy(array.dtype)
    kind = array.dtype.kind
    if kind == "f":
        return DType.float32
    if kind in "iu":
        return DType.int64
    if kind == "c":
        return DType.complex64
    if kind == "b":
        return DType.bool
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _plain(data: Any) -> Any:
    if isinstance(data, TensorBase):
        return data._concrete("tensor(...)")
    if isinstance(data, (list, tuple)):
        return [_plain(item) for item in data]
    return data


def _constant(array: np.ndarray, dtype: DType, requires_grad: bool = False) -> TensorBase:
    """A tensor made from data: tracing lifts a constant; under any other mode
    (eager, or one that only watches calls) the eager mode keeps the array."""
    lift = getattr(current_mode(), "constant", None)
    if lift is not None:
        return lift(array, dtype)
    return base_mode().tensor(array, dtype, requires_grad)


def tensor(data: Any, *, dtype: DType | None = None, device: Any = None,
           requires_grad: bool = False) -> TensorBase:
    """``texport.tensor([[1, 2], [3, 4]])``: always copies the data."""
    return _fresh(_from_data(data, dtype, requires_grad))


def _from_data(data: Any, dtype: DType | None, requires_grad: bool = False) -> TensorBase:
    plain = _plain(data)
    array = np.array(plain)
    if array.dtype == object:
        raise TypeError("texport.tensor(): nested sequences must be rectangular numbers")
    chosen = dtype or _infer_dtype(plain, array)
    # np.array copied the data: the cast (rounding as torch converts) may return it
    return _constant(cast(array, to_numpy(chosen)), chosen, requires_grad)


def _fresh(made: TensorBase) -> TensorBase:
    """A tensor made from data inside an exported forward is read as torch
    records it: the lifted constant copied (lift_fresh_copy) and detached in
    place, which functionalization leaves as one clone."""
    if not getattr(current_mode(), "records_fresh_constants", False):
        return made
    return call(op("detach_"), call(op("lift_fresh_copy"), made))


def constant_tensor(value: Any, dtype: DType) -> TensorBase:
    """A 0-d constant, lifted as it is (``x[i] = 2.0`` copies it once itself)."""
    return _from_data(value, dtype)


def as_tensor(data: Any, dtype: DType | None = None, device: Any = None) -> TensorBase:
    if isinstance(data, TensorBase) and (dtype is None or dtype is data.dtype):
        return data
    if isinstance(data, np.ndarray) and dtype is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def from_numpy(array: np.ndarray) -> TensorBase:
    """Shares memory with the array, as torch.from_numpy."""
    note_shared(array)  # written behind texport's back, perhaps: no weight packed from it
    return _constant(array, dtype_from_numpy(array.dtype))


def zeros(*size: Any, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("zeros"), varargs_list(size), dtype=dtype)


def ones(*size: Any, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("ones"), varargs_list(size), dtype=dtype)


def empty(*size: Any, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("empty.memory_format"), varargs_list(size), dtype=dtype)


def full(size: Any, fill_value: Any, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("full"), list(size), fill_value, dtype=dtype)


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    if end is None:
        return call(op("arange"), start, dtype=dtype)
    if step == 1:
        return call(op("arange.start"), start, end, dtype=dtype)
    return call(op("arange.start_step"), start, end, step, dtype=dtype)


def _bounds_overload(name: str, start: Any, end: Any) -> str:
    """linspace/logspace: a tensor start or end picks the Tensor_Tensor, Tensor_Scalar or Scalar_Tensor overload."""
    kinds = ["Tensor" if isinstance(v, TensorBase) else "Scalar" for v in (start, end)]
    return name if kinds == ["Scalar", "Scalar"] else f"{name}.{kinds[0]}_{kinds[1]}"


def linspace(start: Any, end: Any, steps: int, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op(_bounds_overload("linspace", start, end)), start, end, steps, dtype=dtype)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: DType | None = None,
             **_: Any) -> TensorBase:
    return call(op(_bounds_overload("logspace", start, end)), start, end, steps, base, dtype=dtype)


def eye(n: int, m: int | None = None, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    if m is None:
        return call(op("eye"), n, dtype=dtype)
    return call(op("eye.m"), n, m, dtype=dtype)


def randn(*size: Any, dtype: DType | None = None, generator: Any = None, **_: Any) -> TensorBase:
    return call(op("randn"), varargs_list(size), dtype=dtype)


def rand(*size: Any, dtype: DType | None = None, generator: Any = None, **_: Any) -> TensorBase:
    return call(op("rand"), varargs_list(size), dtype=dtype)


def randint(low: int, high: Any = None, size: Any = None, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    return call(op("randint.low"), low, high, list(size), dtype=dtype)


def randperm(n: Any, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("randperm"), n, dtype=dtype or DType.int64)


def zeros_like(x: TensorBase, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("zeros_like"), x, dtype=dtype)


def ones_like(x: TensorBase, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("ones_like"), x, dtype=dtype)


def empty_like(x: TensorBase, *, dtype: DType | None = None, memory_format: Any = None, **_: Any) -> TensorBase:
    """memory_format is recorded: it decides what empty_like decomposes into (empty_permuted
    under preserve_format, empty otherwise), as torch's."""
    return call(op("empty_like"), x, dtype=dtype, memory_format=memory_format)


def full_like(x: TensorBase, fill_value: Any, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("full_like"), x, fill_value, dtype=dtype)


def rand_like(x: TensorBase, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("rand_like"), x, dtype=dtype)


def randn_like(x: TensorBase, *, dtype: DType | None = None, **_: Any) -> TensorBase:
    return call(op("randn_like"), x, dtype=dtype)


def randint_like(x: TensorBase, low: int, high: Any = None, *, dtype: DType | None = None) -> TensorBase:
    if high is None:
        return call(op("randint_like"), x, low, dtype=dtype)
    return call(op("randint_like.low_dtype"), x, low, high, dtype=dtype)


class Generator:
    """What ``manual_seed`` returns (texport has one global generator)."""

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def initial_seed(self) -> int:
        return self._seed


def manual_seed(seed: int) -> Generator:
    """Seed the one generator every random op draws from (reproducible everywhere)."""
    rng.manual_seed(int(seed))
    return Generator(int(seed))


def scalar_tensor(value: Any, *, dtype: DType | None = None) -> TensorBase:
    return call(op("scalar_tensor"), value, dtype=dtype)
