"""Shape rules of matrix products, einsum, attention, distances and FFTs."""

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
from texport.dialects.symbolic import FloorDiv, symbol, to_dim

f32, f64, i64, c64, c128 = (
    DType.float32, DType.float64, DType.int64, DType.complex64, DType.complex128
)
s0, s1 = symbol("s0"), symbol("s1")


def T(*shape: Any, dtype: DType = f32) -> TensorMeta:
    return TensorMeta(tuple(shape), dtype)


def run(op: str, *args: Any, **kwargs: Any) -> Any:
    """Bind by schema when the op is registered; otherwise call the rule positionally."""
    if op in OPS:
        return infer(op, *args, **kwargs)
    return SHAPE_RULES[op](*args, **kwargs)


# ---------------------------------------------------------------------------- products


def test_mm_and_bmm() -> None:
    assert run("mm", T(s0, 3), T(3, 5)) == T(s0, 5)
    with fails("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"):
        run("mm", T(2, 3), T(4, 5))
    with fails("expected mat1 and mat2 to have the same dtype, but got: texport.float32 != "
               "texport.float64"):
        run("mm", T(2, 3), T(3, 5, dtype=f64))
    with fails("self must be a matrix"):
        run("mm", T(3), T(3, 5))
    assert run("bmm", T(s0, 2, 3), T(s0, 3, 4)) == T(s0, 2, 4)
    with fails("Expected size for first two dimensions of batch2 tensor to be: [7, 3] but got: "
               "[7, 4]."):
        run("bmm", T(7, 2, 3), T(7, 4, 5))
    with fails("batch1 must be a 3D tensor"):
        run("bmm", T(2, 3), T(7, 3, 5))


def test_vector_products() -> None:
    assert run("mv", T(2, s0), T(s0)) == T(2)
    with fails("size mismatch, got input (2), mat (2x3), vec (4)"):
        run("mv", T(2, 3), T(4))
    assert run("dot", T(s0), T(s0)) == T()
    with fails("inconsistent tensor size, expected tensor [3] and src [4] to have the same number "
               "of elements, but got 3 and 4 elements respectively"):
        run("dot", T(3), T(4))
    with fails("1D tensors expected, but got 2D and 1D tensors"):
        run("dot", T(3, 1), T(3))
    with fails("dot : expected both vectors to have same dtype, but found Float and Long"):
        run("dot", T(3), T(3, dtype=i64))
    assert run("outer", T(3), T(s0, dtype=f64)) == T(3, s0, dtype=f64)  # promotes, like mul
    with fails("outer: Expected 1-D argument vec2, but got 2-D"):
        run("outer", T(3), T(2, 2))


def test_add_products() -> None:
    assert run("addmm", T(5), T(2, 3), T(3, 5)) == T(2, 5)
    assert run("addmm", T(2, 1), T(2, 3), T(3, 5), beta=0.5) == T(2, 5)
    with fails("The expanded size of the tensor (5) must match the existing size (4) at "
               "non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [4]"):
        run("addmm", T(4), T(2, 3), T(3, 5))
    assert run("baddbmm", T(1, 4), T(7, 2, 3), T(7, 3, 4)) == T(7, 2, 4)
    assert run("addmv", T(1), T(2, 3), T(3)) == T(2)


def test_in_place_add_products_do_not_broadcast_self() -> None:
    assert run("addmm_", T(2, 5), T(2, 3), T(3, 5)) == T(2, 5)
    assert run("baddbmm_", T(7, 2, 4), T(7, 2, 3), T(7, 3, 4)) == T(7, 2, 4)
    assert run("addmv_", T(2), T(2, 3), T(3)) == T(2)
    with fails("output with shape [5] doesn't match the broadcast shape [2, 5]"):
        run("addmm_", T(5), T(2, 3), T(3, 5))


# ---------------------------------------------------------------------------- matmul, linear


@pytest.mark.parametrize(("a", "b", "out"), [
    ((3,), (3,), ()),
    ((3,), (3, 5), (5,)),
    ((2, 3), (3,), (2,)),
    ((2, 3), (3, 5), (2, 5)),
    ((2, 1, 3, 4), (5, 4, 6), (2, 5, 3, 6)),
    ((4,), (7, 4, 6), (7, 6)),
    ((7, 2, 4), (4,), (7, 2)),
    ((7, 2, 4), (4, 6), (7, 2, 6)),
    ((1, 2, 4), (9, 4, 3), (9, 2, 3)),
])
def test_matmul_static(a: tuple[int, ...], b: tuple[int, ...], out: tuple[int, ...]) -> None:
    assert run("matmul", T(*a), T(*b)) == T(*out)


