"""Reduction, scan, softmax, sort and norm kernels against independent references:
Python loops and the math/statistics modules on tiny lists, hand-computed numbers.
Every call goes through kernel_checks.run, which also checks that the op's shape
rule agrees on shapes and dtypes (the norm ops have no rule yet: see run_norm)."""

from __future__ import annotations

import itertools
import math
import operator
import re
import statistics
from typing import Any

import numpy as np
import pytest
from kernel_checks import run

from texport.dialects.dtypes import DType
from texport.dialects.registry import OPS, lookup_op
from texport.dialects.schema import bind_arguments
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.shape_rules.guards import ShapeGuardError
from texport.interpreter.kernels import KERNELS

f16, f32, f64 = np.float16, np.float32, np.float64
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8]
NAN, INF = math.nan, math.inf


def arr(values: Any, dtype: Any = None) -> np.ndarray:
    return np.array(values, dtype=dtype)


def same(out: np.ndarray, want: Any, dtype: Any = None) -> None:
    """Exact equality (nan == nan), shape, and the dtype when given."""
    assert isinstance(out, np.ndarray), type(out)
    want = np.asarray(want)
    if dtype is not None:
        assert out.dtype == np.dtype(dtype), (out.dtype, dtype)
    assert out.shape == want.shape, (out.shape, want.shape)
    np.testing.assert_array_equal(out, want)


def close(out: np.ndarray, want: Any, rtol: float = 1e-12, atol: float = 0.0) -> None:
    assert isinstance(out, np.ndarray), type(out)
    want = np.asarray(want, dtype=f64)
    assert out.shape == want.shape, (out.shape, want.shape)
    np.testing.assert_allclose(out, want, rtol=rtol, atol=atol)


def run_norm(op: str, *args: Any, **kwargs: Any) -> Any:
    """run() once the norm has a shape rule. The norm rules are not written yet (another
    engineer's file): until then the kernel runs alone on the schema-bound call, and the
    rule cross-check switches on by itself when the rule is registered."""
    if op in SHAPE_RULES:
        return run(op, *args, **kwargs)
    return KERNELS[op](*bind_arguments(lookup_op(op).schema, args, kwargs))


M = arr([[3.0, -1.0, 4.0], [1.0, 5.0, -9.0]])  # a 2x3 matrix used throughout


# ---------------------------------------------------------------- registry coverage


def test_every_reduction_op_has_a_kernel() -> None:
    family = [
        key
        for key in OPS.keys()
        if key in SHAPE_RULES and SHAPE_RULES[key].__module__.endswith("shape_rules.reductions")
    ]
    assert len(family) > 50
    extra = ["aten.norm.Scalar", "aten.norm.ScalarOpt_dim", "aten.linalg_vector_norm.default"]
    missing = [key for key in family + extra if key not in KERNELS]
    assert not missing, missing


# ---------------------------------------------------------------- sum, prod, mean


def test_sum_dims_keepdim_and_negative_dims() -> None:
    same(run("sum", M), arr(3.0))
    same(run("sum.dim_IntList", M, [0]), [4.0, 4.0, -5.0])
    same(run("sum.dim_IntList", M, [-1], keepdim=True), [[6.0], [-3.0]])
    same(run("sum.dim_IntList", M, [0, -1]), arr(3.0))
    same(run("sum.dim_IntList", M, []), arr(3.0))  # [] reduces every dim
    same(run("sum.dim_IntList", M, None, True), [[3.0]])
    same(run("sum.dim_IntList", M.T, [1]), [4.0, 4.0, -5.0])  # non-contiguous


@pytest.mark.parametrize("dtype", [*INTS, np.bool_])
def test_sum_and_prod_of_integers_give_int64(dtype: Any) -> None:
    x = arr([[1, 1, 0], [1, 0, 1]], dtype)
    same(run("sum", x), arr(4), np.int64)
    same(run("sum.dim_IntList", x, [1]), arr([2, 2]), np.int64)
    same(run("prod.dim_int", x, 0), arr([1, 0, 0]), np.int64)
    same(
        run("prod", x + 1 if dtype is not np.bool_ else x),
        arr(16 if dtype is not np.bool_ else 0),
        np.int64,
    )


def test_sum_of_uint8_does_not_wrap() -> None:
    same(run("sum", np.full(10, 200, np.uint8)), arr(2000), np.int64)


def test_sum_with_dtype() -> None:
    x = arr([1, 2, 3], np.int32)
    same(run("sum", x, dtype=DType.float64), arr(6.0), f64)
    same(run("sum.dim_IntList", x, [0], dtype=DType.int16), arr(6), np.int16)


