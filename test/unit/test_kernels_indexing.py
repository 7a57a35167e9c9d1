"""Indexing, gather/scatter, mask, unique and embedding kernels against hand-computed results
and naive Python loops on tiny inputs. Every call goes through kernel_checks.run, which also
checks the kernel's output shapes and dtypes against the op's shape rule."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from kernel_checks import run

import texport.dialects.op_table  # noqa: F401  (registers the schemas run() binds against)
from texport.dialects.dtypes import DType
from texport.interpreter.dtypes import to_numpy
from texport.interpreter.kernels import KERNELS

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8]
ALL_DTYPES = INT_DTYPES + [np.bool_, np.float16, np.float32, np.float64, to_numpy(DType.bfloat16)]


def grid(*shape: int, dtype: type = np.int64) -> np.ndarray:
    values = np.arange(int(np.prod(shape)))
    if dtype is np.bool_:
        values = values % 2
    return values.astype(dtype).reshape(shape)


def raises(error: type, message: str) -> pytest.RaisesContext:
    return pytest.raises(error, match=re.escape(message))


def longs(*values: object) -> np.ndarray:
    return np.array(values, dtype=np.int64)


# ---------------------------------------------------------------------------- index.Tensor


def test_index_single_tensor_and_none_entries() -> None:
    x = grid(3, 4)
    np.testing.assert_array_equal(run("index.Tensor", x, [longs(2, 0)]), [x[2], x[0]])
    np.testing.assert_array_equal(run("index.Tensor", x, [None, longs(-1, 1)]), [[3, 1], [7, 5],
                                                                                [11, 9]])


def test_index_broadcasts_index_tensors() -> None:
    x = grid(3, 4)
    rows, cols = longs([0], [2]), longs(1, 3)
    out = run("index.Tensor", x, [rows, cols])
    np.testing.assert_array_equal(out, [[1, 3], [9, 11]])


def test_index_adjacent_indexed_dims_stay_in_place() -> None:
    x = grid(2, 3, 4, 5)
    out = run("index.Tensor", x, [None, longs(0, 2), longs(1, 3)])
    assert out.shape == (2, 2, 5)
    assert out[1, 1, 4] == x[1, 2, 3, 4]


def test_index_non_adjacent_indexed_dims_go_first() -> None:
    x = grid(2, 3, 4, 5)
    out = run("index.Tensor", x, [longs(1, 0), None, longs(3, 2)])
    assert out.shape == (2, 3, 5)
    for k, i, m in itertools.product(range(2), range(3), range(5)):
        assert out[k, i, m] == x[[1, 0][k], i, [3, 2][k], m]


def test_index_bool_mask() -> None:
    x = grid(2, 3)
    mask = np.array([[True, False, True], [False, False, True]])
    assert run("index.Tensor", x, [mask]).tolist() == [0, 2, 5]
    rows = run("index.Tensor", x, [np.array([False, True])])
    assert rows.tolist() == [[3, 4, 5]]
    byte_mask = np.array([1, 0, 1], dtype=np.uint8)  # a legacy byte mask is a mask
    assert run("index.Tensor", x, [None, byte_mask]).tolist() == [[0, 2], [3, 5]]


@pytest.mark.xfail(strict=True, reason="shape-rule disagreement: a 0-d bool index adds a dim "
                   "(size 1 for True, 0 for False) in torch; the index.Tensor rule drops it")
def test_index_zero_dim_bool_mask_adds_a_dim() -> None:
    assert run("index.Tensor", grid(3), [np.array(True)]).shape == (1, 3)
    assert run("index.Tensor", grid(3), [np.array(False)]).shape == (0, 3)


def test_index_zero_dim_index_and_copy() -> None:
    x = grid(3, 2)
    out = run("index.Tensor", x, [np.array(1)])
    assert out.tolist() == [2, 3]
    out[0] = -1
    assert x[1, 0] == 2  # index never aliases


def test_index_with_only_full_slices_is_a_copy() -> None:
    x = grid(2, 2)
    out = run("index.Tensor", x, [None])
    out[0, 0] = 9
    assert x[0, 0] == 0


def test_non_contiguous_inputs() -> None:
    x = grid(3, 4).T  # (4, 3), strides (1, 4)
    np.testing.assert_array_equal(run("index.Tensor", x, [longs(1, 3)]), x[[1, 3]])
    np.testing.assert_array_equal(run("index_select", x, 1, longs(2, 0)), x[:, [2, 0]])
    index = longs([2, 0, 1], [0, 0, 0])
    np.testing.assert_array_equal(run("gather", x, 1, index), naive_gather(x, 1, index))
    target = np.zeros((3, 4)).T
    run("scatter_.value", target, 0, longs([3, 0, 1]), 1.0)
    np.testing.assert_array_equal(target[:, 0], [0, 0, 0, 1])
    np.testing.assert_array_equal(target[:, 1:], [[1, 0], [0, 1], [0, 0], [0, 0]])


def test_index_out_of_range() -> None:
    with raises(IndexError, "index 3 is out of bounds for dimension 0 with size 3"):
        run("index.Tensor", grid(3), [longs(3)])


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_every_dtype_and_int32_indices(dtype: type) -> None:
    x = grid(4, dtype=dtype)
    out = run("index.Tensor", x, [np.array([3, -4], dtype=np.int32)])
    assert out.dtype == dtype and out.tolist() == [x[3], x[0]]


# ---------------------------------------------------------------------------- index_put


def naive_index_put(x: np.ndarray, rows: list[int], values: list[float], accumulate: bool
                    ) -> np.ndarray:
    out = x.copy()
    for r, v in zip(rows, values):
        out[r] = out[r] + v if accumulate else v
    return out


def test_index_put_accumulate_sums_duplicates() -> None:
    x = np.zeros(4, np.float32)
    rows, values = [1, 1, 3, 1], [1.0, 2.0, 5.0, 4.0]
    out = run("index_put", x, [longs(*rows)], np.array(values, np.float32), True)
    np.testing.assert_array_equal(out, naive_index_put(x, rows, values, True))
    assert not x.any()  # functional form: the input is untouched


def test_index_put_overwrites_and_broadcasts() -> None:
    x = grid(3, 4)
    out = run("index_put", x, [longs(0, 2)], np.array([7, 8, 9, 10]))
    np.testing.assert_array_equal(out[[0, 2]], [[7, 8, 9, 10]] * 2)
    np.testing.assert_array_equal(out[1], x[1])


def test_index_put_with_none_and_mask() -> None:
    x = grid(2, 3)
    out = run("index_put", x, [None, longs(1)], np.array([-1]))
    np.testing.assert_array_equal(out, [[0, -1, 2], [3, -1, 5]])
    mask = np.array([[True, False, False], [False, True, True]])
    masked = run("index_put", x, [mask], np.array(0), True)
    np.testing.assert_array_equal(masked, x)
    filled = run("index_put", x, [mask], np.array([10, 20, 30]))
    np.testing.assert_array_equal(filled, [[10, 1, 2], [3, 20, 30]])


def test_index_put_in_place_returns_self() -> None:
    x = np.zeros((2, 2), np.int32)
    out = run("index_put_", x, [longs(1, 1), longs(0, 0)], np.array([3, 4], np.int32), True)
    assert out is x and x.tolist() == [[0, 0], [7, 0]]


def test_index_put_in_place_through_a_view_reaches_the_base() -> None:
    base = np.zeros((3, 3))
    column = KERNELS["select.int"](base, 1, 2)
    run("index_put_", column, [longs(0, 2)], np.array([1.0, 2.0]))
    np.testing.assert_array_equal(base[:, 2], [1.0, 0.0, 2.0])


# ---------------------------------------------------------------------------- index_select / add / copy


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_select(dtype: type) -> None:
    x = grid(3, 4, dtype=dtype)
    out = run("index_select", x, 1, longs(3, 0, 3))
    np.testing.assert_array_equal(out, x[:, [3, 0, 3]])
    assert out.dtype == dtype
    assert run("index_select", x, 0, np.zeros(0, np.int64)).shape == (0, 4)
    assert run("index_select", x, -2, np.array(2, np.int32)).tolist() == [x[2].tolist()]


def test_index_select_of_a_scalar_and_out_of_range() -> None:
    assert run("index_select", np.array(5.0), 0, longs(0)).tolist() == 5.0
    with raises(IndexError, "index 4 is out of bounds for dimension 1 with size 4"):
        run("index_select", grid(3, 4), 1, longs(4))


def test_index_add_accumulates_duplicates_with_alpha() -> None:
    x = np.ones((2, 3), np.float32)
    source = grid(2, 3).astype(np.float32)
    index = longs(2, 0, 2)
    out = run("index_add", x, 1, index, source, alpha=2)
    expected = x.copy()
    for j, target in enumerate(index):
        expected[:, target] += 2 * source[:, j]
    np.testing.assert_array_equal(out, expected)
    assert (x == 1).all()


def test_index_add_in_place_and_int_dtype() -> None:
    x = np.zeros(3, np.int16)
    assert run("index_add_", x, 0, longs(0, 0), np.array([5, 6], np.int16)) is x
    assert x.tolist() == [11, 0, 0]


def test_index_copy() -> None:
    x = grid(3, 2)
    out = run("index_copy", x, 0, longs(2, 0), np.array([[10, 11], [12, 13]]))
    np.testing.assert_array_equal(out, [[12, 13], [2, 3], [10, 11]])
    y = np.zeros(3)
    assert run("index_copy_", y, -1, longs(1), np.array([4.0])) is y and y.tolist() == [0, 4, 0]


def test_index_add_source_shape_mismatch() -> None:
    with raises(RuntimeError, "Source/destination tensor must have same slice shapes"):
        KERNELS["index_add"](np.zeros((2, 3)), 1, longs(0, 1), np.zeros((3, 2)))


# ---------------------------------------------------------------------------- gather / scatter


def naive_gather(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    out = np.empty(index.shape, x.dtype)
    for p in itertools.product(*map(range, index.shape)):
        q = list(p)
        q[dim] = index[p]
        out[p] = x[tuple(q)]
    return out


def naive_scatter(x: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, combine) -> np.ndarray:
    out = x.copy()
    for p in itertools.product(*map(range, index.shape)):
        q = list(p)
        q[dim] = index[p]
        out[tuple(q)] = combine(out[tuple(q)], src[p])
    return out


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_matches_a_loop(dim: int) -> None:
    x = grid(3, 4)
    index = longs([0, 2], [1, 1])  # smaller than x in the other dim: allowed
    np.testing.assert_array_equal(run("gather", x, dim, index), naive_gather(x, dim % 2, index))


def test_gather_edge_cases() -> None:
    assert run("gather", np.array(4.0), 0, np.array(0)).tolist() == 4.0
    assert run("gather", grid(2, 3), 1, np.zeros((2, 0), np.int64)).shape == (2, 0)
    with raises(IndexError, "index -1 is out of bounds for dimension 1 with size 3"):
        run("gather", grid(2, 3), 1, longs([-1]))
    with raises(RuntimeError, "Size does not match at dimension 1"):  # the rule rejects it too
        KERNELS["gather"](grid(1, 3), 1, longs([0], [1]))


def test_gather_and_scatter_check_the_dtype_of_a_non_empty_index_only() -> None:
    """torch gathers nothing through an empty uint8 index, and rejects a non-empty one."""
    assert run("gather", np.arange(5.0, dtype=np.float32), 0, np.zeros(0, np.uint8)).shape == (0,)
    x = np.arange(5.0, dtype=np.float32)
    np.testing.assert_array_equal(run("scatter.src", x, 0, np.zeros(0, np.uint8), x[:0]), x)
    with raises(RuntimeError, "Expected dtype int32/int64 for index"):
        KERNELS["gather"](x, 0, np.zeros(1, np.uint8))


@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_src_matches_a_loop(dim: int) -> None:
    x = np.zeros((3, 4), np.float32)
    index = longs([2, 0, 1], [0, 1, 2]) if dim == 0 else longs([3, 0, 1], [0, 1, 2])
    src = (grid(2, 5) + 1).astype(np.float32)  # larger than index: only the leading corner counts
    expected = naive_scatter(x, dim, index, src, lambda old, new: new)
    np.testing.assert_array_equal(run("scatter.src", x, dim, index, src), expected)
    assert run("scatter_.src", x, dim, index, src) is x
    np.testing.assert_array_equal(x, expected)


def test_scatter_value() -> None:
    x = grid(2, 3)
    out = run("scatter.value", x, 1, longs([2], [0]), -1)
    np.testing.assert_array_equal(out, [[0, 1, -1], [-1, 4, 5]])
    y = np.zeros(3, np.bool_)
    assert run("scatter_.value", y, 0, longs(1), True) is y and y.tolist() == [False, True, False]


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.float32])
def test_scatter_add_sums_duplicates(dtype: type) -> None:
    x = np.ones((2, 3), dtype)
    index = longs([0, 0, 2], [1, 1, 1])
    src = np.full((2, 3), 2, dtype)
    expected = naive_scatter(x, 1, index, src, lambda old, new: old + new)
    np.testing.assert_array_equal(run("scatter_add", x, 1, index, src), expected)
    assert run("scatter_add_", x, 1, index, src) is x
    np.testing.assert_array_equal(x, expected)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_a_loop(reduce: str, include_self: bool) -> None:
    x = np.array([1.0, -2.0, 3.0, 10.0], np.float64)
    index = longs(0, 2, 0, 1, 2)
    src = np.array([4.0, 5.0, -6.0, 7.0, 0.5])
    groups: dict[int, list[float]] = {}
    for i, v in zip(index, src):
        groups.setdefault(int(i), []).append(float(v))
    expected = x.copy()
    combine = {"sum": sum, "prod": np.prod, "mean": np.mean, "amax": max, "amin": min}[reduce]
    for i, values in groups.items():
        expected[i] = combine(([float(x[i])] if include_self else []) + values)
    out = run("scatter_reduce.two", x, 0, index, src, reduce, include_self=include_self)
    np.testing.assert_allclose(out, expected)
    assert x.tolist() == [1.0, -2.0, 3.0, 10.0]


def test_scatter_reduce_integer_mean_rounds_down_and_in_place() -> None:
    x = np.array([0, 5], np.int32)
    out = run("scatter_reduce_.two", x, 0, longs(0, 0, 1), np.array([1, 2, -6], np.int32), "mean")
    assert out is x and x.tolist() == [1, -1]  # (0+1+2)/3 = 1; (5-6)/2 = -0.5 -> -1


def test_scatter_reduce_amax_without_self_on_ints() -> None:
    x = np.array([100, 100], np.int8)
    out = run("scatter_reduce.two", x, 0, longs(0, 0), np.array([-3, -7], np.int8), "amax",
              include_self=False)
    assert out.tolist() == [-3, 100]


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_legacy_reduce_folds_duplicates(reduce: str) -> None:
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    index = longs([0, 1], [0, 0])
    src = np.array([[5.0, 6.0], [7.0, 8.0]])
    combine = (lambda old, new: old + new) if reduce == "add" else (lambda old, new: old * new)
    expected = naive_scatter(x, 0, index, src, combine)
    np.testing.assert_array_equal(run("scatter.reduce", x, 0, index, src, reduce=reduce), expected)
    assert run("scatter_.reduce", x, 0, index, src, reduce=reduce) is x
    np.testing.assert_array_equal(x, expected)


def test_scatter_legacy_value_reduce_converts_the_value_to_self() -> None:
    x = np.array([1, 2, 3])
    out = run("scatter.value_reduce", x, 0, longs(0, 0, 2), 2.7, reduce="multiply")
    assert out.tolist() == [4, 2, 6]  # 2.7 -> 2; position 0 twice: 1 * 2 * 2
    with pytest.raises((RuntimeError, ValueError), match="either add or multiply"):  # kernel's or shape rule's
        run("scatter.value_reduce", x, 0, longs(0), 1, reduce="sum")


def test_scatter_on_a_scalar_and_empty_index() -> None:
    x = np.array(1.0)
    assert run("scatter.src", x, 0, np.array(0), np.array(9.0)).tolist() == 9.0
    y = grid(2, 2)
    np.testing.assert_array_equal(run("scatter_add", y, 0, np.zeros((0, 2), np.int64),
                                      np.zeros((0, 2), np.int64)), y)


def test_scatter_in_place_through_a_view_reaches_the_base() -> None:
    base = np.zeros((2, 4), np.float32)
    half = KERNELS["slice.Tensor"](base, 1, 2, None, 1)
    run("scatter_.value", half, 1, longs([1], [0]), 3.0)
    np.testing.assert_array_equal(base, [[0, 0, 0, 3], [0, 0, 3, 0]])


def test_take_along_dim() -> None:
    x = np.array([[10, 30, 20], [60, 40, 50]])
    order = longs([0, 2, 1], [1, 2, 0])
    np.testing.assert_array_equal(run("take_along_dim", x, order, 1), [[10, 20, 30],
                                                                      [40, 50, 60]])
    assert run("take_along_dim", x, longs([5, 0]), None).tolist() == [50, 10]
    broadcast = run("take_along_dim", x, longs([0, 2]), 1)  # [1, 2] index broadcasts over rows
    np.testing.assert_array_equal(broadcast, [[10, 20], [60, 50]])


# ---------------------------------------------------------------------------- select/slice scatter


def test_select_scatter() -> None:
    x = grid(2, 3)
    out = run("select_scatter", x, np.array([7, 8]), 1, -1)
    np.testing.assert_array_equal(out, [[0, 1, 7], [3, 4, 8]])
    assert x[0, 2] == 2


def test_slice_scatter() -> None:
    x = np.zeros((2, 5))
    out = run("slice_scatter", x, np.ones((2, 2)), 1, 1, None, 3)
    np.testing.assert_array_equal(out, [[0, 1, 0, 0, 1]] * 2)
    full = run("slice_scatter", x, np.full((2, 5), 2.0))
    assert (full == 2).all() and not x.any()


# ---------------------------------------------------------------------------- masks


def test_masked_select_broadcasts() -> None:
    x = grid(2, 3)
    mask = np.array([True, False, True])
    assert run("masked_select", x, mask).tolist() == [0, 2, 3, 5]
    assert run("masked_select", np.array(4.0), np.array([True, True])).tolist() == [4.0, 4.0]
    assert run("masked_select", x, np.zeros((2, 3), bool)).shape == (0,)


def test_masked_scatter() -> None:
    x = np.zeros((2, 3), np.int32)
    mask = np.array([[True, False, True], [False, True, False]])
    out = run("masked_scatter", x, mask, np.array([1, 2, 3, 4, 5], np.int32))
    np.testing.assert_array_equal(out, [[1, 0, 2], [0, 3, 0]])
    wide = run("masked_scatter", np.zeros(3), np.array([[True], [False]]), np.arange(4.0))
    np.testing.assert_array_equal(wide, [[0, 1, 2], [0, 0, 0]])
    with raises(RuntimeError, "expected source to have at least 3 elements"):
        run("masked_scatter", x, mask, np.array([1, 2], np.int32))


# ---------------------------------------------------------------------------- data-dependent sizes


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_nonzero(dtype: type) -> None:
    x = np.array([[0, 1, 0], [1, 1, 0]], dtype)
    out = run("nonzero", x)
    assert out.dtype == np.int64 and out.tolist() == [[0, 1], [1, 0], [1, 1]]


def test_nonzero_edge_cases() -> None:
    assert run("nonzero", np.array(3)).shape == (1, 0)
    assert run("nonzero", np.array(0.0)).shape == (0, 0)
    assert run("nonzero", np.zeros((2, 0))).shape == (0, 2)


def test_nonzero_static() -> None:
    x = np.array([0, 3, 0, 4])
    assert run("nonzero_static", x, size=4).tolist() == [[1], [3], [-1], [-1]]
    assert run("nonzero_static", x, size=1, fill_value=9).tolist() == [[1]]
    assert run("nonzero_static", grid(2, 2), size=4, fill_value=7).tolist() == [
        [0, 1], [1, 0], [1, 1], [7, 7]]


def test_where_as_tuple() -> None:
    rows, cols = run("where", np.array([[0, 2], [3, 0]]))
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0] and rows.dtype == np.int64
    (only,) = run("where", np.array(True))
    assert only.tolist() == [0]


def test_unique2() -> None:
    x = np.array([[3, 1], [3, 2]], np.int16)
    values, inverse, counts = run("_unique2", x, True, True, True)
    assert values.tolist() == [1, 2, 3] and values.dtype == np.int16
    assert inverse.tolist() == [[2, 0], [2, 1]] and counts.tolist() == [1, 1, 2]
    values, inverse, counts = run("_unique2", x)
    assert inverse.shape == (0,) and counts.shape == (0,)
    empty = run("_unique2", np.zeros(0, np.float32), True, True, True)
    assert [e.shape for e in empty] == [(0,), (0,), (0,)]
    assert run("_unique2", np.array([True, False, True]))[0].tolist() == [False, True]


def test_unique_consecutive() -> None:
    x = np.array([1, 1, 2, 2, 3, 1, 1, 2])
    values, inverse, counts = run("unique_consecutive", x, True, True)
    assert values.tolist() == [1, 2, 3, 1, 2]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert counts.tolist() == [2, 2, 1, 2, 1]
    values, inverse, counts = run("unique_consecutive", x)
    assert inverse.shape == (0,) and counts.shape == (0,)


def test_unique_consecutive_along_a_dim() -> None:
    x = np.array([[1, 1, 2, 1], [0, 0, 0, 0]])
    values, inverse, counts = run("unique_consecutive", x, True, True, dim=1)
    np.testing.assert_array_equal(values, [[1, 2, 1], [0, 0, 0]])
    assert inverse.tolist() == [0, 0, 1, 2] and counts.tolist() == [2, 1, 1]
    empty = run("unique_consecutive", np.zeros((0, 3)), True, True, dim=0)
    assert [e.shape for e in empty] == [(0, 3), (0,), (0,)]


def test_one_hot() -> None:
    out = run("one_hot", longs([0, 2], [1, 1]))
    assert out.shape == (2, 2, 3) and out.dtype == np.int64
    assert out[0, 1].tolist() == [0, 0, 1] and out.sum() == 4
    assert run("one_hot", longs(1), 4).tolist() == [[0, 1, 0, 0]]
    assert run("one_hot", np.zeros(0, np.int64), 3).shape == (0, 3)
    with raises(RuntimeError, "Class values must be smaller than num_classes."):
        run("one_hot", longs(3), 3)
    with raises(RuntimeError, "Can not infer total number of classes from empty tensor."):
        KERNELS["one_hot"](np.zeros(0, np.int64), -1)


# ---------------------------------------------------------------------------- embeddings


def test_embedding() -> None:
    weight = grid(4, 2).astype(np.float32)
    out = run("embedding", weight, longs([3, 0], [1, 3]), 0)
    np.testing.assert_array_equal(out[0, 0], weight[3])
    np.testing.assert_array_equal(out[1, 0], weight[1])
    assert out.shape == (2, 2, 2)
    np.testing.assert_array_equal(run("embedding", weight, np.array(2, np.int32)), weight[2])
    with raises(IndexError, "index out of range in self"):
        run("embedding", weight, longs(4))


def test_embedding_dense_backward() -> None:
    grad = np.ones((2, 3, 2), np.float32)
    indices = longs([0, 2, 2], [4, 0, 2])
    out = run("embedding_dense_backward", grad, indices, 5, 4, False)
    expected = np.zeros((5, 2), np.float32)
    for i in indices.reshape(-1):
        if i != 4:
            expected[i] += 1
    np.testing.assert_array_equal(out, expected)
    scaled = run("embedding_dense_backward", grad, indices, 5, -1, True)
    np.testing.assert_array_equal(scaled, [[1, 1], [0, 0], [1, 1], [0, 0], [1, 1]])


def naive_embedding_bag(weight, indices, offsets, mode, psw, last, padding_idx):
    """Bags, bag sizes and, for max, each feature's first argmax row: a plain loop."""
    bags = len(offsets) - (1 if last else 0)
    bounds = list(offsets[:bags]) + [len(indices)]
    width = weight.shape[1]
    output, sizes, argmax = np.zeros((bags, width)), [], np.zeros((bags, width), np.int64)
    for b in range(bags):
        members = [k for k in range(bounds[b], bounds[b + 1]) if indices[k] != padding_idx]
        sizes.append(len(members))
        rows = [weight[indices[k]] * (psw[k] if psw is not None else 1) for k in members]
        if not rows:
            continue
        if mode == 0:
            output[b] = np.sum(rows, axis=0)
        elif mode == 1:
            output[b] = np.mean(rows, axis=0)
        else:
            for f in range(width):
                column = [r[f] for r in rows]
                best = int(np.argmax(column))
                output[b, f], argmax[b, f] = column[best], indices[members[best]]
    return output, sizes, argmax


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("last", [False, True])
@pytest.mark.parametrize("padding_idx", [-1, 2])
@pytest.mark.parametrize("op", ["_embedding_bag", "_embedding_bag_forward_only"])
def test_embedding_bag_matches_a_loop(mode: int, last: bool, padding_idx: int, op: str) -> None:
    weight = np.array([[1, -1], [4, 0], [2, 2], [3, 5], [0, 9]], np.float32)
    indices = longs(1, 2, 4, 2, 0, 3, 3)
    offsets = longs(0, 2, 2, 5) if not last else longs(0, 2, 2, 5, 7)
    output, offset2bag, bag_size, max_indices = run(
        op, weight, indices, offsets, False, mode, False, None, last, padding_idx)
    expected, sizes, argmax = naive_embedding_bag(weight, indices, offsets, mode, None, last,
                                                  padding_idx)
    np.testing.assert_allclose(output, expected)
    assert bag_size.tolist() == (sizes if mode != 0 or op == "_embedding_bag" else [0] * len(sizes))
    if mode == 2:
        np.testing.assert_array_equal(max_indices, argmax)
    if offset2bag.size:
        assert offset2bag.tolist() == [0, 0, 2, 2, 2, 3, 3]


