"""GPT4's ops one at a time, texport eager against torch eager, and eager's dispatch cost.

    python benchmarks/attention_ops.py [--threads 1] [--repeat 200] [--rounds 3] [--no-torch]

Where the zoo's GPT4 (texport/examples/models.py) spends what benchmarks/execution.py
shows as its ratio to torch: each op of a block in GPT4's own shapes (batch 2, 128
positions, 256 features, 4 heads, a 1024-wide MLP), called through the public API
(``F.softmax(scores, dim=-1)``...) on one library's tensors, timed as execution.py times
a model (``block_median_ms``: a block of back-to-back calls per op, ``--rounds`` blocks in
turns, the median of the block medians).

The second table times numpy's passes over the softmax's scores by themselves, in ns an
element: a pass along short rows with a per-row operand against a plain pass.

The last table takes the kernels out: GPT4's layout shrunk to 8 features (2 heads, a
16-wide MLP, 4 positions), so a forward is almost all per-op Python. Its eager forward
against its ``ep.module()`` is what eager dispatch costs per forward beyond the plan's.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from execution import HAS_TORCH, block_median_ms, markdown_table, real_torch  # noqa: E402 - not a package

import texport  # noqa: E402
from texport.examples import models as zoo  # noqa: E402

BATCH, SEQ, FEATURES, HEADS, HIDDEN = 2, 128, 256, 4, 1024
HEAD = FEATURES // HEADS


def gpt4_arrays() -> dict[str, np.ndarray]:
    """One block's operands, float32, from a fixed seed."""
    rng = np.random.default_rng(0)
    normal = lambda *shape: rng.standard_normal(shape, dtype=np.float32)  # noqa: E731
    return {"scores": normal(BATCH, HEADS, SEQ, SEQ), "hidden": normal(BATCH, SEQ, FEATURES),
            "weight": normal(FEATURES), "bias": normal(FEATURES), "mlp": normal(BATCH, SEQ, HIDDEN),
            "heads": normal(BATCH, HEADS, SEQ, HEAD), "causal": np.tril(np.ones((SEQ, SEQ), bool))}


def op_calls(lib: Any, arrays: dict[str, np.ndarray]) -> dict[str, tuple[str, Callable[[], Any]]]:
    """op -> (shape text, a call of it on ``lib``'s tensors)."""
    t = {name: lib.tensor(value) for name, value in arrays.items()}
    functional = lib.nn.functional
    hidden_mask = ~t["causal"]
    scores, heads = t["scores"], t["heads"]
    return {
        "softmax": ("(2, 4, 128, 128), last dim", lambda: functional.softmax(scores, dim=-1)),
        "masked_fill": ("(2, 4, 128, 128) by (128, 128)", lambda: scores.masked_fill(hidden_mask, float("-inf"))),
        "layer_norm": ("(2, 128, 256)", lambda: functional.layer_norm(t["hidden"], (FEATURES,), t["weight"],
                                                                        t["bias"])),
        "gelu": ("(2, 128, 1024)", lambda: functional.gelu(t["mlp"])),
        "q @ k.T": ("8 of (128, 64) @ (64, 128)", lambda: heads @ heads.transpose(-2, -1)),
        "weights @ v": ("8 of (128, 128) @ (128, 64)", lambda: scores @ heads),
        "scale": ("(2, 4, 128, 128) * scalar", lambda: scores * (1.0 / math.sqrt(HEAD))),
        "residual add": ("(2, 128, 256)", lambda: t["hidden"] + t["hidden"]),
    }


def op_table(torch: Any, repeat: int, rounds: int) -> list[list[str]]:
    arrays = gpt4_arrays()
    libraries = {"texport": texport, **({"torch": torch} if torch is not None else {})}
    calls = {name: op_calls(lib, arrays) for name, lib in libraries.items()}
    rows = []
    for op, (shape, _) in calls["texport"].items():
        ms = block_median_ms({name: per_op[op][1] for name, per_op in calls.items()}, repeat, rounds)
        row = [op, shape, f"{ms['texport']:.3f}"]
        if torch is not None:
            row += [f"{ms['torch']:.3f}", f"{ms['texport'] / ms['torch']:.2f}"]
        rows.append(row)
    return rows


def numpy_pass_rows(repeat: int, rounds: int) -> list[list[str]]:
    """ns an element of numpy's passes over GPT4's (2, 4, 128, 128) scores."""
    scores = gpt4_arrays()["scores"]
    out = np.empty_like(scores)
    row_max = np.fmax.reduce(scores, axis=-1, keepdims=True)
    passes = {
        "row max (fmax.reduce along the last axis)": lambda: np.fmax.reduce(scores, axis=-1, keepdims=True),
        "subtract a per-row operand": lambda: np.subtract(scores, row_max, out=out),
        "divide by a per-row operand": lambda: np.divide(scores, row_max, out=out),
        "exp, a plain pass": lambda: np.exp(scores, out=out),
        "multiply by a scalar, a plain pass": lambda: np.multiply(scores, 2.0, out=out),
        "copy": lambda: np.copyto(out, scores),
    }
    with np.errstate(all="ignore"):
        ms = block_median_ms(passes, repeat, rounds)
    return [[name, f"{ms[name] * 1e6 / scores.size:.2f}"] for name in passes]


def dispatch_row(repeat: int, rounds: int) -> list[str]:
    """Small GPT4: eager and ep.module() ms a forward, and their difference."""
    texport.manual_seed(0)
    model = zoo.GPT4(d_model=8, n_heads=2, hidden=16, n_layers=4, max_len=8)
    model.eval()
    x = texport.randn(1, 4, 8)
    with texport.no_grad():
        program = texport.export.export(model, (x,)).module()
        ms = block_median_ms({"eager": lambda: model(x), "program": lambda: program(x)}, repeat, rounds)
    return [f"{ms['eager']:.3f}", f"{ms['program']:.3f}", f"{ms['eager'] - ms['program']:.3f}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads and texport.set_num_threads")
    parser.add_argument("--repeat", type=int, default=200, help="calls in a block")
    parser.add_argument("--rounds", type=int, default=3, help="blocks of each variant, in turns")
    parser.add_argument("--no-torch", action="store_true", help="texport's columns only")
    args = parser.parse_args(argv)
    torch = real_torch() if HAS_TORCH and not args.no_torch else None
    texport.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    print(f"texport ({texport.get_num_threads()} threads), numpy {np.__version__}"
          + (f", torch {torch.__version__} ({torch.get_num_threads()} threads)" if torch else "")
          + f"; median of {args.repeat} calls in a block, median of {args.rounds} blocks in turns\n")
    head = ["op", "shape", "texport_ms"] + (["torch_ms", "x_torch"] if torch is not None else [])
    print(markdown_table(head, op_table(torch, args.repeat, args.rounds)))
    print("\nnumpy's passes over the softmax's (2, 4, 128, 128) scores\n")
    print(markdown_table(["pass", "ns_per_element"], numpy_pass_rows(args.repeat, args.rounds)))
    print("\nGPT4 shrunk to 8 features (kernels take almost no time): eager dispatch per forward\n")
    print(markdown_table(["eager_ms", "program_ms", "eager_minus_program_ms"],
                         [dispatch_row(max(args.repeat // 10, 3), args.rounds)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