def test_float32_and_float16_sums() -> None:
    x = np.full(100, 0.1, f32)
    out = run("sum", x)
    assert out.dtype == f32  # never upcast
    assert abs(float(out) - 10.0) < 1e-4
    ones = np.ones(4096, f16)  # float16 alone stalls at 2048; torch accumulates in float32
    same(run("sum", ones), arr(4096.0, f16), f16)
    same(run("mean", ones), arr(1.0, f16), f16)


def test_empty_sum_prod_mean() -> None:
    same(run("sum", np.zeros((0, 3), np.int32)), arr(0), np.int64)
    same(run("sum.dim_IntList", np.zeros((0, 3)), [0]), [0.0, 0.0, 0.0])
    same(run("prod", np.zeros(0, f32)), arr(1.0, f32), f32)
    same(run("mean", np.zeros(0, f32)), arr(NAN, f32), f32)
    same(run("mean.dim", np.zeros((2, 0)), [1]), [NAN, NAN])


def test_bare_int_for_an_int1_dim() -> None:
    """torch accepts x.sum(1) for ``int[1] dim``."""
    same(run("sum.dim_IntList", M, 1), [6.0, -3.0])
    same(run("mean.dim", M, -2, True), [[2.0, 2.0, -2.5]])
    close(
        run("std.dim", M, 1),
        [statistics.stdev([3.0, -1.0, 4.0]), statistics.stdev([1.0, 5.0, -9.0])],
    )
    same(run("any.dims", M, 0), [True, True, True])
    # the amax rule iterates over dim (list(dim)) and fails on an int: kernel alone
    same(KERNELS["amax"](M, 1, False), [4.0, 5.0])


def test_zero_dim_reductions() -> None:
    x = arr(5.0)
    same(run("sum.dim_IntList", x, [0]), arr(5.0))
    same(run("sum.dim_IntList", x, [-1], keepdim=True), arr(5.0))
    same(run("mean.dim", x, [0]), arr(5.0))
    same(run("prod.dim_int", arr(3, np.int8), -1), arr(3), np.int64)


def test_prod() -> None:
    same(run("prod", M), arr(math.prod([3.0, -1.0, 4.0, 1.0, 5.0, -9.0])))
    same(run("prod.dim_int", M, -1, keepdim=True), [[-12.0], [-45.0]])
    same(run("prod", arr([2, 3], np.int32), dtype=DType.float32), arr(6.0, f32), f32)


def test_mean() -> None:
    same(run("mean", M), arr(0.5))
    same(run("mean.dim", M, [1]), [2.0, -1.0])
    same(run("mean.dim", M, None, True), [[0.5]])
    same(run("mean.dim", M.T, [0]), [2.0, -1.0])
    same(run("mean", arr([1, 2], np.int32), dtype=DType.float64), arr(1.5), f64)


def test_mean_refuses_integers() -> None:
    with pytest.raises(ShapeGuardError, match="mean\\(\\): could not infer output dtype"):
        run("mean", arr([1, 2]))
    with pytest.raises(
        RuntimeError,
        match="Input dtype must be either a floating point or complex dtype. Got: Long",
    ):
        KERNELS["mean"](arr([1, 2]), None)


def test_nansum() -> None:
    x = arr([[1.0, NAN], [NAN, NAN]])
    same(run("nansum", x), arr(1.0))
    same(run("nansum", x, [1]), [1.0, 0.0])
    same(run("nansum", arr([1, 2], np.int8)), arr(3), np.int64)


# ---------------------------------------------------------------- var, std


VALUES = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]


def test_var_std_against_statistics() -> None:
    x = arr(VALUES)
    close(run("var", x), statistics.variance(VALUES))
    close(run("var", x, False), statistics.pvariance(VALUES))
    close(run("std", x), statistics.stdev(VALUES))
    close(run("std.dim", x, [0], False), statistics.pstdev(VALUES))
    close(run("var.correction", x, correction=2), sum((v - 5) ** 2 for v in VALUES) / 6)
    close(run("var.correction", x, correction=0.5), 32 / 7.5)  # a float correction


def test_var_along_dims() -> None:
    rows = [[1.0, 2.0, 4.0], [3.0, 3.0, 9.0]]
    x = arr(rows, f32)
    out = run("var.dim", x, [1], True, True)
    assert out.dtype == f32
    close(out, [[statistics.variance(r)] for r in rows], rtol=1e-6)
    cols = [list(c) for c in zip(*rows)]
    close(
        run("std.correction", x.T, [-1], correction=0),
        [statistics.pstdev(c) for c in cols],
        rtol=1e-6,
    )
    close(run("var.correction", x, None), statistics.variance(rows[0] + rows[1]), rtol=1e-6)


def test_var_degenerate_counts() -> None:
    same(run("var", arr([3.0])), arr(NAN))  # 0 / 0
    same(run("var.correction", arr([3.0, 3.0]), correction=2), arr(NAN))
    same(run("var.correction", arr([1.0, 3.0]), correction=5), arr(INF))  # 2 / max(2 - 5, 0)
    same(run("var.dim", np.zeros((0, 2)), [0]), [NAN, NAN])
    same(run("var", arr([1.0, NAN])), arr(NAN))


