"""cond, map, scan, while_loop, _check and unbacked sizes: eager meaning,
export into control regions, and eager-equal execution of the exported program."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from models import ZOO  # noqa: E402

import texport as torch  # noqa: E402
from texport.export import Dim  # noqa: E402
from texport.interpreter.errors import RuntimeAssertError  # noqa: E402
from texport.tracer.errors import GuardOnDataDependentSymNode, UnsupportedError  # noqa: E402


def same(a, b) -> None:  # noqa: ANN001
    a = a if isinstance(a, (tuple, list)) else (a,)
    b = b if isinstance(b, (tuple, list)) else (b,)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_early_exit_runs_both_branches_like_eager() -> None:
    model, (x,) = ZOO["EarlyExit"]()
    ep = torch.export.export(model, (x,))
    assert "control.cond" in ep.mlir()
    exported = ep.module()
    same(exported(x), model(x))  # confident: the cheap branch
    model.first[0].bias.data = torch.full((64,), -100.0)
    exported.load_state_dict(model.state_dict())
    assert float(model.first(x).mean()) < 0.1
    same(exported(x), model(x))  # not confident: the second half runs


def test_lstm_scan_static_and_dynamic_steps() -> None:
    model, (xs,) = ZOO["LSTMScan"]()
    ep = torch.export.export(model, (xs,), dynamic_shapes={"xs": (None, Dim("steps", min=2, max=64), None)})
    assert "control.scan" in ep.mlir()
    for steps in (2, 5, 16):
        inp = torch.randn(4, steps, 64)
        same(ep.module()(inp), model(inp))


def test_map_and_zero_iteration_while_loop() -> None:
    class M(torch.nn.Module):
        def forward(self, xs, y, it):
            mapped = torch.control_flow.map(lambda x, y: x * 2 + y, xs, y)
            n, w = torch.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2), (it, y))
            return mapped, n, w

    args = (torch.randn(5, 3), torch.randn(3), torch.tensor(0))
    ep = torch.export.export(M(), args)
    same(ep.module()(*args), M()(*args))
    done = (args[0], args[1], torch.tensor(7))  # the loop body never runs
    out = ep.module()(*done)
    assert out[1].item() == 7
    np.testing.assert_array_equal(out[2].numpy(), args[1].numpy())


def test_shape_predicate_and_python_constant_predicate() -> None:
    class Shape(torch.nn.Module):
        def forward(self, x):
            return torch.cond(x.shape[0] > 4, lambda x: x + 1, lambda x: x - 1, (x,))

    ep = torch.export.export(Shape(), (torch.ones(6, 2),), dynamic_shapes={"x": (Dim.AUTO, None)})
    assert "tx.cmp gt" in ep.mlir()
    assert ep.module()(torch.ones(3, 2)).tolist() == [[0.0, 0.0]] * 3
    assert ep.module()(torch.ones(5, 2)).tolist() == [[2.0, 2.0]] * 5

    class Constant(torch.nn.Module):
        def forward(self, x):
            return torch.cond(True, lambda x: x + 1, lambda x: x - 1, (x,))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ep = torch.export.export(Constant(), (torch.ones(2),))
    assert "Pred is a Python constant" in str(caught[0].message)
    assert "control.cond" not in ep.mlir() and "training.add.Tensor" in ep.mlir()


def test_unbacked_sizes_checks_and_asserts() -> None:
    class Items(torch.nn.Module):
        def forward(self, x, y):
            n = x.item()
            torch._check(n >= 2)
            torch._check(n <= 100)
            return torch.zeros(n), y[:n]

    ep = torch.export.export(Items(), (torch.tensor(5), torch.randn(10)))
    assert {str(k): repr(v) for k, v in ep.range_constraints.items()} == {"u0": "VR[2, 100]"}
    assert "Runtime assertion failed for expression u0 >= 2 on node 'ge'" in ep.mlir()
    assert [list(o.shape) for o in ep.module()(torch.tensor(7), torch.randn(10))] == [[7], [7]]
    with pytest.raises(RuntimeAssertError, match="u0 >= 2"):
        ep.module()(torch.tensor(1), torch.randn(10))

    class Nonzero(torch.nn.Module):
        def forward(self, x):
            return torch.nonzero(x)

    ep = torch.export.export(Nonzero(), (torch.ones(3, 2),))
    assert repr(ep.range_constraints) == "{u0: VR[0, 6]}"
    assert ep.module()(torch.zeros(3, 2)).shape == torch.Size([0, 2])


def test_errors_name_the_problem() -> None:
    class Guarding(torch.nn.Module):
        def forward(self, x):
            n = x.item()
            if n > 3:
                return x + 1
            return x

    with pytest.raises(GuardOnDataDependentSymNode, match=r"(?s)u0 > 3.*if n > 3:"):
        torch.export.export(Guarding(), (torch.tensor(5),))

    class Mutating(torch.nn.Module):
        def forward(self, x):
            def branch(x):
                x.add_(1)
                return x.clone()

            return torch.cond(x.sum() > 0, branch, lambda x: x.clone(), (x,))

    with pytest.raises(UnsupportedError, match="Encountered input mutation during higher order op tracing"):
        torch.export.export(Mutating(), (torch.ones(2),))

    class Mismatch(torch.nn.Module):
        def forward(self, x):
            return torch.cond(x.sum() > 0, lambda x: (x, x), lambda x: x, (x,))

    with pytest.raises(UnsupportedError, match="same pytree structure"):
        torch.export.export(Mismatch(), (torch.ones(2),))


def test_eager_meaning() -> None:
    x = torch.tensor([1.0, -2.0])
    assert torch.cond(x.sum() > 0, lambda x: x + 1, lambda x: x - 1, (x,)).tolist() == [0.0, -3.0]
    carry, ys = torch.scan(lambda c, v: (c + v, c * 1.0), torch.zeros(()), torch.arange(4.0))
    assert carry.item() == 6.0 and ys.tolist() == [0.0, 0.0, 1.0, 3.0]  # y is the old carry


def test_branches_of_different_sizes_get_a_bounded_unbacked_dim() -> None:
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x[:2].cos(), (x,))

    ep = torch.export.export(M(), (torch.randn(3, 4),))
    assert repr(ep.range_constraints) == "{u0: VR[2, 3]}"
    listing = ep.graph_module.print_readable(print_output=False)
    assert 'getitem: "f32[u0, 4]" = cond[0]' in listing
    assert "Runtime assertion failed for expression u0 >= 2" in listing
    assert "Runtime assertion failed for expression u0 <= 3" in listing
    for program in (ep, ep.run_decompositions()):
        assert list(program.module()(torch.ones(3, 4)).shape) == [3, 4]
        assert list(program.module()(-torch.ones(3, 4)).shape) == [2, 4]
