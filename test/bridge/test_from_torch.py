"""texport.from_torch: real torch.export programs, at each level, imported into
texport IR and run on texport's interpreter with torch's numbers; symbols,
ranges, signature, calling convention, control flow, asserts and locations kept."""

from __future__ import annotations

import dataclasses
import io
import operator
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import texport  # noqa: E402
from texport.bridge import from_torch  # noqa: E402
from texport.bridge.values import TorchImportError, tensor_of  # noqa: E402
from texport.dialects import bootstrap  # noqa: E402
from texport.dialects.context import parse_module, verify_module  # noqa: E402
from texport.dialects.registry import Registry  # noqa: E402
from texport.tracer import pytree  # noqa: E402

LEVELS = ("training", "functional", "core")
DIALECTS = {"training": "TRAINING", "functional": "INFERENCE", "core": "ATEN"}
RTOL, ATOL = 1e-5, 1e-6  # float32 kernels in another order than torch's


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = torch.nn.Linear(6, 16), torch.nn.Linear(16, 3)

    def forward(self, x):
        return self.b(torch.nn.functional.gelu(self.a(x))).softmax(-1)


class ConvNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv, self.bn = torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8)
        self.pool, self.fc = torch.nn.MaxPool2d(2), torch.nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return torch.nn.functional.log_softmax(self.fc(x.flatten(1)), -1)


class State(torch.nn.Module):
    """Every input kind: parameters, persistent and non-persistent buffers, a lifted
    constant, a user input mutated in place; outputs of every kind."""

    def __init__(self) -> None:
        super().__init__()
        self.lin, self.bn = torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3)
        self.register_buffer("offset", torch.ones(3), persistent=False)
        self.table = torch.arange(3.0)

    def forward(self, x, y):
        y.add_(1)
        z = self.bn(self.lin(x)) + self.offset + self.table
        return z.relu(), torch.cat([x, x]).to(torch.float64), x.shape[0] + 1


class Derived(torch.nn.Module):
    def forward(self, x, y):
        return x[: y.shape[0]] + y, torch.cat([x, x]).sum(0), x.view(-1, 2)


class Branchy(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: self.lin(x).sin(), lambda x: x.cos(), (x,))


class Loops(torch.nn.Module):
    def forward(self, it, x, xs):
        from torch._higher_order_ops.map import map as map_
        from torch._higher_order_ops.scan import scan

        mapped = map_(lambda row, x: row * x + 1, xs, x)
        carry, ys = scan(lambda c, row: (c + row, (c + row) * 2), x, xs)
        count, grown = torch.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, v * 2), (it, x))
        return mapped, carry, ys, count, grown


class Item(torch.nn.Module):
    def forward(self, x, y):
        n = x.item()
        torch._check(n >= 2)
        torch._check(n <= 8)
        return y[:n] * 2, torch.zeros(n)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def at_level(ep: Any, level: str) -> Any:
    return {"training": lambda: ep, "functional": lambda: ep.run_decompositions({}),
            "core": lambda: ep.run_decompositions()}[level]()


def texport_value(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return tensor_of(value)
    if isinstance(value, (list, tuple)):
        return type(value)(texport_value(v) for v in value)
    if isinstance(value, dict):
        return {k: texport_value(v) for k, v in value.items()}
    return value


def assert_same(want: Any, got: Any) -> None:
    """texport's results against torch's: the same structure and numbers."""
    want_leaves = torch.utils._pytree.tree_leaves(want)
    got_leaves, _ = pytree.tree_flatten(got)
    assert len(want_leaves) == len(got_leaves)
    for expected, actual in zip(want_leaves, got_leaves):
        if isinstance(expected, torch.Tensor):
            assert isinstance(actual, texport.Tensor)
            assert str(expected.dtype).removeprefix("torch.") == actual.dtype.torch_name
            np.testing.assert_allclose(actual.numpy(), expected.detach().numpy(), rtol=RTOL, atol=ATOL)
        else:
            assert actual == expected


def run_both(torch_ep: Any, ep: Any, *args: Any) -> None:
    """Both programs on copies of the same inputs: results and in-place writes agree."""
    torch_args = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    ours = [texport_value(a) for a in args]
    assert_same(torch_ep.module()(*torch_args), ep.module()(*ours))
    for theirs, mine in zip(torch_args, ours):
        if isinstance(theirs, torch.Tensor):
            np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=RTOL, atol=ATOL)


