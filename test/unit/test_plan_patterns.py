"""Groups of ops a plan runs as one step (interpreter/plan_patterns.py), the near
misses that must stay unfused, and how a failing step names its op."""

from __future__ import annotations

import re

import numpy as np
import pytest

from texport.dialects.context import parse_module
from texport.interpreter import executor
from texport.interpreter.errors import ExecutionError, GuardError
from texport.interpreter.executor import compile_function, find_function
from texport.interpreter.kernels import KERNELS


def _plans(text: str) -> tuple[executor.Plan, executor.Plan]:
    """The plan of ``text`` and the same plan with no op grouped."""
    func = find_function(parse_module(text))
    fused = compile_function(func)
    original = executor.match_block
    executor.match_block = lambda block: {}
    try:
        unfused = compile_function(func)
    finally:
        executor.match_block = original
    return fused, unfused


def _kernels(plan: executor.Plan) -> list[str]:
    return [step.kernel for step in plan.steps]


def _randn(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------------------- matmul chains

# torch's core decomposition of q @ k.transpose(-1, -2) on [B, H, S, D] (sdpa's scores)
MATMUL = """
func.func @main(%q: !tx.tensor<[2, 3, 4, 5], f32>, %k: !tx.tensor<[2, 3, 4, 5], f32>) -> !tx.tensor<[2, 3, 4, 4], f32> {
  %kt = core.permute(%k, [0, 1, 3, 2]) : !tx.tensor<[2, 3, 5, 4], f32>
  %e1 = core.expand(%q, [2, 3, 4, 5]) : !tx.tensor<[2, 3, 4, 5], f32>
  %c1 = core.clone(%e1, memory_format = "contiguous_format") : !tx.tensor<[2, 3, 4, 5], f32>
  %v1 = core.view(%c1, [6, 4, 5]) : !tx.tensor<[6, 4, 5], f32>
  %e2 = core.expand(%kt, [2, 3, 5, 4]) : !tx.tensor<[2, 3, 5, 4], f32>
  %c2 = core.clone(%e2, memory_format = "contiguous_format") : !tx.tensor<[2, 3, 5, 4], f32>
  %v2 = core.view(%c2, [6, 5, 4]) : !tx.tensor<[6, 5, 4], f32>
  %bmm = core.bmm(%v1, %v2) : !tx.tensor<[6, 4, 4], f32>
  %out = core.view(%bmm, [2, 3, 4, 4]) : !tx.tensor<[2, 3, 4, 4], f32>
  func.return %out : !tx.tensor<[2, 3, 4, 4], f32>
}
"""


def test_decomposed_matmul_runs_as_one_matmul() -> None:
    fused, unfused = _plans(MATMUL)
    assert _kernels(fused) == ["aten.permute.default", "fused.matmul"]
    assert [op.name for op in fused.steps[1].fused] == [
        "core.expand", "core.clone", "core.view", "core.expand", "core.clone", "core.view", "core.bmm", "core.view"]
    q, k = _randn(2, 3, 4, 5), _randn(2, 3, 4, 5, seed=1)
    (out,), (reference,) = fused(q, k), unfused(q, k)
    assert out.shape == (2, 3, 4, 4) and out.dtype == np.float32 and out.flags.c_contiguous
    # one np.matmul instead of a GEMM per batch on contiguous copies: float32 rounding apart
    np.testing.assert_allclose(out, reference, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out, q.astype(np.float64) @ k.astype(np.float64).swapaxes(-1, -2), rtol=1e-5)


def test_matmul_with_dynamic_batch_and_broadcast_weight() -> None:
    """x @ w for x [s0, s1, 4] and w [4, 6]: the weight's expand broadcasts a batch."""
    text = """
func.func @main(%x: !tx.tensor<[s0, s1, 4], f32>, %w: !tx.tensor<[4, 6], f32>) -> !tx.tensor<[s0, s1, 6], f32> {
  %n0 = core.sym_size.int(%x, 0) : !tx.symint<s0>
  %n1 = core.sym_size.int(%x, 1) : !tx.symint<s1>
  %e1 = core.expand(%x, [%n0, %n1, 4]) : !tx.tensor<[s0, s1, 4], f32>
  %v1 = core.view(%e1, [%n0, %n1, 4]) : !tx.tensor<[s0, s1, 4], f32>
  %e2 = core.expand(%w, [%n0, 4, 6]) : !tx.tensor<[s0, 4, 6], f32>
  %v2 = core.view(%e2, [%n0, 4, 6]) : !tx.tensor<[s0, 4, 6], f32>
  %bmm = core.bmm(%v1, %v2) : !tx.tensor<[s0, s1, 6], f32>
  %out = core.view(%bmm, [%n0, %n1, 6]) : !tx.tensor<[s0, s1, 6], f32>
  func.return %out : !tx.tensor<[s0, s1, 6], f32>
}
"""
    fused, unfused = _plans(text)
    assert "fused.matmul" in _kernels(fused) and "aten.bmm.default" not in _kernels(fused)
    w = _randn(4, 6, seed=2)
    for shape in ((1, 3, 4), (3, 2, 4), (2, 5, 4)):
        x = _randn(*shape)
        (out,), (reference,) = fused(x, w), unfused(x, w)
        assert out.shape == (*shape[:2], 6)
        np.testing.assert_allclose(out, reference, rtol=1e-6, atol=1e-6)
    # a strided x (a slice): the view of its expand is legal with one batch dim, no copy needed
    x = _randn(3, 10, 4)[:, ::2]
    np.testing.assert_allclose(fused(x, w)[0], unfused(x, w)[0], rtol=1e-6, atol=1e-6)


def _also_summed(text: str, returned: str, result_type: str, summed: str) -> str:
    """``text``'s function also returns the sum of ``summed``: a second use of that value."""
    changed = text.replace(
        f"  func.return {returned} : {result_type}",
        f"  %s = core.sum.dim_IntList({summed}, none) : !tx.tensor<[], f32>\n"
        f"  func.return {returned}, %s : {result_type}, !tx.tensor<[], f32>",
    ).replace(f"-> {result_type} {{", f"-> ({result_type}, !tx.tensor<[], f32>) {{")
    assert changed.count("core.sum.dim_IntList") == text.count("core.sum.dim_IntList") + 1
    return changed


def test_matmul_near_misses_stay_unfused() -> None:
    # a view result with a second use
    second_use = _also_summed(MATMUL, "%out", "!tx.tensor<[2, 3, 4, 4], f32>", "%v1")
    fused, unfused = _plans(second_use)
    assert "aten.bmm.default" in _kernels(fused)
    q, k = _randn(2, 3, 4, 5), _randn(2, 3, 4, 5, seed=1)
    for a, b in zip(fused(q, k), unfused(q, k)):
        np.testing.assert_array_equal(a, b)
    # a view folding more than the batch dims: [2, 3, 4, 5] as [2, 12, 5] is no batch of matrices
    folded = """
func.func @main(%a: !tx.tensor<[2, 3, 4, 5], f32>, %b: !tx.tensor<[2, 5, 7], f32>) -> !tx.tensor<[2, 12, 7], f32> {
  %v1 = core.view(%a, [2, 12, 5]) : !tx.tensor<[2, 12, 5], f32>
  %e2 = core.expand(%b, [2, 5, 7]) : !tx.tensor<[2, 5, 7], f32>
  %v2 = core.view(%e2, [2, 5, 7]) : !tx.tensor<[2, 5, 7], f32>
  %bmm = core.bmm(%v1, %v2) : !tx.tensor<[2, 12, 7], f32>
  func.return %bmm : !tx.tensor<[2, 12, 7], f32>
}
"""
    fused, unfused = _plans(folded)
    a, b = _randn(2, 3, 4, 5), _randn(2, 5, 7, seed=3)
    np.testing.assert_array_equal(fused(a, b)[0], unfused(a, b)[0])
    assert "fused.matmul" not in _kernels(fused) or "aten.view.default" in _kernels(fused)


def test_matmul_whose_operand_is_written_between_stays_unfused() -> None:
    """The clone copies q before add_ writes it: one matmul at the bmm would read the new q."""
    text = """
func.func @main(%q: !tx.tensor<[2, 4, 5], f32>, %k: !tx.tensor<[2, 5, 4], f32>) -> (!tx.tensor<[2, 4, 4], f32>, !tx.tensor<[2, 4, 5], f32>) {
  %e1 = training.expand(%q, [2, 4, 5]) : !tx.tensor<[2, 4, 5], f32>
  %c1 = training.clone(%e1, memory_format = "contiguous_format") : !tx.tensor<[2, 4, 5], f32>
  %v1 = training.view(%c1, [2, 4, 5]) : !tx.tensor<[2, 4, 5], f32>
  %add_ = training.add_.Tensor(%q, 1) : !tx.tensor<[2, 4, 5], f32>
  %bmm = training.bmm(%v1, %k) : !tx.tensor<[2, 4, 4], f32>
  func.return %bmm, %add_ : !tx.tensor<[2, 4, 4], f32>, !tx.tensor<[2, 4, 5], f32>
}
"""
    fused, _ = _plans(text)
    assert "aten.bmm.default" in _kernels(fused)
    q, k = _randn(2, 4, 5), _randn(2, 5, 4, seed=1)
    out, _ = fused(q.copy(), k)
    np.testing.assert_allclose(out, q @ k, rtol=1e-5)


# ---------------------------------------------------------------------------- linear


LINEAR = """
func.func @main(%x: !tx.tensor<[2, s0, 4], f32>, %w: !tx.tensor<[3, 4], f32>, %b: !tx.tensor<[3], f32>) -> !tx.tensor<[2, s0, 3], f32> {
  %n = core.sym_size.int(%x, 1) : !tx.symint<s0>
  %rows = tx.mul %n, %n : !tx.symint<s0*s0>
  %c2 = tx.constant 2 : !tx.symint<2>
  %m = tx.mul %c2, %n : !tx.symint<2*s0>
  %v = core.view(%x, [%m, 4]) : !tx.tensor<[2*s0, 4], f32>
  %t = core.permute(%w, [1, 0]) : !tx.tensor<[4, 3], f32>
  %mm = core.addmm(%b, %v, %t) : !tx.tensor<[2*s0, 3], f32>
  %out = core.view(%mm, [2, %n, 3]) : !tx.tensor<[2, s0, 3], f32>
  func.return %out : !tx.tensor<[2, s0, 3], f32>
}
"""


def test_decomposed_linear_runs_as_linear_bit_for_bit() -> None:
    fused, unfused = _plans(LINEAR)
    assert "fused.linear" in _kernels(fused) and "aten.addmm.default" not in _kernels(fused)
    w, b = _randn(3, 4, seed=1), _randn(3, seed=2)
    for rows in (1, 5):
        x = _randn(2, rows, 4)
        (out,), (reference,) = fused(x, w, b), unfused(x, w, b)
        np.testing.assert_array_equal(out, reference)  # the same folded GEMM, the same bias add
        np.testing.assert_array_equal(out, KERNELS["linear"](x, w, b))
        np.testing.assert_allclose(out, x @ w.T + b, rtol=1e-5, atol=1e-6)


def test_linear_on_a_strided_input_fails_as_the_view_does() -> None:
    """A transposed input cannot be viewed as rows: the fused step falls back to the ops."""
    fused, unfused = _plans(LINEAR)
    x = _randn(2, 4, 3).swapaxes(1, 2)  # [2, 3, 4], not contiguous
    w, b = _randn(3, 4, seed=1), _randn(3, seed=2)
    messages = []
    for plan in (fused, unfused):
        with pytest.raises(ExecutionError) as caught:
            plan(x, w, b)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith("'core.view' failed: RuntimeError: view size is not compatible")


# ---------------------------------------------------------------------------- view chains

VIEWS = """
func.func @main(%x: !tx.tensor<[4, 6], f32>) -> !tx.tensor<[3, 8], f32> {
  %a = core.view(%x, [2, 2, 6]) : !tx.tensor<[2, 2, 6], f32>
  %b = core.view(%a, [24]) : !tx.tensor<[24], f32>
  %c = core.view(%b, [3, 8]) : !tx.tensor<[3, 8], f32>
  func.return %c : !tx.tensor<[3, 8], f32>
}
"""


def test_view_chain_is_one_view() -> None:
    fused, unfused = _plans(VIEWS)
    assert _kernels(fused) == ["fused.view"]
    x = _randn(4, 6)
    (out,) = fused(x)
    np.testing.assert_array_equal(out, unfused(x)[0])
    assert np.shares_memory(out, x)  # still a view
    with pytest.raises(ExecutionError) as caught:  # not viewable: the ops' own error
        fused(_randn(6, 4).T)
    with pytest.raises(ExecutionError) as expected:
        unfused(_randn(6, 4).T)
    assert str(caught.value) == str(expected.value)


def test_view_whose_intermediate_has_a_second_use_stays() -> None:
    text = _also_summed(VIEWS, "%c", "!tx.tensor<[3, 8], f32>", "%b")
    fused, _ = _plans(text)
    # the first two views fold into one; the one after the shared value stays its own step
    assert _kernels(fused).count("aten.view.default") == 1 and "fused.view" in _kernels(fused)
    x = _randn(4, 6)
    out, total = fused(x)
    np.testing.assert_array_equal(out, x.reshape(3, 8))
    np.testing.assert_allclose(total, x.sum(), rtol=1e-5)


# ---------------------------------------------------------------------------- unused results


POOL = """
func.func @main(%x: !tx.tensor<[1, 2, 6, 6], f32>) -> {results} {{
  %r, %i = core.max_pool2d_with_indices(%x, [2, 2]) : (!tx.tensor<[1, 2, 3, 3], f32>, !tx.tensor<[1, 2, 3, 3], i64>)
  func.return {returned}
}}
"""


def test_max_pool_without_its_indices_runs_max_pool() -> None:
    values_only = POOL.format(results="!tx.tensor<[1, 2, 3, 3], f32>",
                              returned="%r : !tx.tensor<[1, 2, 3, 3], f32>")
    fused, unfused = _plans(values_only)
    assert _kernels(fused) == ["values_only.aten.max_pool2d_with_indices.default"]
    x = _randn(1, 2, 6, 6)
    np.testing.assert_array_equal(fused(x)[0], unfused(x)[0])
    np.testing.assert_array_equal(fused(x)[0], x.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5)))
    both = POOL.format(results="(!tx.tensor<[1, 2, 3, 3], f32>, !tx.tensor<[1, 2, 3, 3], i64>)",
                       returned="%r, %i : !tx.tensor<[1, 2, 3, 3], f32>, !tx.tensor<[1, 2, 3, 3], i64>")
    fused, unfused = _plans(both)
    assert _kernels(fused) == ["aten.max_pool2d_with_indices.default"]
    for a, b in zip(fused(x), unfused(x)):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------- failures


