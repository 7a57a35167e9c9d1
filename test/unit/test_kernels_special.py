"""Special functions and the rest of the pointwise maths against independent
references: mpmath at 30 digits and the math module on tiny lists, numbers
worked by hand for the edge cases (nan, inf, -0, poles) where torch's kernels
define the value. Every call goes through kernel_checks.run, which also checks
the op's shape rule. float16 computes in float32 and rounds once, as torch's
opmath: those references are float32 results rounded to float16."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import pytest
from kernel_checks import run

from texport.dialects.shape_rules.guards import ShapeGuardError
from texport.interpreter.kernels import KERNELS

f16, f32, f64 = np.float16, np.float32, np.float64
inf, nan = math.inf, math.nan
mpmath.mp.dps = 30


def arr(values: Any, dtype: Any = None) -> np.ndarray:
    return np.array(values, dtype=dtype)


def same(out: np.ndarray, want: Any, dtype: Any) -> None:
    """Exact equality (nan == nan, -0 != 0) and the dtype."""
    want = np.asarray(want, dtype=dtype)
    assert out.dtype == np.dtype(dtype), (out.dtype, dtype)
    np.testing.assert_array_equal(out, want)
    if out.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(out[~np.isnan(out)]), np.signbit(want[~np.isnan(want)]))


def _mp(fn: Callable[..., Any]) -> Callable[..., float]:
    return lambda *v: float(fn(*(mpmath.mpf(x) for x in v)))


def _ndtr(x: Any) -> Any:
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


# op, reference, sample values (inside the function's domain)
UNARY = [
    ("erfc", math.erfc, [-3.0, -0.5, 0.0, 0.7, 5.0, 9.0]),
    ("erfinv", _mp(mpmath.erfinv), [-0.999, -0.5, 0.1, 0.9, 0.999999]),
    ("lgamma", math.lgamma, [-2.5, -0.5, 0.1, 1.0, 3.5, 100.0]),
    ("digamma", _mp(mpmath.digamma), [-2.5, -0.5, 0.1, 1.0, 3.5, 100.0]),
    ("i0", _mp(lambda x: mpmath.besseli(0, x)), [-5.0, 0.0, 0.3, 2.0, 30.0]),
    ("special_i0e", _mp(lambda x: mpmath.besseli(0, x) * mpmath.exp(-abs(x))), [-5.0, 0.0, 0.3, 2.0, 300.0]),
    ("special_i1", _mp(lambda x: mpmath.besseli(1, x)), [-5.0, 0.0, 0.3, 2.0, 30.0]),
    ("special_i1e", _mp(lambda x: mpmath.besseli(1, x) * mpmath.exp(-abs(x))), [-5.0, 0.3, 2.0, 300.0]),
    ("special_ndtr", _mp(_ndtr), [-1.0, 0.0, 0.5, 3.0]),
    ("special_ndtri", _mp(lambda p: mpmath.sqrt(2) * mpmath.erfinv(2 * p - 1)), [1e-10, 0.025, 0.5, 0.8, 0.999]),
    ("special_log_ndtr", _mp(lambda x: mpmath.log(_ndtr(x))), [-30.0, -2.0, 0.0, 0.9, 1.1, 6.0]),
    ("special_erfcx", _mp(lambda x: mpmath.exp(x * x) * mpmath.erfc(x)), [-3.0, 0.0, 0.5, 10.0, 1e4]),
    ("special_entr", _mp(lambda x: -x * mpmath.log(x)), [1e-20, 0.3, 1.0, 7.0]),
    ("special_expit", _mp(lambda x: 1 / (1 + mpmath.exp(-x))), [-40.0, -1.0, 0.0, 2.0, 40.0]),
    ("special_bessel_j0", _mp(lambda x: mpmath.besselj(0, x)), [-7.0, 0.0, 0.5, 2.4, 40.0]),
    ("special_bessel_j1", _mp(lambda x: mpmath.besselj(1, x)), [-7.0, 0.5, 3.8, 40.0]),
    ("special_bessel_y0", _mp(lambda x: mpmath.bessely(0, x)), [0.1, 0.9, 2.0, 40.0]),
    ("special_bessel_y1", _mp(lambda x: mpmath.bessely(1, x)), [0.1, 0.9, 2.0, 40.0]),
    ("sinc", _mp(lambda x: mpmath.sin(mpmath.pi * x) / (mpmath.pi * x)), [-2.5, -0.3, 1e-5, 0.5, 7.25]),
    ("special_sinc", _mp(lambda x: mpmath.sin(mpmath.pi * x) / (mpmath.pi * x)), [-0.3, 0.5]),
    ("logit", _mp(lambda x: mpmath.log(x / (1 - x))), [1e-6, 0.2, 0.5, 0.9]),
    ("special_logit", _mp(lambda x: mpmath.log(x / (1 - x))), [0.2, 0.9]),
    ("deg2rad", math.radians, [-720.0, 0.0, 45.0, 180.0]),
    ("rad2deg", math.degrees, [-7.0, 0.0, 1.0, math.pi]),
    ("special_modified_bessel_i0", _mp(lambda x: mpmath.besseli(0, x)), [-5.0, 0.0, 0.3, 20.0]),
    ("special_modified_bessel_i1", _mp(lambda x: mpmath.besseli(1, x)), [-5.0, 0.3, 20.0]),
    ("special_modified_bessel_k0", _mp(lambda x: mpmath.besselk(0, x)), [0.1, 1.0, 20.0]),
    ("special_modified_bessel_k1", _mp(lambda x: mpmath.besselk(1, x)), [0.1, 1.0, 20.0]),
    ("special_scaled_modified_bessel_k0", _mp(lambda x: mpmath.besselk(0, x) * mpmath.exp(x)), [0.1, 1.0, 200.0]),
    ("special_scaled_modified_bessel_k1", _mp(lambda x: mpmath.besselk(1, x) * mpmath.exp(x)), [0.1, 1.0, 200.0]),
    ("special_spherical_bessel_j0", _mp(lambda x: mpmath.sin(x) / x), [-7.0, 0.3, 2.0, 40.0]),
    ("special_airy_ai", _mp(mpmath.airyai), [-7.0, 0.0, 0.3, 5.0]),
    ("special_erfc", math.erfc, [-1.0, 0.5]), ("special_gammaln", math.lgamma, [0.5, 7.0]),
    ("special_psi", _mp(mpmath.digamma), [0.5, 7.0]), ("special_i0", _mp(lambda x: mpmath.besseli(0, x)), [0.5]),
]


@pytest.mark.parametrize(("op", "fn", "values"), UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize(("dtype", "rtol"), [(f64, 1e-13), (f32, 1e-6)])
def test_unary_matches_mpmath(op: str, fn: Callable, values: list, dtype: Any, rtol: float) -> None:
    x = arr(values, dtype)
    out = run(op, x)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, [fn(float(v)) for v in x], rtol=rtol, atol=1e-300)


@pytest.mark.parametrize("op", ["erfinv", "lgamma", "digamma", "i0", "special_i1e", "sinc"])
def test_float16_computes_in_float32_and_rounds_once(op: str) -> None:
    reference = {name: fn for name, fn, _ in UNARY}[op]
    x = arr([0.1, 0.3, 0.55, 0.7, 0.95], f16)
    want = np.array([reference(float(v)) for v in x], f32).astype(f16)
    same(run(op, x), want, f16)


@pytest.mark.parametrize("op", ["special_ndtri", "special_erfcx", "special_log_ndtr", "special_bessel_y1"])
@pytest.mark.parametrize("dtype", [f16, "bfloat16"])
def test_no_reduced_float_kernel_where_torch_has_none(op: str, dtype: Any) -> None:
    from texport.dialects.dtypes import DType
    from texport.interpreter.dtypes import to_numpy

    x = arr([0.5], f32).astype(to_numpy(DType.bfloat16) if dtype == "bfloat16" else dtype)
    with pytest.raises(ShapeGuardError, match="not implemented for '(Half|BFloat16)'"):
        run(op, x)
    with pytest.raises(NotImplementedError, match="not implemented for '(Half|BFloat16)'"):
        KERNELS[op](x)


@pytest.mark.parametrize("op", ["erfc", "lgamma", "i0", "sinc", "logit", "deg2rad", "special_entr", "special_i1e"])
@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.bool_])
def test_integral_inputs_give_float32(op: str, dtype: Any) -> None:
    out = run(op, arr([0, 1], dtype))
    assert out.dtype == f32
    np.testing.assert_allclose(out, run(op, arr([0.0, 1.0], f32)))


def test_edge_values_as_torch_defines_them() -> None:
    same(run("erfinv", arr([-0.0, 0.0, 1.0, -1.0, 1.5], f64)), [-0.0, 0.0, inf, -inf, nan], f64)
    same(run("lgamma", arr([-inf, inf, 0.0, -2.0], f64)), [inf, inf, inf, inf], f64)
    same(run("digamma", arr([0.0, -0.0, -2.0], f64)), [-inf, inf, nan], f64)
    same(run("sinc", arr([0.0, -0.0, inf, nan], f32)), [1.0, 1.0, nan, nan], f32)
    same(run("special_entr", arr([0.0, -1.0, nan, inf], f64)), [0.0, -inf, nan, -inf], f64)
    same(run("logit", arr([0.0, 1.0, -1.0], f64)), [-inf, inf, nan], f64)
    same(run("logit", arr([0.0, 1.0, 0.5], f64), 0.25), [math.log(1 / 3), math.log(3), 0.0], f64)
    same(run("special_ndtri", arr([0.0, 1.0, 2.0], f64)), [-inf, inf, nan], f64)
    # torch's special_ndtr is the composite (1 + erf(x / sqrt 2)) / 2: 1 + erf cancels far below 0
    same(run("special_ndtr", arr([-10.0], f64)), [0.0], f64)


# ---------------------------------------------------------------- polygamma, mvlgamma, zeta


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_matches_mpmath(n: int) -> None:
    x = arr([-2.5, -0.3, 0.2, 1.0, 4.5, 50.0], f64)
    rtol = 1e-8 if n == 1 else 1e-10  # torch's trigamma series is good to ~5e-10
    np.testing.assert_allclose(run("polygamma", n, x), [float(mpmath.polygamma(n, v)) for v in x], rtol=rtol)
    assert run("special_polygamma", n, arr([1, 2])).dtype == f32


def test_polygamma_edges_and_in_place() -> None:
    # torch's trigamma reflects below 1/2 and stays finite at the poles; zeta(s, inf) is nan
    assert np.isfinite(run("polygamma", 1, arr([-1.0])))[0]
    same(run("polygamma", 2, arr([inf])), [nan], f64)
    with pytest.raises(ShapeGuardError, match="does not support negative n"):
        run("polygamma", -1, arr([1.0]))
    x = arr([0.5, 2.0], f32)
    out = run("polygamma_", x, 1)
    assert out is x
    np.testing.assert_allclose(x, [math.pi**2 / 2, math.pi**2 / 6 - 1], rtol=1e-6)


@pytest.mark.parametrize("p", [1, 2, 4])
def test_mvlgamma_is_a_sum_of_lgammas(p: int) -> None:
    x = arr([2.0, 3.3, 10.0], f64)
    want = [sum(math.lgamma(v - i / 2) for i in range(p)) + p * (p - 1) / 4 * math.log(math.pi) for v in x]
    np.testing.assert_allclose(run("mvlgamma", x, p), want, rtol=1e-13)
    with pytest.raises(ShapeGuardError, match="p has to be greater than or equal to 1"):
        run("mvlgamma", x, 0)


def test_zeta_matches_mpmath_and_takes_scalars() -> None:
    s, q = arr([2.0, 3.5, 1.5, 4.0], f64), arr([1.0, 0.5, 7.0, -1.5], f64)
    np.testing.assert_allclose(run("special_zeta", s, q), [float(mpmath.zeta(a, b)) for a, b in zip(s, q)],
                               rtol=1e-12)
    np.testing.assert_allclose(run("special_zeta.self_scalar", 2.0, arr([1.0], f32)), [math.pi**2 / 6], rtol=1e-6)
    np.testing.assert_allclose(run("special_zeta.other_scalar", arr([2], np.int64), 1.0), [math.pi**2 / 6],
                               rtol=1e-6)
    same(run("special_zeta", arr([1.0, 2.0], f64), arr([1.0, inf], f64)), [inf, nan], f64)


# ---------------------------------------------------------------- binary


def test_incomplete_gamma_matches_mpmath() -> None:
    a, x = arr([0.5, 1.0, 3.0, 10.0], f64), arr([0.2, 1.0, 2.5, 12.0], f64)
    lower = [float(mpmath.gammainc(p, 0, q, regularized=True)) for p, q in zip(a, x)]
    np.testing.assert_allclose(run("igamma", a, x), lower, rtol=1e-12)
    np.testing.assert_allclose(run("igammac", a, x), [1 - v for v in lower], rtol=1e-12)
    np.testing.assert_allclose(run("special_gammainc", a.astype(f32), x.astype(f32)), lower, rtol=1e-6)
    same(run("igamma", arr([0.0, 1.0, -1.0], f64), arr([1.0, 0.0, 1.0], f64)), [1.0, 0.0, nan], f64)
    with pytest.raises(ShapeGuardError, match="\"igamma_cpu\" not implemented for 'Long'"):
        run("igamma", arr([1]), arr([2]))



def test_xlogy_and_xlog1py() -> None:
    x, y = arr([0.0, 0.0, 1.0, nan, 2.0, 3.0], f64), arr([nan, 0.0, 0.0, 1.0, 3.0, -1.0], f64)
    same(run("xlogy.Tensor", x, y), [nan, 0.0, -inf, nan, 2 * math.log(3), nan], f64)
    same(run("special_xlog1py", x, y), [nan, 0.0, 0.0, nan, 2 * math.log(4), -inf], f64)
    same(run("xlogy.Scalar_Other", arr([0, 2], np.int64), 4), [0.0, 2 * math.log(4)], f32)
    same(run("xlogy.Scalar_Self", 3, arr([1.0, 2.0], f64)), [0.0, 3 * math.log(2)], f64)
    same(run("special_xlogy.other_scalar", arr([2.0], f64), math.e), [2.0], f64)


def test_hypot_copysign_logaddexp() -> None:
    a, b = arr([3.0, -5.0, 0.0, inf], f64), arr([4.0, 12.0, -0.0, nan], f64)
    same(run("hypot", a, b), [5.0, 13.0, 0.0, inf], f64)
    same(run("copysign.Tensor", a, b), [3.0, 5.0, -0.0, inf], f64)
    same(run("copysign.Scalar", arr([1, -2], np.int64), -0.0), [-1.0, -2.0], f32)
    same(run("logaddexp", arr([0.0, -inf, inf, 1000.0], f64), arr([0.0, -inf, inf, 1000.0], f64)),
         [math.log(2), -inf, inf, 1000 + math.log(2)], f64)
    same(run("logaddexp2", arr([1.0, -inf], f64), arr([1.0, -inf], f64)), [2.0, -inf], f64)
    with pytest.raises(ShapeGuardError, match='"hypot_cpu" not implemented for \'Long\''):
        run("hypot", arr([1]), arr([2]))


def test_fmax_fmin_ignore_one_nan() -> None:
    a, b = arr([nan, 1.0, nan, -0.0], f32), arr([2.0, nan, nan, 3.0], f32)
    same(run("fmax", a, b), [2.0, 1.0, nan, 3.0], f32)
    same(run("fmin", a, b), [2.0, 1.0, nan, -0.0], f32)
    same(run("fmax", arr([1, 5]), arr([3, 2], np.int32)), [3, 5], np.int64)


def test_gcd_lcm() -> None:
    a, b = arr([-4, 0, 6, 17]), arr([6, 0, -9, 5])
    same(run("gcd", a, b), [math.gcd(x, y) for x, y in zip(a.tolist(), b.tolist())], np.int64)
    same(run("lcm", a, b), [math.lcm(x, y) for x, y in zip(a.tolist(), b.tolist())], np.int64)
    with pytest.raises(ShapeGuardError, match="\"gcd_cpu\" not implemented for 'Float'"):
        run("gcd", arr([1.0], f32), arr([2.0], f32))


def test_nextafter_steps_one_ulp_in_its_dtype() -> None:
    same(run("nextafter", arr([1.0, 1.0, 0.0], f64), arr([2.0, 0.0, -1.0], f64)),
         [math.nextafter(1.0, 2.0), math.nextafter(1.0, 0.0), -5e-324], f64)
    same(run("nextafter", arr([1.0], f32), arr([2.0], f32)), [1 + 2.0**-23], f32)
    same(run("nextafter", arr([1.0], f16), arr([0.0], f16)), [1 - 2.0**-11], f16)


def test_heaviside_ldexp_float_power() -> None:
    same(run("heaviside", arr([-1.0, 0.0, 2.0, nan], f32), arr([7.0, 0.5, 7.0, 7.0], f32)), [0, 0.5, 1, 0], f32)
    with pytest.raises(ShapeGuardError, match="different dtypes"):
        run("heaviside", arr([1]), arr([1.0], f32))
    same(run("ldexp.Tensor", arr([1.0, 3.0, -0.75], f32), arr([-149, 200, 2])),
         [math.ldexp(1, -149), inf, -3.0], f32)
    same(run("ldexp.Tensor", arr([1, 2]), arr([3, 4])), [8.0, 32.0], f32)
    same(run("float_power.Tensor_Tensor", arr([2, 9]), arr([0.5, -1.0], f32)), [math.sqrt(2), 1 / 9], f64)
    same(run("float_power.Scalar", 2, arr([3], np.int32)), [8.0], f64)
    x = arr([2.0, 3.0], f64)
    assert run("float_power_.Scalar", x, 2) is x and x.tolist() == [4.0, 9.0]
    with pytest.raises(ShapeGuardError, match="has dtype Float but the operation's result requires dtype Double"):
        run("float_power_.Scalar", arr([2.0], f32), 2)


def test_frexp() -> None:
    values = [5.0, -0.375, 0.0, 1e-310, inf, nan]
    mantissa, exponent = run("frexp.Tensor", arr(values, f64))
    want = [math.frexp(v) if math.isfinite(v) else (v, 0) for v in values]
    same(mantissa, [m for m, _ in want], f64)
    same(exponent, [e for _, e in want], np.int32)
    with pytest.raises(ShapeGuardError, match="only supports floating-point dtypes"):
        run("frexp.Tensor", arr([1]))


def test_isclose() -> None:
    a, b = arr([1.0, 1.0, inf, nan, -inf, 1e-9], f64), arr([1.00001, 1.1, inf, nan, inf, 0.0], f64)
    same(run("isclose", a, b), [True, False, True, False, False, True], np.bool_)
    same(run("isclose", a, b, equal_nan=True, rtol=0.2), [True, True, True, True, False, True], np.bool_)
    same(run("isclose", arr([1, 2, 3]), arr([1, 3, 3])), [True, False, True], np.bool_)
    with pytest.raises(ShapeGuardError, match="Long did not match Float"):
        run("isclose", arr([1]), arr([1.0], f32))


# ---------------------------------------------------------------- tests and signs


def test_sign_tests_and_sgn() -> None:
    x = arr([-inf, -0.0, 0.0, 2.0, inf, nan], f32)
    same(run("isposinf", x), [False, False, False, False, True, False], np.bool_)
    same(run("isneginf", x), [True, False, False, False, False, False], np.bool_)
    same(run("signbit", x), [True, True, False, False, False, False], np.bool_)
    same(run("signbit", arr([-3, 0, 4])), [True, False, False], np.bool_)
    same(run("isreal", x), [True] * 6, np.bool_)
    same(run("sgn", arr([-3, 0, 4])), [-1, 0, 1], np.int64)
    same(run("sgn", arr([3 + 4j, 0j], np.complex64)), [0.6 + 0.8j, 0j], np.complex64)
    same(run("fix", arr([-2.7, 2.7, -0.5], f32)), [-2.0, 2.0, -0.0], f32)
    same(run("fix", arr([-3, 4])), [-3, 4], np.int64)


def test_in_place_forms_write_self() -> None:
    x = arr([0.5, 2.0], f32)
    assert run("erfc_", x) is x
    np.testing.assert_allclose(x, [math.erfc(0.5), math.erfc(2.0)], rtol=1e-6)
    y = arr([1.0, -2.0], f32)
    assert run("ldexp_", y, arr([2, 3])) is y and y.tolist() == [4.0, -16.0]
    assert "xlogy_.Scalar_Other" in KERNELS and "copysign_.Tensor" in KERNELS


# ---------------------------------------------------------------- reduced floats round once


def _f16(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(f16)


def test_float16_arithmetic_ops_compute_in_float32_and_round_once() -> None:
    """torch's opmath: addcmul, addcdiv, lerp and cumsum of float16 are float32
    results rounded to float16 once (a float16 intermediate would round twice)."""
    a, b, c = _f16(256), _f16(256, seed=1), np.abs(_f16(256, seed=2)) + f16(0.5)
    wide = [v.astype(f32) for v in (a, b, c)]
    same(run("addcmul", a, b, c, value=0.3), (wide[0] + f32(0.3) * wide[1] * wide[2]).astype(f16), f16)
    same(run("addcdiv", a, b, c, value=0.3), (wide[0] + f32(0.3) * wide[1] / wide[2]).astype(f16), f16)
    weight = f32(0.3)
    same(run("lerp.Scalar", a, b, 0.3), (wide[0] + weight * (wide[1] - wide[0])).astype(f16), f16)
    same(run("cumsum", a, 0), np.cumsum(wide[0]).astype(f16), f16)


def test_float16_convolution_and_batch_norm_round_once() -> None:
    x, w = _f16(2, 3, 5, 5), _f16(4, 3, 3, 3, seed=1)
    windows = np.lib.stride_tricks.sliding_window_view(x.astype(f64), (3, 3), axis=(2, 3))
    want = np.einsum("nchwij,ocij->nohw", windows, w.astype(f64)).astype(f32).astype(f16)
    same(run("convolution", x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1), want, f16)
    weight, bias, mean, var = _f16(3, seed=2), _f16(3, seed=3), _f16(3, seed=4), np.abs(_f16(3, seed=5))
    shape = (1, 3, 1, 1)
    scale = weight.astype(f32) / np.sqrt(var.astype(f32) + f32(1e-5))
    normed = (x.astype(f32) - mean.astype(f32).reshape(shape)) * scale.reshape(shape) + bias.astype(f32).reshape(shape)
    out = run("native_batch_norm", x, weight, bias, mean, var, False, 0.1, 1e-5)[0]
    np.testing.assert_allclose(out.astype(f32), normed.astype(f16).astype(f32), rtol=0, atol=2e-3)
    assert out.dtype == f16


def _transposed_reference(x: np.ndarray, w: np.ndarray, bias: np.ndarray, stride: list[int], padding: list[int],
                          dilation: list[int], output_padding: list[int], slow: bool) -> np.ndarray:
    """y[n, o, s*stride - pad + k*dilation] += x[n, c, s] w[c, o, k], kernel offset by offset;
    ``slow``: torch's slow_conv_transpose, whose products, sums and bias add land in float16."""
    def kept(v: np.ndarray) -> np.ndarray:
        return v.astype(f16).astype(f32) if slow else v

    products = kept(np.einsum("nchw,cokl->noklhw", x.astype(f32), w.astype(f32)))
    kernel, spatial = w.shape[2:], x.shape[2:]
    rows = [(s_ - 1) * st + d * (k - 1) + 1 + o for s_, st, d, k, o in zip(spatial, stride, dilation, kernel, output_padding)]
    out = np.zeros((x.shape[0], w.shape[1], *rows), f32)
    for i, j in np.ndindex(*kernel):
        a, b = i * dilation[0], j * dilation[1]
        out[:, :, a:a + (spatial[0] - 1) * stride[0] + 1:stride[0], b:b + (spatial[1] - 1) * stride[1] + 1:stride[1]] += (
            products[:, :, i, j])
        out = kept(out)
    sizes = [r - 2 * p for r, p in zip(rows, padding)]
    out = out[:, :, padding[0]:padding[0] + sizes[0], padding[1]:padding[1] + sizes[1]]
    return (kept(out) + bias.astype(f32).reshape(-1, 1, 1)).astype(f16)


