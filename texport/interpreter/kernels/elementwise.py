"""Kernels: elementwise ops -- unary maths and activations, binary arithmetic,
comparisons, selection, fills and copies, dropout.

Every kernel computes in torch's dtype: operands are cast to the promoted type
(``torch_result_dtype``: a Python scalar doesn't widen a tensor, int32 + 5 stays
int32) before numpy sees them, so numpy never upcasts float32 to float64. A
scalar is cast the way torch's C++ cast does (-1 into uint8 is 255). float16
and bfloat16 compute in float32 and round once, as torch's CPU kernels do
(``opmath_dtype``); a Python scalar meets them rounded to their dtype, except
a factor or divisor of mul/div and the weights of lerp/addcmul/addcdiv, which
torch keeps in float32. The in-place forms (``add_``) are derived from these
kernels (variants.py).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from texport.dialects._lazy import LazyModule
from texport.dialects.shape_rules.common import broadcasts_to, normalize_dim, scalar_type_name

from .. import native, rng
from ..dtypes import (
    FLOAT32,
    cast,
    checked_fill,
    finfo,
    from_numpy,
    is_bfloat16,
    is_inexact,
    is_reduced_float,
    opmath_dtype,
)
from . import kernel
from .common import (
    as_result,
    dtype_constants,
    logaddexp,
    quiet,
    quiet_unary,
    silenced,
    torch_result_dtype,
)
from .variants import in_place, write_into

Array = np.ndarray
Fn = Callable[..., Any]

# scipy.special's vectorised special functions; imported (~0.2 s) when a kernel first needs one
special: Any = LazyModule("scipy.special", "scipy.special, imported when a special function first runs")

# ---------------------------------------------------------------- helpers


_quiet = quiet  # a kernel without numpy's floating-point warnings: torch gives inf/nan silently


_PLAIN_FLOATS = frozenset((FLOAT32, np.dtype(np.float64)))
_BOOL = np.dtype(np.bool_)  # a dtype compares with a dtype faster than with a scalar type
_EXACT_INT = 1 << 53  # a Python int converts to float64, then to float32, without a double rounding


def _plain_float(x: Any) -> bool:
    """A float32 or float64 ndarray: numpy computes its maths in its dtype, as torch."""
    return type(x) is np.ndarray and x.dtype in _PLAIN_FLOATS


def _weak_scalar(value: Any) -> bool:
    """A Python float, or an int a float converts exactly: numpy takes it as a weak
    scalar (NEP 50), cast to the other operand's float dtype, as torch casts a
    wrapped number."""
    kind = type(value)
    return kind is float or (kind is int and -_EXACT_INT <= value <= _EXACT_INT)


# an integer tensor's range: a Python int inside it is what torch's cast gives
_INT_RANGES = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
               for t in (np.int8, np.int16, np.int32, np.int64, np.uint8)}


def _plain_scalar(array: Array, value: Any) -> bool:
    """numpy's weak scalar (NEP 50) meets ``array`` as torch's wrapped number does:
    a weak scalar with a float32/float64 array, or an int within an integer array's
    range (numpy would refuse one outside it; torch wraps it)."""
    dtype = array.dtype
    if dtype in _PLAIN_FLOATS:
        return _weak_scalar(value)
    bounds = _INT_RANGES.get(dtype)
    return bounds is not None and type(value) is int and bounds[0] <= value <= bounds[1]


def _plain_pair(a: Any, b: Any) -> bool:
    """numpy computes ``a op b`` in torch's dtype unaided: two ndarrays of one dtype
    that is not a reduced float (nothing to promote or cast), or an ndarray and a
    Python scalar numpy takes as torch does (``_plain_scalar``)."""
    if type(a) is np.ndarray:
        if type(b) is np.ndarray:
            return a.dtype == b.dtype and not is_reduced_float(a.dtype)
        return _plain_scalar(a, b)
    return type(b) is np.ndarray and _plain_scalar(b, a)


def _cast(value: Any, dtype: np.dtype) -> Array:
    """An operand in the compute dtype (a Python scalar wraps around like a C++ cast; a
    reduced float converts as torch's, ``cast``)."""
    if isinstance(value, np.ndarray):
        if value.dtype == dtype:
            return value
        return cast(value, dtype) if is_reduced_float(dtype) or is_reduced_float(value.dtype) else (
            value.astype(dtype))
    return cast(value, dtype) if is_reduced_float(dtype) else np.asarray(value).astype(dtype)


def _result(value: Any, dtype: np.dtype) -> Array:
    """An ndarray of ``dtype``: numpy returns scalars from maths on 0-d arrays; an
    opmath value rounds to a reduced float as torch casts it."""
    if is_reduced_float(dtype):
        return cast(value, dtype)
    return np.asarray(value, dtype=dtype)


def _fresh(self: Array) -> Array:
    """A copy: an out-of-place kernel never returns (an alias of) its input."""
    return np.array(self, copy=True)


def _is_float(dtype: np.dtype) -> bool:
    return is_inexact(dtype)


def _float_dtype(dtype: np.dtype) -> np.dtype:
    """Integral and bool inputs of float-valued ops compute in float32."""
    return dtype if _is_float(dtype) else np.dtype(np.float32)


def _not_implemented(op: str, dtype: np.dtype) -> NotImplementedError:
    return NotImplementedError(
        f"\"{op}\" not implemented for '{scalar_type_name(from_numpy(dtype))}'"
    )


def _register(fn: Fn, names: str, inplace: str = "") -> None:
    """Register ``fn`` for the space-separated ops, and its in-place form for the
    ops in ``inplace``: those whose functional form has another name (the others
    are derived, variants.py)."""
    kernel(*names.split())(fn)
    if inplace:
        kernel(*inplace.split())(in_place(fn))


# ---------------------------------------------------------------- erf


def _erf(x: Array) -> Array:
    """Vectorised erf from scipy.special: float32 in float32 (scipy's float32 loop
    evaluates in double and rounds once: within an ulp of the correctly rounded
    value, test_kernels_elementwise), float64 in float64 (cephes, relative error
    ~1e-16)."""
    if x.dtype.itemsize <= 4:
        return special.erf(x.astype(FLOAT32, copy=False))
    return special.erf(x.astype(np.float64, copy=False))


# ---------------------------------------------------------------- unary maths


def _float_unary(fn: Fn) -> Fn:
    """A float-valued op: float32/float64 computed as they are, integer and bool inputs in
    float32, reduced floats in float32 rounded back."""

    def general(self: Array) -> Array:
        dtype = _float_dtype(self.dtype)
        if is_reduced_float(dtype):
            return cast(fn(self.astype(FLOAT32)), dtype)
        return np.asarray(fn(self.astype(dtype, copy=False)), dtype=dtype)

    run = quiet_unary(fn, general, _PLAIN_FLOATS)
    run.__name__ = run.__qualname__ = getattr(fn, "__name__", "unary")
    run.__module__ = general.__module__  # part of this family
    return run


def _rsqrt(x: Array) -> Array:
    root = as_result(np.sqrt(x))
    return np.divide(1, root, out=root)


def _reciprocal(x: Array) -> Array:
    return 1 / x


# scipy's expit costs ~0.3 us a call but ~3.6 ns an element (scalar libm): from ~400
# elements on numpy's four vectorised passes win
_EXPIT_LARGEST = 384


def _sigmoid(x: Array) -> Array:
    """1 / (1 + exp(-x)): torch's formula (its exp overflows to inf, giving 0, below
    -88 in float32). Small real arrays take scipy's expit, the same formula
    (test_kernels_elementwise states the max error of both). ``out`` is passed
    positionally: numpy parses an ``out=`` keyword at ~0.13 us a call."""
    if x.size <= _EXPIT_LARGEST and x.dtype.kind == "f":
        return special.expit(x)
    one = dtype_constants(x.dtype, 1)[0] if x.dtype in _PLAIN_FLOATS else 1  # not converted per call
    out = as_result(np.negative(x))
    np.exp(out, out)
    np.add(out, one, out)
    return np.divide(one, out, out)



_reciprocal_kernel = _float_unary(_reciprocal)  # also pow's bfloat16 x ** -2
_FLOAT_UNARY: list[tuple[str, Fn]] = [
    ("exp", np.exp),
    ("exp2 special_exp2", np.exp2),
    ("expm1 special_expm1", np.expm1),
    ("log", np.log),
    ("log2", np.log2),
    ("log10", np.log10),
    ("log1p special_log1p", np.log1p),
    ("sqrt", np.sqrt),
    ("rsqrt", _rsqrt),
    ("reciprocal", _reciprocal),
    ("sin", np.sin),
    ("cos", np.cos),
    ("tan", np.tan),
    ("asin", np.arcsin),
    ("acos", np.arccos),
    ("atan", np.arctan),
    ("sinh", np.sinh),
    ("cosh", np.cosh),
    ("tanh", np.tanh),
    ("asinh", np.arcsinh),
    ("acosh", np.arccosh),
    ("atanh", np.arctanh),
    ("sigmoid special_expit", _sigmoid),
    ("erf special_erf", _erf),
]
for _name, _fn in _FLOAT_UNARY:
    _register(_float_unary(_fn), _name)
_erf_kernel = _float_unary(_erf)  # special_ndtr's erf


def _rounding(fn: Fn) -> Fn:
    """ceil/floor/round/trunc: integers and bools are already whole (a copy)."""

    def run(self: Array) -> Array:
        return _result(fn(self), self.dtype) if _is_float(self.dtype) else _fresh(self)

    return run


_register(_rounding(np.ceil), "ceil")
_register(_rounding(np.floor), "floor")
_register(_rounding(np.rint), "round")  # rint: half to even, like torch
_register(_rounding(np.trunc), "trunc")


def _round_decimals(self: Array, decimals: int) -> Array:
    """torch: nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d for d < 0
    (no integer kernel, even for d = 0: unlike round.default, it does not copy them)."""
    if not _is_float(self.dtype):
        raise _not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", self.dtype)
    compute = opmath_dtype(self.dtype)
    x = self.astype(compute)
    scale = np.asarray(10.0 ** abs(decimals)).astype(compute)
    with silenced():
        out = np.rint(x / scale) * scale if decimals < 0 else np.rint(x * scale) / scale
    return _result(out, self.dtype)


_register(_round_decimals, "round.decimals")


def _special_round(self: Array, decimals: int = 0) -> Array:
    return _round_decimals(self, decimals)


_register(_special_round, "special_round")


@_quiet
def _frac(self: Array) -> Array:
    if not _is_float(self.dtype):
        raise _not_implemented("frac_cpu", self.dtype)
    return _result(self - np.trunc(self), self.dtype)


_register(_frac, "frac")


def _abs(self: Array) -> Array:
    """|x|; a complex number's modulus is real (complex64 -> float32)."""
    return _result(np.abs(self), self.real.dtype)


def _neg(self: Array) -> Array:
    if type(self) is np.ndarray and self.dtype.kind == "f":
        return as_result(np.negative(self))
    return _result(np.negative(self), self.dtype)


def _sign(self: Array) -> Array:
    """(0 < x) - (x < 0), as torch: sign(nan) = 0 and sign(-0.0) = 0."""
    if self.dtype == np.bool_:
        return _fresh(self)
    positive = (self > 0).astype(self.dtype)
    return _result(positive - (self < 0).astype(self.dtype), self.dtype)


_register(_abs, "abs")
_register(_neg, "neg")
_register(_sign, "sign")


def _square(self: Array) -> Array:
    return _pow_tensor_scalar(self, 2)  # bool ** 2 promotes to int64, like torch


def _bitwise_not(self: Array) -> Array:
    return _result(np.invert(self), self.dtype)  # ~ on bool is logical not


def _logical_not(self: Array) -> Array:
    return _result(np.logical_not(self), np.bool_)


def _float_test(fn: Fn, integral: bool) -> Fn:
    """isnan/isinf/isfinite: integers and bools are never nan or inf."""

    def run(self: Array) -> Array:
        if _is_float(self.dtype):
            return _result(fn(self), np.bool_)
        return np.full(self.shape, integral, dtype=np.bool_)

    return run


def _nan_to_num(
    self: Array, nan: float | None = None, posinf: float | None = None, neginf: float | None = None
) -> Array:
    """nan -> nan (0 by default), +-inf -> posinf/neginf (the dtype's extremes by default)."""
    if not _is_float(self.dtype):
        return _fresh(self)
    info = finfo(self.dtype)  # numpy's nan_to_num does not see bfloat16 as a float: in float32
    out = np.nan_to_num(
        self.astype(opmath_dtype(self.dtype)), copy=False, nan=0.0 if nan is None else nan,
        posinf=info.max if posinf is None else posinf,
        neginf=info.min if neginf is None else neginf,
    )
    return _result(out, self.dtype)


_register(_square, "square")
_register(_bitwise_not, "bitwise_not")
_register(_logical_not, "logical_not")
_register(_float_test(np.isnan, False), "isnan")
_register(_float_test(np.isinf, False), "isinf")
_register(_float_test(np.isfinite, True), "isfinite")
_register(_nan_to_num, "nan_to_num")

# ---------------------------------------------------------------- activations


def _relu(self: Array) -> Array:
    if _plain_float(self):
        return as_result(np.maximum(self, 0.0))  # nan stays nan
    return _result(np.maximum(self, np.zeros((), self.dtype)), self.dtype)  # nan stays nan


def _hardtanh(self: Array, min_val: Any = -1, max_val: Any = 1) -> Array:
    """clamp(x, min_val, max_val) in self's dtype."""
    if _plain_float(self) and _weak_scalar(min_val) and _weak_scalar(max_val):
        low = as_result(np.maximum(self, min_val))
        return np.minimum(low, max_val, out=low)
    low, high = _cast(min_val, self.dtype), _cast(max_val, self.dtype)
    return _result(np.minimum(np.maximum(self, low), high), self.dtype)


def _relu6(self: Array) -> Array:
    return _hardtanh(self, 0, 6)


def _threshold(self: Array, threshold: Any, value: Any) -> Array:
    """x <= threshold ? value : x (every dtype)."""
    cut, fill = _cast(threshold, self.dtype), _cast(value, self.dtype)
    return _result(np.where(self <= cut, fill, self), self.dtype)


def _in_place_clamp(functional: Fn, defaults: tuple[Any, Any]) -> Fn:
    """``x.relu_()``, ``x.hardtanh_(lo, hi)`` clamped in x's own memory (no result array,
    no copy back) for a writable float32/float64 x and weak scalar bounds (``defaults``
    fill the omitted ones; relu's upper bound is None); otherwise the derived kernel
    (functional + write_into)."""
    derived = in_place(functional)

    def run(self: Array, *bounds: Any) -> Array:
        if _plain_float(self) and self.flags.writeable and all(_weak_scalar(b) for b in bounds):
            low, high = (*bounds, *defaults[len(bounds):])
            np.maximum(self, low, out=self)  # nan stays nan
            if high is not None:
                np.minimum(self, high, out=self)
            return self
        return derived(self, *bounds)

    run.__name__ = run.__qualname__ = f"{functional.__name__}_"
    return run


_register(_relu, "relu")
_register(_hardtanh, "hardtanh")
_register(_relu6, "relu6")
_register(_threshold, "threshold")
kernel("relu_")(_in_place_clamp(_relu, (0.0, None)))
kernel("hardtanh_")(_in_place_clamp(_hardtanh, (-1, 1)))


def _float_activation(op: str) -> Callable[[Fn], Fn]:
    """A floating-only activation (torch has no integer kernel); keeps the dtype.
    ``fn`` sees the input in its opmath dtype and casts scalars to that dtype, as
    torch's kernels take them."""

    def wrap(fn: Fn) -> Fn:
        @functools.wraps(fn)
        def run(self: Array, *args: Any) -> Any:
            if _plain_float(self):
                with silenced():
                    out = fn(self, *args)
                if isinstance(out, tuple):
                    return tuple(_result(o, self.dtype) for o in out)
                return out if type(out) is np.ndarray and out.dtype == self.dtype else _result(out, self.dtype)
            if not _is_float(self.dtype):
                raise _not_implemented(op, self.dtype)
            with silenced():
                out = fn(self.astype(FLOAT32) if is_reduced_float(self.dtype) else self, *args)
            if isinstance(out, tuple):
                return tuple(_result(o, self.dtype) for o in out)
            return _result(out, self.dtype)

        return run

    return wrap


@_float_activation("gelu")
def _gelu(self: Array, approximate: str = "none") -> Array:
    if approximate == "tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), torch's order
        beta = _cast(math.sqrt(2 / math.pi), self.dtype)
        kappa = _cast(0.044715, self.dtype)
        return 0.5 * self * (1 + np.tanh(beta * (self + kappa * (self * self * self))))
    if approximate != "none":
        raise ValueError("approximate argument must be either none or tanh.")
    if self.dtype == FLOAT32 and self.size >= _GELU_FAST_SIZE:
        return _gelu_erf_float32(self)
    # x Phi(x), scipy's normal cdf in the input's float dtype (float32 evaluated in double,
    # rounded once): the far negative tail keeps its relative accuracy
    out = special.ndtr(self)
    out *= self
    return out


# float32 x Phi(x) at memory speed. Phi's tail Phi(-|x|) = erfc(z) / 2, z = |x| / sqrt 2,
# is t exp(P(t) - z^2) with t = 1 / (1 + p z) and P a degree-7 polynomial: a
# Lawson-weighted least-squares (near minimax) fit of log(erfc(z) exp(z^2) / (2 t)) on
# z in [0, 10.5] (below x = -14.8 float32 x Phi(x) is 0), p = 0.475; the fit's error
# is 2.8e-7, so Phi(-|x|)'s relative error is that plus float32 rounding (the
# argument z^2 rounds to 1/2 ulp: at z = 9, 4e-6 relative; test_kernels_elementwise
# states the measured maximum). torch's own float32 GELU (oneDNN/A&S 7.1.26 erf, then
# 1 + erf) is off by up to 1.2e-6 absolute and loses the tail below x = -3 entirely.
GELU_TAIL_P = 0.475
GELU_TAIL_COEFFS = tuple(np.float32(c) for c in (  # c0 .. c7, log(1/2) folded into c0
    -1.3165126544763968 - math.log(2), 0.993715435324445, 0.44293396997116824,
    -0.15784834120344682, 0.6778465076209971, -1.294146218144555, 0.8492852897437912,
    -0.19527426300797063))
GELU_TAIL_SCALE = np.float32(GELU_TAIL_P * math.sqrt(0.5))  # t = 1 / (1 + scale |x|)
_GELU_FAST_SIZE = 4096  # below it scipy's ndtr (~5.5 ns an element) beats the ~27 chunked ufunc passes
_GELU_CHUNK = 32768  # elements per pass: the work buffers (128 KiB each) stay in L2
GELU_HUGE = np.float32(1e30)  # |x| clamped for the tail term: +inf * Phi(-inf) is 0, not nan


def _gelu_erf_float32(x: Array) -> Array:
    """x Phi(x) = max(x, 0) - |x| Phi(-|x|) in float32: the native kernel of this
    formula where one runs (``interpreter/native.py``), else numpy's passes. No
    cancellation for x < 0, Phi(-|x|) <= 1/2 rounds relatively. -inf gives nan, as
    -inf * Phi(-inf) = -inf * 0 does in torch."""
    flat = np.ascontiguousarray(x).reshape(-1)
    native_gelu = native.kernel("gelu_float32", flat.size)
    out = _gelu_tail_passes(flat) if native_gelu is None else native_gelu(flat)
    if flat.size and not flat.min() > -np.inf:  # a -inf (or nan) in x: -inf * Phi(-inf) is nan
        out[np.isneginf(flat)] = np.nan
    return out.reshape(x.shape)


def _gelu_tail_passes(flat: Array) -> Array:
    """The formula in numpy ufuncs into reused buffers, chunk by chunk (each chunk's ~25
    passes stay in cache; outputs passed positionally, as an out= keyword costs ~0.13 us
    a call)."""
    out = np.empty_like(flat)
    size = flat.size
    span = min(_GELU_CHUNK, size)
    mag, t, q, sq = (np.empty(span, FLOAT32) for _ in range(4))
    coeffs, half, one = GELU_TAIL_COEFFS, np.float32(0.5), np.float32(1)
    for start in range(0, size, span):
        xs, dest = flat[start:start + span], out[start:start + span]
        if xs.size != span:
            mag, t, q, sq = mag[:xs.size], t[:xs.size], q[:xs.size], sq[:xs.size]
        np.abs(xs, mag)
        np.multiply(mag, GELU_TAIL_SCALE, t)
        t += one
        np.reciprocal(t, t)
        np.multiply(t, coeffs[7], q)
        for c in coeffs[6:0:-1]:  # Horner
            q += c
            q *= t
        q += coeffs[0]
        np.multiply(xs, xs, sq)
        sq *= half  # z^2
        q -= sq
        np.exp(q, q)
        q *= t  # Phi(-|x|)
        np.minimum(mag, GELU_HUGE, out=mag)  # (maximum and minimum take out= by keyword only)
        q *= mag
        np.maximum(xs, np.float32(0), out=dest)
        dest -= q
    return out


@_float_activation("gelu")
def _gelu_float32(self: Array) -> Array:
    """torch's float kernel, x / 2 (1 + erf(x / sqrt(2))) in float32, as float16 and
    bfloat16 compute it: below x = -3 its cancellation, not x Phi(x), is their result."""
    return self * 0.5 * (1 + _erf(self * np.float32(math.sqrt(0.5))))


def _gelu_kernel(self: Array, approximate: str = "none") -> Array:
    if approximate == "none" and is_reduced_float(self.dtype):
        return _gelu_float32(self)
    return _gelu(self, approximate)


@_float_activation("silu")
def _silu(self: Array) -> Array:
    """x / (1 + exp(-x)), torch's formula, in one buffer."""
    out = as_result(np.negative(self))
    np.exp(out, out=out)
    out += 1
    return np.divide(self, out, out=out)


@_float_activation("mish")
def _mish(self: Array) -> Array:
    return self * np.tanh(np.log1p(np.exp(self)))


@_float_activation("softplus")
def _softplus(self: Array, beta: Any = 1, threshold: Any = 20) -> Array:
    """x * beta > threshold ? x : log1p(exp(x * beta)) / beta."""
    b, cut = _cast(beta, self.dtype), _cast(threshold, self.dtype)
    scaled = self * b
    return np.where(scaled > cut, self, np.log1p(np.exp(scaled)) / b)


def _elu_values(self: Array, alpha: Any, scale: Any, input_scale: Any) -> Array:
    """x <= 0 ? expm1(x * input_scale) * alpha * scale : x * scale."""
    negative = np.expm1(self * _cast(input_scale, self.dtype)) * _cast(alpha * scale, self.dtype)
    return np.where(self <= 0, negative, self * _cast(scale, self.dtype))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@_float_activation("elu")
def _elu(self: Array, alpha: Any = 1, scale: Any = 1, input_scale: Any = 1) -> Array:
    return _elu_values(self, alpha, scale, input_scale)


@_float_activation("selu")
def _selu(self: Array) -> Array:
    return _elu_values(self, _SELU_ALPHA, _SELU_SCALE, 1)


@_float_activation("celu")
def _celu(self: Array, alpha: Any = 1.0) -> Array:
    return _elu_values(self, alpha, 1, 1 / alpha)


@_float_activation("leaky_relu")
def _leaky_relu(self: Array, negative_slope: Any = 0.01) -> Array:
    return np.where(self > 0, self, self * _cast(negative_slope, self.dtype))


def _relu6_shift(x: Array) -> Array:
    """min(max(x + 3, 0), 6): the ramp hardswish and hardsigmoid share."""
    return np.minimum(np.maximum(x + 3, 0), 6)


@_float_activation("hardswish")
def _hardswish(self: Array) -> Array:
    return self * _relu6_shift(self) / 6


@_float_activation("hardsigmoid")
def _hardsigmoid(self: Array) -> Array:
    return _relu6_shift(self) / 6


@_float_activation("log_sigmoid_forward")
def _log_sigmoid_forward(self: Array) -> tuple[Array, Array]:
    """(min(x, 0) - log1p(exp(-|x|)), buffer exp(-|x|)), as torch's CPU kernel."""
    buffer = np.exp(-np.abs(self))
    return np.minimum(self, 0) - np.log1p(buffer), buffer


def _log_sigmoid(self: Array) -> Array:
    return _log_sigmoid_forward(self)[0]


@_float_activation("softshrink_check")
def _softshrink(self: Array, lambd: Any = 0.5) -> Array:
    """x > λ ? x - λ : (x < -λ ? x + λ : x·0), torch's CPU kernel (NaN stays NaN)."""
    limit = float(np.finfo(self.dtype).max)
    if not 0 <= lambd <= limit:
        raise RuntimeError(
            f"lambda must be in range [0, {limit:g}] for input dtype "
            f"{scalar_type_name(from_numpy(self.dtype))}, but found {lambd:g}"
        )
    cut = _cast(lambd, self.dtype)
    return np.where(self > cut, self - cut, np.where(self < -cut, self + cut, self * 0))


@_float_activation("hardshrink_cpu")
def _hardshrink(self: Array, lambd: Any = 0.5) -> Array:
    """-λ <= x <= λ ? 0 : x, torch's CPU kernel (NaN stays NaN)."""
    cut = _cast(lambd, self.dtype)
    return np.where((self >= -cut) & (self <= cut), self.dtype.type(0), self)


def _rrelu_slopes(self: Array, lower: Any, upper: Any, training: bool) -> Array:
    """The slope of each element: drawn from U(lower, upper) for x <= 0 when
    training (1 elsewhere), else the mean (lower + upper) / 2."""
    if not training:
        return np.full(self.shape, _cast((lower + upper) / 2, self.dtype), dtype=self.dtype)
    draw = rng.generator().random(self.shape, dtype=np.float64)
    slopes = (lower + (upper - lower) * draw).astype(self.dtype)
    return np.where(self <= 0, slopes, self.dtype.type(1))


@_float_activation("rrelu_with_noise_out_cpu")
def _rrelu_with_noise_functional(self: Array, noise: Array, lower: Any = 0.125, upper: Any = 1 / 3,
                                 training: bool = False, generator: Any = None) -> tuple[Array, Array]:
    """(x·r where x < 0, else x; the slopes r), as torch's CPU kernel; out of
    training the noise is returned as given."""
    slopes = _rrelu_slopes(self, lower, upper, training)
    out = np.where(self >= 0, self, self * slopes) if not training else self * slopes
    return out, (slopes if training else noise.astype(self.dtype, copy=True))


def _rrelu_with_noise(self: Array, noise: Array, lower: Any = 0.125, upper: Any = 1 / 3,
                      training: bool = False, generator: Any = None) -> Array:
    """rrelu writing the slopes it draws into ``noise`` (only when training, as torch)."""
    out, slopes = _rrelu_with_noise_functional(self, noise, lower, upper, training)
    if training:
        noise[...] = slopes
    return out


def _rrelu_with_noise_(self: Array, noise: Array, lower: Any = 0.125, upper: Any = 1 / 3,
                       training: bool = False, generator: Any = None) -> Array:
    self[...] = _rrelu_with_noise(self, noise, lower, upper, training)
    return self


def _rrelu(self: Array, lower: Any = 0.125, upper: Any = 1 / 3, training: bool = False,
           generator: Any = None) -> Array:
    return _rrelu_with_noise_functional(self, np.empty_like(self), lower, upper, training)[0]


@_float_activation("glu")
def _glu(self: Array, dim: int = -1) -> Array:
    """a * sigmoid(b) for the two halves a, b of ``dim``."""
    first, second = np.split(self, 2, axis=normalize_dim(dim, self.ndim))
    return first * _sigmoid(second)


@_float_activation("prelu")
def _prelu(self: Array, weight: Array) -> Array:
    """x > 0 ? x : w * x with one slope per channel (dim 1), or one shared slope."""
    w = weight.astype(self.dtype, copy=False).reshape(-1)
    if w.size != 1:
        w = w.reshape((-1,) + (1,) * (self.ndim - 2))
    else:
        w = w.reshape(())
    return np.where(self > 0, self, w * self)


@_float_activation("prelu_cpu")
def _prelu_kernel(self: Array, weight: Array) -> Array:
    """prelu's kernel: the slopes arrive already shaped, and broadcast as any operand."""
    return np.where(self > 0, self, weight * self)


_register(_gelu_kernel, "gelu")
_register(_silu, "silu")
_register(_mish, "mish")
_register(_softplus, "softplus")
_register(_elu, "elu")
_register(_selu, "selu")
_register(_celu, "celu")
_register(_leaky_relu, "leaky_relu")
_register(_hardswish, "hardswish")
_register(_hardsigmoid, "hardsigmoid")
_register(_log_sigmoid_forward, "log_sigmoid_forward")
_register(_log_sigmoid, "log_sigmoid")
_register(_glu, "glu")
_register(_softshrink, "softshrink")
_register(_rrelu, "rrelu")
_register(_rrelu_with_noise_functional, "rrelu_with_noise_functional")
_register(_rrelu_with_noise, "rrelu_with_noise")
_register(_rrelu_with_noise_, "rrelu_with_noise_")
_register(_hardshrink, "hardshrink")
_register(_prelu, "prelu")
_register(_prelu_kernel, "_prelu_kernel")

# ---------------------------------------------------------------- binary arithmetic


def _promoted(*operands: Any) -> tuple[np.dtype, list[Array]]:
    """torch's result dtype over the operands, and each operand cast to it, then
    to its opmath dtype (a scalar meets a bfloat16 tensor rounded to bfloat16)."""
    first = operands[0]
    if isinstance(first, np.ndarray) and all(
        isinstance(o, np.ndarray) and o.dtype == first.dtype for o in operands
    ):
        dtype = first.dtype  # one dtype: nothing to promote (the common case)
    else:
        dtype = torch_result_dtype(*operands)
    if not is_reduced_float(dtype):
        return dtype, [_cast(o, dtype) for o in operands]
    return dtype, [_in_opmath(o, dtype) for o in operands]


def _in_opmath(value: Any, dtype: np.dtype) -> Array:
    """An operand cast to ``dtype``, then to the dtype torch computes ``dtype`` in."""
    value = _cast(value, dtype)
    return value.astype(FLOAT32) if is_reduced_float(dtype) else value


def _opmath_scalar(operand: Any, promoted: Array) -> Array:
    """The second operand of a reduced-float mul/div: a single element is kept in
    float32, as given, not rounded to the op's dtype (torch's
    ``original_scalar_value<opmath_t>``); otherwise ``promoted``."""
    return _cast(operand, promoted.dtype) if np.size(operand) == 1 else promoted


def _check_divisor(divisor: Array) -> None:
    """Integer division by zero is an error in torch, not inf."""
    if np.any(divisor == 0):
        raise ZeroDivisionError("ZeroDivisionError")


@_quiet
def _add(self: Any, other: Any, alpha: Any = 1) -> Array:
    """self + alpha * other (bool + bool is logical or, as torch)."""
    if alpha == 1 and _plain_pair(self, other):
        return as_result(np.add(self, other))
    dtype, (a, b) = _promoted(self, other)
    if alpha != 1:
        b = b * _in_opmath(alpha, dtype)  # alpha rounded to the op's dtype
    return _result(a + b, dtype)


@_quiet
def _sub(self: Any, other: Any, alpha: Any = 1) -> Array:
    if alpha == 1 and _plain_pair(self, other) and (_plain_float(self) or _plain_float(other)):
        return as_result(np.subtract(self, other))
    dtype, (a, b) = _promoted(self, other)
    if dtype == np.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    if alpha != 1:
        b = b * _in_opmath(alpha, dtype)
    return _result(a - b, dtype)


def _rsub(self: Any, other: Any, alpha: Any = 1) -> Array:
    return _sub(other, self, alpha)  # other - alpha * self


@_quiet
def _mul(self: Any, other: Any) -> Array:
    if _plain_pair(self, other):
        return as_result(np.multiply(self, other))
    dtype, (a, b) = _promoted(self, other)
    if is_reduced_float(dtype):
        b = _opmath_scalar(other, b)
    return _result(a * b, dtype)


def _trunc_divide(a: Array, b: Array) -> Array:
    """Integer division rounding toward zero: floor, plus one when inexact and negative."""
    floor = np.floor_divide(a, b)
    inexact = np.remainder(a, b) != 0
    return floor + (inexact & ((a < 0) != (b < 0))).astype(floor.dtype)


@_quiet
def _div(self: Any, other: Any, rounding_mode: str | None = None) -> Array:
    """True division (integers give float32), or rounded "trunc"/"floor" division
    that keeps the promoted dtype."""
    if rounding_mode is None and _plain_pair(self, other) and (_plain_float(self) or _plain_float(other)):
        return as_result(np.true_divide(self, other))
    dtype = torch_result_dtype(self, other)
    if rounding_mode is None:
        dtype = _float_dtype(dtype)
        if not is_reduced_float(dtype):
            return _result(_cast(self, dtype) / _cast(other, dtype), dtype)
        a, b = _in_opmath(self, dtype), _opmath_scalar(other, _in_opmath(other, dtype))
        return cast(a / b, dtype)
    if rounding_mode not in ("trunc", "floor"):
        raise ValueError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
            f"but found '{rounding_mode}'"
        )
    compute = np.dtype(np.uint8) if dtype == np.bool_ else dtype
    a, b = _in_opmath(self, compute), _in_opmath(other, compute)
    if is_reduced_float(dtype):
        b = _opmath_scalar(other, b)
    if not _is_float(compute):
        _check_divisor(b)
        out = np.floor_divide(a, b) if rounding_mode == "floor" else _trunc_divide(a, b)
    else:
        out = np.floor_divide(a, b) if rounding_mode == "floor" else np.trunc(a / b)
    return _result(out, dtype)