def test_var_keeps_float16_and_refuses_integers() -> None:
    same(run("var", arr([1.0, 3.0], f16)), arr(2.0, f16), f16)
    with pytest.raises(
        RuntimeError, match="std and var only support floating point and complex dtypes"
    ):
        KERNELS["var"](arr([1, 2]), True)


def test_var_mean_std_mean() -> None:
    x = arr([[1.0, 2.0], [3.0, 6.0]])
    var, mean = run("var_mean", x)
    close(var, statistics.variance([1.0, 2.0, 3.0, 6.0]))
    close(mean, 3.0)
    std, mean = run("std_mean.dim", x, [0], False, True)
    close(std, [[1.0, 2.0]])
    close(mean, [[2.0, 4.0]])
    var, mean = run("var_mean.correction", x, [1], correction=0)
    close(var, [0.25, 2.25])
    close(mean, [1.5, 4.5])
    std, mean = run("std_mean.correction", x, None, correction=1, keepdim=True)
    close(std, [[statistics.stdev([1.0, 2.0, 3.0, 6.0])]])
    std, mean = run("std_mean", x, False)
    close(std, statistics.pstdev([1.0, 2.0, 3.0, 6.0]))
    var, mean = run("var_mean.dim", x, [-1], True)
    close(var, [0.5, 4.5])


# ---------------------------------------------------------------- amax, max, argmax


def test_amax_amin() -> None:
    same(run("amax", M), arr(5.0))
    same(run("amax", M, []), arr(5.0))  # [] = every dim
    same(run("amin", M, [1]), [-1.0, -9.0])
    same(run("amax", M, [0], True), [[3.0, 5.0, 4.0]])
    same(run("amax", M.T, [-1]), [3.0, 5.0, 4.0])
    same(run("amax", arr([[1.0, NAN], [2.0, 3.0]]), [1]), [NAN, 3.0])
    same(run("amin", arr([3, 250], np.uint8), [0]), arr(3, np.uint8), np.uint8)
    same(run("amax", arr([False, True]), [0]), arr(True), np.bool_)
    same(run("amax", np.zeros((0, 3)), [1]), np.zeros(0))


@pytest.mark.parametrize(
    ("op", "args", "exc", "message"),
    [
        (
            "amax",
            (np.zeros((0, 3)), [], False),
            RuntimeError,
            "amax(): Expected reduction dim to be specified",
        ),
        (
            "amin",
            (np.zeros((0, 3)), [0], False),
            IndexError,
            "amin(): Expected reduction dim 0 to have non-zero size.",
        ),
        ("max", (np.zeros(0),), RuntimeError, "max(): Expected reduction dim to be specified"),
        (
            "max.dim",
            (np.zeros((2, 0)), 1, False),
            IndexError,
            "max(): Expected reduction dim 1 to have non-zero size.",
        ),
        (
            "argmax",
            (np.zeros(0), None, False),
            RuntimeError,
            "argmax(): Expected reduction dim to be specified",
        ),
        (
            "argmin",
            (np.zeros((3, 0)), -1, False),
            IndexError,
            "argmin(): Expected reduction dim 1 to have non-zero size.",
        ),
    ],
)
def test_empty_extremes_raise(op: str, args: tuple, exc: type, message: str) -> None:
    with pytest.raises(exc, match=re.escape(message)):
        KERNELS[op](*args)
    with pytest.raises(ShapeGuardError):
        run(op, *args)


def test_max_min_default() -> None:
    same(run("max", M), arr(5.0))
    same(run("min", arr([[4, -2], [7, 0]], np.int16)), arr(-2, np.int16), np.int16)
    same(run("max", arr([1.0, NAN, 2.0])), arr(NAN))


def test_max_dim_values_and_first_index() -> None:
    x = arr([[1.0, 3.0, 3.0, 2.0], [NAN, 0.0, NAN, 9.0], [-1.0, -5.0, -5.0, 0.0]])
    values, indices = run("max.dim", x, 1)
    same(values, [3.0, NAN, 0.0])
    same(indices, [1, 0, 3], np.int64)  # first of ties; a nan wins
    values, indices = run("min.dim", x, -1, True)
    same(values, [[1.0], [NAN], [-5.0]])
    same(indices, [[0], [0], [1]], np.int64)
    values, indices = run("max.dim", x.T, 0)  # non-contiguous, other axis
    same(indices, [1, 0, 3])
    values, indices = run("max.dim", arr(7, np.int32), 0)
    same(values, arr(7, np.int32), np.int32)
    same(indices, arr(0), np.int64)


