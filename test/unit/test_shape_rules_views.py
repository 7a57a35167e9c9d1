"""Shape rules of views, joins, splits and dtype conversions: hand-computed expectations."""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from shape_rule_checks import HintOracle
from shape_rule_checks import raises as fails

import texport.dialects.op_table  # noqa: F401  (registers the schemas infer() binds against)
from texport.dialects.dtypes import DType
from texport.dialects.meta import TensorMeta
from texport.dialects.registry import OPS
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.shape_rules.guards import using_oracle
from texport.dialects.shape_rules.infer import infer
from texport.dialects.symbolic import FloorDiv, symbol

f32, f64, i64, i32, i16, u8, b8 = (
    DType.float32, DType.float64, DType.int64, DType.int32, DType.int16, DType.uint8, DType.bool
)
s0, s1 = symbol("s0"), symbol("s1")


def T(*shape: Any, dtype: DType = f32) -> TensorMeta:
    return TensorMeta(tuple(shape), dtype)


def run(op: str, *args: Any, **kwargs: Any) -> Any:
    """Bind by schema when the op is registered; otherwise call the rule positionally."""
    if op in OPS:
        return infer(op, *args, **kwargs)
    return SHAPE_RULES[op](*args, **kwargs)


# ---------------------------------------------------------------------------- view / reshape


@pytest.mark.parametrize("op", ["view", "_unsafe_view", "reshape", "view_copy", "_reshape_copy"])
def test_view_infers_minus_one(op: str) -> None:
    assert run(op, T(3, 4), [2, -1]) == T(2, 6)
    assert run(op, T(2, 3, 4), [-1]) == T(24)


def test_view_symbolic() -> None:
    assert run("view", T(s0, 6), [-1, 3]) == T(2 * s0, 3)
    assert run("view", T(s0, 3), [3, s0]) == T(3, s0)
    assert run("view", T(s0, 3), [s0, -1]) == T(s0, 3)  # exact: 3*s0 / s0, no FloorDiv
    assert run("view", T(s0, s1, 2), [-1, s1]) == T(2 * s0, s1)
    halves = run("view", T(s0), [-1, 2])
    assert halves == T(FloorDiv(s0, 2), 2)
    assert isinstance(halves.shape[0], FloorDiv)


def test_view_to_scalar_shape() -> None:
    assert run("view", T(1, 1), []) == T()
    with fails("shape '[]' is invalid for input of size 2"):
        run("view", T(2), [])


def test_view_errors() -> None:
    with fails("shape '[3, 5]' is invalid for input of size 12"):
        run("view", T(3, 4), [3, 5])
    with fails("shape '[5, -1]' is invalid for input of size 12"):
        run("view", T(3, 4), [5, -1])
    with fails("only one dimension can be inferred"):
        run("view", T(3, 4), [-1, -1])
    with fails("invalid shape dimension -2"):
        run("view", T(3, 4), [-2, 6])
    with fails("cannot reshape tensor of 0 elements into shape [0, -1]"):
        run("view", T(0, 4), [0, -1])


def test_view_divisibility_is_guarded_on_the_hint() -> None:
    even = HintOracle(s0=8)
    with using_oracle(even):
        assert run("view", T(s0), [-1, 2]) == T(FloorDiv(s0, 2), 2)
    assert sympy.Eq(2 * FloorDiv(s0, 2), s0) in even.asked
    with using_oracle(HintOracle(s0=7)), fails("shape '[-1, 2]' is invalid for input of size s0"):
        run("view", T(s0), [-1, 2])


def test_view_as_and_reshape_as() -> None:
    assert run("view_as", T(2, 6), T(3, 4, dtype=i64)) == T(3, 4)
    assert run("reshape_as", T(s0, 2), T(2, s0)) == T(2, s0)


def test_view_dtype() -> None:
    assert run("view.dtype", T(2, 3), i32) == T(2, 3, dtype=i32)
    assert run("view.dtype", T(2, 3), i16) == T(2, 6, dtype=i16)
    assert run("view.dtype", T(2, 8, dtype=u8), f32) == T(2, 2)
    with fails("self.size(-1) must be divisible by 4 to view Byte as Int (different element "
               "sizes), but got 3"):
        run("view.dtype", T(2, 3, dtype=u8), i32)
    with fails("self.dim() cannot be 0 to view Float as Double"):
        run("view.dtype", T(), f64)


