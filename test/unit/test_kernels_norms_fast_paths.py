"""The fast paths of the normalisation kernels (float32/float64 inputs whose parameters share
their dtype, cached constants) give bit for bit what the general paths and the plain numpy
formulas give, running statistics and all."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from kernel_checks import normal_sampler, run, warnings_are_errors  # noqa: F401 - the fixture

from texport.interpreter.kernels import norms
from texport.interpreter.kernels.common import dtype_constants

f32, f64 = np.float32, np.float64
RNG = np.random.default_rng(11)
rand = normal_sampler(RNG)
pytestmark = pytest.mark.usefixtures("warnings_are_errors")  # torch gives inf and nan silently


def same(actual: Any, expected: Any) -> None:
    """Equal bit for bit (NaN where NaN), with the same dtype and shape."""
    if expected is None:
        assert actual is None
        return
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


def same_all(actual: Any, expected: Any) -> None:
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        same(a, e)


@pytest.fixture
def general_batch_norm(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Runs a call with the training fast path turned off (the general path of _batch_norm)."""
    def call(fn: Any, *args: Any) -> Any:
        with monkeypatch.context() as patch:
            patch.setattr(norms, "_train_fast", lambda *_: False)
            return fn(*args)
    return call


def _parameters(channels: int, dtype: Any, affine: str, running: str) -> list[np.ndarray | None]:
    weight = rand(channels, dtype=dtype) if "w" in affine else None
    bias = rand(channels, dtype=dtype) if "b" in affine else None
    mean = rand(channels, dtype=dtype) if "m" in running else None
    var = (np.abs(rand(channels, dtype=dtype)) + 0.5).astype(dtype) if "v" in running else None
    return [weight, bias, mean, var]


def _copies(values: list[np.ndarray | None]) -> list[np.ndarray | None]:
    return [None if v is None else v.copy() for v in values]


BATCH_SHAPES = [(2, 8, 16, 12), (5, 10), (4, 3, 1, 1), (1, 3, 4), (3, 4, 1, 5), (2, 3, 2, 2, 2)]


