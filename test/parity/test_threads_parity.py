"""texport.set_num_threads refuses what torch.set_num_threads refuses, with its message."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

import texport  # noqa: E402


def _outcome(framework, count):
    before = framework.get_num_threads()
    try:
        framework.set_num_threads(count)
    except RuntimeError as error:
        return "error", str(error)
    finally_count = framework.get_num_threads()
    framework.set_num_threads(before)
    return "ok", finally_count


@pytest.mark.parametrize("count", [1, 2, 0, -1, 1.5, "2", True])
def test_set_num_threads_matches_torch(count):
    assert _outcome(texport, count) == _outcome(torch, count)
