"""Dynamic shapes that real models meet (issue 15): each program exports,
runs at the training, functional and core levels with the example and with
other sizes, and gives torch 2.13's types, range constraints and messages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import sympy

import texport as torch
from texport.dialects.symbolic import FloorDiv, symbol
from texport.export import ConstraintViolationError, Dim
from texport.tracer.shape_env import INF, bounds_in, isolate

F = torch.nn.functional


def levels(ep: Any) -> Iterator[tuple[str, Any]]:
    """The program at each level, as a callable module."""
    yield "training", ep.module()
    yield "functional", ep.run_decompositions({}).module()
    yield "core", ep.run_decompositions().module()


def check_levels(ep: Any, reference: Callable[..., Any], *inputs: tuple[Any, ...]) -> None:
    """Every level gives the reference's numbers on every input tuple."""
    for level, module in levels(ep):
        for args in inputs:
            got, want = module(*args), reference(*args)
            got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
            for g, w in zip(got, want):
                w = w.numpy() if hasattr(w, "numpy") else w
                np.testing.assert_array_equal(g.numpy() if hasattr(g, "numpy") else g, w, err_msg=level)


def arg_types(ep: Any) -> list[str]:
    return [str(a.type) for a in ep.graph.body.block.args]


def ranges(ep: Any) -> dict[str, str]:
    return {str(k): repr(v) for k, v in ep.range_constraints.items()}


def core_text(ep: Any) -> str:
    return str(ep.run_decompositions().graph)


# ---------------------------------------------------------------- reshape(b, t, -1)


class MergeTail(torch.nn.Module):
    def forward(self, x):
        b, t = x.shape[0], x.shape[1]
        return x.reshape(b, t, -1)


def test_reshape_with_dynamic_leading_dims_infers_a_static_tail() -> None:
    """torch: view(x, [sym_size_int, sym_size_int_1, -1]) typed f32[s77, s27, 16]."""
    x = torch.randn(2, 3, 4, 4)
    for spec in ({0: Dim.AUTO, 1: Dim.AUTO}, {0: Dim("b"), 1: Dim("t")}):
        ep = torch.export.export(MergeTail(), (x,), dynamic_shapes={"x": spec})
        assert "!tx.tensor<[s77, s27, 16], f32>" in core_text(ep)
        check_levels(ep, MergeTail(), (x,), (torch.randn(5, 7, 4, 4),))


# ---------------------------------------------------------------- stacked downsampling, x[:n // 2]