def test_flatten_and_unflatten() -> None:
    assert run("flatten.using_ints", T(2, 3, 4, 5), 1, 2) == T(2, 12, 5)
    assert run("flatten.using_ints", T(s0, 3, 4)) == T(12 * s0)
    assert run("flatten.using_ints", T()) == T(1)
    with fails("flatten() has invalid args: start_dim cannot come after end_dim"):
        run("flatten.using_ints", T(2, 3, 4), 2, 1)
    assert run("unflatten.int", T(2, 12), 1, [3, -1]) == T(2, 3, 4)
    assert run("unflatten.int", T(2, 4 * s0), -1, [4, -1]) == T(2, 4, s0)
    with fails("unflatten: Provided sizes [5, 2] don't multiply up to the size of dim 1 (12)"):
        run("unflatten.int", T(2, 12), 1, [5, 2])


# ---------------------------------------------------------------------------- reordering


def test_permute() -> None:
    assert run("permute", T(2, s0, 4), [2, 0, 1]) == T(4, 2, s0)
    assert run("permute_copy", T(2, 3), [-1, 0]) == T(3, 2)
    with fails("input.dim() = 2 is not equal to len(dims) = 3"):
        run("permute", T(2, 3), [0, 1, 2])
    with fails("permute(): duplicate dims are not allowed."):
        run("permute", T(2, 3), [0, 0])


@pytest.mark.parametrize("op", ["transpose.int", "transpose_copy.int", "transpose_", "swapaxes",
                                "swapdims", "swapaxes_", "swapdims_"])
def test_transpose_family(op: str) -> None:
    assert run(op, T(s0, 3, 4), 0, -1) == T(4, 3, s0)


def test_transpose_out_of_range() -> None:
    with fails("dim out of range (expected to be in range of [-2, 1], but got 2)"):
        run("transpose.int", T(2, 3), 0, 2)


@pytest.mark.parametrize("op", ["t", "t_copy", "t_"])
def test_t(op: str) -> None:
    assert run(op, T(s0, 3)) == T(3, s0)
    assert run(op, T(5)) == T(5)
    with fails("t() expects a tensor with <= 2 dimensions, but self is 3D"):
        run(op, T(1, 2, 3))


def test_movedim() -> None:
    assert run("movedim.int", T(2, 3, 4), 0, -1) == T(3, 4, 2)
    assert run("moveaxis.int", T(2, 3, 4), 2, 0) == T(4, 2, 3)
    assert run("movedim.intlist", T(2, 3, 4, 5), [0, 1], [3, 2]) == T(4, 5, 3, 2)
    with fails("movedim: Invalid source or destination dims"):
        run("movedim.intlist", T(2, 3), [0, 1], [0])
    with fails("movedim: repeated dim in `destination` ([1, 1])"):
        run("movedim.intlist", T(2, 3), [0, 1], [1, 1])


def test_rot90() -> None:
    assert run("rot90", T(2, 3, 4)) == T(3, 2, 4)
    assert run("rot90", T(2, 3, 4), 2) == T(2, 3, 4)
    assert run("rot90", T(2, 3, 4), -1, [1, 2]) == T(2, 4, 3)
    with fails("expected total rotation dims == 2, but got dims = 3"):
        run("rot90", T(2, 3, 4), 1, [0, 1, 2])
    with fails("expected total dims >= 2, but got total dims = 1"):
        run("rot90", T(3))


# ---------------------------------------------------------------------------- size-1 dims, expand


@pytest.mark.parametrize("op", ["squeeze", "squeeze_copy", "squeeze_"])
def test_squeeze_all(op: str) -> None:
    assert run(op, T(1, s0, 1, 3)) == T(s0, 3)


def test_squeeze_dim_and_dims() -> None:
    assert run("squeeze.dim", T(2, 1, 3), 1) == T(2, 3)
    assert run("squeeze.dim", T(2, 1, 3), 0) == T(2, 1, 3)  # not size 1: a no-op
    assert run("squeeze_copy.dims", T(1, 3, 1), [0, 1, -1]) == T(3)
    assert run("squeeze_.dims", T(1, 3, 1), [0]) == T(3, 1)
    assert run("squeeze.dim", T(), 0) == T()
    with fails("dim out of range"):
        run("squeeze.dim", T(2, 1), 2)


