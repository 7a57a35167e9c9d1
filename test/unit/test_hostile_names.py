"""The interpreter's generated Python holds only names texport made itself
(issue 17): IR names — function, SSA and block-argument names, size symbols —
that are Python keywords, builtins, texport's own helpers or its generated
names (``lambda``, ``__import__``, ``GuardError``, ``v1``, ``d0``) run as any
other name, and the guard messages still name the program's own inputs."""

from __future__ import annotations

import ast
import re

import numpy as np
import pytest

import texport
from texport.dialects.context import parse_module
from texport.export import Dim
from texport.interpreter.dtypes import to_numpy
from texport.interpreter.errors import GuardError
from texport.interpreter.executor import Plan, compile_function, find_function

# keywords, builtins, the plan's helpers and generated names; each a legal IR
# SSA name and dim symbol
HOSTILE = ["lambda", "None", "return", "__import__", "isinstance", "GuardError", "Max", "ndarray",
           "_got", "run_cond", "v1", "v0_", "d0", "k0", "c1", "dt9", "plan0"]

# the function, its first argument and that argument's size symbol take NAME;
# %y's size uses it too and a symbol (s9) the symint %n binds after it; the
# cond's branches take a block argument NAME as well
PROGRAM = """
func.func @NAME(%NAME: !tx.tensor<[NAME, 3], f32>, %y: !tx.tensor<[2*NAME + s9, 3], f32>,
                %n: !tx.symint<s9>, %p: !tx.tensor<[], i1>) -> (!tx.tensor<[NAME, 3], f32>, !tx.tensor<[2*NAME + s9, 3], f32>) {
  %r = control.cond %p (%NAME) : !tx.tensor<[], i1>, (!tx.tensor<[NAME, 3], f32>) -> (!tx.tensor<[NAME, 3], f32>) {
  ^bb0(%NAME_in: !tx.tensor<[NAME, 3], f32>):
    %s = core.mul.Tensor(%NAME_in, 2.5) : !tx.tensor<[NAME, 3], f32>
    control.yield %s : !tx.tensor<[NAME, 3], f32>
  }, {
  ^bb0(%NAME_in: !tx.tensor<[NAME, 3], f32>):
    control.yield %NAME_in : !tx.tensor<[NAME, 3], f32>
  }
  %z = core.neg(%y) : !tx.tensor<[2*NAME + s9, 3], f32>
  func.return %r, %z : !tx.tensor<[NAME, 3], f32>, !tx.tensor<[2*NAME + s9, 3], f32>
}
"""

_GENERATED = re.compile(r"(v|d|k|c|dt|msg|region|region_|plan)\d+|r\d+_v\d+")
_HELPERS = {"GuardError", "RuntimeAssertError", "Max", "Min", "ndarray", "_got", "isinstance", "type",
            "int", "float", "max", "min", "run_cond", "run_map", "run_scan", "run_while"}


def _plan(name: str) -> Plan:
    return compile_function(find_function(parse_module(PROGRAM.replace("NAME", name))))


def _identifiers(plan: Plan) -> set[str]:
    """Every identifier of the plan's source and its regions' sub-plans."""
    sources = [plan.source] + [v.source for v in plan.run.__globals__.values() if isinstance(v, Plan)]
    names: set[str] = set()
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.FunctionDef):
                names.update([node.name, *(a.arg for a in node.args.args)])
    return names


def _inputs(rows: int = 2, extra: int = 1, *, y_rows: int | None = None) -> list:
    x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
    y = np.ones((2 * rows + extra if y_rows is None else y_rows, 3), np.float32)
    return [x, y, extra, np.array(True)]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_ir_names_run(name: str) -> None:
    plan = _plan(name)
    x, y, n, p = _inputs()
    r, z = plan(x, y, n, p)
    np.testing.assert_array_equal(r, x * 2.5)
    np.testing.assert_array_equal(z, -y)
    r, _ = plan(x, y, n, np.array(False))
    np.testing.assert_array_equal(r, x)
    assert plan.name == name


