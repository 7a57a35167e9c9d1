"""benchmarks/execution.py's torch_peak against real torch: the peak of a forward sees
the temporaries an op allocates and frees inside itself (the texport side's peak is
tested in test/unit/test_execution_benchmark.py, without torch)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "execution.py"


def execution_benchmark() -> object:
    spec = importlib.util.spec_from_file_location("execution_benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_torch_peak_sees_a_convolutions_column_buffer() -> None:
    """torch's conv 3 -> 16, 3x3, padding 1, on 1x3x64x64 allocates its im2col buffer
    (3 * 9 * 64 * 64 floats, 442,368 bytes) inside the op, besides its 262,144-byte
    output: the peak sees both. And ``x * 2 + 1`` on 1,000 floats: two 4,000-byte
    tensors live at once."""
    module = execution_benchmark()
    conv = torch.nn.Conv2d(3, 16, 3, padding=1)
    x = torch.randn(1, 3, 64, 64)

    def forward() -> object:
        with torch.no_grad():
            return conv(x)

    forward()
    t = torch.ones(1000)
    assert module.torch_peak(torch, forward) >= 442_368 + 262_144
    assert module.torch_peak(torch, lambda: t * 2 + 1) >= 8_000