def test_failures_name_their_op_once_mapped_from_the_plan_line() -> None:
    text = """
func.func @main(%x: !tx.tensor<[2, 3], f32>, %p: !tx.tensor<[], i1>) -> !tx.tensor<[3, 2], f32> {
  %r = control.cond %p (%x) : !tx.tensor<[], i1>, (!tx.tensor<[2, 3], f32>) -> (!tx.tensor<[3, 2], f32>) {
  ^bb0(%a: !tx.tensor<[2, 3], f32>):
    %v = core.view(%a, [3, 2]) : !tx.tensor<[3, 2], f32> loc("model.py":7:0)
    control.yield %v : !tx.tensor<[3, 2], f32>
  }, {
  ^bb0(%a: !tx.tensor<[2, 3], f32>):
    %t = core.permute(%a, [1, 0]) : !tx.tensor<[3, 2], f32>
    control.yield %t : !tx.tensor<[3, 2], f32>
  }
  %out = core.add.Tensor(%r, %r) : !tx.tensor<[3, 2], f32> loc("model.py":9:0)
  func.return %out : !tx.tensor<[3, 2], f32>
}
"""
    plan = compile_function(find_function(parse_module(text)))
    strided = _randn(3, 2).T
    with pytest.raises(ExecutionError, match=r"^'core.view' at model.py:7 failed: RuntimeError: view size") as caught:
        plan(strided, np.array(True))  # inside the region's sub-plan
    assert isinstance(caught.value.__cause__, RuntimeError) and "view size" in str(caught.value.__cause__)
    np.testing.assert_array_equal(plan(strided, np.array(False))[0], 2 * strided.T)
    with pytest.raises(GuardError):  # input checks pass unchanged
        plan(_randn(2, 4), np.array(True))
    # a failure of the main plan's own step: the kernel's error, chained
    bad = text.replace("core.add.Tensor(%r, %r)", "core.add.Tensor(%r, %x)")
    plan = compile_function(find_function(parse_module(bad)))
    with pytest.raises(ExecutionError, match=re.escape("'core.add.Tensor' at model.py:9 failed: ")):
        plan(strided, np.array(False))


