"""Shape rules: elementwise ops (unary, binary, ternary and their in-place forms).

Shapes broadcast; dtypes follow torch's TensorIterator rules: ``result_type``
over the operands (a Python scalar is a wrapped number), integer inputs of
float-valued ops give float32, comparisons give bool. In-place forms are
derived from these (variants.py), but for the few whose functional form has
another name (``pow_.Scalar`` is ``pow.Tensor_Scalar`` in place).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use

from .. import symbolic as _symbolic
from .._lazy import loaded
from ..dtypes import DType, result_type
from ..meta import ScalarMeta, TensorMeta
from ..symbolic import dim_str, to_dim
from . import shape_rule, stride_rule
from .common import (
    broadcast_shapes,
    check_inplace,
    normalize_dim,
    scalar_type_name,
    shape_of,
    to_float_dtype,
)
from .guards import DataDependentOutputException, ShapeGuardError, check, guard_bool, sym_eq
from .strides import Strides, elementwise_strides, preserved_strides
from .variants import in_place

Rule = Callable[..., Any]

# ---------------------------------------------------------------- helpers

_OF_KIND = {"int": 0, "float": 0.0, "bool": False}
_TO_REAL = {DType.complex64: DType.float32, DType.complex128: DType.float64}
# C++ type names: some torch messages print a TypeMeta ("float") rather than a ScalarType.
_TYPE_META_NAMES = {
    DType.uint8: "unsigned char", DType.int8: "signed char", DType.int16: "short int",
    DType.int32: "int", DType.int64: "long int", DType.float16: "c10::Half",
    DType.float32: "float", DType.float64: "double", DType.bool: "bool",
    DType.bfloat16: "c10::BFloat16", DType.complex64: "c10::complex<float>",
    DType.complex128: "c10::complex<double>",
}


_PLAIN = (TensorMeta, bool, int, float, complex, type(None))


def _wrapped(value: Any) -> Any:
    """A symbolic scalar takes part in promotion as a Python number of its kind."""
    if isinstance(value, _PLAIN):  # the common case, first: rules run on every traced op
        return value
    if isinstance(value, ScalarMeta):
        return _OF_KIND[value.kind]
    if not loaded():  # no sympy object can exist yet
        return value
    if isinstance(value, sympy.Expr):  # before Boolean: a sympy Symbol is both
        return 0 if value.is_integer else 0.0
    if isinstance(value, sympy.logic.boolalg.Boolean):
        return False
    return value


def _promote(*operands: Any) -> DType:
    """torch.result_type over tensors and wrapped numbers (None operands skipped)."""
    return result_type(*map(_wrapped, operands))


def _broadcast(dtype: DType, *operands: Any) -> TensorMeta:
    return TensorMeta(broadcast_shapes(*(shape_of(o) for o in operands)), dtype)


def _integral(dtype: DType) -> bool:
    """torch's isIntegralType(dtype, includeBool=True)."""
    return dtype.kind in "uib"


def _register(rule: Rule, names: str, inplace: str = "") -> None:
    """Register `rule` for the space-separated ops, and its in-place form for the
    ops in `inplace`: those whose functional form has another name (the others
    are derived, variants.py)."""
    shape_rule(*names.split())(rule)
    if inplace:
        shape_rule(*inplace.split())(in_place(rule))


# ---------------------------------------------------------------- unary


def _unary(dtype_rule: Callable[[DType], DType]) -> Rule:
    """A shape-preserving op whose result dtype is a function of the input's."""

    def rule(self: TensorMeta, *_: Any) -> TensorMeta:
        return TensorMeta(self.shape, dtype_rule(self.dtype))

    return rule


def _same(dtype: DType) -> DType:
    return dtype


def _to_bool(_: DType) -> DType:
    return DType.bool


def _abs_dtype(dtype: DType) -> DType:
    return _TO_REAL.get(dtype, dtype)  # |complex| is real


def _not_implemented(kernel: str) -> Callable[[DType], str]:
    """torch's dispatch error for a dtype a kernel has no instance for."""
    return lambda dtype: f"\"{kernel}\" not implemented for '{scalar_type_name(dtype)}'"


def _not_for(kinds: str, what: Callable[[DType], str]) -> Callable[[DType], DType]:
    """A dtype rule that keeps the dtype but rejects the dtype kinds in `kinds`."""

    def dtype_rule(dtype: DType) -> DType:
        if dtype.kind in kinds:
            raise ShapeGuardError(what(dtype))
        return dtype

    return dtype_rule