@contextmanager
def restored_registries() -> Iterator[None]:
    bootstrap.start_all()
    with Registry.restored():
        yield


# --------------------------------------------------------------------------
# Levels and numbers
# --------------------------------------------------------------------------


CASES = {
    "mlp": (Mlp, (torch.randn(4, 6),)),
    "convnet-eval": (lambda: ConvNet().eval(), (torch.randn(2, 3, 8, 8),)),
    "convnet-train": (lambda: ConvNet().train(), (torch.randn(2, 3, 8, 8),)),
    "state": (lambda: State().train(), (torch.randn(5, 4), torch.randn(3))),
}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("case", list(CASES))
def test_a_program_imports_at_its_level_and_runs_with_torchs_numbers(case: str, level: str) -> None:
    make, args = CASES[case]
    torch.manual_seed(0)
    torch_ep = at_level(torch.export.export(make(), args), level)
    ep = from_torch(torch_ep)
    assert ep.dialect == DIALECTS[level]
    ep.validate()
    run_both(torch_ep, ep, *args)
    lowered = ep.run_decompositions()  # texport's own lowering of the imported program
    lowered.validate()
    assert_same(torch_ep.module()(*[a.clone() for a in args]), lowered.module()(*texport_value(list(args))))


def test_buffer_mutations_write_back_like_torch() -> None:
    torch.manual_seed(0)
    args = (torch.randn(5, 4), torch.randn(3))
    torch_ep = torch.export.export(State().train(), args).run_decompositions({})
    ep = from_torch(torch_ep)
    theirs, ours = torch_ep.module(), ep.module()
    for _ in range(2):
        assert_same(theirs(*[a.clone() for a in args]), ours(*texport_value(list(args))))
    torch_buffers = dict(theirs.named_buffers())
    for name, value in ours.named_buffers():
        np.testing.assert_allclose(value.numpy(), torch_buffers[name].numpy(), rtol=RTOL, atol=ATOL)


def test_the_level_is_read_off_the_program_and_can_be_given() -> None:
    torch_ep = torch.export.export(Mlp(), (torch.randn(2, 6),))
    functional = torch_ep.run_decompositions({})
    assert "linear" in functional.graph_module.code  # not core: texport's lowering would decompose it
    assert from_torch(functional).dialect == "INFERENCE"
    assert from_torch(torch_ep.run_decompositions()).dialect == "ATEN"
    assert from_torch(functional, level="training").dialect == "TRAINING"
    with pytest.raises(ValueError, match="level must be one of"):
        from_torch(functional, level="fast")
    with pytest.raises(TypeError, match="expects a torch.export.ExportedProgram"):
        from_torch(Mlp())


@pytest.mark.parametrize("level", LEVELS)
def test_the_signature_is_torchs(level: str) -> None:
    torch_ep = at_level(torch.export.export(State().train(), (torch.randn(5, 4), torch.randn(3))), level)
    signature = from_torch(torch_ep).graph_signature

    def described(specs: Any) -> list[tuple[Any, ...]]:
        return [(s.kind.name, s.arg.name, s.target, getattr(s, "persistent", None)) for s in specs]

    assert described(signature.input_specs) == described(torch_ep.graph_signature.input_specs)
    assert described(signature.output_specs) == described(torch_ep.graph_signature.output_specs)
    assert signature.buffers_to_mutate == torch_ep.graph_signature.buffers_to_mutate
    assert signature.user_inputs_to_mutate == torch_ep.graph_signature.user_inputs_to_mutate
    assert signature.inputs_to_lifted_tensor_constants == torch_ep.graph_signature.inputs_to_lifted_tensor_constants


