"""Core op-set parity, layer by layer: each small program of ``layers/`` (one
common layer or op each, written once against a module-level ``torch``, as the
corpus is) runs under real torch and texport with the same weights. At every
level texport's outputs, buffers and mutated inputs equal torch's and the graph
signature is torch's; at the core level the multiset of core ops is the one
torch's ``run_decompositions()`` gives, so a pass written against texport's
core IR meets the ops it would meet in torch's."""

from __future__ import annotations

import collections
import functools
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

from harness import LEVELS, Runner, corpus_pairs, texport_core_ops, torch_core_ops  # noqa: E402

LAYERS = Path(__file__).parent / "layers"
PAIRS = {pair.name: pair for pair in corpus_pairs(torch, sorted(LAYERS.glob("*.py")))}


@functools.cache
def runner(name: str) -> Runner:
    return Runner(PAIRS[name], torch)


def _computing(counts: collections.Counter[str]) -> collections.Counter[str]:
    """Without Python's operators on sizes (``<built-in function mul>``): torch
    traces size arithmetic as graph nodes, texport as ``tx`` ops."""
    return collections.Counter({op: n for op, n in counts.items() if not op.startswith("<built-in")})


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_outputs_equal_torchs(name: str, level: str) -> None:
    runner(name).run(level)
    if runner(name).second is not None:
        runner(name).run(level, second=True)


@pytest.mark.parametrize("level", LEVELS[1:])
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_graph_signature_equals_torchs(name: str, level: str) -> None:
    want, got = runner(name).signatures(level)
    assert got == want


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_core_op_multiset_equals_torchs(name: str) -> None:
    torch_ep, texport_ep = runner(name).programs("core")
    want, got = _computing(torch_core_ops(torch_ep)), _computing(texport_core_ops(texport_ep))
    exceptions = PAIRS[name].texport_case.core_op_exceptions
    differ = {op: (want[op], got[op]) for op in sorted(set(want) | set(got))
              if want[op] != got[op] and op not in exceptions}
    assert not differ, f"core op counts (torch, texport) that differ: {differ}"


# Core ops torch's default table decomposes that texport's keeps, each with why.
CORE_OPS_KEPT = {
    "aten.sym_size.int": "a size read: torch's decomposition answers it from the fake tensor, texport's IR reads it",
    "aten.sym_stride.int": "a stride read (as sym_size.int)",
    "aten.sym_is_contiguous.default": "a layout query (as sym_size.int)",
}


def test_default_table_decomposes_the_core_ops_torchs_does() -> None:
    """torch's default table still decomposes a few core ops (squeeze.dim into
    squeeze.dims, var.dim into var.correction, select_scatter into a where...):
    texport's decomposes the same ones, so its core programs hold the same forms."""
    from texport.dialects.registry import OPS
    from texport.lowering.default_table import default_decompositions

    torchs = {str(op) for op in torch.export.default_decompositions() if torch.Tag.core in op.tags}
    ours = {key for key in default_decompositions().by_key() if key in OPS and OPS[key].is_core}
    assert ours == {key for key in torchs if key in OPS} - CORE_OPS_KEPT.keys()