# Integral/bool inputs give float32 (TensorIterator's promote_integer_inputs_to_float).
_register(
    _unary(to_float_dtype),
    "exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh "
    "asinh acosh atanh sigmoid erf reciprocal",
)
# Rounding, sign and the activations keep the dtype (ints stay ints).
_register(
    _unary(_same),
    "ceil floor round round.decimals special_round trunc sign frac nan_to_num silu elu leaky_relu "
    "hardsigmoid hardswish mish relu6 selu celu threshold softplus log_sigmoid softshrink hardshrink rrelu",
)
_register(_unary(_abs_dtype), "abs")
_register(_unary(_to_bool), "isnan isinf isfinite logical_not")
_NEG_BOOL = (
    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)
_register(_unary(_not_for("b", lambda _: _NEG_BOOL)), "neg")
_RELU_BOOL = "Boolean inputs not supported for relu"
_register(_unary(_not_for("b", lambda _: _RELU_BOOL)), "relu")
_register(_unary(_not_for("fc", _not_implemented("bitwise_not_cpu"))), "bitwise_not")


def _gelu(self: TensorMeta, approximate: str = "none") -> TensorMeta:
    check(approximate in ("none", "tanh"), "approximate argument must be either none or tanh.")
    return TensorMeta(self.shape, self.dtype)


def _hardtanh(self: TensorMeta, min_val: Any = -1, max_val: Any = 1) -> TensorMeta:
    check(self.dtype is not DType.bool, "Bool inputs not supported for hardtanh")
    negative = any(isinstance(v, (int, float)) and v < 0 for v in (min_val, max_val))
    check(
        self.dtype is not DType.uint8 or not negative,
        "cannot do hardtanh on an unsigned type with negative limits",
    )
    return TensorMeta(self.shape, self.dtype)


def _square(self: TensorMeta) -> TensorMeta:
    return _pow(self, 2)  # square(x) = pow(x, 2): bool gives int64


def _glu(self: TensorMeta, dim: int = -1) -> TensorMeta:
    check(self.ndim > 0, "glu does not support scalars because halving size must be even")
    dim = normalize_dim(dim, self.ndim)
    size = self.shape[dim]
    even = size % 2 == 0 if type(size) is int else guard_bool(sympy.Eq(sympy.Mod(size, 2), 0))
    check(even, f"Halving dimension must be even, but dimension {dim} is size {dim_str(size)}")
    half = size // 2 if type(size) is int else to_dim(_symbolic.FloorDiv(size, 2))
    return TensorMeta(self.shape[:dim] + (half,) + self.shape[dim + 1:], self.dtype)


def _log_sigmoid_forward(self: TensorMeta) -> tuple[TensorMeta, TensorMeta]:
    return self, self  # (output, buffer): the CPU buffer is input-sized


def _rrelu_with_noise_functional(self: TensorMeta, noise: TensorMeta, *_: object) -> tuple[TensorMeta, TensorMeta]:
    return self, noise  # (output, the slopes drawn into noise)


def _prelu(self: TensorMeta, weight: TensorMeta) -> TensorMeta:
    if self.dtype is not weight.dtype:
        raise ShapeGuardError(
            f"prelu: Type promoting not supported. Got {scalar_type_name(self.dtype)} and "
            f"{scalar_type_name(weight.dtype)}"
        )
    count = weight.numel()
    if not sym_eq(count, 1):  # one slope per channel (dim 1), or one shared slope
        check(self.ndim > 0, "Not allow zero-dim input tensor.")
        channels = self.shape[1] if self.ndim > 1 else 1
        if not sym_eq(channels, count):
            raise ShapeGuardError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {dim_str(count)} and channel size = {dim_str(channels)}."
            )
    check(
        weight.ndim <= 1,
        f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}",
    )
    return TensorMeta(self.shape, self.dtype)


_register(_gelu, "gelu")
_register(_hardtanh, "hardtanh")
_register(_square, "square")
_register(_glu, "glu")
_register(_log_sigmoid_forward, "log_sigmoid_forward")
_register(_rrelu_with_noise_functional, "rrelu_with_noise_functional")


def _rrelu_with_noise(self: TensorMeta, noise: TensorMeta, *_: object) -> TensorMeta:
    return TensorMeta(self.shape, self.dtype)  # noise, the slopes, is written in place


