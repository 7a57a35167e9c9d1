"""texport-opt: parse texport IR, run a pass pipeline, print the result (like mlir-opt).

All of xdsl-opt's options work (-p, --print-op-generic, --split-input-file,
--verify-diagnostics, -o, --print-debuginfo, ...); texport's dialects and
passes come from texport.universe, next to every xDSL dialect and pass.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from texport.dialects.names import TexportParser


class TexportOptMain(xDSLOptMain):
    version_format = "texport-opt built on xdsl {xdsl_version}"

    def register_all_frontends(self) -> None:
        """Parse with texport's parser, which keeps SSA names whole."""
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            return TexportParser(self.ctx, io.read(), self.get_input_name()).parse_module(
                not self.args.no_implicit_module
            )

        self.available_frontends["mlir"] = parse_mlir


def _fail(message: str) -> None:
    print(f"texport-opt: error: {message}", file=sys.stderr)
    sys.exit(1)


def main(args: Sequence[str] | None = None) -> None:
    # Bad input is the tool's daily fare: each kind gets one message naming what and
    # where (a parse error's file:line:column and caret), never a traceback.
    try:
        TexportOptMain("texport modular optimizer driver", args).run()
    except DiagnosticException as err:  # a failing pass
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)
    except ParseError as err:  # its text is already "file:line:col", the line and a caret
        _fail(str(err))
    except OSError as err:  # a missing input, a directory as input or as -o
        _fail(f"{err.strerror}: {err.filename}" if err.filename else str(err))
    except UnicodeDecodeError as err:
        _fail(f"the input is not UTF-8 text (byte {err.start}: {err.object[err.start:err.start + 1]!r})")
    except ValueError as err:  # a pipeline xDSL or a texport pass refuses (unknown pass, bad option)
        _fail(str(err))


if __name__ == "__main__":
    main(sys.argv[1:])
