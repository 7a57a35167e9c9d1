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