_register(_rrelu_with_noise, "rrelu_with_noise")
_register(in_place(_rrelu_with_noise), "rrelu_with_noise_")  # writes noise too: no derived twin
_register(_prelu, "prelu")


def _prelu_kernel(self: TensorMeta, weight: TensorMeta) -> TensorMeta:
    """prelu's kernel: the slopes arrive already shaped, and broadcast as any operand."""
    check(self.dtype is weight.dtype, f"prelu: Type promoting not supported. Got {scalar_type_name(self.dtype)} "
          f"and {scalar_type_name(weight.dtype)}")
    return _broadcast(self.dtype, self, weight)


_register(_prelu_kernel, "_prelu_kernel")

# ---------------------------------------------------------------- binary


def _arith(self: Any, other: Any, *_: Any) -> TensorMeta:
    """Broadcast shapes, result_type dtype (mul, remainder, fmod, floor_divide...)."""
    return _broadcast(_promote(self, other), self, other)


def _check_alpha(dtype: DType, alpha: Any) -> None:
    if type(alpha) is int:
        return  # an int alpha suits every result type
    check(
        not isinstance(alpha, bool) or dtype is DType.bool,
        "Boolean alpha only supported for Boolean results.",
    )
    fractional = isinstance(_wrapped(alpha), float)
    check(
        dtype.is_floating_point or dtype.is_complex or not fractional,
        "For integral input tensors, argument alpha must not be a floating point number.",
    )


def _add(self: Any, other: Any, alpha: Any = 1) -> TensorMeta:
    out = _arith(self, other)
    _check_alpha(out.dtype, alpha)
    return out


def _sub(self: Any, other: Any, alpha: Any = 1) -> TensorMeta:
    kinds = [_promote(v) for v in (self, other)]
    check(
        kinds != [DType.bool, DType.bool],
        "Subtraction, the `-` operator, with two bool tensors is not supported. "
        "Use the `^` or `logical_xor()` operator instead.",
    )
    check(
        DType.bool not in kinds,
        "Subtraction, the `-` operator, with a bool tensor is not supported. "
        "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
    )
    return _add(self, other, alpha)


def _rsub(self: Any, other: Any, alpha: Any = 1) -> TensorMeta:
    return _sub(other, self, alpha)  # rsub(a, b) = b - alpha * a


def _div(self: Any, other: Any, rounding_mode: str | None = None) -> TensorMeta:
    if rounding_mode not in (None, "trunc", "floor"):
        raise ShapeGuardError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
            f"but found '{rounding_mode}'"
        )
    out = _arith(self, other)
    # True division of integers gives float32; trunc/floor keep the promoted type.
    return out if rounding_mode else TensorMeta(out.shape, to_float_dtype(out.dtype))


def _float_binary(self: Any, other: Any) -> TensorMeta:
    """atan2 and friends: integer inputs promote to float32."""
    out = _arith(self, other)
    return TensorMeta(out.shape, to_float_dtype(out.dtype))


def _pow(self: Any, exponent: Any) -> TensorMeta:
    negative_int = isinstance(exponent, int) and exponent < 0
    check(
        not (isinstance(self, TensorMeta) and _integral(self.dtype) and negative_int),
        "Integers to negative integer powers are not allowed.",
    )
    return _arith(self, exponent)


def _compare(self: Any, other: Any) -> TensorMeta:
    """Comparisons and logical ops: broadcast, bool result."""
    return _broadcast(DType.bool, self, other)


def _integral_only(kernel: str, kinds: str = "uib") -> Rule:
    """Bitwise ops accept integral and bool dtypes; bit shifts (kinds "ui") refuse bool after promotion."""

    def rule(self: Any, other: Any) -> TensorMeta:
        out = _arith(self, other)
        if out.dtype.kind not in kinds:
            raise ShapeGuardError(_not_implemented(kernel)(out.dtype))
        return out

    return rule


def _minmax(name: str) -> Rule:
    def rule(self: Any, other: Any) -> TensorMeta:
        out = _arith(self, other)
        if out.dtype.is_complex:
            raise ShapeGuardError(f"{name} not implemented for complex tensors.")
        return out

    return rule


