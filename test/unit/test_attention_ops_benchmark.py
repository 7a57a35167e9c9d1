"""benchmarks/attention_ops.py runs and prints its three tables, every op's and pass's
row with a time, and the ratio column only when torch is there. Run as a subprocess, so torch
never enters the unit tests' process."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "attention_ops.py"
OPS = ["softmax", "masked_fill", "layer_norm", "gelu", "q @ k.T", "weights @ v", "scale", "residual add"]


def tables(*args: str) -> list[list[list[str]]]:
    out = subprocess.run([sys.executable, str(SCRIPT), "--repeat", "3", "--rounds", "1", *args],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    found: list[list[list[str]]] = []
    previous = ""
    for line in out.splitlines():
        if line.startswith("| "):
            if not previous.startswith("| "):
                found.append([])
            found[-1].append([cell.strip() for cell in line.strip("|").split("|")])
        previous = line
    return found


def check(ops: list[list[str]], passes: list[list[str]], dispatch: list[list[str]], with_torch: bool) -> None:
    head, body = ops[0], ops[2:]
    assert head == ["op", "shape", "texport_ms"] + (["torch_ms", "x_torch"] if with_torch else [])
    assert [row[0] for row in body] == OPS
    for row in body:
        assert all(float(cell) > 0 for cell in row[2:4])  # times (a ratio may print as 0.00)
        if with_torch:  # the ratio of the unrounded times: the printed ones are within 0.0005 ms
            ours, theirs, shown = (float(cell) for cell in row[2:5])
            slack = ours / theirs * (0.0005 / ours + 0.0005 / theirs) * 1.01 + 0.005
            assert abs(shown - ours / theirs) <= slack, row
    assert passes[0] == ["pass", "ns_per_element"] and len(passes) == 2 + 6
    assert all(float(row[1]) > 0 for row in passes[2:])
    eager, program, difference = (float(cell) for cell in dispatch[2])
    assert eager > 0 and program > 0 and difference == pytest.approx(eager - program, abs=0.002)


def test_texport_only() -> None:
    check(*tables("--no-torch"), with_torch=False)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is the optional oracle")
def test_against_torch() -> None:
    check(*tables(), with_torch=True)
