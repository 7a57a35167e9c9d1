"""``to_torch``: texport's programs handed to real torch. Each program is exported
by texport from a model written once for both frameworks (the parity corpus,
loaded with torch's weights), converted with ``to_torch``, and run by torch:
``torch_ep.module()`` must give torch's own eager numbers (outputs, updated
buffers, mutated inputs), ``validate()`` must pass, ``run_decompositions()``
must lower it, and ``torch.export.save``/``load`` must round-trip it."""

from __future__ import annotations

import copy
import dataclasses
import functools
import io
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the bridge needs real torch: pip install -e '.[torch]'")

import texport  # noqa: E402
from texport.bridge.exporter import ToTorchError, to_torch  # noqa: E402
from texport.dialects.symbolic import dim_str  # noqa: E402

sys.path.insert(0, str(Path(__file__).parents[1] / "parity"))
import harness  # noqa: E402

LEVELS = ("training", "functional", "core")
# Corpus models covering what the bridge carries: plain layers, buffer updates (BatchNorm
# train, EMA, ring buffer), input mutation, keyword and defaulted inputs, tied weights,
# derived dims (4*h), data-dependent sizes, nested outputs, recurrent ops, attention.
MODELS = (
    "basics.mlp", "basics.conv_bn_train", "stateful.ema_lerp_buffer", "stateful.ring_buffer_index_copy",
    "stateful.user_input_mutation", "stateful.resnet_block_train", "structures.keyword_inputs_optional_mask",
    "structures.tied_weights", "structures.derived_dims_4h", "structures.data_dependent_count",
    "structures.nested_dict_list_tuple_outputs", "recurrent.lstm_carried_state", "text.gpt_decoder_tied_head",
    "vision.unet_spatial_4h", "vision.mobilenetv3_small_eval",
)
# Models whose texport core program is compared op by op with torch's decomposition of
# the training program to_torch gives.
# torch's eager scan imports a module that warns on its own use of torch.jit
TORCH_SCAN_WARNS = pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
CORE_OP_MODELS = ("basics.mlp", "basics.conv_bn_train", "stateful.resnet_block_train", "text.gpt_decoder_tied_head",
                  "vision.mobilenetv3_small_eval")


@functools.cache
def pairs() -> dict[str, harness.Pair]:
    files = sorted({harness.CORPUS / f"{name.split('.')[0]}.py" for name in MODELS})
    return {pair.name: pair for pair in harness.corpus_pairs(torch, files)}


@functools.cache
def runner(name: str) -> harness.Runner:
    return harness.Runner(pairs()[name], torch)


def converted(name: str, level: str) -> Any:
    """A fresh conversion: torch's ``module()`` updates the program's own buffers."""
    return to_torch(runner(name).program("texport", level))


def run_torch(module: Any, inputs: Any) -> tuple[Any, Any, Any]:
    """Outputs, buffers after the call and inputs after the call, as numpy."""
    args, kwargs = harness.call_args(inputs, torch)
    out = module(*args, **kwargs)
    buffers = {name: harness.to_numpy(b) for name, b in module.named_buffers()}
    return harness.to_numpy(out), buffers, harness.to_numpy([args, kwargs])


def assert_torch_eager(name: str, module: Any, second: bool = False) -> None:
    run = runner(name)
    case = run.pair.torch_case
    want = run.torch_eager(second)
    got = run_torch(module, run.second if second else run.inputs)
    for what, w, g in zip(("outputs", "buffers", "inputs after the call"), want, got):
        harness.assert_close(w, g, case.rtol, case.atol, f"{name} {what}")


# ---- corpus models at every level ----------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", MODELS)
def test_module_gives_torchs_eager_numbers(name: str, level: str) -> None:
    torch_ep = converted(name, level)
    assert isinstance(torch_ep, torch.export.ExportedProgram)
    assert_torch_eager(name, torch_ep.module())
    if runner(name).second is not None:  # other dynamic sizes, through torch's own guards
        assert_torch_eager(name, converted(name, level).module(), second=True)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", MODELS[:6])
