"""Parse and print speed of core-dialect text with symbolic types.

    python benchmarks/ir_text.py [--sizes 10000 100000]

Generates a core-dialect function of N ops (a mix of elementwise, view,
matmul-like and reduction ops over [s0, 64]-style symbolic types), then times
parse (text -> module), verify, and print (module -> text); prints ops/s and
the per-op cost ratio between the largest and smallest size.
"""

from __future__ import annotations

import argparse
import gc
import time

from texport.dialects.context import make_context, parse_module, print_module

_BODY = [
    "%{r} = core.add.Tensor(%{a}, %{b}) : !tx.tensor<[s0, 64], f32>",
    "%{r} = core.mul.Scalar(%{a}, 0.5) : !tx.tensor<[s0, 64], f32>",
    "%{r} = core.relu(%{a}) : !tx.tensor<[s0, 64], f32>",
    "%{r} = core.sub.Tensor(%{a}, %{b}, alpha = 2) : !tx.tensor<[s0, 64], f32>",
    "%{r} = core.clone(%{a}) : !tx.tensor<[s0, 64], f32>",
    "%{r} = core.where.self(%mask, %{a}, %{b}) : !tx.tensor<[s0, 64], f32>",
    "%{r} = core.view(%{a}, [%n2, 32]) : !tx.tensor<[2*s0, 32], f32>",
    "%{r} = core.view(%{p}, [%n, 64]) : !tx.tensor<[s0, 64], f32>",
]


def generate(n_ops: int) -> str:
    lines = [
        "func.func @main(%x: !tx.tensor<[s0, 64], f32>, %y: !tx.tensor<[s0, 64], f32>, "
        "%mask: !tx.tensor<[s0, 64], i1>) -> !tx.tensor<[s0, 64], f32> {",
        "  %n = core.sym_size.int(%x, 0) : !tx.symint<s0>",
        "  %c2 = tx.constant 2 : !tx.symint<2>",
        "  %n2 = tx.mul %n, %c2 : !tx.symint<2*s0>",
    ]
    prev, other = "x", "y"
    for i in range(n_ops - 3):
        template = _BODY[i % len(_BODY)]
        name = f"v{i}"
        lines.append("  " + template.format(r=name, a=prev, b=other, p=f"v{i - 1}"))
        if "2*s0" not in template:
            other, prev = prev, name
    lines.append(f"  func.return %{prev} : !tx.tensor<[s0, 64], f32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def measure(n_ops: int, ctx) -> dict[str, float]:  # noqa: ANN001
    text = generate(n_ops)
    gc.collect()
    start = time.perf_counter()
    module = parse_module(text, ctx)
    parsed = time.perf_counter()
    module.verify()
    verified = time.perf_counter()
    out = print_module(module)
    printed = time.perf_counter()
    assert out.count("\n") >= n_ops, "printer lost ops"
    return {
        "ops": n_ops,
        "parse": n_ops / (parsed - start),
        "verify": n_ops / (verified - parsed),
        "print": n_ops / (printed - verified),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args()
    ctx = make_context()
    measure(1000, ctx)  # warm caches (type memo, op classes)
    rows = [measure(n, ctx) for n in args.sizes]
    print(f"{'ops':>8} {'parse ops/s':>12} {'verify ops/s':>13} {'print ops/s':>12}")
    for row in rows:
        print(f"{row['ops']:>8} {row['parse']:>12.0f} {row['verify']:>13.0f} {row['print']:>12.0f}")
    if len(rows) > 1:
        small, large = rows[0], rows[-1]
        for key in ("parse", "print"):
            ratio = small[key] / large[key]
            print(f"per-op {key} cost at {large['ops']} vs {small['ops']}: {ratio:.2f}x")


if __name__ == "__main__":
    main()