# ---------------------------------------------------------------- batch norm


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("shape", BATCH_SHAPES)
@pytest.mark.parametrize("affine, running", [("wb", "mv"), ("", ""), ("w", "m"), ("b", "v")])
def test_training_batch_norm_in_place_is_the_general_path(general_batch_norm: Any, dtype: Any, shape: tuple[int, ...],
                                                          affine: str, running: str) -> None:
    x = rand(*shape, dtype=dtype, scale=3, shift=1)
    params = _parameters(shape[1], dtype, affine, running)
    momentum, eps = float(RNG.uniform(0.01, 0.9)), float(RNG.uniform(1e-6, 1e-2))
    mine, theirs = _copies(params), _copies(params)
    fast = run("native_batch_norm", x, *mine, True, momentum, eps)
    general = general_batch_norm(norms.native_batch_norm, x, *theirs, True, momentum, eps)
    same_all(fast, general)
    same_all(mine, theirs)  # the running statistics, updated in place
    composite = _copies(params)
    same(run("batch_norm", x, *composite, True, momentum, eps, False), general[0])
    same_all(composite, theirs)


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("shape", BATCH_SHAPES)
def test_functional_training_batch_norm_is_the_general_path(general_batch_norm: Any, dtype: Any,
                                                            shape: tuple[int, ...]) -> None:
    x = rand(*shape, dtype=dtype, scale=2)
    params = _parameters(shape[1], dtype, "wb", "mv")
    before = _copies(params)
    fast = run("_native_batch_norm_legit_functional", x, *params, True, 0.3, 1e-3)
    general = general_batch_norm(norms._native_batch_norm_legit_functional, x, *params, True, 0.3, 1e-3)
    same_all(fast, general)
    same_all(params, before)  # nothing written
    assert not any(np.shares_memory(out, p) for out in fast for p in params if p is not None)


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("shape", [(3, 4), (3, 4, 1), (2, 4, 3)])
def test_training_batch_norm_of_signed_zeros_and_nan(general_batch_norm: Any, dtype: Any,
                                                     shape: tuple[int, ...]) -> None:
    """-0 where each sum's +0 start washes it out, a NaN in a channel: the general path's bits."""
    x = rand(*shape, dtype=dtype)
    x[:, 0] = -0.0
    x[0, 1] = -0.0
    x[1, 2] = np.nan
    params = _parameters(4, dtype, "wb", "mv")
    mine, theirs = _copies(params), _copies(params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NaN - NaN: as the general path, not the fast path's business
        fast = run("native_batch_norm", x, *mine, True, 0.1, 0.0)
        general = general_batch_norm(norms.native_batch_norm, x, *theirs, True, 0.1, 0.0)
    same_all(fast, general)
    same_all(mine, theirs)


def test_training_batch_norm_reads_both_running_statistics_before_writing(general_batch_norm: Any) -> None:
    x = rand(4, 3, 5)
    shared = np.abs(rand(3)) + 0.5  # one buffer as running mean and running var
    theirs = shared.copy()
    run("native_batch_norm", x, None, None, shared, shared, True, 0.1, 1e-5)
    general_batch_norm(norms.native_batch_norm, x, None, None, theirs, theirs, True, 0.1, 1e-5)
    same(shared, theirs)


@pytest.mark.parametrize("dtype", [f32, f64])
def test_training_batch_norm_statistics_are_the_two_pass_formula(dtype: Any) -> None:
    """The statistics as the kernel documents them: per [N, C, L] row a BLAS sum (a product
    with ones), over N, divided by the count; the same for the squared deviations."""
    x = rand(3, 4, 5, 6, dtype=dtype, scale=4, shift=2)
    eps = 1e-5
    rows = x.reshape(3, 4, -1)
    count = 3 * 30
    mean = np.matmul(rows, np.ones(30, dtype)).sum(axis=0) / count
    deviations = rows - mean[:, None]
    var = np.vecdot(deviations, deviations).sum(axis=0) / count
    invstd = 1 / np.sqrt(var + eps)
    out, save_mean, save_invstd = run("native_batch_norm", x, None, None, None, None, True, 0.1, eps)
    same(save_mean, mean)
    same(save_invstd, invstd)
    same(out, (x * invstd[:, None, None] + (-mean * invstd)[:, None, None]))


def test_batch_norm_paths_outside_the_fast_one_still_agree(general_batch_norm: Any) -> None:
    """Mixed dtypes and a single value per channel take the general path either way."""
    x = rand(2, 3, 4)
    w64 = rand(3, dtype=f64)
    same_all(run("native_batch_norm", x, w64, None, None, None, True, 0.1, 1e-5),
             general_batch_norm(norms.native_batch_norm, x, w64, None, None, None, True, 0.1, 1e-5))
    one = rand(1, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # var / 0 for the unbiased variance of one value
        rm, rv = np.zeros(3, f32), np.ones(3, f32)
        out = run("native_batch_norm", one, None, None, rm, rv, True, 0.1, 1e-5)
    np.testing.assert_array_equal(out[0], 0)
    assert np.isnan(rv).all() or np.isinf(rv).all()


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("affine", [True, False])
def test_eval_batch_norm_is_the_formula(dtype: Any, affine: bool) -> None:
    x = rand(2, 4, 3, 3, dtype=dtype)
    w, b, rm, rv = _parameters(4, dtype, "wb" if affine else "", "mv")
    eps = 3e-4
    invstd = 1 / np.sqrt(rv + eps)
    alpha = invstd * w if affine else invstd
    beta = b - rm * alpha if affine else -(rm * alpha)
    channel = (1, -1, 1, 1)
    same(run("batch_norm", x, w, b, rm, rv, False, 0.1, eps, False), x * alpha.reshape(channel) + beta.reshape(channel))


# ---------------------------------------------------------------- instance norm


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("shape", [(2, 8, 6, 6), (1, 16, 6, 6), (3, 4, 5), (2, 3, 7, 1)])
@pytest.mark.parametrize("affine, running", [("wb", ""), ("", "mv"), ("wb", "mv"), ("w", "v")])
def test_instance_norm_fast_path_is_the_tiled_batch_norm(general_batch_norm: Any, dtype: Any, shape: tuple[int, ...],
                                                         affine: str, running: str) -> None:
    x = rand(*shape, dtype=dtype, scale=2, shift=-1)
    params = _parameters(shape[1], dtype, affine, running)
    mine, theirs = _copies(params), _copies(params)
    momentum, eps = float(RNG.uniform(0.05, 0.5)), 1e-5
    fast = run("instance_norm", x, *mine, True, momentum, eps, False)
    general = general_batch_norm(norms.instance_norm, x, *theirs, True, momentum, eps, False)
    same(fast, general)
    same_all(mine, theirs)


# ---------------------------------------------------------------- layer, rms and group norm


def _layer_norm_formula(x: np.ndarray, w: np.ndarray | None, b: np.ndarray | None,
                        eps: float) -> tuple[np.ndarray, ...]:
    count = x.shape[-1]
    mean = np.matmul(x, np.ones(count, x.dtype))[..., None] / count
    out = x - mean
    rstd = 1 / np.sqrt(np.vecdot(out, out)[..., None] / count + eps)
    out = out * rstd
    if w is not None:
        out = out * w
    if b is not None:
        out = out + b
    return out, mean, rstd


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("shape", [(8, 16), (2, 17, 32), (7,), (2, 3, 5, 4)])
@pytest.mark.parametrize("affine", ["wb", "", "w", "b"])
def test_layer_norm_over_the_last_dim_is_the_formula(dtype: Any, shape: tuple[int, ...], affine: str) -> None:
    x = rand(*shape, dtype=dtype, scale=3, shift=2)
    w = rand(shape[-1], dtype=dtype) if "w" in affine else None
    b = rand(shape[-1], dtype=dtype) if "b" in affine else None
    eps = float(RNG.uniform(1e-12, 1e-3))
    same_all(run("native_layer_norm", x, [shape[-1]], w, b, eps), _layer_norm_formula(x, w, b, eps))
    same(run("layer_norm", x, [shape[-1]], w, b, eps, False), _layer_norm_formula(x, w, b, eps)[0])


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("eps", [None, 1e-6])
def test_rms_norm_over_the_last_dim_is_the_formula(dtype: Any, eps: float | None) -> None:
    x, w = rand(2, 6, 32, dtype=dtype), rand(32, dtype=dtype)
    epsilon = float(np.finfo(dtype).eps) if eps is None else eps
    expected = x * (1 / np.sqrt(np.vecdot(x, x)[..., None] / 32 + epsilon)) * w
    same(run("rms_norm", x, [32], w, eps), expected)


def _group_norm_formula(x: np.ndarray, groups: int, w: np.ndarray | None, b: np.ndarray | None,
                        eps: float) -> tuple[np.ndarray, ...]:
    n, c = x.shape[:2]
    rows = x.reshape(n, groups, -1)
    count = rows.shape[-1]
    mean = np.matmul(rows, np.ones(count, x.dtype)) / count
    out = rows - mean[..., None]
    rstd = 1 / np.sqrt(np.vecdot(out, out) / count + eps)
    out = (out * rstd[..., None]).reshape(n, c, -1)
    if w is not None:
        out = out * w[:, None]
    if b is not None:
        out = out + b[:, None]
    return out.reshape(x.shape), mean, rstd


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("shape, groups", [((2, 8, 6, 6), 4), ((1, 6, 5), 3), ((3, 4), 2), ((2, 8, 3, 3), 8)])
@pytest.mark.parametrize("affine", ["wb", "", "w"])
def test_group_norm_is_the_formula(dtype: Any, shape: tuple[int, ...], groups: int, affine: str) -> None:
    x = rand(*shape, dtype=dtype, scale=2, shift=1)
    c = shape[1]
    w = rand(c, dtype=dtype) if "w" in affine else None
    b = rand(c, dtype=dtype) if "b" in affine else None
    n, hxw = shape[0], int(np.prod(shape[2:]))
    expected = _group_norm_formula(x, groups, w, b, 1e-5)
    same_all(run("native_group_norm", x, w, b, n, c, hxw, groups, 1e-5), expected)
    same(run("group_norm", x, groups, w, b, 1e-5, False), expected[0])


def test_group_norm_of_float16_is_rounded_once_from_float32() -> None:
    x, w, b = rand(2, 4, 3, dtype=np.float16), rand(4, dtype=np.float16), rand(4, dtype=np.float16)
    expected = _group_norm_formula(x.astype(f32), 2, w.astype(f32), b.astype(f32), 1e-5)
    same_all(run("native_group_norm", x, w, b, 2, 4, 3, 2, 1e-5), [e.astype(np.float16) for e in expected])


@pytest.mark.parametrize("dtype", [f32, f64])
def test_cached_scalars_are_the_values_a_ufunc_converts(dtype: Any) -> None:
    """A 0-d array of the dtype in place of a Python scalar: the same result bit for bit."""
    x = rand(64, dtype=dtype, scale=1e3)
    values = [1e-5, 1e-12, 0.1, 0.9, 1 - 0.1, 2 ** 24 + 1, 3, 1e300 if dtype == f64 else 3e38,
              *RNG.uniform(-10, 10, 20).tolist(), *RNG.integers(1, 2 ** 31, 10).tolist()]
    for value, cached in zip(values, dtype_constants(np.dtype(dtype), *values)):
        assert cached.dtype == dtype and not cached.flags.writeable
        for ufunc in (np.add, np.multiply, np.divide):
            with np.errstate(all="ignore"):  # x * 3e38 overflows
                same(ufunc(x, cached), ufunc(x, value))


def test_cached_constants_are_read_only() -> None:
    dtype = np.dtype(f32)
    arrays = [*norms._row_constants(5, 1e-5, dtype), *norms._batch_constants(5, 10, 1e-5, dtype),
              norms.ones_vector(7, dtype)]
    assert not any(a.flags.writeable for a in arrays)
