"""Graphs as torch 2.13 records them, written out by hand from torch's own
programs: what the training IR keeps of CompositeImplicitAutograd ops and what
functionalization decomposes, slice assignment with a Python number, later
reads of a tensor written in place, and placeholder names."""

from __future__ import annotations

import numpy as np

import texport as torch


def _calls(ep) -> list[str]:  # noqa: ANN001
    """``name = target(args)`` of each op, as print_readable shows it."""
    lines = ep.graph_module.print_readable(print_output=False).splitlines()
    calls = [line.split("=")[0].split(":")[0].strip() + " = " + line.split("torch.ops.aten.")[1].split(";")[0]
             for line in lines if "torch.ops.aten." in line]
    return [call.replace(".default", "") for call in calls]


def _specs(ep) -> list[str]:  # noqa: ANN001
    return [str(s) for s in (*ep.graph_signature.input_specs, *ep.graph_signature.output_specs)]


class Views(torch.nn.Module):
    def forward(self, x, y):  # noqa: ANN001, ANN201
        a = x * 1
        return (a.reshape(2, 8), a.t().reshape(16), a.flatten(), a.view_as(y), a.expand_as(a),
                a.chunk(2)[1], a.swapaxes(0, 1), a.contiguous(), a.tensor_split(3, 1)[1])


def test_training_keeps_implicit_views_and_functional_decomposes_them() -> None:
    ep = torch.export.export(Views(), (torch.randn(4, 4), torch.randn(4, 4)))
    assert _calls(ep) == [
        "mul = mul.Tensor(x, 1)",
        "reshape = reshape(mul, [2, 8])",
        "t = t(mul)",
        "reshape_1 = reshape(t, [16])",
        "flatten = flatten.using_ints(mul)",
        "view_as = view_as(mul, y)",
        "expand_as = expand_as(mul, mul)",
        "chunk = chunk(mul, 2)",
        "swapaxes = swapaxes(mul, 0, 1)",
        "tensor_split = tensor_split.sections(mul, 3, 1)",
    ]
    # torch: reshape is a view when the strides allow, else clone + _unsafe_view;
    # chunk -> split.Tensor, swapaxes -> transpose, tensor_split -> slices (of
    # which only the used one is left). contiguous of a contiguous tensor is
    # no op even in the training IR.
    assert _calls(ep.run_decompositions({})) == [
        "mul = mul.Tensor(x, 1)",
        "view = view(mul, [2, 8])",
        "t = t(mul)",
        "clone = clone(t, memory_format = 'contiguous_format')",
        "_unsafe_view = _unsafe_view(clone, [16])",
        "view_1 = view(mul, [16])",
        "view_2 = view(mul, [4, 4])",
        "expand = expand(mul, [4, 4])",
        "split = split.Tensor(mul, 2)",
        "transpose = transpose.int(mul, 0, 1)",
        "slice_2 = slice.Tensor(mul, 1, 2, 3)",
    ]


class SliceAssign(torch.nn.Module):
    def forward(self, x, idx):  # noqa: ANN001, ANN201
        y = x * 1
        y[idx] = 1.5
        y[:, 0] = 0
        y[1:2] = x[0]
        return y


