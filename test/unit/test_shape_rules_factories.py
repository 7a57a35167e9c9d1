"""Shape rules of factories, random fills and symbolic-scalar ops: shapes and dtype inference."""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from shape_rule_checks import raises as fails

import texport.dialects.op_table  # noqa: F401  (registers the schemas infer() binds against)
from texport.dialects.dtypes import DType
from texport.dialects.meta import ScalarMeta, TensorMeta
from texport.dialects.registry import OPS
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.shape_rules.infer import infer
from texport.dialects.symbolic import FloorDiv, symbol

f32, f64, f16, i64, i32, b8, c64 = (
    DType.float32, DType.float64, DType.float16, DType.int64, DType.int32, DType.bool,
    DType.complex64,
)
s0, s1 = symbol("s0"), symbol("s1")


def T(*shape: Any, dtype: DType = f32) -> TensorMeta:
    return TensorMeta(tuple(shape), dtype)


def run(op: str, *args: Any, **kwargs: Any) -> Any:
    """Bind by schema when the op is registered; otherwise call the rule positionally."""
    if op in OPS:
        return infer(op, *args, **kwargs)
    return SHAPE_RULES[op](*args, **kwargs)


# ---------------------------------------------------------------------------- from a size list


@pytest.mark.parametrize("op", ["zeros", "ones", "empty.memory_format", "rand", "randn"])
def test_float_factories(op: str) -> None:
    assert run(op, [2, s0]) == T(2, s0)
    assert run(op, [3], dtype=f64) == T(3, dtype=f64)
    assert run(op, []) == T()
    with fails("Trying to create tensor with negative dimension -1: [2, -1]"):
        run(op, [2, -1])


def test_empty_strided() -> None:
    assert run("empty_strided", [2, 3], [3, 1], dtype=i32) == T(2, 3, dtype=i32)
    with fails("mismatch in length of strides and shape"):
        run("empty_strided", [2, 3], [1])


@pytest.mark.parametrize(("fill", "dtype"), [
    (1, i64), (True, b8), (1.0, f32), (2 + 1j, c64), (s0, i64), (sympy.Float(0.5), f32),
    (sympy.Gt(s0, 2), b8),
])
def test_full_infers_dtype_from_the_fill_value(fill: Any, dtype: DType) -> None:
    assert run("full", [2, s0], fill) == T(2, s0, dtype=dtype)


def test_full_with_dtype() -> None:
    assert run("full", [3], 1, dtype=f16) == T(3, dtype=f16)


def test_randint_randperm_eye_scalar_tensor() -> None:
    assert run("randint", 10, [2, s0]) == T(2, s0, dtype=i64)
    assert run("randint.low", 3, 10, [4], dtype=i32) == T(4, dtype=i32)
    assert run("randperm", s0) == T(s0, dtype=i64)
    assert run("randperm", 5, dtype=f32) == T(5)
    assert run("eye", 3) == T(3, 3)
    assert run("eye.m", s0, 4, dtype=b8) == T(s0, 4, dtype=b8)
    with fails("n must be greater or equal to 0, got -1"):
        run("eye", -1)
    assert run("scalar_tensor", 3) == T()  # no inference: the default float
    assert run("scalar_tensor", 3, dtype=i64) == T(dtype=i64)


# ---------------------------------------------------------------------------- like another tensor


@pytest.mark.parametrize("op", ["zeros_like", "ones_like", "empty_like", "rand_like",
                                "randn_like"])
def test_like(op: str) -> None:
    x = T(s0, 3, dtype=f64)
    assert run(op, x) == x
    assert run(op, x, dtype=i32) == T(s0, 3, dtype=i32)


def test_full_like_keeps_the_dtype_of_self() -> None:
    assert run("full_like", T(2, s0), 7) == T(2, s0)
    assert run("full_like", T(2, dtype=i64), 0.5) == T(2, dtype=i64)
    assert run("full_like", T(2), 1, dtype=b8) == T(2, dtype=b8)
    assert run("randint_like", T(4, dtype=i32), 10) == T(4, dtype=i32)
    assert run("randint_like.low_dtype", T(4), 1, 10, dtype=i64) == T(4, dtype=i64)


def test_new_factories() -> None:
    x = T(3, dtype=f64)
    for op in ("new_zeros", "new_ones", "new_empty"):
        assert run(op, x, [2, s0]) == T(2, s0, dtype=f64)
        assert run(op, x, [2], dtype=i64) == T(2, dtype=i64)
    assert run("new_full", x, [4], 1) == T(4, dtype=f64)  # new_full does not infer either