def test_validate_and_the_signature_are_texports(name: str, level: str) -> None:
    torch_ep = converted(name, level)
    torch_ep.validate()
    texport_ep = runner(name).program("texport", level)
    assert harness.signature_text(torch_ep.graph_signature) == harness.signature_text(texport_ep.graph_signature)
    verifier = torch_ep.verifiers[0].dialect
    assert verifier == ("TRAINING" if level == "training" else "ATEN")


@pytest.mark.parametrize("name", CORE_OP_MODELS)
def test_torchs_decomposition_gives_texports_core_ops(name: str) -> None:
    lowered = converted(name, "training").run_decompositions()
    texport_core = runner(name).program("texport", "core")
    difference = harness.core_op_difference(harness.torch_core_ops(lowered), harness.texport_core_ops(texport_core),
                                            runner(name).pair.texport_case.core_op_exceptions)
    assert not difference
    assert_torch_eager(name, lowered.module())


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", ("basics.conv_bn_train", "structures.derived_dims_4h", "stateful.user_input_mutation"))
def test_torch_save_and_load_round_trip(name: str, level: str) -> None:
    buffer = io.BytesIO()
    torch.export.save(converted(name, level), buffer)
    buffer.seek(0)
    loaded = torch.export.load(buffer)
    assert_torch_eager(name, loaded.module())


def test_symbols_keep_texports_names_and_ranges() -> None:
    texport_ep = runner("structures.derived_dims_4h").program("texport", "training")
    torch_ep = converted("structures.derived_dims_4h", "training")
    assert {str(k): repr(v) for k, v in torch_ep.range_constraints.items()} == \
        {str(k): repr(v) for k, v in texport_ep.range_constraints.items()}
    placeholders = [n for n in torch_ep.graph.nodes if n.op == "placeholder"]
    for node, arg in zip(placeholders, texport_ep.graph.body.block.args, strict=True):
        assert node.name == arg.name_hint
        assert [str(d) for d in node.meta["val"].shape] == [dim_str(d) for d in arg.type.shape]


def test_nodes_carry_fake_values_and_stack_traces() -> None:
    torch_ep = converted("basics.conv_bn_train", "core")
    calls = [n for n in torch_ep.graph.nodes if n.op == "call_function"]
    assert all(isinstance(n.meta["val"], (torch.Tensor, tuple, list)) for n in calls)
    convolution = next(n for n in calls if n.target is torch.ops.aten.convolution.default)
    assert "conv.py" in convolution.meta["stack_trace"]
    batch_norm = next(n for n in calls if n.target is torch.ops.aten._native_batch_norm_legit_functional.default)
    assert [u.target.__name__ for u in batch_norm.users] == ["getitem"] * len(batch_norm.users)


# ---- control flow, unbacked sizes ----------------------------------------------


class Branchy(texport.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = texport.nn.Linear(4, 4)

    def forward(self, x):
        return texport.cond(x.sum() > 0, lambda x: self.lin(x).sin(), lambda x: x.cos(), (x,))


class Loops(texport.nn.Module):
    def forward(self, xs, y, it):
        mapped = texport.control_flow.map(lambda x, y: x * 2 + y, xs, y)
        carry, ys = texport.scan(lambda c, x: (c + x, 2 * (c + x)), texport.zeros(3), xs)
        n, w = texport.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, v * 2), (it, y))
        return mapped, carry, ys, n, w


class Counts(texport.nn.Module):
    def forward(self, x):
        rows = x.nonzero()
        n = (x > 0).sum().item()
        texport._check(n >= 0)
        return rows.shape[0] * 2, rows.float().sum(0), texport.zeros(n)


def _torch_of(value: Any) -> Any:
    return torch.from_numpy(np.array(value.numpy(), copy=True))


