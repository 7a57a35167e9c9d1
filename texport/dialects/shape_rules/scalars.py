"""Shape rules: scalars read from a tensor (sym_size, sym_stride, item) and
runtime asserts on scalars (no result)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..dtypes import DType
from ..meta import ScalarMeta, TensorMeta
from ..symbolic import Dim, dim_str, to_dim
from . import shape_rule
from .common import normalize_dim
from .guards import check, sym_eq


def contiguous_strides(shape: Sequence[Dim]) -> list[Dim]:
    """Row-major strides; a static 0 counts as 1 (torch), a symbolic size is assumed >= 1."""
    strides: list[Dim] = []
    step: Dim = 1
    for size in reversed(shape):
        strides.append(step)
        step = step * (max(size, 1) if type(size) is int else size)
    return [to_dim(s) for s in reversed(strides)]


@shape_rule("sym_size.int")
def _sym_size(self: TensorMeta, dim: int) -> ScalarMeta:
    check(self.ndim > 0, f"Dimension specified as {dim} but tensor has no dimensions")
    return ScalarMeta("int", self.shape[normalize_dim(dim, self.ndim)])


@shape_rule("sym_numel")
def _sym_numel(self: TensorMeta) -> ScalarMeta:
    return ScalarMeta("int", to_dim(self.numel()))


@shape_rule("sym_stride.int")
def _sym_stride(self: TensorMeta, dim: int) -> ScalarMeta:
    check(self.ndim > 0, f"Dimension specified as {dim} but tensor has no dimensions")
    return ScalarMeta("int", contiguous_strides(self.shape)[normalize_dim(dim, self.ndim)])


@shape_rule("sym_storage_offset")
def _sym_storage_offset(self: TensorMeta) -> ScalarMeta:
    """Traced tensors are fresh contiguous allocations: offset 0, contiguous."""
    return ScalarMeta("int", 0)


@shape_rule("sym_is_contiguous")
def _sym_is_contiguous(self: TensorMeta, memory_format: Any = 0) -> ScalarMeta:
    return ScalarMeta("bool", True)


@shape_rule("item", "_local_scalar_dense")
def _item(self: TensorMeta) -> ScalarMeta:
    """The value is data: None tells the caller to make an unbacked symbol."""
    numel = self.numel()
    check(sym_eq(numel, 1),
          f"a Tensor with {dim_str(numel)} elements cannot be converted to Scalar")
    if self.dtype is DType.bool:
        return ScalarMeta("bool")
    return ScalarMeta("float" if self.dtype.kind in "fc" else "int")


@shape_rule("_assert_scalar", "_assert_async", "_assert_async.msg", "sym_constrain_range",
            "sym_constrain_range_for_size")
def _no_result(*_: Any) -> tuple[()]:
    return ()
