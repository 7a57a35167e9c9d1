"""functionalize: in-place ops become functional, writes through views reach
their bases, mutated buffers and user inputs become outputs (mutations first,
in input order); the result passes the functional legality check and computes
what eager mode computes."""

from __future__ import annotations

import numpy as np
import pytest

import texport as torch
from texport.lowering.errors import FunctionalizationError
from texport.lowering.legality import is_functional_legal


def _lower(model: torch.nn.Module, *args: torch.Tensor, table=None):  # noqa: ANN001, ANN202
    ep = torch.export.export(model, args)
    return ep, ep.run_decompositions({} if table is None else table)


def _ops(ep) -> list[str]:  # noqa: ANN001
    return [op.name for op in ep.graph.body.block.ops][:-1]


def _check_equal(make, *args: torch.Tensor) -> None:  # noqa: ANN001
    """eager (on a fresh model) == functional == core, outputs and buffers."""
    ep = torch.export.export(make(), args)
    for lowered in (ep.run_decompositions({}), ep.run_decompositions()):
        assert all(is_functional_legal(op) for op in lowered.graph.walk())
        reference, module = make(), lowered.module()
        copies = [torch.tensor(a.numpy().copy()) for a in args]
        want, got = reference(*copies), module(*args)
        for a, b in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6, atol=1e-6)
        for (fqn, buffer), (_, mine) in zip(reference.named_buffers(), module.named_buffers()):
            np.testing.assert_allclose(mine.numpy(), buffer.numpy(), rtol=1e-6, err_msg=fqn)


class Counter(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros(3))
        self.register_buffer("other", torch.ones(2))

    def forward(self, x):  # noqa: ANN001, ANN201
        self.count.add_(x)
        self.other.mul_(2)
        self.count.add_(1)
        return x * self.count


def test_buffer_mutations_become_outputs_in_input_order() -> None:
    ep, functional = _lower(Counter(), torch.randn(3))
    assert _ops(functional) == ["functional.add.Tensor", "functional.mul.Tensor", "functional.add.Tensor",
                                "functional.mul.Tensor"]
    specs = [str(s) for s in functional.graph_signature.output_specs]
    assert specs == ["add_1: BUFFER_MUTATION target='count'", "mul: BUFFER_MUTATION target='other'",
                     "mul_1: USER_OUTPUT"]
    _check_equal(Counter, torch.randn(3))


class InPlaceActivations(torch.nn.Module):
    def forward(self, x):  # noqa: ANN001, ANN201
        y = x * 2
        y.relu_()
        y += 1
        return y.sigmoid()


def test_intermediate_in_place_ops_are_replayed() -> None:
    _, functional = _lower(InPlaceActivations(), torch.randn(4))
    assert _ops(functional) == ["functional.mul.Tensor", "functional.relu", "functional.add.Tensor",
                                "functional.sigmoid"]
    assert [s.kind.name for s in functional.graph_signature.output_specs] == ["USER_OUTPUT"]
    _check_equal(InPlaceActivations, torch.randn(4))


class UserInputWrite(torch.nn.Module):
    def forward(self, x, y):  # noqa: ANN001, ANN201
        x.mul_(3)
        return x + y


def test_user_input_mutation() -> None:
    _, functional = _lower(UserInputWrite(), torch.randn(3), torch.randn(3))
    specs = [str(s) for s in functional.graph_signature.output_specs]
    assert specs == ["mul: USER_INPUT_MUTATION target='x'", "add: USER_OUTPUT"]
    assert functional.graph_signature.user_inputs_to_mutate == {"mul": "x"}


class ViewWrites(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.zeros(4, 3))

    def forward(self, x):  # noqa: ANN001, ANN201
        self.buf[1:3, 0] = x[:2, 0]
        t = self.buf.t()
        t[2].add_(1.0)
        first, second = self.buf.split(2)
        second.relu_()
        flat = self.buf.view(12)
        flat[5:7] = 7.0
        return self.buf.sum() * 1.0, first * 1


def test_writes_through_views_reach_the_base() -> None:
    _, functional = _lower(ViewWrites(), torch.randn(4, 3))
    names = _ops(functional)
    for scatter in ("functional.select_scatter", "functional.slice_scatter", "functional.permute"):
        assert scatter in names
    assert [s.kind.name for s in functional.graph_signature.output_specs] == [
        "BUFFER_MUTATION", "USER_OUTPUT", "USER_OUTPUT"]
    _check_equal(ViewWrites, torch.randn(4, 3))


class ViewReadAfterWrite(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.zeros(2, 3))

    def forward(self, x):  # noqa: ANN001, ANN201
        row = self.buf[0]          # a view taken before the write ...
        self.buf.add_(x)
        return row * 1             # ... reads the new values