def _assert_same(want: Any, got: Any) -> None:
    """texport's interpreter and torch: same values (torch's numbers are compared with
    the model's torch eager run in the corpus tests; these models exist only in texport)."""
    if isinstance(want, (tuple, list)):
        assert len(want) == len(got)
        for w, g in zip(want, got):
            _assert_same(w, g)
        return
    if isinstance(want, texport.Tensor):
        np.testing.assert_allclose(g := got.detach().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
        assert g.dtype == want.numpy().dtype
        return
    assert want == got


@pytest.mark.parametrize("level", LEVELS)
def test_cond_becomes_torchs_cond_with_subgraph_modules(level: str) -> None:
    model = Branchy()
    x = texport.randn(3, 4)
    ep = texport.export.export(model, (x,), dynamic_shapes={"x": {0: texport.export.Dim("b", min=2, max=10)}})
    ep = ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)
    torch_ep = to_torch(ep)
    cond = next(n for n in torch_ep.graph.nodes if n.op == "call_function" and "cond" in str(n.target))
    assert cond.target is torch.ops.higher_order.cond
    assert [a.op for a in cond.args[1:3]] == ["get_attr", "get_attr"]
    for sign in (1.0, -1.0):
        x = texport.randn(5, 4).abs() * sign
        _assert_same(ep.module()(x), torch_ep.module()(_torch_of(x)))
    torch_ep.run_decompositions().module()(_torch_of(x))


@TORCH_SCAN_WARNS
@pytest.mark.parametrize("level", LEVELS)
def test_map_scan_and_while_loop_run_in_torch(level: str) -> None:
    args = (texport.arange(6.0).view(2, 3), texport.ones(3), texport.tensor(0))
    ep = texport.export.export(Loops(), args)
    ep = ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)
    torch_ep = to_torch(ep)
    targets = {n.target for n in torch_ep.graph.nodes if n.op == "call_function"}
    higher_order = torch.ops.higher_order
    assert {higher_order.map_impl, higher_order.scan, higher_order.while_loop} <= targets
    torch_args = tuple(_torch_of(a) for a in args)
    _assert_same(ep.module()(*args), torch_ep.module()(*torch_args))
    torch_ep.validate()


@pytest.mark.parametrize("level", LEVELS)
def test_unbacked_sizes_and_runtime_asserts(level: str) -> None:
    x = texport.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    ep = texport.export.export(Counts(), (x,))
    ep = ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)
    torch_ep = to_torch(ep)
    targets = [n.target for n in torch_ep.graph.nodes if n.op == "call_function"]
    assert torch.ops.aten._assert_scalar.default in targets
    assert any("u0" in str(k) for k in torch_ep.range_constraints)
    for value in (x, texport.tensor([[0.0, 0.0], [5.0, 1.0], [0.0, 0.0]])):
        _assert_same(ep.module()(value), torch_ep.module()(_torch_of(value)))


# ---- programs read back and rewritten -------------------------------------------


def test_a_program_parsed_from_mlir_and_functionalized_by_texport_opt() -> None:
    from xdsl.context import Context

    from texport.dialects.context import parse_module
    from texport.export.program import ExportedProgram
    from texport.lowering.passes import PASSES

    run = runner("stateful.resnet_block_train")
    training = run.program("texport", "training")
    module = parse_module(training.mlir())
    functionalize = next(p for p in PASSES if p.name == "functionalize")
    functionalize().apply(Context(), module)
    traced = dataclasses.replace(training._traced, module=module, signature=training._signature_of(module))
    rewritten = ExportedProgram(traced, dialect="INFERENCE")
    assert_torch_eager("stateful.resnet_block_train", to_torch(rewritten).module())


def test_a_program_loaded_by_texport() -> None:
    buffer = io.BytesIO()
    texport.export.save(runner("structures.tied_weights").program("texport", "core"), buffer)
    buffer.seek(0)
    loaded = texport.export.load(buffer)
    torch_ep = to_torch(loaded)
    assert_torch_eager("structures.tied_weights", torch_ep.module())
    assert_torch_eager("structures.tied_weights", to_torch(loaded).module(), second=True)


# ---- weights, custom ops --------------------------------------------------------


