"""View, copy, join/split, dtype-cast and symbolic-scalar kernels against hand-computed results.

Every call goes through kernel_checks.run, which also checks the kernel's output shapes and
dtypes against the op's shape rule. Aliasing tests write through an op's output and assert on
the base array, as torch's views would behave.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from kernel_checks import run

import texport.dialects.op_table  # noqa: F401  (registers the schemas run() binds against)
from texport.dialects.dtypes import DType
from texport.dialects.meta import TensorMeta
from texport.dialects.shape_rules import SHAPE_RULES, STRIDE_RULES
from texport.interpreter.dtypes import from_numpy, to_numpy
from texport.interpreter.kernels import KERNELS

ALL_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_, np.float16,
              np.float32, np.float64, to_numpy(DType.bfloat16)]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8]


def grid(*shape: int, dtype: type = np.int64) -> np.ndarray:
    """0, 1, 2, ... in the given shape (mod 2 for bool)."""
    values = np.arange(int(np.prod(shape)))
    if dtype is np.bool_:
        values = values % 2
    return values.astype(dtype).reshape(shape)


def shares(a: np.ndarray, b: np.ndarray) -> bool:
    return np.shares_memory(a, b)


def raises(error: type, message: str) -> pytest.RaisesContext:
    return pytest.raises(error, match=re.escape(message))


# ---------------------------------------------------------------------------- view / reshape


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_view_infers_minus_one_and_aliases(dtype: type) -> None:
    base = grid(6, dtype=dtype)
    out = run("view", base, [2, -1])
    assert out.shape == (2, 3) and out.dtype == dtype
    np.testing.assert_array_equal(out, grid(6, dtype=dtype).reshape(2, 3))
    out[1, 2] = 0
    assert base[5] == 0


def test_view_of_a_non_contiguous_tensor_raises_torch_error() -> None:
    transposed = grid(2, 3).T
    with raises(RuntimeError, "view size is not compatible with input tensor's size and stride "
                "(at least one dimension spans across two contiguous subspaces). Use "
                ".reshape(...) instead."):
        run("view", transposed, [6])


def test_view_of_non_contiguous_tensor_that_strides_allow() -> None:
    # Splitting one dim of a transposed tensor needs no copy: torch and numpy both allow it.
    base = grid(2, 6)
    out = run("view", base.T, [2, 3, 2])
    np.testing.assert_array_equal(out, base.T.reshape(2, 3, 2))
    out[0, 0, 1] = -1
    assert base[1, 0] == -1


def test_view_bad_size_messages() -> None:
    with raises(RuntimeError, "shape '[4, -1]' is invalid for input of size 6"):
        KERNELS["view"](grid(6), [4, -1])
    with raises(RuntimeError, "only one dimension can be inferred"):
        KERNELS["view"](grid(6), [-1, -1])


@pytest.mark.parametrize("op", ["view", "reshape", "_unsafe_view"])
def test_sizes_below_minus_one_are_refused_though_numpy_would_infer_them(op: str) -> None:
    # numpy's reshape takes any negative size for the one to infer; torch only -1
    with raises(RuntimeError, "invalid shape dimension -2"):
        KERNELS[op](grid(6), [-2, 3])
    with raises(RuntimeError, "invalid shape dimension -3"):
        KERNELS[op](grid(2, 3).T, [-3, 2])
    with raises(RuntimeError, "only one dimension can be inferred"):
        KERNELS[op](grid(6), [-1, 2, -1])


def test_view_and_reshape_of_size_lists_torch_accepts() -> None:
    transposed = grid(2, 6).T  # (6, 2), strides (1, 6)
    out = run("view", transposed, [2, -1, 2])
    assert out.shape == (2, 3, 2) and shares(out, transposed)
    assert run("view", np.zeros((0, 4)), [-1, 4]).shape == (0, 4)
    assert run("reshape", np.zeros((0, 4)), [2, -1, 2]).shape == (2, 0, 2)
    assert run("view", grid(6), [np.int64(2), 3]).shape == (2, 3)
    with raises(RuntimeError, "cannot reshape tensor of 0 elements into shape [-1, 0] because the "
                "unspecified dimension size -1 can be any value and is ambiguous"):
        KERNELS["view"](np.zeros((0, 4)), [-1, 0])


def test_view_empty_and_scalar() -> None:
    assert run("view", np.zeros((0, 3)), [3, 0, 5]).shape == (3, 0, 5)
    assert run("view", np.array(7.0), [1, 1]).shape == (1, 1)
    assert run("view", np.array([7.0]), []).shape == ()


def test_reshape_views_when_possible_and_copies_otherwise() -> None:
    base = grid(2, 3)
    contiguous = run("reshape", base, [3, 2])
    assert shares(contiguous, base)
    transposed = run("reshape", base.T, [-1])
    np.testing.assert_array_equal(transposed, [0, 3, 1, 4, 2, 5])
    assert not shares(transposed, base)


@pytest.mark.parametrize("op", ["_unsafe_view", "_reshape_copy", "view_copy"])
def test_reshape_like_ops_give_right_values(op: str) -> None:
    base = grid(2, 3)
    np.testing.assert_array_equal(run(op, base.T, [3, 2]), [[0, 3], [1, 4], [2, 5]])


@pytest.mark.parametrize("op", ["_reshape_copy", "view_copy"])
def test_reshape_copies_do_not_alias(op: str) -> None:
    base = grid(6)
    out = run(op, base, [2, 3])
    assert not shares(out, base)


def test_view_as_and_reshape_as() -> None:
    base = grid(6)
    out = run("view_as", base, np.zeros((3, 2)))
    assert out.shape == (3, 2) and shares(out, base)
    np.testing.assert_array_equal(run("reshape_as", grid(2, 3).T, np.zeros(6)), [0, 3, 1, 4, 2, 5])


def test_view_dtype_reinterprets_bytes() -> None:
    floats = np.array([1.0, -2.0], dtype=np.float32)
    as_int = run("view.dtype", floats, DType.int32)
    assert as_int.dtype == np.int32 and as_int[0] == 0x3F800000
    as_int[1] = 0x40400000  # 3.0f
    assert floats[1] == 3.0
    halves = run("view.dtype", np.array([[1, 2]], dtype=np.uint8), DType.int16)
    assert halves.shape == (1, 1) and halves[0, 0] == 1 + 2 * 256
    bools = run("view.dtype", np.array([0, 1, 1], dtype=np.uint8), DType.bool)
    np.testing.assert_array_equal(bools, [False, True, True])
    bytes_ = run("view_copy.dtype", np.array([1], dtype=np.int16), DType.int8)
    assert bytes_.shape == (2,) and bytes_.tolist() == [1, 0]


def test_flatten() -> None:
    base = grid(2, 3, 4)
    assert run("flatten.using_ints", base).shape == (24,)
    middle = run("flatten.using_ints", base, 1, -1)
    assert middle.shape == (2, 12) and shares(middle, base)
    assert run("flatten.using_ints", base, -2, -2).shape == (2, 3, 4)
    assert run("flatten.using_ints", np.array(5)).shape == (1,)
    np.testing.assert_array_equal(run("flatten.using_ints", grid(2, 2).T), [0, 2, 1, 3])


def test_unflatten() -> None:
    base = grid(2, 12)
    out = run("unflatten.int", base, 1, [3, -1])
    assert out.shape == (2, 3, 4) and shares(out, base)
    assert out[1, 2, 3] == 23
    assert run("unflatten.int", base, -2, [1, 2]).shape == (1, 2, 12)


# ---------------------------------------------------------------------------- dim reordering


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_permute_values_and_aliasing(dtype: type) -> None:
    base = grid(2, 3, 4, dtype=dtype)
    out = run("permute", base, [2, 0, -2])
    assert out.shape == (4, 2, 3)
    assert out[3, 1, 2] == base[1, 2, 3]
    out[3, 1, 2] = 0
    assert base[1, 2, 3] == 0


def test_permute_refuses_what_torch_refuses() -> None:
    base = grid(2, 3)
    with raises(RuntimeError, "permute(): invalid dims [0, 0] for a 2-d tensor"):
        KERNELS["permute"](base, [0, 0])
    with raises(RuntimeError, "permute(): invalid dims [0, -2] for a 2-d tensor"):
        KERNELS["permute"](base, [0, -2])
    with raises(RuntimeError, "permute(): invalid dims [1] for a 2-d tensor"):
        KERNELS["permute"](base, [1])
    with raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"):
        KERNELS["permute"](base, [0, 2])
    scalar = np.array(1.0)
    out = run("permute", scalar, [])
    assert out.shape == () and out is not scalar and shares(out, scalar)


def test_transpose_refuses_dims_out_of_range() -> None:
    with raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"):
        KERNELS["transpose.int"](grid(2, 3), 0, 2)
    with raises(IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"):
        KERNELS["transpose.int"](np.array(1.0), 0, 1)


@pytest.mark.parametrize("op", ["transpose.int", "swapaxes", "swapdims"])
def test_transpose_family(op: str) -> None:
    base = grid(2, 3, 4)
    out = run(op, base, 0, -1)
    assert out.shape == (4, 3, 2) and out[3, 2, 1] == base[1, 2, 3]
    out[0, 0, 1] = -5
    assert base[1, 0, 0] == -5
    assert run(op, np.array(3.0), 0, -1).shape == ()


def test_t() -> None:
    base = grid(2, 3)
    out = run("t", base)
    np.testing.assert_array_equal(out, [[0, 3], [1, 4], [2, 5]])
    out[2, 1] = 9
    assert base[1, 2] == 9
    assert run("t", grid(3)).shape == (3,)
    assert run("t", np.array(1)).shape == ()


def test_movedim() -> None:
    base = grid(2, 3, 4)
    assert run("movedim.int", base, 0, -1).shape == (3, 4, 2)
    assert run("moveaxis.int", base, -1, 0).shape == (4, 2, 3)
    out = run("movedim.intlist", base, [0, 1], [2, 0])
    assert out.shape == (3, 4, 2) and out[2, 3, 1] == base[1, 2, 3] and shares(out, base)
    assert run("moveaxis.intlist", base, [2], [1]).shape == (2, 4, 3)


# ---------------------------------------------------------------------------- squeeze / unsqueeze / expand


def test_squeeze_family() -> None:
    base = grid(1, 3, 1, 2)
    assert run("squeeze", base).shape == (3, 2)
    assert run("squeeze.dim", base, -2).shape == (1, 3, 2)
    assert run("squeeze.dim", base, 1).shape == (1, 3, 1, 2)  # size 3: a no-op
    out = run("squeeze.dims", base, [0, 1, 2])
    assert out.shape == (3, 2) and shares(out, base)
    assert run("squeeze", np.array(4)).shape == ()
    assert run("squeeze.dim", np.array(4), -1).shape == ()
    assert run("squeeze", np.zeros((1, 0, 1))).shape == (0,)


def test_unsqueeze() -> None:
    base = grid(2, 3)
    assert run("unsqueeze", base, 0).shape == (1, 2, 3)
    out = run("unsqueeze", base, -1)
    assert out.shape == (2, 3, 1) and shares(out, base)
    assert run("unsqueeze", np.array(1.0), 0).shape == (1,)


def test_expand_keeps_minus_one_and_adds_leading_dims() -> None:
    base = np.array([[1], [2], [3]], dtype=np.int32)
    out = run("expand", base, [2, -1, 4])
    assert out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out[1, :, 3], [1, 2, 3])
    assert KERNELS["sym_stride.int"](out, 0) == 0 and KERNELS["sym_stride.int"](out, 2) == 0
    base[1, 0] = 7  # the expanded tensor aliases its base
    assert out[0, 1, 0] == 7


def test_expand_that_broadcasts_is_read_only_but_a_plain_alias_is_writable() -> None:
    broadcast = run("expand", np.zeros((1, 3)), [2, 3])
    with pytest.raises(ValueError):
        broadcast[0, 0] = 1.0
    base = np.zeros((2, 3))
    same = run("expand", base, [1, 2, 3])
    same[0, 1, 2] = 5.0
    assert base[1, 2] == 5.0


def test_expand_strides_and_writability_over_every_layout() -> None:
    """Stride 0 for stretched and new dims, the input's strides elsewhere; read-only exactly
    when memory repeats or the input is read-only; contiguous or not, empty or not."""
    column = grid(3, 1)
    read_only = grid(3, 1)
    read_only.flags.writeable = False
    cases = [  # input, sizes, element strides (None: any, empty), writable
        (column, [3, 1], (1, 1), True),  # the same shape: an alias
        (column, [3, 4], (1, 0), False),
        (column, [2, 3, 1], (0, 1, 1), False),  # a new dim repeats the memory
        (column, [1, 3, 1], (0, 1, 1), True),  # a new size-1 dim does not
        (grid(2, 3).T[:, :1], [3, 4], (1, 0), False),  # not contiguous
        (grid(1, 2).T, [2, 5], (1, 0), False),
        (read_only, [3, 1], (1, 1), False),
        (read_only, [1, 3, 1], (0, 1, 1), False),
        (np.zeros((0, 1)), [0, 4], None, True),  # nothing repeats in an empty tensor
    ]
    for base, sizes, strides, writable in cases:
        out = run("expand", base, sizes)
        assert out.shape == tuple(sizes)
        assert shares(out, base) or base.size == 0
        assert strides is None or [s // out.itemsize for s, n in zip(out.strides, out.shape) if n != 1] == \
            [s for s, n in zip(strides, out.shape) if n != 1], (base.shape, sizes, out.strides)
        np.testing.assert_array_equal(out, np.broadcast_to(base, sizes))
        assert out.flags.writeable == writable, (base.shape, sizes)


def test_expand_errors_and_copy() -> None:
    with raises(RuntimeError, "The expanded size of the tensor (4) must match the existing size "
                "(3) at non-singleton dimension 1"):
        KERNELS["expand"](np.zeros(3), [2, 4])
    base = np.zeros((1, 3))
    copied = run("expand_copy", base, [2, 3])
    copied[0, 0] = 1.0  # a fresh writable copy
    assert base[0, 0] == 0.0 and copied[1, 0] == 0.0


def test_expand_as() -> None:
    out = run("expand_as", np.array([1.0, 2.0]), np.zeros((3, 2)))
    np.testing.assert_array_equal(out, [[1, 2]] * 3)


# ---------------------------------------------------------------------------- slice / select / narrow


@pytest.mark.parametrize(
    "start, end, step, expected",
    [
        (None, None, 1, [0, 1, 2, 3, 4, 5]),
        (1, 4, 1, [1, 2, 3]),
        (-2, None, 1, [4, 5]),
        (None, -4, 1, [0, 1]),
        (-100, 100, 2, [0, 2, 4]),  # clamped
        (4, 2, 1, []),  # start past end: empty
        (1, 2**63 - 1, 3, [1, 4]),
        (7, None, 1, []),
    ],
)
def test_slice_bounds(start: int | None, end: int | None, step: int, expected: list[int]) -> None:
    out = run("slice.Tensor", grid(6), 0, start, end, step)
    assert out.tolist() == expected


def test_slice_aliases_and_works_on_inner_dims() -> None:
    base = grid(3, 4)
    out = run("slice.Tensor", base, -1, 1, None, 2)
    np.testing.assert_array_equal(out, [[1, 3], [5, 7], [9, 11]])
    out[...] = 0
    np.testing.assert_array_equal(base[:, 1::2], 0)
    np.testing.assert_array_equal(base[:, 0::2], [[0, 2], [4, 6], [8, 10]])


def test_slice_copy_does_not_alias() -> None:
    base = grid(4)
    out = run("slice_copy.Tensor", base, 0, 1, 3)
    assert out.tolist() == [1, 2] and not shares(out, base)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_select_negative_index_and_aliasing(dtype: type) -> None:
    base = grid(3, 4, dtype=dtype)
    row = run("select.int", base, 0, -1)
    np.testing.assert_array_equal(row, grid(3, 4, dtype=dtype)[2])
    column = run("select.int", base, 1, 2)
    column[...] = 0
    np.testing.assert_array_equal(base[:, 2], np.zeros(3, dtype))


def test_select_of_vector_is_a_0d_view() -> None:
    base = grid(3).astype(np.float32)
    out = run("select.int", base, 0, 1)
    assert isinstance(out, np.ndarray) and out.shape == ()
    out[...] = 42
    assert base[1] == 42


def test_select_out_of_range() -> None:
    # The shape rule rejects this first at trace time; the kernel's own error is torch's.
    with raises(IndexError, "index 5 is out of bounds for dimension 0 with size 3"):
        KERNELS["select.int"](grid(3), 0, 5)
    with raises(IndexError, "index -4 is out of bounds for dimension 1 with size 3"):
        KERNELS["select.int"](grid(2, 3), -1, -4)


def test_select_copy() -> None:
    base = grid(2, 2)
    out = run("select_copy.int", base, 1, 0)
    assert out.tolist() == [0, 2] and not shares(out, base)


def test_narrow() -> None:
    base = grid(2, 5)
    out = run("narrow", base, 1, -3, 2)
    np.testing.assert_array_equal(out, [[2, 3], [7, 8]])
    out[...] = -1
    assert base[1, 3] == -1
    assert not shares(run("narrow_copy", base, 0, 1, 1), base)
    with raises(RuntimeError, "exceeds dimension size"):
        KERNELS["narrow"](base, 1, 4, 2)


# ---------------------------------------------------------------------------- diagonal / as_strided / unfold


def naive_diagonal(x: np.ndarray, offset: int) -> list[float]:
    rows, cols = x.shape
    return [x[i, i + offset] for i in range(rows) if 0 <= i + offset < cols]


@pytest.mark.parametrize("offset", [0, 1, 3, 4, 9, -1, -2, -3])
def test_diagonal_offsets(offset: int) -> None:
    base = grid(3, 4)
    out = run("diagonal", base, offset)
    assert out.tolist() == naive_diagonal(base, offset)


def test_diagonal_is_a_writable_view() -> None:
    base = grid(3, 3)
    out = run("diagonal", base, 1)
    out[...] = 0
    np.testing.assert_array_equal(base, [[0, 0, 2], [3, 4, 0], [6, 7, 8]])


def test_diagonal_other_dims() -> None:
    base = grid(2, 3, 3)
    out = run("diagonal", base, 0, 1, 2)
    np.testing.assert_array_equal(out, [[0, 4, 8], [9, 13, 17]])
    swapped = run("diagonal", grid(3, 4), -1, 1, 0)  # the diagonal of x.T below its main one
    assert swapped.tolist() == [1, 6, 11]
    trailing = run("diagonal", base, 0, -1, 0)
    assert trailing.shape == (3, 2) and trailing[1, 1] == base[1, 1, 1]
    assert not shares(run("diagonal_copy", base, 0, 1, 2), base)


def test_views_of_non_contiguous_inputs_alias_the_base() -> None:
    base = grid(3, 4)
    transposed = base.T  # (4, 3), strides (1, 4)
    diagonal = run("diagonal", transposed, -1)
    assert diagonal.tolist() == [1, 6, 11]
    diagonal[...] = -1
    assert base[0, 1] == base[1, 2] == base[2, 3] == -1
    column = run("select.int", transposed, 1, 2)
    assert column.tolist() == [8, 9, 10, -1]
    pieces = run("chunk", transposed, 2, 0)
    pieces[1][0, 0] = 100
    assert base[0, 2] == 100
    assert run("sym_storage_offset", pieces[1]) == 2


def test_as_strided_on_a_base() -> None:
    base = grid(10)
    out = run("as_strided", base, [3, 2], [3, 1], 1)
    np.testing.assert_array_equal(out, [[1, 2], [4, 5], [7, 8]])
    out[2, 1] = -1
    assert base[8] == -1


def test_as_strided_strides_are_relative_to_the_storage() -> None:
    base = grid(4, 4)
    column = base[:, 1]  # storage offset 1, stride 4
    default = run("as_strided", column, [2, 2], [1, 4])  # keeps the view's storage offset
    np.testing.assert_array_equal(default, [[1, 5], [2, 6]])
    explicit = run("as_strided", column, [3], [5], 0)
    np.testing.assert_array_equal(explicit, [0, 5, 10])
    explicit[1] = 100
    assert base[1, 1] == 100
    copied = run("as_strided_copy", column, [2], [1], 14)
    assert copied.tolist() == [14, 15] and not shares(copied, base)


def test_as_strided_out_of_bounds() -> None:
    with raises(RuntimeError, "out of bounds for storage of size 48"):
        KERNELS["as_strided"](grid(6), [3], [3], 0)


def test_unfold() -> None:
    base = grid(2, 5)
    out = run("unfold", base, 1, 2, 2)
    np.testing.assert_array_equal(out, [[[0, 1], [2, 3]], [[5, 6], [7, 8]]])
    out[1, 1, 0] = -1
    assert base[1, 2] == -1
    assert run("unfold", np.array(3), 0, 1, 1).tolist() == [3]
    assert not shares(run("unfold_copy", base, 0, 2, 1), base)


# ---------------------------------------------------------------------------- splitting


def test_split_tensor_pieces_alias() -> None:
    base = grid(5, 2)
    pieces = run("split.Tensor", base, 2)
    assert [p.shape[0] for p in pieces] == [2, 2, 1]
    pieces[2][0, 1] = -1
    assert base[4, 1] == -1
    assert [p.shape for p in run("split.Tensor", base, 3, -1)] == [(5, 2)]
    assert [p.shape for p in run("split.Tensor", np.zeros((0, 2)), 2)] == [(0, 2)]
    assert [p.shape for p in run("split.Tensor", np.zeros((0,)), 0)] == [(0,)]


@pytest.mark.parametrize("op", ["split.sizes", "split_with_sizes", "unsafe_split_with_sizes"])
def test_split_with_sizes(op: str) -> None:
    base = grid(2, 6)
    pieces = run(op, base, [1, 0, 5], 1)
    assert [p.tolist() for p in pieces] == [[[0], [6]], [[], []], [[1, 2, 3, 4, 5],
                                                                    [7, 8, 9, 10, 11]]]
    pieces[0][...] = -1
    assert base[1, 0] == -1


def test_split_copies() -> None:
    base = grid(4)
    for pieces in (run("split_with_sizes_copy", base, [1, 3]), run("split_copy.Tensor", base, 2),
                   run("unbind_copy.int", base)):
        assert not any(shares(p, base) for p in pieces)
    assert [p.tolist() for p in run("split_copy.Tensor", base, 3)] == [[0, 1, 2], [3]]


@pytest.mark.parametrize("op", ["chunk", "unsafe_chunk"])
@pytest.mark.parametrize(
    "size, chunks, expected", [(5, 4, [2, 2, 1]), (6, 3, [2, 2, 2]), (2, 5, [1, 1]), (0, 3, [0])]
)
def test_chunk_sizes(op: str, size: int, chunks: int, expected: list[int]) -> None:
    assert [p.shape[0] for p in run(op, grid(size), chunks)] == expected


def test_unbind_and_unsafe_split() -> None:
    base = grid(2, 3)
    rows = run("unbind.int", base, -1)
    assert [r.tolist() for r in rows] == [[0, 3], [1, 4], [2, 5]]
    rows[1][0] = 10
    assert base[0, 1] == 10
    assert [p.tolist() for p in run("unsafe_split.Tensor", grid(3), 2)] == [[0, 1], [2]]


def test_tensor_split() -> None:
    sections = run("tensor_split.sections", grid(7), 3)
    assert [p.tolist() for p in sections] == [[0, 1, 2], [3, 4], [5, 6]]
    indices = run("tensor_split.indices", grid(2, 5), [1, 4, 9], 1)
    assert [p.shape for p in indices] == [(2, 1), (2, 3), (2, 1), (2, 0)]
    back = run("tensor_split.indices", grid(5), [-2, 1])
    assert [p.tolist() for p in back] == [[0, 1, 2], [], [1, 2, 3, 4]]


# ---------------------------------------------------------------------------- alias, clone, contiguous


@pytest.mark.parametrize("op", ["alias", "detach", "lift_fresh"])
def test_aliases(op: str) -> None:
    base = grid(3)
    out = run(op, base)
    out[0] = 7
    assert base[0] == 7


@pytest.mark.parametrize("op", ["alias_copy", "detach_copy", "lift_fresh_copy", "clone"])
def test_copies(op: str) -> None:
    base = grid(3)
    out = run(op, base)
    np.testing.assert_array_equal(out, [0, 1, 2])
    out[0] = 7
    assert base[0] == 0


def test_clone_preserves_a_dense_layout() -> None:
    transposed = grid(2, 3).T
    out = run("clone", transposed)
    assert KERNELS["sym_stride.int"](out, 0) == 1 and KERNELS["sym_stride.int"](out, 1) == 3
    contiguous = run("clone", transposed, memory_format=0)
    assert contiguous.flags.c_contiguous
    np.testing.assert_array_equal(contiguous, transposed)


def test_clone_of_an_overlapping_tensor_is_contiguous() -> None:
    expanded = KERNELS["expand"](np.array([[1.0], [2.0]]), [2, 3])
    out = run("clone", expanded)
    assert out.flags.c_contiguous and out.flags.writeable
    np.testing.assert_array_equal(out, [[1, 1, 1], [2, 2, 2]])


def test_contiguous() -> None:
    base = grid(2, 3)
    assert run("contiguous", base) is base
    out = run("contiguous", base.T)
    assert out.flags.c_contiguous and not shares(out, base)
    np.testing.assert_array_equal(out, base.T)


def test_contiguous_channels_last() -> None:
    nchw = grid(1, 2, 2, 3).astype(np.float32)
    out = run("contiguous", nchw, memory_format=2)
    np.testing.assert_array_equal(out, nchw)
    assert KERNELS["sym_is_contiguous"](out, 2) and not KERNELS["sym_is_contiguous"](out, 0)
    assert [KERNELS["sym_stride.int"](out, d) for d in range(4)] == [12, 1, 6, 2]


# ---------------------------------------------------------------------------- dtype changes


def test_to_copy_casts_like_torch() -> None:
    floats = np.array([-1.7, -0.2, 0.0, 2.9], dtype=np.float32)
    assert run("_to_copy", floats, dtype=DType.int64).tolist() == [-1, 0, 0, 2]
    assert run("_to_copy", floats, dtype=DType.bool).tolist() == [True, True, False, True]
    as_float = run("_to_copy", np.array([True, False]), dtype=DType.float64)
    assert as_float.dtype == np.float64 and as_float.tolist() == [1.0, 0.0]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_to_copy_always_copies(dtype: type) -> None:
    base = grid(3, dtype=dtype)
    out = run("_to_copy", base)
    assert out.dtype == dtype and not shares(out, base)


def test_to_returns_self_unless_something_changes() -> None:
    base = grid(3).astype(np.float32)
    assert run("to.dtype", base, DType.float32) is base
    copied = run("to.dtype", base, DType.float32, copy=True)
    assert copied is not base and not shares(copied, base)
    assert run("to.dtype", base, DType.int8).dtype == np.int8
    assert run("to.dtype_layout", base, dtype=DType.float64).dtype == np.float64
    assert run("to.dtype_layout", base) is base
    assert run("to.device", base, "cpu", DType.int32).dtype == np.int32
    assert run("to.other", base, np.zeros(1, np.int16)).dtype == np.int16
    assert run("type_as", base, np.zeros(1, np.float32)) is base
    assert run("type_as", base, np.zeros(1, np.uint8)).tolist() == [0, 1, 2]


# ---------------------------------------------------------------------------- rearranging copies


def test_flip() -> None:
    base = grid(2, 3)
    out = run("flip", base, [0, -1])
    np.testing.assert_array_equal(out, [[5, 4, 3], [2, 1, 0]])
    assert not shares(out, base)
    assert run("flip", base, []).tolist() == base.tolist()
    assert run("flip", np.array(2), [0]).tolist() == 2


def test_roll() -> None:
    base = grid(2, 3)
    np.testing.assert_array_equal(run("roll", base, [1]), [[5, 0, 1], [2, 3, 4]])
    np.testing.assert_array_equal(run("roll", base, [1, -1], [0, 1]), [[4, 5, 3], [1, 2, 0]])
    np.testing.assert_array_equal(run("roll", base, [4], [-1]), [[2, 0, 1], [5, 3, 4]])


def test_repeat() -> None:
    out = run("repeat", np.array([[1, 2]], dtype=np.uint8), [2, 1, 2])
    assert out.shape == (2, 1, 4) and out.dtype == np.uint8
    np.testing.assert_array_equal(out[1, 0], [1, 2, 1, 2])
    assert run("repeat", grid(2), [0]).shape == (0,)
    assert run("repeat", np.array(3), []).tolist() == 3


def test_repeat_interleave() -> None:
    base = np.array([[1, 2], [3, 4]])
    assert run("repeat_interleave.self_int", base, 2).tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    np.testing.assert_array_equal(run("repeat_interleave.self_int", base, 2, 1),
                                  [[1, 1, 2, 2], [3, 3, 4, 4]])
    counts = np.array([1, 2])
    by_tensor = run("repeat_interleave.self_Tensor", base, counts, 0, output_size=3)
    np.testing.assert_array_equal(by_tensor, [[1, 2], [3, 4], [3, 4]])
    assert run("repeat_interleave.Tensor", np.array([2, 0, 1]), output_size=3).tolist() == [0, 0, 2]
    assert run("repeat_interleave.self_int", np.array(5), 3, 0).tolist() == [5, 5, 5]


def test_repeat_interleave_tensor_dtype_follows_repeats() -> None:
    out = run("repeat_interleave.Tensor", np.array([1, 2], dtype=np.int32), output_size=3)
    assert out.dtype == np.int32 and out.tolist() == [0, 1, 1]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_tril_triu(dtype: type) -> None:
    base = np.ones((2, 3, 4), dtype=dtype)
    lower = run("tril", base, -1)
    upper = run("triu", base, 1)
    i, j = np.indices((3, 4))
    np.testing.assert_array_equal(lower[1], (j - i <= -1).astype(dtype))
    np.testing.assert_array_equal(upper[0], (j - i >= 1).astype(dtype))
    assert lower.dtype == dtype and base.all()


def test_tril_triu_in_place() -> None:
    base = np.ones((3, 3), dtype=np.int32)
    assert run("tril_", base) is base
    np.testing.assert_array_equal(base, [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    other = np.ones((2, 3))
    run("triu_", other, 2)
    np.testing.assert_array_equal(other, [[0, 0, 1], [0, 0, 0]])


def test_rot90() -> None:
    base = np.array([[1, 2], [3, 4]])
    np.testing.assert_array_equal(run("rot90", base), [[2, 4], [1, 3]])
    np.testing.assert_array_equal(run("rot90", base, 2), [[4, 3], [2, 1]])
    np.testing.assert_array_equal(run("rot90", base, -1), [[3, 1], [4, 2]])
    np.testing.assert_array_equal(run("rot90", base, 1, [1, 0]), [[3, 1], [4, 2]])
    tall = run("rot90", grid(2, 3), 1)
    assert tall.shape == (3, 2) and not shares(tall, base)


# ---------------------------------------------------------------------------- joining


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (np.int32, np.float32, np.float32),
        (np.bool_, np.int64, np.int64),
        (np.uint8, np.int8, np.int16),
        (np.float16, np.float64, np.float64),
        (np.int16, np.int16, np.int16),
    ],
)
def test_cat_promotes(a: type, b: type, expected: type) -> None:
    out = run("cat", [np.ones((1, 2), a), np.zeros((2, 2), b)])
    assert out.dtype == expected and out.tolist() == [[1, 1], [0, 0], [0, 0]]


def test_cat_skips_legacy_empty_tensors_and_wraps_dim() -> None:
    out = run("cat", [grid(2, 1), np.zeros((0,), np.int64), grid(2, 2)], -1)
    np.testing.assert_array_equal(out, [[0, 0, 1], [1, 2, 3]])
    assert run("cat", [np.zeros((0,)), np.zeros((0,))]).shape == (0,)
    assert run("cat", [np.zeros((2, 0)), np.zeros((3, 0))]).shape == (5, 0)


def test_stack() -> None:
    out = run("stack", [grid(2), grid(2) + 5], 1)
    np.testing.assert_array_equal(out, [[0, 5], [1, 6]])
    assert run("stack", [np.array(1, np.int8), np.array(2.0, np.float32)]).dtype == np.float32
    assert run("stack", [grid(2, 3)], -1).shape == (2, 3, 1)


# ---------------------------------------------------------------------------- functional copies


@pytest.mark.parametrize(
    "op, args",
    [
        ("view_copy", ([6],)), ("expand_copy", ([2, 2, 3],)), ("permute_copy", ([1, 0],)),
        ("unsqueeze_copy", (0,)), ("squeeze_copy", ()), ("squeeze_copy.dim", (0,)),
        ("squeeze_copy.dims", ([0, 1],)), ("t_copy", ()), ("transpose_copy.int", (0, 1)),
        ("alias_copy", ()), ("detach_copy", ()), ("diagonal_copy", ()),
        ("narrow_copy", (1, 0, 2)), ("as_strided_copy", ([2], [1])),
        ("select_copy.int", (0, 1)), ("slice_copy.Tensor", (1, 1)),
    ],
)
def test_copy_variants_never_alias(op: str, args: tuple) -> None:
    base = grid(2, 3)
    out = run(op, base, *args)
    assert not shares(out, base) and out.flags.writeable


# ---------------------------------------------------------------------------- in-place metadata


def test_t_and_transpose_in_place_keep_the_object() -> None:
    base = grid(2, 3)
    assert run("t_", base) is base
    np.testing.assert_array_equal(base, [[0, 3], [1, 4], [2, 5]])
    cube = grid(2, 3, 4)
    expected = np.swapaxes(cube, 0, 2).copy()
    assert run("transpose_", cube, 0, -1) is cube
    np.testing.assert_array_equal(cube, expected)


@pytest.mark.parametrize("op", ["swapaxes_", "swapdims_"])
def test_swap_in_place(op: str) -> None:
    base = grid(2, 3)
    assert run(op, base, 1, 0) is base
    np.testing.assert_array_equal(base, [[0, 3], [1, 4], [2, 5]])


def test_transpose_in_place_of_a_size_one_dim_keeps_aliasing() -> None:
    base = grid(2, 3)
    row = base[:1]  # (1, 3): moving the size-1 dim needs no data movement
    assert run("transpose_", row, 0, 1) is row and row.shape == (3, 1)
    row[2, 0] = -1
    assert base[0, 2] == -1


def test_transpose_in_place_of_a_non_contiguous_view_is_unsupported() -> None:
    column_pair = grid(3, 4)[:, :2]
    with pytest.raises(NotImplementedError):
        KERNELS["transpose_"](column_pair, 0, 1)


def test_squeeze_unsqueeze_in_place_keep_aliasing() -> None:
    base = grid(1, 3, 1)
    view = base[:, :, :]
    assert run("squeeze_", view) is view and view.shape == (3,)
    assert run("unsqueeze_", view, -1) is view and view.shape == (3, 1)
    assert run("squeeze_.dim", view, 1) is view and view.shape == (3,)
    view[0] = 9
    assert base[0, 0, 0] == 9
    strided = grid(4, 1)[::2]  # non-contiguous: numpy still drops size-1 dims in place
    assert run("squeeze_.dims", strided, [1, 0]).shape == (2,)
    assert strided.tolist() == [0, 2]


def test_detach_in_place() -> None:
    base = grid(2)
    assert run("detach_", base) is base


def test_as_strided_in_place() -> None:
    base = grid(6)
    assert run("as_strided_", base, [2, 3], [3, 1]) is base
    assert base.shape == (2, 3) and base[1, 0] == 3
    other = grid(4)
    run("as_strided_", other, [2, 2], [1, 2])  # a real re-stride: rewritten in place
    np.testing.assert_array_equal(other, [[0, 2], [1, 3]])
    storage = grid(12)
    fewer = run("as_strided_", storage, [2, 2], [1, 2], 1)  # another count: a new view of the storage
    assert fewer.tolist() == [[1, 3], [2, 4]] and shares(fewer, storage)


def test_eager_in_place_views_rebind_self() -> None:
    # torch: t.as_strided_/resize_ change t itself, to any element count
    t = texport.arange(12.0)
    assert t.as_strided_([2, 2], [1, 2], 1) is t
    assert t.tolist() == [[1.0, 3.0], [2.0, 4.0]] and t.storage_offset() == 1
    u = texport.ones(2)
    assert u.resize_(3, 2) is u and tuple(u.shape) == (3, 2)


def test_resize_in_place() -> None:
    base = grid(6)
    assert run("resize_", base, [3, 2]) is base and base[2, 1] == 5
    storage = grid(6)
    smaller = run("resize_", storage, [2, 2])  # fits: a view of the same storage
    assert smaller.tolist() == [[0, 1], [2, 3]] and shares(smaller, storage)
    larger = run("resize_", grid(2), [2, 2])
    assert larger.tolist() == [[0, 1], [0, 0]]


# ---------------------------------------------------------------------------- symbolic scalars


def test_sym_size_numel_stride() -> None:
    base = grid(2, 3, 4)
    assert run("sym_size.int", base, -1) == 4
    assert run("sym_numel", base) == 24 and run("sym_numel", np.zeros((0, 5))) == 0
    assert [run("sym_stride.int", base, d) for d in range(3)] == [12, 4, 1]
    transposed = base.transpose(2, 0, 1)
    assert [run("sym_stride.int", transposed, d) for d in (0, -1)] == [1, 4]
    assert type(run("sym_size.int", base, 0)) is int


def test_sym_storage_offset_follows_views() -> None:
    base = grid(4, 5)
    assert run("sym_storage_offset", base) == 0
    sliced = KERNELS["slice.Tensor"](base, 1, 2, None, 1)
    assert run("sym_storage_offset", sliced) == 2
    row = KERNELS["select.int"](sliced, 0, 3)
    assert run("sym_storage_offset", row) == 17
    expanded = KERNELS["expand"](base[2:3], [3, 5])
    assert run("sym_storage_offset", expanded) == 10
    assert run("sym_storage_offset", KERNELS["diagonal"](base, 1)) == 1


def test_sym_stride_rule_agrees_with_torch_on_a_transposed_view() -> None:
    # the tracer gives a view the strides its stride rule derives from its input's
    base = grid(2, 3)
    transposed = KERNELS["t"](base)
    meta = TensorMeta(transposed.shape, from_numpy(transposed.dtype))
    strided = TensorMeta(meta.shape, meta.dtype, STRIDE_RULES["t"](meta, TensorMeta((2, 3), meta.dtype)))
    assert run("sym_stride.int", transposed, 0) == 1  # torch: x.t().stride(0) == 1
    assert SHAPE_RULES["sym_stride.int"](strided, 0).value == 1
    assert [SHAPE_RULES["sym_stride.int"](strided, d).value for d in (0, 1)] == [1, 3]
    assert SHAPE_RULES["sym_is_contiguous"](strided).value is False


def test_sym_is_contiguous() -> None:
    base = grid(2, 3)
    assert run("sym_is_contiguous", base) is True
    assert run("sym_is_contiguous", base.T) is False
    assert run("sym_is_contiguous", grid(3, 1)[:, :]) is True


@pytest.mark.parametrize(
    "value, kind", [(np.array(3, np.int8), int), (np.array([2.5], np.float32), float),
                    (np.array([[True]]), bool), (np.array(7, np.uint8), int)]
)
@pytest.mark.parametrize("op", ["item", "_local_scalar_dense"])
def test_item_returns_python_scalars(op: str, value: np.ndarray, kind: type) -> None:
    out = run(op, value)
    assert type(out) is kind and out == value.reshape(()).item()


def test_item_of_many_elements() -> None:
    with raises(RuntimeError, "a Tensor with 2 elements cannot be converted to Scalar"):
        KERNELS["item"](np.zeros(2))


def test_runtime_asserts() -> None:
    assert run("_assert_scalar", True, "never") == ()
    with raises(RuntimeError, "Runtime assertion failed for expression u0 >= 0 on node 'ge'"):
        run("_assert_scalar", False, "Runtime assertion failed for expression u0 >= 0 on node 'ge'")
    assert run("_assert_async", np.array(3)) == ()
    with raises(RuntimeError, "Expected Tensor with single nonzero value, but got zero"):
        run("_assert_async", np.array(0.0))
    with raises(RuntimeError, "custom message"):
        run("_assert_async.msg", np.array([False]), "custom message")
    assert run("_assert_async.msg", np.array([True]), "custom message") == ()


def test_constrain_range() -> None:
    assert run("sym_constrain_range", 5, min=2, max=10) == ()
    assert run("sym_constrain_range", -5) == ()
    with raises(RuntimeError, "Invalid value 11 for range [2:10]"):
        run("sym_constrain_range", 11, min=2, max=10)
    assert run("sym_constrain_range_for_size", 0) == ()
    with raises(RuntimeError, "Invalid value -1 for range [0:int_oo]"):
        run("sym_constrain_range_for_size", -1)


# ---------------------------------------------------------------------------- every dtype through views


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.bool_])
def test_split_cat_round_trip_every_integer_dtype(dtype: type) -> None:
    base = grid(3, 4, dtype=dtype)
    pieces = run("split.Tensor", base, 3, 1)
    back = run("cat", pieces, 1)
    assert back.dtype == dtype
    np.testing.assert_array_equal(back, base)


def test_block_diag_places_each_matrix_on_the_diagonal() -> None:
    a, row, b = np.array([[1, 2], [3, 4]]), np.array([5.0, 6.0, 7.0], np.float32), np.array(8)
    out = run("block_diag", [a, row, b])
    assert out.dtype == np.float32  # promoted
    np.testing.assert_array_equal(out, [[1, 2, 0, 0, 0, 0],
                                        [3, 4, 0, 0, 0, 0],
                                        [0, 0, 5, 6, 7, 0],
                                        [0, 0, 0, 0, 0, 8]])
    with pytest.raises(RuntimeError, match="2 or fewer dimensions"):
        KERNELS["block_diag"]([np.zeros((1, 1, 1))])


def test_diag_embed_puts_the_last_dim_on_a_diagonal() -> None:
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(run("diag_embed", x), [np.diag([1.0, 2.0]), np.diag([3.0, 4.0])])
    above = run("diag_embed", x, 1)
    assert above.shape == (2, 3, 3)
    np.testing.assert_array_equal(above[1], np.diag([3.0, 4.0], 1))
    swapped = run("diag_embed", x, -1, 2, 0)  # planes (dim2=0, dim1=2): below the diagonal of [:, b, :]
    assert swapped.shape == (3, 2, 3)
    np.testing.assert_array_equal(swapped[:, 0, :], np.diag([1.0, 2.0], 1))


def test_chunk_cat_pads_each_tensor_to_whole_chunks() -> None:
    """_chunk_cat([a, b], 1, 3): a (2, 5) padded to (2, 6) gives rows of 2, b (2, 3) rows of 1; row
    k of the result is chunk k of each tensor, side by side (hand-worked)."""
    a = np.arange(10.0).reshape(2, 5)
    b = 100 + np.arange(6.0).reshape(2, 3)
    out = run("_chunk_cat", [a, b], 1, 3)
    assert out.shape == (2, 3, 3)
    np.testing.assert_array_equal(out[0], [[0, 1, 100], [2, 3, 101], [4, 0, 102]])
    np.testing.assert_array_equal(out[1], [[5, 6, 103], [7, 8, 104], [9, 0, 105]])
    trailing = run("_chunk_cat", [np.ones((3, 2))], 0, 2)  # a chunk's trailing dims flatten into its row
    np.testing.assert_array_equal(trailing, [[1, 1, 1, 1], [1, 1, 0, 0]])


def test_unfold_backward_sums_overlapping_windows() -> None:
    """Windows of 3 every 2 over 7 positions read 0-2, 2-4, 4-6: positions 2 and 4 get two
    windows' gradients (hand-worked)."""
    grad = np.arange(1.0, 10.0).reshape(3, 3)  # window w, offset k
    out = run("unfold_backward", grad, [7], 0, 3, 2)
    np.testing.assert_array_equal(out, [1, 2, 3 + 4, 5, 6 + 7, 8, 9])
    apart = run("unfold_backward", np.ones((2, 2, 2)), [2, 7], 1, 2, 3)  # windows 0-1, 3-4; 2, 5, 6 unread
    np.testing.assert_array_equal(apart, [[1, 1, 0, 1, 1, 0, 0]] * 2)


def test_resize_as_takes_the_templates_sizes() -> None:
    base = np.arange(6.0).reshape(3, 2)
    assert run("resize_as_", base, np.zeros((2, 3))) is base and base.shape == (2, 3)  # same count: reshaped
    np.testing.assert_array_equal(base, [[0, 1, 2], [3, 4, 5]])
    smaller = run("resize_as_", np.arange(4.0), np.zeros((1, 2)))  # fewer: the storage's first elements
    np.testing.assert_array_equal(smaller, [[0, 1]])