@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_bag_composite_reads_none_as_no_padding(padding_idx: int | None) -> None:
    weight = np.array([[1, -1], [4, 0], [2, 2], [3, 5], [0, 9]], np.float32)
    indices, offsets = longs(1, 3, 3, 4, 0), longs(0, 3)
    output, _, bag_size, _ = run("embedding_bag.padding_idx", weight, indices, offsets, False, 1, False, None,
                                 False, padding_idx)
    if padding_idx is None:  # bags {1, 3, 3} and {4, 0}: means by hand
        np.testing.assert_allclose(output, [[10 / 3, 10 / 3], [0.5, 4]])
        assert bag_size.tolist() == [3, 2]
    else:  # the rows 3 leave the first bag: only row 1 is left
        np.testing.assert_allclose(output, [[4, 0], [0.5, 4]])
        assert bag_size.tolist() == [1, 2]
    default = run("embedding_bag", weight, indices, offsets, False, 0)[0]
    np.testing.assert_allclose(default, [[10, 10], [1, 8]])


def test_embedding_bag_per_sample_weights_and_dtypes() -> None:
    weight = np.array([[1.0, 2.0], [3.0, 4.0]], np.float64)
    indices = np.array([0, 1, 1], np.int32)
    offsets = np.array([0, 1], np.int32)
    psw = np.array([2.0, 0.5, -1.0])
    output, offset2bag, bag_size, _ = run("_embedding_bag", weight, indices, offsets, False, 0,
                                          False, psw)
    expected, sizes, _ = naive_embedding_bag(weight, indices, offsets, 0, psw, False, -1)
    np.testing.assert_allclose(output, expected)
    assert offset2bag.dtype == np.int32 and offset2bag.tolist() == [0, 1, 1]
    assert bag_size.tolist() == sizes


