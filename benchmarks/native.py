"""Native code against torch eager and texport's interpreter: every zoo model compiled
by IREE through each route, side by side in one process.

    python benchmarks/native.py [--models ConvBN MLP50 ...] [--routes linalg torch]
        [--repeat 11] [--quick] [--threads 2] [--no-torch] [--keep-cache] [--json FILE]

Per model (texport/examples/models.py ZOO) and route (texport/backends/routes.py):
the time ``ep.compile(backend="iree", route=...)`` takes on the core program
(lowering by the route and iree-compile; the compile cache is a fresh folder unless
``--keep-cache``, so a run measures the compiler, not a cache hit), then the median
time of one call of the compiled program, of the core program on texport's
interpreter (``ep.module()``) and of torch eager, all on ``--threads`` threads
(``texport.set_num_threads`` before compiling sizes IREE's worker pool;
``torch.set_num_threads``). The calls are timed as benchmarks/execution.py times its
columns (``timed_ms``: with ``--pause S`` interleaved, a pause and an untimed call before each,
by default each in a block of its own: ``block_median_ms`` says why), and
torch and the models are reached as it reaches them (the parity harness's
``real_torch()`` and Runner, through execution.py's ``zoo_pair``/``zoo_runner``/
``variants``). ``max_diff`` is the largest absolute difference between the compiled
program's outputs and the interpreter's on the same inputs.

A route that fails (not available yet, a lowering error, iree-compile refusing its
text) puts its error in the model's row, and the run goes on.

``--corpus``: coverage instead of speed, over every case of the parity corpus
(test/parity/corpus): per route, how many cases compile and give the interpreter's
outputs and updated buffers on the case's inputs (within the case's tolerance), and
the first error of each that does not.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from execution import (  # noqa: E402 - benchmarks/ is not a package
    HAS_TORCH,
    Pair,
    Runner,
    TexportOnlyRunner,
    call_args,
    corpus_pairs_without_torch,
    markdown_table,
    real_torch,
    timed_ms,
    variants,
    zoo_pair,
    zoo_runner,
)
from harness import Mismatch, assert_close, to_numpy  # noqa: E402 - on the path by execution.py

import texport  # noqa: E402
from texport.backends.iree import CACHE_VARIABLE, iree_version  # noqa: E402
from texport.backends.routes import ROUTES  # noqa: E402
from texport.examples import models as zoo  # noqa: E402
from texport.tracer import pytree  # noqa: E402


def compile_route(runner: Runner, route: str) -> tuple[Any, float]:
    """The core program compiled by ``route``, and the seconds it took."""
    core = runner.program("texport", "core")
    start = time.perf_counter()
    compiled = core.compile(backend="iree", route=route)
    return compiled, time.perf_counter() - start


def max_difference(got: Any, want: Any) -> float:
    """The largest absolute difference between two outputs' leaves (inf when they differ in form)."""
    got_leaves, want_leaves = pytree.tree_leaves(got), pytree.tree_leaves(want)
    if len(got_leaves) != len(want_leaves):
        return float("inf")
    worst = 0.0
    for a, b in zip(got_leaves, want_leaves):
        x = np.asarray(a.numpy() if hasattr(a, "numpy") else a, dtype=np.float64)
        y = np.asarray(b.numpy() if hasattr(b, "numpy") else b, dtype=np.float64)
        if x.shape != y.shape:
            return float("inf")
        if x.size:
            worst = max(worst, float(np.max(np.abs(x - y))))
    return worst


