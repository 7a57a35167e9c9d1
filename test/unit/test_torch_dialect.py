"""Core IR as torch-mlir's ``torch`` dialect (texport/lowering/torch_dialect.py).

Golden text for small programs (permute/addmm/view with a dynamic dim, a multi-result op,
list ops), the element types and enum codes torch-mlir uses, the located errors; then,
with IREE installed, every zoo model and programs covering the corpus's core ops compiled
by IREE's torch input pipeline for the host CPU and run on the same inputs as texport's
interpreter (``ep.module()``): every output, buffer updates included, within rtol 1e-4,
atol 1e-5 (IREE reorders float sums; most differences are below 3e-6)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import texport as torch
import texport.nn.functional as F
from texport.dialects.dtypes import DType
from texport.dialects.registry import OPS
from texport.dialects.symbolic import parse_dim
from texport.dialects.tx import TensorType, symint
from texport.examples.models import ZOO
from texport.export.graph_signature import InputKind, OutputKind
from texport.lowering.torch_dialect import (
    TorchDialectError,
    emit_torch_dialect,
    float_literal,
    has_torch_mlir_form,
    torch_type,
)

RTOL, ATOL = 1e-4, 1e-5
# IREE demotes f64 to f32 by default, and an f64 result then no longer fits the buffer its
# signature promises (a 3x4 f64 output: "buffer view byte length 96 exceeds ... 48")
IREE_FLAGS = ["--iree-input-demote-f64-to-f32=false"]


class Fn(torch.nn.Module):
    """A module whose forward is ``fn``."""

    def __init__(self, fn) -> None:  # noqa: ANN001
        super().__init__()
        self.fn = fn

    def forward(self, *args):  # noqa: ANN002, ANN201
        return self.fn(*args)


def _core(model, args, dynamic_shapes=None):  # noqa: ANN001, ANN202
    return torch.export.export(model, args, dynamic_shapes=dynamic_shapes).run_decompositions()


def _emit(ep) -> str:  # noqa: ANN001
    return emit_torch_dialect(ep.graph_module.module)


# --------------------------------------------------------------------------
# Golden text
# --------------------------------------------------------------------------


class LinearView(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l = torch.nn.Linear(4, 4)

    def forward(self, x):  # noqa: ANN001, ANN201
        return self.l(x).view(2 * x.shape[0], 2)


LINEAR_VIEW = """\
module {
  func.func @forward(%arg0: !torch.vtensor<[4,4],f32>, %arg1: !torch.vtensor<[4],f32>, %arg2: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,2],f32> {
    %int1 = torch.constant.int 1
    %int0 = torch.constant.int 0
    %0 = torch.prim.ListConstruct %int1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
    %1 = torch.aten.permute %arg0, %0 : !torch.vtensor<[4,4],f32>, !torch.list<int> -> !torch.vtensor<[4,4],f32>
    %int1_0 = torch.constant.int 1
    %int1_1 = torch.constant.int 1
    %2 = torch.aten.addmm %arg1, %arg2, %1, %int1_0, %int1_1 : !torch.vtensor<[4],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[4,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,4],f32>
    %int2 = torch.constant.int 2
    %int0_0 = torch.constant.int 0
    %3 = torch.aten.size.int %arg2, %int0_0 : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
    %4 = torch.aten.mul.int %int2, %3 : !torch.int, !torch.int -> !torch.int
    %int2_0 = torch.constant.int 2
    %5 = torch.prim.ListConstruct %4, %int2_0 : (!torch.int, !torch.int) -> !torch.list<int>
    %6 = torch.aten.view %2, %5 : !torch.vtensor<[?,4],f32>, !torch.list<int> -> !torch.vtensor<[?,2],f32>
    return %6 : !torch.vtensor<[?,2],f32>
  }
}
"""  # noqa: E501


def test_permute_addmm_view_with_a_dynamic_dim() -> None:
    torch.manual_seed(0)
    ep = _core(LinearView(), (torch.randn(3, 4),), ({0: torch.export.Dim("batch", max=64)},))
    assert _emit(ep) == LINEAR_VIEW


class LayerNormSplitCat(torch.nn.Module):
    def forward(self, x, w, b):  # noqa: ANN001, ANN201
        out, _, rstd = torch.ops.aten.native_layer_norm(x, [3], w, b, 1e-5)
        first, rest = x.split([1, 2], dim=1)
        return out, rstd, torch.cat([rest, first], 1)


MULTI_RESULT_AND_LISTS = """\
module {
  func.func @forward(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,3],f32>) {
    %int3 = torch.constant.int 3
    %0 = torch.prim.ListConstruct %int3 : (!torch.int) -> !torch.list<int>
    %float = torch.constant.float 1.0e-05
    %1:3 = torch.aten.native_layer_norm %arg0, %0, %arg1, %arg2, %float : !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.float -> !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],f32>
    %int1 = torch.constant.int 1
    %int2 = torch.constant.int 2
    %2 = torch.prim.ListConstruct %int1, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
    %int1_0 = torch.constant.int 1
    %3 = torch.aten.split_with_sizes %arg0, %2, %int1_0 : !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.int -> !torch.list<vtensor>
    %4:2 = torch.prim.ListUnpack %3 : !torch.list<vtensor> -> !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,2],f32>
    %5 = torch.prim.ListConstruct %4#1, %4#0 : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,1],f32>) -> !torch.list<vtensor>
    %int1_1 = torch.constant.int 1
    %6 = torch.aten.cat %5, %int1_1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,3],f32>
    return %1#0, %1#2, %6 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,3],f32>
  }
}
"""  # noqa: E501


def test_multi_result_op_and_list_ops() -> None:
    ep = _core(LayerNormSplitCat(), (torch.randn(2, 3), torch.randn(3), torch.randn(3)))
    assert _emit(ep) == MULTI_RESULT_AND_LISTS


def test_literals_become_torch_constants_of_their_schema_type() -> None:
    def program(x):  # noqa: ANN001, ANN202
        y = torch.full_like(x, True, dtype=torch.bool)  # a bool Scalar: torch-mlir takes a number
        z = x.to(torch.float16).to(torch.float32) * 0.5 + 2  # ScalarType codes; Scalar overloads
        return torch.where(y, z.clamp(min=-1.0), float("-inf")), x.clone(memory_format=torch.contiguous_format)

    text = _emit(_core(Fn(program), (torch.randn(2, 3),)))
    assert "torch.aten.full_like %arg0, %int1, %int11," in text  # True as 1, dtype bool = 11
    assert "torch.constant.int 5" in text and "torch.constant.int 6" in text  # float16, float32
    assert "torch.aten.mul.Scalar" in text and "torch.aten.add.Scalar" in text
    assert "torch.constant.float 0xFFF0000000000000" in text  # -inf, as MLIR reads an f64's bits
    assert "torch.aten.clone %arg0, %int0" in text  # contiguous_format = 0


def test_element_types_and_floats_as_torch_mlir_spells_them() -> None:
    names = {DType.float32: "f32", DType.float64: "f64", DType.float16: "f16", DType.bfloat16: "bf16",
             DType.int64: "si64", DType.int32: "si32", DType.int16: "si16", DType.int8: "si8",
             DType.uint8: "ui8", DType.bool: "i1"}
    batch = parse_dim("s0")
    for dtype, name in names.items():
        assert torch_type(TensorType.get((batch, 3), dtype)) == f"!torch.vtensor<[?,3],{name}>"
    assert torch_type(TensorType.get((), DType.float32)) == "!torch.vtensor<[],f32>"
    assert torch_type(symint(batch)) == "!torch.int"
    assert [float_literal(v) for v in (1e-05, 0.1, 2.0, 1e20, math.inf, math.nan)] == [
        "1.0e-05", "0.1", "2.0", "1.0e+20", "0x7FF0000000000000", "0x7FF8000000000000"]


def test_every_core_op_has_its_torch_mlir_op() -> None:
    """Schema-driven: each core op's torch-mlir name (or its special form) exists, but for
    the few torch-mlir has no op for at all."""
    no_counterpart = {
        "aten.atan2.out", "aten._cdist_forward.default", "aten._fft_c2r.default", "aten._fft_r2c.default",
        "aten._pdist_forward.default", "aten.randperm.default", "aten.sym_is_contiguous.default",
        "aten.sym_storage_offset.default", "aten.sym_stride.int"}
    core = [OPS[key] for key in OPS.keys() if OPS[key].is_core]
    assert len(core) == 193
    missing = {op.key for op in core if not has_torch_mlir_form(op)}
    assert missing == no_counterpart


def test_an_op_without_a_torch_mlir_counterpart_is_a_located_error() -> None:
    ep = _core(Fn(lambda a, b: torch.cdist(a, b)), (torch.randn(3, 2), torch.randn(4, 2)))
    with pytest.raises(TorchDialectError, match=r"'core._cdist_forward' \(%_cdist_forward\).*"
                                                r"torch.aten._cdist_forward.*aten::_cdist_forward\(Tensor x1"):
        _emit(ep)


def test_a_training_program_that_writes_is_refused() -> None:
    class Counter(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("count", torch.zeros(()))

        def forward(self, x):  # noqa: ANN001, ANN201
            self.count.add_(1)
            return x * 2

    training = torch.export.export(Counter(), (torch.randn(2),))
    with pytest.raises(TorchDialectError, match=r"'training.add_.Tensor' .* writes its argument"):
        _emit(training)
    assert "torch.aten.add.Scalar" in _emit(training.run_decompositions())


# --------------------------------------------------------------------------
# Compiled by IREE, against the interpreter
# --------------------------------------------------------------------------


def _flat_inputs(ep, user_args) -> list[np.ndarray]:  # noqa: ANN001
    """The core func's arguments: parameters, buffers and constants as the signature lists them
    (values from ``ep.state_dict`` / ``ep.constants``), then the user inputs."""
    user = iter(user_args)
    flat = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            flat.append(ep.state_dict.get(spec.target, ep.constants.get(spec.target)).numpy())
        elif spec.kind is InputKind.CONSTANT_TENSOR:
            flat.append(ep.constants[spec.target].numpy())
        else:
            flat.append(next(user).numpy())
    return flat


def _compile(text: str):  # noqa: ANN202
    """The program compiled by IREE for the host CPU, loaded: its ``forward``."""
    compiler = pytest.importorskip("iree.compiler")
    runtime = pytest.importorskip("iree.runtime")
    vmfb = compiler.compile_str(text, target_backends=["llvm-cpu"], input_type="torch",
                                extra_args=["--iree-llvmcpu-target-cpu=host", *IREE_FLAGS])
    context = runtime.SystemContext(config=runtime.Config("local-task"))
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, vmfb))
    return context.modules.module.forward


def _outputs(forward, inputs: list[np.ndarray]) -> list[np.ndarray]:  # noqa: ANN001
    outputs = forward(*inputs)
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    return [np.asarray(o.to_host()) if hasattr(o, "to_host") else np.asarray(o) for o in outputs]


def _expected_outputs(ep, user_args) -> list[np.ndarray]:  # noqa: ANN001
    """What the core func returns, from the interpreter: user outputs from ``ep.module()``,
    each buffer's new value from the module's buffers after the call."""
    module = ep.module()
    results = module(*user_args)
    results = iter(results if isinstance(results, (list, tuple)) else [results])
    buffers = dict(module.named_buffers())
    expected = []
    for spec in ep.graph_signature.output_specs:
        if spec.kind is OutputKind.BUFFER_MUTATION:
            expected.append(buffers[spec.target].numpy())
        else:
            expected.append(next(results).numpy())
    return expected


def _max_difference(ep, *calls) -> float:  # noqa: ANN001, ANN002
    """Compile ``ep`` through the torch dialect once, run it on each call's user inputs, compare
    every output with the interpreter's; the largest difference."""
    forward = _compile(_emit(ep))
    worst = 0.0
    for user_args in calls:
        got = _outputs(forward, _flat_inputs(ep, user_args))
        want = _expected_outputs(ep, user_args)
        assert len(got) == len(want)
        for index, (a, b) in enumerate(zip(got, want)):
            assert a.shape == b.shape, f"output {index}: {a.shape} != {b.shape}"
            np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL, err_msg=f"output {index}")
            finite = np.isfinite(b)
            if finite.any():
                worst = max(worst, float(np.max(np.abs(a[finite].astype(np.float64) - b[finite]))))
    return worst