def test_argmax_argmin() -> None:
    x = arr([[2, 7, 7], [9, 1, 9]], np.int8)
    same(run("argmax", x), arr(3), np.int64)  # flattened, first of ties
    same(run("argmax", x, 1), [1, 0], np.int64)
    same(run("argmin", x, 0, True), [[0, 1, 0]], np.int64)
    same(run("argmax", x, None, True), [[3]], np.int64)
    same(run("argmax", x.T), arr(1), np.int64)  # index into the logical (transposed) order
    same(run("argmin", arr([3.0, NAN, -1.0, NAN])), arr(1), np.int64)
    same(run("argmax", arr([False, True, True])), arr(1), np.int64)
    same(run("argmax", arr(4.0), 0), arr(0), np.int64)
    same(run("argmax", np.zeros((0, 3)), 1), np.zeros(0), np.int64)


def test_aminmax() -> None:
    low, high = run("aminmax", M)
    same(low, arr(-9.0))
    same(high, arr(5.0))
    low, high = run("aminmax", M, dim=0, keepdim=True)
    same(low, [[1.0, -1.0, -9.0]])
    same(high, [[3.0, 5.0, 4.0]])
    low, high = run("aminmax", arr([1, NAN]))
    same(low, arr(NAN))


def test_median_nanmedian() -> None:
    same(run("median", arr([5.0, 1.0, 3.0, 2.0])), arr(2.0))  # the lower of the two middles
    same(run("median", arr([[5, 1, 3]], np.int32)), arr(3, np.int32), np.int32)
    same(run("median", arr([1.0, NAN, 2.0])), arr(NAN))
    same(run("median", np.zeros(0, f32)), arr(NAN, f32), f32)
    same(run("nanmedian", arr([1.0, NAN, 2.0, 4.0, NAN])), arr(2.0))
    same(run("nanmedian", arr([NAN, NAN])), arr(NAN))


def test_kthvalue() -> None:
    x = arr([[3.0, 1.0, 2.0, 1.0], [NAN, 4.0, 0.0, 8.0]])
    values, indices = run("kthvalue", x, 2)
    same(values, [1.0, 4.0])
    same(indices, [3, 1], np.int64)
    values, indices = run("kthvalue", x, 4, -1, True)
    same(values, [[3.0], [NAN]])  # nan is the largest
    same(indices, [[0], [0]])
    values, indices = run("kthvalue", x, 1, 0)
    same(values, [3.0, 1.0, 0.0, 1.0])


# ---------------------------------------------------------------- any, all, count


def test_any_all() -> None:
    x = arr([[0.0, NAN], [0.0, 0.0]])
    same(run("any", x), arr(True), np.bool_)  # nan is nonzero
    same(run("all", x), arr(False), np.bool_)
    same(run("any.dim", x, 1), [True, False], np.bool_)
    same(run("all.dim", x, 0, True), [[False, False]], np.bool_)
    same(run("any.dims", x, [0, 1]), arr(True), np.bool_)
    same(run("all.dims", arr([[1, 2], [3, 0]], np.int32), None, True), [[False]], np.bool_)
    same(run("all.dims", arr([[1, 2], [3, 0]], np.int32), [-1]), [True, False], np.bool_)
    same(run("any", np.zeros(0)), arr(False))
    same(run("all", np.zeros(0)), arr(True))
    same(run("any.dim", arr([[0, 7], [0, 0]], np.uint8), 1), arr([1, 0], np.uint8), np.uint8)
    same(run("all", arr([3, 1], np.uint8)), arr(1, np.uint8), np.uint8)


def test_count_nonzero() -> None:
    x = arr([[0.0, NAN, 2.0], [0.0, 0.0, -1.0]])
    same(run("count_nonzero", x), arr(3), np.int64)
    same(run("count_nonzero", x, 0), [0, 1, 2], np.int64)
    same(run("count_nonzero.dim_IntList", x, [0, 1]), arr(3), np.int64)
    same(run("count_nonzero.dim_IntList", x, [-1]), [2, 1], np.int64)


# ---------------------------------------------------------------- scans


@pytest.mark.parametrize("dtype", [*INTS, np.bool_])
def test_cumsum_cumprod_of_integers(dtype: Any) -> None:
    values = [1, 1, 0, 1] if dtype is np.bool_ else [3, 1, 2, 2]
    x = arr(values, dtype)
    same(run("cumsum", x, 0), list(itertools.accumulate(values)), np.int64)
    same(run("cumprod", x, -1), list(itertools.accumulate(values, operator.mul)), np.int64)


