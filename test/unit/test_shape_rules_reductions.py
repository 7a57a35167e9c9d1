"""Reduction, scan, softmax and sort shape rules: dim/keepdim/dtype semantics as torch's."""

from __future__ import annotations

from shape_rule_checks import HintOracle, raises, t

import texport.dialects.op_table  # noqa: F401 - registers the schemas infer() binds against
from texport.dialects.dtypes import DType
from texport.dialects.shape_rules.guards import using_oracle
from texport.dialects.shape_rules.infer import infer
from texport.dialects.symbolic import symbol

D = DType
s0, s1 = symbol("s0"), symbol("s1")


# ---------------------------------------------------------------- sum, prod, mean


def test_sum_dims_and_keepdim() -> None:
    x = t(2, 3, 4)
    assert infer("sum.dim_IntList", x, [1]) == t(2, 4)
    assert infer("sum.dim_IntList", x, [1], True) == t(2, 1, 4)
    assert infer("sum.dim_IntList", x, [-1, 0]) == t(3)
    assert infer("sum.dim_IntList", x, None) == t()
    assert infer("sum.dim_IntList", x, [], True) == t(1, 1, 1)  # [] reduces every dim
    assert infer("sum.dim_IntList", t(s0, 4, s1), [2]) == t(s0, 4)


def test_sum_promotes_integers_to_int64() -> None:
    assert infer("sum", t(3, dtype=D.int32)) == t(dtype=D.int64)
    assert infer("sum", t(3, dtype=D.bool)) == t(dtype=D.int64)
    assert infer("sum", t(3, dtype=D.float16)) == t(dtype=D.float16)
    assert infer("sum", t(3, dtype=D.int32), dtype=D.int32) == t(dtype=D.int32)
    assert infer("sum.dim_IntList", t(3, 2, dtype=D.uint8), [0], dtype=D.float64) == t(
        2, dtype=D.float64
    )
    assert infer("prod.dim_int", t(3, 2, dtype=D.int8), 1, True) == t(3, 1, dtype=D.int64)
    assert infer("prod", t(3, 2, dtype=D.bool)) == t(dtype=D.int64)


def test_reduction_dim_errors() -> None:
    with raises("out of range (expected to be in range of [-3, 2], but got 3)"):
        infer("sum.dim_IntList", t(2, 3, 4), [3])
    with raises("appears multiple times in the list of dims"):
        infer("sum.dim_IntList", t(2, 3, 4), [1, -2])


def test_zero_dim_input_stays_zero_dim() -> None:
    assert infer("sum.dim_IntList", t(), [0]) == t()
    assert infer("sum.dim_IntList", t(), [-1], True) == t()
    assert infer("amax", t(), [0]) == t()


def test_mean() -> None:
    assert infer("mean.dim", t(s0, 4, s1), [1], True) == t(s0, 1, s1)
    assert infer("mean.dim", t(s0, 4, s1), [-1, 0]) == t(4)
    assert infer("mean", t(2, 3, dtype=D.bfloat16)) == t(dtype=D.bfloat16)
    assert infer("mean.dim", t(2, 3, dtype=D.int64), [0], dtype=D.float64) == t(3, dtype=D.float64)


def test_mean_of_integers_is_an_error() -> None:
    with raises(
        "mean(): could not infer output dtype. Input dtype must be either a floating point or "
        "complex dtype. Got: Long"
    ):
        infer("mean", t(3, dtype=D.int64))
    with raises("Input dtype must be either a floating point or complex dtype. Got: Int"):
        infer("mean.dim", t(3, dtype=D.int32), [0])
    with raises("Optional dtype must be either a floating point or complex dtype. Got: Long"):
        infer("mean.dim", t(3), [0], dtype=D.int64)


def test_logsumexp_lifts_integers() -> None:
    assert infer("logsumexp", t(2, 3, dtype=D.int64), [1]) == t(2)
    assert infer("logsumexp", t(2, 3, dtype=D.float64), [0], True) == t(1, 3, dtype=D.float64)


# ---------------------------------------------------------------- var, std


def test_var_std() -> None:
    x = t(s0, 3, 5)
    assert infer("var.correction", x, [1], correction=0, keepdim=True) == t(s0, 1, 5)
    assert infer("var.dim", x, [2], False) == t(s0, 3)
    assert infer("std.correction", x) == t()
    assert infer("var", t(3, dtype=D.complex64)) == t()  # complex variance is real
    assert infer("var_mean.correction", t(4, 2, dtype=D.complex128), [0]) == (
        t(2, dtype=D.float64), t(2, dtype=D.complex128)
    )
    with raises("std and var only support floating point and complex dtypes"):
        infer("var.dim", t(3, dtype=D.int64), [0])


# ---------------------------------------------------------------- amax, any, all


def test_amax_amin() -> None:
    x = t(s0, 3, dtype=D.int32)
    assert infer("amax", x) == t(dtype=D.int32)  # dim=[] reduces everything
    assert infer("amin", x, [1], True) == t(s0, 1, dtype=D.int32)
    with raises("amax(): Expected reduction dim 1 to have non-zero size."):
        infer("amax", t(2, 0), [1])
    with raises("amin(): Expected reduction dim to be specified for input.numel() == 0."):
        infer("amin", t(0, 2))
    assert infer("amax", t(0, 2), [1]) == t(0)