class ConvPool(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.pool = torch.nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(self.conv(x))


class PoolPool(torch.nn.Module):
    def forward(self, x):
        return F.max_pool2d(F.max_pool2d(x, 2), 2)


class Half(torch.nn.Module):
    def forward(self, x):
        return x[: x.shape[0] // 2]


def test_stacked_downsampling_narrows_auto_dims_by_floor_division() -> None:
    """The guard 1 <= ((h - 1)//2 - 1)//2 + 1 is solved as torch's try_solve does
    (h >= 3), never by sympy's solver: torch's {s53: VR[3, int_oo], s0: VR[3, int_oo]}."""
    x, other = torch.randn(1, 3, 32, 32), torch.randn(1, 3, 24, 40)
    for model, low in ((ConvPool(), 3), (PoolPool(), 4)):
        ep = torch.export.export(model, (x,), dynamic_shapes={"x": {2: Dim.AUTO, 3: Dim.AUTO}})
        assert ranges(ep) == {"s53": f"VR[{low}, int_oo]", "s0": f"VR[{low}, int_oo]"}
        check_levels(ep, model, (x,), (other,))


def test_stacked_downsampling_on_named_dims_suggests_their_minimum() -> None:
    with pytest.raises(ConstraintViolationError) as caught:
        torch.export.export(ConvPool(), (torch.randn(1, 3, 32, 32),),
                            dynamic_shapes={"x": {2: Dim("h"), 3: Dim("w")}})
    assert "satisfy the generated guard 3 <= L['x'].size()[2] and L['x'].size()[2] <= IntInfinity()" \
        in str(caught.value)
    assert caught.value.suggested_fixes == ["h = Dim('h', min=3)", "w = Dim('w', min=3)"]


def test_half_slice_of_a_named_dim_is_torchs_constraint_violation() -> None:
    """The guard (n//2) <= n holds for every n, but neither torch nor texport
    proves it from ranges: a named Dim gets torch's bullet and congruence fix."""
    x = torch.randn(8, 3)
    with pytest.raises(ConstraintViolationError) as caught:
        torch.export.export(Half(), (x,), dynamic_shapes={"x": {0: Dim("n")}})
    assert ("  - Not all values of n = L['x'].size()[0] in the specified range satisfy the generated "
            "guard (L['x'].size()[0] // 2) <= L['x'].size()[0].") in str(caught.value)
    assert caught.value.suggested_fixes == ["_n = Dim('_n', min=1, max=oo)", "n = 2*_n"]
    with pytest.raises(ConstraintViolationError) as caught:
        torch.export.export(Half(), (x,), dynamic_shapes={"x": {0: Dim("n", min=4, max=100)}})
    assert "in the specified range 4 <= n <= 100 satisfy the generated guard" in str(caught.value)
    assert caught.value.suggested_fixes == ["_n = Dim('_n', max=50)", "n = 2*_n"]


def test_half_slice_of_an_auto_dim_exports() -> None:
    x = torch.randn(8, 3)
    for hint in (Dim.AUTO, Dim.DYNAMIC):
        ep = torch.export.export(Half(), (x,), dynamic_shapes={"x": {0: hint}})
        assert ranges(ep) == {"s77": "VR[2, int_oo]"}
        assert "!tx.tensor<[(s77//2), 3], f32>" in core_text(ep)
        check_levels(ep, Half(), (x,), (torch.randn(5, 3),))


def test_isolate_solves_floor_divisions_exactly_and_gives_up_otherwise() -> None:
    h = symbol("s0")
    two = sympy.Integer(2)
    stacked = FloorDiv(FloorDiv(h - 1, two) - 1, two) + 1
    assert isolate(sympy.Ge(stacked, 1), h) == sympy.Ge(h, 3)
    assert isolate(sympy.Lt(3 * h + 1, 10), h) == sympy.Lt(h, 3)
    assert isolate(sympy.Le(-2 * h, -8), h) == sympy.Ge(h, 4)
    assert isolate(sympy.Le(FloorDiv(h, two), h), h) is None
    assert isolate(sympy.Gt(h * h, 10), h) is None
    for value in range(0, 12):  # the solved form holds exactly where the guard does
        assert bool(sympy.Ge(stacked, 1).subs(h, value)) == (value >= 3)


def test_bounds_of_floor_division_and_remainder() -> None:
    h, w = symbol("s0"), symbol("s1")
    ranges_ = {h: (3, INF), w: (2, 5)}
    assert bounds_in(FloorDiv(FloorDiv(h - 1, sympy.Integer(2)) - 1, sympy.Integer(2)) + 1, ranges_) == (1, INF)
    assert bounds_in(FloorDiv(h, w), ranges_) == (0, INF)
    assert bounds_in(FloorDiv(w, h), ranges_) == (0, 1)
    assert bounds_in(sympy.Mod(w, 8), ranges_) == (2, 5)
    assert bounds_in(sympy.Mod(h, w), ranges_) == (0, 4)


# ---------------------------------------------------------------- derived input dims (4*h)


class UpToSkip(torch.nn.Module):
    def forward(self, x, skip):
        return F.interpolate(x, size=skip.shape[-2:]) + skip


class Flatten(torch.nn.Module):
    def forward(self, x):
        return x.reshape(x.shape[0], x.shape[1] * x.shape[2])


def test_a_derived_dim_is_read_from_its_input() -> None:
    """torch: sym_size.int(skip, 2) gives 4*h itself; with no input of size h,
    h exists only inside skip's derived dims."""
    h = Dim("h", min=2, max=64)
    x, skip = torch.randn(1, 3, 4, 4), torch.randn(1, 3, 16, 16)
    ep = torch.export.export(UpToSkip(), (x, skip), dynamic_shapes={"x": None, "skip": {2: 4 * h, 3: 4 * h}})
    assert "%sym_size_int = core.sym_size.int(%skip, 2) : !tx.symint<4*s39>" in core_text(ep)
    assert ranges(ep) == {"s39": "VR[2, 64]", "4*s39": "VR[8, 256]"}
    check_levels(ep, UpToSkip(), (x, skip), (x, torch.randn(1, 3, 20, 20)))


def test_a_multiple_of_a_derived_dim_multiplies_the_size_read() -> None:
    """torch: mul = sym_size_int(x, 1) * 3 for x.shape[1] * x.shape[2], x: (b, 4*h, 3)."""
    h = Dim("h", min=2, max=64)
    x = torch.randn(2, 8, 3)
    ep = torch.export.export(Flatten(), (x,), dynamic_shapes={"x": {0: Dim("b"), 1: 4 * h}})
    text = core_text(ep)
    assert "core.sym_size.int(%x, 1) : !tx.symint<4*s39>" in text
    assert "!tx.symint<12*s39>" in text
    assert ranges(ep) == {"s77": "VR[0, int_oo]", "s39": "VR[2, 64]", "4*s39": "VR[8, 256]"}
    check_levels(ep, Flatten(), (x,), (torch.randn(3, 12, 3),))


class RootOnly(torch.nn.Module):
    def forward(self, x):
        return x.new_zeros(x.shape[0] // 4 + x.shape[1])


def test_a_symbol_only_a_derived_dim_defines_is_solved_from_it() -> None:
    """h alone (not 4*h) from x: (4*h + 1, 3): (sym_size - 1) // 4."""
    h = Dim("h", min=2, max=64)
    x = torch.randn(9, 3)
    ep = torch.export.export(RootOnly(), (x,), dynamic_shapes={"x": {0: 4 * h + 1}})
    assert "!tx.tensor<[s39 + 3], f32>" in core_text(ep)
    check_levels(ep, RootOnly(), (x,), (torch.randn(21, 3),))


# ---------------------------------------------------------------- sizes from data in outputs


class CountTwice(torch.nn.Module):
    def forward(self, x):
        return x.nonzero().shape[0] * 2


class NonzeroAndCount(torch.nn.Module):
    def forward(self, x):
        n = x.nonzero()
        return n, torch.zeros(n.shape[0] + 1)


def test_an_unbacked_size_is_read_from_the_op_that_made_it() -> None:
    """torch: sym_size_int = sym_size.int(nonzero, 0); mul = sym_size_int * 2."""
    x = torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    other = torch.tensor([[1.0, 1.0], [0.0, 2.0], [3.0, 4.0], [0.0, 0.0]])
    ep = torch.export.export(CountTwice(), (x,))
    assert ranges(ep) == {"u0": "VR[0, 6]"}
    assert "core.sym_size.int(%nonzero, 0) : !tx.symint<u0>" in core_text(ep)
    check_levels(ep, lambda x: int(np.count_nonzero(x.numpy())) * 2, (x,))
    ep = torch.export.export(CountTwice(), (x,), dynamic_shapes={"x": {0: Dim.AUTO}})
    assert ranges(ep) == {"s77": "VR[2, int_oo]", "u0": "VR[0, 9223372036854775806]"}
    check_levels(ep, lambda x: int(np.count_nonzero(x.numpy())) * 2, (x,), (other,))
    ep = torch.export.export(NonzeroAndCount(), (x,), dynamic_shapes={"x": {0: Dim.AUTO}})
    check_levels(ep, NonzeroAndCount(), (x,), (other,))


class AddTwo(torch.nn.Module):
    def forward(self, x, y):
        return x + y


def test_a_dim_shared_by_inputs_keeps_torchs_lowest_symbol() -> None:
    """torch makes a symbol per input dim (sha256 of its source mod 100) and
    unifies those of one Dim, keeping the lowest: s17 (y's), not s77 (x's)."""
    b = Dim("b")
    ep = torch.export.export(AddTwo(), (torch.randn(3, 4), torch.randn(3, 4)),
                             dynamic_shapes={"x": {0: b}, "y": {0: b}})
    assert arg_types(ep) == ["!tx.tensor<[s17, 4], f32>", "!tx.tensor<[s17, 4], f32>"]
    assert ranges(ep) == {"s17": "VR[0, int_oo]"}
    h = Dim("h", min=2, max=64)
    ep = torch.export.export(UpToSkip(), (torch.randn(1, 3, 4, 4), torch.randn(1, 3, 16, 16)),
                             dynamic_shapes={"x": {2: h, 3: h}, "skip": {2: 4 * h, 3: 4 * h}})
    assert arg_types(ep) == ["!tx.tensor<[1, 3, s0, s0], f32>", "!tx.tensor<[1, 3, 4*s0, 4*s0], f32>"]
    assert ranges(ep) == {"s0": "VR[2, 64]", "4*s0": "VR[8, 256]"}
    assert "%sym_size_int = core.sym_size.int(%skip, 2) : !tx.symint<4*s0>" in core_text(ep)


class Positive(torch.nn.Module):
    def forward(self, x):
        return x[x > 0]


def test_a_size_from_data_is_bound_where_it_is_made() -> None:
    """torch: sym_size.int(index, 0), then asserts u0 >= 0 and u0 <= numel, the
    numel's upper bound when it is symbolic (2*w for w <= 8: 16)."""
    x = torch.tensor([[1.0, -1.0, 2.0, 0.0, 3.0], [1.0, 1.0, -2.0, 5.0, 0.5]])
    ep = torch.export.export(Positive(), (x,), dynamic_shapes={"x": {1: Dim("w", max=8)}})
    text = str(ep.graph)
    assert "Runtime assertion failed for expression u0 >= 0 on node 'ge'" in text
    assert "Runtime assertion failed for expression u0 <= 16 on node 'le'" in text
    assert ranges(ep) == {"s27": "VR[0, 8]", "u0": "VR[0, 16]"}
    check_levels(ep, Positive(), (x,), (torch.randn(2, 7),))


class NotFour(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] != 4:
            return x + 1
        return x - 1


def test_a_disequality_on_a_dim_is_torchs_violation_or_runtime_guard() -> None:
    """torch: a named Dim gets the bullet '... satisfy the generated guard
    L['x'].size()[0] != 4.' and no fixes; Dim.AUTO exports, and the program
    refuses a size 4 (Guard failed: x.size()[0] != 4)."""
    with pytest.raises(ConstraintViolationError) as caught:
        torch.export.export(NotFour(), (torch.randn(8, 3),), dynamic_shapes={"x": {0: Dim("n")}})
    assert ("  - Not all values of n = L['x'].size()[0] in the specified range satisfy the generated "
            "guard L['x'].size()[0] != 4.") in str(caught.value)
    assert caught.value.suggested_fixes == []
    ep = torch.export.export(NotFour(), (torch.randn(8, 3),), dynamic_shapes={"x": {0: Dim.AUTO}})
    check_levels(ep, NotFour(), (torch.randn(8, 3),), (torch.randn(5, 3),))
    for _, module in levels(ep):  # torch checks the guard the branch took when the program runs
        with pytest.raises(AssertionError, match=r"^Guard failed: x.size\(\)\[0\] != 4$"):
            module(torch.randn(4, 3))


class FullSlices(torch.nn.Module):
    def forward(self, x):
        return x[:, None, :] * 2, x[:, 1:]


class StaticSlices(torch.nn.Module):
    def forward(self, x):
        return x[:3], x[:5, :], x[0:5:1, 1:]


def test_a_full_slice_is_recorded_where_torch_cannot_prove_it_a_no_op() -> None:
    """torch skips ``x[a:b]`` only when start is 0, step 1 and the size is known
    to be <= stop without a guard: ``:`` on a dim with no upper bound is a
    slice to 2**63 - 1, on a bounded or static dim nothing."""
    ep = torch.export.export(FullSlices(), (torch.randn(5, 4),),
                             dynamic_shapes={"x": {0: Dim("b"), 1: Dim("w", min=3, max=16)}})
    slices = [line.split(" = ", 1)[1] for line in str(ep).splitlines() if "aten.slice.Tensor" in line]
    assert [s.split(";")[0] for s in slices] == [
        "torch.ops.aten.slice.Tensor(x, 0, 0, 9223372036854775807)",  # x[:, None, :]: b only
        "torch.ops.aten.slice.Tensor(x, 0, 0, 9223372036854775807)",  # x[:, 1:]
        "torch.ops.aten.slice.Tensor(slice_2, 1, 1, 9223372036854775807)",
    ]
    check_levels(ep, FullSlices(), (torch.randn(5, 4),), (torch.randn(7, 3),))
    static = str(torch.export.export(StaticSlices(), (torch.randn(5, 4),)))
    assert static.count("aten.slice.Tensor") == 2, static  # x[:3] and [:, 1:]; x[:5] of 5 rows is no slice
