"""Execution speed against torch eager: every zoo model and every parity corpus
model, side by side in one process.

    python benchmarks/execution.py [--models GPT4 ResNet18 ...] [--no-corpus]
        [--repeat 11] [--levels eager training functional core] [--json FILE]
        [--quick] [--profile N] [--pause S] [--zoo-rounds R] [--no-native]

Per model: torch eager and texport eager, both on ``--threads`` threads
(``torch.set_num_threads``, ``texport.set_num_threads``; 2 by default), and
``ep.module()`` of the program at the training level (``export``), the
functional level (``run_decompositions({})``) and the core level
(``run_decompositions()``). Each variant is timed in a block of its own: two
warm-up calls, then ``--repeat`` calls back to back; the median is reported,
as the ratio texport / torch. Not in turns: torch's OpenMP workers and numpy's
OpenBLAS workers spin for a while after their work, OpenBLAS's for a tenth of
a second and more, and a call made while the other library's workers still
spin runs several times slower (torch's GPT4 with 2 threads: 9.3 ms alone,
28 ms 20 ms after a numpy product, 12 ms 400 ms after; torch's MLP50 7 ms
alone, 47-88 ms right after a numpy call; numpy's 2 ms, 30 ms right after
torch's). ``--pause S`` takes turns instead (the variants one call each,
``--repeat`` times, each timed after S seconds of sleep and an untimed call),
as the first rounds of issue 18 measured: a noisy machine then slows the
variants alike, but torch's 2-thread figures carry the spinning above. On a
machine whose cores are busy with other work, torch's 2 threads wait for each
other at every parallel region: torch's figures then swing far more than
texport's (compare ``--threads 1``).

Peak memory of one forward (one more call of each variant, after the timed
ones), on both sides the same quantity: the most tensor-data bytes live at any
instant during the call, of those allocated during it (transients inside an op
included; what was allocated before, weights and inputs, left out). texport:
numpy's array data, each allocation and free counted as it happens by a NEP 49
memory handler installed for the call (``numpy_memory.py``; the Python objects
around the arrays, and numpy's own scratch outside arrays, are not array data).
torch: its profiler's allocation and free events (``profile_memory=True``, the
``[memory]`` events of ``kineto_results``, CPU), summed in time order: every
allocation of its CPU allocator, an op's temporaries (a convolution's column
buffer) among them. Both count the 0-d arrays or tensors a Python scalar
operand becomes. ``mem x`` is the largest texport level's peak over torch's;
the JSON also keeps texport's peak with Python objects included
(``peak_bytes_all``: tracemalloc's peak above its start, over the same call).

FLOPs: 2 per multiply-add of the convolutions and matrix products
(convolution, mm, addmm, bmm, baddbmm...) that the *core* program runs, read from
the shapes each such kernel gets during one run of the core program (so loops
and branches count as executed, and any model works); elementwise work is left
out, as usual. ``GF/s`` is those FLOPs over the median time.

The zoo (texport/examples/models.py, written ``import texport as torch``) is
loaded a second time under real torch by executing the same source with its
``texport`` imports resolved to ``torch``; the corpus through the parity
harness (test/parity/harness.py), whose Runner also copies torch's weights
into texport's model. Without torch the texport columns are printed alone.

``--profile N`` adds, per model and texport level, the N kernels taking the
most time (each kernel call timed by wrapping the kernel registry's lookups).
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import copy
import importlib.metadata
import importlib.util
import json
import math
import re
import statistics
import sys
import time
import tracemalloc
import types
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "parity"))
sys.path.insert(0, str(ROOT / "benchmarks"))  # numpy_memory.py (benchmarks/ is not a package)

from harness import Case, Pair, Runner, call_args, corpus_pairs, real_torch  # noqa: E402
from numpy_memory import prepare as prepare_numpy_memory  # noqa: E402
from numpy_memory import tracked_allocations  # noqa: E402

import texport  # noqa: E402
from texport.backends import native_kernels  # noqa: E402
from texport.examples import models as zoo  # noqa: E402
from texport.interpreter import native  # noqa: E402
from texport.interpreter.kernels import KERNELS  # noqa: E402

warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
warnings.filterwarnings("ignore", message=".*were assigned during export.*", category=UserWarning)

HAS_TORCH = importlib.util.find_spec("torch") is not None
LEVELS = ("eager", "training", "functional", "core")


# --------------------------------------------------------------------------
# The zoo under real torch
# --------------------------------------------------------------------------


def load_zoo_under(framework: Any) -> types.ModuleType:
    """The zoo's source executed with its ``texport`` imports resolved to ``framework``."""
    path = Path(zoo.__file__)
    real_import = builtins.__import__

    def redirect(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "texport" or name.startswith("texport."):
            name = framework.__name__ + name[len("texport"):]
        return real_import(name, *args, **kwargs)

    module = types.ModuleType(f"zoo_{framework.__name__}")
    module.__file__ = str(path)
    module.__dict__["__builtins__"] = {**vars(builtins), "__import__": redirect}
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)  # noqa: S102 - our own zoo
    return module


