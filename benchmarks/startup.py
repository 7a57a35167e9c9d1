"""Start-up time: `import texport`, `texport-opt` on an empty module, stock
`xdsl-opt` (which loads texport's dialects through the xdsl.universe entry
point), and the lit suite's wall time.

    python benchmarks/startup.py [--runs 15] [--lit]

Each command is a fresh process. The commands run interleaved (A B C ... A B C
...), so a slow spell of this shared machine hits every command alike; the
figure is the median wall time, and the goal is read off side by side:
texport-opt on an empty module within 0.25 s of the reference
`python -c "import numpy, xdsl.xdsl_opt_main"`. The last table says which heavy
parts each start loaded (each should load only when used).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GOAL_SECONDS = 0.25

# What a start may load only when it is used: module name prefixes.
HEAVY = {
    "sympy": "sympy.",
    "kernels": "texport.interpreter.kernels.",
    "decompositions": "texport.lowering.decompositions.",
    "nn frontend": "texport.tracer.nn.",
    "lowering": "texport.lowering.",
    "ml_dtypes": "ml_dtypes",
}
LOADED = ("import sys; heavy = {heavy!r}; "
          "print('LOADED:' + ','.join(k for k, p in heavy.items() "
          "if any(m.startswith(p) for m in sys.modules)))")


def commands(empty: Path) -> dict[str, list[str]]:
    python = sys.executable
    return {
        "reference: python -c 'import numpy, xdsl.xdsl_opt_main'":
            [python, "-c", "import numpy, xdsl.xdsl_opt_main"],
        "python -c 'import texport'": [python, "-c", "import texport"],
        "texport-opt EMPTY": [str(BIN / "texport-opt"), str(empty)],
        "xdsl-opt EMPTY (texport's universe)": [str(BIN / "xdsl-opt"), str(empty)],
    }


def time_once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def interleaved(cmds: dict[str, list[str]], runs: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for argv in cmds.values():  # warm the file cache
        time_once(argv)
    for _ in range(runs):
        for name, argv in cmds.items():
            times[name].append(time_once(argv))
    return {name: statistics.median(values) for name, values in times.items()}


def loaded_after(code: str) -> str:
    script = f"{code}\n{LOADED.format(heavy=HEAVY)}"
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    return next(line for line in out.stdout.splitlines() if line.startswith("LOADED:"))[len("LOADED:"):]


def texport_opt_loads(empty: Path) -> str:
    code = (f"import sys\nsys.argv = ['texport-opt', {str(empty)!r}]\n"
            "from texport.tools.texport_opt import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass")
    return loaded_after(code)


def lit_wall() -> float:
    lit = shutil.which("lit", path=str(BIN)) or "lit"
    start = time.perf_counter()
    subprocess.run([lit, "-q", str(ROOT / "test")], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--lit", action="store_true", help="also time the lit suite (one run)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder) / "empty.mlir"
        empty.write_text("builtin.module {}\n")
        medians = interleaved(commands(empty), options.runs)
        loads = {
            "import texport": loaded_after("import texport"),
            "texport-opt EMPTY": texport_opt_loads(empty),
        }
    reference = next(iter(medians.values()))
    print(f"Start-up, median wall time of {options.runs} interleaved runs ({os.cpu_count()} cores)\n")
    print("| command | median (s) | minus reference (s) |")
    print("|---|---|---|")
    for name, seconds in medians.items():
        print(f"| {name} | {seconds:.3f} | {seconds - reference:+.3f} |")
    gap = medians["texport-opt EMPTY"] - reference
    verdict = "met" if gap <= GOAL_SECONDS else "NOT met"
    print(f"\ntexport-opt on an empty module: {gap:+.3f} s over the reference "
          f"(goal <= {GOAL_SECONDS} s): {verdict}\n")
    print("| start | heavy parts loaded |")
    print("|---|---|")
    for name, loaded in loads.items():
        print(f"| {name} | {loaded or 'none'} |")
    if options.lit:
        print(f"\nlit suite: {lit_wall():.1f} s wall")


if __name__ == "__main__":
    main()
