"""Dynamic shapes that real models meet (issue 15): each program exports,
runs at the training, functional and core levels with the example and with
other sizes, and gives torch 2.13's types, range constraints and messages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import texport as torch
from texport.export import Dim

F = torch.nn.functional


def levels(ep: Any) -> Iterator[tuple[str, Any]]:
    """The program at each level, as a callable module."""
    yield "training", ep.module()
    yield "functional", ep.run_decompositions({}).module()
    yield "core", ep.run_decompositions().module()


def check_levels(ep: Any, reference: Callable[..., Any], *inputs: tuple[Any, ...]) -> None:
    """Every level gives the reference's numbers on every input tuple."""
    for level, module in levels(ep):
        for args in inputs:
            got, want = module(*args), reference(*args)
            got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
            for g, w in zip(got, want):
                w = w.numpy() if hasattr(w, "numpy") else w
                np.testing.assert_array_equal(g.numpy() if hasattr(g, "numpy") else g, w, err_msg=level)


def arg_types(ep: Any) -> list[str]:
    return [str(a.type) for a in ep.graph.body.block.args]


def ranges(ep: Any) -> dict[str, str]:
    return {str(k): repr(v) for k, v in ep.range_constraints.items()}


def core_text(ep: Any) -> str:
    return str(ep.run_decompositions().graph)


# ---------------------------------------------------------------- reshape(b, t, -1)


class MergeTail(torch.nn.Module):
    def forward(self, x):
        b, t = x.shape[0], x.shape[1]
        return x.reshape(b, t, -1)


def test_reshape_with_dynamic_leading_dims_infers_a_static_tail() -> None:
    """torch: view(x, [sym_size_int, sym_size_int_1, -1]) typed f32[s77, s27, 16]."""
    x = torch.randn(2, 3, 4, 4)
    for spec in ({0: Dim.AUTO, 1: Dim.AUTO}, {0: Dim("b"), 1: Dim("t")}):
        ep = torch.export.export(MergeTail(), (x,), dynamic_shapes={"x": spec})
        assert "!tx.tensor<[s77, s27, 16], f32>" in core_text(ep)
        check_levels(ep, MergeTail(), (x,), (torch.randn(5, 7, 4, 4),))
