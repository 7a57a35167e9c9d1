"""texport-opt: parse texport IR, run a pass pipeline, print the result (like mlir-opt);
``-t torch`` prints a core-level module as torch-mlir's torch dialect instead.

All of xdsl-opt's options work (-p, --print-op-generic, --split-input-file,
--verify-diagnostics, -o, --print-debuginfo, ...); texport's dialects and
passes come from texport.universe, next to every xDSL dialect and pass.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from texport.dialects.names import TexportParser
from texport.tools.diagnostics import (
    LocatedError,
    UsageError,
    add_debug_option,
    debug_wanted,
    not_utf8,
    run_tool,
)


class TexportOptMain(xDSLOptMain):
    version_format = "texport-opt built on xdsl {xdsl_version}"

    def register_all_frontends(self) -> None:
        """Parse with texport's parser, which keeps SSA names whole."""
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            module = TexportParser(self.ctx, io.read(), self.get_input_name()).parse_module(
                not self.args.no_implicit_module
            )
            if not self.args.disable_verify:
                # xDSL verifies too, but a verifier crashing on broken input (func.return
                # reading a func.func's missing property) must become a located diagnostic
                from texport.dialects.context import verify_module  # loads the dialects

                verify_module(module)
            return module

        self.available_frontends["mlir"] = parse_mlir

    def register_all_targets(self) -> None:
        """``-t torch``: the module as torch-mlir's torch dialect (IREE's ``--iree-input-type=torch``)."""
        super().register_all_targets()
        self.available_targets["torch"] = _emit_torch

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        add_debug_option(arg_parser)


def _emit_torch(module: ModuleOp, output: IO[str]) -> None:
    # imported when the target is asked for: texport-opt's start-up loads no lowering
    from texport.lowering.torch_dialect import emit_torch_dialect

    output.write(emit_torch_dialect(module))


def main(args: Sequence[str] | None = None) -> None:
    # Bad input is the tool's daily fare: each kind gets one message naming what and
    # where, never a traceback. A ParseError's text is already "file:line:col", the line
    # and a caret; a DiagnosticException is a failing pass; a ValueError is a pass
    # refusing its input.
    debug = _debug_flag(sys.argv[1:] if args is None else args)
    sys.exit(run_tool("texport-opt", lambda: _run(args), debug=debug,
                      clear=(ParseError, DiagnosticException, ValueError)))


def _run(args: Sequence[str] | None) -> None:
    try:  # the constructor builds the pass pipeline: an unknown pass or option is a usage error
        tool = TexportOptMain("texport modular optimizer driver", args)
    except (ValueError, ArgSpecParseError) as err:  # the latter a BaseException, in xDSL 0.74 too
        raise UsageError(str(err).rstrip()) from err
    try:
        tool.run()
    except UnicodeDecodeError as err:
        raise LocatedError(not_utf8(tool.get_input_name(), err)) from err


def _debug_flag(args: Sequence[str]) -> bool:
    """--debug must be known before xDSLOptMain parses the rest: building the pass
    pipeline, which fails on an unknown pass, happens in its constructor."""
    known, _ = _DEBUG_PARSER.parse_known_args(args)
    return debug_wanted(known.debug)


_DEBUG_PARSER = argparse.ArgumentParser(add_help=False)
add_debug_option(_DEBUG_PARSER)


if __name__ == "__main__":
    main(sys.argv[1:])