_register(_add, "add.Tensor add.Scalar")
_register(_sub, "sub.Tensor sub.Scalar")
_register(_rsub, "rsub.Tensor rsub.Scalar")
_register(
    _arith,
    "mul.Tensor mul.Scalar remainder.Tensor remainder.Scalar fmod.Tensor fmod.Scalar "
    "floor_divide.Scalar",
)
_register(_arith, "floor_divide", inplace="floor_divide_.Tensor")
_register(_div, "div.Tensor div.Scalar div.Tensor_mode div.Scalar_mode")
_register(_div, "true_divide.Tensor true_divide.Scalar")
_register(_float_binary, "atan2")


@shape_rule("atan2.out")
def _atan2_out(self: Any, other: Any, out: TensorMeta) -> TensorMeta:
    """out= form: out is resized to the result's shape and keeps its (castable) dtype."""
    result = _float_binary(self, other)
    return check_inplace(TensorMeta(result.shape, out.dtype), result)


_register(_pow, "pow.Tensor_Scalar", inplace="pow_.Scalar")
_register(_pow, "pow.Tensor_Tensor", inplace="pow_.Tensor")
_register(_pow, "pow.Scalar")
_register(_minmax("maximum"), "maximum minimum max.other min.other")
for _op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    _register(_integral_only(f"{_op}_cpu"), f"{_op}.Tensor {_op}.Scalar")
for _op, _kernel in (("left", "lshift_cpu"), ("right", "rshift_cpu")):
    _register(_integral_only(_kernel, "ui"), f"bitwise_{_op}_shift.Tensor bitwise_{_op}_shift.Tensor_Scalar "
              f"bitwise_{_op}_shift.Scalar_Tensor __{_op[0]}shift__.Tensor __{_op[0]}shift__.Scalar")
del _op, _kernel
_register(
    _compare,
    "eq.Tensor eq.Scalar ne.Tensor ne.Scalar lt.Tensor lt.Scalar le.Tensor le.Scalar "
    "gt.Tensor gt.Scalar ge.Tensor ge.Scalar logical_and logical_or logical_xor",
)

# ---------------------------------------------------------------- ternary and special


def _where(condition: TensorMeta, self: Any, other: Any) -> TensorMeta:
    if condition.dtype not in (DType.bool, DType.uint8):
        raise ShapeGuardError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{scalar_type_name(condition.dtype)}"
        )
    return _broadcast(_promote(self, other), condition, self, other)  # condition doesn't promote


def _clamp(self: TensorMeta, min: Any = None, max: Any = None) -> TensorMeta:  # noqa: A002
    check(
        min is not None or max is not None,
        "torch.clamp: At least one of 'min' or 'max' must not be None",
    )
    out = _broadcast(_promote(self, min, max), self, min, max)
    check(not out.dtype.is_complex, "clamp is not supported for complex types")
    return out


def _clamp_min(self: TensorMeta, min: Any) -> TensorMeta:  # noqa: A002
    return _clamp(self, min, None)


def _clamp_max(self: TensorMeta, max: Any) -> TensorMeta:  # noqa: A002
    return _clamp(self, None, max)


def _masked_fill(self: TensorMeta, mask: TensorMeta, value: Any) -> TensorMeta:
    if mask.dtype is not DType.bool:
        raise ShapeGuardError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{_TYPE_META_NAMES[mask.dtype]}"
        )
    if isinstance(value, TensorMeta) and value.ndim != 0:
        raise ShapeGuardError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s)."
        )
    return TensorMeta(broadcast_shapes(self.shape, mask.shape), self.dtype)


def _lerp(self: TensorMeta, end: TensorMeta, weight: Any) -> TensorMeta:
    for name, other in (("end", end), ("weight", weight)):
        if isinstance(other, TensorMeta) and other.dtype is not self.dtype:
            want, got = _TYPE_META_NAMES[self.dtype], _TYPE_META_NAMES[other.dtype]
            raise ShapeGuardError(f"expected dtype {want} for `{name}` but got dtype {got}")
    return _broadcast(self.dtype, self, end, weight)


def _addcmul(self: TensorMeta, tensor1: TensorMeta, tensor2: TensorMeta, *_: Any) -> TensorMeta:
    return _broadcast(_promote(self, tensor1, tensor2), self, tensor1, tensor2)


