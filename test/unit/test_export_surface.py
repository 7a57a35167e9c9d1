"""The rest of torch.export's surface (issue 16, item 4): symbolic helpers and
checks, texport.compiler, associative_scan, the graph signature's and
ExportedProgram's members, module_call_graph and unflatten, CustomDecompTable,
register_dataclass and draft_export. Each checked for what it does; the
comparisons with torch are in test/parity/test_export_surface_parity.py."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import texport as torch
from texport.export import Dim
from texport.export.verifier import SpecViolationError
from texport.interpreter.errors import RuntimeAssertError
from texport.tracer.signature import OutputKind, OutputSpec, TensorArgument

# --------------------------------------------------------------------------
# sym_* and checks
# --------------------------------------------------------------------------


def test_sym_helpers_on_python_numbers() -> None:
    assert torch.sym_max(2, 3) == 3 and torch.sym_min(2, 3) == 2
    assert torch.sym_max(2, 3.0) == 3.0 and isinstance(torch.sym_max(2, 3.0), float)  # float promotes
    assert torch.sym_int(-3.7) == -3 and torch.sym_float(3) == 3.0
    assert torch.sym_not(1) is False and torch.sym_ite(True, 1, 2) == 1
    assert torch.sym_sqrt(4) == 2.0 and torch.sym_sum([1, 2, 3]) == 6 and torch.sym_sum(1, 2) == 3
    with pytest.raises(AssertionError, match="type mismatch"):
        torch.sym_ite(True, 1, 2.0)


def test_sym_helpers_build_expressions_without_guards() -> None:
    seen = {}

    class M(torch.nn.Module):
        def forward(self, x):
            n = x.shape[0]
            seen.update(max=str(torch.sym_max(n, 3)), min=str(torch.sym_min(n, 3)),
                        sum=str(torch.sym_sum([n, n, 1])), ite=str(torch.sym_ite(n > 2, n, n + 1)),
                        not_=str(torch.sym_not(n > 2)), float_=str(torch.sym_float(n)))
            return x * 2 + torch.sym_sum([n, n, 1])

    ep = torch.export.export(M(), (torch.ones(5),), dynamic_shapes=({0: Dim("n")},))
    assert seen["max"] == "Max(3, s77)" and seen["min"] == "Min(3, s77)"
    assert seen["sum"] == "2*s77 + 1" and seen["not_"] == "s77 <= 2"
    assert seen["ite"] == "Piecewise((s77, s77 > 2), (s77 + 1, True))"
    assert str(ep.range_constraints) == "{s77: VR[0, int_oo]}"  # nothing guarded the range
    assert ep.module()(torch.ones(4)).tolist() == [11.0] * 4


def test_sym_max_and_min_trace_into_the_program() -> None:
    class M(torch.nn.Module):
        def forward(self, x):
            n = x.shape[0]
            return x * torch.sym_max(n, 3) + torch.sym_min(n, 3)

    ep = torch.export.export(M(), (torch.ones(5),), dynamic_shapes=({0: Dim("n")},))
    assert "tx.max" in ep.mlir() and "torch.sym_max(" in str(ep)
    for n in (2, 5):  # max(n, 3) + min(n, 3) for each element 1
        expected = [float(max(n, 3) + min(n, 3))] * n
        assert ep.module()(torch.ones(n)).tolist() == expected
        assert ep.run_decompositions().module()(torch.ones(n)).tolist() == expected


def test_sym_float_arithmetic_and_back_to_int() -> None:
    class M(torch.nn.Module):
        def forward(self, x):
            n = x.shape[0]
            return x * torch.sym_int(torch.sym_float(n) * 2) + torch.sym_float(n) / 2

    ep = torch.export.export(M(), (torch.ones(5),), dynamic_shapes=({0: Dim("n")},))
    assert ep.module()(torch.ones(4)).tolist() == [10.0] * 4  # 1 * 8 + 2


class _Constrained(torch.nn.Module):
    def forward(self, x):
        n = x.item()
        torch.sym_constrain_range(n, min=2, max=10)
        m = x.sum().item()
        torch.sym_constrain_range_for_size(m, max=7)
        k = (x + 1).item()
        torch._check_is_size(k, max=5)
        return torch.zeros(n), torch.zeros(m), torch.zeros(k)


def test_range_helpers_narrow_ranges_and_assert_at_run_time() -> None:
    ep = torch.export.export(_Constrained(), (torch.tensor(4),))
    assert {str(k): (v.lower, v.upper) for k, v in ep.range_constraints.items()} == \
        {"u0": (2, 10), "u1": (0, 7), "u2": (0, 5)}
    assert [t.shape[0] for t in ep.module()(torch.tensor(4))] == [4, 4, 5]
    with pytest.raises(RuntimeAssertError, match="u0 <= 10"):
        ep.module()(torch.tensor(12))


def test_range_helpers_on_numbers() -> None:
    torch.sym_constrain_range(2, min=0, max=3)
    with pytest.raises(RuntimeError, match=r"Invalid value range for 5 between \[0, 3\]"):
        torch.sym_constrain_range(5, min=0, max=3)
    with pytest.raises(RuntimeError, match=r"Invalid value range for -1 between \[0, 9223372036854775807\]"):
        torch.sym_constrain_range_for_size(-1)


@pytest.mark.parametrize(("check", "error"), [
    (torch._check, RuntimeError), (torch._check_index, IndexError), (torch._check_value, ValueError),
    (torch._check_type, TypeError), (torch._check_not_implemented, NotImplementedError),
])
def test_check_family_raises_its_error_type(check, error) -> None:
    check(True)
    with pytest.raises(error, match="^boom$"):
        check(False, lambda: "boom")
    with pytest.raises(error, match="Expected cond to be True"):
        check(False)


def test_check_with_and_tensor_checks() -> None:
    with pytest.raises(KeyError):
        torch._check_with(KeyError, False, lambda: "k")
    with pytest.raises(TypeError, match="cond must be a bool, but got <class 'int'>"):
        torch._check_with(ValueError, 1, lambda: "x")
    with pytest.raises(TypeError, match="must be a callable"):
        torch._check(False, "not callable")
    torch._check_tensor_all(torch.tensor([True, True]))
    with pytest.raises(RuntimeError, match="Expected cond"):
        torch._check_tensor_all(torch.tensor([True, False]))
    with pytest.raises(TypeError, match="must have dtype torch.bool, but got texport.int64"):
        torch._check_tensor_all(torch.tensor([1, 0]))
    with pytest.raises(RuntimeError):
        torch._check_is_size(-1)


# --------------------------------------------------------------------------
# texport.compiler
# --------------------------------------------------------------------------


def test_compiler_is_exporting_only_while_tracing() -> None:
    seen = []

    class M(torch.nn.Module):
        def forward(self, x):
            seen.append((torch.compiler.is_exporting(), torch.compiler.is_compiling(),
                         torch.compiler.is_dynamo_compiling()))
            return x + 1

    M()(torch.ones(1))
    torch.export.export(M(), (torch.ones(1),))
    assert seen == [(False, False, False), (True, True, False)]
    assert torch.compiler.disable(lambda x: x + 1)(1) == 2
    assert torch.compiler.disable()(len)([1]) == 1
    assert torch.compiler.assume_constant_result(lambda: 3)() == 3


# --------------------------------------------------------------------------
# associative_scan
# --------------------------------------------------------------------------


@pytest.mark.parametrize("length", [1, 2, 5, 8])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_is_an_inclusive_prefix_scan(length: int, reverse: bool) -> None:
    from texport._higher_order_ops import associative_scan

    data = np.arange(1.0, 1.0 + 3 * length, dtype=np.float32).reshape(3, length)
    x = torch.from_numpy(data)
    got = associative_scan(lambda a, b: a * b, x, dim=1, reverse=reverse, combine_mode="generic")
    expected = np.flip(np.cumprod(np.flip(data, 1), 1), 1) if reverse else np.cumprod(data, 1)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


def test_associative_scan_pytree_and_export() -> None:
    from texport._higher_order_ops import associative_scan

    def combine(a, b):  # running (sum, max)
        return {"s": a["s"] + b["s"], "m": torch.maximum(a["m"], b["m"])}

    class M(torch.nn.Module):
        def forward(self, x):
            out = associative_scan(combine, {"s": x, "m": x}, dim=0, combine_mode="generic")
            return out["s"], out["m"]

    data = np.array([3.0, -1.0, 4.0, 1.0, 5.0, -9.0, 2.0], dtype=np.float32)
    x = torch.from_numpy(data)
    ep = torch.export.export(M(), (x,))
    for program in (ep, ep.run_decompositions()):
        s, m = program.module()(x)
        np.testing.assert_allclose(s.numpy(), np.cumsum(data))
        np.testing.assert_allclose(m.numpy(), np.maximum.accumulate(data))


def test_associative_scan_refuses_as_torch() -> None:
    from texport._higher_order_ops import associative_scan

    with pytest.raises(ValueError, match="need to be on CUDA or XPU"):
        associative_scan(lambda a, b: a + b, torch.ones(3), dim=0)
    with pytest.raises(ValueError, match="Combine_mode must either"):
        associative_scan(lambda a, b: a + b, torch.ones(3), dim=0, combine_mode="other")


def test_map_at_the_top_level() -> None:
    out = torch.map(lambda x, y: x * y, torch.arange(6.0).reshape(3, 2), torch.tensor(2.0))
    assert out.tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    assert torch._higher_order_ops.map is torch.map


# --------------------------------------------------------------------------
# ExportedProgram and graph signature members
# --------------------------------------------------------------------------


class _WithState(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.register_buffer("b", torch.ones(2))
        self.c = torch.ones(2)

    def forward(self, x):
        return self.lin(x) + self.b + self.c


def test_program_members() -> None:
    ep = torch.export.export(_WithState(), (torch.ones(1, 2),))
    assert list(ep.tensor_constants) == ["lifted_tensor_0"] and ep.tensor_constants is ep.constants
    assert [n for n, _ in ep.named_parameters()] == ["lin.weight", "lin.bias"]
    assert [n for n, _ in ep.named_buffers()] == ["b"]
    assert ep.call_spec.in_spec == ep.call_spec[0] and ep.dialect == "TRAINING"
    assert ep.verifier.__name__ == "TrainingIRVerifier" and ep.verifiers == [ep.verifier]
    ep.validate()
    core = ep.run_decompositions()
    assert core.verifier.dialect == "ATEN"
    core.validate()
    ep.graph_signature.input_specs.pop()  # a signature that no longer matches the graph
    with pytest.raises(SpecViolationError, match="lists 4 inputs, the graph takes 5"):
        ep.validate()


def test_functional_verifier_refuses_in_place_ops() -> None:
    class M(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("n", torch.zeros(1))

        def forward(self, x):
            self.n.add_(1)
            return x + self.n

    ep = torch.export.export(M(), (torch.ones(1),))
    ep.validate()
    ep.dialect = "ATEN"  # mislabelled: the in-place add_ breaks the ATEN verifier
    with pytest.raises(SpecViolationError, match="add_"):
        ep.validate()


def test_signature_members() -> None:
    signature = torch.export.export(_WithState(), (torch.ones(1, 2),)).graph_signature
    assert signature.parameters_to_mutate == {} and signature.lifted_custom_objs == ()
    assert signature.inputs_to_lifted_custom_objs == {} and signature.input_tokens == ()
    assert signature.output_tokens == () and signature.assertion_dep_token is None
    assert signature.backward_signature is None
    signature.output_specs.append(OutputSpec(OutputKind.LOSS_OUTPUT, TensorArgument("loss"), None))
    signature.output_specs.append(OutputSpec(OutputKind.GRADIENT_TO_PARAMETER, TensorArgument("g"), "lin.weight"))
    backward = signature.backward_signature
    assert backward.loss_output == "loss" and backward.gradients_to_parameters == {"g": "lin.weight"}
    signature.replace_all_uses("x", "renamed")
    assert "renamed" in signature.user_inputs
    user = type("Node", (), {"op": "output"})()
    old = type("Node", (), {"op": "call_function", "name": "loss"})()
    signature.get_replace_hook()(old, "loss2", user)
    assert signature.backward_signature.loss_output == "loss2"


# --------------------------------------------------------------------------
# module_call_graph and unflatten
# --------------------------------------------------------------------------


class _Sub(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.register_buffer("count", torch.zeros(1))

    def forward(self, x, y):
        self.count.add_(1)
        return self.lin(x) * y, x.sum()


class _Outer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sub = _Sub()
        self.act = torch.nn.ReLU()

    def forward(self, x):
        a, b = self.sub(x, x + 1)
        return self.act(a) + b


def test_module_call_graph() -> None:
    x = torch.randn(3, 2)
    ep = torch.export.export(_Outer(), (x,), preserve_module_call_signature=("sub",))
    entries = ep.module_call_graph
    assert [e.fqn for e in entries] == ["", "sub", "sub.lin", "act"]
    assert entries[0].signature.forward_arg_names == ["x"]
    sub = entries[1].signature
    assert [a.name for a in sub.inputs] == ["x", "add"] and [a.name for a in sub.outputs] == ["mul", "sum_1"]
    assert entries[2].signature is None
    with pytest.raises(AttributeError, match="'_Outer' object has no attribute 'nope'"):
        torch.export.export(_Outer(), (x,), preserve_module_call_signature=("nope",))


def test_unflatten_keeps_the_hierarchy_and_the_numbers() -> None:
    torch.manual_seed(0)
    model, x = _Outer(), torch.randn(3, 2)
    ep = torch.export.export(model, (x,), preserve_module_call_signature=("sub",))
    flat = torch.export.unflatten(ep)
    assert isinstance(flat, torch.export.UnflattenedModule)
    assert [n for n, _ in flat.named_modules()] == ["", "sub", "sub.lin", "act"]
    assert [n for n, _ in flat.named_parameters()] == ["sub.lin.weight", "sub.lin.bias"]
    expected = model(x)
    np.testing.assert_allclose(flat(x).numpy(), expected.numpy(), rtol=1e-6)
    assert flat.sub.count.tolist() == [1.0]
    a, b = flat.sub(x, x)  # the preserved submodule alone
    ea, eb = model.sub(x, x)
    np.testing.assert_allclose(a.numpy(), ea.numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), eb.numpy(), rtol=1e-6)
    assert flat.sub.count.tolist() == [2.0]  # its own buffer write came with it
    with torch.no_grad():  # the submodule reads its parameters from the unflattened module
        flat.sub.lin.weight.fill_(0.0)
    expected = flat.sub.lin.bias.numpy() * x.numpy()
    np.testing.assert_allclose(flat.sub(x, x)[0].numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("table", [{}, None], ids=["functional", "core"])
def test_unflatten_of_a_lowered_program(table) -> None:
    torch.manual_seed(0)
    model, x = _Outer(), torch.randn(3, 2)
    expected = model.sub(x, x)[0].numpy()
    ep = torch.export.export(_Outer(), (x,), preserve_module_call_signature=("sub",))
    flat = torch.export.unflatten(ep.run_decompositions(table))
    flat.load_state_dict(model.state_dict())
    flat.sub.count.zero_()
    np.testing.assert_allclose(flat.sub(x, x)[0].numpy(), expected, rtol=1e-6)
    assert flat.sub.count.tolist() == [1.0]  # the new value the functional program returns, written back


def test_unflatten_without_preserved_signature_and_adapter() -> None:
    torch.manual_seed(0)
    model, x = _Outer(), torch.randn(3, 2)
    flat = torch.export.unflatten(torch.export.export(model, (x,)))
    np.testing.assert_allclose(flat(x).numpy(), model(x).numpy(), rtol=1e-6)
    out = flat.sub(x, x)  # not preserved: flat tensors in, a flat list out (as torch)
    assert isinstance(out, list) and len(out) == 2
    np.testing.assert_allclose(out[0].numpy(), model.sub(x, x)[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(flat.sub.lin(x).numpy(), model.sub.lin(x).numpy(), rtol=1e-6)  # one output
    with pytest.raises(TypeError, match="takes its 2 tensor inputs flat, got 1"):
        flat.sub(x)

    class Adapter(torch.export.FlatArgsAdapter):
        def adapt(self, target_spec, input_spec, input_args, metadata=None, obj=None):
            return input_args[:1]

    adapted = torch.export.unflatten(torch.export.export(_Outer(), (x,)), Adapter())
    assert adapted(x, torch.ones(1)).shape == (3, 2) and adapted.adapted


# --------------------------------------------------------------------------
# CustomDecompTable, register_dataclass, module aliases
# --------------------------------------------------------------------------


@pytest.mark.usefixtures("restore_registries")
def test_custom_decomp_table_reads_custom_ops_in_lazily() -> None:
    table = torch.export.default_decompositions()
    assert isinstance(table, torch.export.CustomDecompTable) and not table.has_materialized

    @torch.library.custom_op("surfacelib::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    twice.register_decomposition(lambda x: x + x)
    assert torch.ops.surfacelib.twice.default in table  # read after the op was defined
    assert table.has_materialized
    second = torch.export.default_decompositions()
    del second[torch.ops.surfacelib.twice.default]  # deleting it before reading: remembered
    assert "surfacelib.twice.default" in second.deleted_custom_ops
    with pytest.raises(KeyError):
        second.pop(torch.ops.surfacelib.twice.default)
    assert second.pop(torch.ops.surfacelib.twice.default, None) is None
    assert torch.ops.surfacelib.twice.default not in second  # reading in skips it
    assert len(second.copy()) == len(second) == len(table) - 1


def test_register_dataclass_inputs_and_outputs() -> None:
    @dataclasses.dataclass
    class Inputs:
        feature: torch.Tensor
        bias: int

    torch.export.register_dataclass(Inputs, serialized_type_name="test.Inputs")

    class M(torch.nn.Module):
        def forward(self, inp):
            return inp.feature + inp.bias

    ep = torch.export.export(M(), (Inputs(torch.ones(2), 1),))
    assert ep.module()(Inputs(torch.ones(2), 1)).tolist() == [2.0, 2.0]


def test_submodule_aliases() -> None:
    assert torch.export.dynamic_shapes.Dim is torch.export.Dim
    assert torch.export.graph_signature.ExportGraphSignature is torch.export.ExportGraphSignature
    assert torch.export.exported_program.ExportedProgram is torch.export.ExportedProgram
    assert torch.export.decomp_utils.CustomDecompTable is torch.export.CustomDecompTable
    assert torch.export.custom_ops.custom_op is torch.library.custom_op
    result = torch.export.PassResult("gm", True)
    assert result.modified and result.graph_module == "gm"
    constraint = torch.export.dynamic_shapes._Constraint(1, 0, (2, None)) >= 4
    assert constraint.constraint_range == (4, None)


# --------------------------------------------------------------------------
# draft_export
# --------------------------------------------------------------------------


class _DataDependent(torch.nn.Module):
    def forward(self, x, y):
        n = y.item()
        if n > 2:
            x = x * 2
        return x[:n]


def test_draft_export_goes_past_a_guard_on_data() -> None:
    x = torch.randn(5, 2)
    with pytest.raises(RuntimeError, match="data-dependent"):
        torch.export.export(_DataDependent(), (x, torch.tensor(3)))
    ep = torch.export.draft_export(_DataDependent(), (x, torch.tensor(3)))
    report = ep._report
    assert not report.successful()
    [failure] = report.failures
    assert failure.failure_type.name == "DATA_DEPENDENT_ERROR"
    assert failure.data["expr"] == "u0 > 2" and failure.data["result"] == "True"
    assert failure.data["user_stack"][-1]["loc"] == "if n > 2:"
    assert "1 issue(s) found" in str(report) and "u0 > 2" in str(report)
    np.testing.assert_allclose(ep.module()(x, torch.tensor(3)).numpy(), x.numpy()[:3] * 2)
    with pytest.raises(RuntimeAssertError, match="u0 > 2"):
        ep.module()(x, torch.tensor(1))


def test_draft_export_branch_on_a_tensor() -> None:
    class M(torch.nn.Module):
        def forward(self, x):
            return x + 1 if x.sum() > 0 else x - 1

    ep = torch.export.draft_export(M(), (torch.ones(3),))
    assert [(f.failure_type.name, f.data["expr"]) for f in ep._report.failures] == \
        [("DATA_DEPENDENT_ERROR", "Eq(u0, 1)")]
    assert ep.module()(torch.ones(3)).tolist() == [2.0] * 3
    with pytest.raises(RuntimeAssertError, match=r"Eq\(u0, 1\)"):
        ep.module()(-torch.ones(3))


@pytest.mark.usefixtures("restore_registries")
def test_draft_export_missing_and_mismatched_fake_kernels() -> None:
    @torch.library.custom_op("surfacelib::head2", mutates_args=())
    def head2(x: torch.Tensor) -> torch.Tensor:
        return x[:2].clone()

    class M(torch.nn.Module):
        def forward(self, x):
            return head2(x) + 1

    ep = torch.export.draft_export(M(), (torch.ones(4),))
    assert [(f.failure_type.name, f.data["op"]) for f in ep._report.failures] == \
        [("MISSING_FAKE_KERNEL", "surfacelib.head2.default")]
    assert ep.module()(torch.ones(4)).tolist() == [2.0, 2.0]

    head2.register_fake(lambda x: torch.empty_like(x))  # wrong: the real output has 2 elements
    ep = torch.export.draft_export(M(), (torch.ones(4),))
    assert [f.failure_type.name for f in ep._report.failures] == ["MISMATCHED_FAKE_KERNEL"]


def test_draft_export_retries_a_contradicted_spec() -> None:
    class M(torch.nn.Module):
        def forward(self, x):
            return x.reshape(2, -1) if x.shape[0] == 4 else x

    ep = torch.export.draft_export(M(), (torch.ones(4),), dynamic_shapes=({0: Dim("n")},))
    [failure] = ep._report.failures
    assert failure.failure_type.name == "GUARD_ADDED" and failure.data["expr"] == "Eq(s77, 4)"
    assert failure.data["new_dynamic_shapes"] == ({0: Dim.AUTO},)
    assert ep.module()(torch.ones(4)).shape == (2, 2)


def test_draft_export_of_a_clean_program_is_successful() -> None:
    ep = torch.export.draft_export(torch.nn.Linear(2, 2), (torch.ones(1, 2),))
    assert ep._report.successful() and ep._report.failures == []
    assert "Congratulations" in str(ep._report)