def test_embedding_bag_fast_sum_path_has_no_offset2bag() -> None:
    weight = np.ones((3, 2), np.float32)
    outputs = run("_embedding_bag", weight, longs(0, 1), longs(0))
    assert outputs[1].shape == (0,)
    np.testing.assert_array_equal(outputs[0], [[2, 2]])


@pytest.mark.parametrize("norm_type", [1.0, 2.0, float("inf")])
def test_embedding_renorm_scales_each_named_row_over_max_norm_once(norm_type: float) -> None:
    table = np.array([[3.0, 4.0], [0.3, 0.4], [-6.0, 8.0], [1.0, 1.0]], np.float32)
    norms = {1.0: [7, 0.7, 14, 2], 2.0: [5, 0.5, 10, 2 ** 0.5], float("inf"): [4, 0.4, 8, 1]}[norm_type]
    expected = table.astype(np.float64).copy()
    for row in (0, 1, 2):  # named (row 2 twice: scaled once); row 3 is not named
        if norms[row] > 1.5:
            expected[row] *= 1.5 / (norms[row] + 1e-7)
    out = run("embedding_renorm", table, longs(2, 0, 2, 1), 1.5, norm_type)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    written = table.copy()
    assert run("embedding_renorm_", written, longs(2, 0, 2, 1), 1.5, norm_type) is written
    np.testing.assert_array_equal(written, out)