def _addcdiv(self: TensorMeta, tensor1: TensorMeta, tensor2: TensorMeta, *_: Any) -> TensorMeta:
    check(
        not (_integral(_promote(tensor1)) and _integral(_promote(tensor2))),
        "Integer division with addcdiv is no longer supported, and in a future release addcdiv "
        "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
        "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
        "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
        "addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
        "tensor2), for all dtypes.",
    )
    return _addcmul(self, tensor1, tensor2)


def _fill(self: TensorMeta, value: Any) -> TensorMeta:
    if isinstance(value, TensorMeta) and value.ndim != 0:
        raise ShapeGuardError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
            "dimensions."
        )
    return self


def _copy(self: TensorMeta, src: TensorMeta, *_: Any) -> TensorMeta:
    """copy(self, src): src broadcasts into self's shape; the dtype is self's."""
    return check_inplace(self, TensorMeta(broadcast_shapes(self.shape, shape_of(src)), self.dtype))


def _zero(self: TensorMeta) -> TensorMeta:
    return self


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise ShapeGuardError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input: TensorMeta, p: float, train: bool | None) -> TensorMeta:  # noqa: A002
    _check_p(p)
    return input


def _native_dropout(
    input: TensorMeta, p: float, train: bool | None  # noqa: A002
) -> tuple[TensorMeta, TensorMeta]:
    _check_p(p)
    scales = bool(train) and 0 < p < 1  # the output is mask * input / (1 - p)
    if scales and not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise ShapeGuardError(
            "result type Float can't be cast to the desired output type "
            f"{scalar_type_name(input.dtype)}"
        )
    return input, TensorMeta(input.shape, DType.bool)


def _native_dropout_backward(grad_output: TensorMeta, mask: TensorMeta, scale: float) -> TensorMeta:
    """grad * mask * scale: promoted as that product is (an integer grad gives float32)."""
    return TensorMeta(broadcast_shapes(grad_output.shape, mask.shape), result_type(grad_output, mask, scale))


_register(_where, "where.self where.ScalarSelf where.ScalarOther where.Scalar")
_register(_clamp, "clamp clamp.Tensor")
_register(_clamp_min, "clamp_min clamp_min.Tensor")
_register(_clamp_max, "clamp_max clamp_max.Tensor")
_register(_masked_fill, "masked_fill.Scalar masked_fill.Tensor")
_register(_lerp, "lerp.Scalar lerp.Tensor")
_register(_addcmul, "addcmul")
_register(_addcdiv, "addcdiv")
_register(_fill, "fill.Scalar fill.Tensor")
_register(_copy, "copy")
_register(_zero, "zero_")
_register(_dropout, "dropout feature_dropout alpha_dropout feature_alpha_dropout")
_register(_native_dropout, "native_dropout")
_register(_native_dropout_backward, "native_dropout_backward")


# ---------------------------------------------------------------- special functions and more maths

_REDUCED_FLOATS = (DType.float16, DType.bfloat16)


def _float_kernel_only(kernel: str) -> Callable[[DType], DType]:
    """Float-valued, with no float16/bfloat16 kernel in torch (ndtri, erfcx, Bessel, zeta)."""

    def dtype_rule(dtype: DType) -> DType:
        check(dtype not in _REDUCED_FLOATS, _not_implemented(kernel)(dtype))
        return to_float_dtype(dtype)

    return dtype_rule


for _op, _kernel in (("special_ndtri", "ndtri_cpu"), ("special_log_ndtr", "log_ndtr_cpu"),
                     ("special_erfcx", "erfcx_cpu"), ("special_bessel_j0", "bessel_j0_cpu"),
                     ("special_bessel_j1", "bessel_j1_cpu"), ("special_bessel_y0", "bessel_y0_cpu"),
                     ("special_bessel_y1", "bessel_y1_cpu"),
                     ("special_modified_bessel_i0", "modified_bessel_i0_cpu"),
                     ("special_modified_bessel_i1", "modified_bessel_i1_cpu"),
                     ("special_modified_bessel_k0", "modified_bessel_k0_cpu"),
                     ("special_modified_bessel_k1", "modified_bessel_k1_cpu"),
                     ("special_scaled_modified_bessel_k0", "scaled_modified_bessel_k0_cpu"),
                     ("special_scaled_modified_bessel_k1", "scaled_modified_bessel_k1_cpu"),
                     ("special_spherical_bessel_j0", "spherical_bessel_j0_cpu"),
                     ("special_airy_ai", "airy_ai_cpu")):
    _register(_unary(_float_kernel_only(_kernel)), _op)
del _op, _kernel


