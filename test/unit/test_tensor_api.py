"""The Tensor API's shape, indexing, reduction and sorting functions (composites.py)
and the ops behind them, against numpy references and hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

import texport as torch

RNG = np.random.default_rng(0)


def t(array: np.ndarray) -> torch.Tensor:
    return torch.tensor(array)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_stacks_follow_numpy() -> None:
    a, b = f32(4, 3), f32(4, 3)
    v, w = f32(5), f32(5)
    np.testing.assert_array_equal(torch.hstack([t(a), t(b)]).numpy(), np.hstack([a, b]))
    np.testing.assert_array_equal(torch.vstack([t(v), t(w)]).numpy(), np.vstack([v, w]))
    np.testing.assert_array_equal(torch.row_stack([t(a), t(b)]).numpy(), np.vstack([a, b]))
    np.testing.assert_array_equal(torch.dstack([t(a), t(b)]).numpy(), np.dstack([a, b]))
    np.testing.assert_array_equal(torch.column_stack([t(v), t(w)]).numpy(), np.column_stack([v, w]))
    np.testing.assert_array_equal(torch.hstack([t(v), t(w)]).numpy(), np.hstack([v, w]))


def test_atleast_nd_follow_numpy() -> None:
    s = t(np.float32(2.0))
    assert torch.atleast_1d(s).shape == (1,)
    assert torch.atleast_2d(t(f32(3))).shape == np.atleast_2d(f32(3)).shape
    assert torch.atleast_3d(t(f32(3))).shape == np.atleast_3d(f32(3)).shape
    assert torch.atleast_3d(t(f32(2, 3))).shape == np.atleast_3d(f32(2, 3)).shape
    assert [x.shape for x in torch.atleast_2d(s, t(f32(3)))] == [(1, 1), (1, 3)]


def test_tile_meshgrid_broadcast() -> None:
    a = f32(2, 3)
    np.testing.assert_array_equal(torch.tile(t(a), (2,)).numpy(), np.tile(a, (2,)))
    np.testing.assert_array_equal(t(a).tile(2, 1, 2).numpy(), np.tile(a, (2, 1, 2)))
    x, y = f32(4), f32(3)
    for indexing in ("ij", "xy"):
        for got, want in zip(torch.meshgrid(t(x), t(y), indexing=indexing), np.meshgrid(x, y, indexing=indexing)):
            np.testing.assert_array_equal(got.numpy(), want)
    assert torch.broadcast_shapes((1, 3), (4, 1), 3) == (4, 3)
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        torch.broadcast_shapes((2,), (3,))
    got = torch.broadcast_tensors(t(a), t(y))
    np.testing.assert_array_equal(got[1].numpy(), np.broadcast_to(y, (2, 3)))
    assert got[0] is not None and got[0].shape == (2, 3)


def test_cartesian_prod_and_combinations() -> None:
    x, y = np.array([1, 2, 3]), np.array([4, 5])
    want = np.array([[i, j] for i in x for j in y])
    np.testing.assert_array_equal(torch.cartesian_prod(t(x), t(y)).numpy(), want)
    np.testing.assert_array_equal(torch.combinations(t(x), 2).numpy(), [[1, 2], [1, 3], [2, 3]])
    np.testing.assert_array_equal(torch.combinations(t(x[:2]), 2, with_replacement=True).numpy(),
                                  [[1, 1], [1, 2], [2, 2]])


def test_flips_and_diff() -> None:
    a = f32(3, 4)
    np.testing.assert_array_equal(torch.fliplr(t(a)).numpy(), np.fliplr(a))
    np.testing.assert_array_equal(torch.flipud(t(a)).numpy(), np.flipud(a))
    np.testing.assert_array_equal(torch.rot90(t(a), 1, [0, 1]).numpy(), np.rot90(a, 1, (0, 1)))
    np.testing.assert_allclose(torch.diff(t(a), 2, 0).numpy(), np.diff(a, 2, 0), rtol=1e-6)
    np.testing.assert_allclose(torch.diff(t(a), prepend=t(a[:, :1])).numpy(), np.diff(a, prepend=a[:, :1]), rtol=1e-6)
    b = np.array([True, False, False, True])
    np.testing.assert_array_equal(torch.diff(t(b)).numpy(), b[1:] ^ b[:-1])


def test_composite_op_kernels_on_hand_computed_cases() -> None:
    """The kernels of the CompositeImplicitAutograd ops torch's export keeps whole."""
    assert torch.diff(t(np.array([1.0, 4.0, 9.0], np.float32)), 5).shape == (0,)  # ATen stops at an empty dim
    joined = torch.diff(t(np.array([1, 4], np.int32)), prepend=t(np.array([0.5], np.float32)))
    assert joined.dtype == torch.float32 and joined.tolist() == [0.5, 3.0]
    assert torch.nanmean(t(np.array([1.0, np.nan, 3.0], np.float32))).item() == 2.0
    assert torch.quantile(t(np.array([1.0, 2.0, 3.0, 4.0], np.float32)), 0.5).item() == 2.5
    assert torch.nanquantile(t(np.array([1.0, np.nan, 3.0], np.float32)), 0.5).item() == 2.0
    q = t(np.array([0.2, 0.9], np.float32))
    assert torch.quantile(t(f32(4, 3)), q, dim=1, keepdim=True).stride() == (1, 2, 2)  # torch's: q's dim moved first
    assert torch.diag(t(np.array([[1, 2], [3, 4]])), 1).tolist() == [2]
    assert torch.diagflat(t(np.array([[1, 2]])), -1).tolist() == [[0, 0, 0], [1, 0, 0], [0, 2, 0]]
    assert torch.argwhere(t(np.array([[0, 5], [7, 0]]))).tolist() == [[0, 1], [1, 0]]
    assert torch.tile(t(np.array([[1, 2]])), (2,)).tolist() == [[1, 2, 1, 2]]
    assert torch.column_stack([t(np.array([1, 2])), t(np.array([[3], [4]]))]).tolist() == [[1, 3], [2, 4]]
    assert torch.cartesian_prod(t(np.array([1, 2])), t(np.array([3]))).tolist() == [[1, 3], [2, 3]]
    assert torch.atleast_3d(t(np.array([1, 2]))).shape == (1, 2, 1)


