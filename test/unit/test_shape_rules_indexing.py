"""Shape rules of indexing, gather/scatter, masks, data-dependent outputs and embeddings."""

from __future__ import annotations

from typing import Any

import pytest
from shape_rule_checks import raises as fails

import texport.dialects.op_table  # noqa: F401  (registers the schemas infer() binds against)
from texport.dialects.dtypes import DType
from texport.dialects.meta import TensorMeta
from texport.dialects.registry import OPS
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.shape_rules.infer import infer
from texport.dialects.symbolic import symbol

f32, f64, i64, i32, u8, b8 = (
    DType.float32, DType.float64, DType.int64, DType.int32, DType.uint8, DType.bool
)
s0, s1 = symbol("s0"), symbol("s1")


def T(*shape: Any, dtype: DType = f32) -> TensorMeta:
    return TensorMeta(tuple(shape), dtype)


def L(*shape: Any) -> TensorMeta:
    return T(*shape, dtype=i64)


def run(op: str, *args: Any, **kwargs: Any) -> Any:
    """Bind by schema when the op is registered; otherwise call the rule positionally."""
    if op in OPS:
        return infer(op, *args, **kwargs)
    return SHAPE_RULES[op](*args, **kwargs)


# ---------------------------------------------------------------------------- index.Tensor


X = T(5, 6, 7, 8)


@pytest.mark.parametrize(("indices", "shape"), [
    ([L(2, 3)], (2, 3, 6, 7, 8)),
    ([None, L(2, 3)], (5, 2, 3, 7, 8)),
    ([None, L(2, 3), L(2, 3)], (5, 2, 3, 8)),  # adjacent: the indexed dims are replaced in place
    ([L(2, 3), None, L(2, 3)], (2, 3, 6, 8)),  # separated: the index shape goes first
    ([None, L(4), None, L(4)], (4, 5, 7)),
    ([L(2, 1), L(3)], (2, 3, 7, 8)),  # index tensors broadcast
    ([None, None, None, L()], (5, 6, 7)),
    ([L(2, 3), T(3, dtype=i32)], (2, 3, 7, 8)),  # int32 indices are allowed
])
def test_advanced_indexing(indices: list[Any], shape: tuple[int, ...]) -> None:
    assert run("index.Tensor", X, indices) == T(*shape)


def test_index_with_boolean_masks_is_data_dependent() -> None:
    assert run("index.Tensor", X, [T(5, 6, dtype=b8)]) == T(None, 7, 8)
    assert run("index.Tensor", X, [None, T(6, 7, dtype=b8)]) == T(5, None, 8)
    assert run("index.Tensor", T(s0, 3), [T(s0, dtype=u8)]) == T(None, 3)


def test_index_errors() -> None:
    with fails("too many indices for tensor of dimension 1 (got 2)"):
        run("index.Tensor", T(3), [L(2), L(2)])
    with fails("The shape of the mask [4] at index 0 does not match the shape of the indexed "
               "tensor [5, 6, 7, 8] at index 1"):
        run("index.Tensor", X, [None, T(4, dtype=b8)])
    with fails("tensors used as indices must be long, int, byte or bool tensors"):
        run("index.Tensor", X, [T(2)])
    with fails("The size of tensor a (2) must match the size of tensor b (3)"):
        run("index.Tensor", X, [L(2), L(3)])


@pytest.mark.parametrize("op", ["index_put", "index_put_"])
def test_index_put(op: str) -> None:
    assert run(op, X, [L(2, 3)], T(2, 3, 6, 7, 8)) == X
    assert run(op, X, [None, L(4)], T(8), True) == X  # values broadcast to [5, 4, 7, 8]
    assert run(op, X, [T(5, 6, dtype=b8)], T(1)) == X
    with fails("shape mismatch: value tensor of shape [4] cannot be broadcast to indexing result "
               "of shape [2, 3, 6, 7, 8]"):
        run(op, X, [L(2, 3)], T(4))
    with fails("Index put requires the source and destination dtypes match, got Float for the "
               "destination and Long for the source."):
        run(op, X, [L(2)], L(8))


# ---------------------------------------------------------------------------- along one dim


def test_index_select() -> None:
    assert run("index_select", T(4, s0), 1, L(3)) == T(4, 3)
    assert run("index_select", T(4, 5), 0, T(s1, dtype=i32)) == T(s1, 5)
    assert run("index_select", T(4, 5), -2, L()) == T(1, 5)
    with fails("index_select(): Index is supposed to be a vector"):
        run("index_select", T(4, 5), 0, L(2, 2))
    with fails("index_select(): Expected dtype int32 or int64 for index"):
        run("index_select", T(4, 5), 0, T(2))