def _floor_divide(self: Any, other: Any) -> Array:
    return _div(self, other, "floor")


def _true_divide(self: Any, other: Any) -> Array:
    return _div(self, other, None)


@_quiet
def _remainder(self: Any, other: Any) -> Array:
    """Python's %: the result takes the divisor's sign."""
    if _plain_pair(self, other):  # numpy's remainder is Python's %, as torch's; one dtype
        kind = (self if type(self) is np.ndarray else other).dtype.kind
        if kind in "iu" and not (other == 0 if type(other) is int else np.any(np.equal(other, 0))):
            return as_result(np.remainder(self, other))
        if kind == "f":  # a zero keeps fmod's sign (the dividend's) in torch, takes the divisor's in numpy
            out = as_result(np.remainder(self, other))
            return np.copysign(out, self, out=out, where=out == 0)
    dtype, (a, b) = _promoted(self, other)
    if not _is_float(dtype):
        _check_divisor(b)
        return _result(np.remainder(a, b), dtype)
    mod = np.fmod(a, b)  # torch: fmod, then shift by b when the signs differ
    return _result(np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod), dtype)


@_quiet
def _fmod(self: Any, other: Any) -> Array:
    """C's fmod: the result takes the dividend's sign."""
    dtype, (a, b) = _promoted(self, other)
    if not _is_float(dtype):
        _check_divisor(b)
    return _result(np.fmod(a, b), dtype)


