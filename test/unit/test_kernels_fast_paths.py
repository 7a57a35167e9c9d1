"""The fast paths of the pointwise and reduction kernels (float32/float64 and
same-dtype operands, Python scalars) keep torch's semantics: checked against
float64 references rounded once, hand-computed cases, and the general path
(operands it does not take)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from kernel_checks import run

from texport.interpreter.kernels import KERNELS

f32, f64 = np.float32, np.float64


@pytest.fixture(autouse=True)
def _warnings_are_errors() -> Iterator[None]:
    """torch gives inf and nan silently: no numpy warning may escape a kernel."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _operands(dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((3, 5, 7)) * 10).astype(dtype)
    b = (rng.standard_normal((3, 5, 7)) * 10).astype(dtype)
    b[0, 0, :3] = [0.0, np.inf, np.nan]
    a[0, 0, :3] = [np.inf, np.inf, 1.0]
    return a, b


def _rounded(value: np.ndarray) -> np.ndarray:
    """A float64 result rounded once to float32: + - * / of two float32 are exact in
    double, then correctly rounded (double has more than 2 * 24 + 2 bits)."""
    return value.astype(f32)


@pytest.mark.parametrize("op, fn", [
    ("add.Tensor", np.add), ("sub.Tensor", np.subtract), ("mul.Tensor", np.multiply), ("div.Tensor", np.divide),
])
def test_float32_arithmetic_is_correctly_rounded(op: str, fn: Any) -> None:
    a, b = _operands(f32)
    out = run(op, a, b)
    with np.errstate(all="ignore"):
        want = _rounded(fn(a.astype(f64), b.astype(f64)))
    np.testing.assert_array_equal(out, want)
    assert out.dtype == f32


@pytest.mark.parametrize("op, fn", [
    ("add.Tensor", np.add), ("sub.Tensor", np.subtract), ("mul.Tensor", np.multiply), ("div.Tensor", np.divide),
    ("rsub.Scalar", lambda a, b: b - a),
])
@pytest.mark.parametrize("scalar", [0.1, -3, 1e300, 2**53])
def test_python_scalar_is_cast_to_float32_first(op: str, fn: Any, scalar: Any) -> None:
    """A wrapped number meets a float32 tensor cast to float32, as torch's."""
    a, _ = _operands(f32)
    out = run(op, a, scalar)
    with np.errstate(all="ignore"):
        want = _rounded(fn(a.astype(f64), f64(f32(scalar))))
    np.testing.assert_array_equal(out, want)
    assert out.dtype == f32


@pytest.mark.parametrize("operands, dtype", [
    ((np.ones((2,), f32), np.array(1.0, f64)), f32),  # a 0-d tensor does not widen a tensor with dims
    ((np.array(1.0, f32), np.array(1.0, f64)), f64),
    ((np.array(1.0, f32), np.ones((2,), f64)), f64),
    ((np.ones((2,), np.int32), 5), np.int32),  # a Python int does not widen an int tensor
    ((np.ones((2,), np.int32), 5.0), f32),
    ((np.ones((2,), np.bool_), True), np.bool_),
    ((np.ones((2,), np.int64), np.ones((2,), np.int32)), np.int64),
    ((np.ones((2,), f32), np.ones((2,), np.int64)), f32),
    ((3, np.array(2.0, f64)), f64),
])
def test_promotion_is_decided_as_torch_every_time(operands: tuple[Any, Any], dtype: Any) -> None:
    for _ in range(2):  # the second call reads the cached decision
        out = run("add.Tensor", *operands)
        assert out.dtype == dtype and isinstance(out, np.ndarray)
        assert run("mul.Tensor", *operands).dtype == dtype


def test_integer_arithmetic_wraps() -> None:
    np.testing.assert_array_equal(run("add.Tensor", np.array([127], np.int8), np.array([1], np.int8)), [-128])
    np.testing.assert_array_equal(run("add.Tensor", np.array([127], np.int8), 1), [-128])
    np.testing.assert_array_equal(run("mul.Tensor", np.array([200], np.uint8), np.array([2], np.uint8)), [144])
    np.testing.assert_array_equal(run("add.Tensor", np.array([1], np.uint8), -1), [0])  # -1 wraps to 255
    assert run("div.Tensor", np.array([3], np.int64), np.array([2], np.int64)).dtype == f32