@pytest.mark.parametrize("op", ["index_add", "index_add_", "index_copy", "index_copy_"])
def test_index_add_and_copy(op: str) -> None:
    name = op.rstrip("_")
    assert run(op, T(5, 3), 0, L(2), T(2, 3)) == T(5, 3)
    with fails(f"{name}(): Number of indices (2) should be equal to source.size(dim) (4)"):
        run(op, T(5, 3), 0, L(2), T(4, 3))
    with fails(f"{name}(): self (Float) and source (Double) must have the same scalar type"):
        run(op, T(5, 3), 0, L(2), T(2, 3, dtype=f64))
    with fails(f"{name}(): Source/destination tensor must have same slice shapes"):
        run(op, T(5, 3), 0, L(2), T(2, 4))


def test_gather() -> None:
    assert run("gather", T(3, 4), 1, L(3, 2)) == T(3, 2)
    assert run("gather", T(s0, 4, dtype=f64), 0, L(2, 4)) == T(2, 4, dtype=f64)
    with fails("Size does not match at dimension 1 expected index [5, 2] to be smaller than self "
               "[3, 4] apart from dimension 1"):
        run("gather", T(3, 4), 1, L(5, 2))
    assert run("gather", T(3, 4), 1, T(3, 2, dtype=i32)) == T(3, 2)  # torch takes int32 too
    with fails("gather(): Expected dtype int32/int64 for index"):
        run("gather", T(3, 4), 1, T(3, 2))
    with fails("Index tensor must have the same number of dimensions as input tensor"):
        run("gather", T(3, 4), 1, L(3))


@pytest.mark.parametrize(("op", "extra"), [
    ("scatter.src", ()), ("scatter_.src", ()), ("scatter_add", ()), ("scatter_add_", ()),
    ("scatter_reduce.two", ("sum",)), ("scatter_reduce_.two", ("amax",)),
])
def test_scatter_with_src(op: str, extra: tuple[Any, ...]) -> None:
    assert run(op, T(3, 4), 1, L(3, 2), T(3, 2), *extra) == T(3, 4)
    assert run(op, T(s0, 4), 0, L(2, 4), T(s0, 4), *extra) == T(s0, 4)
    with fails("Expected index [3, 5] to be smaller than self [3, 4] apart from dimension 0 and "
               "to be smaller size than src [3, 2]"):
        run(op, T(3, 4), 0, L(3, 5), T(3, 2), *extra)
    with fails("scatter(): Expected self.dtype to be equal to src.dtype"):
        run(op, T(3, 4), 1, L(3, 2), T(3, 2, dtype=f64), *extra)


@pytest.mark.parametrize("op", ["scatter.value", "scatter_.value"])
def test_scatter_value(op: str) -> None:
    assert run(op, T(3, 4), 1, L(3, 2), 1.5) == T(3, 4)
    assert run(op, T(3, 4), 1, T(3, 2, dtype=i32), 1.5) == T(3, 4)  # torch takes int32 too
    with fails("scatter(): Expected dtype int32/int64 for index"):
        run(op, T(3, 4), 1, T(3, 2), 1.5)


def test_take_along_dim() -> None:
    assert run("take_along_dim", T(3, 4), L(5)) == T(5)
    assert run("take_along_dim", T(3, 4), L(3, 2), 1) == T(3, 2)
    assert run("take_along_dim", T(3, 1, 4), L(1, 5, 2), -1) == T(3, 5, 2)
    with fails("torch.take_along_dim(): dtype of indices should be Long but got Int"):
        run("take_along_dim", T(3, 4), T(3, 2, dtype=i32), 1)
    with fails("input and indices should have the same number of dimensions, but got 2 "
               "dimensions for input, and 1 dimensions for indices"):
        run("take_along_dim", T(3, 4), L(2), 1)


# ---------------------------------------------------------------------------- scatter inverses


def test_select_and_slice_scatter() -> None:
    assert run("select_scatter", T(3, s0), T(3), 1, 0) == T(3, s0)
    with fails("expected src to have a size equal to the slice of self. src size = [4], slice "
               "size = [3]"):
        run("select_scatter", T(3, 5), T(4), 1, 0)
    assert run("slice_scatter", T(8, 3), T(3, 3), 0, 2, 8, 2) == T(8, 3)
    assert run("slice_scatter", T(s0, 3), T(s0 - 1, 3), 0, 1) == T(s0, 3)
    with fails("src size = [2, 3], slice size = [3, 3]"):
        run("slice_scatter", T(8, 3), T(2, 3), 0, 2, 8, 2)


# ---------------------------------------------------------------------------- masks