def _zeta(self: Any, other: Any) -> TensorMeta:
    out = _float_binary(self, other)
    check(out.dtype not in _REDUCED_FLOATS, _not_implemented("zeta_cpu")(out.dtype))
    return out


_register(_zeta, "special_zeta special_zeta.other_scalar special_zeta.self_scalar")


def _polynomial(kernel: str) -> Callable[..., TensorMeta]:
    """P_n(x): float-valued over the promoted dtype, no float16/bfloat16 kernel in torch."""

    def rule(x: Any, n: Any) -> TensorMeta:
        out = _float_binary(x, n)
        check(out.dtype not in _REDUCED_FLOATS, _not_implemented(kernel)(out.dtype))
        return out

    return rule


_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
                "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
                "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")
for _name in _POLYNOMIALS:
    _register(_polynomial(f"{_name}_cpu"), f"special_{_name} special_{_name}.x_scalar special_{_name}.n_scalar")
del _name
# Float-valued: integral and bool inputs give float32 (torch.special's unary functions too).
_register(
    _unary(to_float_dtype),
    "erfc erfinv lgamma digamma i0 special_i0e special_i1 special_i1e special_ndtr "
    "special_entr special_sinc special_expit special_logit sinc logit "
    "deg2rad rad2deg special_erf "
    "special_erfc special_erfinv special_expm1 special_exp2 special_gammaln special_digamma special_psi special_i0 "
    "special_log1p",
)
_register(_unary(_to_bool), "isneginf isposinf isreal signbit")
_register(_unary(_same), "sgn")
_register(_unary(_not_for("b", _not_implemented("trunc_vml_cpu"))), "fix")
# copysign, xlogy and the like promote integers to float32; fmax/fmin keep the promoted type
_register(
    _float_binary,
    "xlogy.Tensor xlogy.Scalar_Other xlogy.Scalar_Self special_xlog1py special_xlog1py.other_scalar "
    "special_xlog1py.self_scalar "
    "copysign.Tensor copysign.Scalar ldexp.Tensor special_xlogy special_xlogy.other_scalar special_xlogy.self_scalar",
)
_register(_minmax("fmax"), "fmax fmin")


def _floating_binary(kernel: str, complex_too: bool = False) -> Rule:
    """hypot, logaddexp, nextafter: floating (logaddexp: and complex) kernels only, no integer promotion."""

    def rule(self: Any, other: Any) -> TensorMeta:
        out = _arith(self, other)
        if not (out.dtype.is_floating_point or (complex_too and out.dtype.is_complex)):
            raise ShapeGuardError(_not_implemented(kernel)(out.dtype))
        return out

    return rule


_register(_floating_binary("hypot_cpu"), "hypot")
_register(_floating_binary("logaddexp_cpu", complex_too=True), "logaddexp")
_register(_floating_binary("logaddexp2_cpu"), "logaddexp2")
_register(_floating_binary("nextafter_cpu"), "nextafter")
_register(_floating_binary("igamma_cpu"), "igamma special_gammainc")
_register(_floating_binary("igammac_cpu"), "igammac special_gammaincc")


def _integral_binary(kernel: str) -> Rule:
    """gcd, lcm: integer kernels only (bool excluded)."""

    def rule(self: Any, other: Any) -> TensorMeta:
        out = _arith(self, other)
        if out.dtype.kind not in "ui":
            raise ShapeGuardError(_not_implemented(kernel)(out.dtype))
        return out

    return rule


_register(_integral_binary("gcd_cpu"), "gcd")
_register(_integral_binary("lcm_cpu"), "lcm")


def _heaviside(self: TensorMeta, values: TensorMeta) -> TensorMeta:
    check(self.dtype is values.dtype, "heaviside is not yet implemented for tensors with different dtypes.")
    return _arith(self, values)


def _float_power(self: Any, exponent: Any) -> TensorMeta:
    """Computed in double (complex double when either side is complex)."""
    complex_ = any(_promote(v).is_complex for v in (self, exponent) if v is not None)
    return _broadcast(DType.complex128 if complex_ else DType.float64, self, exponent)


def _polygamma(n: int, self: TensorMeta) -> TensorMeta:
    check(n >= 0, "polygamma(n, x) does not support negative n.")
    return TensorMeta(self.shape, to_float_dtype(self.dtype))


