"""benchmarks/native.py measures a zoo model by each route and prints a table whose
columns parse; a route that fails shows its error in the row and the run goes on.
Run as a subprocess (as test_execution_benchmark.py runs execution.py), with the
hand-written ConvBN route of iree_test_routes.py registered as ``test-convbn`` and
the torch column left out (torch never enters the run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

ROOT = Path(__file__).resolve().parents[2]

# registers the test route, then runs the benchmark's main with the given arguments
DRIVER = f"""
import sys
sys.path[:0] = [{str(ROOT / "test" / "unit")!r}, {str(ROOT / "benchmarks")!r}]
from iree_test_routes import CONVBN_EVAL, make_route
from texport.backends import routes
routes.ROUTES["test-convbn"] = make_route(CONVBN_EVAL)
routes.ROUTES["test-broken"] = make_route("func.func @forward( this is not MLIR")
import native
sys.exit(native.main(sys.argv[1:]))
"""


def test_a_route_measured_and_a_broken_one_in_its_row(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, "--models", "ConvBN", "--routes", "test-convbn", "test-broken",
         "--quick", "--pause", "0", "--no-torch", "--json", str(tmp_path / "rows.json")],
        capture_output=True, text=True, timeout=300, check=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    head, *rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    assert head[:3] == ["model", "torch_ms", "interp_ms"]
    row = dict(zip(head, rows[1]))  # rows[0] is the markdown rule
    assert row["model"] == "ConvBN" and row["torch_ms"] == "-"
    assert float(row["test-convbn compile_s"]) > 0 and float(row["test-convbn ms"]) > 0
    assert float(row["test-convbn/interp"]) > 0
    assert float(row["test-convbn max_diff"]) <= 1e-5  # the compiled program's numbers are the interpreter's
    assert row["test-broken compile_s"].startswith("error: IreeCompileError")
    assert "- ConvBN [iree-test-broken]: IreeCompileError: iree-compile failed on the 'test-broken' route" \
        in done.stdout
    (saved,) = json.loads((tmp_path / "rows.json").read_text())
    assert saved["model"] == "ConvBN" and "iree-test-convbn" in saved["ms"] and "interpreter" in saved["ms"]