def test_weights_and_constants_keep_their_bytes() -> None:
    model = torch.nn.Linear(4, 4).to(torch.bfloat16)
    torch_ep = torch.export.export(model, (torch.randn(2, 4, dtype=torch.bfloat16),))
    ep = from_torch(torch_ep)
    for name, value in torch_ep.state_dict.items():
        ours = ep.state_dict[name]
        assert ours.dtype is texport.bfloat16
        assert ours.numpy().tobytes() == value.detach().view(torch.int16).numpy().tobytes()
    state = from_torch(torch.export.export(State(), (torch.randn(5, 4), torch.randn(3))))
    assert sorted(state.constants) == ["offset", "table"]
    np.testing.assert_array_equal(state.constants["table"].numpy(), np.arange(3.0, dtype=np.float32))


def test_pytree_inputs_keyword_arguments_and_constant_inputs() -> None:
    class Nested(torch.nn.Module):
        def forward(self, inp, n: int, *, scale):
            return {"a": inp["x"] * scale * n, "b": [inp["y"][0] + 1, None]}

    args = ({"x": torch.randn(2), "y": [torch.randn(3)]}, 3)
    kwargs = {"scale": torch.randn(2)}
    torch_ep = torch.export.export(Nested(), args, kwargs)
    ep = from_torch(torch_ep)
    got = ep.module()(texport_value(args[0]), 3, scale=texport_value(kwargs["scale"]))
    assert_same(torch_ep.module()(*args, **kwargs), got)
    with pytest.raises(Exception, match="3"):
        ep.module()(texport_value(args[0]), 4, scale=texport_value(kwargs["scale"]))


# --------------------------------------------------------------------------
# Symbols and ranges
# --------------------------------------------------------------------------


def test_symbols_ranges_and_relations_survive() -> None:
    d = torch.export.Dim("d", min=2, max=50)
    torch_ep = torch.export.export(Derived(), (torch.randn(8, 4), torch.randn(4, 4)),
                                   dynamic_shapes={"x": {0: 2 * d}, "y": {0: d}})
    ep = from_torch(torch_ep)
    (torch_symbol,) = [key for key in torch_ep.range_constraints if key.is_Symbol]  # and 2*s17, derived
    text = ep.mlir()
    assert f"[{torch_symbol}, 4]" in text and f"[2*{torch_symbol}, 4]" in text
    assert {str(k): (v.lower, v.upper) for k, v in ep.range_constraints.items()} == \
        {str(k): (int(v.lower), int(v.upper)) for k, v in torch_ep.range_constraints.items()}
    run_both(torch_ep, ep, torch.randn(12, 4), torch.randn(6, 4))


@pytest.mark.parametrize("level", LEVELS)
def test_a_dynamic_program_runs_at_a_second_size(level: str) -> None:
    batch = torch.export.Dim("batch", min=2, max=100)
    torch_ep = at_level(torch.export.export(State().eval(), (torch.randn(5, 4), torch.randn(3)),
                                            dynamic_shapes={"x": {0: batch}, "y": None}), level)
    ep = from_torch(torch_ep)
    assert "!tx.symint<s77 + 1>" in ep.mlir()  # x.shape[0] + 1: torch's SymInt arithmetic as a tx op
    run_both(torch_ep, ep, torch.randn(9, 4), torch.randn(3))
    with pytest.raises(Exception, match=re.escape("x.size()[0] <= 100")):  # torch's range, checked on entry
        ep.module()(texport.randn(101, 4), texport.randn(3))


def test_unbacked_sizes_and_their_asserts() -> None:
    torch_ep = torch.export.export(Item(), (torch.tensor(5), torch.randn(10)))
    ep = from_torch(torch_ep)
    text = ep.mlir()
    assert "!tx.tensor<[u0], f32>" in text
    assert "tx.assert" in text and "u0 >= 2" in text and "u0 <= 8" in text
    assert {str(k) for k in ep.range_constraints} == {str(k) for k in torch_ep.range_constraints}
    run_both(torch_ep, ep, torch.tensor(3), torch.randn(10))
    with pytest.raises(Exception, match="u0 <= 8"):
        ep.module()(texport.tensor(9), texport.randn(10))