def test_embedding_bag_weighs_float16_rows_in_float32_and_rounds_once() -> None:
    rng = np.random.default_rng(0)
    weight = (rng.normal(size=(10, 5)) * 5).astype(np.float16)
    psw = (rng.normal(size=5) * 5).astype(np.float16)
    indices, offsets = longs(1, 5, 4, 5, 9), longs(0, 3)
    wide = weight.astype(np.float64)[indices] * psw.astype(np.float64)[:, None]
    expected = np.stack([wide[:3].sum(0), wide[3:].sum(0)]).astype(np.float16)
    for op in ("_embedding_bag", "_embedding_bag_forward_only"):
        np.testing.assert_array_equal(run(op, weight, indices, offsets, False, 0, False, psw)[0], expected)


def test_diagonal_scatter_writes_the_chosen_diagonal_of_a_copy() -> None:
    x = grid(3, 4).astype(np.float64)
    out = run("diagonal_scatter", x, np.array([-1.0, -2.0, -3.0]), 1)
    expected = x.copy()
    expected[[0, 1, 2], [1, 2, 3]] = [-1.0, -2.0, -3.0]
    np.testing.assert_array_equal(out, expected)
    below = run("diagonal_scatter", x, np.array([-1.0, -2.0]), -1)
    assert below[1, 0] == -1.0 and below[2, 1] == -2.0 and x[1, 0] == 4.0  # self untouched