@pytest.mark.parametrize(("dilation", "output_padding"), [([1, 1], [1, 1]), ([2, 4], [2, 3])])
def test_float16_transposed_convolution_keeps_torchs_buffers(dilation: list[int], output_padding: list[int]) -> None:
    """Computed in float32 and rounded once, but where torch's backend selection
    takes slow_conv_transpose (an output padding not below the stride, which
    oneDNN refuses): its columns, col2im sums and bias add are float16."""
    x, w, bias = _f16(1, 2, 4, 4), _f16(2, 3, 3, 2, seed=1), _f16(3, seed=2)
    stride, padding = [3, 2], [1, 0]
    slow = any(o >= s for o, s in zip(output_padding, stride))
    want = _transposed_reference(x, w, bias, stride, padding, dilation, output_padding, slow)
    out = run("convolution", x, w, bias, stride, padding, dilation, True, output_padding, 1)
    same(out, want, f16)


def test_special_softmax_and_logsumexp_are_the_formulas() -> None:
    x = arr([[1.0, 2.0, 3.0], [-1.0, 0.0, 50.0]], f64)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(run("special_softmax", x, 1), e / e.sum(1, keepdims=True), rtol=1e-14)
    np.testing.assert_allclose(run("special_log_softmax", x, 1), np.log(e / e.sum(1, keepdims=True)), rtol=1e-13)
    assert run("special_log_softmax", x.astype(f32), 0, dtype=None).dtype == f32
    np.testing.assert_allclose(run("special_logsumexp", x, [1]), [math.log(sum(math.exp(v) for v in row)) for row in x],
                               rtol=1e-14)