def test_cumsum_dims_and_dtype() -> None:
    same(run("cumsum", M, 1), [[3.0, 2.0, 6.0], [1.0, 6.0, -3.0]])
    same(run("cumsum", M.T, 0), [[3.0, 1.0], [2.0, 6.0], [6.0, -3.0]])
    same(run("cumsum", arr([1, 2], np.int8), 0, dtype=DType.float32), arr([1.0, 3.0], f32), f32)
    same(run("cumprod", arr([1.5, 2.0], f32), 0, dtype=DType.float64), arr([1.5, 3.0]), f64)
    same(run("cumsum", arr(4.0), 0), arr(4.0))
    same(run("cumsum", np.zeros((0, 2)), 0), np.zeros((0, 2)))
    same(run("cumsum", arr([1.0, NAN, 1.0]), 0), [1.0, NAN, NAN])


def test_cumsum_inplace_on_view() -> None:
    base = arr([[1, 2, 3], [4, 5, 6]], np.int32)
    view = base[:, ::2]
    assert run("cumsum_", view, 1) is view
    same(base, [[1, 2, 4], [4, 5, 10]], np.int32)
    view = base.T
    assert run("cumprod_", view, 0) is view
    same(base, [[1, 2, 8], [4, 20, 200]], np.int32)


def test_logcumsumexp() -> None:
    values = [0.0, -INF, 1000.0, 2.0]
    running = [values[0]]
    for v in values[1:]:
        hi, lo = max(running[-1], v), min(running[-1], v)
        running.append(hi + math.log1p(math.exp(lo - hi)))
    close(run("logcumsumexp", arr(values), 0), running)
    same(run("logcumsumexp", arr([-INF, -INF]), 0), [-INF, -INF])
    close(
        run("logcumsumexp", arr([[0.0, 0.0], [1.0, 1.0]], f32), 0),
        [[0.0, 0.0], [1 + math.log1p(math.exp(-1))] * 2],
        rtol=1e-6,
    )


def test_complex_logaddexp_logsumexp_logcumsumexp_keep_the_imaginary_part_unwrapped() -> None:
    """torch: log1p(exp(lo - hi)) + hi, lo and hi ordered by real part; so equal
    terms z give z + log(n) with z's own imaginary part, past pi included;
    logsumexp shifts by the largest real part only, so its log wraps."""
    z = np.complex64(5 + 10j)
    log2, log3 = math.log(2), math.log(3)

    def near(out: np.ndarray, want: list[complex]) -> None:
        assert out.dtype == np.complex64
        np.testing.assert_allclose(out, np.array(want), rtol=1e-6)

    near(run("logaddexp", np.array([z]), np.array([z])), [5 + log2 + 10j])
    near(run("logsumexp", np.array([[z, z]]), [1]), [5 + log2 + (10 - 4 * math.pi) * 1j])
    near(run("logcumsumexp", np.array([z, z, z]), 0), [z, 5 + log2 + 10j, 5 + log3 + 10j])
    lows = run("logaddexp", np.array([complex(-INF, 1)], np.complex64), np.array([complex(-INF, 2)], np.complex64))
    assert lows.real[0] == -INF and lows.imag[0] == 2  # the second one on a tie
    assert np.isnan(run("logaddexp", np.array([complex(NAN, 0)], np.complex64), np.array([z])).imag).all()
    # in general: the real part and the angle (mod 2 pi) of log(exp(a) + exp(b))
    rng = np.random.default_rng(0)
    a, b = (rng.normal(size=6) + 1j * rng.normal(size=6) * 3 for _ in range(2))
    out = run("logaddexp", a, b)
    total = np.exp(a) + np.exp(b)
    np.testing.assert_allclose(out.real, np.log(np.abs(total)), rtol=1e-12)
    np.testing.assert_allclose(np.exp(1j * out.imag), np.exp(1j * np.angle(total)), rtol=1e-12)


def reference_cummax(values: list[float], better: Any) -> tuple[list[float], list[int]]:
    """torch's loop: x takes over when nan or when better-or-equal than a non-nan best."""
    best, where, out, idx = values[0], 0, [], []
    for i, v in enumerate(values):
        if math.isnan(v) or (not math.isnan(best) and better(v, best)):
            best, where = v, i
        out.append(best)
        idx.append(where)
    return out, idx


@pytest.mark.parametrize(("op", "better"), [("cummax", operator.ge), ("cummin", operator.le)])
def test_cummax_cummin(op: str, better: Any) -> None:
    for values in ([1.0, 3.0, 2.0, 3.0, 0.0, 5.0], [2.0, NAN, 7.0, NAN, -1.0], [4.0, 4.0, 4.0]):
        want_values, want_indices = reference_cummax(values, better)
        got_values, got_indices = run(op, arr(values), 0)
        same(got_values, want_values)
        same(got_indices, want_indices, np.int64)
    values, indices = run(op, arr([[1, 5], [1, 2], [0, 5]], np.int32).T, 1)
    assert values.dtype == np.int32
    want = [reference_cummax([1, 1, 0], better), reference_cummax([5, 2, 5], better)]
    same(values, [w[0] for w in want])
    same(indices, [w[1] for w in want])