def test_any_all() -> None:
    assert infer("any", t(2, 3)) == t(dtype=D.bool)
    assert infer("all.dim", t(2, 3, dtype=D.uint8), 1, True) == t(2, 1, dtype=D.uint8)
    assert infer("any.dims", t(s0, 3, 4, dtype=D.int64), [0, 2]) == t(3, dtype=D.bool)
    assert infer("any.dims", t(s0, 3), None) == t(dtype=D.bool)
    assert infer("count_nonzero.dim_IntList", t(2, 3), [0]) == t(3, dtype=D.int64)


# ---------------------------------------------------------------- argmax, max.dim


def test_argmax() -> None:
    x = t(3, 4)
    assert infer("argmax", x) == t(dtype=D.int64)  # dim None: the flattened index
    assert infer("argmax", x, keepdim=True) == t(1, 1, dtype=D.int64)
    assert infer("argmin", t(s0, 4), 1) == t(s0, dtype=D.int64)
    assert infer("argmax", t(dtype=D.int8), 0) == t(dtype=D.int64)
    with raises("argmax(): Expected reduction dim 0 to have non-zero size."):
        infer("argmax", t(0, 4), 0)


def test_max_min() -> None:
    x = t(s0, 4, dtype=D.float16)
    assert infer("max.dim", x, 1) == (t(s0, dtype=D.float16), t(s0, dtype=D.int64))
    assert infer("min.dim", x, 0, True) == (t(1, 4, dtype=D.float16), t(1, 4, dtype=D.int64))
    assert infer("max", x) == t(dtype=D.float16)
    with raises("max(): Expected reduction dim to be specified for input.numel() == 0."):
        infer("max", t(0))
    assert infer("median", t(0)) == t()  # median of nothing is nan, not an error


def test_kthvalue_and_aminmax() -> None:
    assert infer("kthvalue", t(3, 5), 2) == (t(3), t(3, dtype=D.int64))
    assert infer("aminmax", t(3, 5), dim=0) == (t(5), t(5))
    with raises("kthvalue(): selected number k out of range for dimension 1"):
        infer("kthvalue", t(3, 5), 6)


# ---------------------------------------------------------------- scans, softmax


def test_cumsum() -> None:
    assert infer("cumsum", t(s0, 3, dtype=D.int32), 1) == t(s0, 3, dtype=D.int64)
    assert infer("cumsum", t(3, dtype=D.int32), 0, dtype=D.float64) == t(3, dtype=D.float64)
    assert infer("cumprod", t(3, dtype=D.float16), -1) == t(3, dtype=D.float16)
    x = t(3, dtype=D.int32)
    assert infer("cumsum_", x, 0) is x
    assert infer("cummax", t(2, 3), 1) == (t(2, 3), t(2, 3, dtype=D.int64))
    with raises("out of range"):
        infer("cumsum", t(3), 1)


def test_softmax() -> None:
    assert infer("softmax.int", t(s0, 5), -1) == t(s0, 5)
    assert infer("log_softmax.int", t(2, dtype=D.float16), 0, D.float32) == t(2)
    assert infer("_softmax", t(2, 3, dtype=D.float16), 1, True) == t(2, 3)
    assert infer("_log_softmax", t(2, 3, dtype=D.float64), 1, False) == t(2, 3, dtype=D.float64)
    assert infer("_softmax_backward_data", t(2, 3), t(2, 3), 1, D.float16) == t(
        2, 3, dtype=D.float16
    )
    with raises("conversion is supported for Half type only"):
        infer("_softmax", t(2, 3), 1, True)


# ---------------------------------------------------------------- sort, top-k


def test_sort_argsort() -> None:
    x = t(s0, 7, dtype=D.int32)
    assert infer("sort", x) == (x, t(s0, 7, dtype=D.int64))
    assert infer("sort.stable", x, stable=True, dim=0) == (x, t(s0, 7, dtype=D.int64))
    assert infer("argsort", x, 0, True) == t(s0, 7, dtype=D.int64)


def test_topk() -> None:
    assert infer("topk", t(s0, 10), 3) == (t(s0, 3), t(s0, 3, dtype=D.int64))
    assert infer("topk", t(s0, 10), s1, 1) == (t(s0, s1), t(s0, s1, dtype=D.int64))
    assert infer("topk", t(s0, 10), 2, 0) == (t(2, 10), t(2, 10, dtype=D.int64))
    assert infer("topk", t(dtype=D.float64), 1) == (t(dtype=D.float64), t(dtype=D.int64))
    with raises("selected index k out of range"):
        infer("topk", t(4, 10), 11)
    with raises("selected index k out of range"):
        infer("topk", t(4, 10), 5, 0)


def test_symbolic_k_is_checked_through_the_oracle() -> None:
    with using_oracle(HintOracle(s1=12)), raises("selected index k out of range"):
        infer("topk", t(s0, 10), s1)
    with using_oracle(HintOracle(s1=3)):
        assert infer("topk", t(s0, 10), s1)[0] == t(s0, s1)
