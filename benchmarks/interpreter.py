"""Per-op overhead of the plan executor on a chain of tiny ops.

    python benchmarks/interpreter.py [--ops 10000] [--repeat 5]

Builds a core-dialect function of N tiny elementwise ops on a [4] tensor,
compiles it once, and times: the plan, a bare Python loop calling the same
kernels with the same arguments, and xDSL's own Interpreter on the same IR.
Overhead per op = (plan - bare loop) / N. Goal: <= 1 µs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from texport.dialects import bootstrap
from texport.dialects.context import parse_module
from texport.interpreter.executor import compile_function, find_function
from texport.interpreter.kernels import KERNELS
from texport.interpreter.xdsl_functions import make_interpreter

_OPS = [("core.neg({a})", "neg", lambda a: (a,)),
        ("core.add.Tensor({a}, {b})", "add.Tensor", lambda a, b: (a, b, 1)),
        ("core.mul.Tensor({a}, 0.5)", "mul.Tensor", lambda a: (a, 0.5))]


def build(n_ops: int) -> tuple[str, list[tuple[str, tuple[int, ...]]]]:
    """IR text, and for the bare loop: (kernel key, indices of value inputs)."""
    lines = ["func.func @main(%v0: !tx.tensor<[4], f32>) -> !tx.tensor<[4], f32> {"]
    schedule = []
    for i in range(1, n_ops + 1):
        text, key, _ = _OPS[i % len(_OPS)]
        a, b = f"%v{i - 1}", f"%v{max(i - 2, 0)}"
        lines.append(f"  %v{i} = " + text.format(a=a, b=b) + " : !tx.tensor<[4], f32>")
        schedule.append((key, (i - 1, max(i - 2, 0))))
    lines += [f"  func.return %v{n_ops} : !tx.tensor<[4], f32>", "}"]
    return "\n".join(lines), schedule


def bare_loop(schedule: list[tuple[str, tuple[int, ...]]], x: np.ndarray) -> np.ndarray:
    values = [x]
    kernels = {key: KERNELS[key] for key, _ in schedule}
    makers = {key: maker for _, key, maker in _OPS}
    for key, (a, b) in schedule:
        args = makers[key](values[a]) if key != "add.Tensor" else makers[key](values[a], values[b])
        values.append(kernels[key](*args))
    return values[-1]


def median(fn, repeat: int) -> float:  # noqa: ANN001
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text, schedule = build(args.ops)
    module = parse_module(text)
    bootstrap.start_all()  # time the compile, not the start-up (benchmarks/startup.py)
    start = time.perf_counter()
    plan = compile_function(find_function(module))
    compile_s = time.perf_counter() - start
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    np.testing.assert_array_equal(plan(x)[0], bare_loop(schedule, x))
    t_plan = median(lambda: plan(x), args.repeat)
    t_bare = median(lambda: bare_loop(schedule, x), args.repeat)
    interpreter = make_interpreter(module)
    t_xdsl = median(lambda: interpreter.call_op("main", (x,)), max(1, args.repeat // 2))
    n = args.ops
    print(f"ops: {n}   plan compile: {compile_s * 1e3:.1f} ms")
    print(f"{'runner':<22} {'total (ms)':>11} {'per op (µs)':>12}")
    for name, seconds in (("plan", t_plan), ("bare kernel loop", t_bare), ("xDSL Interpreter", t_xdsl)):
        print(f"{name:<22} {seconds * 1e3:>11.2f} {seconds / n * 1e6:>12.2f}")
    print(f"plan overhead beyond the kernels: {(t_plan - t_bare) / n * 1e6:.2f} µs/op (goal <= 1)")


if __name__ == "__main__":
    main()