@pytest.mark.parametrize("name", HOSTILE)
def test_generated_code_uses_only_generated_names(name: str) -> None:
    stray = {n for n in _identifiers(_plan(name)) if not _GENERATED.fullmatch(n)} - _HELPERS
    assert not stray, f"IR names pasted into the plan: {stray}"


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_guard_errors_name_the_inputs(name: str) -> None:
    plan = _plan(name)
    with pytest.raises(GuardError, match=rf"^Guard failed: y.size\(\)\[0\] == .*{re.escape(name)}\.size\(\)\[0\]"):
        plan(*_inputs(y_rows=6))
    with pytest.raises(GuardError, match=rf"^Guard failed: {re.escape(name)}\.dtype == texport.float32 \(got bfloat16\)"):
        x, *rest = _inputs()
        plan(x.astype(to_numpy(texport.bfloat16)), *rest)
    with pytest.raises(GuardError, match=r"^Guard failed: n must be an int \(got float 1.0\)$"):
        plan(*_inputs()[:2], 1.0, np.array(True))


def test_names_that_collide_with_generated_ones_do_not_swap() -> None:
    """d1 and d0 are the locals the plan generates: the IR's own d1 and d0 map
    to them crosswise (d1 binds first), and each check keeps its meaning."""
    plan = compile_function(find_function(parse_module("""
    func.func @f(%d1: !tx.tensor<[d1, d0], f32>, %v0: !tx.tensor<[d0, 2*d1], f32>) -> !tx.tensor<[d1, d0], f32> {
      %r = core.add.Tensor(%d1, %d1) : !tx.tensor<[d1, d0], f32>
      func.return %r : !tx.tensor<[d1, d0], f32>
    }""")))
    x = np.ones((2, 3), np.float32)
    (r,) = plan(x, np.ones((3, 4), np.float32))
    np.testing.assert_array_equal(r, 2 * x)
    with pytest.raises(GuardError, match=r"^Guard failed: v0.size\(\)\[1\] == 2\*d1.size\(\)\[0\] \(got 5\)$"):
        plan(x, np.ones((3, 5), np.float32))
    with pytest.raises(GuardError, match=r"^Guard failed: v0.size\(\)\[0\] == d1.size\(\)\[1\] \(got 4\)$"):
        plan(x, np.ones((4, 4), np.float32))


class _Sum(texport.nn.Module):
    def forward(self, v1, d0, GuardError, inp):  # noqa: ANN001, ANN201, N803 - names the plan also generates
        return v1 + d0 + GuardError + inp["lambda"] + inp["it's\n"] + inp["ß"]


@pytest.mark.parametrize("dim_name", ["lambda", "v1", "__import__", "d0", "GuardError"])
def test_export_with_hostile_dim_and_input_names(dim_name: str) -> None:
    dim = Dim(dim_name, min=2, max=10)
    keys = ["lambda", "it's\n", "ß"]
    t = texport.ones(3, 2)
    ep = texport.export.export(
        _Sum(), (t, t, t, dict.fromkeys(keys, t)),
        dynamic_shapes={"v1": {0: dim}, "d0": {0: dim}, "GuardError": {0: dim}, "inp": dict.fromkeys(keys, {0: dim})})
    module = ep.module()
    u = texport.full((5, 2), 1.5)
    np.testing.assert_array_equal(module(u, u, u, dict.fromkeys(keys, u)).numpy(), np.full((5, 2), 9.0))
    with pytest.raises(GuardError, match=r"^Guard failed: inp\['ß'\].size\(\)\[0\] == v1.size\(\)\[0\] \(got 4\)$"):
        module(u, u, u, {"lambda": u, "it's\n": u, "ß": texport.ones(4, 2)})
    with pytest.raises(GuardError, match=r"^Guard failed: v1.size\(\)\[0\] <= 10$"):
        big = texport.ones(11, 2)
        module(big, big, big, dict.fromkeys(keys, big))


def test_quoted_function_name_and_punctuated_ssa_names() -> None:
    """What MLIR allows beyond identifiers: a quoted symbol name, and '.', '$'
    and '-' in SSA names."""
    plan = compile_function(find_function(parse_module("""
    func.func @"import os; ß\\n"(%a.b: !tx.tensor<[s0], f32>, %$c-1: !tx.tensor<[s0], f32>) -> !tx.tensor<[s0], f32> {
      %x.y = core.sub.Tensor(%a.b, %$c-1) : !tx.tensor<[s0], f32>
      func.return %x.y : !tx.tensor<[s0], f32>
    }""")))
    (r,) = plan(np.full(2, 3.0, np.float32), np.ones(2, np.float32))
    np.testing.assert_array_equal(r, np.full(2, 2.0))
    assert plan.name == "import os; ß\n"
    with pytest.raises(GuardError, match=r"^Guard failed: \$c-1.size\(\)\[0\] == a.b.size\(\)\[0\] \(got 3\)$"):
        plan(np.ones(2, np.float32), np.ones(3, np.float32))
