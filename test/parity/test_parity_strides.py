"""Strides against real torch: for small programs of views and ops, the strides of
every value of texport's training program (read off the IR, dialects/layout.py)
equal those of torch's exported graph, node for node, size-1 dims included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

import texport  # noqa: E402
from texport.dialects.layout import value_strides  # noqa: E402
from texport.dialects.shape_rules.strides import contiguous_strides  # noqa: E402
from texport.dialects.tx import TensorType  # noqa: E402

# name -> program, given the framework (torch or texport)
PROGRAMS: dict[str, Callable[[Any], Callable[[Any], Any]]] = {
    "permute_then_mul": lambda m: lambda x: x.permute(2, 0, 1) * 2,
    "expand": lambda m: lambda x: x[:, :1].expand(2, 5, 4) + 0,
    "unsqueeze": lambda m: lambda x: x.transpose(0, 1).unsqueeze(1).unsqueeze(-1),
    "squeeze": lambda m: lambda x: x[:, :1].transpose(0, 2).squeeze(2),
    "diagonal": lambda m: lambda x: x.diagonal(0, 1, 2),
    "unfold": lambda m: lambda x: m.ops.aten.unfold.default(x, 1, 2, 1),
    "stepped_slices": lambda m: lambda x: x[:, 1::2, ::3],
    "select": lambda m: lambda x: x.transpose(0, 2)[1],
    "split": lambda m: lambda x: x.transpose(1, 2).split(2, 1),
    "chunk": lambda m: lambda x: x.chunk(2, 2),
    "unbind": lambda m: lambda x: x.permute(1, 0, 2).unbind(2),
    "movedim": lambda m: lambda x: m.movedim(x, 0, -1),
    "narrow": lambda m: lambda x: x.narrow(2, 1, 2),
    "view_splits_a_dim": lambda m: lambda x: x.transpose(0, 1).view(3, 2, 2, 2),
    "clone_of_a_sparse_view": lambda m: lambda x: x.transpose(0, 2)[::2].clone(),
    "where": lambda m: lambda x: m.where(x.transpose(1, 2) > 0, x.transpose(1, 2), 0.0),
    "broadcast": lambda m: lambda x: x.transpose(1, 2) + x[0, :, 0],
    "broadcast_size_one": lambda m: lambda x: x[:, :1].transpose(1, 2) * x.transpose(1, 2),
    "mixed_layouts": lambda m: lambda x: x.transpose(1, 2) + x.transpose(1, 2).contiguous(),
    "to_copy": lambda m: lambda x: x.transpose(0, 1).to(m.float64),
    "zeros_like": lambda m: lambda x: m.zeros_like(x.permute(2, 1, 0)) + 1,
    "contiguous": lambda m: lambda x: x.transpose(0, 1).contiguous(),
    "reshape_view": lambda m: lambda x: x.transpose(1, 2).reshape(2, 2, 2, 3),
    "reshape_copy": lambda m: lambda x: x.permute(0, 2, 1).flatten(1),
    "t": lambda m: lambda x: x[0].t(),
    "softmax_of_a_transpose": lambda m: lambda x: x.transpose(1, 2).softmax(-1),
    "sum_of_a_permute": lambda m: lambda x: x.permute(2, 0, 1).sum(-1),
    # a batch_first recurrent output is its time-major result transposed
    "gru_batch_first": lambda m: lambda x: m.ops.aten.gru.input(
        x, m.zeros(1, 2, 5), [m.ones(15, 4), m.ones(15, 5)], False, 1, 0.0, False, False, True),
    "lstm_bidirectional_time_major": lambda m: lambda x: m.ops.aten.lstm.input(
        x, [m.zeros(2, 3, 5), m.zeros(2, 3, 5)], [m.ones(20, 4), m.ones(20, 5)] * 2, False, 1, 0.0, False, True,
        False),
}


def _module(framework: Any, fn: Callable[[Any], Any]) -> Any:
    class Program(framework.nn.Module):
        def forward(self, x: Any) -> Any:
            return fn(x)

    return Program()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_value_has_torchs_strides(name: str) -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 4), dtype=np.float32)
    torch_ep = torch.export.export(_module(torch, PROGRAMS[name](torch)), (torch.from_numpy(x.copy()),))
    want = [tuple(node.meta["val"].stride()) for node in torch_ep.graph.nodes
            if node.op == "call_function" and isinstance(node.meta.get("val"), torch.Tensor)]
    ep = texport.export.export(_module(texport, PROGRAMS[name](texport)), (texport.from_numpy(x.copy()),))
    memo: dict[Any, Any] = {}
    got = []
    for op in ep.graph.body.block.ops:
        for result in op.results:
            if isinstance(result.type, TensorType):
                strides = value_strides(result, memo)
                got.append(tuple(strides) if strides is not None else contiguous_strides(result.type.shape))
    assert got == want