# --------------------------------------------------------------------------
# Text, save/load, control flow, errors, locations
# --------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_print_parse_save_load_round_trip(level: str) -> None:
    batch = torch.export.Dim("batch", min=2, max=100)
    args = (torch.randn(5, 4), torch.randn(3))
    torch_ep = at_level(torch.export.export(State().train(), args, dynamic_shapes={"x": {0: batch}, "y": None}),
                        level)
    ep = from_torch(torch_ep)
    text = ep.mlir()
    parsed = parse_module(text)
    verify_module(parsed)
    assert str(parsed) == str(ep.graph_module.module)
    buffer = io.BytesIO()
    texport.export.save(ep, buffer)
    buffer.seek(0)
    loaded = texport.export.load(buffer)
    assert loaded.mlir() == text
    run_both(torch_ep, loaded, torch.randn(7, 4), torch.randn(3))


@pytest.mark.parametrize("level", LEVELS)
def test_cond_becomes_a_control_op(level: str) -> None:
    torch_ep = at_level(torch.export.export(Branchy(), (torch.randn(3, 4),)), level)
    ep = from_torch(torch_ep)
    assert "control.cond" in ep.mlir()
    run_both(torch_ep, ep, torch.randn(3, 4).abs())
    run_both(torch_ep, ep, -torch.randn(3, 4).abs())


def test_map_scan_and_while_loop_become_control_ops() -> None:
    args = (torch.tensor(0), torch.randn(3), torch.randn(5, 3))
    torch_ep = torch.export.export(Loops(), args)
    ep = from_torch(torch_ep)
    text = ep.mlir()
    assert all(op in text for op in ("control.map", "control.scan", "control.while_loop"))
    run_both(torch_ep, ep, *args)
    run_both(torch_ep.run_decompositions(), from_torch(torch_ep.run_decompositions()), *args)


torch.library.define("b19test::twice", "(Tensor x) -> Tensor")


@torch.library.impl("b19test::twice", "CompositeExplicitAutograd")
def _twice(x):
    return x * 2


@torch.library.register_fake("b19test::twice")
def _twice_fake(x):
    return torch.empty_like(x)


class UsesCustom(torch.nn.Module):
    def forward(self, x):
        return torch.ops.b19test.twice(x) + 1


def test_an_op_texport_lacks_is_named_with_its_schema() -> None:
    torch_ep = torch.export.export(UsesCustom(), (torch.randn(3),))
    with pytest.raises(TorchImportError) as err:
        from_torch(torch_ep)
    message = str(err.value)
    assert "b19test.twice.default" in message and "b19test::twice(Tensor x) -> Tensor" in message
    assert "texport.library" in message
    assert "torch.ops.b19test.twice(x) + 1" in message  # the user's line


def test_a_custom_op_registered_with_texport_imports_and_runs() -> None:
    torch_ep = torch.export.export(UsesCustom(), (torch.randn(3),))
    with restored_registries():
        texport.library.define("b19test::twice", "(Tensor x) -> Tensor")
        texport.library.impl("b19test::twice", "CompositeExplicitAutograd", lambda x: x * 2)
        texport.library.register_fake("b19test::twice", lambda x: texport.empty_like(x))
        ep = from_torch(torch_ep)
        assert "training.b19test.twice" in ep.mlir()
        run_both(torch_ep, ep, torch.randn(3))


def test_stack_traces_become_locations() -> None:
    torch_ep = torch.export.export(UsesCustom(), (torch.randn(3),))
    with restored_registries():
        texport.library.define("b19test::twice", "(Tensor x) -> Tensor")
        texport.library.register_fake("b19test::twice", lambda x: texport.empty_like(x))
        ep = from_torch(torch_ep)
        add = next(op for op in ep.graph.body.block.ops if op.name == "training.add.Tensor")
        line = next(i for i, text in enumerate(open(__file__).read().splitlines(), 1)  # noqa: SIM115
                    if "return torch.ops.b19test.twice(x) + 1" in text)
        assert add.location.filename.data == __file__ and add.location.line.data == line
        assert "# code: return torch.ops.b19test.twice(x) + 1" in ep.graph_module.code


