"""Elementwise kernels against independent references: the math module on tiny
lists, explicit formulas written differently from the kernels, hand-computed
numbers. Every call goes through kernel_checks.run, which also checks that the
op's shape rule agrees on shapes and dtypes; error cases the rule already
refuses call the kernel directly to check the kernel refuses them too."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from kernel_checks import gelu_double, run

from texport.dialects.registry import OPS
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.shape_rules.guards import ShapeGuardError
from texport.interpreter import native, rng
from texport.interpreter.kernels import KERNELS

f32, f64, f16 = np.float32, np.float64, np.float16
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8]


def arr(values: Any, dtype: Any = None) -> np.ndarray:
    return np.array(values, dtype=dtype)


def same(out: np.ndarray, want: Any, dtype: Any = None) -> None:
    """Exact equality, nan == nan, and the dtype when given."""
    want = np.asarray(want)
    if dtype is not None:
        assert out.dtype == np.dtype(dtype), (out.dtype, dtype)
    assert out.shape == want.shape, (out.shape, want.shape)
    np.testing.assert_array_equal(out, want)


def close(out: np.ndarray, want: Any, rtol: float = 1e-12, atol: float = 0.0) -> None:
    np.testing.assert_allclose(out, np.asarray(want, dtype=f64), rtol=rtol, atol=atol)


def mapped(fn: Callable[..., float], values: list[float]) -> list[float]:
    return [fn(v) for v in values]


# ---------------------------------------------------------------- registry coverage


def test_every_elementwise_op_has_a_kernel() -> None:
    """Each registered op whose shape rule lives in the elementwise rules has a kernel."""
    family = [
        key
        for key in OPS.keys()
        if key in SHAPE_RULES and SHAPE_RULES[key].__module__.endswith("shape_rules.elementwise")
    ]
    assert len(family) > 200
    missing = [key for key in family if key not in KERNELS]
    assert not missing, missing


def test_elementwise_kernels_are_registered_ops() -> None:
    import texport.interpreter.kernels.elementwise as module

    mine = [k for k in KERNELS.keys() if KERNELS[k].__module__ == module.__name__]
    assert mine and all(k in OPS for k in mine)


# ---------------------------------------------------------------- unary maths

UNARY = [
    ("exp", math.exp, [-3.0, -0.5, 0.0, 0.25, 2.0, 10.0]),
    ("exp2", lambda v: 2.0**v, [-3.0, -0.5, 0.0, 0.25, 2.0, 10.0]),
    ("expm1", math.expm1, [-2.0, -1e-10, 0.0, 1e-8, 0.5, 3.0]),
    ("log", math.log, [1e-5, 0.5, 1.0, 2.0, 100.0]),
    ("log2", math.log2, [1e-5, 0.5, 1.0, 8.0, 100.0]),
    ("log10", math.log10, [1e-5, 0.5, 1.0, 1000.0]),
    ("log1p", math.log1p, [-0.5, -1e-12, 0.0, 1e-9, 3.0]),
    ("sqrt", math.sqrt, [0.0, 0.25, 2.0, 1e6]),
    ("rsqrt", lambda v: 1 / math.sqrt(v), [0.25, 2.0, 1e6]),
    ("reciprocal", lambda v: 1 / v, [-4.0, 0.5, 3.0]),
    ("sin", math.sin, [-3.0, 0.0, 0.5, 10.0]),
    ("cos", math.cos, [-3.0, 0.0, 0.5, 10.0]),
    ("tan", math.tan, [-1.0, 0.0, 0.5, 1.2]),
    ("asin", math.asin, [-1.0, -0.3, 0.0, 0.9]),
    ("acos", math.acos, [-1.0, -0.3, 0.0, 0.9]),
    ("atan", math.atan, [-50.0, -0.3, 0.0, 2.0]),
    ("sinh", math.sinh, [-3.0, 0.0, 0.5, 5.0]),
    ("cosh", math.cosh, [-3.0, 0.0, 0.5, 5.0]),
    ("tanh", math.tanh, [-20.0, -0.3, 0.0, 0.5, 5.0]),
    ("asinh", math.asinh, [-3.0, 0.0, 0.5, 50.0]),
    ("acosh", math.acosh, [1.0, 1.5, 50.0]),
    ("atanh", math.atanh, [-0.9, 0.0, 0.5]),
    ("sigmoid", lambda v: 1 / (1 + math.exp(-v)), [-30.0, -1.0, 0.0, 2.0, 30.0]),
    ("erf", math.erf, [-3.0, -1.0, -1e-3, 0.0, 0.3, 1.9, 2.1, 4.0]),
]


@pytest.mark.parametrize(("op", "fn", "values"), UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize(("dtype", "rtol"), [(f64, 1e-13), (f32, 2e-6)])
def test_float_unary_matches_math(
    op: str, fn: Callable, values: list, dtype: Any, rtol: float
) -> None:
    x = arr(values, dtype)
    out = run(op, x)
    assert out.dtype == dtype
    close(out, mapped(fn, [float(v) for v in x]), rtol=rtol, atol=1e-300)


@pytest.mark.parametrize("dtype", [*INTS, np.bool_])
def test_float_unary_of_integers_gives_float32(dtype: Any) -> None:
    x = arr([0, 1], dtype)
    out = run("exp", x)
    close(out, [1.0, math.e], rtol=1e-7)
    assert out.dtype == f32
    assert run("sqrt", x).dtype == f32


def test_float_unary_edge_values() -> None:
    same(run("log", arr([0.0, -1.0, np.inf])), [-np.inf, np.nan, np.inf])
    same(run("sqrt", arr([-1.0, np.inf, np.nan])), [np.nan, np.inf, np.nan])
    same(run("rsqrt", arr([0.0, -0.0])), [np.inf, -np.inf])
    same(run("reciprocal", arr([0, 2], np.int32)), arr([np.inf, 0.5], f32), f32)
    # sigmoid far out: no overflow, exact saturation, nan stays nan
    same(run("sigmoid", arr([-1000.0, 1000.0, np.nan], f32)), arr([0.0, 1.0, np.nan], f32))


def test_erf_is_accurate_in_double_precision() -> None:
    x = np.concatenate([np.linspace(-6.5, 6.5, 2601), [1e-300, -1e-20, 5e-9, 1.9999999, 2.0]])
    out = run("erf", x)
    want = np.array(mapped(math.erf, list(x)))
    assert np.max(np.abs(out - want) / np.maximum(np.abs(want), 1e-300)) < 5e-15


def test_erf_float32_and_special_values() -> None:
    x = np.linspace(-4, 4, 801).astype(f32)
    out = run("erf", x)
    assert out.dtype == f32
    want = np.array(mapped(math.erf, [float(v) for v in x]), dtype=f32)  # correctly rounded
    ulp = np.spacing(np.abs(want)).astype(f64)  # scipy's float32 erf rounds a double once
    assert np.all(np.abs(out.astype(f64) - want.astype(f64)) <= ulp)
    exact = np.array(mapped(math.erf, [float(v) for v in x]))  # max error 0.5 ulp of the double value
    assert np.max(np.abs(out.astype(f64) - exact) / np.spacing(np.abs(want)).astype(f64)) <= 0.5 + 1e-6
    special = run("erf", arr([np.inf, -np.inf, np.nan, -0.0, 30.0]))
    same(special, [1.0, -1.0, np.nan, -0.0, 1.0])
    assert np.signbit(special[3])



@pytest.mark.parametrize(("size", "bound"), [(301, 1e-7), (4001, 2.5e-7)])
def test_sigmoid_float32_relative_error_on_both_paths(size: int, bound: float) -> None:
    """float32 sigmoid below 385 elements is scipy's expit (measured 8.0e-8 relative
    at most on [-80, 80]), above it numpy's 1 / (1 + exp(-x)) in float32 passes
    (measured 2.0e-7): both keep relative accuracy in the tail, where the result is
    tiny, against the formula in double."""
    x = np.linspace(-80, 80, size).astype(f32)
    out = run("sigmoid", x)
    assert out.dtype == f32
    want = 1 / (1 + np.exp(-x.astype(f64)))
    assert (np.abs(out - want) / want).max() < bound

def test_unary_on_strided_view_and_empty() -> None:
    base = np.arange(12.0).reshape(3, 4)
    view = base.T[::2]  # non-contiguous
    close(run("sqrt", view), np.sqrt(np.array([[0, 4, 8], [2, 6, 10]], dtype=f64)))
    same(run("exp", np.zeros((0, 3), f32)), np.zeros((0, 3), f32), f32)
    same(run("sin", np.array(0.0)), np.array(0.0))
    assert isinstance(run("sin", np.array(0.0)), np.ndarray)


def test_unary_inplace_writes_through_a_view() -> None:
    base = np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    view = base[:, ::2]
    out = run("exp_", view)
    assert out is view
    close(base, [[1.0, 1.0, math.e**2], [math.e**3, 4.0, math.e**5]])


def test_unary_inplace_refuses_float_result_into_int() -> None:
    x = arr([1, 4], np.int64)
    with pytest.raises(
        ShapeGuardError, match="result type Float can't be cast to the desired output type Long"
    ):
        run("sqrt_", x)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        KERNELS["sqrt_"](x)
    same(x, [1, 4])


# ---------------------------------------------------------------- rounding, sign, abs


def test_round_is_half_to_even() -> None:
    same(
        run("round", arr([0.5, 1.5, 2.5, -0.5, -2.5, 2.4999, np.nan], f32)),
        arr([0.0, 2.0, 2.0, -0.0, -2.0, 2.0, np.nan], f32),
        f32,
    )


@pytest.mark.parametrize(
    ("op", "fn"), [("ceil", math.ceil), ("floor", math.floor), ("trunc", math.trunc)]
)
def test_ceil_floor_trunc(op: str, fn: Callable) -> None:
    values = [-2.5, -1.5, -0.2, 0.2, 1.5, 2.5, 7.0]
    same(run(op, arr(values, f32)), arr(mapped(fn, values), f32), f32)


@pytest.mark.parametrize("op", ["ceil", "floor", "round", "trunc"])
@pytest.mark.parametrize("dtype", [*INTS, np.bool_])
def test_rounding_keeps_integers(op: str, dtype: Any) -> None:
    x = arr([0, 1, 1], dtype)
    out = run(op, x)
    same(out, x, dtype)
    assert out is not x and not np.shares_memory(out, x)


def test_round_decimals() -> None:
    # torch's formula: nearbyint(x * 10^d) / 10^d, nearbyint(x / 10^-d) * 10^-d for d < 0
    same(
        run("round.decimals", arr([15.0, 25.0, 14.0, -35.0]), decimals=-1),
        [20.0, 20.0, 10.0, -40.0],
    )
    close(run("round.decimals", arr([1.234, 0.125, -2.676]), decimals=2), [1.23, 0.12, -2.68])
    with pytest.raises(NotImplementedError, match="\"round_vml_cpu\" not implemented for 'Int'"):
        run("round.decimals", arr([3, 4], np.int32), decimals=0)
    base = arr([[1.26, 0.0], [2.34, 0.0]], f32)
    view = base[:, 0]
    assert run("round_.decimals", view, decimals=1) is view
    close(base, [[1.3, 0.0], [2.3, 0.0]], rtol=1e-6)


def test_frac() -> None:
    same(run("frac", arr([-1.5, 2.25, 3.0, -0.0])), [-0.5, 0.25, 0.0, -0.0])
    with pytest.raises(NotImplementedError, match="frac"):
        KERNELS["frac"](arr([1, 2], np.int64))


def test_sign() -> None:
    out = run("sign", arr([-2.0, -0.0, 0.0, 3.5, np.nan, -np.inf], f32))
    same(out, arr([-1, 0, 0, 1, 0, -1], f32), f32)  # torch: sign(nan) is 0
    same(run("sign", arr([-5, 0, 7], np.int8)), arr([-1, 0, 1], np.int8), np.int8)
    same(run("sign", arr([0, 200], np.uint8)), arr([0, 1], np.uint8), np.uint8)
    same(run("sign", arr([True, False], np.bool_)), arr([True, False], np.bool_), np.bool_)


def test_abs_and_neg_wrap_like_torch() -> None:
    same(run("abs", arr([-3, 0, 5, -128], np.int8)), arr([3, 0, 5, -128], np.int8), np.int8)
    same(run("abs", arr([-1.5, -0.0, np.nan])), [1.5, 0.0, np.nan])
    modulus = run("abs", np.array(3 - 4j, np.complex64))  # 0-d complex: a real 0-d modulus
    assert modulus.dtype == np.float32 and modulus.shape == () and modulus == 5
    same(run("neg", arr([1, 0, 255], np.uint8)), arr([255, 0, 1], np.uint8), np.uint8)
    same(run("neg", arr([-128, 5], np.int8)), arr([-128, -5], np.int8), np.int8)


def test_square() -> None:
    same(run("square", arr([-3, 4], np.int32)), arr([9, 16], np.int32), np.int32)
    same(run("square", arr([True, False])), arr([1, 0], np.int64), np.int64)  # bool ** 2 -> int64
    close(run("square", arr([1.5, -0.5], f32)), [2.25, 0.25])


def test_bitwise_and_logical_not() -> None:
    same(run("bitwise_not", arr([5, -1, 0], np.int8)), arr([-6, 0, -1], np.int8), np.int8)
    same(run("bitwise_not", arr([0, 15], np.uint8)), arr([255, 240], np.uint8), np.uint8)
    same(run("bitwise_not", arr([True, False])), [False, True], np.bool_)
    same(run("logical_not", arr([0.0, np.nan, -2.0], f32)), [True, False, False], np.bool_)
    same(run("logical_not", arr([0, 3], np.int16)), [True, False], np.bool_)


def test_isnan_isinf_isfinite() -> None:
    x = arr([1.0, np.nan, np.inf, -np.inf, 0.0], f16)
    same(run("isnan", x), [False, True, False, False, False], np.bool_)
    same(run("isinf", x), [False, False, True, True, False], np.bool_)
    same(run("isfinite", x), [True, False, False, False, True], np.bool_)
    ints = arr([1, -7], np.int32)
    same(run("isnan", ints), [False, False], np.bool_)
    same(run("isfinite", ints), [True, True], np.bool_)
    same(run("isinf", arr([True])), [False], np.bool_)


def test_nan_to_num() -> None:
    x = arr([np.nan, np.inf, -np.inf, 1.5], f32)
    big = float(np.finfo(f32).max)
    same(run("nan_to_num", x), arr([0.0, big, -big, 1.5], f32), f32)
    same(run("nan_to_num", x, nan=-1.0, posinf=9.0, neginf=-9.0), arr([-1.0, 9.0, -9.0, 1.5], f32))
    same(run("nan_to_num", arr([np.inf], f16)), arr([65504.0], f16), f16)
    same(run("nan_to_num", arr([3, 4], np.int64)), [3, 4], np.int64)
    base = arr([[np.nan, 0.0], [np.inf, 0.0]])
    view = base[:, 0]
    assert run("nan_to_num_", view, 2.0) is view
    same(base, [[2.0, 0.0], [np.finfo(f64).max, 0.0]])


# ---------------------------------------------------------------- activations


def test_relu_family() -> None:
    x = arr([-2.0, -0.0, 0.5, 7.0, np.nan], f32)
    same(run("relu", x), arr([0.0, 0.0, 0.5, 7.0, np.nan], f32), f32)
    same(run("relu6", x), arr([0.0, 0.0, 0.5, 6.0, np.nan], f32), f32)
    same(run("hardtanh", x, -1.0, 2.0), arr([-1.0, -0.0, 0.5, 2.0, np.nan], f32), f32)
    same(run("relu", arr([-3, 4], np.int32)), arr([0, 4], np.int32), np.int32)
    same(run("relu6", arr([-3, 4, 9], np.int64)), arr([0, 4, 6], np.int64), np.int64)
    same(run("threshold", arr([1, 2, 3], np.int32), 2, 20), arr([20, 20, 3], np.int32), np.int32)
    same(run("threshold", arr([0.5, np.nan, 3.0]), 1.0, -1.0), [-1.0, np.nan, 3.0])



@pytest.mark.parametrize("dtype", [f32, f64, np.int32])
def test_in_place_relu_and_hardtanh_equal_their_functional_forms(dtype: Any) -> None:
    """relu_ and hardtanh_ clamp a float array in its own memory (a strided view: the
    base sees it, the elements between stay); each result is bit for bit its functional
    op's, -0.0 and nan included, and an int array takes the derived path."""
    kept = [3.0] if dtype != np.int32 else [3]
    values = [-2.0, -0.0, 0.5, np.nan, 7.0, -0.7] if dtype != np.int32 else [-2, 0, 1, -1, 7, 4]
    for op, args in (("relu", ()), ("hardtanh", (-0.5, 1.0)), ("hardtanh", ())):
        base = np.array([v for value in values for v in (value, *kept)], dtype).reshape(2, 6)
        view = base[:, ::2]
        want = run(op, view.copy(), *args)
        assert run(f"{op}_", view, *args) is view
        same(view, want, dtype)
        same(base[:, 1::2], np.full((2, 3), kept[0], dtype), dtype)


