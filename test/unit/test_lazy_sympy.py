"""sympy loads on first use: importing texport and exporting a static model
never runs it (it is most of a cold start), a dynamic export does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = str(Path(__file__).resolve().parents[2] / "examples")

SCRIPT = f"""
import sys
sys.path.insert(0, {EXAMPLES!r})
import texport as torch
from models import ZOO
lazy = lambda: "sympy" not in sys.modules
print("after import:", lazy())
model, args = ZOO["ResNet18"]()
model.eval()
torch.export.export(model, args)
print("after static export:", lazy())
torch.export.export(model, (torch.randn(2, 3, 224, 224),),
                    dynamic_shapes={{"x": {{0: torch.export.Dim("batch")}}}})
print("after dynamic export:", lazy())
"""


def test_sympy_loads_only_when_a_symbol_appears() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:3] == [
        "after import: True", "after static export: True", "after dynamic export: False",
    ], out.stdout + out.stderr
