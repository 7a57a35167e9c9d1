"""lower-core-to-linalg, the matmul and views families: each op lowered, verified by
iree-opt, compiled and run by IREE, and compared with texport's interpreter
(``check_lowered``); the zoo's MLP50 whole, GPT4's ops of these families."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from linalg_checks import check_lowered, core_program

import texport as torch
from texport.dialects import symbolic
from texport.examples.models import make_GPT4, make_MLP50
from texport.export import Dim
from texport.lowering.linalg.passes import lower_families
from texport.lowering.linalg.registry import LOWERINGS
from texport.lowering.linalg.views import reshape_groups

F = torch.nn.functional
BATCH = {0: Dim("b", max=64)}


class Program(torch.nn.Module):
    """A model whose forward is ``function`` (one tensor input, and ``rest``)."""

    def __init__(self, function) -> None:
        super().__init__()
        self.function = function

    def forward(self, x, rest):
        return self.function(x, *rest)


def check(function, x, *rest, sizes=(), dynamic=False, rtol=1e-5, atol=1e-5) -> str:
    """Export ``function(x, *rest)``, check it lowered on those inputs and, with a
    dynamic batch, on the batch sizes ``sizes``; returns the last upstream text."""
    shapes = {"dynamic_shapes": {"x": BATCH, "rest": None}} if dynamic else {}
    program = core_program(Program(function), (x, tuple(rest)), **shapes)
    text = check_lowered(program, [x, *rest], rtol, atol)
    for batch in sizes:
        other = torch.randn(batch, *x.shape[1:]).to(x.dtype)
        text = check_lowered(program, [other, *rest], rtol, atol)
    return text


def integers(*shape: int, low: int = -9, high: int = 9) -> torch.Tensor:
    values = np.random.default_rng(len(shape)).integers(low, high, size=shape, dtype=np.int64)
    return torch.from_numpy(values)


# ---------------------------------------------------------------------------- matmul


def test_mm_addmm_bmm_are_contractions_with_the_interpreters_numbers():
    def products(x, w, row, full, y, z):
        return (torch.mm(x, w), torch.addmm(row, x, w), torch.addmm(full, x, w, beta=0.5, alpha=2.0),
                torch.addmm(full * float("nan"), x, w, beta=0), torch.bmm(y, z))

    text = check(products, torch.randn(3, 4), torch.randn(4, 5), torch.randn(5), torch.randn(3, 5),
                 torch.randn(2, 3, 4), torch.randn(2, 4, 6))
    assert text.count("linalg.matmul") == 4
    assert '"parallel", "parallel", "parallel", "reduction"' in text


def test_integer_products_truncate_beta_and_alpha():
    def products(x, w, b, y):
        return (torch.mm(x, w), torch.addmm(b, x, w, beta=2, alpha=3), torch.bmm(y, y.transpose(1, 2)))

    text = check(products, integers(3, 4), integers(4, 5), integers(5), integers(2, 3, 4))
    assert "arith.muli" in text and "i64" in text


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_float_products_sum_in_f32_and_round_once(dtype):
    def products(x, w, b, y):
        return (torch.mm(x, w), torch.addmm(b, x, w), torch.bmm(y, y.transpose(1, 2)))

    args = [t.to(dtype) for t in (torch.randn(3, 8), torch.randn(8, 5), torch.randn(5), torch.randn(2, 3, 8))]
    text = check(products, *args, rtol=1e-2, atol=1e-2)
    assert "arith.extf" in text and "arith.truncf" in text


def test_products_with_a_dynamic_batch():
    def products(x, w, b):
        return torch.addmm(b, x, w), torch.mm(x, w), torch.bmm(x.view(-1, 2, 2), x.view(-1, 2, 2))

    text = check(products, torch.randn(3, 4), torch.randn(4, 5), torch.randn(5), dynamic=True, sizes=(1, 7))
    assert "tensor<?x4xf32>" in text


# ---------------------------------------------------------------------------- views


def test_reshape_groups_pair_dims_whose_products_match():
    s0 = symbolic.sympy.Symbol("s0", positive=True, integer=True)
    assert reshape_groups((2, 3, 4), (6, 4)) == [([0, 1], [0]), ([2], [1])]
    assert reshape_groups((s0, 12), (s0, 3, 4)) == [([0], [0]), ([1], [1, 2])]
    assert reshape_groups((s0, 4), (4 * s0,)) == [([0, 1], [0])]
    assert reshape_groups((1, 4, 1), (4,)) == [([0, 1, 2], [0])]
    assert reshape_groups((), (1, 1)) == []
    assert reshape_groups((s0, 3, 4), (s0, 2, 6)) == [([0], [0]), ([1, 2], [1, 2])]


def test_reshapes():
    def reshapes(x):
        return (x.view(6, 4), x.view(2, 12), x.reshape(-1), x.view(2, 3, 2, 2), x.view(4, 6), x.unsqueeze(0),
                x.unsqueeze(-1), x[:, :1].squeeze(1), x.view(1, 2, 3, 4, 1).squeeze())

    text = check(reshapes, torch.randn(2, 3, 4))
    assert "tensor.collapse_shape" in text and "tensor.expand_shape" in text


def test_layout_moves():
    def moves(x):
        return (x.permute(2, 0, 1), x.transpose(-1, -2), x[:, :1].expand(2, 3, 4), x[0].expand(5, 3, 4),
                x.repeat(2, 1, 3), x.repeat(2, 1, 1, 2), x.flip(0, 2), x.flip(-1), x.diagonal(),
                x.diagonal(1, 1, 2), x.diagonal(-1, 2, 1), torch.ops.aten.as_strided(x, (3, 2), (1, 4)),
                torch.ops.aten.as_strided(x * 2, (2, 2, 2), (12, 4, 1), 2), torch.ops.aten.as_strided(x[0, 0, 0], (2,), (0,)))

    text = check(moves, torch.randn(2, 3, 4))
    assert "linalg.transpose" in text and "tensor.extract" in text


def test_sub_tensors():
    def pieces(x, y):
        return (x[:, 1:], x[:, -2:], x[..., ::2], x[:, 1:100:2], x[-1:], x[:, 1], x[:, -1], x[1],
                *x.split([1, 3], dim=2), *x.split(2, dim=1), x.narrow(2, 1, 2),
                torch.slice_scatter(x, y, 1, 1, 3), torch.slice_scatter(x, x[:, :, :2] * 2, 2, 0, 4, 2))

    text = check(pieces, torch.randn(2, 3, 4), torch.randn(2, 2, 4))
    assert "tensor.extract_slice" in text and "tensor.insert_slice" in text


def test_cat_pad_and_index_select():
    def joined(x, index, ones, empty):
        return (torch.cat([x, x * 2], dim=1), torch.cat([x, x, x], dim=-1), torch.cat([x, ones, empty]), F.pad(x, (1, 2)),
                F.pad(x, (1, -1, -1, 2), value=3.0), F.pad(x, (-1, -1)), torch.index_select(x, 1, index),
                torch.index_select(x, 2, index))

    index = torch.from_numpy(np.array([2, 0, 1, 2], dtype=np.int64))
    text = check(joined, torch.randn(2, 3, 4), index, torch.ones(1, 3, 4, dtype=torch.int64), torch.randn(0))
    assert "tensor.pad" in text and "tensor.concat" not in text


def test_cat_widens_uint8_unsigned():
    """cat promotes uint8 and int64 to int64: 200 stays 200 (upstream's i8 is signless)."""
    def joined(x, small):
        return torch.cat([small, x], dim=0), torch.cat([small, small], dim=1)

    small = torch.from_numpy(np.array([[0, 127, 128, 200, 255]], dtype=np.uint8))
    check(joined, integers(2, 5), small)


def test_views_of_integers_and_booleans():
    def moves(x, mask):
        return (x.permute(1, 0, 2), torch.cat([x, x], 0)[1:, ::2], x.view(6, 4), x[:, -1], x.flip(1),
                mask[:2, :3], mask.permute(1, 0))

    mask = torch.from_numpy(np.tril(np.ones((4, 4), dtype=bool)))
    check(moves, integers(2, 3, 4), mask)


def test_views_with_a_dynamic_batch():
    def moves(x):
        return (x.permute(2, 0, 1), x.view(-1, 4), x.reshape(x.shape[0] * 3, 2, 2), x.unsqueeze(1).expand(-1, 5, 3, 4),
                x[1:], x[-1:], x[:, 1:], torch.cat([x, x * 2], 0), torch.cat([x, x], 2), x.flip(0), x[:, 0], x[-1],
                x.split([1, 2], 1)[1], F.pad(x, (1, 1, 1, 1)), x.repeat(2, 1, 1), x.diagonal(0, 1, 2), x.flip(-1),
                torch.slice_scatter(x, x[:, :1] * 2, 1, 0, 1), x.permute(1, 0, 2).unsqueeze(0).squeeze(0))

    text = check(moves, torch.randn(3, 3, 4), dynamic=True, sizes=(1, 6))
    assert "tensor<?x3x4xf32>" in text


class StartsFromSizes(torch.nn.Module):
    """Slice starts and a select index that are symbolic sizes (SSA operands)."""

    def forward(self, x, y):
        n = y.shape[0]
        return x[n:], x[:, :n], x[-n:], x.narrow(0, n, 2), torch.cat([x[:n], y], 1), x[n - 1]


def test_starts_and_indices_given_as_sizes():
    program = core_program(StartsFromSizes(), (torch.randn(8, 8), torch.randn(3, 2)),
                           dynamic_shapes={"x": None, "y": {0: Dim("n", min=1, max=5)}})
    for n in (1, 5):
        check_lowered(program, [torch.randn(8, 8), torch.randn(n, 2)])


class RepeatBySize(torch.nn.Module):
    def forward(self, x, y):
        return (x.repeat(y.shape[0], 1),)


def test_a_repeat_count_given_as_a_size():
    program = core_program(RepeatBySize(), (torch.randn(2, 3), torch.randn(3)),
                           dynamic_shapes={"x": None, "y": {0: Dim("n", min=1, max=8)}})
    for n in (1, 4):
        check_lowered(program, [torch.randn(2, 3), torch.randn(n)])


# ---------------------------------------------------------------------------- the zoo


def test_mlp50_with_a_dynamic_batch():
    model, (x,) = make_MLP50()
    program = core_program(model, (x,), dynamic_shapes={"x": BATCH})
    for batch in (32, 5):
        check_lowered(program, [torch.randn(batch, 256)], rtol=1e-4, atol=1e-4)


def test_gpt4_keeps_only_the_ops_of_other_families():
    model, args = make_GPT4()
    module = core_program(model, args).graph_module.module.clone()
    lower_families(module, frozenset({"matmul", "views"}))
    left = Counter(op.op_def.key for op in module.walk() if op.name.startswith("core."))
    mine = {key for key, entry in LOWERINGS.items() if entry.family in ("matmul", "views")}
    assert left and not set(left) & mine, left


class Attention(torch.nn.Module):
    """GPT4's attention with only this family's ops: a fused qkv projection split in
    three, heads by view and permute, scores by bmm, a causal slice of a mask."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)
        self.register_buffer("mask", torch.randn(32, 32))

    def forward(self, x):
        seq = x.shape[0]
        q, k, v = self.qkv(x).split(16, dim=1)
        q, k, v = (t.view(seq, 4, 4).permute(1, 0, 2) for t in (q, k, v))
        scores = torch.bmm(q, k.permute(0, 2, 1)) * 0.5 + self.mask[:seq, :seq]
        return torch.bmm(scores, v).permute(1, 0, 2)


def test_attention_shapes_with_a_dynamic_sequence():
    program = core_program(Attention(), (torch.randn(8, 16),), dynamic_shapes={"x": {0: Dim("s", max=32)}})
    for seq in (8, 3):
        check_lowered(program, [torch.randn(seq, 16)], rtol=1e-4, atol=1e-4)
