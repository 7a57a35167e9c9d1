"""Factory and random kernels: values, torch's dtype defaults, reproducibility from
rng.manual_seed, and sample statistics. Every call goes through kernel_checks.run, which also
checks the kernel's output shapes and dtypes against the op's shape rule."""

from __future__ import annotations

import re

import numpy as np
import pytest
from kernel_checks import run

import texport.dialects.op_table  # noqa: F401  (registers the schemas run() binds against)
from texport.dialects.dtypes import DType
from texport.interpreter import rng
from texport.interpreter.dtypes import to_numpy
from texport.interpreter.kernels import KERNELS

NUMPY_OF = {DType.int8: np.int8, DType.int16: np.int16, DType.int32: np.int32,
            DType.int64: np.int64, DType.uint8: np.uint8, DType.bool: np.bool_,
            DType.float16: np.float16, DType.float32: np.float32, DType.float64: np.float64,
            DType.bfloat16: to_numpy(DType.bfloat16)}


def raises(error: type, message: str) -> pytest.RaisesContext:
    return pytest.raises(error, match=re.escape(message))


# ---------------------------------------------------------------------------- constant fills


@pytest.mark.parametrize("op, value", [("zeros", 0), ("ones", 1), ("empty.memory_format", 0)])
def test_sized_fills_default_to_float32(op: str, value: int) -> None:
    out = run(op, [2, 3])
    assert out.shape == (2, 3) and out.dtype == np.float32 and (out == value).all()


@pytest.mark.parametrize("dtype", list(NUMPY_OF))
def test_sized_fills_take_any_dtype(dtype: DType) -> None:
    out = run("ones", [4], dtype=dtype)
    assert out.dtype == NUMPY_OF[dtype] and out.tolist() == [1] * 4
    assert run("zeros", [0, 2], dtype=dtype).shape == (0, 2)
    assert run("zeros", [], dtype=dtype).shape == ()


def test_negative_size() -> None:
    with raises(RuntimeError, "Trying to create tensor with negative dimension -1: [2, -1]"):
        KERNELS["zeros"]([2, -1])


def test_empty_strided_honours_strides() -> None:
    out = run("empty_strided", [2, 3], [1, 2], dtype=DType.int32)
    assert out.dtype == np.int32 and (out == 0).all()
    assert [KERNELS["sym_stride.int"](out, d) for d in (0, 1)] == [1, 2]
    out[1, 2] = 5
    assert out[1, 2] == 5
    assert run("empty_strided", [0, 4], [4, 1]).shape == (0, 4)


@pytest.mark.parametrize(
    "value, expected", [(True, np.bool_), (3, np.int64), (2.5, np.float32), (False, np.bool_)]
)
def test_full_infers_dtype_from_the_fill_value(value: object, expected: type) -> None:
    out = run("full", [2], value)
    assert out.dtype == expected and out.tolist() == [value, value]


def test_full_with_explicit_dtype_casts_the_value() -> None:
    assert run("full", [2], 2.7, dtype=DType.int64).tolist() == [2, 2]
    assert run("full", [1], 1, dtype=DType.float64).dtype == np.float64


def test_scalar_tensor() -> None:
    out = run("scalar_tensor", 3)
    assert out.shape == () and out.dtype == np.float32 and out == 3.0
    assert run("scalar_tensor", True, dtype=DType.bool).dtype == np.bool_


@pytest.mark.parametrize("self_dtype", [np.int8, np.uint8, np.bool_, np.float16, np.float64])
def test_like_factories_keep_self_dtype(self_dtype: type) -> None:
    self = np.ones((2, 1), self_dtype)
    assert run("zeros_like", self).dtype == self_dtype
    assert run("ones_like", self).tolist() == [[1], [1]]
    assert run("empty_like", self).shape == (2, 1)
    full = run("full_like", self, 1)  # no inference from the fill value
    assert full.dtype == self_dtype and full.tolist() == [[1], [1]]
    assert run("zeros_like", self, dtype=DType.int32).dtype == np.int32


def test_like_factories_keep_a_dense_input_layout() -> None:
    # torch: torch.zeros_like(x.t()).stride() == (1, 3) (preserve_format), row-major when asked
    transposed = np.ones((2, 3)).T
    out = run("zeros_like", transposed)
    assert out.shape == (3, 2) and out.strides == transposed.strides and out.sum() == 0
    out = run("zeros_like", transposed, memory_format="contiguous_format")
    assert out.shape == (3, 2) and out.flags.c_contiguous


@pytest.mark.parametrize("self_dtype", [np.int16, np.bool_, np.float64])
def test_new_factories(self_dtype: type) -> None:
    self = np.zeros(1, self_dtype)
    assert run("new_zeros", self, [2, 2]).dtype == self_dtype
    assert run("new_ones", self, [3]).tolist() == [1, 1, 1]
    assert run("new_empty", self, [0]).shape == (0,)
    full = run("new_full", self, [2], 1)
    assert full.dtype == self_dtype and full.tolist() == [1, 1]
    assert run("new_full", self, [1], 7, dtype=DType.int8).dtype == np.int8


