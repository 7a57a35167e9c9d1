"""ep.run_decompositions on the seed's conv + batch norm (behaviour reference
§1, §2): torch's op sequence and signature at every level, in train and eval
mode; custom decomposition tables."""

from __future__ import annotations

import numpy as np
import pytest

import texport as torch
from texport.dialects.registry import DuplicateRegistrationError, SealedRegistryError
from texport.library import register_decomposition
from texport.lowering import DecompTable, default_decompositions
from texport.lowering import register_decomposition as lowering_register_decomposition
from texport.lowering.errors import LegalityError

aten = torch.ops.aten


class M(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 3, 1, 1)
        self.bn = torch.nn.BatchNorm2d(3)

    def forward(self, x):  # noqa: ANN001, ANN201
        x = self.conv(x)
        x = self.bn(x)
        return (x,)


def _export(train: bool = True) -> torch.export.ExportedProgram:
    torch.manual_seed(0)
    model = M()
    model.train(train)
    return torch.export.export(model, (torch.randn(1, 1, 3, 3),))


def _targets(ep: torch.export.ExportedProgram) -> list[str]:
    """The call_function targets of the readable listing, in order."""
    return [line.split("torch.ops.aten.")[1].split("(")[0] for line in ep.graph_module.code.splitlines()
            if "torch.ops.aten." in line]


def _outputs(ep: torch.export.ExportedProgram) -> list[str]:
    return [str(spec) for spec in ep.graph_signature.output_specs]


TRAIN_OUTPUTS = ["getitem_3: BUFFER_MUTATION target='bn.running_mean'",
                 "getitem_4: BUFFER_MUTATION target='bn.running_var'",
                 "add: BUFFER_MUTATION target='bn.num_batches_tracked'", "getitem: USER_OUTPUT"]


def test_inference_ir_train_mode() -> None:
    ep = _export().run_decompositions(decomp_table={})
    assert _targets(ep) == ["conv2d.default", "add.Tensor", "_native_batch_norm_legit_functional.default"]
    assert _outputs(ep) == TRAIN_OUTPUTS
    assert ep.graph_signature.buffers_to_mutate == {
        "getitem_3": "bn.running_mean", "getitem_4": "bn.running_var", "add": "bn.num_batches_tracked"}
    code = ep.graph_module.code
    assert "getitem_3: \"f32[3]\" = _native_batch_norm_legit_functional[3]" in code
    assert "return (getitem_3, getitem_4, add, getitem)" in code


def test_core_ir_train_mode() -> None:
    ep = _export().run_decompositions(decomp_table=None)
    assert _targets(ep) == ["convolution.default", "add.Tensor", "_native_batch_norm_legit_functional.default"]
    assert _outputs(ep) == TRAIN_OUTPUTS
    assert ("convolution: \"f32[1, 3, 3, 3]\" = torch.ops.aten.convolution.default(x, p_conv_weight, p_conv_bias, "
            "[1, 1], [0, 0], [1, 1], False, [0, 0], 1)") in ep.graph_module.code
    assert _targets(_export().run_decompositions()) == _targets(ep)


def test_eval_mode_levels() -> None:
    ep = _export(train=False)
    assert _targets(ep) == ["conv2d.default", "batch_norm.default"]
    inference = ep.run_decompositions({})
    assert _targets(inference) == ["conv2d.default", "_native_batch_norm_legit_no_training.default"]
    core = ep.run_decompositions()
    assert _targets(core) == ["convolution.default", "_native_batch_norm_legit_no_training.default"]
    assert _outputs(core) == ["getitem: USER_OUTPUT"]
    assert "_native_batch_norm_legit_no_training.default(convolution, p_bn_weight, p_bn_bias, b_bn_running_mean, " \
           "b_bn_running_var, 0.1, 1e-05)" in core.graph_module.code


def test_input_specs_are_kept() -> None:
    ep = _export()
    for lowered in (ep.run_decompositions({}), ep.run_decompositions()):
        assert [str(s) for s in lowered.graph_signature.input_specs] == [str(s) for s in
                                                                          ep.graph_signature.input_specs]
        assert lowered.state_dict is ep.state_dict and lowered.constants is ep.constants


def test_training_ir_is_not_functionalized() -> None:
    ep = _export()
    assert _targets(ep) == ["conv2d.default", "add_.Tensor", "batch_norm.default"]
    assert _outputs(ep) == ["batch_norm: USER_OUTPUT"]
    assert ep.graph_signature.buffers_to_mutate == {}


# ---- §2: custom tables -----------------------------------------------------------


def my_awesome_custom_conv2d_function(x, weight, bias, stride=[1, 1], padding=[0, 0],  # noqa: ANN001, ANN201, B006
                                      dilation=[1, 1], groups=1):  # noqa: B006
    return 2 * torch.ops.aten.convolution(x, weight, bias, stride, padding, dilation, False, [0, 0], groups)


OVERRIDDEN = ["convolution.default", "mul.Tensor", "add.Tensor", "_native_batch_norm_legit_functional.default"]


