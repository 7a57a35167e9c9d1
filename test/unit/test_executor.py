"""The plan executor: equals the kernels called by hand, mutates at training
level, checks inputs, and agrees with xDSL's own Interpreter."""

from __future__ import annotations

import numpy as np
import pytest

from texport.dialects.context import parse_module
from texport.interpreter.errors import GuardError, RuntimeAssertError
from texport.interpreter.executor import compile_function, find_function
from texport.interpreter.kernels import KERNELS
from texport.interpreter.xdsl_functions import make_interpreter

CHAIN = """
func.func @main(%x: !tx.tensor<[s0, 4], f32>, %w: !tx.tensor<[3, 4], f32>) -> (!tx.tensor<[s0, 3], f32>, !tx.tensor<[], f32>) {
  %t = core.permute(%w, [1, 0]) : !tx.tensor<[4, 3], f32>
  %mm = core.mm(%x, %t) : !tx.tensor<[s0, 3], f32>
  %add = core.add.Tensor(%mm, 0.5, alpha = 2) : !tx.tensor<[s0, 3], f32>
  %relu = core.relu(%add) : !tx.tensor<[s0, 3], f32>
  %n = core.sym_size.int(%x, 0) : !tx.symint<s0>
  %view = core.view(%relu, [%n, 3, 1]) : !tx.tensor<[s0, 3, 1], f32>
  %sq = core.squeeze.dims(%view, [2]) : !tx.tensor<[s0, 3], f32>
  %sum = core.sum.dim_IntList(%sq, none) : !tx.tensor<[], f32>
  func.return %sq, %sum : !tx.tensor<[s0, 3], f32>, !tx.tensor<[], f32>
}
"""


def _inputs(rows: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return (rng.standard_normal((rows, 4)).astype(np.float32),
            rng.standard_normal((3, 4)).astype(np.float32))


def test_plan_equals_kernels_called_by_hand() -> None:
    plan = compile_function(find_function(parse_module(CHAIN)))
    x, w = _inputs()
    out, total = plan(x, w)
    t = KERNELS["permute"](w, [1, 0])
    mm = KERNELS["mm"](x, t)
    relu = KERNELS["relu"](KERNELS["add.Tensor"](mm, 0.5, 2))
    np.testing.assert_array_equal(out, relu)
    assert total.shape == () and np.isclose(total, relu.sum())
    np.testing.assert_allclose(relu, np.maximum(x @ w.T + 1.0, 0), rtol=1e-5)  # independent
    # permute + mm run as one step (plan_patterns.py: linear), which lists the ops it runs
    assert [step.kernel for step in plan.steps][:2] == ["fused.linear", "aten.add.Tensor"]
    assert [op.name for op in plan.steps[0].fused] == ["core.permute", "core.mm"]


def test_symbols_bind_per_call() -> None:
    plan = compile_function(find_function(parse_module(CHAIN)))
    for rows in (1, 3, 8):
        out, _ = plan(*_inputs(rows))
        assert out.shape == (rows, 3)


def test_training_level_mutates_the_callers_arrays() -> None:
    text = """
    func.func @main(%buf: !tx.tensor<[3], f32>, %x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
      %add_ = training.add_.Tensor(%buf, %x) : !tx.tensor<[3], f32>
      %mul = training.mul.Tensor(%buf, 2) : !tx.tensor<[3], f32>
      func.return %mul : !tx.tensor<[3], f32>
    }
    """
    plan = compile_function(find_function(parse_module(text)))
    buf = np.zeros(3, np.float32)
    out = plan(buf, np.ones(3, np.float32))[0]
    np.testing.assert_array_equal(buf, [1, 1, 1])
    np.testing.assert_array_equal(out, [2, 2, 2])


def test_input_guards_name_the_input_and_dim() -> None:
    plan = compile_function(find_function(parse_module(CHAIN)))
    x, w = _inputs()
    with pytest.raises(GuardError, match=r"Guard failed: x.size\(\)\[1\] == 4 \(got 5\)"):
        plan(np.zeros((2, 5), np.float32), w)
    with pytest.raises(GuardError, match=r"Guard failed: w.dtype == texport.float32"):
        plan(x, w.astype(np.float64))
    ranged = compile_function(find_function(parse_module(CHAIN)), ranges={
        __import__("texport.dialects.symbolic", fromlist=["symbol"]).symbol("s0"): (2, 6)
    })
    with pytest.raises(GuardError, match=r"Guard failed: x.size\(\)\[0\] >= 2"):
        ranged(*_inputs(1))
    with pytest.raises(GuardError, match=r"Guard failed: x.size\(\)\[0\] <= 6"):
        ranged(*_inputs(7))


def test_runtime_asserts_raise_their_message() -> None:
    text = """
    func.func @main(%n: !tx.symint<s0>) {
      %c = tx.constant 3 : !tx.symint<3>
      %ok = tx.cmp gt, %n, %c : !tx.symbool
      tx.assert %ok, "Runtime assertion failed for expression s0 > 3"
      func.return
    }
    """
    plan = compile_function(find_function(parse_module(text)))
    plan(4)
    with pytest.raises(RuntimeAssertError, match="s0 > 3"):
        plan(3)


def test_xdsl_interpreter_agrees_with_the_plan() -> None:
    module = parse_module(CHAIN)
    x, w = _inputs()
    expected = compile_function(find_function(module))(x, w)
    got = make_interpreter(module).call_op("main", (x, w))
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)
