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
from typing import Any

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


def load_script() -> Any:
    """benchmarks/execution.py as a module (numpy and texport only: torch is imported on call)."""
    spec = importlib.util.spec_from_file_location("execution_benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_texport_peak_counts_array_data_at_its_peak() -> None:
    """The tensor-bytes peak sees the temporary of ``a * 2 + 1`` (three 4,000-byte
    arrays live at once), and not the Python objects around it; ``all`` includes them.
    The 4 bytes over: numpy makes the Python scalar ``1`` a 0-d float32 array, alive
    while the sum's result is allocated (torch wraps a scalar operand in a tensor too)."""
    import numpy as np

    def forward() -> object:
        a = np.ones(1000, np.float32)
        junk = [str(i) * 8 for i in range(300)]  # Python objects only: not tensor data
        b = a * 2 + 1
        del junk
        return b

    data, everything = load_script().texport_peak(forward)
    assert data == 3 * 4_000 + 4
    assert everything > data + 20_000


def test_texport_peak_sees_a_transient_and_nothing_else() -> None:
    """A 1 MiB array made and freed inside counts at its peak; arrays made before the
    call (an input returned as it is) count nothing."""
    import numpy as np

    peak = load_script().texport_peak
    before = np.ones(1 << 18, np.float32)

    def transient() -> object:
        scratch = np.zeros(1 << 20, np.uint8)
        del scratch
        return np.ones(3, np.float32)

    assert peak(transient)[0] >= 1 << 20
    assert peak(lambda: before)[0] == 0
    assert peak(lambda: before.sum())[0] < 64  # a 0-d result, not the input's 1 MiB


def test_tracked_allocations_installs_its_handler_for_the_call_only() -> None:
    """Inside, numpy allocates through the counting handler; after, through the one before;
    an array made inside keeps the counting handler, and its free is counted while inside."""
    import numpy as np

    sys.path.insert(0, str(SCRIPT.parent))
    from numpy_memory import tracked_allocations

    try:
        from numpy._core.multiarray import get_handler_name
    except ImportError:  # numpy 1.x
        from numpy.core.multiarray import get_handler_name
    before = get_handler_name()
    with tracked_allocations() as allocations:
        made = np.empty(1000, np.float64)
        assert get_handler_name() == get_handler_name(made) == "texport_benchmarks_counting"
        assert allocations.live == allocations.peak == 8_000
        dropped = np.empty(500, np.uint8)
        del dropped
        assert (allocations.live, allocations.peak) == (8_000, 8_500)
    assert get_handler_name() == before
    assert get_handler_name(made) == "texport_benchmarks_counting"
    del made  # freed through the counting handler, after it was uninstalled


def test_arrays_made_while_tracked_may_outlive_everything() -> None:
    """numpy frees an array through the handler it was made with, even as the interpreter
    exits after clearing the handler's module: the handler must still be there (a crash,
    else). In a subprocess, which exits."""
    code = f"""
import sys
sys.path.insert(0, {str(SCRIPT.parent)!r})
import numpy as np
import numpy_memory
with numpy_memory.tracked_allocations():
    kept = [np.ones(1000) for _ in range(10)]
numpy_memory.kept = kept  # freed as the exit clears the module's globals, after its handler's
del kept
print("exiting")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "exiting", "")


def test_block_medians_in_rounds_keep_each_variants_median_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """With rounds, each variant's blocks take turns and the median of its block medians is
    kept: a variant slowed in one round of three (the machine drifting) keeps its usual time."""
    script = load_script()
    now = [0.0]
    monkeypatch.setattr(script.time, "perf_counter", lambda: now[0])
    order: list[str] = []
    slow_round = {"a": 1}  # a's second block runs ten times slower
    seen = {"a": 0, "b": 0}

    def call(key: str, ms: float) -> Any:
        def fn() -> None:
            order.append(key)
            block = seen[key] // 5  # 2 warm-up calls + 3 timed calls per block
            seen[key] += 1
            now[0] += ms * (10 if slow_round.get(key) == block else 1) / 1e3
        return fn

    times = script.block_median_ms({"a": call("a", 2.0), "b": call("b", 3.0)}, repeat=3, rounds=3)
    assert times == pytest.approx({"a": 2.0, "b": 3.0})
    assert order == (["a"] * 5 + ["b"] * 5) * 3  # the blocks in turns