def test_default_table_is_editable() -> None:
    table = default_decompositions()
    assert isinstance(table, DecompTable)
    assert aten.conv2d.default in table and aten.linear.default in table and aten.t.default in table
    assert aten.batch_norm.default in table and aten.addmm.default not in table
    size = len(table)
    del table[aten.conv2d.default]
    assert len(table) == size - 1 and aten.conv2d.default not in table
    assert aten.conv2d.default in default_decompositions(), "each call gives a fresh copy"
    with pytest.raises(TypeError, match="overload"):
        table[aten.conv2d] = my_awesome_custom_conv2d_function


def test_deleting_an_entry_keeps_the_op() -> None:
    table = default_decompositions()
    del table[aten.conv2d.default]
    ep = _export().run_decompositions(table)
    assert _targets(ep) == ["conv2d.default", "add.Tensor", "_native_batch_norm_legit_functional.default"]


def test_overriding_an_entry_traces_the_user_function() -> None:
    table = default_decompositions()
    table[aten.conv2d.default] = my_awesome_custom_conv2d_function
    ep = _export().run_decompositions(table)
    assert _targets(ep) == OVERRIDDEN
    assert 'mul: "f32[1, 3, 3, 3]" = torch.ops.aten.mul.Tensor(convolution, 2)' in ep.graph_module.code
    assert "_native_batch_norm_legit_functional.default(mul, " in ep.graph_module.code
    x = torch.randn(1, 1, 3, 3)
    reference = _export().module()  # 2 * conv(x) is conv(x) with weight and bias doubled
    state = reference.state_dict()
    reference.load_state_dict(state | {"conv.weight": state["conv.weight"] * 2,
                                       "conv.bias": state["conv.bias"] * 2})
    overridden = ep.module()
    np.testing.assert_allclose(overridden(x)[0].numpy(), reference(x)[0].numpy(), rtol=1e-5, atol=1e-6)
    # batch norm hides the scale in its output; the running mean shows it
    np.testing.assert_allclose(overridden.state_dict()["bn.running_mean"].numpy(),
                               reference.state_dict()["bn.running_mean"].numpy(), rtol=1e-5, atol=1e-7)


def test_a_partial_table_gives_the_same_graph() -> None:
    ep = _export().run_decompositions({aten.conv2d.default: my_awesome_custom_conv2d_function})
    assert _targets(ep) == OVERRIDDEN
    assert _outputs(ep) == TRAIN_OUTPUTS


def test_override_calling_its_own_op_terminates() -> None:
    def doubled(x, weight, bias, stride, padding, dilation, groups):  # noqa: ANN001, ANN202
        return aten.conv2d.default(x, weight, bias, stride, padding, dilation, groups) * 2

    ep = _export().run_decompositions({aten.conv2d.default: doubled})
    assert _targets(ep)[:2] == ["conv2d.default", "mul.Tensor"]


def test_numbers_of_every_table() -> None:
    torch.manual_seed(1)
    x = torch.randn(1, 1, 3, 3)
    want = _export().module()(x)[0].numpy()
    table = default_decompositions()
    del table[aten.conv2d.default]
    for decomp in ({}, None, table):
        np.testing.assert_allclose(_export().run_decompositions(decomp).module()(x)[0].numpy(), want, rtol=1e-6)
    doubled = _export().run_decompositions({aten.conv2d.default: my_awesome_custom_conv2d_function})
    assert doubled.module()(x)[0].shape == (1, 3, 3, 3)


def test_register_decomposition_rejects_duplicates(restore_registries: None) -> None:
    with pytest.raises(DuplicateRegistrationError, match="duplicate registrations of decomposition"):
        @register_decomposition(aten.conv2d.default)
        def again(*args):  # noqa: ANN002, ANN202
            return args


def test_register_decomposition_adds_to_the_default_table(restore_registries: None) -> None:
    @register_decomposition(aten.view_copy.dtype)
    def reinterpret(self, dtype):  # noqa: ANN001, ANN202
        return aten._to_copy.default(self, dtype=dtype)

    assert default_decompositions()[aten.view_copy.dtype] is reinterpret


def test_registries_are_sealed_after_start_up() -> None:
    with pytest.raises(SealedRegistryError, match=r"decomposition of aten.view_copy.dtype after "
                       r"start-up: .* only through texport.library"):
        @lowering_register_decomposition(aten.view_copy.dtype)
        def reinterpret(self, dtype):  # noqa: ANN001, ANN202
            return self
    assert aten.view_copy.dtype not in default_decompositions()


def test_an_op_without_decomposition_is_a_clear_error() -> None:
    class Unique(torch.nn.Module):
        def forward(self, x):  # noqa: ANN001, ANN201
            return x.view(torch.int32) + 1

    ep = torch.export.export(Unique(), (torch.randn(4),))
    with pytest.raises(LegalityError, match=r"left outside the core level.*functional.view.dtype"):
        ep.run_decompositions()
    kept = ep.run_decompositions(default_decompositions())
    assert "view.dtype" in _targets(kept)[0]
