"""texport-opt: parse texport IR, run a pass pipeline, print the result (like mlir-opt).

All of xdsl-opt's options work (-p, --print-op-generic, --split-input-file,
--verify-diagnostics, -o, --print-debuginfo, ...); texport's dialects and
passes come from texport.universe, next to every xDSL dialect and pass.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from xdsl.xdsl_opt_main import xDSLOptMain


class TexportOptMain(xDSLOptMain):
    version_format = "texport-opt built on xdsl {xdsl_version}"


def main(args: Sequence[str] | None = None) -> None:
    TexportOptMain("texport modular optimizer driver", args).run()


if __name__ == "__main__":
    main(sys.argv[1:])