def test_leaky_relu_elu_selu_celu() -> None:
    values = [-3.0, -0.5, 0.0, 0.5, 2.0]
    x = arr(values)
    close(run("leaky_relu", x, 0.2), [v if v > 0 else 0.2 * v for v in values])
    close(
        run("elu", x, 1.5, 2.0, 0.5),
        [2.0 * v if v > 0 else 1.5 * 2.0 * (math.exp(0.5 * v) - 1) for v in values],
    )
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    close(run("selu", x), [scale * (v if v > 0 else alpha * (math.exp(v) - 1)) for v in values])
    close(
        run("celu", x, 2.0), [max(0.0, v) + min(0.0, 2.0 * (math.exp(v / 2.0) - 1)) for v in values]
    )


def test_shrinks() -> None:
    x = arr([-3.0, -0.7, -0.5, -0.2, 0.0, 0.5, 0.7, 3.0, np.nan], f32)
    values = x.astype(np.float64)
    softshrink = np.where(values > 0.5, values - 0.5, np.where(values < -0.5, values + 0.5, values * 0))
    same(run("softshrink", x), softshrink.astype(f32), f32)
    assert np.signbit(run("softshrink", x)[2])  # -0.5 shrinks to -0, as x·0
    same(run("hardshrink", x, 0.6), np.where(np.abs(values) <= 0.6, 0.0, values).astype(f32), f32)
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        run("softshrink", x, -1.0)
    with pytest.raises(NotImplementedError, match="hardshrink_cpu"):
        run("hardshrink", arr([1, 2], np.int32))


