"""Parameters and buffers registered under several names (tied weights): torch
lifts one argument per name, keeps every name in the state dict, reads the
tensor through the last name, and ``ep.module()`` shares one tensor between
the names. Expectations recorded from torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import texport as torch


class TiedLM(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(10, 4)
        self.lm_head = torch.nn.Linear(4, 10, bias=False)
        self.lm_head.weight = self.embed.weight
        self.register_buffer("scale", torch.ones(4))
        self.register_buffer("scale_alias", self.scale)
        self.register_buffer("shift", torch.zeros(4), persistent=False)
        self.register_buffer("shift_alias", self.shift, persistent=False)

    def forward(self, idx):
        return self.lm_head(self.embed(idx) * self.scale + self.shift_alias)


IDX = torch.tensor([[1, 2, 3], [4, 5, 6]])


def _program(level: str, model: TiedLM | None = None):
    ep = torch.export.export(model or TiedLM(), (IDX,))
    return ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)


@pytest.mark.parametrize("level", ["training", "functional", "core"])
def test_every_name_of_a_tied_tensor_is_an_input(level: str) -> None:
    signature = _program(level).graph_signature
    inputs = [(s.kind.name, s.arg.name, s.target, s.persistent) for s in signature.input_specs]
    assert inputs == [
        ("PARAMETER", "p_embed_weight", "embed.weight", None),
        ("PARAMETER", "p_lm_head_weight", "lm_head.weight", None),
        ("BUFFER", "b_scale", "scale", True),
        ("BUFFER", "b_scale_alias", "scale_alias", True),
        ("BUFFER", "b_shift", "shift", False),
        ("BUFFER", "b_shift_alias", "shift_alias", False),
        ("USER_INPUT", "idx", None, None),
    ]
    assert signature.parameters == ("embed.weight", "lm_head.weight")
    assert signature.buffers == ("scale", "scale_alias", "shift", "shift_alias")


def test_the_forward_reads_a_tied_tensor_through_its_last_name() -> None:
    listing = _program("training").graph_module.code
    assert "embedding.default(p_lm_head_weight, idx)" in listing
    assert "mul.Tensor(embedding, b_scale_alias)" in listing


def test_state_dict_and_constants_keep_every_name() -> None:
    ep = _program("training")
    assert list(ep.state_dict) == ["embed.weight", "lm_head.weight", "scale", "scale_alias"]
    assert ep.state_dict["embed.weight"] is ep.state_dict["lm_head.weight"]
    assert list(ep.constants) == ["shift", "shift_alias"]
    assert [name for name, _ in ep.named_parameters()] == ["embed.weight", "lm_head.weight"]
    assert [name for name, _ in ep.named_buffers()] == ["scale", "scale_alias", "shift", "shift_alias"]


@pytest.mark.parametrize("level", ["training", "functional", "core"])
def test_module_shares_a_tied_tensor_and_runs(level: str) -> None:
    model = TiedLM()
    module = _program(level, model).module()
    assert module.lm_head.weight is module.embed.weight
    assert module.scale_alias is module.scale
    assert [name for name, _ in module.named_parameters()] == ["embed.weight"]
    assert list(module.state_dict()) == ["scale", "scale_alias", "embed.weight", "lm_head.weight"]
    np.testing.assert_allclose(module(IDX).detach().numpy(), model(IDX).detach().numpy(), rtol=1e-6)
    with torch.no_grad():
        module.embed.weight.fill_(1.0)  # one tensor: the head sees the new weights
    np.testing.assert_allclose(module(IDX).detach().numpy(), np.full((2, 3, 10), 4.0, dtype=np.float32))
