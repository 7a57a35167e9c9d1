"""Dynamic shapes on the zoo: GPT4 with dynamic batch and sequence length
equals eager at three sizes; ResNet18 with a dynamic batch; 0/1 examples."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from models import ZOO  # noqa: E402

import texport as torch  # noqa: E402
from texport.export import ConstraintViolationError, Dim  # noqa: E402


def test_gpt4_dynamic_batch_and_sequence() -> None:
    model, (x,) = ZOO["GPT4"]()
    model.eval()
    ep = torch.export.export(model, (x,), dynamic_shapes={
        "x": (Dim("batch", max=1024), Dim("seq", min=2, max=1024), None)})
    arg = next(a for a in ep.graph.body.block.args if a.name_hint == "x")
    assert str(arg.type) == "!tx.tensor<[s77, s27, 256], f32>"
    assert {str(k): repr(v) for k, v in ep.range_constraints.items()} == {
        "s77": "VR[0, 1024]", "s27": "VR[2, 1024]"}
    exported = ep.module()
    for batch, seq in ((1, 5), (3, 64), (2, 128)):
        inp = torch.randn(batch, seq, 256)
        np.testing.assert_array_equal(exported(inp).numpy(), model(inp).numpy())
    with pytest.raises(AssertionError, match=r"Guard failed: x.size\(\)\[1\] <= 1024"):
        exported(torch.randn(1, 1025, 256))


def test_resnet18_dynamic_batch() -> None:
    model, _ = ZOO["ResNet18"]()
    model.eval()
    ep = torch.export.export(model, (torch.randn(2, 3, 224, 224),),
                             dynamic_shapes={"x": {0: Dim("batch", max=64)}})
    assert [repr(v) for v in ep.range_constraints.values()] == ["VR[0, 64]"]
    inp = torch.randn(3, 3, 224, 224)
    np.testing.assert_allclose(ep.module()(inp).numpy(), model(inp).numpy(), rtol=0, atol=0)


class Add(torch.nn.Module):
    def forward(self, x):
        return x + 1


def test_size_one_examples() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ep = torch.export.export(Add(), (torch.ones(1, 3),), dynamic_shapes={"x": (Dim.AUTO, None)})
    assert "0/1 specialized" in str(caught[0].message)
    assert caught[0].filename == __file__  # the warning names the user's export() call
    assert str(ep.graph.body.block.args[0].type) == "!tx.tensor<[1, 3], f32>"
    with pytest.raises(ValueError, match="0/1 specialized due to hint of 1"):
        torch.export.export(Add(), (torch.ones(1, 3),), dynamic_shapes={"x": (Dim.DYNAMIC, None)})
    with pytest.raises(ConstraintViolationError, match=r"specialized it to be a constant \(1\)") as info:
        torch.export.export(Add(), (torch.ones(1, 3),), dynamic_shapes={"x": (Dim("dx"), None)})
    assert info.value.suggested_fixes == ["dx = 1"]


def test_symbolic_sizes_flow_as_symints() -> None:
    class Reshape(torch.nn.Module):
        def forward(self, x):
            n = x.shape[0]
            return x.reshape(n // 2, 2 * x.shape[1]), torch.zeros(n, 2)

    ep = torch.export.export(Reshape(), (torch.ones(6, 3),), dynamic_shapes={"x": (Dim.AUTO, None)})
    text = ep.mlir()
    assert "core.sym_size.int" in text or "training.sym_size.int(%x, 0)" in text
    assert "tx.floordiv" in text and "training.zeros([%sym_size_int, 2])" in text
    out = ep.module()(torch.ones(8, 3))
    assert [list(o.shape) for o in out] == [[4, 6], [8, 2]]
