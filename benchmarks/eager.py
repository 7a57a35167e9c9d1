"""Eager forward time of the model zoo, and achieved GFLOP/s next to numpy's matmul.

    python benchmarks/eager.py [--repeat 10] [--models ResNet18 GPT4 ...]

Each model runs once to warm up, then ``--repeat`` times; the median is
reported. FLOPs are counted analytically (2 per multiply-add of the convolutions,
matmuls and linears; elementwise work is left out, as usual). The numpy line
times a 512x512x512 float32 matmul, the ceiling for BLAS-bound models.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from models import ZOO  # noqa: E402

import texport as torch  # noqa: E402


def resnet18_flops(size: int = 224, batch: int = 1) -> float:
    """Multiply-adds of ResNet18's convolutions and fc, times 2."""
    macs = 3 * 49 * 64 * (size // 2) ** 2  # stem
    spatial, channels = size // 4, 64
    for planes, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        spatial //= stride
        macs += channels * 9 * planes * spatial**2  # first conv of the stage
        macs += 3 * planes * 9 * planes * spatial**2  # the other three
        if stride != 1 or channels != planes:
            macs += channels * planes * spatial**2  # 1x1 downsample
        channels = planes
    macs += 512 * 1000
    return 2.0 * macs * batch


def gpt4_flops(batch: int = 2, seq: int = 128, d: int = 256, hidden: int = 1024, layers: int = 4) -> float:
    per_block = batch * seq * (3 * d * d + d * d + 2 * d * hidden) + 2 * batch * seq * seq * d
    return 2.0 * per_block * layers


FLOPS = {"ResNet18": resnet18_flops, "GPT4": gpt4_flops}


def median_ms(fn, repeat: int) -> float:  # noqa: ANN001
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def numpy_matmul_gflops(n: int = 512, repeat: int = 21) -> float:
    a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    seconds = median_ms(lambda: a @ a, repeat) / 1e3
    return 2.0 * n**3 / seconds / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--models", nargs="+", default=list(ZOO))
    args = parser.parse_args()
    print(f"{'model':<10} {'params':>10} {'fwd median (ms)':>16} {'GFLOP':>7} {'GFLOP/s':>8}")
    for name in args.models:
        model, inputs = ZOO[name]()
        model.eval()
        params = sum(p.numel() for p in model.parameters())
        ms = median_ms(lambda model=model, inputs=inputs: model(*inputs), args.repeat)
        flops = FLOPS.get(name)
        gflop = f"{flops() / 1e9:7.2f}" if flops else f"{'-':>7}"
        rate = f"{flops() / 1e9 / (ms / 1e3):8.1f}" if flops else f"{'-':>8}"
        print(f"{name:<10} {params:>10,} {ms:>16.2f} {gflop} {rate}")
    print(f"numpy float32 matmul 512^3: {numpy_matmul_gflops():.1f} GFLOP/s")
    torch.manual_seed(0)


if __name__ == "__main__":
    main()