def test_matmul_of_strided_sources_checks_that_the_batch_dims_merge() -> None:
    """No clone: the view merges the source's batch dims, legal as its strides say."""
    text = """
func.func @main(%a: !tx.tensor<[2, 2, 4, 8], f32>, %b: !tx.tensor<[2, 2, 8, 3], f32>) -> !tx.tensor<[2, 2, 4, 3], f32> {
  %e1 = core.expand(%a, [2, 2, 4, 8]) : !tx.tensor<[2, 2, 4, 8], f32>
  %v1 = core.view(%e1, [4, 4, 8]) : !tx.tensor<[4, 4, 8], f32>
  %e2 = core.expand(%b, [2, 2, 8, 3]) : !tx.tensor<[2, 2, 8, 3], f32>
  %v2 = core.view(%e2, [4, 8, 3]) : !tx.tensor<[4, 8, 3], f32>
  %bmm = core.bmm(%v1, %v2) : !tx.tensor<[4, 4, 3], f32>
  %out = core.view(%bmm, [2, 2, 4, 3]) : !tx.tensor<[2, 2, 4, 3], f32>
  func.return %out : !tx.tensor<[2, 2, 4, 3], f32>
}
"""
    fused, unfused = _plans(text)
    assert "fused.matmul" in _kernels(fused)
    b = _randn(2, 2, 8, 3, seed=1)
    mergeable = _randn(4, 2, 2, 8).transpose(1, 2, 0, 3)  # batch strides (64, 32): they merge
    np.testing.assert_allclose(fused(mergeable, b)[0], unfused(mergeable, b)[0], rtol=1e-6, atol=1e-6)
    crossed = _randn(2, 4, 2, 8).transpose(2, 0, 1, 3)  # batch strides (16, 64): they do not
    with pytest.raises(ExecutionError) as caught:
        fused(crossed, b)
    with pytest.raises(ExecutionError) as expected:
        unfused(crossed, b)
    assert str(caught.value) == str(expected.value) and "'core.view' failed" in str(caught.value)