def test_matmul_symbolic() -> None:
    assert run("matmul", T(s0, 1, 3, 4), T(s1, 4, 6)) == T(s0, s1, 3, 6)
    assert run("matmul", T(s0, 8, 16), T(16, s1)) == T(s0, 8, s1)


def test_matmul_errors() -> None:
    with fails("both arguments to matmul need to be at least 1D, but they are 0D and 2D"):
        run("matmul", T(), T(2, 2))
    with fails("mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)"):
        run("matmul", T(2, 3, 4), T(2, 5, 6))
    with fails("The size of tensor a (2) must match the size of tensor b (3)"):
        run("matmul", T(2, 3, 4), T(3, 4, 6))
    with fails("size mismatch, got input (2), mat (2x3), vec (4)"):
        run("matmul", T(2, 3), T(4))


def test_linear() -> None:
    assert run("linear", T(s0, 7, 3), T(5, 3)) == T(s0, 7, 5)
    assert run("linear", T(3), T(5, 3), T(5)) == T(5)
    assert run("linear", T(4, 3), T(3)) == T(4)  # a 1-D weight drops the output dim
    with fails("mat1 and mat2 shapes cannot be multiplied (14x3 and 4x5)"):
        run("linear", T(2, 7, 3), T(5, 4))
    with fails("The expanded size of the tensor (5) must match the existing size (4)"):
        run("linear", T(2, 3), T(5, 3), T(4))


# ---------------------------------------------------------------------------- einsum


@pytest.mark.parametrize(("equation", "shapes", "out"), [
    ("ij,jk->ik", [(2, 3), (3, 4)], (2, 4)),
    ("ij,jk", [(2, 3), (3, 4)], (2, 4)),
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)], (5, 2, 4)),
    ("bhqd,bhkd->bhqk", [(2, 8, 10, 64), (2, 8, 12, 64)], (2, 8, 10, 12)),
    ("i,j->ij", [(3,), (4,)], (3, 4)),
    ("i,i->", [(3,), (3,)], ()),
    ("ii->i", [(3, 3)], (3,)),
    ("ii", [(3, 3)], ()),
    ("ij->ji", [(2, 3)], (3, 2)),
    ("ba", [(2, 3)], (3, 2)),  # implicit output: letters sorted
    ("...ij,...jk->...ik", [(7, 2, 3), (3, 4)], (7, 2, 4)),
    ("i...,i...", [(2, 5, 6), (2, 1, 6)], (5, 6)),
    ("ij,j->i", [(2, 3), (1,)], (2,)),  # a size-1 dim broadcasts
    (" i j , j k -> i k ", [(2, 3), (3, 4)], (2, 4)),
])
def test_einsum(equation: str, shapes: list[tuple[int, ...]], out: tuple[int, ...]) -> None:
    assert run("einsum", equation, [T(*s) for s in shapes]) == T(*out)


def test_einsum_symbolic() -> None:
    assert run("einsum", "bij,jk->bik", [T(s0, 2, 3), T(3, s1)]) == T(s0, 2, s1)


def test_einsum_errors() -> None:
    with fails("einsum(): subscript j has size 4 for operand 1 which does not broadcast with "
               "previously seen size 3"):
        run("einsum", "ij,jk->ik", [T(2, 3), T(4, 5)])
    with fails("einsum(): the number of subscripts in the equation (2) does not match the number "
               "of dimensions (3) for operand 0 and no ellipsis was given"):
        run("einsum", "ij->i", [T(2, 3, 4)])
    with fails("einsum(): more operands were provided than specified in the equation"):
        run("einsum", "ij->i", [T(2, 3), T(2, 3)])
    with fails("einsum(): output subscript k does not appear in the equation for any input"):
        run("einsum", "ij->k", [T(2, 3)])
    with fails("einsum(): output subscript i appears more than once in the output"):
        run("einsum", "ij->ii", [T(2, 3)])


# ---------------------------------------------------------------------------- attention


