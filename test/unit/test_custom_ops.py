"""Custom operators: custom_op with and without a fake kernel, data-dependent
output sizes, mutation, the lower-level define(), and the IR round trip."""

from __future__ import annotations

import numpy as np
import pytest

import texport as torch
from texport.dialects.context import parse_module, print_module
from texport.dialects.meta import TensorMeta

# Every test here registers ops: the registries are restored after each.
pytestmark = pytest.mark.usefixtures("restore_registries")


@pytest.fixture(scope="module")
def numpy_sin(restore_registries_after_module: None) -> torch.library.CustomOpDef:
    @torch.library.custom_op("testlib::numpy_sin", mutates_args=())
    def numpy_sin(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.sin(x.numpy()))

    return numpy_sin


class UsesSin(torch.nn.Module):
    def __init__(self, op: torch.library.CustomOpDef) -> None:
        super().__init__()
        self.op = op

    def forward(self, x):
        return self.op(x) + 1


def test_schema_is_inferred_and_the_op_runs_eagerly(numpy_sin: torch.library.CustomOpDef) -> None:
    assert str(numpy_sin._opoverload._schema) == "testlib::numpy_sin(Tensor x) -> Tensor"
    assert torch.ops.testlib.numpy_sin.default is numpy_sin._opoverload
    x = torch.tensor([0.0, np.pi / 2])
    np.testing.assert_allclose(numpy_sin(x).numpy(), [0.0, 1.0], atol=1e-7)


def test_missing_fake_kernel_names_the_op_and_the_fix() -> None:
    @torch.library.custom_op("testlib::no_fake", mutates_args=())
    def no_fake(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    class M(torch.nn.Module):
        def forward(self, x):
            return no_fake(x)

    with pytest.raises(RuntimeError, match=r"There was no fake impl registered for "
                       r"<CustomOpDef\(testlib::no_fake\)>.*Please use `no_fake.register_fake`"):
        torch.export.export(M(), (torch.ones(2),))


def test_fake_kernel_export_run_and_round_trip(numpy_sin: torch.library.CustomOpDef) -> None:
    @numpy_sin.register_fake
    def _(x):
        return torch.empty_like(x)

    x = torch.randn(3)
    ep = torch.export.export(UsesSin(numpy_sin), (x,))
    text = ep.mlir()
    assert "%numpy_sin = training.testlib.numpy_sin(%x) : !tx.tensor<[3], f32>" in text
    assert "torch.ops.testlib.numpy_sin.default(x)" in str(ep)
    np.testing.assert_array_equal(ep.module()(x).numpy(), UsesSin(numpy_sin)(x).numpy())
    assert print_module(parse_module(text)) == text
    dynamic = torch.export.export(UsesSin(numpy_sin), (x,), dynamic_shapes={"x": (torch.export.Dim.AUTO,)})
    assert "!tx.tensor<[s77], f32>" in dynamic.mlir()


def test_data_dependent_output_size() -> None:
    @torch.library.custom_op("testlib::nonzero_rows", mutates_args=())
    def nonzero_rows(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.argwhere(x.numpy() != 0)[:, :1].astype(np.int64))

    @nonzero_rows.register_fake
    def _(x):
        n = torch.library.get_ctx().new_dynamic_size()
        return x.new_empty(n, 1, dtype=torch.int64)

    class M(torch.nn.Module):
        def forward(self, x):
            return nonzero_rows(x)

    ep = torch.export.export(M(), (torch.tensor([[1.0, 0.0], [0.0, 2.0]]),))
    assert "!tx.tensor<[u0, 1], i64>" in ep.mlir()
    assert repr(ep.range_constraints) == "{u0: VR[0, int_oo]}"
    assert ep.module()(torch.tensor([[1.0, 0.0], [3.0, 3.0]])).tolist() == [[0], [1], [1]]


def test_mutating_custom_op_on_a_buffer() -> None:
    @torch.library.custom_op("testlib::add_one_", mutates_args=("x",))
    def add_one_(x: torch.Tensor) -> None:
        x.add_(1)

    @add_one_.register_fake
    def _(x):
        return None

    assert str(add_one_._opoverload._schema) == "testlib::add_one_(Tensor(a!) x) -> ()"

    class B(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("buf", torch.zeros(3))

        def forward(self, x):
            add_one_(self.buf)
            return x + self.buf

    ep = torch.export.export(B(), (torch.ones(3),))
    assert "training.testlib.add_one_(%b_buf)" in ep.mlir()
    module = ep.module()
    assert module(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert module(torch.ones(3)).tolist() == [3.0, 3.0, 3.0]  # the buffer keeps its update


def test_lower_level_define() -> None:
    def scale_rule(x: TensorMeta, s: float) -> TensorMeta:
        return x

    scale = torch.library.define(
        "testlib::scale(Tensor x, float s) -> Tensor", shape_rule=scale_rule,
        kernel=lambda x, s: (x * s).astype(x.dtype),
        decomposition=lambda x, s: x * s,
    )

    class M(torch.nn.Module):
        def forward(self, x):
            return scale(x, 3.0)

    x = torch.ones(2)
    assert scale(x, 3.0).tolist() == [3.0, 3.0]
    ep = torch.export.export(M(), (x,))
    assert "training.testlib.scale(%x, 3.0)" in ep.mlir()
    assert ep.module()(x).tolist() == [3.0, 3.0]
    assert "aten.mul" not in ep.mlir()
    assert torch.library.custom_decompositions()["testlib.scale.default"](x, 2.0).tolist() == [2.0, 2.0]


def test_custom_ops_through_the_levels() -> None:
    @torch.library.custom_op("testlib::bump_", mutates_args=("x",))
    def bump_(x: torch.Tensor) -> None:
        x.add_(1)

    @bump_.register_fake
    def _(x):
        return None

    @torch.library.custom_op("testlib::double", mutates_args=())
    def double(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    @double.register_fake
    def _(x):
        return torch.empty_like(x)

    @double.register_decomposition
    def _(x):
        return x + x

    class B(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("buf", torch.zeros(3))

        def forward(self, x):
            bump_(self.buf)
            return double(x + self.buf)

    ep = torch.export.export(B(), (torch.ones(3),))
    functional = ep.run_decompositions({})
    assert "functional.testlib.bump_.auto_functionalized(%b_buf)" in functional.mlir()
    assert "functional.testlib.double(" in functional.mlir()  # kept: not decomposed at this level
    assert functional.graph_signature.buffers_to_mutate == {"getitem": "buf"}
    core = ep.run_decompositions()
    assert "testlib.double" not in core.mlir() and "core.add.Tensor" in core.mlir()
    for program in (ep, functional, core):
        module = program.module()
        assert module(torch.ones(3)).tolist() == [4.0, 4.0, 4.0]
        assert module(torch.ones(3)).tolist() == [6.0, 6.0, 6.0]  # the buffer update persists
