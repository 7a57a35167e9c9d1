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
from xdsl.utils.exceptions import DiagnosticException
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


def main(args: Sequence[str] | None = None) -> None:
    try:
        TexportOptMain("texport modular optimizer driver", args).run()
    except DiagnosticException as err:  # a failing pass: one message, no traceback
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