def short_error(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"[:200]


def measure(name: str, runner: Runner, torch: Any, routes: list[str], repeat: int, pause: float) -> dict[str, Any]:
    """One model's row: ms per column (torch, interpreter, each route), compile seconds and
    differences per route, and the errors of what could not be built."""
    calls, errors = variants(runner, torch, ["core"])  # torch eager and the core program's ep.module()
    if "core" in calls:
        calls["interpreter"] = calls.pop("core")
    if "core" in errors:
        errors["interpreter"] = errors.pop("core")
    args, kwargs = call_args(runner.inputs, texport)
    row: dict[str, Any] = {"model": name, "compile_s": {}, "max_diff": {}}
    for route in routes:
        key = column(route)
        try:
            compiled, seconds = compile_route(runner, route)
            got = compiled(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - the route's failure is a cell of the row
            errors[key] = short_error(error)
            continue
        row["compile_s"][key] = seconds
        if "interpreter" in calls:
            row["max_diff"][key] = max_difference(got, runner.program("texport", "core").module()(*args, **kwargs))
        calls[key] = lambda compiled=compiled: compiled(*args, **kwargs)
    row["ms"] = timed_ms(calls, repeat, pause)
    row["errors"] = errors
    return row


def column(route: str) -> str:
    """A route's key in a row (``iree-linalg``: apart from the torch eager column's ``torch``)."""
    return f"iree-{route}"


@contextlib.contextmanager
def fresh_cache() -> Iterator[None]:
    """An empty compile cache, removed afterwards."""
    before = os.environ.get(CACHE_VARIABLE)
    with tempfile.TemporaryDirectory(prefix="texport-native-") as folder:
        os.environ[CACHE_VARIABLE] = folder
        try:
            yield
        finally:
            if before is None:
                del os.environ[CACHE_VARIABLE]
            else:
                os.environ[CACHE_VARIABLE] = before


def measure_all(models: list[str] | None, routes: list[str], torch: Any, repeat: int,
                pause: float) -> list[dict[str, Any]]:
    """The rows of the zoo models named (all by default)."""
    rows = []
    for name in [m for m in zoo.ZOO if models is None or m in models]:
        try:
            runner = zoo_runner(zoo_pair(name, torch), torch)
            rows.append(measure(name, runner, torch, routes, repeat, pause))
        except Exception as error:  # noqa: BLE001 - one model's failure is a note, the run goes on
            print(f"- {name} skipped: {short_error(error)}", file=sys.stderr)
            continue
        print(f"  measured {name}", file=sys.stderr, flush=True)
    return rows


def corpus_case(pair: Pair, route: str) -> str | None:
    """None when ``route`` compiles the case's core program and its outputs and updated
    buffers equal the interpreter's within the case's tolerance; else what went wrong."""
    runner = TexportOnlyRunner(pair)
    case = pair.texport_case
    try:
        core = runner.program("texport", "core")
        compiled = core.compile(backend="iree", route=route)
        interpreted = core.module()
        args, kwargs = call_args(runner.inputs, texport)
        got = [compiled(*args, **kwargs), dict(compiled.named_buffers())]
        args, kwargs = call_args(runner.inputs, texport)
        want = [interpreted(*args, **kwargs), dict(interpreted.named_buffers())]
    except Exception as error:  # noqa: BLE001 - a case's failure is its line of the report
        return short_error(error)
    try:  # the parity suite's own comparison: nesting, dtypes, values within the case's tolerance
        assert_close(to_numpy(want), to_numpy(got), case.rtol, case.atol, "outputs and buffers")
    except Mismatch as mismatch:
        return str(mismatch)
    return None


def corpus_coverage(routes: list[str]) -> dict[str, dict[str, str | None]]:
    pairs = corpus_pairs_without_torch()
    report: dict[str, dict[str, str | None]] = {route: {} for route in routes}
    for pair in pairs:
        for route in routes:
            report[route][pair.name] = corpus_case(pair, route)
        print(f"  checked {pair.name}", file=sys.stderr, flush=True)
    print(f"texport {importlib.metadata.version('texport')}, IREE {iree_version()} (llvm-cpu, host CPU)")
    print("\n## parity corpus: compiled with the interpreter's numbers\n")
    rows = [[route, str(len(cases)), str(sum(v is None for v in cases.values()))] for route, cases in report.items()]
    print(markdown_table(["route", "cases", "compiled, same numbers"], rows))
    for route, cases in report.items():
        for name, problem in cases.items():
            if problem is not None:
                print(f"- {name} [{route}]: {problem}")
    return report


def header(routes: list[str]) -> list[str]:
    head = ["model", "torch_ms", "interp_ms"]
    for route in routes:
        head += [f"{route} compile_s", f"{route} ms", f"{route}/torch", f"{route}/interp", f"{route} max_diff"]
    return head


def cells(row: dict[str, Any], routes: list[str]) -> list[str]:
    ms, errors = row["ms"], row["errors"]

    def time_cell(key: str) -> str:
        return f"{ms[key]:.3f}" if key in ms else ("err" if key in errors else "-")

    def ratio(key: str, base: str) -> str:
        return f"{ms[key] / ms[base]:.2f}" if key in ms and base in ms and ms[base] > 0 else "-"

    out = [row["model"], time_cell("torch"), time_cell("interpreter")]
    for key in map(column, routes):
        if key in errors:  # the start of the error here, all of it under the table
            error = errors[key].replace("|", "/")  # a pipe would end the markdown cell
            out += [f"error: {error[:48]}{'...' if len(error) > 48 else ''}", "-", "-", "-", "-"]
            continue
        diff = row["max_diff"].get(key)
        out += [f"{row['compile_s'][key]:.2f}", time_cell(key), ratio(key, "torch"),
                ratio(key, "interpreter"), "-" if diff is None else f"{diff:.2g}"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=None, help="zoo models (default: all)")
    parser.add_argument("--routes", nargs="+", default=list(ROUTES), help=f"routes (default: {' '.join(ROUTES)})")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--quick", action="store_true", help="3 repeats (a smoke run)")
    parser.add_argument("--threads", type=int, default=2, help="threads for IREE, texport and torch (default 2)")
    parser.add_argument("--no-torch", action="store_true", help="without the torch eager column")
    parser.add_argument("--pause", type=float, default=-1,
                        help="take turns with this many seconds of sleep before each timed call, as "
                             "benchmarks/execution.py does (default: each column timed in a block of its own)")
    parser.add_argument("--keep-cache", action="store_true",
                        help=f"use the compile cache (${CACHE_VARIABLE}): compile times are then cache hits")
    parser.add_argument("--json", type=Path, default=None, help="write the rows as JSON")
    parser.add_argument("--corpus", action="store_true",
                        help="coverage of the parity corpus by each route, instead of the zoo's times")
    args = parser.parse_args(argv)
    unknown = [r for r in args.routes if r not in ROUTES]
    if unknown:
        parser.error(f"no route {', '.join(unknown)} (routes: {', '.join(ROUTES)})")
    repeat = 3 if args.quick else args.repeat

    texport.set_num_threads(args.threads)  # before compiling: IREE's device takes its worker count from it
    if args.corpus:
        with fresh_cache():
            report = corpus_coverage(args.routes)
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))
        return 0
    torch = None
    if HAS_TORCH and not args.no_torch:
        torch = real_torch()  # through the parity harness, as benchmarks/execution.py
        torch.set_num_threads(args.threads)
    if args.keep_cache:
        rows = measure_all(args.models, args.routes, torch, repeat, args.pause)
    else:
        with fresh_cache():  # compile times of the compiler, not of cache hits
            rows = measure_all(args.models, args.routes, torch, repeat, args.pause)

    print(f"texport {importlib.metadata.version('texport')}, IREE {iree_version()} (llvm-cpu, host CPU), "
          f"{args.threads} threads" + (f", torch {torch.__version__}" if torch else ", without torch")
          + f"; median of {repeat} interleaved calls")
    print("\n## zoo: native code by route\n")
    print(markdown_table(header(args.routes), [cells(r, args.routes) for r in rows]))
    for row in rows:
        for key, error in row["errors"].items():
            print(f"- {row['model']} [{key}]: {error}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