def test_slice_assignment_of_a_number_lifts_a_constant() -> None:
    """torch's __setitem__: the number becomes a lifted 0-d tensor of y's dtype,
    copied fresh; index_put_ for a tensor index, fill_ from a 0-d source, else
    copy_ from the source viewed without leading 1s and expanded."""
    args = (torch.randn(3, 4), torch.tensor([0, 2]))
    ep = torch.export.export(SliceAssign(), args)
    assert _specs(ep)[:2] == ["c_lifted_tensor_0: CONSTANT_TENSOR target='lifted_tensor_0'",
                              "c_lifted_tensor_1: CONSTANT_TENSOR target='lifted_tensor_1'"]
    assert _calls(ep) == [
        "mul = mul.Tensor(x, 1)",
        "lift_fresh_copy = lift_fresh_copy(c_lifted_tensor_0)",
        "index_put_ = index_put_(mul, [idx], lift_fresh_copy)",
        "lift_fresh_copy_1 = lift_fresh_copy(c_lifted_tensor_1)",
        "select = select.int(index_put_, 1, 0)",
        "fill_ = fill_.Tensor(select, lift_fresh_copy_1)",
        "select_1 = select.int(x, 0, 0)",
        "slice_1 = slice.Tensor(index_put_, 0, 1, 2)",
        "view = view(select_1, [4])",
        "expand = expand(view, [1, 4])",
        "copy_ = copy_(slice_1, expand)",
    ]
    # (torch applies a write to the base when an alias is next read, so its slice
    # comes after view and expand: the same ops, in another order)
    assert sorted(c.split(" = ")[1].split("(")[0] for c in _calls(ep.run_decompositions({}))) == sorted([
        "mul.Tensor", "clone", "index_put", "clone", "select.int", "fill.Tensor", "select_scatter",
        "select.int", "view", "expand", "slice.Tensor", "copy", "slice_scatter"])
    core = [c.split(" = ")[1].split("(")[0] for c in _calls(ep.run_decompositions())]
    assert "fill.Tensor" not in core and "select_scatter" not in core and "copy" in core
    want = SliceAssign()(*[torch.tensor(a.numpy().copy()) for a in args])
    for lowered in (ep, ep.run_decompositions({}), ep.run_decompositions()):
        np.testing.assert_array_equal(lowered.module()(*args).numpy(), want.numpy())


class WrittenThenRead(torch.nn.Module):
    def forward(self, x, input):  # noqa: ANN001, ANN201, A002
        y = x * 1
        y.add_(1)
        return y * 2 + input


def test_reads_after_an_in_place_write_name_the_write_and_input_keeps_its_name() -> None:
    ep = torch.export.export(WrittenThenRead(), (torch.randn(3), torch.randn(3)))
    assert _specs(ep)[:2] == ["x: USER_INPUT", "input: USER_INPUT"]
    assert _calls(ep) == ["mul = mul.Tensor(x, 1)", "add_ = add_.Tensor(mul, 1)",
                          "mul_1 = mul.Tensor(add_, 2)", "add = add.Tensor(mul_1, input)"]


def test_attention_is_laid_out_as_its_query_when_torch_takes_flash_attention() -> None:
    """torch's CPU flash attention writes into empty_like(query) (strides seen in
    torch 2.13); a query whose last dim is not unit-strided takes the math
    path, whose result is row-major."""
    sdpa = torch.nn.functional.scaled_dot_product_attention
    keys = torch.randn(6, 2, 2, 8).permute(1, 2, 0, 3)
    query = torch.randn(4, 2, 2, 8).permute(1, 2, 0, 3)
    assert sdpa(query, keys, keys).stride() == (16, 8, 32, 1)
    transposed = torch.randn(2, 2, 8, 4).transpose(2, 3)
    assert sdpa(transposed, keys, keys).stride() == (64, 32, 8, 1)
    grouped_query, grouped_keys = torch.randn(2, 5, 4, 8).transpose(1, 2), torch.randn(2, 5, 2, 8).transpose(1, 2)
    assert sdpa(grouped_query, grouped_keys, grouped_keys, enable_gqa=True).stride() == (160, 8, 32, 1)
    # so the attention heads of nn.MultiheadAttention fold back with a view, no copy
    ep = torch.export.export(Attention(), (torch.randn(4, 2, 16), torch.randn(6, 2, 12), torch.randn(6, 2, 8)))
    functional = _calls(ep.run_decompositions({}))
    assert any("scaled_dot_product_attention" in call for call in functional)
    assert not any("_unsafe_view" in call or "clone" in call for call in functional)


class Attention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(16, 2, kdim=12, vdim=8)

    def forward(self, query, key, value):  # noqa: ANN001, ANN201
        return self.attn(query, key, value, need_weights=False)[0]


class TypeAs(torch.nn.Module):
    def forward(self, x, y, z):  # noqa: ANN001, ANN201
        return x.type_as(y) + 1, x.type_as(z)


