"""The dynamic-shape programs of issue 15 against real torch: every level's
numbers on the example and on a second input with other sizes, the range
constraints, and, for named Dims the programs cannot keep, torch's
ConstraintViolationError bullets and suggested fixes. (Their graph signatures
and core op multisets are the corpus suite's concern: the names torch gives
outputs after run_decompositions and its symbolic-int arithmetic nodes are
compared there.)"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

from harness import LEVELS, Runner, corpus_pairs, load_source  # noqa: E402

import texport  # noqa: E402

PROGRAMS = Path(__file__).parent / "dynamic" / "shapes.py"
PAIRS = {pair.name: pair for pair in corpus_pairs(torch, [PROGRAMS])}


@functools.cache
def runner(name: str) -> Runner:
    return Runner(PAIRS[name], torch)


@pytest.mark.parametrize("second", [False, True])
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_numbers_equal_torchs(name: str, level: str, second: bool) -> None:
    runner(name).run(level, second=second)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_range_constraints_equal_torchs(name: str) -> None:
    torch_ep, texport_ep = runner(name).programs("training")
    assert {str(k): repr(v) for k, v in texport_ep.range_constraints.items()} == \
        {str(k): repr(v) for k, v in torch_ep.range_constraints.items()}


def _violation(framework, name: str) -> str:
    program = load_source(PROGRAMS, framework).violations()[name]
    with pytest.raises(Exception) as caught:  # noqa: PT011 - each framework's own error class
        program()
    return str(caught.value)


@pytest.mark.parametrize("name", ["half_slice_named", "half_slice_named_bounded", "stacked_downsampling_named"])
def test_constraint_violations_give_torchs_bullets_and_fixes(name: str) -> None:
    """Each bullet texport gives is one of torch's, and the fixes are torch's
    (torch adds bullets for its size != 1 guards, which texport does not make)."""
    want, got = _violation(torch, name), _violation(texport, name)
    bullets = [line for line in got.splitlines() if line.startswith("  - ")]
    assert bullets and all(bullet in want.splitlines() for bullet in bullets)
    assert got.split("Suggested fixes:\n")[1].split("\n\n")[0] == want.split("Suggested fixes:\n")[1].split("\n\n")[0]