# ---------------------------------------------------------------- orthogonal polynomials P_n(x)
def _shifted(fn: Callable[..., Any]) -> Callable[..., Any]:
    return lambda n, x: fn(n, 2 * x - 1)


def _chebyshev_v(n: Any, x: Any) -> Any:  # V_n = U_n - U_{n-1}, W_n = U_n + U_{n-1}
    return _scipy_special().eval_chebyu(n, x) - _scipy_special().eval_chebyu(n - 1, x)


def _chebyshev_w(n: Any, x: Any) -> Any:
    return _scipy_special().eval_chebyu(n, x) + _scipy_special().eval_chebyu(n - 1, x)


def _scipy_special() -> Any:
    import scipy.special

    return scipy.special


def _polynomial_references() -> list[tuple[str, Callable[..., Any]]]:
    s = _scipy_special()
    return [("chebyshev_polynomial_t", s.eval_chebyt), ("chebyshev_polynomial_u", s.eval_chebyu),
            ("chebyshev_polynomial_v", _chebyshev_v), ("chebyshev_polynomial_w", _chebyshev_w),
            ("shifted_chebyshev_polynomial_t", _shifted(s.eval_chebyt)),
            ("shifted_chebyshev_polynomial_u", _shifted(s.eval_chebyu)),
            ("shifted_chebyshev_polynomial_v", _shifted(_chebyshev_v)),
            ("shifted_chebyshev_polynomial_w", _shifted(_chebyshev_w)),
            ("hermite_polynomial_h", s.eval_hermite), ("hermite_polynomial_he", s.eval_hermitenorm),
            ("laguerre_polynomial_l", s.eval_laguerre), ("legendre_polynomial_p", s.eval_legendre)]