def test_eye() -> None:
    np.testing.assert_array_equal(run("eye", 2), [[1, 0], [0, 1]])
    assert run("eye", 2).dtype == np.float32
    out = run("eye.m", 2, 3, dtype=DType.bool)
    assert out.dtype == np.bool_ and out.tolist() == [[True, False, False], [False, True, False]]
    assert run("eye", 0).shape == (0, 0)


# ---------------------------------------------------------------------------- ranges


@pytest.mark.parametrize(
    "op, args, expected, dtype",
    [
        ("arange", (5,), [0, 1, 2, 3, 4], np.int64),
        ("arange.start", (-2, 2), [-2, -1, 0, 1], np.int64),
        ("arange.start_step", (1, 10, 3), [1, 4, 7], np.int64),
        ("arange.start_step", (10, 1, -4), [10, 6, 2], np.int64),
        ("arange.start_step", (0, 1, 0.25), [0.0, 0.25, 0.5, 0.75], np.float32),
        ("arange", (2.5,), [0.0, 1.0, 2.0], np.float32),
        ("arange.start", (3, 3), [], np.int64),
    ],
)
def test_arange_values_and_dtype(op: str, args: tuple, expected: list, dtype: type) -> None:
    out = run(op, *args)
    assert out.dtype == dtype and out.tolist() == expected


def test_arange_length_is_ceil() -> None:
    assert run("arange.start_step", 0, 1, 0.3).shape == (4,)  # ceil(3.33)
    assert run("arange.start_step", 0.0, 0.9, 0.3).shape == (3,)
    assert run("arange", 4, dtype=DType.float64).dtype == np.float64
    # an int64 range counts over the truncated bounds, as torch: step 0.5 becomes 0
    with raises(RuntimeError, "step must be nonzero"):
        KERNELS["arange.start_step"](0, 1, 0.5, DType.int64)


def test_integer_ranges_truncate_their_bounds_as_torch() -> None:
    """torch: int64 counts in int64 over truncated bounds; other integer dtypes count
    ceil((end - start) / step) in double; the values step from the truncated start."""
    np.testing.assert_array_equal(run("arange", 3.1, dtype=DType.int64), [0, 1, 2])
    np.testing.assert_array_equal(run("arange", 3.1, dtype=DType.int32), [0, 1, 2, 3])
    np.testing.assert_array_equal(run("arange.start_step", 0.1, -7.9, -4.0, dtype=DType.int64), [0, -4])
    np.testing.assert_array_equal(run("arange.start_step", 0.5, 5.5, 1.5, dtype=DType.int16), [0, 1, 2, 3])
    np.testing.assert_array_equal(run("linspace", 4.3, 0, 50, dtype=DType.int64)[:3], [4, 3, 3])


def test_fills_convert_as_cpp_checked_convert() -> None:
    """A negative integer wraps into uint8, a float truncates, an overflow is an error."""
    np.testing.assert_array_equal(run("full_like", np.zeros(2, np.uint8), -9), [247, 247])
    np.testing.assert_array_equal(run("full", [2], -9, dtype=DType.uint8), [247, 247])
    np.testing.assert_array_equal(run("full_like", np.zeros(2, np.uint8), 3.7), [3, 3])
    np.testing.assert_array_equal(run("scalar_tensor", -9, dtype=DType.uint8), 247)
    with raises(RuntimeError, "value cannot be converted to type int8_t without overflow"):
        run("full_like", np.zeros(2, np.int8), 200)


def test_arange_errors() -> None:
    with raises(RuntimeError, "step must be nonzero"):
        KERNELS["arange.start_step"](0, 1, 0)
    with raises(RuntimeError, "upper bound and larger bound inconsistent with step sign"):
        KERNELS["arange.start_step"](0, 5, -1)


def test_linspace() -> None:
    out = run("linspace", 0, 1, 5)
    assert out.dtype == np.float32 and out.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    ints = run("linspace", 0, 10, 4, dtype=DType.int64)
    assert ints.tolist() == [0, 3, 6, 10]
    assert run("linspace", 2, 5, 1).tolist() == [2.0]
    assert run("linspace", 2, 5, 0).shape == (0,)
    down = run("linspace", -1.0, -3.0, 3, dtype=DType.float64)
    assert down.tolist() == [-1.0, -2.0, -3.0]
    tenths = run("linspace", 0.0, 0.3, 4)
    assert tenths[0] == 0.0 and tenths[-1] == np.float32(0.3)  # both ends exact