def test_squeeze_symbolic_dim_is_decided_by_the_oracle() -> None:
    assert run("squeeze.dim", T(s0, 3), 0) == T(s0, 3)  # size-oblivious: s0 != 1
    with using_oracle(HintOracle(s0=1)):
        assert run("squeeze.dim", T(s0, 3), 0) == T(3)


@pytest.mark.parametrize("op", ["unsqueeze", "unsqueeze_copy", "unsqueeze_"])
def test_unsqueeze(op: str) -> None:
    assert run(op, T(2, 3), 0) == T(1, 2, 3)
    assert run(op, T(2, 3), -1) == T(2, 3, 1)
    assert run(op, T(), 0) == T(1)
    with fails("dim out of range (expected to be in range of [-3, 2], but got 3)"):
        run(op, T(2, 3), 3)


def test_expand() -> None:
    assert run("expand", T(3, 1), [2, -1, s0]) == T(2, 3, s0)
    assert run("expand_copy", T(s0, 1), [s0, 4]) == T(s0, 4)
    assert run("expand_as", T(1, 3), T(5, 3, dtype=i64)) == T(5, 3)
    with fails("The expanded size of the tensor (4) must match the existing size (3) at "
               "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]"):
        run("expand", T(3), [2, 4])
    with fails("The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
               "dimension 0"):
        run("expand", T(3), [-1, 3])
    with fails("the number of sizes provided (1) must be greater or equal to the number of "
               "dimensions in the tensor (2)"):
        run("expand", T(2, 3), [3])


# ---------------------------------------------------------------------------- cat / stack


def test_cat() -> None:
    assert run("cat", [T(s0, 3), T(s0, 5)], 1) == T(s0, 8)
    assert run("cat", [T(2, 3), T(s0, 3)]) == T(s0 + 2, 3)
    assert run("cat", [T(2, 3, dtype=i64), T(4, 3)]) == T(6, 3)  # int64 + float32 -> float32


def test_cat_skips_empty_1d_tensors() -> None:
    assert run("cat", [T(0, dtype=f64), T(2, 3), T(4, 3)]) == T(6, 3, dtype=f64)
    assert run("cat", [T(0), T(0)]) == T(0)


def test_cat_errors() -> None:
    with fails("Sizes of tensors must match except in dimension 1. Expected size 3 but got size "
               "4 for tensor number 1 in the list."):
        run("cat", [T(3, 2), T(4, 2)], 1)
    with fails("Tensors must have same number of dimensions: got 2 and 3"):
        run("cat", [T(3, 2), T(3, 2, 1)])
    with fails("zero-dimensional tensor (at position 1) cannot be concatenated"):
        run("cat", [T(3), T()])
    with fails("torch.cat(): expected a non-empty list of Tensors"):
        run("cat", [])


def test_stack() -> None:
    assert run("stack", [T(s0, 3), T(s0, 3)]) == T(2, s0, 3)
    assert run("stack", [T(2, 3), T(2, 3), T(2, 3)], -1) == T(2, 3, 3)
    assert run("stack", [T(2, dtype=i64), T(2)], 1) == T(2, 2)
    with fails("stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at "
               "entry 1"):
        run("stack", [T(3), T(4)])


# ---------------------------------------------------------------------------- split family


@pytest.mark.parametrize("op", ["split.Tensor", "split_copy.Tensor", "unsafe_split.Tensor"])
def test_split_by_size(op: str) -> None:
    assert run(op, T(7, 3), 3) == [T(3, 3), T(3, 3), T(1, 3)]
    assert run(op, T(2, 6), 3, 1) == [T(2, 3), T(2, 3)]
    assert run(op, T(2 * s0, 3), s0) == [T(s0, 3), T(s0, 3)]
    assert run(op, T(0, 3), 0) == [T(0, 3)]


def test_split_symbolic_count_is_an_error() -> None:
    with fails("split: the number of pieces (((s0 + 1)//2)) depends on the symbolic size s0"):
        run("split.Tensor", T(s0), 2)
    with fails("split_size can only be 0 if dimension size is 0, but got dimension size of 3"):
        run("split.Tensor", T(3), 0)


@pytest.mark.parametrize("op", ["split.sizes", "split_with_sizes", "split_with_sizes_copy",
                                "unsafe_split_with_sizes"])