def test_as_strided_scatter_addresses_a_clone_laid_out_as_self() -> None:
    x = grid(3, 4).astype(np.float64)
    src = np.array([[10.0, 20.0], [30.0, 40.0]])
    out = run("as_strided_scatter", x, src, [2, 2], [1, 2], 1)
    flat = x.reshape(-1).copy()
    flat[[1, 3, 2, 4]] = [10.0, 20.0, 30.0, 40.0]  # element (i, j) at 1 + i + 2j
    np.testing.assert_array_equal(out, flat.reshape(3, 4))
    transposed = run("as_strided_scatter", x.T, src, [2, 2], [1, 2])  # the clone is column-major
    assert transposed[:, 0].tolist() == [10.0, 30.0, 20.0, 40.0]


@pytest.mark.parametrize(("reduce", "include_self", "expected"), [
    # row 0 takes source rows 0 and 1, row 2 takes source row 2, row 1 is untouched
    ("prod", True, [[0 * 1 * -6, 5 * 2 * 3], [1, 1], [7 * 4, -3 * 4]]),
    ("prod", False, [[1 * -6, 2 * 3], [1, 1], [4, 4]]),
    ("mean", True, [[-2, 3], [1, 1], [5, 0]]),  # -5/3, 10/3, 11/2, 1/2 rounded down
    ("mean", False, [[-3, 2], [1, 1], [4, 4]]),  # -5/2, 5/2
    ("amax", False, [[1, 3], [1, 1], [4, 4]]),
])
def test_index_reduce_folds_source_slices_into_the_indexed_rows(reduce: str, include_self: bool,
                                                                expected: list) -> None:
    x = np.array([[0, 5], [1, 1], [7, -3]])
    source = np.array([[1, 2], [-6, 3], [4, 4]])
    out = run("index_reduce", x, 0, np.array([0, 0, 2], np.int32), source, reduce, include_self=include_self)
    assert out.tolist() == expected and x[0].tolist() == [0, 5]