@pytest.mark.parametrize("name", list(ZOO))
def test_zoo_model_compiles_and_matches_the_interpreter(name: str) -> None:
    pytest.importorskip("iree.compiler")
    model, args = ZOO[name]()
    _max_difference(_core(model, args), args)


def test_a_scan_of_symbolic_length_runs_at_two_lengths() -> None:
    """LSTMScan with a dynamic number of steps: the loop's trip count and the stacked output's
    leading dim are torch.aten.size.int of xs."""
    pytest.importorskip("iree.compiler")
    model, args = ZOO["LSTMScan"]()
    ep = _core(model, args, ({1: torch.export.Dim("steps", min=2, max=64)},))
    _max_difference(ep, args, (torch.randn(4, 5, 64),))


class ReverseCumulative(torch.nn.Module):
    def forward(self, xs):  # noqa: ANN001, ANN201
        return torch.scan(lambda total, x: (total + x, (total + x) * 2), torch.zeros(3), xs, reverse=True)


def test_a_reverse_scan_reads_and_stacks_from_the_end() -> None:
    pytest.importorskip("iree.compiler")
    xs = torch.randn(5, 3)
    ep = _core(ReverseCumulative(), (xs,))
    assert "torch.aten.sub.int" in _emit(ep)
    _max_difference(ep, (xs,))


