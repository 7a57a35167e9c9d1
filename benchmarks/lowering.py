"""Lowering speed: ep.run_decompositions(None) on the zoo next to torch's figures
(behaviour reference §10), and the per-op cost on generated programs of up to
10,000 training ops (the growth must be linear).

    python benchmarks/lowering.py [--repeat 5] [--sizes 1000 2500 5000 10000]

Zoo: median and min of --repeat lowerings after a warm-up one (the first
lowering of a process also imports the decomposition tables: "first").
Generated programs: a chain of blocks (linear, an in-place relu_, a transpose,
a buffer add_, matmul) that needs functionalization and decomposition;
per-op cost = lowering time / training ops. Goal: 10x faster than torch.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

# torch 2.13 run_decompositions() median seconds (§10; ResNet-18 in both modes).
TORCH = {("ConvBN", "train"): 0.137, ("MLP50", "eval"): 0.382, ("GPT4", "eval"): 1.252,
         ("ResNet18", "eval"): 0.400, ("ResNet18", "train"): 0.455}


def _time(fn, repeat: int) -> tuple[float, float]:  # noqa: ANN001
    samples = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), min(samples)


def zoo(repeat: int) -> None:
    from models import ZOO

    import texport as torch

    print(f"{'model':<9} {'mode':<5} {'train ops':>9} {'core ops':>8} {'first (ms)':>10} {'median (ms)':>11} "
          f"{'min (ms)':>8} {'torch (ms)':>10} {'speed-up':>8}")
    for (name, mode), torch_seconds in TORCH.items():
        model, args = ZOO[name]()
        model.train(mode == "train")
        ep = torch.export.export(model, args)
        start = time.perf_counter()
        core = ep.run_decompositions()
        first = time.perf_counter() - start
        median, low = _time(ep.run_decompositions, repeat)
        before = sum(1 for _ in ep.graph.walk()) - 2
        after = sum(1 for _ in core.graph.walk()) - 2
        print(f"{name:<9} {mode:<5} {before:>9} {after:>8} {first * 1e3:>10.1f} {median * 1e3:>11.1f} "
              f"{low * 1e3:>8.1f} {torch_seconds * 1e3:>10.0f} {torch_seconds / median:>7.0f}x")


def generated(blocks: int):  # noqa: ANN201
    """A training program of about 8 ops per block."""
    import texport as torch
    import texport.nn.functional as F

    class Chain(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(8, 8))
            self.bias = torch.nn.Parameter(torch.randn(8))
            self.register_buffer("steps", torch.zeros(1))

        def forward(self, x):  # noqa: ANN001, ANN202
            for _ in range(blocks):
                x = F.linear(x, self.weight, self.bias)
                x.relu_()
                x = x.transpose(0, 1).transpose(0, 1)
                self.steps.add_(1)
                x = x @ self.weight
            return x

    model = Chain()
    return torch.export.export(model, (torch.randn(4, 8),))


def scaling(sizes: list[int], repeat: int) -> None:
    print(f"\n{'train ops':>9} {'core ops':>8} {'lowering (ms)':>13} {'per op (us)':>11}")
    rates = []
    for size in sizes:
        ep = generated(max(1, size // 7))
        ops = sum(1 for _ in ep.graph.walk()) - 2
        core = ep.run_decompositions()
        median, _ = _time(ep.run_decompositions, max(1, repeat // 2))
        rate = median / ops * 1e6
        rates.append(rate)
        print(f"{ops:>9} {sum(1 for _ in core.graph.walk()) - 2:>8} {median * 1e3:>13.1f} {rate:>11.1f}")
    print(f"per-op cost, largest / smallest program: {rates[-1] / rates[0]:.2f}x (linear growth: ~1x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2500, 5000, 10000])
    args = parser.parse_args()
    zoo(args.repeat)
    scaling(args.sizes, args.repeat)


if __name__ == "__main__":
    main()
