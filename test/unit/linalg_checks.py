"""Checks of the lowering to upstream MLIR: a model exported, lowered to core,
then by ``lower-core-to-linalg``; the upstream text verified by iree-opt, compiled
by IREE for the host CPU and run on the same inputs as texport's interpreter.

The interpreter is the reference: the compiled function takes the core
function's arguments (parameters, buffers, constants, user inputs, in the
signature's order) and returns its results (mutated buffers, then the user's
outputs), as the interpreter's plan does."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from texport.export import export
from texport.lowering.linalg import lower_to_linalg_text


def core_program(model: Any, args: tuple, **export_kwargs: Any) -> Any:
    return export(model, args, **export_kwargs).run_decompositions()


def function_inputs(program: Any, user_inputs: list[Any]) -> list[np.ndarray]:
    """The core function's arguments, as ``ep.module()`` binds them."""
    module = program.module()
    return module._plan_inputs(list(user_inputs))


def interpreter_outputs(program: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(v) for v in program.module()._compiled()(*[np.array(x, copy=True) for x in inputs])]


def verify_with_iree_opt(text: str) -> None:
    tool = shutil.which("iree-opt")
    if tool is None:
        pytest.skip("iree-opt is not installed (pip install texport[iree])")
    done = subprocess.run([tool, "-"], input=text, capture_output=True, text=True)
    assert done.returncode == 0, f"iree-opt rejected the lowered program:\n{done.stderr}\n{text}"


# The last program compiled, and its forward: a program checked on several inputs
# (two batch sizes, say) is compiled once, IREE's compile being most of a check's time.
_LAST_COMPILED: dict[str, Callable[[list[np.ndarray]], list[np.ndarray]]] = {}


def compiled(text: str) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
    """The upstream program ``text`` compiled by IREE for the host CPU, as a function
    of the core function's arguments returning its results."""
    if text in _LAST_COMPILED:
        return _LAST_COMPILED[text]
    compiler = pytest.importorskip("iree.compiler")
    runtime = pytest.importorskip("iree.runtime")
    from texport.backends.iree import TARGET_FLAGS  # the backend's own flags: what users run

    vmfb = compiler.compile_str(text, target_backends=["llvm-cpu"], extra_args=list(TARGET_FLAGS))
    context = runtime.SystemContext(config=runtime.Config("local-task"))
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, vmfb))

    def forward(inputs: list[np.ndarray]) -> list[np.ndarray]:
        results = context.modules.module.forward(*inputs)
        if not isinstance(results, (tuple, list)):
            results = [results]
        return [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]

    _LAST_COMPILED.clear()
    _LAST_COMPILED[text] = forward
    return forward


def compile_and_run(text: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return compiled(text)(inputs)


def as_signedness_of(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """``got`` viewed as ``want``'s dtype when they differ in signedness only: IREE
    returns a uint8 result as int8 (upstream's integers are signless)."""
    if (got.dtype != want.dtype and got.dtype.kind in "iu" and want.dtype.kind in "iu"
            and got.dtype.itemsize == want.dtype.itemsize):
        return got.view(want.dtype)
    return got


def check_lowered(program: Any, user_inputs: list[Any], rtol: float = 1e-5, atol: float = 1e-5) -> str:
    """Lower ``program`` (core level), verify, compile (once for several calls on one
    program), run on ``user_inputs`` and compare every result with the interpreter's;
    returns the upstream text."""
    text = lower_to_linalg_text(program.graph_module.module)
    if text not in _LAST_COMPILED:
        verify_with_iree_opt(text)
    inputs = [np.asarray(x._value if hasattr(x, "_value") else x) for x in function_inputs(program, user_inputs)]
    want = interpreter_outputs(program, inputs)
    got = compile_and_run(text, inputs)
    assert len(got) == len(want), f"{len(got)} results, the interpreter gave {len(want)}"
    for position, (w, g) in enumerate(zip(want, got, strict=True)):
        g = as_signedness_of(g, w)
        assert g.shape == w.shape, f"result #{position}: shape {g.shape}, want {w.shape}"
        assert g.dtype == w.dtype, f"result #{position}: dtype {g.dtype}, want {w.dtype}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"result #{position}")
    return text


def lowered_and_checked(model: Any, example: tuple, runs: list[tuple], dynamic_shapes: Any = None,
                        rtol: float = 1e-5, atol: float = 1e-5) -> str:
    """``model`` exported on ``example`` (with ``dynamic_shapes``), then ``check_lowered``
    on each of ``runs`` (its user inputs), compiled once; returns the upstream text."""
    program = core_program(model, example, dynamic_shapes=dynamic_shapes)
    text = ""
    for run in runs:
        text = check_lowered(program, list(run), rtol, atol)
    return text