def test_zero_dim_results_are_arrays() -> None:
    x = np.array(-2.5, f32)
    for op, args in [
        ("add.Tensor", (x, x)), ("add.Tensor", (x, 1.5)), ("mul.Scalar", (x, 2.0)), ("div.Tensor", (x, x)),
        ("lt.Tensor", (x, x)), ("neg", (x,)), ("exp", (x,)), ("rsqrt", (np.array(4.0, f32),)),
        ("sigmoid", (x,)), ("tanh", (x,)), ("silu", (x,)), ("relu", (x,)), ("clamp", (x, -1.0, 1.0)),
        ("pow.Tensor_Scalar", (x, 2)), ("sum", (x,)), ("mean", (x,)), ("var", (x,)),
        ("amax", (np.ones(3, f32),)), ("any", (np.ones(3, bool),)), ("where.self", (np.array(True), x, x)),
    ]:
        out = run(op, *args)
        assert type(out) is np.ndarray and out.ndim == 0, op


def test_broadcasting_errors_stay_errors() -> None:
    with pytest.raises(ValueError):
        KERNELS["add.Tensor"](np.ones((2, 3), f32), np.ones((4,), f32), 1)


def test_sigmoid_float32_within_three_ulps_of_double() -> None:
    """Max error against the float64 formula: 2.4 ulps on small arrays (scipy's expit),
    3.3 ulps on large ones (numpy's exp, 1 / (1 + e) in float32, as torch's kernel),
    wherever the result is a normal float32. Below -88.7 exp(-x) overflows to inf and
    the result is 0, as torch's."""
    x = np.linspace(-87, 88, 200_001).astype(f32)
    want = 1 / (1 + np.exp(-x.astype(f64)))
    ulp = np.spacing(want.astype(f32)).astype(f64)
    small = np.concatenate([run("sigmoid", chunk) for chunk in np.array_split(x, 1000)])
    large = run("sigmoid", x)
    for out, bound in ((small, 2.5), (large, 3.5)):
        assert out.dtype == f32
        assert np.max(np.abs(out.astype(f64) - want) / ulp) <= bound
    for size in (8, 4096):
        edge = np.resize(np.array([-1000, -89, 1000, np.nan, np.inf, -np.inf, -0.0, 0.0], f32), size)
        np.testing.assert_array_equal(run("sigmoid", edge)[:8], np.array([0, 0, 1, np.nan, 1, 0, 0.5, 0.5], f32))


def test_sigmoid_and_silu_float64_and_complex() -> None:
    x = np.linspace(-30, 30, 2001)
    np.testing.assert_allclose(run("sigmoid", x), 1 / (1 + np.exp(-x)), rtol=4e-16)
    np.testing.assert_allclose(run("silu", x), x / (1 + np.exp(-x)), rtol=4e-16)
    z = np.array([1 + 2j, -0.5j], np.complex64)
    np.testing.assert_allclose(run("sigmoid", z), 1 / (1 + np.exp(-z)), rtol=1e-6)


def test_unary_float32_matches_double_rounded() -> None:
    x = np.linspace(-10, 10, 1001).astype(f32)
    positive = np.abs(x) + f32(0.5)
    np.testing.assert_array_equal(run("sqrt", positive), _rounded(np.sqrt(positive.astype(f64))))
    np.testing.assert_array_equal(run("neg", x), -x)
    np.testing.assert_array_equal(run("relu", np.array([-1, np.nan, -0.0, 2], f32)), [0, np.nan, 0, 2])
    np.testing.assert_allclose(run("rsqrt", positive), 1 / np.sqrt(positive.astype(f64)), rtol=2.5e-7)
    np.testing.assert_allclose(run("tanh", x), np.tanh(x.astype(f64)), rtol=5e-7, atol=1e-7)


def test_pow_two_and_half_are_torchs_square_and_sqrt() -> None:
    x = np.array([3e20, -2.0, -0.0, -np.inf, np.nan, 0.1], f32)
    with np.errstate(all="ignore"):
        square, root = x * x, np.sqrt(x)
    np.testing.assert_array_equal(run("pow.Tensor_Scalar", x, 2), square)
    half = run("pow.Tensor_Scalar", x, 0.5)
    np.testing.assert_array_equal(half, root)  # sqrt(-inf) is nan, sqrt(-0.0) is -0.0, as torch's
    assert np.signbit(half[2])
    assert run("pow.Tensor_Scalar", np.array([3], np.int64), 2).dtype == np.int64


def test_comparisons_cast_the_scalar_to_the_tensor_dtype() -> None:
    x = np.array([0.1, 0.2, np.nan], f32)
    np.testing.assert_array_equal(run("eq.Scalar", x, 0.1), [True, False, False])  # float32(0.1) == 0.1
    np.testing.assert_array_equal(run("lt.Scalar", x, 1e300), [True, True, False])
    np.testing.assert_array_equal(run("ne.Tensor", x, x), [False, False, True])
    assert run("gt.Scalar", np.array([1, 2], np.int32), 1.5).tolist() == [False, True]


