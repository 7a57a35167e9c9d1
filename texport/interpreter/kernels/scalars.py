"""Kernels: scalars read from a tensor (sizes, strides, item) and runtime
asserts on scalars. An assert returns no value: it raises torch's error."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import kernel
from .views import element_strides, is_contiguous, storage_offset, wrap_dim


@kernel("sym_size.int")
def _sym_size(self: np.ndarray, dim: int) -> int:
    return int(self.shape[wrap_dim(dim, self.ndim)])


@kernel("sym_numel")
def _sym_numel(self: np.ndarray) -> int:
    return int(self.size)


@kernel("sym_stride.int")
def _sym_stride(self: np.ndarray, dim: int) -> int:
    return element_strides(self)[wrap_dim(dim, self.ndim)]


@kernel("sym_storage_offset")
def _sym_storage_offset(self: np.ndarray) -> int:
    return storage_offset(self)


@kernel("sym_is_contiguous")
def _sym_is_contiguous(self: np.ndarray, memory_format: Any = 0) -> bool:
    return is_contiguous(self, memory_format)


@kernel("item", "_local_scalar_dense")
def _item(self: np.ndarray) -> bool | int | float:
    """A Python bool, int or float, by the tensor's dtype."""
    if self.size != 1:
        raise RuntimeError(f"a Tensor with {self.size} elements cannot be converted to Scalar")
    return self.reshape(()).item()


@kernel("_assert_scalar")
def _assert_scalar(self: Any, assert_msg: str) -> tuple[()]:
    if not self:
        raise RuntimeError(assert_msg)
    return ()


@kernel("_assert_async")
def _assert_async(self: np.ndarray) -> tuple[()]:
    return _assert_async_msg(self, "Expected Tensor with single nonzero value, but got zero")


@kernel("_assert_async.msg")
def _assert_async_msg(self: np.ndarray, assert_msg: str) -> tuple[()]:
    if self.size != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if not self.reshape(()).item():
        raise RuntimeError(assert_msg)
    return ()


def _constrain(size: Any, low: int | None, high: int | None) -> tuple[()]:
    if (low is not None and size < low) or (high is not None and size > high):
        low_text = "-int_oo" if low is None else low
        high_text = "int_oo" if high is None else high
        raise RuntimeError(f"Invalid value {size} for range [{low_text}:{high_text}]")
    return ()


@kernel("sym_constrain_range")
def _sym_constrain_range(size: Any, min: int | None = None, max: int | None = None) -> tuple[()]:
    return _constrain(size, min, max)


@kernel("sym_constrain_range_for_size")
def _sym_constrain_range_for_size(
    size: Any, min: int | None = None, max: int | None = None
) -> tuple[()]:
    """A size: the lower bound defaults to 0."""
    return _constrain(size, 0 if min is None else min, max)