class Half(texport.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = texport.nn.Linear(4, 3).to(texport.bfloat16)
        self.register_buffer("scale", texport.tensor([2.0, 3.0, 4.0], dtype=texport.bfloat16))

    def forward(self, x):
        return self.lin(x) * self.scale


def test_bfloat16_weights_keep_their_bytes() -> None:
    model = Half()
    x = texport.randn(2, 4).to(texport.bfloat16)
    torch_ep = to_torch(texport.export.export(model, (x,)))
    weight = torch_ep.state_dict["lin.weight"]
    assert isinstance(weight, torch.nn.Parameter) and weight.dtype == torch.bfloat16
    np.testing.assert_array_equal(weight.detach().float().numpy(), model.lin.weight.float().numpy())
    torch_x = _torch_of(x.float()).to(torch.bfloat16)
    got = torch_ep.module()(torch_x)
    want = torch.nn.functional.linear(torch_x, weight, torch_ep.state_dict["lin.bias"]) * torch_ep.state_dict["scale"]
    torch.testing.assert_close(got, want)


@pytest.fixture
def restored_registries() -> Any:
    from texport.dialects import bootstrap
    from texport.dialects.registry import Registry

    bootstrap.start_all()
    with Registry.restored():
        yield


class UsesCustom(texport.nn.Module):
    def __init__(self, op: Any) -> None:
        super().__init__()
        self.op = op

    def forward(self, x):
        return self.op(x) + 1


def test_custom_ops_map_to_torchs_op_of_the_same_name(restored_registries: None) -> None:
    @texport.library.custom_op("texport_bridge_test::twice", mutates_args=())
    def twice(x: texport.Tensor) -> texport.Tensor:
        return x * 2

    @twice.register_fake
    def _(x: texport.Tensor) -> texport.Tensor:
        return texport.empty_like(x)

    if not hasattr(torch.ops.texport_bridge_test, "twice"):
        @torch.library.custom_op("texport_bridge_test::twice", mutates_args=())
        def torch_twice(x: torch.Tensor) -> torch.Tensor:
            return x * 2

        @torch_twice.register_fake
        def _(x: torch.Tensor) -> torch.Tensor:
            return torch.empty_like(x)

    x = texport.randn(3)
    torch_ep = to_torch(texport.export.export(UsesCustom(twice), (x,)))
    assert torch.ops.texport_bridge_test.twice.default in [n.target for n in torch_ep.graph.nodes]
    np.testing.assert_allclose(torch_ep.module()(_torch_of(x)).numpy(), x.numpy() * 2 + 1, rtol=1e-6)


def test_a_custom_op_torch_lacks_is_a_clear_error(restored_registries: None) -> None:
    @texport.library.custom_op("texport_bridge_test::only_in_texport", mutates_args=())
    def only(x: texport.Tensor) -> texport.Tensor:
        return x + 1

    @only.register_fake
    def _(x: texport.Tensor) -> texport.Tensor:
        return texport.empty_like(x)

    ep = texport.export.export(UsesCustom(only), (texport.randn(3),))
    with pytest.raises(ToTorchError, match=r"torch has no op texport_bridge_test::only_in_texport\.default"):
        to_torch(ep)


def test_the_conversion_leaves_texports_program_alone() -> None:
    texport_ep = runner("basics.conv_bn_train").program("texport", "training")
    before = texport_ep.mlir()
    state = {k: np.array(v.numpy(), copy=True) for k, v in texport_ep.state_dict.items()}
    torch_ep = to_torch(texport_ep)
    torch_ep.module()(*harness.call_args(runner("basics.conv_bn_train").inputs, torch)[0])
    assert texport_ep.mlir() == before
    for name, value in texport_ep.state_dict.items():
        np.testing.assert_array_equal(value.numpy(), state[name])
    assert copy.deepcopy(torch_ep.graph_signature) == torch_ep.graph_signature


@pytest.mark.parametrize(("name", "level"), [("text.gpt_decoder_tied_head", "training"),
                                             ("structures.derived_dims_4h", "core"),
                                             ("basics.conv_bn_train", "functional")])
def test_torchs_listing_is_texports(name: str, level: str) -> None:
    """Same node names, targets, arguments and types as texport's torch-style listing
    (texport prints a memory format as its name, torch as the object)."""
    texport_ep = runner(name).program("texport", level)
    torch_ep = converted(name, level)

    def lines(text: str) -> list[str]:
        return [" ".join(line.split()) for line in text.splitlines() if line.strip() and "#" not in line]

    want = [line.replace("'contiguous_format'", "torch.contiguous_format")
            for line in lines(texport_ep.graph_module.print_readable(print_output=False))]
    assert lines(torch_ep.graph_module.print_readable(print_output=False)) == want


def test_a_program_without_example_inputs_gets_hints_from_its_ranges() -> None:
    texport_ep = runner("structures.derived_dims_4h").program("texport", "core")
    bare = type(texport_ep)(dataclasses.replace(texport_ep._traced, example_inputs=None), texport_ep.dialect)
    torch_ep = to_torch(bare)
    assert torch_ep.example_inputs is None
    assert_torch_eager("structures.derived_dims_4h", torch_ep.module())
    assert_torch_eager("structures.derived_dims_4h", to_torch(bare).module(), second=True)


class BumpsBuffer(texport.nn.Module):
    def __init__(self, op: Any) -> None:
        super().__init__()
        self.op = op
        self.register_buffer("buf", texport.zeros(3))

    def forward(self, x):
        self.op(self.buf)
        return x + self.buf


@pytest.mark.parametrize("level", LEVELS)
def test_a_custom_op_that_writes_becomes_torchs_auto_functionalized(level: str, restored_registries: None) -> None:
    @texport.library.custom_op("texport_bridge_test::bump_", mutates_args=("x",))
    def bump_(x: texport.Tensor) -> None:
        x.add_(1)

    @bump_.register_fake
    def _(x: texport.Tensor) -> None:
        return None

    if not hasattr(torch.ops.texport_bridge_test, "bump_"):
        @torch.library.custom_op("texport_bridge_test::bump_", mutates_args=("x",))
        def torch_bump_(x: torch.Tensor) -> None:
            x.add_(1)

        @torch_bump_.register_fake
        def _(x: torch.Tensor) -> None:
            return None

    ep = texport.export.export(BumpsBuffer(bump_), (texport.ones(3),))
    ep = ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)
    torch_ep = to_torch(ep)
    targets = [n.target for n in torch_ep.graph.nodes if n.op == "call_function"]
    expected = torch.ops.texport_bridge_test.bump_.default if level == "training" \
        else torch.ops.higher_order.auto_functionalized_v2
    assert expected in targets
    module = torch_ep.module()
    assert module(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert module(torch.ones(3)).tolist() == [3.0, 3.0, 3.0]  # the buffer keeps its update
    lowered = to_torch(ep).run_decompositions()
    assert torch.ops.higher_order.auto_functionalized_v2 in [n.target for n in lowered.graph.nodes]
    assert lowered.module()(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]


class Inner(texport.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = texport.nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x).relu()


class Outer(texport.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = Inner()
        self.out = texport.nn.Linear(4, 2)

    def forward(self, x):
        return self.out(self.inner(x) + 1)


@pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr Node:UserWarning")  # torch's own, as for its programs
@pytest.mark.parametrize("level", LEVELS)
def test_torchs_unflatten_calls_a_preserved_submodule_alone(level: str) -> None:
    x = texport.randn(2, 4)
    ep = texport.export.export(Outer(), (x,), preserve_module_call_signature=("inner",))
    ep = ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)
    torch_ep = to_torch(ep)
    assert [e.fqn for e in torch_ep.module_call_graph if e.signature is not None] == ["", "inner"]
    unflattened = torch.export.unflatten(torch_ep)
    _assert_same(ep.module()(x), unflattened(_torch_of(x)))
    _assert_same(texport.export.unflatten(ep).inner(x), unflattened.inner(_torch_of(x)))


class Scalars(texport.nn.Module):
    def forward(self, x, n, f, flag):
        return x * n + f, n * 2, None, 3


@pytest.mark.parametrize("level", LEVELS)
def test_int_inputs_specialised_inputs_and_constant_outputs(level: str) -> None:
    x = texport.randn(3)
    dynamic = {"x": None, "n": texport.export.Dim.DYNAMIC, "f": None, "flag": None}
    ep = texport.export.export(Scalars(), (x, 4, 2.5, True), dynamic_shapes=dynamic)
    ep = ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)
    torch_ep = to_torch(ep)
    kinds = [type(s.arg).__name__ for s in torch_ep.graph_signature.input_specs]
    assert kinds == ["TensorArgument", "SymIntArgument", "ConstantArgument", "ConstantArgument"]
    assert [str(k) for k in torch_ep.range_constraints] == [str(k) for k in ep.range_constraints]
    for n in (4, 7):
        _assert_same(ep.module()(x, n, 2.5, True), torch_ep.module()(_torch_of(x), n, 2.5, True))
    buffer = io.BytesIO()
    torch.export.save(torch_ep, buffer)
    buffer.seek(0)
    _assert_same(ep.module()(x, 5, 2.5, True), torch.export.load(buffer).module()(_torch_of(x), 5, 2.5, True))