def _polygamma_(self: TensorMeta, n: int) -> TensorMeta:
    return check_inplace(self, _polygamma(n, self))


def _mvlgamma(self: TensorMeta, p: int) -> TensorMeta:
    check(p >= 1, "p has to be greater than or equal to 1")
    return TensorMeta(self.shape, to_float_dtype(self.dtype))


def _frexp(self: TensorMeta) -> tuple[TensorMeta, TensorMeta]:
    check(self.dtype.is_floating_point, "torch.frexp() only supports floating-point dtypes")
    return self, TensorMeta(self.shape, DType.int32)


def _isclose(self: TensorMeta, other: TensorMeta, *_: Any) -> TensorMeta:
    check(self.dtype is other.dtype,
          f"{scalar_type_name(self.dtype)} did not match {scalar_type_name(other.dtype)}")
    return _compare(self, other)


_POSITIVE_BOOL = "The `+` operator, on a bool tensor is not supported."
_register(_unary(_not_for("b", lambda _: _POSITIVE_BOOL)), "positive")
_register(_heaviside, "heaviside")
_register(_float_power, "float_power.Tensor_Tensor float_power.Tensor_Scalar float_power.Scalar")
_register(_polygamma, "polygamma special_polygamma")
_register(_polygamma_, "polygamma_")
_register(_mvlgamma, "mvlgamma special_multigammaln")


def _float_power_(self: TensorMeta, exponent: Any) -> TensorMeta:
    """In place, self must already have the double result dtype: torch does not cast it down."""
    result = _float_power(self, exponent)
    check(self.dtype is result.dtype, f"the base given to float_power_ has dtype {scalar_type_name(self.dtype)} but "
          f"the operation's result requires dtype {scalar_type_name(result.dtype)}")
    return check_inplace(self, result)


_register(_float_power_, "float_power_.Tensor float_power_.Scalar")
_register(_frexp, "frexp.Tensor")
_register(_isclose, "isclose")


def _data_dependent_output(op: str) -> Callable[..., Any]:
    """allclose, equal: a Python bool of the values, which tracing has not got (torch's fake tensors raise too)."""

    def rule(*_: Any) -> Any:
        raise DataDependentOutputException(f"aten.{op}.default")

    return rule


_register(_data_dependent_output("allclose"), "allclose")
_register(_data_dependent_output("equal"), "equal")
_register(in_place(_float_binary), "ldexp_")


# Layouts (strides.py): pointwise ops get torch's elementwise layout by derivation
# (variants.py); these ops lay out their results otherwise.


@stride_rule("copy", "dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout")
def _like_self_strides(out: TensorMeta, self: TensorMeta, *_: Any) -> Strides | None:
    """A new tensor laid out like self (empty_like's preserve_format)."""
    return preserved_strides(self)


@stride_rule("native_dropout")
def _native_dropout_strides(out: tuple[TensorMeta, TensorMeta], input: TensorMeta,  # noqa: A002
                            *_: Any) -> tuple[Strides | None, Strides | None]:
    strides = preserved_strides(input)
    return strides, strides


@stride_rule("masked_fill.Scalar", "masked_fill.Tensor")
def _masked_fill_strides(out: TensorMeta, *_: Any) -> None:
    """Row-major, although pointwise: torch fills a contiguous clone of self."""
    return None


# torch's special.* aliases, isclose, isreal and fix are composites of pointwise ops
# (untagged): their results take the elementwise layout all the same.
@stride_rule(
    "special_ndtr", "special_sinc", "special_expit", "special_logit", "isclose", "isreal", "fix", "special_erf",
    "special_erfc", "special_erfinv", "special_expm1", "special_exp2", "special_gammaln", "special_digamma",
    "special_psi", "special_polygamma", "special_i0", "special_log1p", "special_round", "special_xlogy",
    "special_xlogy.other_scalar", "special_xlogy.self_scalar", "special_gammainc", "special_gammaincc",
)
def _composite_pointwise_strides(out: TensorMeta, *args: Any) -> Strides | None:
    return elementwise_strides(out.shape, args)


@stride_rule("positive")
def _positive_strides(out: TensorMeta, self: TensorMeta) -> Strides | None:
    """+x is x itself (an alias)."""
    return self.strides


@stride_rule("mvlgamma")
def _mvlgamma_strides(out: TensorMeta, *_: Any) -> None:
    """Row-major, although pointwise: torch sums lgamma over a new last dim."""
    return None