@pytest.mark.parametrize("name, reference", _polynomial_references(), ids=lambda v: v if isinstance(v, str) else "")
def test_orthogonal_polynomials_against_scipy(name: str, reference: Callable[..., Any]) -> None:
    x = arr([-1.7, -0.8, -0.25, 0.1, 0.45, 0.9, 2.3], f64)[:, None]
    n = arr([0, 1, 2, 3, 5, 7, 9, 12], f64)[None, :]  # both sides of the closed forms' thresholds
    want = reference(n.astype(np.int64), x)
    np.testing.assert_allclose(run(f"special_{name}", x, n), want, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(run(f"special_{name}", x.astype(f32), n.astype(f32)), want, rtol=2e-5, atol=2e-5)


def test_orthogonal_polynomials_edge_cases() -> None:
    # n < 0, nan and inf degrees give 0; a fractional degree truncates; integers give float32
    same(run("special_chebyshev_polynomial_t", arr([0.3, 0.3, 0.3, 0.3], f32), arr([-1, nan, inf, 2.7], f32)),
         [0, 0, 0, 2 * 0.3 * 0.3 - 1], f32)
    same(run("special_legendre_polynomial_p", arr([1, -1, -1], np.int64), arr([5, 5, 4], np.int64)), [1, -1, 1], f32)
    # at the ends of [-1, 1]: U_n(-1) = (-1)^n (n + 1), V_n(-1) = (-1)^n (2n + 1), W_n(1) = 2n + 1
    same(run("special_chebyshev_polynomial_u", arr([-1.0, -1.0], f64), arr([3, 4], f64)), [-4, 5], f64)
    same(run("special_chebyshev_polynomial_v", arr([-1.0], f64), arr([3], f64)), [-7], f64)
    same(run("special_chebyshev_polynomial_w", arr([1.0], f64), arr([3], f64)), [7], f64)
    same(run("special_shifted_chebyshev_polynomial_u", arr([0.0], f64), arr([3], f64)), [-4], f64)
    # Hermite beyond degree 128 (float32) / 512 (float64) is nan; Laguerre is 1 at x = 0
    same(run("special_hermite_polynomial_h", arr([0.5, 0.5], f32), arr([129, 3], f32)), [nan, 8 * 0.125 - 12 * 0.5], f32)
    same(run("special_hermite_polynomial_he", arr([0.5], f64), arr([513], f64)), [nan], f64)
    same(run("special_laguerre_polynomial_l", arr([0.0], f64), arr([40], f64)), [1], f64)
    np.testing.assert_allclose(run("special_hermite_polynomial_h.x_scalar", 2.0, arr([3], np.int64)), [40.0])
    np.testing.assert_allclose(run("special_legendre_polynomial_p.n_scalar", arr([0.5], f32), 2), [-0.125])
    with pytest.raises(ShapeGuardError, match="chebyshev_polynomial_t_cpu\" not implemented for 'Half'"):
        run("special_chebyshev_polynomial_t", arr([0.5], f16), arr([2], f16))