def test_rrelu() -> None:
    values = np.array([-3.0, -0.5, 0.0, 0.5, 2.0])
    x = arr(values, f32)
    mean = np.where(x >= 0, x, x * f32((0.1 + 0.5) / 2))  # float maths, as torch's kernel
    same(run("rrelu", x, 0.1, 0.5), mean, f32)
    noise = arr([7.0] * 5, f32)
    out, kept = run("rrelu_with_noise_functional", x, noise, 0.1, 0.5, False)
    same(out, mean, f32)
    same(kept, noise, f32)  # out of training the noise passes through
    big = np.linspace(-4, 4, 4001)
    rng.manual_seed(3)
    out, slopes = run("rrelu_with_noise_functional", big, np.empty_like(big), 0.1, 0.5, True)
    negative = big <= 0
    same(slopes[~negative], np.ones((~negative).sum()))
    assert 0.1 <= slopes[negative].min() and slopes[negative].max() <= 0.5  # U(lower, upper)
    assert abs(slopes[negative].mean() - 0.3) < 0.01
    close(out, big * slopes)
    rng.manual_seed(3)
    again = run("rrelu", big, 0.1, 0.5, True)
    same(again, out)  # seeded: the same draws
    # rrelu_with_noise(_) write the slopes into noise when training, leave it alone otherwise
    noise = arr([7.0] * 5, f32)
    same(run("rrelu_with_noise", x, noise, 0.1, 0.5, False), mean, f32)
    same(noise, arr([7.0] * 5, f32), f32)
    written, rng_noise = big.copy(), np.zeros_like(big)
    assert run("rrelu_with_noise_", written, rng_noise, 0.1, 0.5, True) is written
    same(rng_noise[~negative], np.ones((~negative).sum()))
    assert 0.1 <= rng_noise[negative].min() and rng_noise[negative].max() <= 0.5
    close(written, big * rng_noise)
    base = arr(values, f32)
    assert run("rrelu_", base, 0.1, 0.5) is base
    same(base, mean, f32)


def test_inplace_selu_celu_threshold() -> None:
    values = [-3.0, -0.5, 0.0, 0.5, 2.0]
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    x = arr(values)
    assert run("selu_", x) is x
    close(x, [scale * (v if v > 0 else alpha * (math.exp(v) - 1)) for v in values])
    x = arr(values)
    assert run("celu_", x, 0.5) is x
    close(x, [v if v > 0 else 0.5 * math.expm1(v / 0.5) for v in values])
    x = arr(values)
    assert run("threshold_", x, 0.0, 9.0) is x
    same(x, arr([9.0, 9.0, 9.0, 0.5, 2.0]))


def test_smooth_activations() -> None:
    values = [-40.0, -3.0, -0.5, 0.0, 0.5, 3.0, 40.0]
    x = arr(values)
    close(run("silu", x), [v / (1 + math.exp(-v)) for v in values], atol=1e-300)
    softplus = [math.log1p(math.exp(v)) for v in values]
    close(run("mish", x), [v * math.tanh(s) for v, s in zip(values, softplus)], atol=1e-300)
    close(run("softplus", x), [v if v > 20 else s for v, s in zip(values, softplus)])
    close(
        run("softplus", x, 2.0, 5.0),
        [v if 2 * v > 5 else math.log1p(math.exp(2 * v)) / 2 for v in values],
    )
    close(run("log_sigmoid", x), [-math.log1p(math.exp(-v)) for v in values])
    close(run("hardswish", x), [v * min(max(v + 3, 0), 6) / 6 for v in values])
    close(run("hardsigmoid", x), [min(max(v + 3, 0), 6) / 6 for v in values])


