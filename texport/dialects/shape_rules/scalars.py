"""Shape rules: scalars read from a tensor (sym_size, sym_stride, item) and
runtime asserts on scalars (no result)."""

from __future__ import annotations

from typing import Any

from ..dtypes import DType
from ..meta import ScalarMeta, TensorMeta
from ..symbolic import dim_str, to_dim
from . import reads_strides, shape_rule
from .common import normalize_dim
from .guards import check, sym_eq
from .strides import is_contiguous, strides_of


@shape_rule("sym_size.int")
def _sym_size(self: TensorMeta, dim: int) -> ScalarMeta:
    check(self.ndim > 0, f"Dimension specified as {dim} but tensor has no dimensions")
    return ScalarMeta("int", self.shape[normalize_dim(dim, self.ndim)])


@shape_rule("sym_numel")
def _sym_numel(self: TensorMeta) -> ScalarMeta:
    return ScalarMeta("int", to_dim(self.numel()))


@shape_rule("sym_stride.int")
@reads_strides
def _sym_stride(self: TensorMeta, dim: int) -> ScalarMeta:
    check(self.ndim > 0, f"Dimension specified as {dim} but tensor has no dimensions")
    return ScalarMeta("int", strides_of(self)[normalize_dim(dim, self.ndim)])


@shape_rule("sym_storage_offset")
def _sym_storage_offset(self: TensorMeta) -> ScalarMeta:
    """Traced tensors carry strides but no storage offset: 0 (a view's offset is not tracked)."""
    return ScalarMeta("int", 0)


@shape_rule("sym_is_contiguous")
@reads_strides
def _sym_is_contiguous(self: TensorMeta, memory_format: Any = 0) -> ScalarMeta:
    return ScalarMeta("bool", is_contiguous(self, memory_format))


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
