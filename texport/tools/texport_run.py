"""texport-run: run one function of a texport IR file on numpy (like xdsl-run).

    texport-run prog.mlir [--entry NAME] [--inputs in.npz | --random-inputs [--seed N]
                          [--bind s0=8 ...]] [--outputs out.npz]

Inputs come from an .npz (keys are argument names, or arg0, arg1, ...) or are
drawn at random, with symbolic sizes bound by --bind. Each output is printed
with its type and values (or a summary when large). Bad input or a failed
guard exits 1 with one clear message.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.func import FuncOp

from texport.dialects.context import parse_module
from texport.interpreter.dtypes import FLOAT32, from_numpy, is_bfloat16, is_inexact
from texport.interpreter.errors import ExecutionError, GuardError, RuntimeAssertError
from texport.interpreter.executor import compile_function, find_function
from texport.interpreter.inputs import InputError, load_inputs, random_inputs


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="texport-run", description=__doc__.splitlines()[0])
    parser.add_argument("input_file", help="texport IR (.mlir)")
    parser.add_argument("--entry", help="function to run (default: main, else the first)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--inputs", help=".npz with one array per argument")
    source.add_argument("--random-inputs", action="store_true", help="draw inputs at random")
    parser.add_argument("--seed", type=int, default=0, help="seed for --random-inputs")
    parser.add_argument("--bind", action="append", default=[], metavar="SYM=N",
                        help="value of a size symbol for --random-inputs, e.g. s0=8")
    parser.add_argument("--outputs", help="write the outputs to this .npz")
    return parser.parse_args(argv)


def describe(index: int, value: object) -> str:
    if not isinstance(value, np.ndarray):
        return f"output #{index}: {type(value).__name__} = {value!r}"
    dims = ", ".join(str(d) for d in value.shape)
    head = f"output #{index}: {from_numpy(value.dtype).short_name}[{dims}]"
    if is_bfloat16(value.dtype):  # numpy's printing knows float32, not ml_dtypes' bfloat16
        value = value.astype(FLOAT32)
    if value.size <= 24:
        body = np.array2string(value, precision=4, separator=", ", suppress_small=True)
        return f"{head}\n  {body.replace(chr(10), chr(10) + '  ')}"
    finite = value[np.isfinite(value)] if is_inexact(value.dtype) else value
    stats = (f"min={finite.min():.4g} max={finite.max():.4g} mean={finite.mean():.4g}"
             if finite.size else "no finite values")
    return f"{head}\n  {stats}"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    try:
        with open(args.input_file, encoding="utf-8") as handle:
            text = handle.read()
        module = parse_module(text, name=args.input_file)
        module.verify()
        func = find_function(module, args.entry or _default_entry(module))
        plan = compile_function(func)
        if args.inputs:
            inputs = load_inputs(func, args.inputs)
        else:
            inputs = random_inputs(func, args.bind, args.seed)
        outputs = plan(*inputs)
    except (GuardError, RuntimeAssertError, ExecutionError, InputError, OSError) as err:
        print(f"texport-run: error: {err}", file=sys.stderr)
        return 1
    except Exception as err:  # noqa: BLE001 - parse/verify errors carry their own location
        if type(err).__name__ in ("ParseError", "VerifyException", "DiagnosticException"):
            print(f"texport-run: error: {err}", file=sys.stderr)
            return 1
        raise
    for index, value in enumerate(outputs):
        print(describe(index, value))
    if args.outputs:
        np.savez(args.outputs, **{f"out{i}": np.asarray(v) for i, v in enumerate(outputs)})
    return 0


def _default_entry(module: object) -> str | None:
    names = [op.sym_name.data for op in module.walk() if isinstance(op, FuncOp)]
    return "main" if "main" in names else None


if __name__ == "__main__":
    sys.exit(main())