def test_masked_select() -> None:
    assert run("masked_select", T(3, 2), T(3, 2, dtype=b8)) == T(None)
    assert run("masked_select", T(s0, 2, dtype=i64), T(2, dtype=b8)) == T(None, dtype=i64)
    with fails("masked_select: expected BoolTensor for mask"):
        run("masked_select", T(3, 2), T(3, 2, dtype=u8))
    with fails("The size of tensor a (2) must match the size of tensor b (3)"):
        run("masked_select", T(3, 2), T(3, dtype=b8))


def test_masked_scatter() -> None:
    assert run("masked_scatter", T(3, 1), T(3, 4, dtype=b8), T(12)) == T(3, 4)
    with fails("masked_scatter_ only supports boolean masks, but got mask with dtype Byte"):
        run("masked_scatter", T(4), T(4, dtype=u8), T(4))
    with fails("masked_scatter: expected self and source to have same dtypes but got Float and "
               "Double"):
        run("masked_scatter", T(4), T(4, dtype=b8), T(4, dtype=f64))


# ---------------------------------------------------------------------------- data-dependent


def test_nonzero() -> None:
    assert run("nonzero", T(3, 2)) == T(None, 2, dtype=i64)
    assert run("nonzero", T(s0, 2, 5, dtype=b8)) == T(None, 3, dtype=i64)
    assert run("nonzero_static", T(3, 2), size=4) == T(4, 2, dtype=i64)
    assert run("nonzero_static", T(s0), size=s1, fill_value=0) == T(s1, 1, dtype=i64)
    assert run("where", T(3, 2, dtype=b8)) == [T(None, dtype=i64)] * 2


def test_unique() -> None:
    x = T(3, 4, dtype=i32)
    assert run("_unique2", x) == (T(None, dtype=i32), L(0), L(0))
    assert run("_unique2", x, True, True, True) == (T(None, dtype=i32), L(3, 4), L(None))
    assert run("unique_consecutive", x, return_counts=True) == (T(None, dtype=i32), L(0), L(None))
    assert run("unique_consecutive", x, True, False, 1) == (T(3, None, dtype=i32), L(4), L(0))


def test_one_hot() -> None:
    assert run("one_hot", L(3, s0)) == L(3, s0, None)  # num_classes=-1: max(x) + 1, data
    assert run("one_hot", L(3), 5) == L(3, 5)
    with fails("one_hot is only applicable to index tensor of type LongTensor."):
        run("one_hot", T(3, dtype=i32), 5)


# ---------------------------------------------------------------------------- embeddings


def test_embedding() -> None:
    assert run("embedding", T(10, 4), L(2, s0)) == T(2, s0, 4)
    assert run("embedding", T(10, 4, dtype=f64), T(3, dtype=i32), 0) == T(3, 4, dtype=f64)
    with fails("'weight' must be 2-D"):
        run("embedding", T(10), L(3))
    with fails("Expected tensor for argument #1 'indices' to have one of the following scalar "
               "types: Long, Int; but got Float instead"):
        run("embedding", T(10, 4), T(3))
    assert run("embedding_dense_backward", T(2, 3, 4), L(2, 3), 10, -1, False) == T(10, 4)


@pytest.mark.parametrize("op", ["_embedding_bag"])
def test_embedding_bag(op: str) -> None:
    w, idx, off = T(10, 4), L(7), L(3)
    # mode=sum on the CPU fast path: offset2bag is empty, max_indices is [bags].
    assert run(op, w, idx, off) == (T(3, 4), L(0), L(3), L(3))
    # mode=mean: offset2bag has one entry per index.
    assert run(op, w, idx, off, False, 1) == (T(3, 4), L(7), L(3), L(3))
    # mode=max with include_last_offset: one bag fewer, max_indices [bags, dim].
    out = run(op, w, idx, off, False, 2, False, None, True)
    assert out == (T(2, 4), L(7), L(2), L(2, 4))
    # a padding_idx leaves the fast path.
    assert run(op, w, idx, T(3, dtype=i32), False, 0, False, None, False, 1)[1] == T(7, dtype=i32)


def test_embedding_bag_errors() -> None:
    with fails("expected weight to be floating point type, got texport.int64"):
        run("_embedding_bag", L(10, 4), L(7), L(3))
    with fails("embedding_bag: per_sample_weights only supported with mode='sum'"):
        run("_embedding_bag", T(10, 4), L(7), L(3), False, 1, False, T(7))
    with fails("expected per_sample_weights.numel() (6 to be the same as indices.numel() (7)"):
        run("_embedding_bag", T(10, 4), L(7), L(3), False, 0, False, T(6))
