"""Every corpus model at every level against real torch: outputs, updated
buffers and mutated inputs (on the example input and on a second input with
other dynamic sizes), the graph signature, and the core op multiset."""

from __future__ import annotations

import functools

import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

from harness import LEVELS, Runner, corpus_pairs, signature_difference  # noqa: E402

PAIRS = {pair.name: pair for pair in corpus_pairs(torch)}


@functools.cache
def runner(name: str) -> Runner:
    return Runner(PAIRS[name], torch)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_outputs_buffers_and_inputs_equal_torchs(name: str, level: str) -> None:
    runner(name).run(level)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(n for n, p in PAIRS.items() if p.torch_case.second is not None))
def test_second_input_with_other_dynamic_sizes(name: str, level: str) -> None:
    runner(name).run(level, second=True)


@pytest.mark.parametrize("level", LEVELS[1:])
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_graph_signature_equals_torchs(name: str, level: str) -> None:
    want, got = runner(name).signatures(level)
    assert got == want, signature_difference(want, got)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_core_ops_equal_torchs(name: str) -> None:
    difference = runner(name).core_ops()
    assert not difference, f"core op counts (torch, texport) that differ: {difference}"