SELECT = """
func.func @main(%x: !tx.tensor<[3, 2, 4], f32>) -> (!tx.tensor<[2, 4], f32>, !tx.tensor<[3, 4], f32>) {
  %s = core.slice.Tensor(%x, 0, 2, 3) : !tx.tensor<[1, 2, 4], f32>
  %q = core.squeeze.dims(%s, [0]) : !tx.tensor<[2, 4], f32>
  %t = core.slice.Tensor(%x, -2, 1, 2) : !tx.tensor<[3, 1, 4], f32>
  %r = core.squeeze.dims(%t, [-2]) : !tx.tensor<[3, 4], f32>
  func.return %q, %r : !tx.tensor<[2, 4], f32>, !tx.tensor<[3, 4], f32>
}
"""


def test_slice_then_squeeze_is_select() -> None:
    fused, unfused = _plans(SELECT)
    assert _kernels(fused) == ["fused.select", "fused.select"]
    x = _randn(3, 2, 4)
    for a, b, expected in zip(fused(x), unfused(x), (x[2], x[:, 1])):
        np.testing.assert_array_equal(a, expected)
        assert a.strides == b.strides and np.shares_memory(a, x)  # the same view
    # a slice wider than one, or a squeeze of another dim: no select
    wide = SELECT.replace("core.slice.Tensor(%x, 0, 2, 3) : !tx.tensor<[1, 2, 4], f32>",
                          "core.slice.Tensor(%x, 0, 2, 9) : !tx.tensor<[1, 2, 4], f32>")
    assert "aten.slice.Tensor" in _kernels(_plans(wide)[0])


