"""Kernels lay their results out as the ops' stride rules say (interpreter/kernels/layout.py),
the shortcuts of the wrapper included: a pointwise op on a view whose dims are in row-major
order (a chunk, a slice) keeps numpy's row-major result without asking the rule."""

from __future__ import annotations

import numpy as np
import pytest

from texport.dialects.registry import op_key
from texport.interpreter.kernels import KERNELS, layout

RNG = np.random.default_rng(7)


def _views() -> list[np.ndarray]:
    base = RNG.standard_normal((4, 6, 8)).astype(np.float32)
    return [
        base[:, 1:4, 2:7],  # slices: dims in row-major order, with gaps
        base[1, :, 2:6],  # a chunk of a 2-d tensor
        base[:, :, ::2],  # every other column
        base.transpose(2, 0, 1)[:3],  # dims reordered
        base[:, :1, :],  # a size-1 dim
        np.broadcast_to(base[:1, 0, :], (5, 8)),  # stride 0
        base[:, 2, :].T,  # column-major
        base[::2, ::3, 1:],  # steps on every dim
    ]


def _rule_layout(op: str, arg: np.ndarray, out: np.ndarray) -> bool:
    strides = layout.result_strides(op_key(op), [layout._meta(arg)], layout._meta(out))
    return layout._is_laid_out(out, None if strides is None else strides[0] if isinstance(strides, list) else strides)


@pytest.mark.parametrize("op", ["sigmoid", "tanh", "exp", "neg", "abs", "relu", "sqrt", "logical_not"])
def test_pointwise_unary_results_follow_the_stride_rule_on_every_view(op: str) -> None:
    for view in _views():
        out = KERNELS[op](np.abs(view) if op == "sqrt" else view)
        assert _rule_layout(op, view, out), (op, view.shape, view.strides, out.strides)


def test_row_major_order_reads_strides() -> None:
    assert layout._row_major_order((2048, 4))
    assert layout._row_major_order((192, 32, 4))
    assert not layout._row_major_order((4, 2048))  # a transpose
    assert not layout._row_major_order((0, 4))  # a broadcast dim
    assert not layout._row_major_order((32, 32, 4))  # a tie (a size-1 dim's stride)
    assert not layout._row_major_order((-4, 4))


def test_a_non_pointwise_op_on_a_row_major_view_asks_its_rule() -> None:
    """linalg_inv takes one tensor too, but is no TensorIterator op: its result's layout is
    its own rule's, whatever the view's order."""
    base = RNG.standard_normal((3, 5, 8)).astype(np.float32)
    view = base[:, :, 1:6]  # [3, 5, 5], dims in row-major order
    out = KERNELS["linalg_inv"](view)
    assert _rule_layout("linalg_inv", view, out)
    np.testing.assert_allclose(out @ view, np.broadcast_to(np.eye(5), (3, 5, 5)), atol=1e-4)