# ---------------------------------------------------------------- logsumexp, softmax


def test_logsumexp() -> None:
    rows = [[1.0, 2.0, 3.0], [1000.0, 1000.0, -INF], [-INF, -INF, -INF], [INF, 1.0, 2.0]]
    want = [
        math.log(math.exp(1) + math.exp(2) + math.exp(3)),
        1000.0 + math.log(2.0),
        -INF,
        INF,
    ]
    close(run("logsumexp", arr(rows), [1]), want)
    close(run("logsumexp", arr(rows[:1]), [0, 1], True), [[want[0]]])
    out = run("logsumexp", arr([[0, 0]], np.int64), [-1])
    assert out.dtype == f32
    close(out, [math.log(2)], rtol=1e-6)
    same(run("logsumexp", np.zeros((2, 0)), [1]), [-INF, -INF])


def softmax_ref(row: list[float]) -> list[float]:
    top = max(row)
    exps = [math.exp(v - top) for v in row]
    return [e / sum(exps) for e in exps]


def test_softmax_and_log_softmax() -> None:
    rows = [[1.0, 2.0, 3.0], [1000.0, 1001.0, -INF], [0.0, 0.0, 0.0]]
    x = arr(rows, f32)
    out = run("softmax.int", x, 1)
    assert out.dtype == f32
    close(out, [softmax_ref(r) for r in rows], rtol=1e-6)
    close(
        run("log_softmax.int", x, -1),
        [[math.log(p) if p else -INF for p in softmax_ref(r)] for r in rows],
        rtol=1e-6,
    )
    cols = run("softmax.int", x.T, 0)  # non-contiguous, along dim 0
    close(cols, np.array([softmax_ref(r) for r in rows]).T, rtol=1e-6)
    same(run("softmax.int", arr([[-INF, -INF]]), 1), [[NAN, NAN]])  # as torch: 0/0
    same(run("softmax.int", arr(3.0), 0), arr(1.0))


def test_softmax_dtype_arguments() -> None:
    x = arr([1.0, 2.0], f32)
    out = run("softmax.int", x, 0, DType.float64)
    assert out.dtype == f64
    close(out, softmax_ref([1.0, 2.0]))
    half = arr([1.0, 2.0], f16)
    out = run("_softmax", half, 0, True)
    assert out.dtype == f32
    close(out, softmax_ref([1.0, 2.0]), rtol=1e-6)
    assert run("_log_softmax", half, 0, False).dtype == f16
    close(run("_log_softmax", arr([0.0, 0.0]), 0, False), [-math.log(2)] * 2)


def test_softmax_backward() -> None:
    y, g = softmax_ref([0.5, -1.0, 2.0]), [1.0, 2.0, -3.0]
    dot = sum(gi * yi for gi, yi in zip(g, y))
    close(
        run("_softmax_backward_data", arr([g]), arr([y]), 1, DType.float64),
        [[yi * (gi - dot) for gi, yi in zip(g, y)]],
    )
    logy = [math.log(v) for v in y]
    out = run("_log_softmax_backward_data", arr([g]).T, arr([logy]).T, 0, DType.float32)
    assert out.dtype == f32
    close(out, [[gi - yi * sum(g)] for gi, yi in zip(g, y)], rtol=1e-6)


# ---------------------------------------------------------------- sort, argsort, topk


def order(values: list, descending: bool) -> list[int]:
    """Stable order: Python's sort keeps equal elements in place, also with reverse=True."""
    return sorted(range(len(values)), key=lambda i: values[i], reverse=descending)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", [*INTS, f32, f64, np.bool_])
def test_sort_is_stable(dtype: Any, descending: bool) -> None:
    values = [1, 0, 1, 1, 0] if dtype is np.bool_ else [3, 1, 2, 3, 1, 0, 2, 3]
    want = order(values, descending)
    sorted_values, indices = run("sort", arr(values, dtype), 0, descending)
    same(indices, want, np.int64)
    same(sorted_values, arr([values[i] for i in want], dtype), dtype)
    same(run("argsort", arr(values, dtype), descending=descending), want, np.int64)
    _, stable = run("sort.stable", arr(values, dtype), stable=True, descending=descending)
    same(stable, want)


