"""Elementwise shape rules: broadcasting, torch's dtype promotion, in-place checks.

Expectations are computed by hand from torch's documented rules (no torch here).
"""

from __future__ import annotations

import pytest
from shape_rule_checks import raises, t

import texport.dialects.op_table  # noqa: F401 - registers the schemas infer() binds against
from texport.dialects.dtypes import DType
from texport.dialects.meta import ScalarMeta
from texport.dialects.shape_rules.infer import infer
from texport.dialects.symbolic import symbol

D = DType
s0, s1 = symbol("s0"), symbol("s1")


# ---------------------------------------------------------------- broadcasting


def test_static_broadcast_keeps_python_ints() -> None:
    out = infer("add.Tensor", t(2, 1, 4), t(3, 1))
    assert out == t(2, 3, 4)
    assert all(type(d) is int for d in out.shape)


def test_symbolic_broadcast() -> None:
    assert infer("add.Tensor", t(s0, 1), t(3)) == t(s0, 3)
    assert infer("mul.Tensor", t(s0, s1), t(s1)) == t(s0, s1)
    assert infer("sub.Tensor", t(1, s1), t(s0, 1)) == t(s0, s1)


def test_broadcast_mismatch_is_an_error() -> None:
    with raises("The size of tensor a (3) must match the size of tensor b (4)"):
        infer("add.Tensor", t(2, 3), t(4))


# ---------------------------------------------------------------- promotion


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        (t(3, dtype=D.int64), 1.5, D.float32),  # a float scalar lifts ints to the default float
        (t(3, dtype=D.int32), t(dtype=D.int64), D.int32),  # 0-d tensors rank below dimensioned
        (t(3, dtype=D.bool), t(3, dtype=D.bool), D.bool),
        (t(3, dtype=D.uint8), t(3, dtype=D.int8), D.int16),
        (t(3, dtype=D.float16), t(3, dtype=D.bfloat16), D.float32),
        (t(dtype=D.float32), t(dtype=D.float64), D.float64),
        (t(3, dtype=D.int32), 7, D.int32),  # an int scalar never widens an int tensor
        (t(3, dtype=D.bool), 1, D.int64),
        (t(3, dtype=D.float16), t(dtype=D.float64), D.float16),
        (t(3, dtype=D.int32), t(dtype=D.float64), D.float64),  # higher category wins
    ],
)
def test_add_promotion(a: object, b: object, want: DType) -> None:
    assert infer("add.Tensor", a, b).dtype is want


def test_scalar_overloads_use_wrapped_numbers() -> None:
    assert infer("add.Scalar", t(2, dtype=D.int32), 2.5) == t(2, dtype=D.float32)
    assert infer("mul.Scalar", t(2, dtype=D.int8), 3) == t(2, dtype=D.int8)
    assert infer("remainder.Scalar", t(2, dtype=D.int16), 3) == t(2, dtype=D.int16)


def test_symbolic_scalars_promote_by_kind() -> None:
    assert infer("add.Tensor", t(2, dtype=D.int32), s0).dtype is D.int32
    assert infer("mul.Tensor", t(2, dtype=D.int32), ScalarMeta("float")).dtype is D.float32
    assert infer("add.Tensor", t(2, dtype=D.bool), ScalarMeta("int", s0)).dtype is D.int64
    # a size symbol is an int (a sympy Symbol is also a sympy Boolean: not a bool)
    assert infer("add.Tensor", t(2, dtype=D.bool), s0).dtype is D.int64
    assert infer("rsub.Scalar", t(2, dtype=D.int64), s0) == t(2, dtype=D.int64)


def test_add_alpha_checks() -> None:
    with raises("For integral input tensors, argument alpha must not be a floating point"):
        infer("add.Tensor", t(2, dtype=D.int64), t(2, dtype=D.int64), alpha=0.5)
    with raises("Boolean alpha only supported for Boolean results."):
        infer("add.Tensor", t(2), t(2), alpha=True)
    assert infer("add.Tensor", t(2), t(2), alpha=0.5) == t(2)


def test_sub_rejects_bools() -> None:
    with raises("Subtraction, the `-` operator, with two bool tensors is not supported."):
        infer("sub.Tensor", t(2, dtype=D.bool), t(2, dtype=D.bool))
    with raises("Subtraction, the `-` operator, with a bool tensor is not supported."):
        infer("sub.Scalar", t(2, dtype=D.bool), 1)
    assert infer("rsub.Scalar", t(2, dtype=D.int32), 1) == t(2, dtype=D.int32)


