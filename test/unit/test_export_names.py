"""Placeholder names and keyword inputs as torch.export gives them (the
expected names are torch 2.13's for the same modules)."""

from __future__ import annotations

import numpy as np

import texport
import texport.nn as nn


class Named(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.self_w = nn.Parameter(texport.ones(3))  # torch drops a leading "self_": p_w
        self.W = nn.Parameter(texport.ones(3))  # lower case: p_w again, so p_w_1
        self.register_buffer("selfish", texport.ones(3))

    def forward(self, x, y=None, z=None, *rest, **extra):  # noqa: ANN001, ANN002, ANN003, ANN201
        out = x * self.self_w * self.W + self.selfish + z
        for value in rest:
            out = out + value
        return out + extra["a"] + extra["d"]["q"]


def test_placeholders_are_named_as_torch_names_them() -> None:
    x = texport.ones(3)
    ep = texport.export.export(Named(), (x, None, x, x, x), {"a": x, "d": {"q": x}})
    names = [spec.arg.name for spec in ep.graph_signature.input_specs]
    assert names == ["p_w", "p_w_1", "b_selfish", "x", "y", "z", "rest_0", "rest_1", "a", "d_q"]


class Skips(nn.Module):
    def forward(self, a, b=None, c=None):  # noqa: ANN001, ANN201
        return a - c


def test_a_keyword_after_a_left_out_parameter_stays_a_keyword() -> None:
    a, c = texport.ones(2), texport.full((2,), 3.0)
    ep = texport.export.export(Skips(), (), {"a": a, "c": c})
    assert [spec.arg.name for spec in ep.graph_signature.input_specs] == ["a", "c"]
    np.testing.assert_array_equal(ep.module()(a=a, c=c).numpy(), [-2.0, -2.0])