def test_nan_reductions_and_moments() -> None:
    a = f32(4, 5)
    a[1, 2] = a[3, 0] = np.nan
    np.testing.assert_allclose(torch.nanmean(t(a), 1).numpy(), np.nanmean(a, 1), rtol=1e-6)
    np.testing.assert_allclose(torch.nansum(t(a), 1).numpy(), np.nansum(a, 1), rtol=1e-6)
    b = f32(4, 5)
    std, mean = torch.std_mean(t(b), 1)
    np.testing.assert_allclose(std.numpy(), b.std(1, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(mean.numpy(), b.mean(1), rtol=1e-6)
    var, _ = torch.var_mean(t(b), correction=0)
    np.testing.assert_allclose(var.numpy(), b.var(), rtol=1e-5)
    assert torch.count_nonzero(t(np.array([[0, 1], [2, 0]])), (0, 1)).item() == 2
    low, high = torch.aminmax(t(b), dim=0)
    np.testing.assert_array_equal(low.numpy(), b.min(0))
    np.testing.assert_array_equal(high.numpy(), b.max(0))


def test_argsort_unique_and_dtype_helpers() -> None:
    a = np.array([3, 1, 2, 1, 3, 3])
    np.testing.assert_array_equal(t(a).argsort(stable=True).numpy(), np.argsort(a, kind="stable"))
    values, inverse, counts = torch.unique(t(a), return_inverse=True, return_counts=True)
    want = np.unique(a, return_inverse=True, return_counts=True)
    for got, ref in zip((values, inverse, counts), want):
        np.testing.assert_array_equal(got.numpy(), ref)
    values, counts = torch.unique_consecutive(t(a), return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [3, 1, 2, 1, 3])
    np.testing.assert_array_equal(counts.numpy(), [1, 1, 1, 1, 2])
    assert torch.promote_types(torch.uint8, torch.int8) is torch.int16
    assert torch.result_type(t(np.zeros(2, np.int32)), 1.0) is torch.float32
    assert not torch.can_cast(torch.float32, torch.int32) and torch.can_cast(torch.int32, torch.float32)
    assert not torch.can_cast(torch.int32, torch.bool) and not torch.can_cast(torch.complex64, torch.float64)
    assert torch.get_default_dtype() is torch.float32
    assert torch.is_nonzero(t(np.array([2.0]))) and not torch.is_nonzero(t(np.array(0)))
    with pytest.raises(RuntimeError, match="more than one value"):
        torch.is_nonzero(t(np.array([1, 2])))


def test_apply_and_map_run_eagerly() -> None:
    x = t(np.array([1.0, 2.0, 3.0], np.float32))
    x.apply_(lambda v: v * 10)
    np.testing.assert_array_equal(x.numpy(), [10, 20, 30])
    x.map_(t(np.array([1.0, 1.0, 2.0], np.float32)), lambda a, b: a - b)
    np.testing.assert_array_equal(x.numpy(), [9, 19, 28])


def test_apply_under_export_is_a_clear_error() -> None:
    class M(torch.nn.Module):
        def forward(self, x):
            return x.clone().apply_(lambda v: v)

    with pytest.raises(Exception, match="eager mode only"):
        torch.export.export(M(), (t(f32(3)),))


def test_gather_and_scatter_take_int32_indices() -> None:
    a = f32(3, 4)
    index = np.array([[0, 1], [2, 0]], np.int32)
    np.testing.assert_array_equal(torch.gather(t(a), 1, t(index)).numpy(), np.take_along_axis(a[:2], index, 1))
    out = torch.scatter(t(a), 1, t(index), t(np.ones((2, 2), np.float32))).numpy()
    want = a.copy()
    np.put_along_axis(want[:2], index.astype(np.int64), 1.0, 1)
    np.testing.assert_array_equal(out, want)


def test_as_strided_and_resize_in_place_change_the_element_count() -> None:
    y = torch.arange(12.0).reshape(3, 4)
    y.as_strided_([2, 2], [1, 2])
    np.testing.assert_array_equal(y.numpy(), [[0, 2], [1, 3]])
    y.as_strided_([3], [2], 1)
    np.testing.assert_array_equal(y.numpy(), [1, 3, 5])
    z = torch.arange(12.0)[:5]
    z.as_strided_([10], [1])
    np.testing.assert_array_equal(z.numpy(), np.arange(10.0))


# ---------------------------------------------------------------- the new ATen ops, against numpy


def test_logspace_follows_numpy_and_truncates_integer_bounds() -> None:
    np.testing.assert_allclose(torch.logspace(0, 2, 5).numpy(), np.logspace(0, 2, 5), rtol=1e-6)
    np.testing.assert_allclose(torch.logspace(1, 3, 4, base=2.0).numpy(), np.logspace(1, 3, 4, base=2.0), rtol=1e-6)
    np.testing.assert_array_equal(torch.logspace(0.5, 2.7, 4, dtype=torch.int64).numpy(), [1, 4, 21, 100])


def test_median_dim_and_nanmedian_dim() -> None:
    nan = np.nan
    x = np.array([[3.0, nan, 1.0, nan, 2.0], [5.0, 4.0, 1.0, 2.0, 3.0], [nan] * 5], np.float32)
    values, indices = torch.median(t(x), 1)
    np.testing.assert_array_equal(values.numpy(), [nan, 3.0, nan])
    np.testing.assert_array_equal(indices.numpy(), [1, 4, 0])  # a NaN wins: the first one
    values, indices = torch.nanmedian(t(x), 1, keepdim=True)
    np.testing.assert_array_equal(values.numpy(), [[2.0], [3.0], [nan]])
    np.testing.assert_array_equal(indices.numpy(), [[4], [4], [2]])
    y = f32(6, 7)
    values, indices = t(y).median(0)
    np.testing.assert_array_equal(values.numpy(), np.sort(y, 0)[2])  # the lower of the two middles
    np.testing.assert_array_equal(np.take_along_axis(y, indices.numpy()[None], 0)[0], values.numpy())


def test_mode_is_the_smallest_most_frequent_value_at_its_last_index() -> None:
    y = np.array([[1, 2, 2, 3, 3, 0], [5, 5, 1, 1, 1, 5], [4, 4, 4, 4, 4, 4], [0, 7, 8, 9, 10, 11]])
    values, indices = torch.mode(t(y), 1)
    np.testing.assert_array_equal(values.numpy(), [2, 1, 4, 0])
    np.testing.assert_array_equal(indices.numpy(), [2, 4, 5, 0])


def test_histc_and_dist() -> None:
    x = f32(50)
    np.testing.assert_array_equal(torch.histc(t(x), 6, -1, 1).numpy(), np.histogram(x, 6, (-1, 1))[0])
    np.testing.assert_array_equal(torch.histc(t(x), 4).numpy(), np.histogram(x, 4, (x.min(), x.max()))[0])
    a, b = f32(3, 4), f32(4)
    for p in (1, 2, 3, 0, np.inf, -np.inf):
        want = np.linalg.norm((a - b).ravel(), p) if p else np.count_nonzero(a - b)
        np.testing.assert_allclose(torch.dist(t(a), t(b), p).numpy(), want, rtol=1e-5)


def test_searchsorted_and_bucketize_follow_numpy() -> None:
    bounds = np.array([-1.0, 0.0, 0.5, 1.0], np.float32)
    x = f32(3, 5)
    for right in (False, True):
        want = np.searchsorted(bounds, x, side="right" if right else "left")
        np.testing.assert_array_equal(torch.bucketize(t(x), t(bounds), right=right).numpy(), want)
        np.testing.assert_array_equal(torch.searchsorted(t(bounds), t(x), right=right).numpy(), want)
    rows = np.sort(f32(3, 6), 1)
    got = torch.searchsorted(t(rows), t(x), side="right", out_int32=True)
    assert got.dtype is torch.int32
    np.testing.assert_array_equal(got.numpy(), [np.searchsorted(r, v, "right") for r, v in zip(rows, x)])
    shuffled = np.array([5.0, 1.0, 3.0], np.float32)
    sorter = np.argsort(shuffled)
    got = torch.searchsorted(t(shuffled), t(np.array([3.0, 4.0], np.float32)), sorter=t(sorter))
    np.testing.assert_array_equal(got.numpy(), np.searchsorted(shuffled, [3.0, 4.0], sorter=sorter))
    assert torch.bucketize(0.25, t(bounds)).item() == 2


def test_isin_take_put_index_fill() -> None:
    a, test = np.arange(12).reshape(3, 4), np.array([2, 5, 11])
    np.testing.assert_array_equal(torch.isin(t(a), t(test)).numpy(), np.isin(a, test))
    np.testing.assert_array_equal(torch.isin(t(a), 5, invert=True).numpy(), a != 5)
    index = np.array([[0, -1], [5, 7]])
    np.testing.assert_array_equal(torch.take(t(a), t(index)).numpy(), np.take(a, index))
    got = t(a).put(t(np.array([0, 3, 3])), t(np.array([10, 20, 30])), accumulate=True).numpy()
    want = a.copy().ravel()
    np.add.at(want, [0, 3, 3], [10, 20, 30])
    np.testing.assert_array_equal(got, want.reshape(3, 4))
    filled = t(a).index_fill(1, t(np.array([0, -1])), -7).numpy()
    want = a.copy()
    want[:, [0, -1]] = -7
    np.testing.assert_array_equal(filled, want)
    with pytest.raises(RuntimeError, match="Expected dtype int64 for index"):
        t(a).index_fill(0, t(np.array([0], np.int32)), 1)


def test_scatter_with_reduce_adds_or_multiplies_in_order() -> None:
    x = np.arange(1.0, 13.0, dtype=np.float32).reshape(4, 3)
    index = np.array([[0, 1, 2], [2, 0, 0]])
    src = x[:2]
    want_add, want_mul, want_value = x.copy(), x.copy(), x.copy()
    coords = (index, np.arange(3)[None, :].repeat(2, 0))
    np.add.at(want_add, coords, src)
    np.multiply.at(want_mul, coords, src)
    np.multiply.at(want_value, coords, 2.0)
    np.testing.assert_array_equal(t(x).scatter(0, t(index), t(src), reduce="add").numpy(), want_add)
    np.testing.assert_array_equal(t(x).clone().scatter_(0, t(index), t(src), reduce="multiply").numpy(), want_mul)
    np.testing.assert_array_equal(torch.scatter(t(x), 0, t(index), 2.0, reduce="multiply").numpy(), want_value)
    with pytest.raises(RuntimeError, match="either add or multiply"):
        t(x).scatter(0, t(index), 1.0, reduce="max")


def test_diagonals_and_triangle_indices() -> None:
    x = f32(2, 3)
    got = torch.diag_embed(t(x), 1).numpy()
    want = np.stack([np.diag(row, 1) for row in x])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(torch.diag(t(x[0]), -1).numpy(), np.diag(x[0], -1))
    np.testing.assert_array_equal(torch.diag(t(x), 1).numpy(), np.diag(x, 1))
    np.testing.assert_array_equal(torch.diagflat(t(x)).numpy(), np.diagflat(x))
    m = f32(3, 4)
    got = torch.diagonal_scatter(t(m), t(np.zeros(3, np.float32)), 1).numpy()
    want = m.copy()
    want[[0, 1, 2], [1, 2, 3]] = 0
    np.testing.assert_array_equal(got, want)
    got = torch.as_strided_scatter(t(m), t(np.ones(3, np.float32)), (3,), (2,), 1).numpy()
    want = m.copy().ravel()
    want[[1, 3, 5]] = 1
    np.testing.assert_array_equal(got, want.reshape(3, 4))
    np.testing.assert_array_equal(torch.tril_indices(3, 4, 1).numpy(), np.stack(np.tril_indices(3, 1, 4)))
    np.testing.assert_array_equal(torch.triu_indices(4, 3, -1).numpy(), np.stack(np.triu_indices(4, -1, 3)))
    assert torch.triu_indices(0, 3).shape == (2, 0)


def test_unique_dim_and_bincount() -> None:
    a = np.array([[1, 2], [0, 5], [1, 2], [0, 1]])
    values, inverse, counts = torch.unique(t(a), dim=0, return_inverse=True, return_counts=True)
    want = np.unique(a, axis=0, return_inverse=True, return_counts=True)
    for got, ref in zip((values, inverse, counts), want):
        np.testing.assert_array_equal(got.numpy(), ref.reshape(got.shape))
    n = np.array([0, 2, 2, 5])
    np.testing.assert_array_equal(torch.bincount(t(n)).numpy(), np.bincount(n))
    np.testing.assert_array_equal(torch.bincount(t(n), minlength=8).numpy(), np.bincount(n, minlength=8))
    weights = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
    got = torch.bincount(t(n), t(weights))
    assert got.dtype is torch.float32
    np.testing.assert_array_equal(got.numpy(), np.bincount(n, weights))
    assert torch.bincount(t(n), t(np.ones(4, np.int32))).dtype is torch.float64
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.bincount(t(np.array([-1, 2])))


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_follows_numpy(method: str) -> None:
    x = f32(5, 7)
    np.testing.assert_allclose(torch.quantile(t(x), 0.3, dim=1, interpolation=method).numpy(),
                               np.quantile(x, 0.3, axis=1, method=method), rtol=1e-5)
    q = np.array([0.1, 0.5, 0.95], np.float32)
    np.testing.assert_allclose(torch.quantile(t(x), t(q), dim=0, keepdim=True, interpolation=method).numpy(),
                               np.quantile(x, q, axis=0, keepdims=True, method=method), rtol=1e-5)
    x[1, 3] = x[2, 0] = np.nan
    np.testing.assert_allclose(torch.nanquantile(t(x), 0.7, dim=1, interpolation=method).numpy(),
                               np.nanquantile(x, 0.7, axis=1, method=method), rtol=1e-5)
    assert np.isnan(torch.quantile(t(x), 0.5, dim=1).numpy()[[1, 2]]).all()  # a NaN in a row gives NaN
    with pytest.raises(RuntimeError, match="q must be in the range"):
        torch.quantile(t(x), 1.5)


# ---------------------------------------------------------------- random draws, checked statistically

N = 200_000


def _moments(x: torch.Tensor) -> tuple[float, float]:
    values = x.numpy().astype(np.float64)
    return float(values.mean()), float(values.var())


def test_continuous_distributions_have_their_moments() -> None:
    torch.manual_seed(0)
    zeros = torch.zeros(N)
    mean, var = _moments(zeros.clone().exponential_(2.0))
    assert abs(mean - 0.5) < 0.01 and abs(var - 0.25) < 0.01
    mean, var = _moments(zeros.clone().log_normal_(0.0, 0.5).log())
    assert abs(mean) < 0.01 and abs(var - 0.25) < 0.01
    cauchy = zeros.clone().cauchy_(1.0, 2.0).numpy()
    quartiles = np.percentile(cauchy, [25, 50, 75])
    np.testing.assert_allclose(quartiles, [-1.0, 1.0, 3.0], atol=0.05)  # median ± sigma
    mean, var = _moments(torch.normal(t(np.full(N, 3.0, np.float32)), 2.0))
    assert abs(mean - 3.0) < 0.02 and abs(var - 4.0) < 0.05
    mean, var = _moments(torch.normal(-1.0, 0.5, (N,)))
    assert abs(mean + 1.0) < 0.01 and abs(var - 0.25) < 0.01
    mean, var = _moments(torch.normal(t(np.zeros(N, np.float32)), t(np.full(N, 3.0, np.float32))))
    assert abs(mean) < 0.03 and abs(var - 9.0) < 0.15
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        torch.normal(t(np.zeros(2, np.float32)), t(np.array([1.0, -1.0], np.float32)))


def test_discrete_distributions_have_their_frequencies() -> None:
    torch.manual_seed(1)
    draws = torch.zeros(N).geometric_(0.25).numpy()
    assert draws.min() == 1 and abs(draws.mean() - 4.0) < 0.05  # trials to the first success
    draws = torch.zeros(N).random_(3, 7).numpy()
    np.testing.assert_allclose(np.bincount(draws.astype(int), minlength=7)[3:] / N, 0.25, atol=0.01)
    assert set(np.unique(torch.zeros(100).random_(2).numpy())) <= {0.0, 1.0}
    floats = torch.zeros(N).random_().numpy()
    assert floats.min() >= 0 and floats.max() <= 2 ** 24 and floats.max() > 2 ** 23
    assert set(np.unique(torch.zeros(N, dtype=torch.uint8).random_().numpy())) == set(range(256))
    coins = torch.bernoulli(t(np.full(N, 0.3, np.float32))).numpy()
    assert abs(coins.mean() - 0.3) < 0.01
    assert abs(torch.bernoulli(t(np.zeros(N, np.float32)), 0.7).numpy().mean() - 0.7) < 0.01


def test_multinomial_draws_by_weight() -> None:
    torch.manual_seed(2)
    weights = np.array([[1.0, 0.0, 3.0], [1.0, 1.0, 2.0]], np.float32)
    draws = torch.multinomial(t(weights), 40_000, replacement=True).numpy()
    np.testing.assert_allclose(np.bincount(draws[0], minlength=3) / 40_000, [0.25, 0, 0.75], atol=0.01)
    np.testing.assert_allclose(np.bincount(draws[1], minlength=3) / 40_000, [0.25, 0.25, 0.5], atol=0.01)
    picks = torch.multinomial(t(np.tile(weights[1], (20_000, 1))), 3).numpy()
    assert all(sorted(row) == [0, 1, 2] for row in picks[:100])  # without replacement: each once
    np.testing.assert_allclose(np.bincount(picks[:, 0], minlength=3) / 20_000, [0.25, 0.25, 0.5], atol=0.015)
    with pytest.raises(RuntimeError, match="without replacement"):
        torch.multinomial(t(weights), 4)


def test_draws_follow_the_seed() -> None:
    torch.manual_seed(7)
    first = torch.zeros(5).exponential_().numpy()
    torch.manual_seed(7)
    np.testing.assert_array_equal(torch.zeros(5).exponential_().numpy(), first)
