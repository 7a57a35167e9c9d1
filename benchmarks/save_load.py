"""save/load time next to torch.export.save/load (behaviour reference §9).

    python benchmarks/save_load.py [--repeat 5] [--models ResNet18 GPT4]

ResNet18 (eval) is saved to a file, the GPT stack (dynamic batch) to a BytesIO,
as torch's figures were taken. Each program is at the core level when
run_decompositions is available, else at the training level (the column says
which). Times are the median of --repeat after one warm-up; "first load" is the
first load in the process (it also builds the xDSL context). Goal: load no
slower than torch.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

# torch 2.13 (§9): save median, load median (s), archive bytes.
TORCH = {"ResNet18": (0.1541, 0.1620, 47_623_116), "GPT4": (0.153, 0.544, 13_589_635)}


def program(name: str) -> tuple[Any, str]:
    """The zoo model exported as torch's figures were (eval; GPT with a dynamic batch),
    lowered to core when lowering exists."""
    from models import ZOO

    import texport as torch

    model, args = ZOO[name]()
    model.eval()
    shapes = {"x": {0: torch.export.Dim("batch", max=1024)}} if name == "GPT4" else None
    ep = torch.export.export(model, args, dynamic_shapes=shapes)
    try:
        return ep.run_decompositions(), "core"
    except ModuleNotFoundError as err:
        if not (err.name or "").startswith("texport.lowering"):
            raise
        return ep, "training"


def timed(action: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """(first, median of the next ``repeat``) in seconds."""
    start = time.perf_counter()
    action()
    first = time.perf_counter() - start
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return first, statistics.median(times)


def measure(name: str, repeat: int, folder: str) -> dict[str, Any]:
    from texport.export.serialization import load, save

    ep, level = program(name)
    if name == "GPT4":  # torch's GPT figures are for a BytesIO
        buffer = io.BytesIO()
        _, save_time = timed(lambda: (buffer.seek(0), buffer.truncate(), save(ep, buffer)), repeat)
        size = len(buffer.getvalue())
        first, load_time = timed(lambda: load(io.BytesIO(buffer.getvalue())), repeat)
    else:
        path = os.path.join(folder, f"{name}.texport")
        _, save_time = timed(lambda: save(ep, path), repeat)
        size = os.path.getsize(path)
        first, load_time = timed(lambda: load(path), repeat)
    return {"level": level, "save": save_time, "load": load_time, "first": first, "size": size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--models", nargs="+", default=list(TORCH), choices=list(TORCH))
    args = parser.parse_args()
    print(f"{'model':<9} {'level':<9} {'save (ms)':>9} {'torch':>6} {'load (ms)':>9} {'torch':>6} "
          f"{'load vs torch':>13} {'first load':>10} {'bytes':>12} {'torch bytes':>12}")
    with tempfile.TemporaryDirectory() as folder:
        for name in args.models:
            row = measure(name, args.repeat, folder)
            torch_save, torch_load, torch_size = TORCH[name]
            print(f"{name:<9} {row['level']:<9} {row['save'] * 1e3:>9.1f} {torch_save * 1e3:>6.0f} "
                  f"{row['load'] * 1e3:>9.1f} {torch_load * 1e3:>6.0f} "
                  f"{torch_load / row['load']:>12.2f}x {row['first'] * 1e3:>10.1f} "
                  f"{row['size']:>12,} {torch_size:>12,}")


if __name__ == "__main__":
    main()