def test_a_view_taken_before_a_write_sees_it() -> None:
    _check_equal(ViewReadAfterWrite, torch.randn(2, 3))


class ParameterWrite(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):  # noqa: ANN001, ANN201
        with torch.no_grad():
            self.weight.mul_(2)
        return x * self.weight


def test_writing_a_parameter_is_an_error() -> None:
    ep = torch.export.export(ParameterWrite(), (torch.randn(3),))
    with pytest.raises(FunctionalizationError, match="writes the parameter 'weight'"):
        ep.run_decompositions({})


class ExpandWrite(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.zeros(1, 3))

    def forward(self, x):  # noqa: ANN001, ANN201
        self.buf.expand(2, 3).add_(x)
        return x


def test_a_write_through_an_expand_is_an_error() -> None:
    ep = torch.export.export(ExpandWrite(), (torch.randn(2, 3),))
    with pytest.raises(FunctionalizationError, match="through 'training.expand'.*no scatter form"):
        ep.run_decompositions({})


def test_batch_norm_modes() -> None:
    from models_for_tests import conv_bn

    for train, expected in ((True, "_native_batch_norm_legit_functional"),
                            (False, "_native_batch_norm_legit_no_training")):
        ep = conv_bn(train)
        assert f"functional.{expected}" in _ops(ep.run_decompositions({}))


def test_instance_norm_with_running_stats_writes_their_average_over_the_batch() -> None:
    def make() -> torch.nn.Module:
        return torch.nn.InstanceNorm1d(3, track_running_stats=True)

    _check_equal(make, torch.randn(4, 3, 5))
    ep = torch.export.export(make(), (torch.randn(4, 3, 5),))
    lowered = ep.run_decompositions({})
    kinds = [spec.kind.name for spec in lowered.graph_signature.output_specs]
    assert kinds == ["BUFFER_MUTATION", "BUFFER_MUTATION", "USER_OUTPUT"]
    frozen = torch.export.export(make().eval(), (torch.randn(4, 3, 5),)).run_decompositions({})
    assert "functional.instance_norm" in _ops(frozen)  # eval writes nothing: kept, as torch keeps it


class CopiedInto(torch.nn.Module):
    """Buffers written by ``copy_``: same shape, broadcast, another dtype, and a
    copy followed by more writes; and a user input written by ``copy_``."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("same", torch.zeros(4, 3))
        self.register_buffer("wide", torch.zeros(4, 3))
        self.register_buffer("whole", torch.zeros(4, 3, dtype=torch.int64))
        self.register_buffer("later", torch.zeros(4, 3))

    def forward(self, x):  # noqa: ANN001, ANN201
        self.same.copy_(x * 2)
        self.wide.copy_(x[0] + 1)
        self.whole.copy_(x * 10)
        self.later.copy_(x - 1)
        self.later.add_(1)
        x.copy_(x * 3)
        return self.same + self.wide


def test_a_buffer_copied_into_takes_the_source_as_its_value() -> None:
    """torch's run_decompositions (_remove_unnecessary_copy_op_pass): the source
    of the copy is the buffer's new value, whatever its shape and dtype; a
    buffer written after the copy and a user input keep their copy (names are
    given before the copies go: the input's copy is copy_4, as in torch)."""
    for table in ({}, None):
        _, lowered = _lower(CopiedInto(), torch.randn(4, 3), table=table)
        specs = [str(s) for s in lowered.graph_signature.output_specs]
        assert specs == ["mul: BUFFER_MUTATION target='same'", "add: BUFFER_MUTATION target='wide'",
                         "mul_1: BUFFER_MUTATION target='whole'", "add_1: BUFFER_MUTATION target='later'",
                         "copy_4: USER_INPUT_MUTATION target='x'", "add_2: USER_OUTPUT"]
        assert sum(getattr(op, "op_def", None) is not None and op.op_def.key == "aten.copy.default"
                   for op in lowered.graph.walk()) == 2
    _check_equal(CopiedInto, torch.randn(4, 3))


class CopiedTwice(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("b", torch.zeros(3))

    def forward(self, x):  # noqa: ANN001, ANN201
        self.b.copy_(x * 2)
        self.b.copy_(x * 3)
        return self.b + 1


def test_a_buffer_copied_into_twice_keeps_the_first_copy_as_torch() -> None:
    """torch removes the last copy after its dead-code pass: the first copy,
    read only by the removed one, stays in the graph."""
    _, functional = _lower(CopiedTwice(), torch.randn(3))
    assert _ops(functional) == ["functional.mul.Tensor", "functional.copy", "functional.mul.Tensor",
                                "functional.add.Tensor"]
    assert [str(s) for s in functional.graph_signature.output_specs] == [
        "mul_1: BUFFER_MUTATION target='b'", "add: USER_OUTPUT"]
    _check_equal(CopiedTwice, torch.randn(3))
