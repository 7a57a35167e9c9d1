"""Strides: the stride rules against numpy (whose views carry strides), torch's
view-or-copy decision (computeStride) against numpy's reshape without copy,
torch's elementwise layouts (values read off torch 2.13), and strides through
the tracer, the IR and the runtime."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import numpy as np
import pytest

import texport as torch
from texport.dialects.bootstrap import start_all
from texport.dialects.context import parse_module
from texport.dialects.dtypes import DType
from texport.dialects.layout import value_strides
from texport.dialects.meta import TensorMeta
from texport.dialects.registry import lookup_op
from texport.dialects.schema import bind_arguments
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.shape_rules.strides import (
    elementwise_strides,
    is_contiguous,
    known_lt,
    preserved_strides,
    result_strides,
    view_strides,
)
from texport.dialects.symbolic import symbol
from texport.export import Dim, export
from texport.interpreter.dtypes import from_numpy
from texport.interpreter.kernels import KERNELS
from texport.tracer.errors import TracingError

start_all()
s0, s1 = symbol("s0"), symbol("s1")
VIEW_ERROR = "view size is not compatible with input tensor's size and stride"


def element_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def meta_of(a: np.ndarray) -> TensorMeta:
    return TensorMeta(a.shape, from_numpy(a.dtype), element_strides(a))


def same_layout(shape: tuple[int, ...], got: tuple[int, ...], want: tuple[int, ...]) -> bool:
    """Equal strides on every dim that has more than one element (a size-1 dim's
    stride is free in torch and numpy alike)."""
    return all(n < 2 or g == w for n, g, w in zip(shape, got, want))


# ---------------------------------------------------------------------------- stride rules against numpy views

def _layouts() -> dict[str, np.ndarray]:
    base = np.arange(2 * 6 * 4 * 10, dtype=np.float32)
    return {
        "row-major": base[:120].reshape(2, 3, 4, 5),
        "permuted": base[:120].reshape(5, 2, 4, 3).transpose(1, 3, 2, 0),
        "sliced": base[:240].reshape(2, 6, 4, 5)[:, 1:4],
        "stepped": base[:240].reshape(2, 3, 4, 10)[..., ::2],
        "expanded": np.broadcast_to(base[:20].reshape(1, 1, 4, 5), (2, 3, 4, 5)),
    }


VIEWS = [
    ("permute", [3, 0, 2, 1]), ("transpose.int", 1, 3), ("swapaxes", 0, 2), ("movedim.int", 0, -1),
    ("movedim.intlist", [0, 1], [3, 2]), ("slice.Tensor", 1, 0, 3, 2), ("slice.Tensor", 3, 1, None, 3),
    ("select.int", 2, 1), ("narrow", 3, 1, 2), ("unsqueeze", 0), ("unsqueeze", 2), ("unsqueeze", 4),
    ("expand", [6, 2, 3, 4, 5]), ("diagonal", 0, 2, 3), ("diagonal", 1, 0, 1), ("unfold", 3, 2, 2),
    ("unbind.int", 1), ("split.Tensor", 2, 2), ("chunk", 2, 3), ("alias",), ("view", [2, 3, 20]),
    ("view", [6, 4, 5]), ("reshape", [2, 3, 20]), ("reshape", [6, 20]), ("flatten.using_ints", 2, 3),
    ("unflatten.int", 3, [5, 1]), ("squeeze.dims", [0]),
]


@pytest.mark.parametrize("layout", list(_layouts()))
@pytest.mark.parametrize("call", VIEWS, ids=lambda c: f"{c[0]}{list(c[1:])}")
def test_a_views_stride_rule_gives_the_strides_of_its_numpy_view(call: tuple[Any, ...], layout: str) -> None:
    op, *args = call
    x = _layouts()[layout]
    values = bind_arguments(lookup_op(op).schema, (x, *args), {})
    try:
        out = KERNELS[op](*values)
    except RuntimeError as err:  # torch refuses this view: so does the rule
        assert VIEW_ERROR in str(err)
        with pytest.raises(ValueError, match="view size is not compatible"):
            _rule_strides(op, values, x)
        return
    outs = out if isinstance(out, list) else [out]
    for array, strides in zip(outs, _rule_strides(op, values, x)):
        want = strides if strides is not None else _row_major(array.shape)
        copied = op in ("reshape", "flatten.using_ints") and not np.shares_memory(array, x)
        assert same_layout(array.shape, element_strides(array), want) or (copied and strides is None), \
            (element_strides(array), want)


def _rule_strides(op: str, values: list[Any], x: np.ndarray) -> list[Any]:
    metas = [meta_of(v) if isinstance(v, np.ndarray) else v for v in values]
    expected = SHAPE_RULES[op](*metas)
    strides = result_strides(lookup_op(op).key, metas, expected)
    count = len(expected) if isinstance(expected, list) else 1
    return strides if strides is not None else [None] * count


def _row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))


# ---------------------------------------------------------------------------- view or copy: computeStride


def _random_layout(rng: random.Random) -> np.ndarray:
    sizes = [rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(1, 4))]
    step = [rng.choice([1, 1, 2]) for _ in sizes]
    base = np.zeros([n * s for n, s in zip(sizes, step)], np.float32)
    view = base[tuple(slice(None, None, s) for s in step)]
    return view.transpose(rng.sample(range(view.ndim), view.ndim))


def _factorizations(total: int, rng: random.Random) -> list[int]:
    shape: list[int] = []
    while total > 1 and len(shape) < 4:
        factor = rng.choice([d for d in range(1, total + 1) if total % d == 0])
        shape.append(factor)
        total //= factor
    shape.append(total)
    if rng.random() < 0.3:
        shape.insert(rng.randrange(len(shape) + 1), 1)
    return shape


def test_view_strides_decide_as_numpy_does_whether_a_view_needs_a_copy() -> None:
    """numpy's reshape without a copy (the view kernel) runs the same algorithm on
    its own strides: an independent reference for which new shapes a layout can
    express, and how."""
    rng = random.Random(0)
    decided = {True: 0, False: 0}
    for _ in range(600):
        x = _random_layout(rng)
        new = _factorizations(x.size, rng)
        strides = view_strides(x.shape, element_strides(x), new)
        try:
            viewed = KERNELS["view"](x, new)
        except RuntimeError:
            viewed = None
        decided[viewed is not None] += 1
        assert (strides is not None) == (viewed is not None), (x.shape, element_strides(x), new)
        if viewed is not None:
            assert same_layout(viewed.shape, element_strides(viewed), strides)
    assert min(decided.values()) > 100  # both answers were exercised


def test_view_strides_of_symbolic_layouts() -> None:
    # [s0, 4, 3] transposed from [s0, 3, 4]: the batch dim merges with neither
    assert view_strides((s0, 4, 3), (12, 1, 4), (s0, 12)) is None
    assert view_strides((s0, 4, 3), (12, 1, 4), (s0, 2, 2, 3)) == (12, 2, 1, 4)
    # heads split off a row-major [s0, s1, 8]: [s0, s1, 2, 4]
    assert view_strides((s0, s1, 8), (8 * s1, 8, 1), (s0, s1, 2, 4)) == (8 * s1, 8, 4, 1)
    # merge the batch dims of a permuted q ([b, h, t, d] from [b, t, h, d]) : a copy
    assert view_strides((s0, 4, s1, 8), (32 * s1, 8, 32, 1), (4 * s0, s1, 8)) is None
    assert known_lt(4 * s0, 4 * s0 * s1) and not known_lt(s0, s1) and not known_lt(s1, s0)


# ---------------------------------------------------------------------------- elementwise layouts: torch's


def _meta(shape: tuple[Any, ...], strides: tuple[Any, ...] | None) -> TensorMeta:
    return TensorMeta(shape, DType.float32, strides)


@pytest.mark.parametrize(("shape", "operands", "want"), [
    # torch 2.13: x = torch.randn(2, 4, 3).transpose(1, 2)  -> [2, 3, 4], strides (12, 1, 3)
    ((2, 3, 4), [_meta((2, 3, 4), (12, 1, 3)), 2.0], (12, 1, 3)),  # x * 2
    ((2, 3, 4), [_meta((2, 3, 4), (12, 1, 3)), _meta((2, 3, 4), None)], (12, 1, 3)),  # x + x.contiguous()
    ((2, 3, 4), [_meta((2, 3, 4), None), _meta((2, 3, 4), (12, 1, 3))], (12, 4, 1)),  # x.contiguous() + x
    ((2, 3, 4), [_meta((2, 3, 4), (12, 1, 3)), _meta((4,), None)], (12, 1, 3)),  # x + row
    ((2, 3, 4), [_meta((4,), None), _meta((2, 3, 4), (12, 1, 3))], (12, 1, 3)),  # row + x
    ((2, 3, 2), [_meta((2, 3, 2), (12, 1, 6)), 1], (6, 1, 3)),  # x[:, :, ::2] + 1: dense, same order
    ((2, 3), [_meta((2, 3), (2, 4)), 1], (1, 2)),  # torch.randn(3, 4).t()[::2] + 1
    ((2, 3, 4), [_meta((2, 3, 4), None), 1], (12, 4, 1)),
])
def test_elementwise_layouts_are_torchs(shape: tuple[int, ...], operands: list[Any], want: Any) -> None:
    assert (elementwise_strides(shape, operands) or _row_major(shape)) == want


def test_preserve_format_keeps_a_dense_layout_and_densifies_another() -> None:
    assert preserved_strides(_meta((3, 2), (1, 3))) == (1, 3)  # clone(x.t())
    assert preserved_strides(_meta((2, 3), (2, 4))) == (1, 2)  # clone(randn(3, 4).t()[::2])
    assert preserved_strides(_meta((3, 2), (1, 3)), "contiguous_format") is None
    assert preserved_strides(_meta((2, 3, 4, 5), None), "channels_last") == (60, 1, 15, 3)
    assert is_contiguous(_meta((4, 1), (6, 1))) is False  # torch.randn(4, 6)[:, 0:1]
    assert is_contiguous(_meta((4, 1, 3), (3, 7, 1))) is True  # a size-1 dim's stride is free


# ---------------------------------------------------------------------------- the tracer


def _x(*shape: int) -> Any:
    return torch.from_numpy(np.arange(math.prod(shape), dtype=np.float32).reshape(shape))


class TransposedView(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x.t().view(-1)


class TransposedCopy(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x.t().contiguous().view(-1)


def test_a_view_torch_refuses_fails_at_export_as_in_eager() -> None:
    with pytest.raises(RuntimeError, match=VIEW_ERROR):
        TransposedView()(_x(2, 3))
    with pytest.raises(TracingError, match=r"aten.view.default: view size is not compatible .* Use \.reshape"):
        export(TransposedView(), (_x(2, 3),))
    ep = export(TransposedCopy(), (_x(2, 3),))
    assert ep.module()(_x(2, 3)).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


class ReadsStrides(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    def forward(self, x: Any) -> Any:
        t = x.transpose(1, 2)
        self.seen.append((x.stride(), t.stride(), x.is_contiguous(), t.is_contiguous(), t[:, ::2].stride()))
        return t * t.stride(0)


def test_strides_and_contiguity_read_while_tracing_are_torchs() -> None:
    # torch: for x of sizes [b, n, 4], x.stride() == (4*n, 4, 1), x.transpose(1, 2).stride() == (4*n, 1, 4)
    model = ReadsStrides()
    ep = export(model, (_x(2, 3, 4),), dynamic_shapes=({0: Dim("b"), 1: Dim("n")},))
    (x_strides, t_strides, x_contiguous, t_contiguous, stepped) = model.seen[-1]
    n = str(ep.graph.body.block.args[0].type.shape[1])
    assert [str(s) for s in x_strides] == [f"4*{n}", "4", "1"]
    assert [str(s) for s in t_strides] == [f"4*{n}", "1", "4"]
    assert [str(s) for s in stepped] == [f"4*{n}", "2", "4"]
    assert x_contiguous is True and t_contiguous is False
    for rows in (2, 5):
        x = torch.from_numpy(np.ones((3, rows, 4), np.float32))
        assert ep.module()(x).tolist() == (x.transpose(1, 2) * (4 * rows)).tolist()


class TransposesInPlace(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.contiguous: list[bool] = []

    def forward(self, x: Any) -> Any:
        y = x.clone()
        y.t_()
        self.contiguous.append(y.is_contiguous())
        return y + 1


def test_an_in_place_view_gives_the_tensor_its_new_shape_and_strides() -> None:
    model = TransposesInPlace()
    ep = export(model, (_x(2, 3),))
    assert model.contiguous == [False]  # torch: x.clone().t_().is_contiguous() is False
    assert ep.module()(_x(2, 3)).tolist() == model(_x(2, 3)).tolist() == (_x(2, 3).t() + 1).tolist()


# ---------------------------------------------------------------------------- the IR

_MODULE = """
func.func @f(%x: !tx.tensor<[2, 3, 4], f32>) -> (!tx.symint<1>, !tx.tensor<[2, 2, 2, 3], f32>) {
  %t = training.transpose.int(%x, 1, 2) : !tx.tensor<[2, 4, 3], f32>
  %s = training.sym_stride.int(%t, 1) : !tx.symint<1>
  %v = training.view(%t, [2, 2, 2, 3]) : !tx.tensor<[2, 2, 2, 3], f32>
  %r = training.relu(%t) : !tx.tensor<[2, 4, 3], f32>
  func.return %s, %v : !tx.symint<1>, !tx.tensor<[2, 2, 2, 3], f32>
}
"""


def test_an_ir_values_strides_are_read_off_the_ops_that_made_it() -> None:
    module = parse_module(_MODULE)
    module.verify()  # the sym_stride.int type states the transposed stride
    ops = {op.results[0].name_hint: op.results[0] for op in module.walk() if op.results}
    assert value_strides(ops["t"]) == (12, 1, 4)
    assert value_strides(ops["v"]) == (12, 2, 1, 4)
    assert value_strides(ops["r"]) == (12, 1, 4)  # relu keeps the layout (TensorIterator)
    wrong = parse_module(_MODULE.replace("!tx.symint<1>", "!tx.symint<3>"))
    with pytest.raises(Exception, match="sym_stride.int"):
        wrong.verify()


# ---------------------------------------------------------------------------- the runtime


def test_kernels_lay_results_out_as_torch() -> None:
    t = np.arange(24, dtype=np.float32).reshape(2, 4, 3).transpose(0, 2, 1)
    assert KERNELS["_softmax"](t, -1, False).flags.c_contiguous  # a fresh row-major result
    assert KERNELS["sum.dim_IntList"](t.transpose(2, 0, 1), [2], False, None).flags.c_contiguous
    summed = KERNELS["add.Tensor"](t, np.ascontiguousarray(t), 1)  # numpy would pick row-major
    assert element_strides(summed) == (12, 1, 3)
    assert element_strides(KERNELS["clone"](t, None)) == (12, 1, 3)
    assert KERNELS["clone"](t, "contiguous_format").flags.c_contiguous


def test_kernel_layouts_are_remembered_per_layout_of_the_arguments() -> None:
    """The layout a stride rule gives is memoised per layout of the arguments: two
    layouts of one shape each keep their own, the first call and the memo's agree."""
    t = np.arange(24, dtype=np.float32).reshape(2, 4, 3).transpose(0, 2, 1)  # (2, 3, 4), strides (12, 1, 3)
    u = np.arange(24, dtype=np.float32).reshape(4, 3, 2).transpose(2, 1, 0)  # (2, 3, 4), strides (1, 2, 6)
    for _ in range(2):  # the second time from the memo
        assert element_strides(KERNELS["add.Tensor"](t, t, 1)) == (12, 1, 3)
        assert element_strides(KERNELS["add.Tensor"](u, u, 1)) == (1, 2, 6)
        assert element_strides(KERNELS["clone"](u, None)) == (1, 2, 6)
        assert KERNELS["clone"](u, 0).flags.c_contiguous
        assert KERNELS["bmm"](t, u.transpose(0, 2, 1)).flags.c_contiguous  # no stride rule: row-major
        np.testing.assert_array_equal(KERNELS["add.Tensor"](t, u, 2), t + 2 * u)


