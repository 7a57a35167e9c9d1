"""Convolution kernels side by side: im2col + one matmul (kernels/conv_pool.py) against
one gemm per kernel offset (kernels/conv_by_offsets.py), on ResNet18's layers and any
others given, with the choice ``conv_by_offsets.worth_it`` makes.

    python benchmarks/conv.py [--threads 2] [--repeat 30] [--layer C,O,H,K,S,P ...]

Each layer: batch 1, C -> O channels over an H x H image, a K x K kernel, stride S,
padding P, float32. The two ways take turns, one call each (interleaved, so a noisy
machine slows them alike); the median after three warm-up turns is printed, with the
ResNet18 total weighted by how often each layer occurs in the model.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import texport
from texport.interpreter.kernels import conv_by_offsets, conv_pool

# (C, O, H, K, S, P): times in ResNet18
RESNET18 = {(3, 64, 224, 7, 2, 3): 1, (64, 64, 56, 3, 1, 1): 4, (64, 128, 56, 3, 2, 1): 1,
            (128, 128, 28, 3, 1, 1): 3, (128, 256, 28, 3, 2, 1): 1, (256, 256, 14, 3, 1, 1): 3,
            (256, 512, 14, 3, 2, 1): 1, (512, 512, 7, 3, 1, 1): 3}


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def compare(layer: tuple[int, ...], repeat: int, rng: np.random.Generator) -> tuple[float, float, bool]:
    """(im2col ms, offsets ms, worth_it) for one layer."""
    c, o, h, k, s, p = layer
    x = rng.standard_normal((1, c, h, h), dtype=np.float32)
    w = rng.standard_normal((o, c, k, k), dtype=np.float32)
    args = ((s, s), [(p, p), (p, p)], (1, 1))
    times: dict[str, list[float]] = {"im2col": [], "offsets": []}
    chosen = conv_by_offsets.worth_it(x, w, *args, 1)
    real = conv_by_offsets.worth_it
    try:
        for _ in range(repeat + 3):
            conv_by_offsets.worth_it = lambda *_: False
            times["im2col"].append(timed(lambda: conv_pool._conv(x, w, *args, 1)))
            times["offsets"].append(timed(lambda: conv_by_offsets.convolution(x, w, *args)))
    finally:
        conv_by_offsets.worth_it = real
    im2col, offsets = (statistics.median(times[key][3:]) * 1e3 for key in ("im2col", "offsets"))
    return im2col, offsets, chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--layer", action="append", default=[], help="C,O,H,K,S,P (repeatable)")
    args = parser.parse_args(argv)
    texport.set_num_threads(args.threads)
    layers = dict(RESNET18)
    layers.update({tuple(int(v) for v in spec.split(",")): 0 for spec in args.layer})
    rng = np.random.default_rng(0)
    totals = {"im2col": 0.0, "offsets": 0.0, "chosen": 0.0}
    print("| C -> O | H | K | S | im2col ms | offsets ms | ratio | chosen |")
    print("| ------ | - | - | - | --------- | ---------- | ----- | ------ |")
    for layer, count in layers.items():
        im2col, offsets, chosen = compare(layer, args.repeat, rng)
        c, o, h, k, s, _ = layer
        print(f"| {c} -> {o} | {h} | {k} | {s} | {im2col:.3f} | {offsets:.3f} | {offsets / im2col:.2f} | "
              f"{'offsets' if chosen else 'im2col'} |")
        totals["im2col"] += count * im2col
        totals["offsets"] += count * offsets
        totals["chosen"] += count * (offsets if chosen else im2col)
    print(f"\nResNet18's convolutions (batch 1, {args.threads} threads): im2col {totals['im2col']:.2f} ms, "
          f"offsets {totals['offsets']:.2f} ms, as chosen {totals['chosen']:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