def test_index_reduce_accumulates_float16_in_float16() -> None:
    # torch's CPU loop multiplies in the tensor's dtype: each product rounds to float16
    x = np.ones(1, np.float16)
    source = np.full(3, 1.001, np.float16)  # 1.0009765625 in float16
    out = run("index_reduce", x, 0, np.zeros(3, np.int64), source, "prod")
    step = np.float16(1.001)
    assert out[0] == np.float16(np.float16(step * step) * step)


def test_index_reduce_rejects_sum() -> None:
    with pytest.raises(RuntimeError, match="prod, mean, amax or amin but got sum"):
        KERNELS["index_reduce"](np.zeros(2), 0, np.array([0]), np.ones(1), "sum", True)


def test_unsafe_masked_index_clamps_and_fills() -> None:
    """x[clamp(i, -size, size - 1)] where mask, else fill; the put adds values where mask (hand-worked)."""
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    index = np.array([0, 7, -2, -9])  # 7 clamps to 2, -2 wraps to 1, -9 clamps to -3 = 0
    mask = np.array([[True, True, True, False], [False, True, True, True]])
    out = run("_unsafe_masked_index", x, mask, [None, index], -1.0)
    np.testing.assert_array_equal(out, [[1, 3, 2, -1], [-1, 6, 5, 4]])
    put = run("_unsafe_masked_index_put_accumulate", x, mask, [None, index], np.full((2, 4), 10.0))
    np.testing.assert_array_equal(put, [[11, 12, 13], [14, 15, 16]])
    doubled = run("_unsafe_masked_index_put_accumulate", x, np.ones((2, 2), bool), [None, np.array([1, 1])],
                  np.ones((2, 2)))  # a repeated index accumulates
    np.testing.assert_array_equal(doubled, [[1, 4, 3], [4, 7, 6]])
    with pytest.raises(Exception, match="tensors used as masks must be bool tensors"):
        run("_unsafe_masked_index", x, mask.astype(np.int64), [None, index], 0.0)