@_quiet
def _atan2(self: Any, other: Any) -> Array:
    dtype = _float_dtype(torch_result_dtype(self, other))
    return _result(np.arctan2(_cast(self, dtype), _cast(other, dtype)), dtype)


@_quiet
def _atan2_out(self: Any, other: Any, out: Array) -> Array:
    """atan2.out: the result goes into ``out`` (resized only if it owns an empty buffer)."""
    result = _atan2(self, other)
    if out.shape != result.shape and out.size == 0 and out.flags.owndata:
        out.resize(result.shape, refcheck=False)
    return write_into(out, result)


def _in_place_arithmetic(ufunc: Fn, functional: Fn, kinds: str) -> Fn:
    """``x.op_(other)`` computed into x's own memory when numpy computes it in x's
    dtype (``_plain_pair``, x of a dtype kind in ``kinds``); otherwise, or when
    ``other`` does not broadcast to x's shape, the derived kernel (torch's checks)."""
    derived = in_place(functional)

    def run(self: Array, other: Any, *alpha: Any) -> Array:
        if (not alpha or alpha[0] == 1) and _plain_pair(self, other) and self.dtype.kind in kinds:
            try:
                with silenced():
                    return ufunc(self, other, out=self)
            except ValueError:  # not broadcastable into self: numpy checks before writing
                pass
        return derived(self, other, *alpha)

    run.__name__ = run.__qualname__ = f"{functional.__name__}_"
    return run