def test_split_with_sizes(op: str) -> None:
    assert run(op, T(5, 2), [2, 3]) == [T(2, 2), T(3, 2)]
    assert run(op, T(s0 + 1, 2), [s0, 1]) == [T(s0, 2), T(1, 2)]
    with fails("split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at "
               "dimension 0), but got split_sizes=[2, 2]"):
        run(op, T(5, 2), [2, 2])


@pytest.mark.parametrize("op", ["chunk", "unsafe_chunk"])
def test_chunk(op: str) -> None:
    assert run(op, T(5, 2), 3) == [T(2, 2), T(2, 2), T(1, 2)]
    assert run(op, T(4), 3) == [T(2), T(2)]  # torch gives fewer chunks when they do not divide
    assert run(op, T(2, 4 * s0), 2, 1) == [T(2, 2 * s0), T(2, 2 * s0)]
    half = FloorDiv(s0 + 1, 2)
    assert run(op, T(s0), 2) == [T(half), T(s0 - half)]
    with fails("chunk expects `chunks` to be greater than 0, got: 0"):
        run(op, T(4), 0)


def test_chunk_symbolic_count_follows_the_hint() -> None:
    with using_oracle(HintOracle(s0=1)), fails("chunk: the number of pieces"):
        run("chunk", T(s0), 2)


@pytest.mark.parametrize("op", ["unbind.int", "unbind_copy.int"])
def test_unbind(op: str) -> None:
    assert run(op, T(3, s0)) == [T(s0)] * 3
    assert run(op, T(2, 3), 1) == [T(2)] * 3
    with fails("unbind: the number of pieces (s0) depends on the symbolic size s0"):
        run(op, T(s0, 2))


def test_tensor_split() -> None:
    assert run("tensor_split.sections", T(7, 2), 3) == [T(3, 2), T(2, 2), T(2, 2)]
    pieces = run("tensor_split.sections", T(s0), 2)
    assert [p.shape[0].subs(s0, 5) for p in pieces] == [3, 2]
    assert run("tensor_split.indices", T(2, 10), [3, 7], 1) == [T(2, 3), T(2, 4), T(2, 3)]
    assert run("tensor_split.indices", T(5), [2, 9]) == [T(2), T(3), T(0)]


# ---------------------------------------------------------------------------- slices


@pytest.mark.parametrize(("start", "end", "step", "size"), [
    (None, None, 1, 10),
    (2, None, 1, 8),
    (-3, None, 1, 3),
    (None, -1, 1, 9),
    (1, 9223372036854775807, 3, 3),  # x[1::3]: Python passes sys.maxsize
    (-100, 4, 1, 4),
    (-9223372036854775807, 4, 1, 4),
    (20, 30, 1, 0),
    (7, 3, 1, 0),
])
def test_slice_static(start: Any, end: Any, step: int, size: int) -> None:
    assert run("slice.Tensor", T(10, 2), 0, start, end, step) == T(size, 2)


def test_slice_symbolic() -> None:
    assert run("slice.Tensor", T(s0, 2), 0, 1) == T(s0 - 1, 2)
    assert run("slice.Tensor", T(s0, 2), 0, None, -1) == T(s0 - 1, 2)
    assert run("slice.Tensor", T(s0, 2), 0, 2, 9223372036854775807) == T(s0 - 2, 2)
    assert run("slice_copy.Tensor", T(2, s0), 1, 0, s1) == T(2, s1)
    assert run("slice.Tensor", T(s0), 0, 0, None, 2) == T(FloorDiv(s0 + 1, 2))
    with fails("slice step must be positive"):
        run("slice.Tensor", T(3), 0, None, None, 0)


def test_select_and_narrow() -> None:
    assert run("select.int", T(3, s0, 4), 1, 0) == T(3, 4)
    assert run("select_copy.int", T(3, 4), -1, -4) == T(3)
    with fails("select(): index 5 out of range for tensor of size [3, 4] at dimension 0"):
        run("select.int", T(3, 4), 0, 5)
    with fails("select() cannot be applied to a 0-dim tensor."):
        run("select.int", T(), 0, 0)
    assert run("narrow", T(10, 3), 0, 2, 5) == T(5, 3)
    assert run("narrow_copy", T(s0, 3), 0, 1, s0 - 1) == T(s0 - 1, 3)
    with fails("start (8) + length (5) exceeds dimension size (10)."):
        run("narrow", T(10, 3), 0, 8, 5)