class MapAndWhile(torch.nn.Module):
    def forward(self, xs, y, start):  # noqa: ANN001, ANN201
        mapped = torch.control_flow.map(lambda x, y: x * 2 + y, xs, y)
        count, doubled = torch.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2), (start, y))
        return mapped, count, doubled


def test_map_and_while_loop_become_torch_prim_loops() -> None:
    """control.map: a for-like torch.prim.Loop stacking its outputs; control.while_loop: a
    while-like one (its cond region before the loop and after each body), run 3 times and 0 times."""
    rng = np.random.default_rng(0)
    xs, y = (torch.from_numpy(rng.standard_normal(shape, dtype=np.float32)) for shape in ((5, 3), (3,)))
    ep = _core(MapAndWhile(), (xs, y, torch.tensor(0)))
    text = _emit(ep)
    assert text.count("torch.prim.Loop ") == 2 and "torch.prim.Loop %int9223372036854775807, %" in text
    pytest.importorskip("iree.compiler")
    _max_difference(ep, (xs, y, torch.tensor(0)), (xs, y, torch.tensor(7)))



# Programs covering the core ops of the zoo and the parity corpus; each asserts the ops it
# must hold, so the test fails if a decomposition stops producing them.
def _pointwise(x, y, mask):  # noqa: ANN001, ANN202
    a = torch.abs(x).add(1.0).log() + torch.exp(x).sqrt() - torch.rsqrt(y.abs() + 1)
    b = torch.sin(x) * torch.cos(y) / (torch.tanh(x).neg() + 2) + torch.sigmoid(y).pow(2)
    c = F.gelu(x) + F.leaky_relu(y, 0.1) + F.hardtanh(x) + x.clamp(-0.5, 0.5) + torch.remainder(y, 1.5)
    d = torch.where((x > 0) & (y <= 0.5) | (x == y), a, b)
    e = torch.logical_and(x >= 0.1, ~mask).logical_not() | (x < -0.2) | (y != 0.0) | torch.eq(x, y) | torch.le(x, y)
    scalars = torch.ops.aten.add.Scalar(torch.ops.aten.mul.Scalar(x, 3), 1.5)
    return d + c, e.float() + F.relu(x) * 3, scalars