def corpus_pairs_without_torch() -> list[Pair]:
    """The parity corpus's cases as texport sees them, each its own pair (no torch side)."""
    from harness import CORPUS, load_source

    return [Pair(f"{path.stem}.{case.name}", case, case) for path in sorted(CORPUS.glob("*.py"))
            for case in load_source(path, texport).cases()]


def zoo_pair(name: str, torch: Any) -> Pair:
    """A zoo model as a parity pair: torch's build and inputs, texport's build."""
    torch_zoo = load_zoo_under(torch) if torch is not None else None
    factory = zoo.ZOO[name]

    def numpy_inputs(make: Callable[[], Any]) -> Callable[[np.random.Generator], Any]:
        return lambda rng: tuple(np.array(a.detach().numpy(), copy=True) for a in make()[1])

    texport_case = Case(name, build=lambda: factory()[0], inputs=numpy_inputs(factory))
    if torch_zoo is None:
        return Pair(name, texport_case, texport_case)
    torch_factory = getattr(torch_zoo, f"make_{name}")
    torch_case = Case(name, build=lambda: torch_factory()[0], inputs=numpy_inputs(torch_factory))
    return Pair(name, torch_case, texport_case)


class TexportOnlyRunner(Runner):
    """The harness's Runner without torch: texport's model, seeded inputs."""

    def __init__(self, pair: Pair) -> None:  # noqa: D107 - the Runner's fields, without torch's
        self.pair = pair
        self.torch = None
        self.torch_model = None
        self.texport_model = pair.texport_case.build()
        self.texport_model.train(pair.texport_case.train)
        self.inputs = pair.texport_case.inputs(np.random.default_rng(0))
        self.second = None
        self._programs = {}
        self._eager = {}


def zoo_runner(pair: Pair, torch: Any) -> Runner:
    """The pair's Runner; texport's alone where the model does not build under torch
    (LSTMScan calls ``torch.scan``, which texport has at the top level and torch not)."""
    if torch is None:
        return TexportOnlyRunner(pair)
    try:
        return Runner(pair, torch)
    except Exception as error:  # noqa: BLE001 - reported, the texport columns still measured
        print(f"- {pair.name}: torch cannot build it ({type(error).__name__}: {error}); texport only",
              file=sys.stderr)
        return TexportOnlyRunner(pair)


# --------------------------------------------------------------------------
# Kernel wrapping: profile and FLOPs
# --------------------------------------------------------------------------


@contextlib.contextmanager
def wrapped_kernels(wrap: Callable[[str, Callable[..., Any]], Callable[..., Any]]) -> Iterator[None]:
    """Every kernel looked up while inside (eager calls, plans compiled) wrapped by ``wrap``."""
    original = KERNELS.get
    cache: dict[str, Callable[..., Any]] = {}

    def get(name: str) -> Any:
        kernel = original(name)
        if kernel is None:
            return None
        if name not in cache:
            cache[name] = wrap(short_key(name), kernel)
        return cache[name]

    KERNELS.get = get  # an instance attribute shadows the method
    try:
        yield
    finally:
        del KERNELS.get


def short_key(name: str) -> str:
    return re.sub(r"^(aten|core|training|functional)\.", "", str(name)).removesuffix(".default")