def test_texport_opt_lowers_the_printed_import(tmp_path: Any) -> None:
    from texport.tools import texport_opt

    torch_ep = torch.export.export(ConvNet().train(), (torch.randn(2, 3, 8, 8),))
    source, lowered = tmp_path / "convnet.mlir", tmp_path / "core.mlir"
    source.write_text(from_torch(torch_ep).mlir())
    with pytest.raises(SystemExit) as done:
        texport_opt.main([str(source), "-p", "functionalize,decompose,legalize-core", "-o", str(lowered)])
    assert done.value.code == 0
    text = lowered.read_text()
    assert "core.convolution" in text and "training." not in text and '"BUFFER_MUTATION"' in text
    verify_module(parse_module(text))


def test_the_entry_points_load_the_bridge_on_first_use() -> None:
    import texport.bridge

    assert texport.from_torch is texport.bridge.from_torch
    ep = texport.from_torch(torch.export.export(Mlp(), (torch.randn(2, 6),)))
    assert ep.dialect == "TRAINING"


def test_symbolic_true_division_is_texports_float_product() -> None:
    class Halve(torch.nn.Module):
        def forward(self, x):
            return x * (x.shape[0] / 2), x.shape[0] / 2, x.shape[0] > 3  # symbolic float and bool outputs too

    torch_ep = torch.export.export(Halve(), (torch.randn(4),), dynamic_shapes={"x": {0: torch.export.Dim("n")}})
    ep = from_torch(torch_ep)
    assert "tx.to_float" in ep.mlir() and "tx.constant 0.5" in ep.mlir()
    verify_module(parse_module(ep.mlir()))
    run_both(torch_ep, ep, torch.randn(7))


def test_negation_and_sym_not_of_unbacked_views() -> None:
    class Rows(torch.nn.Module):
        def forward(self, x, y):
            return y.view(x.item(), -1)

    class Flipped(torch.nn.Module):
        def forward(self, x):
            negative = -x.shape[0]
            return x.new_zeros(-negative)

    torch_ep = torch.export.export(Rows(), (torch.tensor(4), torch.randn(8, 3)))
    targets = {node.target for node in torch_ep.graph.nodes}
    ep = from_torch(torch_ep)
    assert torch.sym_not not in targets or "tx.cmp ne" in ep.mlir()
    flipped = torch.export.export(Flipped(), (torch.randn(4),), dynamic_shapes={"x": {0: torch.export.Dim("n")}})
    assert operator.neg in {node.target for node in flipped.graph.nodes}
    run_both(flipped, from_torch(flipped), torch.randn(6))
    run_both(torch_ep, ep, torch.tensor(4), torch.randn(8, 3))
    run_both(torch_ep, ep, torch.tensor(6), torch.randn(8, 3))
    with pytest.raises(Exception, match="Runtime assertion failed"):
        ep.module()(texport.tensor(5), texport.randn(8, 3))


def test_a_symbolic_op_texport_lacks_names_the_node_and_the_line() -> None:
    class Square(torch.nn.Module):
        def forward(self, x):
            return x.new_zeros(x.shape[0] ** 2)

    torch_ep = torch.export.export(Square(), (torch.randn(4),), dynamic_shapes={"x": {0: torch.export.Dim("n")}})
    (power,) = [node for node in torch_ep.graph.nodes if node.target in (operator.pow, torch.sym_float)] or [None]
    if power is None:
        pytest.skip("torch folded the power into the size")
    with pytest.raises(TorchImportError, match=rf"(?s)cannot import node {power.name} .*x.new_zeros\(x.shape\[0\] \*\* 2\)"):
        from_torch(torch_ep)


@torch.library.custom_op("b19test::bump_", mutates_args=("x",))
def _bump_(x: torch.Tensor, k: float) -> torch.Tensor:
    x.add_(k)
    return x * 2


@_bump_.register_fake
def _bump_fake(x, k):
    return torch.empty_like(x)


class Bumps(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.zeros(3))

    def forward(self, x):
        doubled = _bump_(self.buf, 2.0)
        return x + self.buf + doubled