def test_type_as_is_kept_until_core_where_the_same_dtype_is_no_op() -> None:
    ep = torch.export.export(TypeAs(), (torch.randn(3), torch.randn(3), torch.randn(3).double()))
    kept = ["type_as = type_as(x, y)", "add = add.Tensor(type_as, 1)", "type_as_1 = type_as(x, z)"]
    assert _calls(ep) == kept
    assert _calls(ep.run_decompositions({})) == kept
    assert _calls(ep.run_decompositions()) == ["add = add.Tensor(x, 1)",
                                               "_to_copy = _to_copy(x, dtype = torch.float64)"]


class SizeAssign(torch.nn.Module):
    def forward(self, x):  # noqa: ANN001, ANN201
        y = x * 1
        y[:, 0] = x.shape[0]
        return y


def test_slice_assignment_of_a_symbolic_size_makes_a_scalar_tensor() -> None:
    """A SymInt is no constant: torch makes it a tensor in the program (scalar_tensor)."""
    ep = torch.export.export(SizeAssign(), (torch.randn(3, 4),), dynamic_shapes={"x": {0: torch.export.Dim("b")}})
    calls = _calls(ep)
    assert "scalar_tensor = scalar_tensor(sym_size_int, dtype = torch.float32)" in calls
    assert calls[-1] == "fill_ = fill_.Tensor(select, scalar_tensor)"
    out = ep.module()(torch.randn(5, 4))
    np.testing.assert_array_equal(out.numpy()[:, 0], np.full(5, 5.0, dtype=np.float32))


class Repeat(torch.nn.Module):
    def forward(self, x):  # noqa: ANN001, ANN201
        return x.repeat_interleave(2), x.view(2, 3).repeat_interleave(2)


def test_repeat_interleave_without_dim_flattens_as_aten() -> None:
    """ATen flattens the input first, and flattening a 1-D tensor is no op."""
    ep = torch.export.export(Repeat(), (torch.randn(6),))
    assert [call.split(" = ")[0] + " = " + call.split(" = ")[1].split("(")[0] for call in _calls(ep.run_decompositions())] == [
        "unsqueeze = unsqueeze", "expand = expand", "clone = clone", "view = view",
        "view_1 = view", "view_2 = view", "unsqueeze_1 = unsqueeze", "expand_1 = expand", "clone_1 = clone",
        "view_3 = view"]


class FreshConstants(torch.nn.Module):
    def forward(self, x):  # noqa: ANN001, ANN201
        y = x * torch.tensor([1.0, 2.0, 3.0]) + torch.tensor(2.0)
        y[:, 0] = 0
        return y


def test_a_tensor_made_in_the_forward_is_a_fresh_copy_of_a_lifted_constant() -> None:
    """torch.tensor(...) in the forward: lift_fresh_copy + detach_ of a lifted
    constant, one clone after functionalization; a number assigned into a
    slice is lift_fresh_copy alone (torch's __setitem__)."""
    ep = torch.export.export(FreshConstants(), (torch.randn(2, 3),))
    assert _calls(ep) == [
        "lift_fresh_copy = lift_fresh_copy(c_lifted_tensor_0)",
        "detach_ = detach_(lift_fresh_copy)",
        "mul = mul.Tensor(x, detach_)",
        "lift_fresh_copy_1 = lift_fresh_copy(c_lifted_tensor_1)",
        "detach__1 = detach_(lift_fresh_copy_1)",
        "add = add.Tensor(mul, detach__1)",
        "lift_fresh_copy_2 = lift_fresh_copy(c_lifted_tensor_2)",
        "select = select.int(add, 1, 0)",
        "fill_ = fill_.Tensor(select, lift_fresh_copy_2)",
    ]
    core = ep.run_decompositions()
    assert _calls(core)[:7] == [
        "clone = clone(c_lifted_tensor_0)",
        "mul = mul.Tensor(x, clone)",
        "clone_1 = clone(c_lifted_tensor_1)",
        "add = add.Tensor(mul, clone_1)",
        "clone_2 = clone(c_lifted_tensor_2)",
        "select = select.int(add, 1, 0)",
        "copy = copy(select, clone_2)",
    ]
    x = torch.randn(2, 3)
    want = x.numpy() * np.array([1.0, 2.0, 3.0], dtype=np.float32) + 2.0
    want[:, 0] = 0
    for program in (ep, core):
        np.testing.assert_allclose(program.module()(x).numpy(), want, rtol=1e-6)
