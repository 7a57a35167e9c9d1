"""texport-run: run one function of a texport IR file on numpy (like xdsl-run).

    texport-run prog.mlir [--entry NAME] [--inputs in.npz | --random-inputs [--seed N]
                          [--bind s0=8 ...]] [--outputs out.npz]

Inputs come from an .npz (keys are argument names, or arg0, arg1, ...) or are
drawn at random, with symbolic sizes bound by --bind. Each output is printed
with its type and values (or a summary when large). Bad input or a failed
guard exits 1 with one clear message, a bad command line 2 (--debug or
TEXPORT_DEBUG=1 shows Python's traceback instead).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from texport.dialects.context import parse_module, verify_module
from texport.interpreter.dtypes import FLOAT32, from_numpy, is_bfloat16, is_inexact
from texport.interpreter.errors import ExecutionError, GuardError, RuntimeAssertError
from texport.interpreter.executor import compile_function, find_function
from texport.interpreter.inputs import (
    InputError,
    argument_names,
    describe_input,
    load_inputs,
    parse_bindings,
    random_inputs,
)
from texport.tools.diagnostics import (
    ToolError,
    UsageError,
    add_debug_option,
    check_output_path,
    debug_wanted,
    non_negative_int,
    run_tool,
)


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="texport-run", description=__doc__.splitlines()[0])
    parser.add_argument("input_file", help="texport IR (.mlir)")
    parser.add_argument("--entry", help="function to run (default: main, else the first)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--inputs", help=".npz with one array per argument")
    source.add_argument("--random-inputs", action="store_true", help="draw inputs at random")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed for --random-inputs")
    parser.add_argument("--bind", action="append", default=[], metavar="SYM=N",
                        help="value of a size symbol for --random-inputs, e.g. s0=8")
    parser.add_argument("--outputs", help="write the outputs to this .npz")
    add_debug_option(parser)
    return parser.parse_args(argv)


def check_bindings(bindings: list[str], draws_random: bool, instead: str) -> None:
    """--bind's own mistakes (malformed, negative, repeated, or given where the inputs are
    not drawn at random) are usage errors, found before any work is done."""
    if bindings and not draws_random:
        raise UsageError(f"--bind {bindings[0]} sizes random inputs: {instead}")
    try:
        parse_bindings(bindings)
    except InputError as err:
        raise UsageError(str(err)) from None


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
    return run_tool("texport-run", lambda: _run(args), debug=debug_wanted(args.debug),
                    clear=(ParseError, VerifyException, DiagnosticException, GuardError,
                           RuntimeAssertError, ExecutionError, InputError))


def _run(args: argparse.Namespace) -> int:
    check_bindings(args.bind, not args.inputs, f"it does not go with --inputs {args.inputs}")
    if args.outputs:
        check_output_path(args.outputs, "--outputs")
    with open(args.input_file, "rb") as handle:  # the parser locates a byte that is not UTF-8
        module = parse_module(handle.read(), name=args.input_file)
    verify_module(module)
    func = find_function(module, args.entry or _default_entry(module))
    plan = compile_function(func)
    if args.inputs:
        inputs = load_inputs(func, args.inputs)
    else:
        inputs = random_inputs(func, args.bind, args.seed)
    try:
        outputs = plan(*inputs)
    except GuardError as err:  # it names what it expected; say what it was given, and where from
        raise ToolError(f"{err}\n{_inputs_summary(func, args, inputs)}") from err
    for index, value in enumerate(outputs):
        print(describe(index, value))
    if args.outputs:
        with open(args.outputs, "wb") as handle:  # the name as given: np.savez would add .npz
            np.savez(handle, **{f"out{i}": np.asarray(v) for i, v in enumerate(outputs)})
    return 0


def _inputs_summary(func: FuncOp, args: argparse.Namespace, inputs: list[Any]) -> str:
    given = ", ".join(f"{name}: {describe_input(value)}" for name, value in zip(argument_names(func), inputs))
    return f"(inputs from {args.inputs or 'random draws'}: {given})"


def _default_entry(module: object) -> str | None:
    names = [op.sym_name.data for op in module.walk() if isinstance(op, FuncOp)]
    return "main" if "main" in names else None


if __name__ == "__main__":
    sys.exit(main())
