"""Export time of the zoo next to torch.export's figures (behaviour reference §10).

    python benchmarks/export.py [--repeat 5]

warm: median of --repeat exports in one process after a warm-up export.
cold: a fresh Python process that imports texport and exports once; the
figure includes the import (and, separately, the export alone).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

# torch 2.13 on this class of machine: export median and cold seconds (§10).
TORCH = {"ConvBN": (0.013, 0.880), "MLP50": (0.184, 1.017), "GPT4": (0.473, 1.242),
         "ResNet18": (0.162, 1.078)}

COLD = """
import sys, time, json
start = time.perf_counter()
import texport as torch
sys.path.insert(0, {examples!r})
from models import ZOO
imported = time.perf_counter()
model, args = ZOO[{name!r}]()
model.eval()
built = time.perf_counter()
torch.export.export(model, args)
done = time.perf_counter()
print(json.dumps({{"import": imported - start, "export": done - built}}))
"""


def warm(name: str, repeat: int) -> tuple[float, int]:
    from models import ZOO

    import texport as torch

    model, args = ZOO[name]()
    model.eval()
    ep = torch.export.export(model, args)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        torch.export.export(model, args)
        times.append(time.perf_counter() - start)
    ops = sum(1 for op in ep.graph.body.block.ops) - 1
    return statistics.median(times), ops


def gpt4_dynamic(repeat: int) -> tuple[float, float]:
    """Warm export of GPT4 with dynamic batch and sequence length, and the static one."""
    from models import ZOO

    import texport as torch
    from texport.export import Dim

    model, args = ZOO["GPT4"]()
    model.eval()
    spec = {"x": (Dim("batch", max=1024), Dim("seq", min=2, max=1024), None)}
    timings = {}
    for label, shapes in (("dynamic", spec), ("static", None)):
        torch.export.export(model, args, dynamic_shapes=shapes)
        samples = []
        for _ in range(repeat):
            start = time.perf_counter()
            torch.export.export(model, args, dynamic_shapes=shapes)
            samples.append(time.perf_counter() - start)
        timings[label] = statistics.median(samples)
    return timings["dynamic"], timings["static"]


def cold(name: str) -> dict[str, float]:
    code = COLD.format(examples=str(ROOT / "examples"), name=name)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--models", nargs="+", default=list(TORCH))
    args = parser.parse_args()
    print(f"{'model':<9} {'ops':>4} {'warm (ms)':>10} {'torch (ms)':>10} {'ratio':>6} "
          f"{'cold (s)':>9} {'of which export':>16} {'torch cold':>11} {'ratio':>6}")
    for name in args.models:
        median, ops = warm(name, args.repeat)
        first = cold(name)
        total = first["import"] + first["export"]
        torch_warm, torch_cold = TORCH[name]
        print(f"{name:<9} {ops:>4} {median * 1e3:>10.1f} {torch_warm * 1e3:>10.0f} "
              f"{torch_warm / median:>5.0f}x {total:>9.3f} {first['export']:>16.3f} "
              f"{torch_cold:>11.3f} {torch_cold / total:>5.1f}x")
    dynamic, static = gpt4_dynamic(args.repeat)
    print(f"GPT4 dynamic batch+seq: {dynamic * 1e3:.1f} ms vs static {static * 1e3:.1f} ms "
          f"({dynamic / static:.2f}x; goal <= 1.5x)")


if __name__ == "__main__":
    main()