def test_log_sigmoid_forward_buffer() -> None:
    out, buffer = run("log_sigmoid_forward", arr([-1000.0, -1.0, 2.0], f32))
    close(buffer, [0.0, math.exp(-1), math.exp(-2)], rtol=1e-6)
    close(out, [-1000.0, -math.log(1 + math.e), -math.log(1 + math.exp(-2))], rtol=1e-6)
    assert out.dtype == buffer.dtype == f32


def test_gelu() -> None:
    values = [-4.0, -1.0, -0.1, 0.0, 0.7, 3.0]
    exact = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in values]
    close(run("gelu", arr(values)), exact, rtol=1e-10, atol=1e-300)
    out32 = run("gelu", arr(values, f32))
    assert out32.dtype == f32
    close(out32, exact, rtol=1e-6)
    c = math.sqrt(2 / math.pi)
    tanh = [0.5 * v * (1 + math.tanh(c * (v + 0.044715 * v**3))) for v in values]
    close(run("gelu", arr(values), approximate="tanh"), tanh, rtol=1e-10)


def _relative_error(out: np.ndarray, want: np.ndarray) -> np.ndarray:
    tiny = float(np.finfo(f32).tiny)  # below it float32 underflows (x < -13.2)
    return np.abs(out.astype(f64) - want) / np.maximum(np.abs(want), tiny)


def test_gelu_float32_max_error_against_double() -> None:
    """float32 exact gelu from 4096 elements on is max(x, 0) - |x| Phi(-|x|) with
    Phi's tail approximated (elementwise._gelu_erf_float32) in float32 ufuncs. Measured
    against x Phi(x) in double on a 0.001 grid over [-16, 16]: relative error 8.1e-6
    at most (the far tail, where z^2 in exp rounds), 1.3e-6 above x = -5, 6.8e-7 for
    x > 0; absolute error 2.4e-7 (torch's own float32 GELU: 1.2e-6, and no relative
    accuracy below x = -3)."""
    x = np.concatenate([np.linspace(-16, 16, 32001), [-30.0, -1e-30, 1e-30, 0.0, 3e38]]).astype(f32)
    out = run("gelu", x)
    assert out.dtype == f32
    want = gelu_double(x)
    rel = _relative_error(out, want)
    assert rel.max() < 1e-5
    assert rel[x > -5].max() < 1.5e-6
    assert rel[x > 0].max() < 1e-6
    assert np.abs(out.astype(f64) - want).max() < 3e-7


def test_gelu_float32_small_inputs_round_x_ndtr_once() -> None:
    """Below 4096 elements float32 gelu is x * ndtr(x), each rounded once to float32:
    relative error below 2 float32 half-ulps (measured 1.12e-7), the far negative tail
    included."""
    x = np.concatenate([np.linspace(-12, 12, 4001), [-30.0, -1e-30, 1e-30, 0.0]]).astype(f32)
    out = run("gelu", x)
    assert out.dtype == f32
    assert _relative_error(out, gelu_double(x)).max() < 1.2e-7


@pytest.mark.parametrize("size", [7, 4096, native.MIN_SIZE])
def test_gelu_special_values(size: int) -> None:
    """Every float32 path (scipy's ndtr, numpy's passes, the native kernel where IREE is
    installed): +inf stays inf, -inf gives nan (-inf * Phi(-inf) = -inf * 0,
    as torch's x / 2 (1 + erf(x / sqrt 2)) gives), nan stays nan, far out saturates."""
    x = np.resize(arr([np.inf, -np.inf, np.nan, 10.0, -10.0, 3e38, -3e38], f32), size)
    out = run("gelu", x)
    same(out[[0, 1, 2, 3, 5, 6]], arr([np.inf, np.nan, np.nan, 10.0, 3e38, 0.0], f32), f32)
    np.testing.assert_allclose(out[4], -10.0 * 0.5 * math.erfc(10 / math.sqrt(2)), rtol=1e-5)


@pytest.mark.parametrize(("dtype", "tol"), [(np.float16, 1e-3), ("bfloat16", 8e-3), (np.float64, 1e-12)])
def test_gelu_other_float_dtypes_keep_their_dtype(dtype: Any, tol: float) -> None:
    """float16/bfloat16 compute in float32 and round once (within their half-ulp);
    float64 is x ndtr(x) in double."""
    import ml_dtypes

    dt = np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    x = np.linspace(-6, 6, 2049).astype(dt)
    out = run("gelu", x)
    assert out.dtype == dt
    np.testing.assert_allclose(out.astype(f64), gelu_double(x), rtol=tol, atol=tol * 1e-3)


def test_float_only_activations_refuse_integers() -> None:
    with pytest.raises(NotImplementedError, match="Long"):
        KERNELS["silu"](arr([1, 2], np.int64))


def test_glu_and_prelu() -> None:
    x = arr([[1.0, -2.0, 0.0, 3.0]])
    sig = [1 / (1 + math.exp(-v)) for v in (0.0, 3.0)]
    close(run("glu", x), [[1.0 * sig[0], -2.0 * sig[1]]])
    close(run("glu", x.T, 0), [[1.0 * sig[0]], [-2.0 * sig[1]]])
    x = arr([[[-1.0, 2.0]], [[-3.0, 4.0]]]).reshape(1, 2, 2)  # N=1, C=2, L=2
    close(run("prelu", x, arr([0.1, 0.5])), [[[-0.1, 2.0], [-1.5, 4.0]]])
    close(run("prelu", arr([-2.0, 3.0]), arr([0.25])), [-0.5, 3.0])
    # _prelu_kernel: the slopes come shaped [1, C, 1] and broadcast; no channel logic
    close(run("_prelu_kernel", x, arr([0.1, 0.5]).reshape(1, 2, 1)), [[[-0.1, 2.0], [-1.5, 4.0]]])
    close(run("_prelu_kernel", x, arr([0.1, 0.5])), [[[-0.1, 2.0], [-3.0 * 0.1, 4.0]]])


def test_activation_inplace_on_view() -> None:
    base = arr([[-1.0, -2.0], [3.0, -4.0]], f32)
    column = base[:, 1]
    assert run("relu_", column) is column
    same(base, arr([[-1.0, 0.0], [3.0, 0.0]], f32))
    assert run("leaky_relu_", base, 0.5) is base
    same(base, arr([[-0.5, 0.0], [3.0, 0.0]], f32))
    assert run("hardtanh_", base, 0.0, 1.0) is base
    same(base, arr([[0.0, 0.0], [1.0, 0.0]], f32))


# ---------------------------------------------------------------- promotion and broadcasting

PROMOTION = [
    # (op, a, b, expected dtype, expected values)
    ("add.Tensor", arr([1, 2], np.int32), 5, np.int32, [6, 7]),  # a scalar doesn't widen
    ("add.Tensor", arr([1, 2], np.int64), 1.5, f32, [2.5, 3.5]),  # int + float -> float32
    ("add.Scalar", arr([1, 2], np.int16), 2, np.int16, [3, 4]),
    ("add.Tensor", arr([True, False]), arr([True, True]), np.bool_, [True, True]),  # logical or
    ("add.Tensor", arr([1.0], f32), np.array(1e-3, f64), f32, [np.float32(1) + np.float32(1e-3)]),
    ("add.Tensor", arr([1], np.int32), np.array(7, np.int64), np.int32, [8]),  # 0-d ranks lower
    ("add.Tensor", arr([True]), np.array(7, np.int64), np.int64, [8]),  # ...but lifts a category
    ("add.Tensor", arr([1], np.int8), arr([200], np.uint8), np.int16, [201]),
    ("add.Tensor", arr([1.5], f16), np.array(2.0, f32), f16, [3.5]),
    ("sub.Scalar", arr([0, 5], np.uint8), 1, np.uint8, [255, 4]),  # wraps
    ("add.Scalar", arr([250], np.uint8), 10, np.uint8, [4]),
    ("mul.Tensor", arr([3], np.int64), 0.5, f32, [1.5]),
    ("mul.Tensor", arr([True, False]), arr([True, True]), np.bool_, [True, False]),
    ("div.Tensor", arr([3], np.int64), 2, f32, [1.5]),  # true division of ints
    ("div.Scalar", arr([True]), 2, f32, [0.5]),
]