@pytest.mark.parametrize("level", LEVELS)
def test_a_custom_op_that_writes_imports_at_every_level(level: str) -> None:
    """torch's auto_functionalized_v2 (results first, then the new bases) becomes texport's
    ``.auto_functionalized`` variant (new values first, then the results)."""
    with restored_registries():
        @texport.library.custom_op("b19test::bump_", mutates_args=("x",))
        def bump_(x: texport.Tensor, k: float) -> texport.Tensor:
            x.add_(k)
            return x * 2

        bump_.register_fake(lambda x, k: texport.empty_like(x))
        torch_ep = at_level(torch.export.export(Bumps(), (torch.ones(3),)), level)
        ep = from_torch(torch_ep)
        if level != "training":
            assert "b19test.bump_.auto_functionalized(%b_buf, 2.0)" in ep.mlir()
        theirs, ours = torch_ep.module(), ep.module()
        for _ in range(2):  # the second call sees the buffer the first one wrote
            assert_same(theirs(torch.ones(3)), ours(texport.ones(3)))


@pytest.mark.parametrize("level", ("training", "core"))
def test_a_program_read_back_by_torch_export_load_imports(level: str) -> None:
    """What ``texport import model.pt2`` reads: torch's own archive, through torch's loader."""
    batch = torch.export.Dim("batch", min=2, max=64)
    args = (torch.randn(5, 4), torch.randn(3))
    saved = at_level(torch.export.export(State().train(), args, dynamic_shapes={"x": {0: batch}, "y": None}), level)
    buffer = io.BytesIO()
    torch.export.save(saved, buffer)
    buffer.seek(0)
    torch_ep = torch.export.load(buffer)
    ep = from_torch(torch_ep)
    assert ep.dialect == DIALECTS[level]
    assert {str(k) for k in ep.range_constraints} == {str(k) for k in torch_ep.range_constraints}
    run_both(torch_ep, ep, torch.randn(7, 4), torch.randn(3))