def test_sort_nan_and_dims() -> None:
    values, indices = run("sort", arr([2.0, NAN, -1.0, NAN, 5.0]))
    same(values, [-1.0, 2.0, 5.0, NAN, NAN])
    same(indices, [2, 0, 4, 1, 3])
    values, indices = run("sort", arr([2.0, NAN, -1.0, NAN, 5.0]), descending=True)
    same(values, [NAN, NAN, 5.0, 2.0, -1.0])  # nan is the largest; ties keep their order
    same(indices, [1, 3, 4, 0, 2])
    values, indices = run("sort", M, 0, True)
    same(values, [[3.0, 5.0, 4.0], [1.0, -1.0, -9.0]])
    same(indices, [[0, 1, 0], [1, 0, 1]])
    same(run("argsort.stable", M.T, stable=True, dim=-1), [[1, 0], [0, 1], [1, 0]])
    values, indices = run("sort", arr(3.0))
    same(values, arr(3.0))
    same(indices, arr(0))
    same(run("sort", np.zeros((2, 0)))[1], np.zeros((2, 0)), np.int64)


def test_topk() -> None:
    values = [1.0, 5.0, 3.0, 5.0, -2.0, 3.0]
    x = arr(values)
    top, idx = run("topk", x, 3)
    same(top, [5.0, 5.0, 3.0])
    same(idx, [1, 3, 2])  # ties: lowest index first
    low, idx = run("topk", x, 3, largest=False)
    same(low, [-2.0, 1.0, 3.0])
    same(idx, [4, 0, 2])
    top, idx = run("topk", M, 1, 0)
    same(top, [[3.0, 5.0, 4.0]])
    same(idx, [[0, 1, 0]])
    top, idx = run("topk", arr([1.0, NAN, 2.0]), 2)
    same(top, [NAN, 2.0])
    same(idx, [1, 2])
    top, idx = run("topk", arr([4, 9, 1], np.uint8), 0)
    same(top, np.zeros(0, np.uint8), np.uint8)
    same(idx, np.zeros(0, np.int64), np.int64)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        KERNELS["topk"](x, 7, -1, True, True)


# ---------------------------------------------------------------- norms


def test_vector_norms() -> None:
    values = [3.0, -4.0, 0.0, 12.0]
    x = arr(values)
    close(run_norm("linalg_vector_norm", x), 13.0)
    close(run_norm("linalg_vector_norm", x, 1), 19.0)
    close(run_norm("linalg_vector_norm", x, INF), 12.0)
    close(run_norm("linalg_vector_norm", x, -INF), 0.0)
    close(run_norm("linalg_vector_norm", x, 0), 3.0)  # the count of nonzeros
    close(run_norm("linalg_vector_norm", x, 3), sum(abs(v) ** 3 for v in values) ** (1 / 3))
    close(run_norm("linalg_vector_norm", x, -1), 0.0)  # 1 / sum(1 / |x|) with a zero
    close(run_norm("norm.Scalar", arr([[3.0, 4.0]], f32)), 5.0, rtol=1e-6)
    out = run_norm("norm.ScalarOpt_dim", M, 2, [1], True)
    close(out, [[math.sqrt(26)], [math.sqrt(107)]])
    close(run_norm("norm.ScalarOpt_dim", M.T, None, [0]), [math.sqrt(26), math.sqrt(107)])


def test_vector_norm_dtypes_and_empty() -> None:
    out = run_norm("linalg_vector_norm", arr([3.0, 4.0], f32), dtype=DType.float64)
    assert out.dtype == f64
    assert run_norm("linalg_vector_norm", arr([3.0, 4.0], f16)).dtype == f16
    close(run_norm("linalg_vector_norm", np.zeros((0, 2))), 0.0)
    close(run_norm("linalg_vector_norm", np.zeros((0, 2)), INF, [1]), np.zeros(0))
    with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
        run_norm("linalg_vector_norm", np.zeros((0, 2)), INF)
    with pytest.raises(
        RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"
    ):
        run_norm("linalg_vector_norm", arr([3, 4]))


