"""Start-up: importing texport changes no global state and loads nothing heavy
before it is used; the registries fill on first use (dialects/bootstrap.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

HEAVY = ("sympy", "xdsl", "texport.interpreter.kernels.", "texport.lowering", "texport.tracer.nn",
         "texport.tracer.tracing", "ml_dtypes")


def run(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, check=True)
    return out.stdout.splitlines()


def loaded_heavy() -> str:
    return f"print(sorted(h for h in {HEAVY!r} if any(m.startswith(h) for m in sys.modules)))"


def test_import_texport_loads_nothing_heavy() -> None:
    assert run(f"import sys, texport\n{loaded_heavy()}") == ["[]"]


def test_registries_fill_on_first_use_and_no_mode_is_pushed_at_import() -> None:
    lines = run("""
        import texport.interpreter.kernels
        from texport.dialects.shape_rules import SHAPE_RULES
        from texport.interpreter.kernels import KERNELS
        from texport.tracer import dispatcher
        print(len(SHAPE_RULES._entries), len(KERNELS._entries), len(dispatcher._MODES))
        from texport.dialects import bootstrap
        print(len(KERNELS.keys()) > 500, bootstrap.is_done("shape rules"), len(dispatcher._MODES))
        print(len(SHAPE_RULES.keys()) > 500)
        import texport
        print((texport.ones(2) + 1).tolist(), len(dispatcher._MODES))
    """)
    # The op table is read at import (Tensor's methods come from it); each registry is
    # filled when first read; the eager mode arrives with the first op.
    assert lines == ["0 0 0", "True False 0", "True", "[2.0, 2.0] 1"]


def test_texport_opt_on_an_empty_module_loads_no_frontend(tmp_path: Path) -> None:
    empty = tmp_path / "empty.mlir"
    empty.write_text("builtin.module {}\n")
    lines = run(f"""
        import sys
        sys.argv = ["texport-opt", {str(empty)!r}]
        from texport.tools.texport_opt import main
        try:
            main()
        except SystemExit:
            pass
        {loaded_heavy()}
    """)
    assert lines[-1] == "['xdsl']"


def test_first_use_loads_what_it_needs() -> None:
    lines = run("""
        import sys, texport as torch
        y = torch.nn.functional.relu(torch.ones(2))
        print(any(m.startswith("texport.interpreter.kernels.") for m in sys.modules),
              any(m.startswith("texport.lowering.decompositions") for m in sys.modules))
        torch.export.export(torch.nn.ReLU(), (torch.ones(2),)).run_decompositions()
        print(any(m.startswith("texport.lowering.decompositions") for m in sys.modules))
    """)
    assert lines == ["True False", "True"]


def test_texport_never_imports_torch() -> None:
    # a subprocess: the parity suite imports real torch into the test process
    lines = run("""
        import sys, texport as torch
        import texport.export, texport.library, texport.nn, texport.utils.pytree, texport.universe, texport.bridge
        from texport.tools import texport_cli, texport_opt, texport_run
        ep = torch.export.export(torch.nn.Linear(3, 2), (torch.ones(4, 3),))
        ep.run_decompositions().module()(torch.ones(4, 3))
        print("torch" in sys.modules)
    """)
    assert lines == ["False"]