def test_linspace_logspace_with_tensor_bounds() -> None:
    """A 0-d tensor bound is read as its value (float32 0.1 stays float32's 0.1...)."""
    tenth = np.array(0.1, np.float32)
    out = run("linspace.Tensor_Scalar", tenth, 1.0, 4)
    assert out.dtype == np.float32 and out[0] == tenth and out[-1] == 1.0
    np.testing.assert_allclose(out, [float(tenth) + i * (1 - float(tenth)) / 3 for i in range(4)], rtol=1e-6)
    both = run("linspace.Tensor_Tensor", np.array(1.0), np.array(3.0), 5, dtype=DType.float64)
    assert both.dtype == np.float64 and both.tolist() == [1.0, 1.5, 2.0, 2.5, 3.0]
    assert run("linspace.Scalar_Tensor", 1, np.array(2, np.int64), 3).tolist() == [1.0, 1.5, 2.0]
    np.testing.assert_allclose(run("logspace.Tensor_Tensor", np.array(0.0), np.array(2.0, np.float32), 3, 2.0),
                               [1.0, 2.0, 4.0])
    assert run("logspace.Scalar_Tensor", 1.2, np.array(3), 3, dtype=DType.int64).tolist() == [10, 100, 1000]
    with raises(RuntimeError, "linspace only supports 0-dimensional start and end tensors, but got start with 1"):
        KERNELS["linspace.Tensor_Scalar"](np.ones(2, np.float32), 1.0, 3)


# ---------------------------------------------------------------------------- random: shape, dtype, seed


RANDOM_CALLS = [
    ("rand", ([2, 3],), {}, np.float32),
    ("randn", ([2, 3],), {}, np.float32),
    ("rand", ([4],), {"dtype": DType.float64}, np.float64),
    ("randn", ([4],), {"dtype": DType.float16}, np.float16),
    ("randint", (5, [3, 2]), {}, np.int64),
    ("randint.low", (-3, 3, [7]), {"dtype": DType.int8}, np.int8),
    ("randperm", (6,), {}, np.int64),
    ("randperm", (6,), {"dtype": DType.int32}, np.int32),
    ("rand_like", (np.zeros((2, 2), np.float64),), {}, np.float64),
    ("randn_like", (np.zeros(3, np.float32),), {}, np.float32),
    ("randint_like", (np.zeros(4, np.int16), 9), {}, np.int16),
    ("randint_like.low_dtype", (np.zeros(4, np.float32), 2, 4), {}, np.float32),
    ("bernoulli", (np.full(5, 0.5),), {}, np.float64),
    ("bernoulli.p", (np.zeros(5, np.int32), 0.5), {}, np.int32),
]


@pytest.mark.parametrize("op, args, kwargs, dtype", RANDOM_CALLS)
def test_random_ops_are_reproducible_after_manual_seed(
    op: str, args: tuple, kwargs: dict, dtype: type
) -> None:
    rng.manual_seed(0)
    first = run(op, *args, **kwargs)
    second = run(op, *args, **kwargs)
    rng.manual_seed(0)
    again = run(op, *args, **kwargs)
    assert first.dtype == dtype
    np.testing.assert_array_equal(first, again)
    if first.size > 4 and op != "bernoulli.p" and op != "bernoulli":
        assert not np.array_equal(first, second)  # the stream advances


@pytest.mark.parametrize(
    "op, args", [("uniform_", (-1.0, 2.0)), ("normal_", (3.0, 0.5)), ("bernoulli_.float", (0.3,))]
)
def test_in_place_random_fills_are_reproducible_and_return_self(op: str, args: tuple) -> None:
    rng.manual_seed(7)
    first = np.zeros(64, np.float32)
    assert run(op, first, *args) is first
    rng.manual_seed(7)
    again = np.zeros(64, np.float32)
    run(op, again, *args)
    np.testing.assert_array_equal(first, again)
    assert first.any()


def test_random_fill_through_a_view_reaches_the_base() -> None:
    base = np.zeros((4, 4))
    column = KERNELS["select.int"](base, 1, 0)
    run("uniform_", column, 1.0, 2.0)
    assert ((base[:, 0] >= 1.0) & (base[:, 0] < 2.0)).all() and not base[:, 1:].any()


# ---------------------------------------------------------------------------- random: statistics

N = 200_000


def test_rand_is_uniform_on_unit_interval() -> None:
    rng.manual_seed(1)
    x = run("rand", [N], dtype=DType.float64)
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.005 and abs(x.var() - 1 / 12) < 0.002


def test_rand_half_stays_below_one() -> None:
    rng.manual_seed(9)
    x = run("rand", [N], dtype=DType.float16)
    assert x.dtype == np.float16 and x.max() < 1.0 and x.min() >= 0.0


def test_randn_is_standard_normal() -> None:
    rng.manual_seed(2)
    x = run("randn", [N]).astype(np.float64)
    assert abs(x.mean()) < 0.01 and abs(x.var() - 1.0) < 0.02