_register(_add, "add.Tensor add.Scalar")
_register(_sub, "sub.Tensor sub.Scalar")
kernel("add_.Tensor", "add_.Scalar")(_in_place_arithmetic(np.add, _add, "fiu"))
kernel("sub_.Tensor", "sub_.Scalar")(_in_place_arithmetic(np.subtract, _sub, "fiu"))
kernel("mul_.Tensor", "mul_.Scalar")(_in_place_arithmetic(np.multiply, _mul, "fiu"))
kernel("div_.Tensor", "div_.Scalar")(_in_place_arithmetic(np.true_divide, _div, "f"))
_register(_rsub, "rsub.Tensor rsub.Scalar")
_register(_mul, "mul.Tensor mul.Scalar")
_register(_div, "div.Tensor div.Scalar div.Tensor_mode div.Scalar_mode")
_register(_true_divide, "true_divide.Tensor true_divide.Scalar")
_register(_floor_divide, "floor_divide floor_divide.Scalar", "floor_divide_.Tensor")
_register(_remainder, "remainder.Tensor remainder.Scalar")
_register(_fmod, "fmod.Tensor fmod.Scalar")
_register(_atan2, "atan2")
_register(_atan2_out, "atan2.out")

# ---------------------------------------------------------------- pow


def _integer_power(base: Array, exponent: Array) -> Array:
    """torch's powi: a negative exponent gives 1 for base 1, +-1 for base -1, else 0."""
    out = np.power(base, np.maximum(exponent, 0))
    if exponent.dtype.kind == "u" or not np.any(exponent < 0):
        return out
    one = np.ones((), base.dtype)
    odd = (exponent % 2) != 0
    negative_power = np.where(base == 1, one, np.where(base == -1, np.where(odd, -one, one), 0))
    return np.where(exponent < 0, negative_power, out)


