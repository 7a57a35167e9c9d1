"""The parity table: every corpus model of test/parity against real torch.

One row per case: for each level (eager, training, functional, core) pass or
FAIL with the largest |difference| from torch over the example and the second
input; whether the graph signature equals torch's at every export level;
whether the core op multiset equals torch's (else the differing ops, as
texport's count minus torch's); and the case's wall time. A summary line
counts the cases that give torch's numbers at every level, and those that
also give its signature and core op set. The comparisons are the parity
suite's own (test/parity/harness.py).

    python benchmarks/parity.py [-v] [name-substring ...]

``-v`` prints each failure's first line under the table. Without torch the
script says so and exits 0.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import warnings
from pathlib import Path
from typing import Any

# torch 2.13's pytree warns on every deepcopy of an exported program (its own LeafSpec)
warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
# and torch's nn.RNN re-assigns its _flat_weights list while torch exports it
warnings.filterwarnings("ignore", message=".*were assigned during export.*", category=UserWarning)

# torch is the parity harness's to import (test/parity); here only whether it is there
if importlib.util.find_spec("torch") is None:
    print("parity: skipped, torch is not installed (pip install -e '.[parity]')")
    sys.exit(0)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test" / "parity"))

from harness import LEVELS, Pair, Runner, corpus_pairs, real_torch, signature_difference  # noqa: E402

torch = real_torch()


def first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


class Row:
    """One case's results; ``failures`` keeps the first line of each failure."""

    def __init__(self, pair: Pair) -> None:
        self.name = pair.name
        self.levels: dict[str, str] = {}
        self.numbers_ok = True
        self.signature = "-"
        self.core_ops = "-"
        self.failures: list[str] = []
        self.seconds = 0.0

    def fail(self, what: str, error: BaseException) -> str:
        self.failures.append(f"{what}: {first_line(error)}")
        return "FAIL"


def level_cell(row: Row, runner: Runner, level: str) -> str:
    try:
        error = runner.run(level)
        if runner.second is not None:
            error = max(error, runner.run(level, second=True))
    except Exception as failure:  # noqa: BLE001 - every failure is a table cell
        row.numbers_ok = False
        return row.fail(level, failure)
    return f"ok {error:.0e}"


def signature_cell(row: Row, runner: Runner) -> str:
    for level in LEVELS[1:]:
        try:
            want, got = runner.signatures(level)
        except Exception as failure:  # noqa: BLE001
            return row.fail(f"signature at {level}", failure)
        if want != got:
            return row.fail(f"signature at {level}", AssertionError(signature_difference(want, got)))
    return "equal"


def core_ops_cell(row: Row, runner: Runner) -> str:
    try:
        difference = runner.core_ops()
    except Exception as failure:  # noqa: BLE001
        return row.fail("core ops", failure)
    if not difference:
        return "equal"
    short = {op.replace("aten.", "").replace(".default", ""): got - want for op, (want, got) in difference.items()}
    return " ".join(f"{op}{delta:+d}" for op, delta in short.items())


def measure(pair: Pair) -> Row:
    row = Row(pair)
    start = time.perf_counter()
    try:
        runner = Runner(pair, torch)
    except Exception as failure:  # noqa: BLE001
        row.fail("build", failure)
        row.levels = dict.fromkeys(LEVELS, "FAIL")
        row.numbers_ok = False
        row.signature = row.core_ops = "FAIL"
    else:
        row.levels = {level: level_cell(row, runner, level) for level in LEVELS}
        row.signature = signature_cell(row, runner)
        row.core_ops = core_ops_cell(row, runner)
    row.seconds = time.perf_counter() - start
    return row


def print_table(rows: list[Row], verbose: bool) -> None:
    width = max(len(row.name) for row in rows)
    header = f"{'case':<{width}}  " + "  ".join(f"{level:<10}" for level in LEVELS)
    print(f"{header}  {'signature':<9}  {'time':>6}  core ops (texport - torch)")
    for row in rows:
        cells = "  ".join(f"{row.levels[level]:<10}" for level in LEVELS)
        print(f"{row.name:<{width}}  {cells}  {row.signature:<9}  {row.seconds:5.1f}s  {row.core_ops}")
        for failure in row.failures if verbose else ():
            print(f"    {failure[:200]}")


def summary(rows: list[Row]) -> str:
    numbers = sum(row.numbers_ok for row in rows)
    everything = sum(row.numbers_ok and row.signature == "equal" and row.core_ops == "equal" for row in rows)
    return (f"{len(rows)} cases: {numbers} give torch's numbers at every level; {everything} also torch's "
            f"signature and core op set ({sum(row.seconds for row in rows):.0f}s)")


def main(argv: list[str]) -> None:
    verbose = "-v" in argv
    wanted = [arg for arg in argv if arg != "-v"]
    pairs: list[Any] = [pair for pair in corpus_pairs(torch) if not wanted or any(w in pair.name for w in wanted)]
    rows = []
    for pair in pairs:
        rows.append(measure(pair))
        print(f"\r{len(rows)}/{len(pairs)} {pair.name:<60}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print_table(rows, verbose)
    print(summary(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