# ---- the model zoo -------------------------------------------------------------------


@functools.cache
def torch_zoo() -> Any:
    """texport's zoo (``texport/examples/models.py``) run with real torch: the file is
    written against torch's API, so swapping its imports gives torch's models."""
    import types

    import texport.examples.models as zoo

    source = Path(zoo.__file__).read_text()
    for ours, theirs in (("import texport as torch", "import torch"), ("import texport.nn as nn", "import torch.nn as nn"),
                         ("import texport.nn.functional as F", "import torch.nn.functional as F")):
        source = source.replace(ours, theirs)
    module = types.ModuleType("torch_zoo")
    exec(compile(source, zoo.__file__, "exec"), module.__dict__)  # noqa: S102 - texport's own zoo
    return module


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", ["ConvBN", "MLP50", "GPT4", "ResNet18", "TinyLSTM", "EarlyExit"])
def test_zoo_models_give_torchs_numbers(name: str, level: str) -> None:
    import texport.examples.models as zoo

    torch_model, args = getattr(torch_zoo(), f"make_{name}")()
    model, _ = getattr(zoo, f"make_{name}")()
    model.load_state_dict({k: texport.from_numpy(v.detach().numpy().copy()) for k, v in torch_model.state_dict().items()})
    torch_model.eval()
    model.eval()
    ep = texport.export.export(model, tuple(texport.from_numpy(a.numpy().copy()) for a in args))
    ep = ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)
    with torch.no_grad():
        want, got = torch_model(*args), to_torch(ep).module()(*args)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