# ---------------------------------------------------------------- division and powers


def test_div_modes() -> None:
    ints = t(s0, 3, dtype=D.int64)
    assert infer("div.Tensor", ints, ints) == t(s0, 3)  # true division gives float32
    assert infer("div.Scalar", t(3, dtype=D.bool), 2) == t(3)
    assert infer("div.Tensor_mode", ints, ints, rounding_mode="floor") == ints
    assert infer("div.Scalar_mode", t(3, dtype=D.int32), 2, rounding_mode="trunc").dtype is D.int32
    assert infer("div.Tensor", t(3, dtype=D.float64), 2) == t(3, dtype=D.float64)
    assert infer("true_divide.Tensor", ints, ints).dtype is D.float32
    with raises("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'x'"):
        infer("div.Tensor_mode", ints, ints, rounding_mode="x")


def test_pow_overloads() -> None:
    ints = t(4, dtype=D.int32)
    assert infer("pow.Tensor_Scalar", ints, 2) == ints
    assert infer("pow.Tensor_Scalar", ints, 2.5) == t(4)
    assert infer("pow.Scalar", 2, ints) == ints
    assert infer("pow.Scalar", 2.0, ints) == t(4)
    wide = t(1, 4, dtype=D.float64)
    assert infer("pow.Tensor_Tensor", t(s0, 1), wide) == t(s0, 4, dtype=D.float64)
    with raises("Integers to negative integer powers are not allowed."):
        infer("pow.Tensor_Scalar", ints, -1)
    assert infer("square", t(3, dtype=D.bool)).dtype is D.int64  # square = pow(x, 2)


def test_float_valued_binary_ops() -> None:
    assert infer("atan2", t(3, dtype=D.int64), t(3, dtype=D.int64)) == t(3)
    assert infer("atan2", t(3, dtype=D.float16), t(3, dtype=D.float16)) == t(3, dtype=D.float16)
    # out= is resized to the result shape and keeps its dtype when the result casts to it.
    assert infer("atan2.out", t(2, 3), t(3), out=t(0, dtype=D.float64)) == t(2, 3, dtype=D.float64)
    with raises("result type Float can't be cast to the desired output type Long"):
        infer("atan2.out", t(3), t(3), out=t(3, dtype=D.int64))


def test_maximum_promotes_and_rejects_complex() -> None:
    assert infer("maximum", t(3, dtype=D.int32), t(3, dtype=D.float16)) == t(3, dtype=D.float16)
    assert infer("max.other", t(2, 1), t(3)) == t(2, 3)
    with raises("maximum not implemented for complex tensors."):
        infer("minimum", t(3, dtype=D.complex64), t(3))


def test_bitwise_ops() -> None:
    assert infer("bitwise_and.Tensor", t(3, dtype=D.int8), t(3, dtype=D.int32)).dtype is D.int32
    assert infer("bitwise_or.Scalar", t(3, dtype=D.bool), True).dtype is D.bool
    assert infer("bitwise_xor.Scalar", t(3, dtype=D.bool), 1).dtype is D.int64
    with raises("\"bitwise_and_cpu\" not implemented for 'Float'"):
        infer("bitwise_and.Tensor", t(3), t(3))
    with raises("\"bitwise_not_cpu\" not implemented for 'Double'"):
        infer("bitwise_not", t(3, dtype=D.float64))


def test_comparisons_and_logical_ops_give_bool() -> None:
    assert infer("eq.Scalar", t(s0, 3, dtype=D.int32), 1.5) == t(s0, 3, dtype=D.bool)
    assert infer("lt.Tensor", t(s0, 1), t(1, 4, dtype=D.int64)) == t(s0, 4, dtype=D.bool)
    assert infer("logical_and", t(2, 3), t(3, dtype=D.int8)) == t(2, 3, dtype=D.bool)
    assert infer("logical_not", t(3, dtype=D.int64)) == t(3, dtype=D.bool)


# ---------------------------------------------------------------- unary