@pytest.mark.parametrize(("op", "a", "b", "dtype", "want"), PROMOTION)
def test_promotion(op: str, a: np.ndarray, b: Any, dtype: Any, want: list) -> None:
    same(run(op, a, b), arr(want, dtype), dtype)


def test_float32_never_upcast() -> None:
    x = arr([1.0, 2.0], f32)
    for op in (
        "add.Tensor",
        "sub.Tensor",
        "mul.Tensor",
        "div.Tensor",
        "pow.Tensor_Scalar",
        "remainder.Scalar",
        "fmod.Scalar",
        "maximum",
        "atan2",
    ):
        other = 0.3 if op not in ("maximum", "atan2") else np.array(0.3)
        assert run(op, x, other).dtype == f32, op


def test_broadcasting_size_one_dims() -> None:
    a = np.arange(3, dtype=np.int64).reshape(3, 1)
    b = np.arange(4, dtype=np.int64) * 10
    same(run("add.Tensor", a, b), [[i + 10 * j for j in range(4)] for i in range(3)], np.int64)
    same(run("mul.Tensor", np.zeros((0, 1)), np.ones(5)), np.zeros((0, 5)))
    same(run("sub.Tensor", np.array(5.0), arr([1.0, 2.0])), [4.0, 3.0])


def test_add_sub_rsub_with_alpha() -> None:
    same(
        run("add.Tensor", arr([1, 2], np.int32), arr([1, 1], np.int32), alpha=3),
        arr([4, 5], np.int32),
    )
    same(run("sub.Tensor", arr([1.0, 2.0]), arr([4.0, 4.0]), alpha=0.5), [-1.0, 0.0])
    same(run("add.Scalar", arr([1.0]), 2.0, 3), [7.0])
    same(run("rsub.Scalar", arr([1, 2], np.int64), 10, 2), arr([8, 6], np.int64))  # 10 - 2x
    same(run("rsub.Tensor", arr([1.0, 2.0]), arr([5.0, 5.0])), [4.0, 3.0])


def test_sub_of_bools_is_refused() -> None:
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        KERNELS["sub.Tensor"](arr([True]), arr([False]), 1)


# ---------------------------------------------------------------- division, remainder, fmod