@_quiet
def _power(base: Any, exponent: Any) -> Array:
    dtype, (a, b) = _promoted(base, exponent)
    if dtype == np.bool_:
        return _result(a | ~b, dtype)  # x ** False = 1, x ** True = x
    if not _is_float(dtype):
        return _result(_integer_power(a, b), dtype)
    return _result(np.power(a, b), dtype)


def _pow_tensor_scalar(self: Array, exponent: Any) -> Array:
    if _plain_float(self) and _weak_scalar(exponent):
        if exponent == 2:  # torch's float kernel: x * x, and sqrt for 1/2
            with silenced():
                return as_result(np.multiply(self, self))
        if exponent == 0.5:
            with silenced():
                return as_result(np.sqrt(self))
    integral = not _is_float(self.dtype)
    if integral and isinstance(exponent, int) and not isinstance(exponent, bool) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if is_bfloat16(self.dtype) and exponent in (3, -2):
        # torch's bfloat16 kernel multiplies in bfloat16: x*x*x, 1/(x*x), rounding each step
        square = _mul(self, self)
        return _mul(square, self) if exponent == 3 else _reciprocal_kernel(square)
    return _power(self, exponent)


def _pow_tensor_tensor(self: Array, exponent: Array) -> Array:
    return _power(self, exponent)


def _pow_scalar(self: Any, exponent: Array) -> Array:
    return _power(self, exponent)


_register(_pow_tensor_scalar, "pow.Tensor_Scalar", "pow_.Scalar")
_register(_pow_tensor_tensor, "pow.Tensor_Tensor", "pow_.Tensor")
_register(_pow_scalar, "pow.Scalar")

# ---------------------------------------------------------------- min/max, bitwise, compare


def _promoted_binary(fn: Fn) -> Fn:
    """A binary op computed in the promoted dtype, result in that dtype."""

    @_quiet
    def run(self: Any, other: Any) -> Array:
        dtype, (a, b) = _promoted(self, other)
        return _result(fn(a, b), dtype)

    return run