def _reductions(x):  # noqa: ANN001, ANN202
    values, indices = x.max(dim=1)
    top, where = torch.topk(x, 2, dim=-1)
    return (x.sum(1), x.mean(), x.mean(dim=0), x.amax(-1), values, indices, x.var(1), x.cumsum(0),
            F.softmax(x, -1), F.log_softmax(x, 0), (x > 1).any(1), (x > 1).any(dim=(0, 1)), top, where)


def _data_movement(x, idx):  # noqa: ANN001, ANN202
    parts = x.split([1, 3], dim=1)
    y = torch.cat([parts[1], parts[0]], 1).flip(0).repeat(1, 2)
    z = F.pad(x, (1, 1)) + 0
    diag = torch.diagonal(x[:, :3]) + 0
    g = torch.gather(x, 1, idx)
    s = torch.zeros(3, 4).scatter(1, idx, g)
    picked = x[idx[:, 0]]
    put = x.index_put((idx[:, 0],), torch.ones(3, 4))
    sliced = x.clone()
    sliced[:, 1:3] = 5.0
    steps = torch.arange(0, 4, 1).float() * x.select(0, 1)
    full = torch.full((3, 4), 2.0) + torch.full_like(x, 1.0) + torch.scalar_tensor(3.0)
    viewed = x.unsqueeze(0).expand(2, 3, 4).permute(2, 1, 0)
    return y, z, diag, s, picked, put, sliced, steps, full, viewed, x.to(torch.float64), x.t().contiguous()