def test_where_masked_fill_and_clamp() -> None:
    x = np.array([1.0, -2.0, np.nan, 4.0], f32)
    mask = np.array([True, False, True, False])
    same_dtype = run("where.self", mask, x, np.zeros(4, f32))
    np.testing.assert_array_equal(same_dtype, [1, 0, np.nan, 0])
    np.testing.assert_array_equal(run("where.ScalarOther", mask, x, 0.1), np.array([1, 0.1, np.nan, 0.1], f32))
    assert run("where.self", mask.astype(np.uint8), x, x).dtype == f32
    filled = run("masked_fill.Scalar", x, mask, float("-inf"))
    np.testing.assert_array_equal(filled, [-np.inf, -2, -np.inf, 4])
    assert np.isnan(run("masked_fill.Scalar", x, mask, float("nan"))[0])
    with pytest.raises(RuntimeError, match="without overflow"):
        KERNELS["masked_fill.Scalar"](x, mask, 1e300)
    np.testing.assert_array_equal(run("clamp", x, -1.0, 2.0), [1, -1, np.nan, 2])
    np.testing.assert_array_equal(run("clamp", x, None, 0), [0, -2, np.nan, 0])
    np.testing.assert_array_equal(run("clamp", x, 3.0, 1.0), [1, 1, np.nan, 1])  # min > max: max
    assert run("clamp", np.array([1, 5], np.int32), 2.5, None).dtype == f32


def test_masked_fill_with_a_mask_that_broadcasts_to_self() -> None:
    """The copy-then-fill path: a causal mask over a stack of score matrices, self a permuted
    view; the result is a fresh row-major array, self untouched."""
    scores = np.arange(2 * 4 * 4, dtype=f32).reshape(4, 2, 4).transpose(1, 0, 2)
    before = scores.copy()
    causal = ~np.tril(np.ones((4, 4), bool))
    filled = run("masked_fill.Scalar", scores, causal, float("-inf"))
    expected = scores.copy()
    expected[:, causal] = -np.inf  # the mask indexes each (4, 4) matrix
    np.testing.assert_array_equal(filled, expected)
    assert filled.flags.c_contiguous and not np.shares_memory(filled, scores)
    np.testing.assert_array_equal(scores, before)
    ints = run("masked_fill.Scalar", np.arange(6, dtype=np.int16).reshape(2, 3), np.array([True, False, True]), 2.9)
    assert ints.dtype == np.int16 and ints.tolist() == [[2, 1, 2], [2, 4, 2]]


def test_in_place_forms_write_into_self() -> None:
    x = np.ones(3, f32)
    assert KERNELS["add_.Tensor"](x, np.full(3, 2, f32), 1) is x and x.tolist() == [3, 3, 3]
    y = np.ones(3, f32)
    KERNELS["mul_.Scalar"](y, 0.5)
    assert y.tolist() == [0.5] * 3


# ---------------------------------------------------------------- softmax and reductions


