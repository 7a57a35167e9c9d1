"""Every zoo model at every level: eager == training IR == functional IR ==
core IR, outputs and buffer updates, in train and eval mode, through
ep.module(). Tolerance: rtol 1e-5, atol 1e-5 (decompositions reorder float
sums: addmm for linear, bmm for batched matmul; most outputs are bit-equal).
The core programs hold only core ops (and torch's core extras)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from models import ZOO  # noqa: E402

import texport as torch  # noqa: E402
from texport.lowering.legality import is_core_legal, is_functional_legal  # noqa: E402

RTOL = ATOL = 1e-5


def _leaves(out):  # noqa: ANN001, ANN202
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _levels(name: str, train: bool):  # noqa: ANN202
    model, args = ZOO[name]()
    model.train(train)
    ep = torch.export.export(model, args)
    return args, {"training": ep, "functional": ep.run_decompositions({}), "core": ep.run_decompositions()}


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("name", sorted(ZOO))
def test_every_level_equals_eager(name: str, train: bool) -> None:
    args, programs = _levels(name, train)
    reference, _ = ZOO[name]()
    reference.train(train)
    modules = {level: ep.module() for level, ep in programs.items()}
    for _ in range(2):  # twice: buffer updates must carry over
        want = _leaves(reference(*args))
        for level, module in modules.items():
            got = _leaves(module(*args))
            assert len(got) == len(want), level
            for a, b in zip(want, got):
                np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=RTOL, atol=ATOL, err_msg=f"{name} {level}")
    for level, module in modules.items():
        for (fqn, buffer), (_, mine) in zip(reference.named_buffers(), module.named_buffers()):
            np.testing.assert_allclose(mine.numpy().astype(float), buffer.numpy().astype(float), rtol=RTOL,
                                       atol=ATOL, err_msg=f"{name} {level} {fqn}")


@pytest.mark.parametrize("name", sorted(ZOO))
def test_levels_hold_only_their_ops(name: str) -> None:
    _, programs = _levels(name, True)
    functional = [op.name for op in programs["functional"].graph.walk() if not is_functional_legal(op)]
    core = [op.name for op in programs["core"].graph.walk() if not is_core_legal(op)]
    assert not functional and not core, (functional, core)
    assert programs["functional"].dialect == "INFERENCE" and programs["core"].dialect == "ATEN"


def test_lowering_leaves_the_training_program_untouched() -> None:
    model, args = ZOO["ResNet18"]()
    ep = torch.export.export(model, args)
    before = ep.mlir()
    ep.run_decompositions()
    ep.run_decompositions({})
    assert ep.mlir() == before


def test_resnet_core_histogram_matches_torch() -> None:
    """behaviour reference §10: ResNet-18 eval at core ATen."""
    from collections import Counter

    model, args = ZOO["ResNet18"]()
    model.eval()
    core = torch.export.export(model, args).run_decompositions()
    hist = Counter(op.name for op in core.graph.body.block.ops)
    assert hist["core.convolution"] == 20 and hist["core._native_batch_norm_legit_no_training"] == 20
    assert hist["core.relu"] == 17 and hist["core.add.Tensor"] == 8
    for name in ("max_pool2d_with_indices", "mean.dim", "view", "permute", "addmm"):
        assert hist[f"core.{name}"] == 1, name


def test_gpt_core_histogram_matches_torch() -> None:
    """behaviour reference §10: GPT at core ATen (static batch: no sym_size)."""
    from collections import Counter

    model, args = ZOO["GPT4"]()
    core = torch.export.export(model, args).run_decompositions()
    hist = Counter(op.name.removeprefix("core.") for op in core.graph.body.block.ops)
    assert hist["view"] == 72 and hist["permute"] == 36 and hist["bmm"] == 8
    assert hist["addmm"] == 16 and hist["expand"] == 16 and hist["clone"] == 16 and hist["native_layer_norm"] == 9
    for name in ("_softmax", "where.self", "scalar_tensor", "split_with_sizes", "gelu"):
        assert hist[name] == 4, name


def test_dynamic_batch_gpt_lowers_with_one_size_read() -> None:
    """behaviour reference §10: one sym_size.int and two multiplications on the
    batch symbol; the core program runs on another batch size."""
    from collections import Counter

    from texport.export import Dim

    model, args = ZOO["GPT4"]()
    model.eval()
    ep = torch.export.export(model, args, dynamic_shapes={"x": (Dim("batch", max=1024), None, None)})
    core = ep.run_decompositions()
    hist = Counter(op.name for op in core.graph.body.block.ops)
    assert hist["core.sym_size.int"] == 1 and hist["tx.mul"] == 2
    assert core.range_constraints == ep.range_constraints
    x = torch.randn(3, 128, 256)
    np.testing.assert_allclose(core.module()(x).numpy(), model(x).numpy(), rtol=RTOL, atol=ATOL)