@pytest.mark.parametrize("op", ["exp", "log1p", "sqrt", "sin", "atanh", "sigmoid", "erf", "rsqrt"])
def test_float_unary_ops_lift_integers(op: str) -> None:
    assert infer(op, t(s0, 2, dtype=D.int64)) == t(s0, 2)
    assert infer(op, t(2, dtype=D.bool)) == t(2)
    assert infer(op, t(2, dtype=D.float16)) == t(2, dtype=D.float16)
    assert infer(op, t(2, dtype=D.complex64)) == t(2, dtype=D.complex64)


@pytest.mark.parametrize("op", ["floor", "ceil", "round", "trunc", "sign", "abs", "neg", "relu"])
def test_integer_preserving_unary_ops(op: str) -> None:
    assert infer(op, t(s0, 2, dtype=D.int32)) == t(s0, 2, dtype=D.int32)
    assert infer(op, t(2, dtype=D.bfloat16)) == t(2, dtype=D.bfloat16)


def test_special_unary_dtypes() -> None:
    assert infer("abs", t(2, dtype=D.complex128)) == t(2, dtype=D.float64)
    assert infer("isnan", t(2, 3)) == t(2, 3, dtype=D.bool)
    assert infer("isinf", t(2, dtype=D.int64)) == t(2, dtype=D.bool)
    assert infer("gelu", t(2, dtype=D.float16), approximate="tanh") == t(2, dtype=D.float16)
    assert infer("leaky_relu", t(2), 0.2) == t(2)
    assert infer("hardtanh", t(2, dtype=D.int32), 0, 6) == t(2, dtype=D.int32)


def test_unary_errors() -> None:
    with raises("Negation, the `-` operator, on a bool tensor is not supported."):
        infer("neg", t(2, dtype=D.bool))
    with raises("Boolean inputs not supported for relu"):
        infer("relu", t(2, dtype=D.bool))
    with raises("approximate argument must be either none or tanh."):
        infer("gelu", t(2), approximate="erf")
    with raises("cannot do hardtanh on an unsigned type with negative limits"):
        infer("hardtanh", t(2, dtype=D.uint8))
    with raises("Bool inputs not supported for hardtanh"):
        infer("hardtanh", t(2, dtype=D.bool))


def test_glu_halves_a_dim() -> None:
    assert infer("glu", t(4, 6)) == t(4, 3)
    assert infer("glu", t(2 * s0, 5), 0) == t(s0, 5)
    with raises("Halving dimension must be even, but dimension 1 is size 5"):
        infer("glu", t(4, 5))


def test_prelu_checks_the_slope_count() -> None:
    assert infer("prelu", t(2, 3, 4), t(3)) == t(2, 3, 4)
    assert infer("prelu", t(2, 3, 4), t(1)) == t(2, 3, 4)
    with raises("Found parameter numbers = 4 and channel size = 3."):
        infer("prelu", t(2, 3, 4), t(4))


# ---------------------------------------------------------------- in-place


def test_inplace_returns_self() -> None:
    x = t(s0, 3, dtype=D.int64)
    assert infer("add_.Tensor", x, t(3, dtype=D.int32)) is x
    assert infer("mul_.Tensor", x, 2) is x
    assert infer("relu_", x) is x
    assert infer("clamp_", t(3), 0.0) == t(3)
    ints = t(3, dtype=D.int32)
    assert infer("bitwise_not_", ints) is ints


def test_inplace_dtype_must_be_castable() -> None:
    with raises("result type Float can't be cast to the desired output type Long"):
        infer("add_.Tensor", t(3, dtype=D.int64), 1.5)
    with raises("result type Float can't be cast to the desired output type Int"):
        infer("div_.Tensor", t(3, dtype=D.int32), t(3, dtype=D.int32))
    with raises("result type Float can't be cast to the desired output type Long"):
        infer("exp_", t(3, dtype=D.int64))
    with raises("result type Long can't be cast to the desired output type Bool"):
        infer("add_.Scalar", t(3, dtype=D.bool), 1)
    with raises("result type Float can't be cast to the desired output type Long"):
        infer("clamp_", t(3, dtype=D.int64), 0.5)


def test_inplace_shape_must_fit_self() -> None:
    with raises("output with shape [3] doesn't match the broadcast shape [2, 3]"):
        infer("add_.Tensor", t(3), t(2, 3))
    with raises("output with shape [s0] doesn't match the broadcast shape [2, s0]"):
        infer("copy_", t(s0), t(2, s0))


# ---------------------------------------------------------------- ternary and special