PAIRS = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 4), (0, -3)]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_integer_division_modes(dtype: Any) -> None:
    a, b = arr([p[0] for p in PAIRS], dtype), arr([p[1] for p in PAIRS], dtype)
    same(
        run("div.Tensor_mode", a, b, rounding_mode="floor"),
        arr([x // y for x, y in PAIRS], dtype),
        dtype,
    )
    same(
        run("div.Tensor_mode", a, b, rounding_mode="trunc"),
        arr([math.trunc(x / y) for x, y in PAIRS], dtype),
        dtype,
    )
    same(run("floor_divide", a, b), arr([x // y for x, y in PAIRS], dtype), dtype)
    same(run("remainder.Tensor", a, b), arr([x % y for x, y in PAIRS], dtype), dtype)
    same(run("fmod.Tensor", a, b), arr([int(math.fmod(x, y)) for x, y in PAIRS], dtype), dtype)
    same(run("div.Tensor", a, b), arr([x / y for x, y in PAIRS], f32), f32)


def test_unsigned_division() -> None:
    a = arr([7, 200, 0], np.uint8)
    same(run("div.Scalar_mode", a, 2, rounding_mode="trunc"), arr([3, 100, 0], np.uint8), np.uint8)
    same(run("remainder.Scalar", a, 3), arr([1, 2, 0], np.uint8), np.uint8)


def test_float_division_modes() -> None:
    pairs = [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (1.0, 0.1), (-4.0, 2.0)]
    a, b = arr([p[0] for p in pairs]), arr([p[1] for p in pairs])
    same(run("div.Tensor_mode", a, b, rounding_mode="floor"), [x // y for x, y in pairs])
    same(
        run("div.Tensor_mode", a, b, rounding_mode="trunc"),
        [float(math.trunc(x / y)) for x, y in pairs],
    )
    close(run("remainder.Tensor", a, b), [x % y for x, y in pairs], atol=1e-15)
    close(run("fmod.Tensor", a, b), [math.fmod(x, y) for x, y in pairs], atol=1e-15)
    same(run("div.Tensor", arr([1.0, -1.0, 0.0]), arr([0.0, 0.0, 0.0])), [np.inf, -np.inf, np.nan])
    same(run("div.Scalar_mode", arr([1.0, -1.0]), 0.0, rounding_mode="floor"), [np.inf, -np.inf])
    same(run("remainder.Scalar", arr([5.0, -5.0]), -np.inf), [-np.inf, -5.0])
    same(run("fmod.Scalar", arr([5.0]), 0.0), [np.nan])



@pytest.mark.parametrize("divisor", [2.0, -2.0, 0.3, -0.3, 0.0, np.inf, -np.inf, np.nan, "tensor"])
def test_float_remainder_is_torchs_fmod_then_shift_bit_for_bit(divisor: Any) -> None:
    """torch's float remainder: fmod, then + b where the signs differ; a zero result keeps
    fmod's sign (the dividend's; numpy's remainder would give the divisor's)."""
    a = arr([-7.5, -4.0, -0.0, 0.0, 3.0, 4.0, 5.5, np.inf, -np.inf, np.nan, 1e-30, -1e-30], f32)
    b = arr([2.0, -2.0, 3.0, -3.0, 0.5, -4.0, 5.5, 1.0, 2.0, 1.0, -1.0, 1.0], f32) if divisor == "tensor" else f32(divisor)
    with np.errstate(all="ignore"):
        mod = np.fmod(a, b)
        want = np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)
    out = run("remainder.Tensor" if divisor == "tensor" else "remainder.Scalar", a, b if divisor == "tensor" else divisor)
    same(out, want, f32)
    assert (np.signbit(out) == np.signbit(want)).all()

@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("div.Tensor_mode", (arr([1, 2]), arr([1, 0]), "trunc")),
        ("div.Scalar_mode", (arr([1, 2], np.int32), 0, "floor")),
        ("floor_divide", (arr([1]), arr([0]))),
        ("remainder.Scalar", (arr([1], np.int16), 0)),
        ("fmod.Tensor", (arr([1], np.uint8), arr([0], np.uint8))),
    ],
)
def test_integer_division_by_zero_raises(op: str, args: tuple) -> None:
    with pytest.raises(ZeroDivisionError, match="ZeroDivisionError"):
        KERNELS[op](*args)


def test_true_divide_and_floor_divide_scalar() -> None:
    same(run("true_divide.Scalar", arr([3, 4], np.int8), 2), arr([1.5, 2.0], f32), f32)
    same(run("floor_divide.Scalar", arr([-3.0, 3.0], f32), 2), arr([-2.0, 1.0], f32), f32)


# ---------------------------------------------------------------- pow, atan2, min/max


def test_pow() -> None:
    same(run("pow.Tensor_Scalar", arr([2, -3], np.int32), 3), arr([8, -27], np.int32), np.int32)
    close(run("pow.Tensor_Scalar", arr([4, 9], np.int64), 0.5), [2.0, 3.0])
    assert run("pow.Tensor_Scalar", arr([4, 9], np.int64), 0.5).dtype == f32
    close(run("pow.Tensor_Scalar", arr([2.0, 0.0], f32), -1), [0.5, np.inf])
    same(run("pow.Scalar", 2, arr([0, 1, 3], np.int64)), arr([1, 2, 8], np.int64), np.int64)
    same(run("pow.Scalar", 2.0, arr([0, 1, 3], np.int64)), arr([1, 2, 8], f32), f32)
    close(run("pow.Tensor_Tensor", arr([2.0, 9.0]), arr([-2.0, 0.5])), [0.25, 3.0])


def test_integer_pow_negative_exponents() -> None:
    with pytest.raises(
        ShapeGuardError, match="Integers to negative integer powers are not allowed."
    ):
        run("pow.Tensor_Scalar", arr([2], np.int64), -1)
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        KERNELS["pow.Tensor_Scalar"](arr([2], np.int64), -1)
    # tensor exponents follow torch's powi: 1 ** -n = 1, (-1) ** -n = +-1, else 0
    base = arr([2, 1, -1, -1, 5, 3], np.int64)
    exponent = arr([-1, -3, -3, -2, 0, 2], np.int64)
    same(run("pow.Tensor_Tensor", base, exponent), arr([0, 1, -1, 1, 1, 9], np.int64), np.int64)


def test_atan2() -> None:
    pairs = [(1.0, 1.0), (-1.0, -1.0), (0.0, -1.0), (-0.0, -1.0), (2.0, 0.0)]
    out = run("atan2", arr([p[0] for p in pairs], f32), arr([p[1] for p in pairs], f32))
    close(out, [math.atan2(y, x) for y, x in pairs], rtol=1e-6)
    assert run("atan2", arr([1], np.int32), arr([1], np.int32)).dtype == f32


def test_atan2_out_writes_into_out() -> None:
    out = np.zeros(2, f64)
    result = run("atan2.out", arr([1.0, 0.0]), arr([0.0, 1.0]), out=out)
    assert result is out
    close(out, [math.pi / 2, 0.0])


def test_maximum_minimum_propagate_nan() -> None:
    a, b = arr([1.0, np.nan, 3.0, -0.5]), arr([2.0, 0.0, np.nan, -1.0])
    same(run("maximum", a, b), [2.0, np.nan, np.nan, -0.5])
    same(run("minimum", a, b), [1.0, np.nan, np.nan, -1.0])
    same(
        run("max.other", arr([1, 5], np.int8), arr([3, 2], np.int8)), arr([3, 5], np.int8), np.int8
    )
    same(run("min.other", arr([True, False]), arr([True, True])), [True, False], np.bool_)
    same(run("maximum", arr([1], np.int32), arr([2.5], f32)), arr([2.5], f32), f32)


# ---------------------------------------------------------------- bitwise, logical, comparisons


def test_bitwise() -> None:
    a, b = arr([12, -1, 0], np.int32), arr([10, 5, 7], np.int32)
    same(run("bitwise_and.Tensor", a, b), arr([8, 5, 0], np.int32), np.int32)
    same(run("bitwise_or.Tensor", a, b), arr([14, -1, 7], np.int32), np.int32)
    same(run("bitwise_xor.Tensor", a, b), arr([6, -6, 7], np.int32), np.int32)
    same(run("bitwise_and.Scalar", arr([255, 16], np.uint8), 15), arr([15, 0], np.uint8), np.uint8)
    same(run("bitwise_xor.Tensor", arr([True, False]), arr([True, True])), [False, True], np.bool_)
    base = arr([[1, 2], [3, 4]], np.int64)
    view = base[:, 0]
    assert run("bitwise_or_.Scalar", view, 8) is view
    same(base, [[9, 2], [11, 4]])


def test_logical_ops() -> None:
    a = arr([0.0, np.nan, 2.0, 0.0], f32)
    b = arr([0, 0, 3, 1], np.int64)
    same(run("logical_and", a, b), [False, False, True, False], np.bool_)
    same(run("logical_or", a, b), [False, True, True, True], np.bool_)
    same(run("logical_xor", a, b), [False, True, False, True], np.bool_)


def test_comparisons() -> None:
    ints = arr([1, 2, 3], np.int64)
    same(run("lt.Scalar", ints, 1.5), [True, False, False], np.bool_)  # compared in float
    same(run("ge.Scalar", ints, 2), [False, True, True], np.bool_)
    nan = arr([np.nan, 1.0])
    same(run("eq.Tensor", nan, nan), [False, True], np.bool_)
    same(run("ne.Tensor", nan, nan), [True, False], np.bool_)
    same(
        run("gt.Tensor", arr([[1], [5]], np.int8), arr([0, 3, 9], np.int32)),
        [[True, False, False], [True, True, False]],
        np.bool_,
    )
    same(run("le.Tensor", arr([True, False]), arr([0, 0], np.uint8)), [False, True], np.bool_)
    same(run("eq.Scalar", arr([0.1], f32), 0.1), [True], np.bool_)  # 0.1 cast to float32 first


# ---------------------------------------------------------------- where, clamp, masked_fill


def test_where() -> None:
    cond = arr([True, False, True])
    same(
        run("where.self", cond, arr([1, 2, 3], np.int32), arr([10, 20, 30], np.int64)),
        arr([1, 20, 3], np.int64),
        np.int64,
    )
    same(
        run("where.ScalarOther", cond, arr([1, 2, 3], np.int32), 0),
        arr([1, 0, 3], np.int32),
        np.int32,
    )
    same(run("where.ScalarSelf", cond, 0.5, arr([1, 2, 3], np.int32)), arr([0.5, 2, 0.5], f32), f32)
    same(run("where.Scalar", cond, 1, 2.5), arr([1.0, 2.5, 1.0], f32), f32)
    same(run("where.self", arr([1, 0], np.uint8), arr([1.0, 2.0]), arr([3.0, 4.0])), [1.0, 4.0])
    same(
        run("where.self", arr([[True], [False]]), arr([1.0, 2.0]), np.array(0.0)),
        [[1.0, 2.0], [0.0, 0.0]],
    )


def test_clamp() -> None:
    x = arr([-3.0, 0.5, 4.0, np.nan], f32)
    same(run("clamp", x, -1, 2), arr([-1.0, 0.5, 2.0, np.nan], f32), f32)
    same(run("clamp", x, 3, 1), arr([1.0, 1.0, 1.0, np.nan], f32), f32)  # min > max: max
    same(run("clamp", x, None, 0), arr([-3.0, 0.0, 0.0, np.nan], f32), f32)
    same(run("clamp", arr([1, 5], np.int32), 1.5), arr([1.5, 5.0], f32), f32)  # promotes
    same(run("clamp", arr([1, 5, 9], np.uint8), 2, 6), arr([2, 5, 6], np.uint8), np.uint8)
    lo, hi = arr([0.0, 1.0]), arr([[0.5], [3.0]])
    same(run("clamp.Tensor", arr([-1.0, 2.0]), lo, hi), [[0.0, 0.5], [0.0, 2.0]])
    same(run("clamp_min", arr([-1, 3], np.int64), 0), arr([0, 3], np.int64))
    same(run("clamp_max.Tensor", arr([-1.0, 3.0]), arr([0.0, 0.0])), [-1.0, 0.0])
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        KERNELS["clamp"](x, None, None)


def test_clamp_inplace_on_view() -> None:
    base = np.arange(6, dtype=np.int64).reshape(2, 3)
    view = base.T
    assert run("clamp_", view, 1, 4) is view
    same(base, [[1, 1, 2], [3, 4, 4]])
    view = base[0]
    assert run("clamp_min_", view, 2) is view
    same(base, [[2, 2, 2], [3, 4, 4]])
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        KERNELS["clamp_"](base, 0.5, None)


def test_masked_fill() -> None:
    x = arr([[1, 2, 3], [4, 5, 6]], np.int32)
    mask = arr([True, False, True])
    same(
        run("masked_fill.Scalar", x, mask, -1), arr([[-1, 2, -1], [-1, 5, -1]], np.int32), np.int32
    )
    same(
        run("masked_fill.Tensor", x, mask, np.array(9.0)),
        arr([[9, 2, 9], [9, 5, 9]], np.int32),
        np.int32,
    )
    same(
        run("masked_fill.Scalar", arr([1.0, 2.0]), arr([[True, False], [False, False]]), np.nan),
        [[np.nan, 2.0], [1.0, 2.0]],
    )
    same(
        run("masked_fill.Scalar", arr([0, 1], np.uint8), arr([True, False]), -1),
        arr([255, 1], np.uint8),
    )
    same(
        run("masked_fill.Scalar", arr([0, 1], np.int64), arr([True, False]), 2.7),
        arr([2, 1], np.int64),
    )
    base = np.zeros((3, 2))
    view = base[:, 1]
    assert run("masked_fill_.Scalar", view, arr([True, False, True]), 7.0) is view
    same(base, [[0.0, 7.0], [0.0, 0.0], [0.0, 7.0]])


def test_lerp_addcmul_addcdiv() -> None:
    start, end = arr([1.0, -2.0, 10.0], f32), arr([3.0, 2.0, 0.0], f32)
    same(run("lerp.Scalar", start, end, 0.0), start)
    same(run("lerp.Scalar", start, end, 1.0), end)
    # here start + 1 * (end - start) rounds away from end: torch's formula is exact at 1
    start1, end1 = arr([0.0012573021], f32), arr([-0.00013210486], f32)
    same(run("lerp.Tensor", start1, end1, arr([1.0], f32)), end1, f32)
    close(run("lerp.Scalar", start, end, 0.25), [1.5, -1.0, 7.5])
    close(run("lerp.Tensor", start, end, arr([0.5, 0.75, 0.1], f32)), [2.0, 1.0, 9.0], rtol=1e-6)
    same(
        run(
            "addcmul", arr([1, 2], np.int64), arr([3, 4], np.int64), arr([5, 6], np.int64), value=2
        ),
        arr([31, 50], np.int64),
        np.int64,
    )
    close(run("addcdiv", arr([1.0]), arr([3.0]), arr([4.0]), value=0.5), [1.375])
    close(run("addcdiv", arr([1], np.int64), arr([3.0], f32), arr([4], np.int64)), [1.75])
    base = arr([[0.0, 1.0], [0.0, 2.0]])
    view = base[:, 1]
    assert run("lerp_.Scalar", view, arr([3.0, 4.0]), 0.5) is view
    same(base, [[0.0, 2.0], [0.0, 3.0]])


# ---------------------------------------------------------------- fill, zero, copy


def test_fill_and_zero() -> None:
    x = np.ones((2, 2), np.int16)
    out = run("fill.Scalar", x, 7)
    same(out, np.full((2, 2), 7), np.int16)
    same(x, np.ones((2, 2)))  # functional: self untouched
    same(run("fill.Tensor", np.zeros(3, f32), np.array(2.5)), arr([2.5] * 3, f32), f32)
    base = np.zeros((3, 3), np.uint8)
    view = base[::2, 1]
    assert run("fill_.Scalar", view, -1) is view  # wraps like a C++ cast
    same(base, [[0, 255, 0], [0, 0, 0], [0, 255, 0]])
    view = base[1]
    assert run("fill_.Tensor", view, np.array(4, np.int64)) is view
    same(base, [[0, 255, 0], [4, 4, 4], [0, 255, 0]])
    view = base.T[1:]
    assert run("zero_", view) is view
    same(base, [[0, 0, 0], [4, 0, 0], [0, 0, 0]])


@pytest.mark.parametrize(
    ("dtype", "value", "ctype"),
    [
        (np.int8, 200, "int8_t"),
        (np.uint8, 256, "uint8_t"),
        (np.uint8, -256, "uint8_t"),
        (np.int32, float("inf"), "int32_t"),
        (np.float16, 1e5, "c10::Half"),
    ],
)
def test_fill_value_out_of_range(dtype: Any, value: Any, ctype: str) -> None:
    message = f"value cannot be converted to type {ctype} without overflow"
    with pytest.raises(RuntimeError, match=re.escape(message)):
        KERNELS["fill_.Scalar"](np.zeros(2, dtype), value)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        KERNELS["masked_fill.Scalar"](np.zeros(2, dtype), arr([True, False]), value)


def test_copy_and_copy_() -> None:
    base = np.zeros((3, 2), np.int32)
    view = base.T  # (2, 3), non-contiguous
    src = arr([1.9, -2.7, 3.0], f32)
    assert run("copy_", view, src) is view  # broadcast over rows, truncating to int
    same(base, [[1, 1], [-2, -2], [3, 3]])
    out = run("copy", np.zeros((2, 3), f64), arr([True, False, True]))
    same(out, [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]], f64)
    same(run("copy_", np.zeros(2, np.bool_), arr([0.0, 0.3])), [False, True])


# ---------------------------------------------------------------- in-place arithmetic


def test_inplace_arithmetic_returns_self_and_writes_view() -> None:
    base = np.arange(6, dtype=f32).reshape(2, 3)
    view = base[:, ::2]
    assert run("add_.Tensor", view, arr([10.0, 20.0], f32), alpha=2) is view
    same(base, arr([[20, 1, 42], [23, 4, 45]], f32))
    assert run("mul_.Scalar", view, 0.5) is view
    same(base, arr([[10, 1, 21], [11.5, 4, 22.5]], f32))
    assert run("sub_.Scalar", base, 1) is base
    assert run("div_.Tensor", base, arr([1.0, 2.0, 4.0], f32)) is base
    same(base, arr([[9, 0, 5], [10.5, 1.5, 5.375]], f32))


def test_inplace_integer_arithmetic() -> None:
    x = arr([5, -7], np.int32)
    assert run("add_.Tensor", x, arr([1, 1], np.int64)) is x  # int64 result fits int32's category
    same(x, arr([6, -6], np.int32), np.int32)
    assert run("floor_divide_.Scalar", x, 4) is x
    same(x, [1, -2])
    assert run("remainder_.Scalar", x, 3) is x
    same(x, [1, 1])
    assert run("div_.Tensor_mode", x, arr([2, 2], np.int32), rounding_mode="floor") is x
    same(x, [0, 0])
    assert run("pow_.Scalar", x, 2) is x


@pytest.mark.parametrize(
    ("op", "args", "message"),
    [
        (
            "add_.Scalar",
            (arr([1, 2], np.int64), 1.5, 1),
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            "div_.Tensor",
            (arr([1, 2], np.int32), arr([2, 2], np.int32)),
            "result type Float can't be cast to the desired output type Int",
        ),
        (
            "mul_.Tensor",
            (arr([True]), arr([2], np.int64)),
            "result type Long can't be cast to the desired output type Bool",
        ),
        (
            "add_.Tensor",
            (arr([1.0, 2.0]), arr([[1.0, 2.0]]), 1),
            "doesn't match the broadcast shape",
        ),
    ],
)
def test_inplace_refuses_like_torch(op: str, args: tuple, message: str) -> None:
    before = args[0].copy()
    with pytest.raises(RuntimeError, match=re.escape(message)):
        KERNELS[op](*args)
    same(args[0], before)


def test_inplace_self_aliasing_other() -> None:
    x = arr([[1.0, 2.0], [3.0, 4.0]])
    assert run("add_.Tensor", x, x.T) is x
    same(x, [[2.0, 5.0], [5.0, 8.0]])


# ---------------------------------------------------------------- dropout


def test_dropout_eval_and_edge_probabilities() -> None:
    x = np.arange(1.0, 7.0, dtype=f32).reshape(2, 3)
    out = run("dropout", x, 0.5, False)
    same(out, x, f32)
    assert out is not x
    same(run("dropout", x, 0.0, True), x)
    same(run("dropout", x, 1.0, True), np.zeros((2, 3), f32))


def test_dropout_statistics_and_reproducibility() -> None:
    x = np.ones(40000, f32)
    rng.manual_seed(7)
    out = run("dropout", x, 0.25, True)
    assert out.dtype == f32
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.75, rtol=1e-6)
    assert abs(kept.mean() - 0.75) < 0.01
    assert abs(out.mean() - 1.0) < 0.015  # the scaling keeps the expectation
    rng.manual_seed(7)
    same(run("dropout", x, 0.25, True), out)
    assert not np.array_equal(run("dropout", x, 0.25, True), out)


def test_native_dropout() -> None:
    x = np.full((100, 100), 3.0)
    rng.manual_seed(0)
    out, mask = run("native_dropout", x, 0.5, True)
    assert mask.dtype == np.bool_ and out.dtype == f64
    same(out, np.where(mask, 6.0, 0.0))
    assert abs(mask.mean() - 0.5) < 0.02
    rng.manual_seed(0)
    out_none, mask_none = run("native_dropout", x, 0.5, None)  # train=None means train
    same(mask_none, mask)
    out, mask = run("native_dropout", x, 0.5, False)
    same(out, x)
    assert mask.all()


def test_feature_and_alpha_dropout() -> None:
    rng.manual_seed(3)
    x = np.ones((8, 50, 4, 4), f32)
    out = run("feature_dropout", x, 0.5, True)
    channel_zero = (out == 0).all(axis=(2, 3))
    channel_kept = (out == 2).all(axis=(2, 3))
    assert (channel_zero | channel_kept).all() and channel_zero.any() and channel_kept.any()
    normal = np.random.default_rng(5).standard_normal(200000)
    out = run("alpha_dropout", normal, 0.2, True)
    alpha = 1.7580993408473766  # selu's negative saturation, alpha * scale
    a = 1 / math.sqrt((alpha**2 * 0.2 + 1) * 0.8)
    dropped = np.isclose(
        out, a * -alpha + a * alpha * 0.2
    )  # a dropped x becomes -alpha, then a*x + b
    kept = np.isclose(out, a * normal + a * alpha * 0.2)
    assert (dropped | kept).all() and 0.19 < dropped.mean() < 0.21
    assert abs(out.mean()) < 0.01 and abs(out.var() - 1) < 0.02  # selu's statistics are kept
    fa = run("feature_alpha_dropout", np.zeros((4, 30, 5)), 0.5, True)
    assert (fa == fa[:, :, :1]).all()  # one value per channel


def test_dropout_inplace() -> None:
    base = np.ones((4, 1000))
    view = base[::2]
    rng.manual_seed(1)
    assert run("dropout_", view, 0.5, True) is view
    assert set(np.unique(base[::2])) == {0.0, 2.0}
    same(base[1::2], np.ones((2, 1000)))
    assert run("alpha_dropout_", base, 0.5, False) is base


def test_native_dropout_backward_scales_the_kept_gradient() -> None:
    grad = np.array([1.0, 2.0, 3.0], np.float16)
    out = run("native_dropout_backward", grad, np.array([True, False, True]), 1 / 0.3)
    assert out.dtype == np.float16
    # computed in float32 and rounded once: 3 / 0.3 = 10 exactly, 1 / 0.3 -> 3.334 in float16
    np.testing.assert_array_equal(out, np.array([1 / 0.3, 0.0, 10.0], np.float32).astype(np.float16))
    floats = run("native_dropout_backward", grad.astype(np.float32), np.array([1.0, 0.0, 1.0], np.float32), 2.0)
    np.testing.assert_array_equal(floats, [2.0, 0.0, 6.0])
    promoted = run("native_dropout_backward", np.array([1, 2, 3]), np.array([True, False, True]), 1.5)
    assert promoted.dtype == np.float32 and promoted.tolist() == [1.5, 0.0, 4.5]  # int grad * float scale


def test_bit_shifts_saturate_outside_the_dtypes_width() -> None:
    x, n = np.array([1, 2, -8]), np.array([1, 70, 2])
    assert run("bitwise_left_shift.Tensor", x, n).tolist() == [2, 0, -32]
    assert run("bitwise_right_shift.Tensor", x, np.array([-1, 64, 65])).tolist() == [0, 0, -1]  # sign fill
    small = run("__lshift__.Tensor", np.array([5], np.int8), np.array([9], np.int8))
    assert small.dtype == np.int8 and small.tolist() == [0]
    assert run("__rshift__.Scalar", np.array([200], np.uint8), 1).tolist() == [100]
    assert run("bitwise_left_shift.Scalar_Tensor", 3, np.array([1, 2])).tolist() == [6, 12]
    with pytest.raises(NotImplementedError, match='"lshift_cpu" not implemented for \'Float\''):
        KERNELS["bitwise_left_shift.Tensor_Scalar"](np.array([1.5], np.float32), 1)


def test_allclose_and_equal_give_python_bools() -> None:
    """allclose: |a - b| <= atol + rtol |b| everywhere (broadcast); equal: same shape, same values
    (nan never equal); tracing either is a data-dependent output, as torch's fake tensors say."""
    from texport.dialects.shape_rules.guards import DataDependentOutputException

    a, b = np.array([1.0, 100.0], np.float32), np.array([1.0, 100.001], np.float32)
    assert KERNELS["allclose"](a, b) is True  # 0.001 <= 1e-8 + 1e-5 * 100
    assert KERNELS["allclose"](a, b, 0.0, 0.0) is False
    assert KERNELS["allclose"](np.array([np.nan]), np.array([np.nan]), 1e-5, 1e-8, True) is True
    assert KERNELS["allclose"](np.ones(2, np.float32), np.ones((3, 2), np.float32)) is True
    assert KERNELS["equal"](np.array([1, 2]), np.array([1.0, 2.0])) is True
    assert KERNELS["equal"](np.ones(2), np.ones(3)) is False
    assert KERNELS["equal"](np.array([np.nan]), np.array([np.nan])) is False
    with pytest.raises(DataDependentOutputException, match="aten.equal.default"):
        SHAPE_RULES["equal"](None, None)


def test_conj_physical_in_place_negates_imaginary_parts() -> None:
    z = np.array([1 + 2j, -3 - 1j], np.complex64)
    out = KERNELS["conj_physical_"](z)
    assert out is z
    np.testing.assert_array_equal(z, [1 - 2j, -3 + 1j])
    real = np.array([1.5, -2.0], np.float32)
    np.testing.assert_array_equal(KERNELS["conj_physical_"](real), [1.5, -2.0])