class NestedBranches(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("step", torch.ones(4))

    def forward(self, x):
        def positive(x):
            return torch.cond(x.mean() > 0.5, lambda x: x + self.step, lambda x: x - self.step, (x,))

        return torch.cond(x.sum() > 0, positive, lambda x: x.cos(), (x,))


@pytest.mark.parametrize("level", ("training", "core"))
def test_nested_cond_keeps_its_inner_subgraphs(level: str) -> None:
    torch_ep = at_level(torch.export.export(NestedBranches(), (torch.randn(3, 4).abs(),)), level)
    ep = from_torch(torch_ep)
    assert ep.mlir().count("control.cond") == 2
    for x in (torch.ones(3, 4), torch.full((3, 4), 0.1), -torch.ones(3, 4)):
        run_both(torch_ep, ep, x)


@pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr Node:UserWarning")  # torch's own unflatten
def test_preserved_module_call_signatures_unflatten() -> None:
    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x):
            return self.lin(x).relu()

    class Top(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.block, self.out = Block(), torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.out(self.block(x) + 1)

    torch_ep = torch.export.export(Top(), (torch.randn(2, 3),), preserve_module_call_signature=("block",))
    ep = from_torch(torch_ep)
    (entry,) = [e for e in ep.module_call_graph if e.fqn == "block"]
    assert [a.name for a in entry.signature.inputs] == ["x"] and [a.name for a in entry.signature.outputs] == ["relu"]
    x = torch.randn(2, 3)
    assert_same(torch.export.unflatten(torch_ep)(x), texport.export.unflatten(ep)(tensor_of(x)))


def test_a_shape_texport_disagrees_with_names_the_node() -> None:
    class Bump(torch.nn.Module):
        def forward(self, x):
            return (x + 1).relu()

    torch_ep = torch.export.export(Bump(), (torch.randn(2, 3),))
    relu = next(node for node in torch_ep.graph.nodes if node.name == "relu")
    with relu.meta["val"].fake_mode:
        relu.meta["val"] = torch.empty(3, 2)  # what a wrong shape rule on either side would give
    with pytest.raises(TorchImportError, match=r"(?s)node relu \(aten.relu.default\): texport's verifier disagrees with "
                       r"torch: .*\[3, 2\].*shape rule gives .*\[2, 3\].*return \(x \+ 1\).relu\(\)"):
        from_torch(torch_ep)


class Scoped(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        with torch.no_grad():
            y = self.lin(x) * 2
        with torch.autocast("cpu", enabled=False):
            z = y.float() + 1
        return y + x, z


@pytest.mark.parametrize("level", LEVELS)
def test_grad_and_disabled_autocast_scopes_are_inlined(level: str) -> None:
    """torch keeps them as wrap_with_* subgraphs in the training IR; texport's tracer records their ops inline."""
    torch_ep = at_level(torch.export.export(Scoped(), (torch.randn(2, 3),)), level)
    ep = from_torch(torch_ep)
    assert "wrap_with" not in ep.mlir() and "control." not in ep.mlir()
    assert [s.arg.name for s in ep.graph_signature.output_specs] == \
        [s.arg.name for s in torch_ep.graph_signature.output_specs]
    verify_module(parse_module(ep.mlir()))
    run_both(torch_ep, ep, torch.randn(2, 3))


def test_an_enabled_autocast_is_refused_by_name() -> None:
    class Cast(torch.nn.Module):
        def forward(self, x):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return torch.mm(x, x)

    torch_ep = torch.export.export(Cast(), (torch.randn(3, 3),))
    with pytest.raises(TorchImportError, match=r"(?s)wrap_with_autocast.*texport has no autocast.*torch.mm\(x, x\)"):
        from_torch(torch_ep)


@dataclasses.dataclass
class Pair:
    first: torch.Tensor
    second: torch.Tensor


torch.export.register_dataclass(Pair)


def test_a_dataclass_only_torch_knows_keeps_the_calling_convention() -> None:
    """A pytree node type registered with torch alone is registered with texport's
    pytree by torch's own functions: inputs and outputs keep their classes."""
    class Swap(torch.nn.Module):
        def forward(self, pair: Pair):
            return Pair(pair.second * 2, pair.first + pair.second)

    torch_ep = torch.export.export(Swap(), (Pair(torch.randn(2), torch.randn(2)),))
    ep = from_torch(torch_ep)
    assert ep._traced.user_input_paths == ["pair.first", "pair.second"]
    pair = Pair(torch.randn(2), torch.randn(2))
    got = ep.module()(Pair(tensor_of(pair.first), tensor_of(pair.second)))
    assert isinstance(got, Pair)
    assert_same(torch_ep.module()(pair), got)


class Aliases(torch.nn.Module):
    """Ops torch records that texport's tracer records as another op: ``&`` (bitwise_and),
    ``mT`` (transpose), functionalized ``zero_`` (fill), core xlogy's ``prims.scalar_tensor``."""

    def forward(self, x, y):
        zeroed = x.clone()
        zeroed.zero_()
        return x.mT @ x, zeroed + 1, torch.xlogy(2.0, y), (x > 0) & (x < 1)


@pytest.mark.parametrize("level", LEVELS)
def test_ops_texport_records_as_others_import_as_those(level: str) -> None:
    args = (torch.randn(3, 3), torch.rand(3) + 0.1)
    torch_ep = at_level(torch.export.export(Aliases(), args), level)
    ep = from_torch(torch_ep)
    ep.validate()
    run_both(torch_ep, ep, *args)


class Inverse(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.inv(x)


@pytest.mark.parametrize("level", LEVELS)
def test_effect_tokens_are_dropped_and_the_effect_kept(level: str) -> None:
    """torch's core program threads a TOKEN through with_effects(_linalg_check_errors);
    texport keeps the op, ordered by the block, and no token."""
    x = torch.randn(3, 3) + 3 * torch.eye(3)
    torch_ep = at_level(torch.export.export(Inverse(), (x,)), level)
    ep = from_torch(torch_ep)
    assert [s.kind.name for s in ep.graph_signature.input_specs] == ["USER_INPUT"]
    assert [s.kind.name for s in ep.graph_signature.output_specs] == ["USER_OUTPUT"]
    if level == "core":
        assert "_linalg_check_errors" in ep.mlir()
    run_both(torch_ep, ep, x)
    with pytest.raises(Exception, match="singular"):
        torch_ep.module()(torch.zeros(3, 3))
    with pytest.raises(Exception, match="singular"):
        ep.module()(texport.zeros(3, 3))