# ---------------------------------------------------------------------------- ranges


def test_arange_static() -> None:
    assert run("arange", 5) == T(5, dtype=i64)
    assert run("arange", 5.0) == T(5)
    assert run("arange", 4.5) == T(5)
    assert run("arange.start", 2, 7) == T(5, dtype=i64)
    assert run("arange.start_step", 0, 10, 3) == T(4, dtype=i64)
    assert run("arange.start_step", 10, 0, -3) == T(4, dtype=i64)
    assert run("arange.start_step", 0, 1, 0.1) == T(10)
    assert run("arange.start_step", 0, 10, 2, dtype=f64) == T(5, dtype=f64)


def test_arange_symbolic() -> None:
    length = run("arange.start_step", 0, s0, 2).shape[0]
    assert length == FloorDiv(s0 + 1, 2)
    assert [length.subs(s0, n) for n in range(1, 7)] == [1, 1, 2, 2, 3, 3]
    assert run("arange", s0) == T(s0, dtype=i64)
    assert run("arange.start", 1, s0 + 1) == T(s0, dtype=i64)
    assert run("arange.start_step", 0, 2 * s0, 2) == T(s0, dtype=i64)
    down = run("arange.start_step", s0, 0, -3).shape[0]
    assert [down.subs(s0, n) for n in (1, 3, 4, 7)] == [1, 1, 2, 3]


def test_arange_errors() -> None:
    with fails("step must be nonzero"):
        run("arange.start_step", 0, 5, 0)
    with fails("upper bound and larger bound inconsistent with step sign"):
        run("arange.start_step", 5, 0, 1)


def test_linspace() -> None:
    assert run("linspace", 0, 1, 5) == T(5)
    assert run("linspace", 0, 1, s0, dtype=f64) == T(s0, dtype=f64)
    assert run("linspace", 0j, 1, 3) == T(3, dtype=c64)
    with fails("number of steps must be non-negative"):
        run("linspace", 0, 1, -1)


# ---------------------------------------------------------------------------- random fills


@pytest.mark.parametrize(("op", "extra"), [
    ("bernoulli", ()), ("bernoulli.p", (0.3,)), ("bernoulli_.float", ()),
    ("bernoulli_.Tensor", (T(3),)), ("uniform_", ()), ("normal_", (0.0, 2.0)),
])
def test_random_fills_keep_shape_and_dtype(op: str, extra: tuple[Any, ...]) -> None:
    x = T(s0, 3, dtype=f64)
    assert run(op, x, *extra) == x


# ---------------------------------------------------------------------------- symbolic scalars


def test_sym_size_numel_stride() -> None:
    x = T(2, s0, 4)
    assert run("sym_size.int", x, 1) == ScalarMeta("int", s0)
    assert run("sym_size.int", x, -1) == ScalarMeta("int", 4)
    assert run("sym_numel", x) == ScalarMeta("int", 8 * s0)
    assert run("sym_numel", T()) == ScalarMeta("int", 1)
    assert [run("sym_stride.int", x, d).value for d in range(3)] == [4 * s0, 4, 1]
    assert [run("sym_stride.int", T(3, 0, 2), d).value for d in range(3)] == [2, 2, 1]
    assert run("sym_storage_offset", x) == ScalarMeta("int", 0)
    assert run("sym_is_contiguous", x) == ScalarMeta("bool", True)
    with fails("dim out of range"):
        run("sym_size.int", x, 3)


@pytest.mark.parametrize(("dtype", "kind"), [(f32, "float"), (i64, "int"), (b8, "bool")])
def test_item_is_an_unknown_scalar(dtype: DType, kind: str) -> None:
    for op in ("item", "_local_scalar_dense"):
        assert run(op, T(dtype=dtype)) == ScalarMeta(kind, None)
        assert run(op, T(1, 1, dtype=dtype)) == ScalarMeta(kind, None)


def test_item_needs_one_element() -> None:
    with fails("a Tensor with 3 elements cannot be converted to Scalar"):
        run("item", T(3))


def test_asserts_return_nothing() -> None:
    assert run("_assert_scalar", s0 > 2, "Runtime assertion failed") == ()
    assert run("_assert_async", T(dtype=b8)) == ()
    assert run("_assert_async.msg", T(dtype=b8), "boom") == ()
    assert run("sym_constrain_range", s0, min=2, max=10) == ()
    assert run("sym_constrain_range_for_size", s0) == ()