def test_unary_layouts_of_views_are_remembered_per_layout() -> None:
    """A unary op on a view remembers the (input, result) layouts it kept: a column
    chunk (not dense) gives row-major, a transposed (dense) input keeps its strides,
    before and after the memo, and a new layout of the same shape decides anew."""
    chunk = np.arange(32, dtype=np.float32).reshape(4, 8)[:, 2:4]
    dense = np.arange(8, dtype=np.float32).reshape(2, 4).T  # (4, 2), strides (1, 4)
    for _ in range(2):
        for op in ("sigmoid", "tanh", "neg"):
            assert KERNELS[op](chunk).flags.c_contiguous
            assert element_strides(KERNELS[op](dense)) == (1, 4)
        np.testing.assert_allclose(KERNELS["sigmoid"](chunk), 1 / (1 + np.exp(-chunk)), rtol=1e-6)


class LayoutsAfterOps(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        t = x.transpose(1, 2)
        return ((t + t.contiguous()).transpose(1, 2).view(x.shape[0], 12),
                t.softmax(-1).view(x.shape[0], 12),
                x.permute(2, 0, 1).sum(-1).view(-1),
                (t * 2).reshape(x.shape[0], 12))


@pytest.mark.parametrize("level", ["training", "functional", "core"])
def test_layouts_after_ops_run_at_every_level_as_eagerly(level: str) -> None:
    ep = export(LayoutsAfterOps(), (_x(2, 3, 4),), dynamic_shapes=({0: Dim("b")},))
    if level != "training":
        ep = ep.run_decompositions({} if level == "functional" else None)
    for batch in (2, 5):
        x = torch.from_numpy(np.random.default_rng(batch).standard_normal((batch, 3, 4), dtype=np.float32))
        for got, want in itertools.zip_longest(ep.module()(x), LayoutsAfterOps()(x)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