def op_flops(key: str, args: tuple[Any, ...], out: Any) -> float:
    """2 x multiply-adds of a convolution or matrix product, from its operands' shapes."""
    base = key.split(".")[0]
    result = out[0] if isinstance(out, (tuple, list)) else out
    if not isinstance(result, np.ndarray):
        return 0.0
    if base in ("convolution", "_convolution", "conv1d", "conv2d", "conv3d"):
        x, w = args[0], args[1]
        transposed = base in ("convolution", "_convolution") and bool(args[6])
        per_point = w.shape[1] * math.prod(w.shape[2:])
        return 2.0 * (x.size if transposed else result.size) * per_point
    if base in ("mm", "bmm", "matmul", "linear"):
        return 2.0 * result.size * args[0].shape[-1]
    if base in ("addmm", "baddbmm"):
        return 2.0 * result.size * args[1].shape[-1]
    return 0.0


def count_flops(call: Callable[[], Any], make: Callable[[], Callable[[], Any]] | None = None) -> float:
    """FLOPs of one call; ``make`` (when the callable must be built under the wrapping) builds it."""
    total = [0.0]

    def wrap(key: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            out = kernel(*args)
            total[0] += op_flops(key, args, out)
            return out
        return run

    with wrapped_kernels(wrap):
        (make() if make else call)()
    return total[0]


def profile(make: Callable[[], Callable[[], Any]], repeat: int) -> Counter[str]:
    """Seconds per kernel key over ``repeat`` calls (after one warm-up)."""
    seconds: Counter[str] = Counter()
    calls: defaultdict[str, int] = defaultdict(int)

    def wrap(key: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            start = time.perf_counter()
            out = kernel(*args)
            seconds[key] += time.perf_counter() - start
            calls[key] += 1
            return out
        return run

    with wrapped_kernels(wrap):
        fn = make()
        fn()
        seconds.clear()
        calls.clear()
        for _ in range(repeat):
            fn()
    return Counter({f"{k} x{calls[k] // repeat}": v / repeat for k, v in seconds.items()})


# --------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------


def texport_peak(fn: Callable[[], Any]) -> tuple[int, int]:
    """(tensor bytes, all bytes) at the peak of one call, of those allocated during it.

    Tensor bytes: numpy's array data, every allocation and free counted by a
    memory handler of our own installed for the call (numpy_memory.py), so a
    temporary made and freed within one op is seen. All bytes: tracemalloc's
    peak above its start, Python objects included (numpy reports its array data
    to tracemalloc too)."""
    prepare_numpy_memory()  # the handler's own objects made before tracemalloc starts
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        with tracked_allocations() as data:
            out = fn()
            del out
        everything = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return data.peak, max(everything, 0)


def torch_peak(torch: Any, fn: Callable[[], Any]) -> int:
    """Peak bytes of torch's CPU allocator during one call, above what it held before: the
    running sum, in time order, of the allocations (+) and frees (-) its profiler records,
    each a ``[memory]`` event, inside an op or not (so an op's transients are seen). A free
    of a tensor made before the call would lower the sum; a forward keeps its inputs and
    weights."""
    profiler = torch.profiler
    with profiler.profile(activities=[profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        out = fn()
        del out
    changes = sorted(((e.start_ns(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                      if e.name() == "[memory]" and e.device_type().name == "CPU"),
                     key=lambda change: change[0])  # stable: events of one instant in recorded order
    running = peak = 0
    for _, change in changes:
        running += change
        peak = max(peak, running)
    return peak


# --------------------------------------------------------------------------
# One model
# --------------------------------------------------------------------------


def variants(runner: Runner, torch: Any, levels: list[str]) -> tuple[dict[str, Callable[[], Any]], dict[str, str]]:
    """The callables to time, by column, and the errors of those that could not be built."""
    calls: dict[str, Callable[[], Any]] = {}
    errors: dict[str, str] = {}
    if torch is not None:
        t_args, t_kwargs = call_args(runner.inputs, torch)
        model = runner.torch_model

        def torch_call() -> Any:
            with torch.no_grad():
                return model(*t_args, **t_kwargs)
        try:
            torch_call()
            calls["torch"] = torch_call
        except Exception as error:  # noqa: BLE001 - e.g. the zoo's LSTMScan calls texport's torch.scan
            errors["torch"] = f"{type(error).__name__}: {error}"[:160]
    args, kwargs = call_args(runner.inputs, texport)
    for level in levels:
        try:
            if level == "eager":
                module = copy.deepcopy(runner.texport_model)
            else:
                module = runner.program("texport", level).module()
            module(*args, **kwargs)  # fails here rather than while timed
        except Exception as error:  # noqa: BLE001 - reported in the table
            errors[level] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:160]
            continue
        calls[level] = lambda module=module: module(*args, **kwargs)
    return calls, errors


def median_ms(calls: dict[str, Callable[[], Any]], repeat: int, pause: float = 0.02) -> dict[str, float]:
    """Median milliseconds of each call: two warm-up calls each, then the calls take turns,
    ``repeat`` times, each timed after a pause and an untimed call (the module's docstring
    says why)."""
    for fn in calls.values():  # warm-up
        fn()
        fn()
    times: dict[str, list[float]] = {k: [] for k in calls}
    for _ in range(repeat):
        for key, fn in calls.items():
            time.sleep(pause)  # the other library's worker threads stop spinning
            fn()  # and this one's are awake again
            start = time.perf_counter()
            fn()
            times[key].append(time.perf_counter() - start)
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}


def block_median_ms(calls: dict[str, Callable[[], Any]], repeat: int, rounds: int = 1) -> dict[str, float]:
    """Median milliseconds of each call timed in a block of its own: two warm-up calls, then
    ``repeat`` calls back to back, as a served model runs. Taking turns instead, a call
    of one library right after the other's shares the 2 cores with the other's worker
    threads, which keep spinning for a while after its last parallel region: OpenBLAS's
    for a tenth of a second and more (torch's GPT4 with 2 threads, 9.3 ms alone: 28 ms
    20 ms after a numpy product, 15 ms 100 ms after, 12 ms 400 ms after; IREE's ResNet18:
    48 ms in turns against 33 ms in a block). With ``rounds`` > 1 the blocks take turns,
    each variant's block ``rounds`` times, and the median of its block medians is kept: a
    machine whose speed drifts over seconds then slows every variant alike."""
    blocks: dict[str, list[float]] = {key: [] for key in calls}
    for _ in range(rounds):
        for key, fn in calls.items():
            fn()
            fn()
            durations = []
            for _ in range(repeat):
                start = time.perf_counter()
                fn()
                durations.append(time.perf_counter() - start)
            blocks[key].append(statistics.median(durations))
    return {key: statistics.median(medians) * 1e3 for key, medians in blocks.items()}


def timed_ms(calls: dict[str, Callable[[], Any]], repeat: int, pause: float, rounds: int = 1) -> dict[str, float]:
    """Each call's median milliseconds: in blocks (``pause`` < 0, the default), else in turns."""
    return median_ms(calls, repeat, pause) if pause >= 0 else block_median_ms(calls, repeat, rounds)


def measure(name: str, runner: Runner, torch: Any, levels: list[str], repeat: int, profile_top: int,
            pause: float = -1, memory: bool = True, rounds: int = 1) -> dict[str, Any]:
    calls, errors = variants(runner, torch, levels)
    row: dict[str, Any] = {"model": name, "ms": timed_ms(calls, repeat, pause, rounds),
                           "errors": errors, "peak_bytes": {}, "peak_bytes_all": {}}
    for key, fn in calls.items() if memory else ():
        if key == "torch":
            row["peak_bytes"][key] = torch_peak(torch, fn)
        else:
            row["peak_bytes"][key], row["peak_bytes_all"][key] = texport_peak(fn)
    row["flops"] = _core_flops(runner)
    if profile_top:
        row["profile"] = {}
        args, kwargs = call_args(runner.inputs, texport)
        for level in levels:
            if level in errors:
                continue
            if level == "eager":
                module = copy.deepcopy(runner.texport_model)
                make = (lambda module=module: lambda: module(*args, **kwargs))  # noqa: E731
            else:
                ep = runner.program("texport", level)
                make = (lambda ep=ep: (lambda m: lambda: m(*args, **kwargs))(ep.module()))  # noqa: E731
            top = profile(make, max(3, repeat // 3)).most_common(profile_top)
            row["profile"][level] = [(k, v * 1e3) for k, v in top]
    return row


@contextlib.contextmanager
def unfused_plans() -> Iterator[None]:
    """Plans compiled meanwhile run each op through its own kernel (no fused steps:
    plan_patterns.py calls the kernels it fuses directly, out of the registry's sight)."""
    from texport.interpreter import executor

    match_block = executor.match_block
    executor.match_block = lambda block: {}
    try:
        yield
    finally:
        executor.match_block = match_block


def _core_flops(runner: Runner) -> float | None:
    args, kwargs = call_args(runner.inputs, texport)
    for level in ("core", "functional", "training"):
        try:
            ep = runner.program("texport", level)
        except Exception:  # noqa: BLE001, S112 - the next level up
            continue
        try:
            with unfused_plans():
                return count_flops(lambda: None, make=lambda ep=ep: lambda: ep.module()(*args, **kwargs))
        except Exception:  # noqa: BLE001 - no count
            return None
    return None


# --------------------------------------------------------------------------
# Table
# --------------------------------------------------------------------------

COLUMNS = ("model", "torch_ms", "eager_ms", "eager_x", "training_x", "functional_x", "core_x", "mem_x", "MFLOP",
           "torch_GF/s", "eager_GF/s", "core_GF/s")


def ratio(row: dict[str, Any], level: str) -> float | None:
    ms = row["ms"]
    if level not in ms or "torch" not in ms:
        return None
    return ms[level] / ms["torch"]


def mem_ratio(row: dict[str, Any], levels: list[str]) -> float | None:
    peaks = row["peak_bytes"]
    mine = [peaks[lv] for lv in levels if lv in peaks]
    if "torch" not in peaks or not mine or peaks["torch"] <= 0:
        return None
    return max(mine) / peaks["torch"]


def cells(row: dict[str, Any], levels: list[str], with_torch: bool) -> list[str]:
    ms = row["ms"]
    flops = row["flops"]

    def rate(key: str) -> str:
        return f"{flops / (ms[key] / 1e3) / 1e9:.3g}" if flops and key in ms else "-"

    out = [row["model"]]
    if with_torch:
        out.append(f"{ms['torch']:.3f}" if "torch" in ms else "-")
        out.append(f"{ms['eager']:.3f}" if "eager" in ms else "-")
        for level in LEVELS:
            r = ratio(row, level)
            out.append("err" if level in row["errors"] else (f"{r:.2f}" if r is not None else "-"))
        m = mem_ratio(row, levels)
        out.append(f"{m:.2f}" if m is not None else "-")
    else:
        for level in LEVELS:
            out.append("err" if level in row["errors"] else (f"{ms[level]:.3f}" if level in ms else "-"))
        out.append(f"{max((row['peak_bytes'].get(lv, 0) for lv in levels), default=0) / 2**20:.2f}")
    out.append(f"{flops / 1e6:.4g}" if flops else "-")
    if with_torch:
        out.append(rate("torch"))
    out += [rate("eager"), rate("core")]
    return out


def header(with_torch: bool) -> list[str]:
    if with_torch:
        return list(COLUMNS)
    return ["model", "eager_ms", "training_ms", "functional_ms", "core_ms", "peak_MiB", "MFLOP", "eager_GF/s",
            "core_GF/s"]


def markdown_table(head: list[str], body: list[list[str]]) -> str:
    """A markdown table, its columns padded to their widest cell."""
    widths = [max(len(c) for c in col) for col in zip(head, *body)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |",
             "| " + " | ".join("-" * w for w in widths) + " |"]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |" for line in body]
    return "\n".join(lines)


def print_table(rows: list[dict[str, Any]], levels: list[str], with_torch: bool, title: str) -> None:
    print(f"\n## {title}\n")
    print(markdown_table(header(with_torch), [cells(r, levels, with_torch) for r in rows]))
    if with_torch and rows:
        geo = []
        for level in LEVELS:
            values = [ratio(r, level) for r in rows]
            values = [v for v in values if v]
            geo.append(f"{level} {math.exp(statistics.fmean(math.log(v) for v in values)):.2f} (n={len(values)})"
                       if values else f"{level} -")
        mems = [m for m in (mem_ratio(r, levels) for r in rows) if m]
        mem = f"{math.exp(statistics.fmean(math.log(v) for v in mems)):.2f}" if mems else "-"
        print(f"\ngeometric mean of texport / torch over {title}: " + ", ".join(geo) + f"; memory {mem}")
    for r in rows:
        for level, error in r["errors"].items():
            print(f"- {r['model']} [{level}]: {error}")


def print_profiles(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        for level, top in r.get("profile", {}).items():
            total = r["ms"].get(level)
            items = ", ".join(f"{k} {ms:.2f}" for k, ms in top)
            print(f"- {r['model']} [{level}, {total:.2f} ms]: {items}")


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def native_kernels_in_use() -> str:
    """The native kernels the kernels may take (``interpreter/native.py``): 'off', 'none' (no
    IREE), or their names (each compiled or loaded here, so none is compiled inside a timing)."""
    if not native.native_kernels_enabled():
        return "off"
    used = [name for name in native_kernels.TEXTS if native_kernels.native_kernel(name) is not None]
    return ", ".join(used) or "none (IREE not installed)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=None,
                        help="zoo models, or substrings of corpus case names (default: all)")
    parser.add_argument("--corpus", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--levels", nargs="+", choices=LEVELS, default=list(LEVELS))
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="3 repeats (a smoke run)")
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads and texport.set_num_threads (default 2)")
    parser.add_argument("--no-torch", action="store_true", help="texport columns only, as without torch")
    parser.add_argument("--pause", type=float, default=-1,
                        help="take turns, one call of each variant at a time, with this many seconds of sleep "
                             "before each timed call (default: each variant timed in a block of its own)")
    parser.add_argument("--memory", action=argparse.BooleanOptionalAction, default=True,
                        help="measure peak memory (one more call per variant, its allocations counted)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="top N kernels by time per level")
    parser.add_argument("--zoo-rounds", type=int, default=1, metavar="R",
                        help="zoo models: each variant's block R times, in turns; the median of the block medians")
    parser.add_argument("--native", action=argparse.BooleanOptionalAction, default=True,
                        help="texport's native kernels where IREE is installed (texport.set_native_kernels)")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else args.repeat

    texport.set_num_threads(args.threads)
    texport.set_native_kernels(args.native)
    torch = None
    if HAS_TORCH and not args.no_torch:
        torch = real_torch()  # through the parity harness: texport's tree imports torch only there
        torch.set_num_threads(args.threads)
    else:
        print("execution: without torch (not installed, or --no-torch); texport columns only")

    zoo_names = [m for m in zoo.ZOO if args.models is None or m in args.models]
    work: list[tuple[str, Callable[[], Runner]]] = []
    for name in zoo_names:
        pair = zoo_pair(name, torch)
        work.append(("zoo", lambda pair=pair: zoo_runner(pair, torch)))
    if args.corpus:
        if torch is not None:
            pairs = corpus_pairs(torch)
        else:
            pairs = corpus_pairs_without_torch()
        for pair in pairs:
            if args.models is None or any(m in pair.name for m in args.models):
                work.append(("corpus", lambda pair=pair: Runner(pair, torch) if torch else TexportOnlyRunner(pair)))

    rows: dict[str, list[dict[str, Any]]] = {"zoo": [], "corpus": []}
    for group, make_runner in work:
        try:
            runner = make_runner()
            row = measure(runner.pair.name, runner, torch, args.levels, repeat, args.profile, args.pause, args.memory,
                          args.zoo_rounds if group == "zoo" else 1)
        except Exception as error:  # noqa: BLE001 - one model's failure is a row note
            print(f"- skipped: {error}", file=sys.stderr)
            continue
        rows[group].append(row)
        print(f"  measured {row['model']}", file=sys.stderr, flush=True)

    version = importlib.metadata.version("texport")
    print(f"texport {version} ({texport.get_num_threads()} threads), numpy {np.__version__}"
          + (f", torch {torch.__version__} ({torch.get_num_threads()} threads)" if torch else "")
          + f"; native kernels {native_kernels_in_use()}; median of {repeat} calls in a block"
          + (f", median of {args.zoo_rounds} blocks in turns for the zoo" if args.zoo_rounds > 1 else ""))
    for group, title in (("zoo", "zoo"), ("corpus", "corpus")):
        if rows[group]:
            print_table(rows[group], args.levels, torch is not None, title)
    if args.profile:
        print(f"\n## top {args.profile} kernels by time (ms per call)\n")
        print_profiles(rows["zoo"] + rows["corpus"])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
