"""torch's type promotion, checked against hand-written cases from torch's docs."""

from __future__ import annotations

from texport.dialects.dtypes import DType, promote_types, result_type
from texport.dialects.meta import TensorMeta

D = DType


def t(dtype: DType, *shape: int) -> TensorMeta:
    return TensorMeta(tuple(shape), dtype)


def test_promote_types_table() -> None:
    cases = [
        (D.uint8, D.int8, D.int16), (D.bool, D.int32, D.int32), (D.int32, D.int64, D.int64),
        (D.float16, D.bfloat16, D.float32), (D.int64, D.float16, D.float16),
        (D.float32, D.float64, D.float64), (D.complex64, D.float64, D.complex128),
        (D.bool, D.bool, D.bool), (D.uint8, D.int64, D.int64),
    ]
    for a, b, want in cases:
        assert promote_types(a, b) is want, (a, b)
        assert promote_types(b, a) is want, (b, a)


def test_wrapped_numbers_do_not_widen_within_a_category() -> None:
    assert result_type(t(D.int32, 3), 5) is D.int32
    assert result_type(t(D.float16, 3), 1.5) is D.float16
    assert result_type(t(D.int64, 3), 1.5) is D.float32
    assert result_type(t(D.bool, 3), 1) is D.int64
    assert result_type(t(D.uint8, 3), True) is D.uint8


def test_zero_dim_tensors_rank_below_dimensioned_ones() -> None:
    assert result_type(t(D.int32, 3), t(D.int64)) is D.int32
    assert result_type(t(D.int32, 3), t(D.float64)) is D.float64
    assert result_type(t(D.float32), t(D.float64)) is D.float64
    assert result_type(t(D.float16, 2), t(D.float64), 1) is D.float16


def test_scalars_alone() -> None:
    assert result_type(1, 2) is D.int64
    assert result_type(1, 2.0) is D.float32
    assert result_type(True, False) is D.bool