def test_safe_softmax_gives_zeros_for_a_fully_masked_row() -> None:
    x = np.array([[0.0, np.log(3.0)], [-np.inf, -np.inf], [-np.inf, 0.0]], np.float32)
    out = run("_safe_softmax", x, 1)
    np.testing.assert_allclose(out, [[0.25, 0.75], [0.0, 0.0], [0.0, 1.0]], rtol=1e-6)
    wide = run("_safe_softmax", x, 0, DType.float64)
    assert wide.dtype == np.float64
    np.testing.assert_allclose(wide[:, 0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(wide[:, 1], [0.75, 0.0, 0.25])


def test_dist_is_the_p_norm_of_the_broadcast_difference() -> None:
    x, y = np.array([1.0, 2.0], np.float32), np.array([[0.0, 0.0], [1.0, 1.0]], np.float32)
    # differences [1, 2, 0, 1]
    np.testing.assert_allclose(run("dist", x, y), math.sqrt(6), rtol=1e-6)
    assert run("dist", x, y, 0).item() == 3.0 and run("dist", x, y, float("inf")).item() == 2.0
    np.testing.assert_allclose(run("dist", x, y, 3), 10 ** (1 / 3), rtol=1e-6)
    wide = run("dist", x.astype(np.complex64), y.astype(np.complex64))
    assert wide.dtype == np.float32 and wide.shape == ()
    with pytest.raises(RuntimeError, match="floating point or complex"):
        KERNELS["dist"](np.array([1, 2]), np.array([1, 1]), 2)


def test_renorm_scales_slices_above_maxnorm() -> None:
    """Each slice along dim whose p-norm over the other dims exceeds maxnorm is scaled
    by maxnorm / (norm + 1e-7); the others are kept (torch.renorm's definition)."""
    x = np.array([[3.0, 4.0], [0.3, 0.4], [-6.0, 8.0]], np.float64)  # row norms 5, 0.5, 10
    out = run("renorm", x, 2, 0, 1.0)
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.3, 0.4], [-0.6, 0.8]], rtol=1e-6)
    columns = run("renorm", x, 1, 1, 4.0)  # column 1-norms 9.3, 12.4
    np.testing.assert_allclose(columns, x * (4.0 / (np.abs(x).sum(0) + 1e-7)), rtol=1e-12)
    np.testing.assert_allclose(run("renorm", x.astype(np.float32), np.inf, -1, 1.0),
                               x / np.maximum(np.abs(x).max(0, keepdims=True), 1.0), rtol=1e-6)  # per column
    with pytest.raises(RuntimeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        KERNELS["renorm"](np.ones(3, np.float32), 2, 0, 1.0)


def test_histograms_against_numpy() -> None:
    """histogram / histogramdd: numpy's histogram and histogramdd are the reference (same
    edges rule: min/max of the data, an empty range widened by 0.5; last bin closed)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(40).astype(np.float32)
    w = rng.random(40).astype(np.float32)
    hist, edges = run("histogram.bin_ct", x, 7, weight=w, density=True)
    want, want_edges = np.histogram(x.astype(np.float64), 7, weights=w, density=True)
    np.testing.assert_allclose(edges, want_edges, rtol=1e-6)
    np.testing.assert_allclose(hist, want, rtol=1e-5)
    given = np.array([-3.0, -1.0, 0.0, 0.5, 3.0], np.float32)
    np.testing.assert_array_equal(run("histogram.bins_tensor", x, given)[0], np.histogram(x, given)[0])
    np.testing.assert_array_equal(run("histogram.bin_ct", np.ones(3, np.float32), 2)[1], [0.5, 1.0, 1.5])
    points = rng.standard_normal((30, 2)).astype(np.float32)
    want_dd, want_dd_edges = np.histogramdd(points.astype(np.float64), [3, 4], range=[(-1, 1), (-2, 2)])
    np.testing.assert_array_equal(run("_histogramdd_from_bin_cts", points, [3, 4], range=[-1.0, 1.0, -2.0, 2.0]), want_dd)
    for got, want_edge in zip(run("_histogramdd_bin_edges", points, [3, 4], range=[-1.0, 1.0, -2.0, 2.0]), want_dd_edges):
        np.testing.assert_allclose(got, want_edge, rtol=1e-6)
    np.testing.assert_array_equal(run("_histogramdd_from_bin_tensors", points, [given, given]),
                                  np.histogramdd(points, [given, given])[0])
    with pytest.raises(RuntimeError, match="\"histogramdd\" not implemented for 'Long'"):
        KERNELS["histogram.bin_ct"](np.arange(3), 2)


def test_segment_reduce_by_lengths_and_offsets() -> None:
    """Runs [1, 2], [], [3, 4, 5] (hand-worked): an empty segment is the identity (mean: nan),
    or initial, which every segment starts from."""
    data = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    lengths = np.array([2, 0, 3])
    np.testing.assert_array_equal(run("segment_reduce", data, "sum", lengths=lengths), [3, 0, 12])
    np.testing.assert_array_equal(run("segment_reduce", data, "mean", lengths=lengths), [1.5, np.nan, 4])
    np.testing.assert_array_equal(run("segment_reduce", data, "max", lengths=lengths), [2, -np.inf, 5])
    np.testing.assert_array_equal(run("segment_reduce", data, "prod", lengths=lengths, initial=10.0), [20, 10, 600])
    np.testing.assert_allclose(run("segment_reduce", data, "mean", lengths=lengths, initial=10.0), [6.5, 10, 22 / 3])
    rows = np.arange(12.0, dtype=np.float32).reshape(2, 6)  # per-row lengths along axis 1
    np.testing.assert_array_equal(run("segment_reduce", rows, "sum", lengths=np.array([[1, 5], [3, 3]]), axis=1),
                                  [[0, 15], [21, 30]])
    pairs = np.arange(10.0, dtype=np.float32).reshape(5, 2)
    np.testing.assert_array_equal(run("segment_reduce", pairs, "min", offsets=np.array([0, 2, 5])), [[0, 1], [4, 5]])
