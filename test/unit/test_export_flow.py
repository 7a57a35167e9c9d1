"""export() step by step: spec → input dims → trace → solve → finalize.

Each step is checked on the data it hands to the next; a static export is the
same path with an empty spec."""

from __future__ import annotations

import pytest

import texport as torch
from texport.export import ConstraintViolationError, Dim
from texport.tracer.dynamic_shapes import leaf_specs
from texport.tracer.export import export_program, finalize, trace
from texport.tracer.input_dims import input_dims
from texport.tracer.lifting import bind_inputs, user_leaves
from texport.tracer.solver import solve


class AddBoth(torch.nn.Module):
    def forward(self, x, y):
        return x + y, x.nonzero()


def _steps(spec: object, y_rows: int = 4) -> tuple[object, object]:
    """The input dims of AddBoth on a (4, 3) and a (y_rows, 3) tensor, and the named inputs."""
    named = bind_inputs(AddBoth(), (torch.ones(4, 3), torch.ones(y_rows, 3)), {})
    leaves = [(leaf.path, leaf.value) for leaf in user_leaves(named)]
    return input_dims(leaves, leaf_specs(named, spec)), named


def test_static_spec_makes_no_symbol() -> None:
    dims, named = _steps(None)
    assert leaf_specs(named, None) == {}
    assert dims.tensors == {"x": (4, 3), "y": (4, 3)}
    assert not dims.shape_env.symbols and not dims.specs
    solution = solve(dims)
    assert not solution.replaces_symbols and solution.range_constraints == {}
    assert solution.runtime_guards == []


def test_dynamic_spec_gives_symbols_in_input_order() -> None:
    a = Dim("a")
    dims, _ = _steps({"x": (a, None), "y": (a + 1, None)}, y_rows=5)
    (sym,) = dims.shape_env.symbols
    assert dims.tensors["x"] == (sym, 3) and str(dims.tensors["y"][0]) == f"{sym} + 1"
    assert [(s.kind, s.name, s.source) for s in dims.specs] == [
        ("named", "a", "L['x'].size()[0]"), ("derived", "a + 1", "L['y'].size()[0]")]


def test_finalize_retypes_what_a_late_guard_replaced() -> None:
    dims, named = _steps({"x": (Dim.AUTO, None), "y": (Dim.AUTO, None)})
    body = trace(AddBoth(), named, user_leaves(named), dims)
    x_type, y_type = (str(arg.type) for arg in body.block.args)
    assert x_type != y_type  # traced: each input its own symbol; x + y guarded them equal
    module = finalize(body, solve(dims))
    func = next(iter(module.ops))
    x, y = func.body.block.args
    assert (x.name_hint, y.name_hint) == ("x", "y") and x.type == y.type
    assert list(func.function_type.inputs) == [x.type, y.type]


def test_static_program_states_the_ranges_of_data_dependent_sizes() -> None:
    traced = export_program(AddBoth(), (torch.ones(4, 3), torch.ones(4, 3)))
    assert "tx.range_constraints = {u0 = \"VR[0, 12]\"}" in str(traced.module)
    assert {str(k): repr(v) for k, v in traced.range_constraints.items()} == {"u0": "VR[0, 12]"}


def test_inputs_are_checked_against_the_spec_before_tracing() -> None:
    class Fails(torch.nn.Module):
        def forward(self, x):
            raise AssertionError("the forward must not run")

    with pytest.raises(ConstraintViolationError, match=r"Expected input L\['x'\].size\(\)\[0\] to be equal to 5"):
        torch.export.export(Fails(), (torch.ones(4, 3),), dynamic_shapes={"x": (5, None)})