def _softmax_reference(x: np.ndarray, axis: int) -> np.ndarray:
    wide = x.astype(f64)
    e = np.exp(wide - wide.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_softmax_and_log_softmax_float32(dim: int) -> None:
    x = (np.random.default_rng(3).standard_normal((4, 6, 5)) * 5).astype(f32)
    kept = x.copy()
    soft = run("_softmax", x, dim, False)
    log = run("_log_softmax", x, dim, False)
    np.testing.assert_array_equal(x, kept)  # the input is not written
    want = _softmax_reference(x, dim)
    np.testing.assert_allclose(soft, want, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(log, np.log(want), rtol=1e-5, atol=2e-6)
    assert soft.dtype == log.dtype == f32


def test_softmax_of_masked_rows_nan_inf_and_empty() -> None:
    x = np.array([[-np.inf, -np.inf], [0.0, -np.inf], [np.nan, 1.0], [np.inf, 1.0], [1.0, np.nan]], f32)
    nan = [np.nan, np.nan]
    np.testing.assert_array_equal(run("_softmax", x, -1, False), [nan, [1, 0], nan, nan, nan])
    np.testing.assert_array_equal(run("_log_softmax", x, -1, False), [nan, [0, -np.inf], nan, nan, nan])
    assert run("_softmax", np.ones((0, 3), f32), -1, False).shape == (0, 3)
    assert run("_softmax", np.array(2.0, f32), 0, False).tolist() == 1.0


def test_sum_mean_var_float32_against_double() -> None:
    x = (np.random.default_rng(5).standard_normal((3, 4, 50)) * 3 + 1).astype(f32)
    wide = x.astype(f64)
    np.testing.assert_allclose(run("sum.dim_IntList", x, [-1]), wide.sum(-1), rtol=1e-6)
    np.testing.assert_allclose(run("mean.dim", x, [0, 2], True), wide.mean((0, 2), keepdims=True), rtol=1e-6)
    var = run("var.correction", x, [-1], correction=0, keepdim=True)
    np.testing.assert_allclose(var, wide.var(-1, keepdims=True), rtol=1e-5)
    std, mean = run("std_mean.correction", x, [1], correction=1.5)
    np.testing.assert_allclose(std, np.sqrt(((wide - wide.mean(1, keepdims=True)) ** 2).sum(1) / 2.5), rtol=1e-5)
    np.testing.assert_allclose(mean, wide.mean(1), rtol=1e-6, atol=1e-6)
    assert var.dtype == std.dtype == mean.dtype == f32


def test_reduction_edges() -> None:
    assert np.isnan(run("mean.dim", np.ones((0, 2), f32), [0])).all()
    assert np.isnan(run("var.correction", np.ones(1, f32), None, correction=1))  # 0 / 0, as torch
    assert np.isinf(run("var.correction", np.array([1, 2], f32), None, correction=2))  # 0.5 / 0
    assert run("amax", np.array([1.0, np.nan], f32)).tolist() != run("amax", np.array([1.0, 2.0], f32)).tolist()
    with pytest.raises(IndexError):
        KERNELS["amax"](np.ones((0, 2), f32), [0], False)
    assert run("any.dim", np.array([[False, True], [False, False]]), 1, False).tolist() == [True, False]
    assert run("all.dim", np.array([[True, True], [False, True]]), 1, True).tolist() == [[True], [False]]
    assert run("any", np.zeros(0, bool)).tolist() is False
    assert run("any", np.array([0, 2], np.uint8)).dtype == np.uint8
    with pytest.raises(Exception, match="out of range"):
        KERNELS["sum.dim_IntList"](np.ones(3, f32), [3], False, None)


def test_python_int_with_integer_tensor_wraps_as_torch() -> None:
    small = np.array([100, -5], np.int8)
    np.testing.assert_array_equal(run("add.Tensor", small, 100), np.array([-56, 95], np.int8))  # in range
    np.testing.assert_array_equal(run("mul.Tensor", small, 3), np.array([44, -15], np.int8))
    np.testing.assert_array_equal(run("add.Tensor", np.array([1], np.uint8), 300), [45])  # 300 wraps to 44
    assert run("eq.Scalar", small, 100).tolist() == [True, False]
    assert run("where.ScalarOther", np.array([True, False]), small, 5).dtype == np.int8
    assert run("add.Tensor", np.array([True]), 1).dtype == np.int64
    assert run("add.Tensor", np.array(3, np.int8), 1).shape == ()


def test_hardtanh_and_in_place_writes() -> None:
    x = np.array([-3.0, 0.5, np.nan, 9.0], f32)
    np.testing.assert_array_equal(run("hardtanh", x, -1.0, 1.0), [-1, 0.5, np.nan, 1])
    np.testing.assert_array_equal(run("relu6", x), [0, 0.5, np.nan, 6])
    KERNELS["hardtanh_"](x, 0.0, 6.0)
    np.testing.assert_array_equal(x, [0, 0.5, np.nan, 6])
    view = np.zeros((2, 4), f32)[:, ::2]
    KERNELS["add_.Tensor"](view, np.ones((2, 2), f32), 1)
    assert view.tolist() == [[1, 1], [1, 1]]
    with pytest.raises(RuntimeError, match="can't be cast"):
        KERNELS["add_.Tensor"](np.ones(2, np.int64), np.ones(2, f32), 1)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        KERNELS["add_.Tensor"](np.ones(2, f32), np.ones((3, 2), f32), 1)


def test_in_place_arithmetic_into_self() -> None:
    x = np.array([1.0, 2.0], f32)
    assert KERNELS["add_.Tensor"](x, np.array([0.5, 0.5], f32), 2) is x and x.tolist() == [2.0, 3.0]  # alpha
    assert KERNELS["div_.Scalar"](x, 4.0) is x and x.tolist() == [0.5, 0.75]
    assert KERNELS["sub_.Tensor"](x, 0.25, 1) is x and x.tolist() == [0.25, 0.5]
    small = np.array([127], np.int8)
    assert KERNELS["add_.Scalar"](small, 1, 1) is small and small.tolist() == [-128]
    zero_dim = np.array(3.0, f32)
    assert KERNELS["mul_.Tensor"](zero_dim, np.array(2.0, f32)) is zero_dim and zero_dim.tolist() == 6.0
    with pytest.raises(RuntimeError, match="can't be cast"):
        KERNELS["div_.Tensor"](np.array([4], np.int64), np.array([2], np.int64))
    with pytest.raises(RuntimeError, match="Subtraction"):
        KERNELS["sub_.Tensor"](np.array([True]), np.array([True]), 1)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        KERNELS["mul_.Tensor"](np.ones(2, f32), np.ones((3, 2), f32))
    overflow = np.array([3e38], f32)
    KERNELS["mul_.Scalar"](overflow, 10.0)
    assert overflow.tolist() == [np.inf]