def test_uniform_and_normal_in_place_statistics() -> None:
    rng.manual_seed(3)
    u = run("uniform_", np.empty(N), -2.0, 4.0)
    assert u.min() >= -2.0 and u.max() < 4.0
    assert abs(u.mean() - 1.0) < 0.03 and abs(u.var() - 3.0) < 0.05  # (b - a)^2 / 12 = 3
    g = run("normal_", np.empty(N, np.float32), 5.0, 2.0).astype(np.float64)
    assert abs(g.mean() - 5.0) < 0.03 and abs(g.var() - 4.0) < 0.08


def test_complex_draws_fill_both_parts_as_torch() -> None:
    """randn: each part normal of variance 1/2; normal_(m, s): each part normal(m, s / sqrt 2);
    uniform_(a, b): each part uniform in [a, b)."""
    rng.manual_seed(8)
    z = run("randn", [N], dtype=DType.complex64)
    assert z.dtype == np.complex64
    for part in (z.real.astype(np.float64), z.imag.astype(np.float64)):
        assert abs(part.mean()) < 0.01 and abs(part.var() - 0.5) < 0.02
    assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 0.02
    assert run("randn_like", np.zeros(3, np.complex64)).dtype == np.complex64
    g = run("normal_", np.empty(N, np.complex64), 3.0, 2.0)
    for part in (g.real.astype(np.float64), g.imag.astype(np.float64)):
        assert abs(part.mean() - 3.0) < 0.03 and abs(part.var() - 2.0) < 0.05
    u = run("uniform_", np.empty(N, np.complex64), 2.0, 5.0)
    for part in (u.real, u.imag):
        assert part.min() >= 2.0 and part.max() <= 5.0 and abs(part.mean() - 3.5) < 0.03  # float32 rounding may reach 5


def test_randint_covers_its_range_uniformly() -> None:
    rng.manual_seed(4)
    x = run("randint.low", -2, 3, [N])
    counts = np.bincount(x + 2, minlength=5)
    assert x.min() == -2 and x.max() == 2
    assert np.all(np.abs(counts / N - 0.2) < 0.01)


def test_randperm_is_a_permutation() -> None:
    rng.manual_seed(5)
    assert sorted(run("randperm", 50).tolist()) == list(range(50))
    assert run("randperm", 0).shape == (0,)


@pytest.mark.parametrize("p", [0.0, 0.25, 1.0])
def test_bernoulli_probabilities(p: float) -> None:
    rng.manual_seed(6)
    draws = run("bernoulli.p", np.zeros(N, np.float32), p)
    assert set(np.unique(draws).tolist()) <= {0.0, 1.0}
    assert abs(draws.mean() - p) < 0.005
    per_element = run("bernoulli", np.where(np.arange(N) % 2 == 0, 0.0, p))
    assert per_element[::2].sum() == 0 and abs(per_element[1::2].mean() - p) < 0.01


def test_bernoulli_tensor_in_place() -> None:
    rng.manual_seed(8)
    self = np.zeros((N // 2, 2), np.float64)
    p = np.array([0.1, 0.9])
    assert run("bernoulli_.Tensor", self, p) is self
    np.testing.assert_allclose(self.mean(axis=0), p, atol=0.01)


def test_random_errors() -> None:
    with raises(RuntimeError, "random_ expects 'from' to be less than 'to', but got from=3 >= to=3"):
        KERNELS["randint.low"](3, 3, [1])
    with raises(RuntimeError, "not implemented for 'int64'"):
        KERNELS["rand_like"](np.zeros(2, np.int64))
    with raises(RuntimeError, "bernoulli_ expects p to be in [0, 1]"):
        KERNELS["bernoulli.p"](np.zeros(2), 1.5)
    with raises(RuntimeError, "normal expects std >= 0.0"):
        KERNELS["normal_"](np.zeros(2), 0.0, -1.0)


def test_new_empty_strided_and_empty_permuted_lay_out_memory_as_asked() -> None:
    like = np.ones((2, 3), np.float16)
    strided = run("new_empty_strided", like, [2, 3], [1, 2])
    assert strided.dtype == np.float16 and strided.strides == (2, 4)  # element strides (1, 2)
    assert run("new_empty_strided", like, [2], [3], dtype=DType.int64).dtype == np.int64
    permuted = run("empty_permuted", [2, 3, 4], [0, 2, 1])  # dim 1 innermost, then dim 2
    assert permuted.shape == (2, 3, 4) and permuted.dtype == np.float32
    assert tuple(s // 4 for s in permuted.strides) == (12, 1, 3)
    with pytest.raises(RuntimeError, match="physical_layout"):
        KERNELS["empty_permuted"]([2, 3], [0, 0])
