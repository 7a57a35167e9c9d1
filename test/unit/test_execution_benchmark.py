"""benchmarks/execution.py runs and prints a table whose columns parse: with
torch when it is installed (ratios to torch eager), and without it (texport
columns only, the path taken where torch is absent). Run as a subprocess, so
torch never enters the unit tests' process."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "execution.py"


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), "--models", "ConvBN", "--no-corpus", "--quick",
                           "--pause", "0", *args], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def table(out: str) -> tuple[list[str], list[list[str]]]:
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return rows[0], [r for r in rows[2:]]


def number(cell: str) -> float:
    value = float(cell)
    assert value >= 0
    return value


def test_texport_only_columns(tmp_path: Path) -> None:
    out = run("--no-torch", "--profile", "2", "--json", str(tmp_path / "rows.json"))
    head, rows = table(out)
    assert head == ["model", "eager_ms", "training_ms", "functional_ms", "core_ms", "peak_MiB", "MFLOP",
                    "eager_GF/s", "core_GF/s"]
    assert [r[0] for r in rows] == ["ConvBN"]
    for cell in rows[0][1:]:
        number(cell)
    # a 1x1 convolution, 1 -> 3 channels over a 3x3 image: 27 multiply-adds
    assert float(rows[0][head.index("MFLOP")]) == pytest.approx(54e-6)
    assert "ConvBN [core," in out and "convolution" in out
    saved = json.loads((tmp_path / "rows.json").read_text())
    assert saved["zoo"][0]["flops"] == 54.0


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_against_torch() -> None:
    head, rows = table(run())
    assert head == ["model", "torch_ms", "eager_ms", "eager_x", "training_x", "functional_x", "core_x", "mem_x", "MFLOP",
                    "torch_GF/s", "eager_GF/s", "core_GF/s"]
    for cell in rows[0][1:]:
        number(cell)


def test_texport_peak_counts_array_data_at_its_peak() -> None:
    """The tensor-bytes peak sees the temporary of ``a * 2 + 1`` (three 4,000-byte
    arrays live at once) and not the Python objects around it; ``all`` includes them."""
    spec = importlib.util.spec_from_file_location("execution_benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import numpy as np

    def forward() -> object:
        a = np.ones(1000, np.float32)
        junk = [str(i) * 8 for i in range(300)]  # Python objects only: not tensor data
        b = a * 2 + 1
        del junk
        return b

    data, everything = module.texport_peak(forward)
    assert 12_000 <= data <= 12_400  # and the few Python objects made within a bytecode
    assert everything > data + 20_000