def test_diagonal() -> None:
    assert run("diagonal", T(3, 5, 2)) == T(2, 3)
    assert run("diagonal", T(3, 5, 2), 1, 0, 1) == T(2, 3)
    assert run("diagonal_copy", T(3, 5), -1) == T(2)
    assert run("diagonal", T(3, 5), 7) == T(0)
    assert run("diagonal", T(s0, s0)) == T(s0)
    with fails("diagonal dimensions cannot be identical 1, -1"):
        run("diagonal", T(3, 4), 0, 1, -1)


def test_as_strided_and_unfold() -> None:
    assert run("as_strided", T(10), [2, s0], [s0, 1]) == T(2, s0)
    assert run("as_strided_copy", T(10), [3], [2], 1) == T(3)
    with fails("mismatch in length of strides and shape"):
        run("as_strided", T(10), [2, 2], [1])
    assert run("unfold", T(2, 10), 1, 3, 2) == T(2, 4, 3)
    with fails("maximum size for tensor at dimension 1 is 10 but size is 11"):
        run("unfold", T(2, 10), 1, 11, 1)


# ---------------------------------------------------------------------------- same shape, dtype


@pytest.mark.parametrize("op", ["alias", "alias_copy", "clone", "contiguous", "detach",
                                "detach_copy", "detach_", "lift_fresh", "lift_fresh_copy"])
def test_identity_ops(op: str) -> None:
    assert run(op, T(s0, 3, dtype=i64)) == T(s0, 3, dtype=i64)


def test_dtype_conversions() -> None:
    x = T(s0, 3)
    assert run("_to_copy", x) == x
    assert run("_to_copy", x, dtype=f64) == T(s0, 3, dtype=f64)
    assert run("to.dtype", x, i64) == T(s0, 3, dtype=i64)
    assert run("to.dtype_layout", x, dtype=b8) == T(s0, 3, dtype=b8)
    assert run("to.device", x, "cpu", f64) == T(s0, 3, dtype=f64)
    assert run("to.other", x, T(1, dtype=i32)) == T(s0, 3, dtype=i32)
    assert run("type_as", x, T(2, 2, dtype=u8)) == T(s0, 3, dtype=u8)


def test_flip_roll_triangles() -> None:
    assert run("flip", T(2, 3), [0, -1]) == T(2, 3)
    with fails("dims has duplicates"):
        run("flip", T(2, 3), [0, -2])
    assert run("roll", T(2, 3), [1], [1]) == T(2, 3)
    assert run("roll", T(2, 3), [4]) == T(2, 3)
    with fails("shifts and dimensions must align. shifts: 2, dims:1"):
        run("roll", T(2, 3), [1, 2], [0])
    for op in ("tril", "triu", "tril_", "triu_"):
        assert run(op, T(s0, 3, 4), 1) == T(s0, 3, 4)
        with fails("input tensor must have at least 2 dimensions"):
            run(op, T(3))


def test_repeat() -> None:
    assert run("repeat", T(2, 3), [2, 1, 2]) == T(2, 2, 6)
    assert run("repeat", T(s0), [3]) == T(3 * s0)
    with fails("Number of dimensions of repeat dims can not be smaller than number of dimensions "
               "of tensor"):
        run("repeat", T(2, 3), [2])


def test_repeat_interleave() -> None:
    assert run("repeat_interleave.self_int", T(2, 3), 2) == T(12)
    assert run("repeat_interleave.self_int", T(2, s0), 3, 1) == T(2, 3 * s0)
    assert run("repeat_interleave.self_int", T(2, 3), 2, 0, output_size=4) == T(4, 3)
    counts = T(3, dtype=i64)
    assert run("repeat_interleave.self_Tensor", T(3, 2), counts, 0) == T(None, 2)
    assert run("repeat_interleave.self_Tensor", T(3, 2), counts, 0, output_size=7) == T(7, 2)
    assert run("repeat_interleave.Tensor", counts) == T(None, dtype=i64)
    with fails("repeat_interleave only accept 1D vector as repeat"):
        run("repeat_interleave.Tensor", T(2, 2, dtype=i64))


def test_resize_() -> None:
    assert run("resize_", T(3), [2, s0]) == T(2, s0)
    with fails("Trying to create tensor with negative dimension -1: [-1]"):
        run("resize_", T(3), [-1])