class Vision(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.frozen_bn = torch.nn.BatchNorm2d(4).eval()
        self.gn = torch.nn.GroupNorm(2, 4)
        self.embedding = torch.nn.Embedding(10, 4)
        self.bag = torch.nn.EmbeddingBag(10, 4, mode="sum")  # torch-mlir lowers mode sum only

    def forward(self, x, tokens, offsets):  # noqa: ANN001, ANN201
        y = self.frozen_bn(self.bn(self.conv(x)))
        pooled = F.max_pool2d(y, 2) + F.avg_pool2d(y, 2)
        up = F.interpolate(pooled, scale_factor=2.0, mode="nearest")
        smooth = F.interpolate(pooled, scale_factor=2.0, mode="bilinear", align_corners=False)
        z = self.gn(up + smooth) + self.embedding(tokens).sum() + self.bag(tokens, offsets).sum()
        flat = z.flatten(1)
        return torch.bmm(flat.unsqueeze(0), flat.t().unsqueeze(0)) + torch.mm(flat, flat.t())


_CORE_OPS = {
    "pointwise": ("abs add.Tensor add.Scalar log exp sqrt rsqrt sub.Tensor sin cos mul.Tensor div.Tensor tanh neg "
                  "sigmoid pow.Tensor_Scalar gelu leaky_relu hardtanh clamp remainder.Scalar where.self gt.Scalar "
                  "le.Scalar eq.Tensor bitwise_and.Tensor bitwise_not logical_and logical_not ge.Scalar lt.Scalar "
                  "ne.Scalar relu mul.Scalar _to_copy le.Tensor"),
    "reductions": "sum.dim_IntList mean mean.dim amax max.dim var.correction cumsum _softmax _log_softmax "
                  "any.dim any.dims topk gt.Scalar",
    "data_movement": ("split_with_sizes cat flip repeat constant_pad_nd diagonal gather scatter.src index.Tensor "
                      "index_put clone slice_scatter slice.Tensor arange.start_step select.int full full_like "
                      "scalar_tensor unsqueeze expand permute"),
    "vision": ("convolution _native_batch_norm_legit_functional _native_batch_norm_legit_no_training "
               "max_pool2d_with_indices avg_pool2d upsample_nearest2d.vec upsample_bilinear2d.vec "
               "native_group_norm embedding _embedding_bag bmm mm view"),
}


def _program(name: str):  # noqa: ANN202
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((3, 4), dtype=np.float32))
    if name == "pointwise":
        y = torch.from_numpy(rng.standard_normal((3, 4), dtype=np.float32))
        return Fn(_pointwise), (x, y, torch.from_numpy(rng.standard_normal((3, 4)) > 0))
    if name == "reductions":
        return Fn(_reductions), (x,)
    if name == "data_movement":
        return Fn(_data_movement), (x, torch.from_numpy(np.array([[0, 3], [1, 1], [2, 0]], dtype=np.int64)))
    torch.manual_seed(0)
    images = torch.from_numpy(rng.standard_normal((2, 3, 8, 8), dtype=np.float32))
    tokens, offsets = (torch.from_numpy(np.array(values, dtype=np.int64)) for values in ([1, 5, 7, 2], [0, 1]))
    return Vision(), (images, tokens, offsets)


@pytest.mark.parametrize("name", list(_CORE_OPS))
def test_core_ops_compile_and_match_the_interpreter(name: str) -> None:
    model, args = _program(name)
    ep = _core(model, args)
    held = {op.name.split(".", 1)[1] for op in ep.graph.walk() if op.name.startswith(("core.", "functional."))}
    assert set(_CORE_OPS[name].split()) <= held, sorted(set(_CORE_OPS[name].split()) - held)
    pytest.importorskip("iree.compiler")
    _max_difference(ep, args)


class ShapeBranch(torch.nn.Module):
    def forward(self, x):  # noqa: ANN001, ANN201
        return torch.cond(x.shape[0] > 4, lambda x: x + 1, lambda x: x - 1, (x,))


def test_a_cond_on_a_symbolic_size_runs_both_branches() -> None:
    """tx.cmp → torch.aten.gt.int, a !torch.bool predicate of torch.prim.If."""
    ep = _core(ShapeBranch(), (torch.ones(6, 2),), {"x": (torch.export.Dim.AUTO, None)})
    text = _emit(ep)
    assert "torch.aten.gt.int" in text and "torch.prim.If" in text
    pytest.importorskip("iree.compiler")
    _max_difference(ep, (torch.randn(3, 2),), (torch.randn(6, 2),))


class PaddedAttention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x, mask):  # noqa: ANN001, ANN201
        return self.attention(x, x, x, key_padding_mask=mask)


def test_dynamic_dims_compile_and_match_the_interpreter() -> None:
    """Views between shapes of several symbolic dims (torch-mlir pairs dynamic dims up wrongly
    unless the emitter goes through the flat tensor)."""
    pytest.importorskip("iree.compiler")
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((3, 5, 16), dtype=np.float32))
    mask = torch.from_numpy(np.arange(5)[None, :] < np.array([[0], [2], [3]]))
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("seq")
    ep = _core(PaddedAttention(), (x, mask), {"x": {0: batch, 1: seq}, "mask": {0: batch, 1: seq}})
    assert "!torch.vtensor<[?,?,16],f32>" in _emit(ep)
    _max_difference(ep, (x, mask))