MASKED_SOFTMAX = """
func.func @main(%x: !tx.tensor<[2, 3, 4], f32>) -> !tx.tensor<[2, 3, 4], f32> {
  %s = core._softmax(%x, -1, false) : !tx.tensor<[2, 3, 4], f32>
  %eq = core.eq.Scalar(%x, -inf) : !tx.tensor<[2, 3, 4], i1>
  %n = core.logical_not(%eq) : !tx.tensor<[2, 3, 4], i1>
  %a = core.any.dim(%n, -1, true) : !tx.tensor<[2, 3, 1], i1>
  %m = core.logical_not(%a) : !tx.tensor<[2, 3, 1], i1>
  %z = core.full_like(%s, 0) : !tx.tensor<[2, 3, 4], f32>
  %w = core.where.self(%m, %z, %s) : !tx.tensor<[2, 3, 4], f32>
  func.return %w : !tx.tensor<[2, 3, 4], f32>
}
"""


def test_softmax_of_masked_rows_is_one_step() -> None:
    fused, unfused = _plans(MASKED_SOFTMAX)
    assert _kernels(fused) == ["fused.masked_softmax"]
    x = _randn(2, 3, 4)
    x[0, 1] = -np.inf  # a row masked entirely: zeros, not NaN
    x[1, 2, :2] = -np.inf
    (out,), (reference,) = fused(x), unfused(x)
    np.testing.assert_array_equal(out, reference)
    assert out.dtype == np.float32 and out.flags.c_contiguous
    assert not out[0, 1].any() and np.allclose(out.sum(-1)[[0, 1, 1], [0, 0, 2]], 1)
    strided = _randn(4, 3, 2).T  # falls back to the ops: the same result
    np.testing.assert_array_equal(fused(strided)[0], unfused(strided)[0])
    # the softmax read by a third op: not this group
    third = MASKED_SOFTMAX.replace(
        "  func.return %w : !tx.tensor<[2, 3, 4], f32>",
        "  %y = core.add.Tensor(%w, %s) : !tx.tensor<[2, 3, 4], f32>\n"
        "  func.return %y : !tx.tensor<[2, 3, 4], f32>")
    assert "fused.masked_softmax" not in _kernels(_plans(third)[0])


def test_permute_clone_permute_chain_keeps_torchs_layout() -> None:
    text = """
func.func @main(%x: !tx.tensor<[2, 3, 4, 5], f32>) -> !tx.tensor<[2, 4, 3, 5], f32> {
  %p = core.permute(%x, [2, 0, 1, 3]) : !tx.tensor<[4, 2, 3, 5], f32>
  %c = core.clone(%p, memory_format = "contiguous_format") : !tx.tensor<[4, 2, 3, 5], f32>
  %q = core.permute(%c, [1, 2, 0, 3]) : !tx.tensor<[2, 3, 4, 5], f32>
  %r = core.permute(%q, [0, 2, -3, 3]) : !tx.tensor<[2, 4, 3, 5], f32>
  func.return %r : !tx.tensor<[2, 4, 3, 5], f32>
}
"""
    fused, unfused = _plans(text)
    assert _kernels(fused) == ["fused.permutes"]
    x = _randn(2, 3, 4, 5)
    (out,), (reference,) = fused(x), unfused(x)
    np.testing.assert_array_equal(out, reference)
    np.testing.assert_array_equal(out, x.transpose(0, 2, 1, 3))
    assert out.strides == reference.strides and not np.shares_memory(out, x)  # the clone's copy, same layout