@TORCH_SCAN_WARNS
@pytest.mark.parametrize("level", LEVELS)
def test_zoo_scan_lstm_with_dynamic_batch_and_steps(level: str) -> None:
    """torch's scan runs eagerly only through dynamo, which cannot trace an exec'd
    file: texport's interpreter is the reference here."""
    import texport.examples.models as zoo

    model, args = zoo.make_LSTMScan()
    dims = {"xs": {0: texport.export.Dim("b", min=2, max=64), 1: texport.export.Dim("t", min=2, max=64)}}
    ep = texport.export.export(model, args, dynamic_shapes=dims)
    ep = ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)
    torch_ep = to_torch(ep)
    assert torch.ops.higher_order.scan in [n.target for n in torch_ep.graph.nodes]
    x = texport.randn(3, 9, 64)
    _assert_same(ep.module()(x), torch_ep.module()(_torch_of(x)))


class ReverseScan(texport.nn.Module):
    def forward(self, xs):
        return texport.scan(lambda c, x: (c + x, c * x), texport.zeros(3), xs, reverse=True)


@TORCH_SCAN_WARNS
@pytest.mark.parametrize("level", LEVELS)
def test_a_reverse_scan_flips_around_torchs_forward_scan(level: str) -> None:
    xs = texport.randn(5, 3)
    ep = texport.export.export(ReverseScan(), (xs,), dynamic_shapes={"xs": {0: texport.export.Dim("t", min=2)}})
    ep = ep if level == "training" else ep.run_decompositions({} if level == "functional" else None)
    torch_ep = to_torch(ep)
    targets = [n.target for n in torch_ep.graph.nodes if n.op == "call_function"]
    assert targets.count(torch.ops.aten.flip.default) == 2
    for value in (xs, texport.randn(7, 3)):
        _assert_same(ep.module()(value), torch_ep.module()(_torch_of(value)))