def test_scaled_dot_product_attention() -> None:
    q, k, v = T(2, 8, s0, 16), T(2, 8, s1, 16), T(2, 8, s1, 32)
    assert run("scaled_dot_product_attention", q, k, v) == T(2, 8, s0, 32)
    assert run("scaled_dot_product_attention", T(10, 16), T(12, 16), T(12, 4)) == T(10, 4)
    gqa = run("scaled_dot_product_attention", T(2, 8, 10, 16), T(2, 2, 12, 16),
              T(2, 2, 12, 16), enable_gqa=True)
    assert gqa == T(2, 8, 10, 16)
    mask = T(1, s0, s1, dtype=DType.bool)
    assert run("scaled_dot_product_attention", q, k, v, mask) == T(2, 8, s0, 32)
    with fails("The expanded size of the tensor (12) must match the existing size (5)"):
        run("scaled_dot_product_attention", T(10, 16), T(12, 16), T(12, 4), T(10, 5))
    with fails("Explicit attn_mask should not be set when is_causal=True"):
        run("scaled_dot_product_attention", q, k, v, mask, is_causal=True)
    with fails("query and key must have the same embedding size, got 16 and 8"):
        run("scaled_dot_product_attention", T(2, 10, 16), T(2, 12, 8), T(2, 12, 8))
    with fails("Expected query, key, and value to have the same dtype"):
        run("scaled_dot_product_attention", T(10, 16), T(12, 16, dtype=f64), T(12, 4))


# ---------------------------------------------------------------------------- distances


@pytest.mark.parametrize("op", ["_cdist_forward", "cdist"])
def test_cdist(op: str) -> None:
    assert run(op, T(2, 5, 3), T(7, 3), 2.0, None) == T(2, 5, 7)
    assert run(op, T(s0, 3), T(s1, 3), 1.0, None) == T(s0, s1)
    with fails("X1 and X2 must have the same number of columns. X1: 3 X2: 4"):
        run(op, T(5, 3), T(7, 4), 2.0, None)
    with fails("cdist only supports at least 2D tensors, X1 got: 1D"):
        run(op, T(5), T(7, 5), 2.0, None)


@pytest.mark.parametrize("op", ["_pdist_forward"])
def test_pdist(op: str) -> None:
    assert run(op, T(5, 3)) == T(10)
    assert run(op, T(1, 3)) == T(0)
    pairs = run(op, T(s0, 3)).shape[0]
    assert pairs == to_dim(FloorDiv(s0 * (s0 - 1), 2))
    assert [pairs.subs(s0, n) for n in (2, 3, 4, 5)] == [1, 3, 6, 10]
    with fails("pdist only supports 2D tensors, got: 3D"):
        run(op, T(2, 5, 3))


def test_cosine_similarity_and_pairwise_distance() -> None:
    assert run("cosine_similarity", T(4, 8), T(4, 8)) == T(4)
    assert run("cosine_similarity", T(s0, 1, 8), T(5, 8), -1) == T(s0, 5)
    assert run("pairwise_distance", T(4, 8), T(1, 8)) == T(4)
    assert run("pairwise_distance", T(4, 8), T(4, 8), keepdim=True) == T(4, 1)
    assert run("pairwise_distance", T(8), T(8)) == T()


# ---------------------------------------------------------------------------- FFT


def test_fft_real_to_complex() -> None:
    assert run("_fft_r2c", T(4, 10), [1], 0, True) == T(4, 6, dtype=c64)
    assert run("_fft_r2c", T(4, 9, dtype=f64), [0, 1], 0, True) == T(4, 5, dtype=c128)
    assert run("_fft_r2c", T(4, 10), [1], 0, False) == T(4, 10, dtype=c64)
    assert run("_fft_r2c", T(s0, 3), [0], 2, True) == T(FloorDiv(s0, 2) + 1, 3, dtype=c64)
    with fails("expected a real float32 or float64 input tensor"):
        run("_fft_r2c", T(4, dtype=c64), [0], 0, True)


def test_fft_complex_to_real_and_complex() -> None:
    assert run("_fft_c2r", T(4, 6, dtype=c64), [1], 0, 10) == T(4, 10)
    assert run("_fft_c2r", T(4, 6, dtype=c128), [0, 1], 0, s0) == T(4, s0, dtype=f64)
    with fails("expected a complex input tensor"):
        run("_fft_c2r", T(4, 6), [1], 0, 10)
