"""Every zoo model exports, and ep.module() equals eager execution — outputs
and buffer updates, in train and eval mode. Tolerance: exact (the interpreter
runs the same kernels as eager mode)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from models import ZOO  # noqa: E402

import texport as torch  # noqa: E402


def _leaves(out):  # noqa: ANN001, ANN202
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("name", sorted(ZOO))
def test_exported_module_equals_eager(name: str, train: bool) -> None:
    model, args = ZOO[name]()
    model.train(train)
    ep = torch.export.export(model, args)
    reference, _ = ZOO[name]()
    reference.train(train)
    exported = ep.module()
    for _ in range(2):  # twice: buffer updates must carry over
        want, got = _leaves(reference(*args)), _leaves(exported(*args))
        for a, b in zip(want, got):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    for (fqn, buffer), (_, mine) in zip(reference.named_buffers(), exported.named_buffers()):
        np.testing.assert_array_equal(buffer.numpy(), mine.numpy(), err_msg=fqn)


def test_export_leaves_the_model_untouched() -> None:
    model, args = ZOO["ConvBN"]()
    model.train()
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    torch.export.export(model, args)
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[key], err_msg=key)


def test_readable_listing_and_ir_access() -> None:
    model, args = ZOO["MLP50"]()
    ep = torch.export.export(model, args)
    listing = ep.graph_module.print_readable(print_output=False)
    assert listing.startswith("class GraphModule(torch.nn.Module):")
    assert 'linear: "f32[32, 256]" = torch.ops.aten.linear.default(x, p_layers_0_weight, p_layers_0_bias)' in listing
    assert listing.count("torch.ops.aten.relu.default") == 50
    func = ep.graph
    assert func.sym_name.data == "forward"
    assert len(ep.graph_signature.parameters) == 100
    assert ep.graph_signature.user_inputs == ("x",)
    text = ep.mlir()
    assert "training.linear" in text
    from texport.dialects.context import parse_module, print_module

    assert print_module(parse_module(text)) == text  # the exported IR round-trips