def test_where() -> None:
    cond = t(s0, 1, dtype=D.bool)
    assert infer("where.self", cond, t(3), 0) == t(s0, 3)
    assert infer("where.self", cond, t(3, dtype=D.int32), t(dtype=D.float64)).dtype is D.float64
    assert infer("where.ScalarSelf", cond, 1.0, t(3, dtype=D.int64)) == t(s0, 3)
    assert infer("where.Scalar", cond, 1.0, 0) == t(s0, 1)
    assert infer("where.Scalar", cond, 1, 0) == t(s0, 1, dtype=D.int64)
    with raises("where expected condition to be a boolean tensor, but got a tensor with dtype Int"):
        infer("where.self", t(3, dtype=D.int32), t(3), t(3))


def test_clamp() -> None:
    assert infer("clamp", t(3, dtype=D.int64), 0.5) == t(3)  # scalar bounds take part
    assert infer("clamp", t(3, dtype=D.int32), 0, 6) == t(3, dtype=D.int32)
    assert infer("clamp.Tensor", t(3), t(2, 1)) == t(2, 3)
    assert infer("clamp_min", t(s0, dtype=D.float16), 0) == t(s0, dtype=D.float16)
    with raises("torch.clamp: At least one of 'min' or 'max' must not be None"):
        infer("clamp", t(3))


def test_masked_fill() -> None:
    mask = t(2, 3, dtype=D.bool)
    assert infer("masked_fill.Scalar", t(3, dtype=D.int64), mask, 1.5) == t(2, 3, dtype=D.int64)
    assert infer("masked_fill.Tensor", t(2, 3), mask, t(dtype=D.float64)) == t(2, 3)
    assert infer("masked_fill_.Scalar", t(2, 3), t(3, dtype=D.bool), 0.0) == t(2, 3)
    with raises("masked_fill_ only supports boolean masks, but got mask with dtype float"):
        infer("masked_fill.Scalar", t(3), t(3), 0.0)
    with raises("only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."):
        infer("masked_fill.Tensor", t(3), t(3, dtype=D.bool), t(1))
    with raises("output with shape [3] doesn't match the broadcast shape [2, 3]"):
        infer("masked_fill_.Scalar", t(3), mask, 0.0)


def test_lerp_and_addcmul() -> None:
    assert infer("lerp.Scalar", t(s0, 1), t(4), 0.5) == t(s0, 4)
    assert infer("lerp.Tensor", t(3), t(3), t(2, 1)) == t(2, 3)
    with raises("expected dtype float for `end` but got dtype double"):
        infer("lerp.Scalar", t(3), t(3, dtype=D.float64), 0.5)
    with raises("expected dtype float for `weight` but got dtype c10::Half"):
        infer("lerp.Tensor", t(3), t(3), t(3, dtype=D.float16))
    got = infer("addcmul", t(3, dtype=D.int32), t(2, 1, dtype=D.int32), t(3, dtype=D.float16))
    assert got == t(2, 3, dtype=D.float16)
    assert infer("addcdiv", t(3), t(3, dtype=D.int64), t(3)) == t(3)
    with raises("Integer division with addcdiv is no longer supported"):
        infer("addcdiv", t(3), t(3, dtype=D.int64), t(3, dtype=D.bool))


def test_fill_zero_copy() -> None:
    x = t(s0, 2, dtype=D.int32)
    assert infer("fill.Scalar", x, 1.5) == x
    assert infer("fill_.Scalar", x, 3) is x
    assert infer("zero_", x) is x
    assert infer("copy", x, t(2, dtype=D.float64)) == x  # copy casts to self's dtype
    with raises("fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."):
        infer("fill.Tensor", x, t(1))
    with raises("The size of tensor a (2) must match the size of tensor b (3)"):
        infer("copy_", x, t(3))


def test_dropout() -> None:
    x = t(s0, 4)
    assert infer("dropout", x, 0.5, True) == x
    assert infer("native_dropout", x, 0.5, True) == (x, t(s0, 4, dtype=D.bool))
    assert infer("native_dropout", t(3, dtype=D.int64), 0.5, False)[0] == t(3, dtype=D.int64)
    with raises("dropout probability has to be between 0 and 1, but got 1.5"):
        infer("dropout", x, 1.5, True)
    with raises("result type Float can't be cast to the desired output type Long"):
        infer("native_dropout", t(3, dtype=D.int64), 0.5, True)