_register(_promoted_binary(np.maximum), "maximum max.other")  # nan propagates
_register(_promoted_binary(np.minimum), "minimum min.other")
for _op, _fn in (("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor)):
    _register(_promoted_binary(_fn), f"bitwise_{_op}.Tensor bitwise_{_op}.Scalar")


def _shift(left: bool) -> Fn:
    """x << n or x >> n in the promoted integer dtype; a shift by a negative count or by the
    dtype's width or more gives 0, or the sign (-1 or 0) for a right shift, as torch's."""
    name = "lshift_cpu" if left else "rshift_cpu"

    @_quiet
    def run(self: Any, other: Any) -> Array:
        dtype, (a, b) = _promoted(self, other)
        if dtype.kind not in "ui":
            raise _not_implemented(name, dtype)
        outside = (b < 0) | (b >= 8 * dtype.itemsize)
        count = np.where(outside, 0, b).astype(dtype)
        if left:
            value = np.where(outside, 0, np.left_shift(a, count))
        else:
            value = np.where(outside, np.where(a < 0, -1, 0), np.right_shift(a, count))
        return _result(value.astype(dtype), dtype)

    return run


for _direction, _left in (("left", True), ("right", False)):
    _register(_shift(_left), f"bitwise_{_direction}_shift.Tensor bitwise_{_direction}_shift.Tensor_Scalar "
              f"bitwise_{_direction}_shift.Scalar_Tensor __{_direction[0]}shift__.Tensor "
              f"__{_direction[0]}shift__.Scalar")
del _direction, _left


def _logical(fn: Fn) -> Fn:
    """logical_and/or/xor: any nonzero (nan included) is true; bool result."""

    def run(self: Any, other: Any) -> Array:
        return _result(fn(np.asarray(self), np.asarray(other)), np.bool_)

    return run


_register(_logical(np.logical_and), "logical_and")
_register(_logical(np.logical_or), "logical_or")
_register(_logical(np.logical_xor), "logical_xor")


def _comparison(fn: Fn) -> Fn:
    """Compare in the promoted dtype (int tensor < 1.5 compares in float32); bool result."""

    @_quiet
    def run(self: Any, other: Any) -> Array:
        if _plain_pair(self, other):
            return as_result(fn(self, other))
        _, (a, b) = _promoted(self, other)
        return _result(fn(a, b), np.bool_)

    return run


for _op, _fn in (
    ("eq", np.equal),
    ("ne", np.not_equal),
    ("lt", np.less),
    ("le", np.less_equal),
    ("gt", np.greater),
    ("ge", np.greater_equal),
):
    _register(_comparison(_fn), f"{_op}.Tensor {_op}.Scalar")
del _op, _fn

# ---------------------------------------------------------------- selection and clamping


def _where(condition: Array, self: Any, other: Any) -> Array:
    """condition ? self : other; condition (bool or uint8) takes no part in promotion."""
    if condition.dtype == _BOOL and _plain_pair(self, other):
        return np.where(condition, self, other)
    dtype, (a, b) = _promoted(self, other)
    return _result(np.where(condition.astype(bool, copy=False), a, b), dtype)


@_quiet
def _clamp(self: Array, min: Any = None, max: Any = None) -> Array:  # noqa: A002
    """min(max(x, min), max): with min > max every element becomes max; nan propagates."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if _plain_float(self) and (min is None or _weak_scalar(min)) and (max is None or _weak_scalar(max)):
        x = self if min is None else as_result(np.maximum(self, min))
        return as_result(np.minimum(x, max, out=None if min is None else x)) if max is not None else x
    dtype = torch_result_dtype(self, min, max)
    x = _cast(self, dtype)
    if min is not None:
        x = np.maximum(x, _cast(min, dtype))
    if max is not None:
        x = np.minimum(x, _cast(max, dtype))
    return _result(x, dtype)


def _clamp_min(self: Array, min: Any) -> Array:  # noqa: A002
    return _clamp(self, min, None)


def _clamp_max(self: Array, max: Any) -> Array:  # noqa: A002
    return _clamp(self, None, max)


def _fits(value: float, dtype: np.dtype) -> bool:
    """A float32/float64 fill value in range (or inf/nan): checked_fill's checks pass, and
    numpy's weak-scalar cast gives what it would."""
    return not abs(value) > _FLOAT_MAX[dtype] or math.isinf(value)


_FLOAT_MAX = {dtype: float(np.finfo(dtype).max) for dtype in _PLAIN_FLOATS}


def _masked_fill(self: Array, mask: Array, value: Any) -> Array:
    """mask ? value : self, in self's dtype (value is cast, never promotes)."""
    if type(value) is float and _plain_float(self) and mask.dtype == _BOOL and _fits(value, self.dtype):
        fill: Any = value
    else:
        fill = checked_fill(value, self.dtype)
    if type(self) is np.ndarray and mask.dtype == _BOOL and broadcasts_to(mask.shape, self.shape):
        # torch's own steps: a row-major clone of self, then the value written where the mask
        # holds (GPT4's causal mask on (2, 4, 128, 128) scores: 244 -> 106 us against np.where)
        out = np.empty(self.shape, self.dtype)
        np.copyto(out, self)
        np.copyto(out, fill, where=mask)
        return out
    return _result(np.where(mask, fill, self), self.dtype)


@_quiet
def _lerp(self: Array, end: Array, weight: Any) -> Array:
    """torch's two-sided formula: exact at weight 0 and at weight 1; a scalar weight
    is taken in the opmath dtype."""
    compute = opmath_dtype(self.dtype)
    x, stop, w = _cast(self, compute), _in_opmath(end, self.dtype), _cast(weight, compute)
    diff = stop - x
    small = np.abs(w) < 0.5
    return _result(np.where(small, x + w * diff, stop - diff * (1 - w)), self.dtype)


@_quiet
def _addcmul(self: Array, tensor1: Array, tensor2: Array, value: Any = 1) -> Array:
    """self + value * tensor1 * tensor2 (value in the opmath dtype)."""
    dtype, (s, a, b) = _promoted(self, tensor1, tensor2)
    return _result(s + _cast(value, s.dtype) * a * b, dtype)


@_quiet
def _addcdiv(self: Array, tensor1: Array, tensor2: Array, value: Any = 1) -> Array:
    """self + value * tensor1 / tensor2 (value in the opmath dtype)."""
    dtype, (s, a, b) = _promoted(self, tensor1, tensor2)
    return _result(s + _cast(value, s.dtype) * a / b, dtype)


kernel("where.self", "where.ScalarOther", "where.ScalarSelf", "where.Scalar")(_where)
_register(_clamp, "clamp clamp.Tensor")
_register(_clamp_min, "clamp_min clamp_min.Tensor")
_register(_clamp_max, "clamp_max clamp_max.Tensor")
_register(_masked_fill, "masked_fill.Scalar masked_fill.Tensor")
_register(_lerp, "lerp.Scalar lerp.Tensor")
_register(_addcmul, "addcmul")
_register(_addcdiv, "addcdiv")

# ---------------------------------------------------------------- special functions and more maths


def _in_double(fn: Fn, no_reduced: str = "") -> Fn:
    """A float-valued function evaluated in float64 and rounded to the op's dtype
    (integers and bools give float32). A reduced float rounds through float32, as
    torch computes it in float32 and rounds once; torch has no reduced-float
    kernel named ``no_reduced`` when given."""

    @_quiet
    def run(self: Array, *args: Any) -> Array:
        dtype = _float_dtype(self.dtype)
        if no_reduced and is_reduced_float(dtype):
            raise _not_implemented(no_reduced, dtype)
        out = np.asarray(fn(_cast(self, dtype).astype(np.float64), *args))
        return _result(out.astype(FLOAT32) if is_reduced_float(dtype) else out, dtype)

    run.__name__ = getattr(fn, "__name__", "special")
    return run


def _erfinv(x: Array) -> Array:
    return np.where(x == 0, x, special.erfinv(x))  # -0 stays -0


def _lgamma(x: Array) -> Array:
    return np.where(x == -np.inf, np.inf, special.gammaln(x))  # torch: log|Γ(-inf)| = inf


def _trigamma(x: Array) -> Array:
    """torch's trigamma, in x's dtype as torch's (float32 for float32): reflection
    below 1/2, six recurrence steps, then the asymptotic series (finite at the
    poles, where sin(pi x) is not quite 0)."""
    c = x.dtype.type
    reflect = x < c(0.5)
    sin_pi_x = np.sin(c(math.pi) * x)
    result = np.where(reflect, -c(math.pi * math.pi) / (sin_pi_x * sin_pi_x), c(0))
    x = np.where(reflect, c(1) - x, x)
    for _ in range(6):
        result = result + c(1) / (x * x)
        x = x + c(1)
    ixx = c(1) / (x * x)
    series = c(1) + c(1) / (c(2) * x) + ixx * (c(1 / 6) - ixx * (c(1 / 30) - ixx * c(1 / 42)))
    result = result + series / x
    return np.where(reflect, -result, result)


def _zeta(x: Array, q: Array) -> Array:
    return np.where(q == np.inf, np.nan, special.zeta(x, q))  # torch's series gives nan at q = inf


def _polygamma_values(n: int, x: Array) -> Array:
    if n == 0:
        return special.psi(x)
    sign = 1.0 if n % 2 else -1.0  # (-1)^(n+1) n! zeta(n + 1, x)
    return sign * math.exp(math.lgamma(n + 1.0)) * _zeta(np.float64(n + 1), x)


@_quiet
def _polygamma(n: int, self: Array) -> Array:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 1:  # torch's own trigamma, in the opmath dtype
        dtype = _float_dtype(self.dtype)
        return _result(_trigamma(_in_opmath(self, dtype)), dtype)
    return _in_double(lambda x: _polygamma_values(n, x))(self)


def _polygamma_(self: Array, n: int) -> Array:
    return write_into(self, _polygamma(n, self))


@_quiet
def _mvlgamma(self: Array, p: int) -> Array:
    """sum_i lgamma(x + i/2 for i in 1-p..0) + p(p-1)/4 log(pi), op by op in the
    dtype as torch's ATen composite (each step rounds to float16/bfloat16)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    dtype = _float_dtype(self.dtype)
    halves = np.arange(1 - p, 1).astype(dtype) * _cast(0.5, dtype)
    shifted = _add(_cast(self, dtype)[..., None], halves)
    terms = _in_opmath(_lgamma_kernel(shifted), dtype)
    total = _result(terms.sum(axis=-1), dtype)
    return _add(total, p * (p - 1) / 4 * math.log(math.pi))


@_quiet
def _sinc(self: Array) -> Array:
    """sin(pi x) / (pi x), 1 at 0, in the opmath dtype as torch's kernel (float32 for float32)."""
    dtype = _float_dtype(self.dtype)
    compute = opmath_dtype(dtype)
    product = _in_opmath(self, dtype) * _cast(math.pi, compute)
    return _result(np.where(product == 0, compute.type(1), np.sin(product) / product), dtype)


@_quiet
def _logit(self: Array, eps: float | None = None) -> Array:
    """log(x / (1 - x)) of x clamped to [eps, 1 - eps]; each step rounds to the dtype,
    as torch's kernel computes in scalar_t."""
    dtype = _float_dtype(self.dtype)
    x = _cast(self, dtype)
    if eps is not None:
        x = np.clip(x, _cast(eps, dtype), _cast(1 - eps, dtype))
    one_minus = _result(_in_opmath(1, dtype) - _in_opmath(x, dtype), dtype)
    ratio = _result(_in_opmath(x, dtype) / _in_opmath(one_minus, dtype), dtype)
    return _result(np.log(_in_opmath(ratio, dtype)), dtype)


def _ndtr(self: Array) -> Array:
    """(1 + erf(x / sqrt 2)) / 2 op by op, each rounded: torch's special_ndtr is that composite."""
    return _mul(_add(_erf_kernel(_mul(self, math.sqrt(0.5))), 1), 0.5)


def _rounded_log(fn: Fn, value: Array, dtype: np.dtype, wide: bool = True) -> Array:
    """log of an opmath value, rounded to ``dtype`` first: torch's kernels call c10's
    float16/bfloat16 log, which returns the reduced float. ``wide``: taken in float64,
    as a correctly rounded float32 log is nearer torch's vectorised (Sleef) log than
    numpy's float32 one; else in the opmath dtype, as torch's scalar libm calls."""
    return _in_opmath(_result(fn(value.astype(np.float64) if wide else value), dtype), dtype)


@_quiet
def _entr(self: Array) -> Array:
    """-x log x; 0 at 0, -inf below, nan stays nan."""
    dtype = _float_dtype(self.dtype)
    x = _in_opmath(self, dtype)
    value = -x * _rounded_log(np.log, np.where(x > 0, x, 1), dtype)
    return _result(np.where(x > 0, value, np.where(x == 0, 0, np.where(x < 0, -np.inf, x))), dtype)


_DOUBLE_UNARY: list[tuple[str, Fn]] = [
    ("erfc special_erfc", lambda x: special.erfc(x)),
    ("erfinv special_erfinv", _erfinv),
    ("digamma special_digamma special_psi", lambda x: special.psi(x)),
    ("i0 special_i0", lambda x: special.i0(x)),
    ("special_i0e", lambda x: special.i0e(x)),
    ("special_i1", lambda x: special.i1(x)),
    ("special_i1e", lambda x: special.i1e(x)),
    ("lgamma special_gammaln", _lgamma),
]
for _names, _fn in _DOUBLE_UNARY:
    _register(_in_double(_fn), _names)
_lgamma_kernel = _in_double(_lgamma)  # mvlgamma's terms
# no float16/bfloat16 kernel in torch
for _names, _fn, _kernel in (
    ("special_ndtri", lambda x: special.ndtri(x), "ndtri_cpu"),
    ("special_log_ndtr", lambda x: special.log_ndtr(x), "log_ndtr_cpu"),
    ("special_erfcx", lambda x: special.erfcx(x), "erfcx_cpu"),
    ("special_bessel_j0", lambda x: special.j0(x), "bessel_j0_cpu"),
    ("special_bessel_j1", lambda x: special.j1(x), "bessel_j1_cpu"),
    ("special_bessel_y0", lambda x: special.y0(x), "bessel_y0_cpu"),
    ("special_bessel_y1", lambda x: special.y1(x), "bessel_y1_cpu"),
    ("special_modified_bessel_i0", lambda x: special.i0(x), "modified_bessel_i0_cpu"),
    ("special_modified_bessel_i1", lambda x: special.i1(x), "modified_bessel_i1_cpu"),
    ("special_modified_bessel_k0", lambda x: special.k0(x), "modified_bessel_k0_cpu"),
    ("special_modified_bessel_k1", lambda x: special.k1(x), "modified_bessel_k1_cpu"),
    ("special_scaled_modified_bessel_k0", lambda x: special.k0e(x), "scaled_modified_bessel_k0_cpu"),
    ("special_scaled_modified_bessel_k1", lambda x: special.k1e(x), "scaled_modified_bessel_k1_cpu"),
    ("special_spherical_bessel_j0", lambda x: special.spherical_jn(0, x), "spherical_bessel_j0_cpu"),
    ("special_airy_ai", lambda x: special.airy(x)[0], "airy_ai_cpu"),
):
    _register(_in_double(_fn, _kernel), _names)
del _names, _fn, _kernel
_register(_sinc, "sinc special_sinc")
_register(_entr, "special_entr")
_register(_logit, "logit special_logit")
_register(_ndtr, "special_ndtr")
_register(_polygamma, "polygamma special_polygamma")
_register(_polygamma_, "polygamma_")
_register(_mvlgamma, "mvlgamma special_multigammaln")


def _angle_scale(factor: float) -> Fn:
    """deg2rad / rad2deg: x * factor in the op's float dtype (opmath for reduced floats)."""

    @_quiet
    def run(self: Array) -> Array:
        dtype = _float_dtype(self.dtype)
        return _result(_in_opmath(self, dtype) * _cast(factor, opmath_dtype(dtype)), dtype)

    return run


_register(_angle_scale(math.pi / 180), "deg2rad")
_register(_angle_scale(180 / math.pi), "rad2deg")


def _float_binary(fn: Fn, in_double: bool = False, refuse: tuple[str, str] = ("", "")) -> Fn:
    """A float-valued binary op over the promoted dtype (integers give float32),
    in float64 when ``in_double`` (the special functions), else in opmath.
    ``refuse``: (torch's kernel name, what it has no kernel for: "integral" or "reduced")."""

    @_quiet
    def run(self: Any, other: Any) -> Array:
        promoted = torch_result_dtype(self, other)
        name, refused = refuse
        if (refused == "integral" and not _is_float(promoted)) or (refused == "reduced" and is_reduced_float(promoted)):
            raise _not_implemented(name, promoted)
        dtype = _float_dtype(promoted)
        compute = np.dtype(np.float64) if in_double else opmath_dtype(dtype)
        a, b = (_cast(_cast(v, dtype), compute) for v in (self, other))
        out = np.asarray(fn(a, b))
        return _result(out.astype(FLOAT32) if in_double and is_reduced_float(dtype) else out, dtype)

    return run


def _x_log(log: Fn, wide: bool) -> Fn:
    """xlogy, xlog1py: 0 where x == 0 (unless y is nan), else x log(y) (log rounded
    to the dtype first, as torch's; xlogy's is vectorised, xlog1py's scalar)."""

    @_quiet
    def run(self: Any, other: Any) -> Array:
        dtype = _float_dtype(torch_result_dtype(self, other))
        x, y = _in_opmath(self, dtype), _in_opmath(other, dtype)
        product = x * _rounded_log(log, y, dtype, wide)
        return _result(np.where(np.isnan(y), np.nan, np.where(x == 0, 0, product)), dtype)

    return run


@_quiet
def _ldexp(self: Array, other: Array) -> Array:
    """x * 2^e, torch's mul(x, pow(2., e)): the power takes e's float dtype (float32
    for integers) and rounds to it, then the product rounds to the result's."""
    scale_dtype = _float_dtype(other.dtype)
    scale = _result(np.power(_cast(2.0, opmath_dtype(scale_dtype)), _in_opmath(other, scale_dtype)), scale_dtype)
    return _mul(_cast(self, _float_dtype(self.dtype)) if not _is_float(self.dtype) else self, scale)


_register(_x_log(np.log, wide=True), "xlogy.Tensor xlogy.Scalar_Other xlogy.Scalar_Self special_xlogy "
          "special_xlogy.other_scalar special_xlogy.self_scalar")
_register(_x_log(np.log1p, wide=False),
          "special_xlog1py special_xlog1py.other_scalar special_xlog1py.self_scalar")
_register(_float_binary(_zeta, in_double=True, refuse=("zeta_cpu", "reduced")),
          "special_zeta special_zeta.other_scalar special_zeta.self_scalar")
_register(_float_binary(np.copysign), "copysign.Tensor copysign.Scalar")


# ---------------------------------------------------------------- orthogonal polynomials P_n(x)
# torch (aten/src/ATen/native/Math.h) evaluates each element in the result dtype:
# special cases first (n < 0, the interval's ends, a closed form inside it for
# high degree), else the three-term recurrence up to degree n.


def _degree(n: Array) -> Array:
    """torch's static_cast<int64_t>(n): truncation; nan and inf give a negative degree."""
    finite = np.isfinite(n)
    return np.trunc(np.clip(np.where(finite, n, -1), -(2.0**62), 2.0**62)).astype(np.int64)


def _recurrence(first: Array, second: Array, degree: Array, step: Callable[[int, Array, Array], Array]) -> Array:
    """P_degree from P_0 = first, P_1 = second and P_{j+1} = step(j, P_{j-1}, P_j);
    an element stops at its degree or once it is nan (as torch's loop)."""
    p, q = (np.array(v) for v in np.broadcast_arrays(first, second, degree)[:2])
    for j in range(1, int(degree.max(initial=1))):
        active = (degree > j) & ~np.isnan(q)
        if not active.any():
            break
        p, q = np.where(active, q, p), np.where(active, step(j, p, q), q)
    return q


def _rounded(fn: Fn) -> Fn:
    """fn in float64 rounded to the dtype: libm's float functions are correctly rounded, numpy's are not."""
    return lambda v: fn(np.asarray(v, np.float64)).astype(v.dtype)


_acos, _cos, _sin = _rounded(np.arccos), _rounded(np.cos), _rounded(np.sin)


def _fms(a: Any, b: Array, c: Any) -> Array:
    """a * b - c rounded once, as the fused multiply-add torch's compiled recurrences use
    (float32 through float64, whose product of two float32 is exact; float64 plainly)."""
    if b.dtype != np.float32:
        return a * b - c
    wide = np.asarray(a, np.float64) * b.astype(np.float64) - np.asarray(c, np.float64)
    return wide.astype(np.float32)


def _parity(n: Array, even: Any, odd: Any) -> Array:
    return np.where(n % 2 == 0, even, odd)


def _chebyshev(kind: str, threshold: int, shifted: bool) -> Fn:
    """T, U, V, W and their shifted forms (of y = 2x - 1 on [0, 1])."""

    def run(x: Array, n_value: Array) -> Array:
        c, n = x.dtype.type, _degree(n_value)
        y = x + x - c(1) if shifted else x
        at_top, at_bottom = (x == c(1), x == c(0)) if shifted else (x == c(1), x == c(-1))
        fn, one = n.astype(x.dtype), c(1)
        odd_sum = fn + fn + one
        top, bottom = {"t": (one, _parity(n, one, -one)), "u": (fn + one, _parity(n, fn + one, -(fn + one))),
                       "v": (one, _parity(n, odd_sum, -odd_sum)), "w": (odd_sum, _parity(n, one, -one))}[kind]
        theta = _acos(y)
        if kind == "t":
            inside = _cos(fn * theta)
        elif kind == "u":
            inside = np.where(_sin(theta) != 0, _sin((fn + one) * theta) / _sin(theta),
                              (fn + one) * _cos((fn + one) * theta) / y)
        elif kind == "v":
            inside = np.where(_sin(theta / c(2)) != 1, _cos((fn + c(0.5)) * theta) / _cos(theta / c(2)),
                              _parity(n, odd_sum, -odd_sum))
        else:
            ends = _parity(n, one, -one) if shifted else np.where(x > 0, odd_sum, _parity(n, one, -one))
            inside = np.where(_cos(theta / c(2)) != 1, _sin((fn + c(0.5)) * theta) / _sin(theta / c(2)), ends)
        second = {"t": y, "u": y + y, "v": y + y - one, "w": y + y + one}[kind]
        chain = _recurrence(one, second, n, lambda j, p, q: _fms(y + y, q, p))
        return np.select([n < 0, at_top, at_bottom, (n > threshold) & (np.abs(y) < 1), n == 0, n == 1],
                         [c(0), top, bottom, inside, one, second], chain)

    return run


def _hermite(physicists: bool) -> Fn:
    """H_n (physicists') or He_n (probabilists'); nan beyond degree 128 (float32) or 512."""

    def run(x: Array, n_value: Array) -> Array:
        c, n = x.dtype.type, _degree(n_value)
        limit = 128 if x.dtype == np.float32 else 512
        second = x + x if physicists else x
        if physicists:
            chain = _recurrence(c(1), second, np.minimum(n, limit + 1), lambda j, p, q: _fms(x + x, q, (j + j) * p))
        else:
            chain = _recurrence(c(1), second, np.minimum(n, limit + 1), lambda j, p, q: _fms(x, q, j * p))
        return np.select([n < 0, n == 0, n == 1, n > limit], [c(0), c(1), second, c(np.nan)], chain)

    return run


def _laguerre(x: Array, n_value: Array) -> Array:
    c, n = x.dtype.type, _degree(n_value)
    second = c(1) - x
    chain = _recurrence(c(1), second, n, lambda j, p, q: _fms(j + j + (c(1) - x), q, j * p) / c(j + 1))
    return np.select([n < 0, x == 0, n == 0, n == 1], [c(0), c(1), c(1), second], chain)


def _legendre(x: Array, n_value: Array) -> Array:
    c, n = x.dtype.type, _degree(n_value)
    chain = _recurrence(c(1), x, n, lambda j, p, q: _fms(c(j + j + 1) * x, q, j * p) / c(j + 1))
    ends = np.where((x > 0) | (n % 2 == 0), c(1), c(-1))
    return np.select([n < 0, np.abs(x) == 1, n == 0, n == 1], [c(0), ends, c(1), x], chain)


_POLYNOMIALS: dict[str, Fn] = {
    **{f"chebyshev_polynomial_{kind}": _chebyshev(kind, threshold, shifted=False)
       for kind, threshold in (("t", 6), ("u", 8), ("v", 8), ("w", 8))},
    **{f"shifted_chebyshev_polynomial_{kind}": _chebyshev(kind, threshold, shifted=True)
       for kind, threshold in (("t", 6), ("u", 6), ("v", 6), ("w", 4))},
    "hermite_polynomial_h": _hermite(physicists=True),
    "hermite_polynomial_he": _hermite(physicists=False),
    "laguerre_polynomial_l": _laguerre,
    "legendre_polynomial_p": _legendre,
}
for _name, _fn in _POLYNOMIALS.items():
    _register(_float_binary(_fn, refuse=(f"{_name}_cpu", "reduced")),
              f"special_{_name} special_{_name}.x_scalar special_{_name}.n_scalar")
del _name, _fn
_register(_ldexp, "ldexp.Tensor", "ldexp_")
_register(_float_binary(np.hypot, refuse=("hypot_cpu", "integral")), "hypot")
# the regularized lower / upper incomplete gamma functions P(a, x), Q(a, x)
_register(_float_binary(lambda a, x: special.gammainc(a, x), in_double=True, refuse=("igamma_cpu", "integral")),
          "igamma special_gammainc")
_register(_float_binary(lambda a, x: special.gammaincc(a, x), in_double=True, refuse=("igammac_cpu", "integral")),
          "igammac special_gammaincc")
_register(_float_binary(logaddexp, refuse=("logaddexp_cpu", "integral")), "logaddexp")
_register(_float_binary(np.logaddexp2, refuse=("logaddexp2_cpu", "integral")), "logaddexp2")
_register(_promoted_binary(np.fmax), "fmax")  # nan only when both are nan
_register(_promoted_binary(np.fmin), "fmin")


def _integral_binary(fn: Fn, name: str) -> Fn:
    """gcd, lcm: integer dtypes only (bool excluded)."""
    computed = _promoted_binary(fn)

    def run(self: Any, other: Any) -> Array:
        dtype = torch_result_dtype(self, other)
        if dtype.kind not in "ui":
            raise _not_implemented(name, dtype)
        return computed(self, other)

    return run


_register(_integral_binary(np.gcd, "gcd_cpu"), "gcd")
_register(_integral_binary(np.lcm, "lcm_cpu"), "lcm")


@_quiet
def _nextafter(self: Array, other: Array) -> Array:
    """The next float after self towards other, in the op's own dtype."""
    dtype = torch_result_dtype(self, other)
    if not _is_float(dtype):
        raise _not_implemented("nextafter_cpu", dtype)
    if is_bfloat16(dtype):  # numpy has no bfloat16 nextafter: step the bits
        a, b = _cast(self, dtype), _cast(other, dtype)
        a, b = np.broadcast_arrays(a, b)
        bits = a.view(np.uint16).astype(np.int32)
        toward = np.where(a < b, 1, -1) * np.where(np.signbit(a.astype(FLOAT32)), -1, 1)
        stepped = (bits + toward).astype(np.uint16).view(dtype)
        zero = np.where(b > 0, np.uint16(1), np.uint16(0x8001)).view(dtype)
        out = np.where(a == b, b, np.where(a == 0, zero, stepped))
        return _result(np.where(np.isnan(a.astype(FLOAT32)) | np.isnan(b.astype(FLOAT32)), np.nan, out), dtype)
    return _result(np.nextafter(_cast(self, dtype), _cast(other, dtype)), dtype)


@_quiet
def _heaviside(self: Array, values: Array) -> Array:
    """values where self == 0, else self > 0 (nan gives 0)."""
    if self.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    dtype, (a, v) = _promoted(self, values)
    return _result(np.where(a == 0, v, (a > 0).astype(a.dtype)), dtype)


@_quiet
def _float_power(self: Any, exponent: Any) -> Array:
    """pow in double (complex double when either side is complex)."""
    dtype = torch_result_dtype(self, exponent)
    wide = np.dtype(np.complex128 if dtype.kind == "c" else np.float64)
    return _result(np.power(_cast(self, wide), _cast(exponent, wide)), wide)


def _sgn(self: Array) -> Array:
    """sign for real dtypes; x / |x| (0 at 0) for complex."""
    if self.dtype.kind != "c":
        return _sign(self)
    size = np.abs(self)
    with silenced():
        return _result(np.where(size == 0, 0, self / np.where(size == 0, 1, size)), self.dtype)


def _fix(self: Array) -> Array:
    if self.dtype == np.bool_:
        raise _not_implemented("trunc_vml_cpu", self.dtype)
    return _rounding(np.trunc)(self)


def _frexp(self: Array) -> tuple[Array, Array]:
    """(mantissa in [0.5, 1) with self's sign, int32 exponent); 0, inf and nan keep exponent 0."""
    if not _is_float(self.dtype):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(self.astype(np.float64))
    exponent = np.where(np.isfinite(self.astype(np.float64)), exponent, 0)
    return _result(mantissa, self.dtype), exponent.astype(np.int32)


def _signbit(self: Array) -> Array:
    if not _is_float(self.dtype):
        return _result(self < 0, np.bool_) if self.dtype != np.bool_ else np.zeros(self.shape, np.bool_)
    return _result(np.signbit(self.astype(opmath_dtype(self.dtype))), np.bool_)


def _infinity_test(sign: float) -> Fn:
    def run(self: Array) -> Array:
        if not _is_float(self.dtype):
            return np.zeros(self.shape, np.bool_)
        return _result(self.astype(opmath_dtype(self.dtype)) == sign * np.inf, np.bool_)

    return run


def _isreal(self: Array) -> Array:
    if self.dtype.kind != "c":
        return np.ones(self.shape, np.bool_)
    return _result(self.imag == 0, np.bool_)


@_quiet
def _isclose(self: Array, other: Array, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> Array:
    """|a - b| <= atol + rtol |b| (finite), or a == b; integers compare in float32."""
    if self.dtype != other.dtype:
        raise RuntimeError(f"{scalar_type_name(from_numpy(self.dtype))} did not match "
                           f"{scalar_type_name(from_numpy(other.dtype))}")
    close = np.equal(self, other)
    if equal_nan and _is_float(self.dtype):
        close |= np.isnan(self) & np.isnan(other)
    if atol == 0 and rtol == 0:
        return _result(close, np.bool_)
    compute = opmath_dtype(_float_dtype(self.dtype))
    a, b = _cast(self, compute), _cast(other, compute)
    difference = np.abs(a - b)
    allowed = _cast(atol, compute) + np.abs(_cast(rtol, compute) * b)
    return _result(close | (np.isfinite(difference) & (difference <= allowed)), np.bool_)


_register(_nextafter, "nextafter")
_register(_heaviside, "heaviside")
_register(_float_power, "float_power.Tensor_Tensor float_power.Tensor_Scalar float_power.Scalar")


def _float_power_(self: Array, exponent: Any) -> Array:
    result = _float_power(self, exponent)
    if result.dtype != self.dtype:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(from_numpy(self.dtype))} but "
                           f"the operation's result requires dtype {scalar_type_name(from_numpy(result.dtype))}")
    return write_into(self, result)


_register(_float_power_, "float_power_.Tensor float_power_.Scalar")
_register(_sgn, "sgn")
_register(_fix, "fix")
_register(_frexp, "frexp.Tensor")
_register(_signbit, "signbit")
_register(_infinity_test(1.0), "isposinf")
_register(_infinity_test(-1.0), "isneginf")
_register(_isreal, "isreal")
_register(_isclose, "isclose")


def _allclose(self: Array, other: Array, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """isclose(...).all(), a Python bool (the shapes broadcast, the dtypes must match)."""
    return bool(np.all(_isclose(self, other, rtol, atol, equal_nan)))


def _equal(self: Array, other: Array) -> bool:
    """Same shape and equal values after type promotion (nan is never equal)."""
    return self.shape == other.shape and bool(np.all(np.equal(self, other)))


_register(_allclose, "allclose")
_register(_equal, "equal")


def _positive(self: Array) -> Array:
    """+x: x itself (an alias); torch refuses bool."""
    if self.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self.view()


_register(_positive, "positive")

# ---------------------------------------------------------------- fill and copy


@kernel("fill.Scalar", "fill.Tensor")
def _fill(self: Array, value: Any) -> Array:
    return np.full(self.shape, checked_fill(value, self.dtype), dtype=self.dtype)


@kernel("zero_")
def _zero_(self: Array) -> Array:
    self[...] = 0
    return self


@kernel("copy")
def _copy(self: Array, src: Array, non_blocking: bool = False) -> Array:
    """src broadcast to self's shape, cast to self's dtype (any cast: float -> int truncates)."""
    out = np.empty(self.shape, self.dtype)
    with silenced():
        np.copyto(out, cast(src, self.dtype))
    return out


# ---------------------------------------------------------------- dropout

_ALPHA_DROPOUT = 1.7580993408473766  # -selu's negative saturation value, alpha * scale


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input: Array, p: float, feature: bool) -> Array:  # noqa: A002
    """Bernoulli(1 - p) keep-mask: per element, or per (N, C) channel for feature dropout."""
    shape = input.shape
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (input.ndim - 2)
    return rng.generator().random(shape) < 1 - p


@_quiet
def _dropout_values(
    input: Array, p: float, train: bool, feature: bool, alpha: bool  # noqa: A002
) -> Array:
    """torch's _dropout_impl: x * mask / (1 - p); alpha dropout keeps selu's statistics
    with x * a * mask + a * alpha' * (p - (1 - mask))."""
    _check_p(p)
    if p == 0 or not train or input.size == 0:
        return _fresh(input)
    if p == 1:
        return _result(input * np.zeros((), input.dtype), input.dtype)
    keep = _keep_mask(input, p, feature)
    if not alpha:
        noise = keep.astype(input.dtype) / _cast(1 - p, input.dtype)
        return _result(input * noise, input.dtype)
    a = 1.0 / math.sqrt((_ALPHA_DROPOUT**2 * p + 1) * (1 - p))
    noise = keep.astype(input.dtype)
    shift = (noise - 1) * _cast(_ALPHA_DROPOUT * a, input.dtype) + _cast(
        _ALPHA_DROPOUT * a * p, input.dtype
    )
    return _result(input * (noise * _cast(a, input.dtype)) + shift, input.dtype)


def _dropout_kernel(feature: bool, alpha: bool) -> Fn:
    def run(input: Array, p: float, train: bool) -> Array:  # noqa: A002
        return _dropout_values(input, p, train, feature, alpha)

    return run


_register(_dropout_kernel(False, False), "dropout")
_register(_dropout_kernel(True, False), "feature_dropout")
_register(_dropout_kernel(False, True), "alpha_dropout")
_register(_dropout_kernel(True, True), "feature_alpha_dropout")


@kernel("native_dropout_backward")
def _native_dropout_backward(grad_output: Array, mask: Array, scale: float) -> Array:
    """grad * mask * scale (ATen's dropout_backward), promoted as that product, in opmath,
    rounded once."""
    dtype = torch_result_dtype(grad_output, mask, scale)
    wide = opmath_dtype(dtype)
    return _result(grad_output.astype(wide) * mask.astype(wide) * _cast(scale, wide), dtype)


@kernel("native_dropout")
@_quiet
def _native_dropout(
    input: Array, p: float, train: bool | None  # noqa: A002
) -> tuple[Array, Array]:
    """(x * mask / (1 - p), bool mask); train None means train; p = 1 zeroes everything."""
    _check_p(p)
    if train is False or input.size == 0:
        return _fresh(input), np.ones(input.shape, dtype=np.bool_)
    keep = _keep_mask(input, p, False)
    scale = 0.0 if p == 1 else 1.0 / (1 - p)
    out = input * keep.astype(input.dtype) * _cast(scale, input.dtype)
    return _result(out, input.dtype), keep
