"""The eager frontend: dispatcher, Tensor semantics, factories, printing."""

from __future__ import annotations

import numpy as np
import pytest

import texport as torch
from texport.tracer.dispatcher import resolve_overload, using_mode
from texport.tracer.handles import OpOverload


class Recorder:
    """A mode that records which overload each call reached (and runs nothing)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def call(self, op: OpOverload, values: list) -> None:
        self.calls.append(str(op))


def recorded(fn) -> list[str]:  # noqa: ANN001
    recorder = Recorder()
    with using_mode(recorder):
        try:
            fn()
        except Exception:  # noqa: BLE001 - the recorder returns None; later uses may fail
            pass
    return recorder.calls


def test_operators_pick_the_overloads_torch_records() -> None:
    x = torch.ones(2)
    cases = {
        lambda: x + 1: "aten.add.Tensor", lambda: 1 + x: "aten.add.Tensor",
        lambda: x * 2: "aten.mul.Tensor", lambda: x / 2: "aten.div.Tensor",
        lambda: x > 0: "aten.gt.Scalar", lambda: x > x: "aten.gt.Tensor",
        lambda: x ** 2: "aten.pow.Tensor_Scalar", lambda: 1 - x: "aten.rsub.Scalar",
        lambda: -x: "aten.neg.default", lambda: x @ x: "aten.matmul.default",
        lambda: x.sum(): "aten.sum.default", lambda: x.sum(0): "aten.sum.dim_IntList",
        lambda: x.view(2, 1): "aten.view.default", lambda: x.add_(1): "aten.add_.Tensor",
        lambda: x[0]: "aten.select.int", lambda: x[:1]: "aten.slice.Tensor",
        lambda: x[None]: "aten.unsqueeze.default",
    }
    for fn, expected in cases.items():
        assert recorded(fn)[:1] == [expected], expected


# (call, the overload torch 2.13's export records): a Python number binds to the
# Scalar overload where torch's bindings expose one (lerp, remainder, clamp_min ...),
# to the Tensor overload where they hide it (add, sub, mul, div, true_divide, floor_divide)
SCALAR_OR_TENSOR = [
    ("x.lerp(y, 0.1)", "aten.lerp.Scalar"), ("x.lerp(y, w)", "aten.lerp.Tensor"),
    ("torch.lerp(x, y, 0.3)", "aten.lerp.Scalar"), ("x.lerp_(y, 0.1)", "aten.lerp_.Scalar"),
    ("x.lerp_(y, w)", "aten.lerp_.Tensor"), ("x.fmod_(2)", "aten.fmod_.Scalar"),
    ("x.fmod_(y)", "aten.fmod_.Tensor"), ("x.remainder_(2)", "aten.remainder_.Scalar"),
    ("i.bitwise_and_(3)", "aten.bitwise_and_.Scalar"), ("i.bitwise_or_(i)", "aten.bitwise_or_.Tensor"),
    ("x.floor_divide_(2)", "aten.floor_divide_.Tensor"), ("x.true_divide(2)", "aten.true_divide.Tensor"),
    ("x.clamp_min(0.1)", "aten.clamp_min.default"), ("x.clamp_min(y)", "aten.clamp_min.Tensor"),
    ("x.clamp_max(0.1)", "aten.clamp_max.default"), ("x.clamp_min_(0.1)", "aten.clamp_min_.default"),
    ("x.clamp_(min=y)", "aten.clamp_.Tensor"), ("x.clamp_(0.1, 0.5)", "aten.clamp_.default"),
    ("torch.pow(2, x)", "aten.pow.Scalar"), ("torch.rsub(x, 2)", "aten.rsub.Scalar"),
    ("torch.rsub(x, y)", "aten.rsub.Tensor"), ("2 // x", "aten.floor_divide.default"),
    ("x.swapdims(0, 1)", "aten.swapdims.default"), ("x.bernoulli_(0.5)", "aten.bernoulli_.float"),
]

# in-place methods of ops in the table (torch has each as a Tensor method)
IN_PLACE = [
    ("x.addcmul_(y, y, value=0.5)", "aten.addcmul_.default"), ("x.addcdiv_(y, w, value=0.5)", "aten.addcdiv_.default"),
    ("x.addmm_(y, y.t())", "aten.addmm_.default"), ("x.index_add_(0, i[:, 0], y)", "aten.index_add_.default"),
    ("x.index_copy_(0, i[:, 0], y)", "aten.index_copy_.default"),
    ("x.scatter_reduce_(1, i, y, 'sum')", "aten.scatter_reduce_.two"), ("x.tril_()", "aten.tril_.default"),
    ("x.triu_(1)", "aten.triu_.default"), ("x.cumsum_(0)", "aten.cumsum_.default"),
    ("x.cumprod_(0)", "aten.cumprod_.default"), ("x.squeeze_()", "aten.squeeze_.default"),
    ("x.squeeze_(0)", "aten.squeeze_.dim"), ("x.swapaxes_(0, 1)", "aten.swapaxes_.default"),
    ("x.nan_to_num_()", "aten.nan_to_num_.default"), ("x.uniform_()", "aten.uniform_.default"),
    ("x.normal_()", "aten.normal_.default"), ("x.detach_()", "aten.detach_.default"),
]


@pytest.mark.parametrize(("code", "expected"), SCALAR_OR_TENSOR + IN_PLACE)
def test_methods_pick_the_overloads_torch_records(code: str, expected: str) -> None:
    names = {"torch": torch, "x": torch.ones(3, 3), "y": torch.ones(3, 3), "w": torch.full((3, 3), 0.5),
             "i": torch.zeros(3, 3, dtype=torch.int64)}
    assert recorded(lambda: eval(code, names))[-1:] == [expected]  # noqa: S307 - our own table


def test_packet_calls_resolve_overloads() -> None:
    x = torch.ones(2)
    assert str(resolve_overload(torch.ops.aten.add, (x, x), {})) == "aten.add.Tensor"
    assert str(resolve_overload(torch.ops.aten.add, (x, 1), {})) == "aten.add.Scalar"
    assert str(resolve_overload(torch.ops.aten.sum, (x,), {})) == "aten.sum.default"
    assert str(resolve_overload(torch.ops.aten.sum, (x, [0]), {})) == "aten.sum.dim_IntList"
    np.testing.assert_array_equal(torch.ops.aten.add.Tensor(x, x).numpy(), [2.0, 2.0])
    with pytest.raises(TypeError, match="no overload"):
        resolve_overload(torch.ops.aten.add, ("a", "b"), {})


def test_dtype_defaults_and_promotion() -> None:
    assert torch.tensor([1.0, 2.0]).dtype is torch.float32
    assert torch.tensor([1, 2]).dtype is torch.int64
    assert torch.tensor([True]).dtype is torch.bool
    assert torch.tensor(np.zeros(2)).dtype is torch.float64
    assert torch.zeros(2).dtype is torch.float32
    assert torch.arange(3).dtype is torch.int64
    i32 = torch.tensor([3, 4], dtype=torch.int32)
    assert (i32 + 5).dtype is torch.int32
    assert (i32 / 2).tolist() == [1.5, 2.0] and (i32 / 2).dtype is torch.float32
    assert (torch.tensor([1, 2]) + 0.5).dtype is torch.float32


def test_in_place_returns_self_and_views_alias_their_base() -> None:
    x = torch.zeros(2, 3)
    assert x.add_(1) is x
    row = x[0]
    row.mul_(5)
    col = x[:, 2]
    col.fill_(-1)
    x.view(6)[1] = 7.0
    x.t()[0, 1] = 3.0
    assert x.tolist() == [[5.0, 7.0, -1.0], [3.0, 1.0, -1.0]]
    x += 1
    assert x.tolist()[0][0] == 6.0


def test_eager_results_of_each_return_kind() -> None:
    """Eager runners are made per op: one Tensor, a tuple, a list, a scalar, an
    in-place result, a Parameter argument, a non-float32 dtype."""
    x = torch.tensor([[3.0, 1.0], [2.0, 4.0]])
    weight = torch.nn.Parameter(torch.tensor([[1.0, 0.0], [0.0, 2.0]]))
    for _ in range(2):  # the second call runs the cached runner
        assert torch.nn.functional.linear(x, weight).tolist() == [[3.0, 2.0], [2.0, 8.0]]
        values, indices = x.max(1)
        assert values.tolist() == [3.0, 4.0] and indices.tolist() == [0, 1]
        assert [part.tolist() for part in x.unbind(0)] == [[3.0, 1.0], [2.0, 4.0]]
        assert x.sum().item() == 10.0
        assert (x.to(torch.float64) * 2).dtype is torch.float64
        assert (x > 2).dtype is torch.bool
        y = x.clone()
        assert y.add_(1) is y and y.tolist() == [[4.0, 2.0], [3.0, 5.0]]
        assert x.view(4).tolist() == [3.0, 1.0, 2.0, 4.0]


def test_indexing_get_and_set() -> None:
    x = torch.arange(12).view(3, 4)
    assert x[1, 2].item() == 6
    assert x[-1].tolist() == [8, 9, 10, 11]
    assert x[:, 1:3].tolist() == [[1, 2], [5, 6], [9, 10]]
    assert x[::2, ::3].tolist() == [[0, 3], [8, 11]]
    assert x[..., 0].tolist() == [0, 4, 8]
    assert list(x[None, 0].shape) == [1, 4]
    assert x[torch.tensor([2, 0])].tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert x[x > 9].tolist() == [10, 11]
    assert x[[0, 2], 1].tolist() == [1, 9]
    y = torch.zeros(3, 4)
    y[1] = 1.0
    y[:, 0] = torch.tensor([4.0, 5.0, 6.0])
    y[y > 4] = -1.0
    assert y.tolist() == [[4, 0, 0, 0], [-1, 1, 1, 1], [-1, 0, 0, 0]]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]



_BASIC_INDICES = [1, -1, (0, 2), (-2, -1, 0), slice(1, 3), slice(None, None, 2), (slice(None), 1),
                  (1, slice(-3, None)), (slice(5, 1), 0), (slice(-100, 100), slice(0, 4, 3)), (),
                  (2, 3, 3), (slice(None), slice(None), slice(1, None))]


@pytest.mark.parametrize("index", _BASIC_INDICES, ids=repr)
def test_eager_basic_index_is_the_view_the_ops_give(index: object) -> None:
    """Eager ``x[ints and slices]`` is numpy's basic indexing (EagerMode.basic_getitem);
    it must be the tensor select/slice give, op by op: values, shape, strides, dtype,
    a 0-d result as a tensor, and memory shared with x."""
    base = torch.arange(120, dtype=torch.float32).view(4, 5, 6).transpose(0, 2)  # strided
    quick = base[index]
    general = base
    dim = 0
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, int):
            general = torch.ops.aten.select.int(general, dim, item)
        else:
            stop = 2**63 - 1 if item.stop is None else item.stop
            general = torch.ops.aten.slice.Tensor(general, dim, item.start or 0, stop, item.step or 1)
            dim += 1
    assert type(quick) is torch.Tensor and quick.dtype == general.dtype
    assert quick.shape == general.shape and quick.stride() == general.stride()
    assert quick.tolist() == general.tolist()
    if quick.numel():
        quick.fill_(-1.0)  # a view: the write reaches x
        assert general.eq(-1.0).all().item()


def test_eager_basic_index_leaves_errors_and_other_indices_to_the_ops() -> None:
    x = torch.arange(6).view(2, 3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[0, 5]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    assert recorded(lambda: x[1]) == ["aten.select.int"]  # another mode (tracing) sees the ops
    assert recorded(lambda: x[0:2]) == ["aten.slice.Tensor"]


def _assigned_by_ops(base: torch.Tensor, index: object, value: object) -> torch.Tensor:
    """base[index] = value as indexing.py's general path writes it (no eager shortcut)."""
    from texport.tracer import indexing

    copy = base.clone()
    mode = type(indexing.current_mode())
    quick = mode.basic_setitem
    try:
        mode.basic_setitem = lambda *args: False
        indexing.setitem(copy, index, value)
    finally:
        mode.basic_setitem = quick
    return copy


@pytest.mark.parametrize(("index", "value"), [
    ((slice(None), 0), 0.0), (1, 2.5), ((0, slice(1, 3)), -7), ((slice(None, None, 2), 1), True),
    ((slice(None), slice(0, 2)), "row"), (1, "full"), ((), "scalar"), ((slice(5, 9), 0), 3.0),
    (-1, 1e39)])
def test_eager_basic_assignment_writes_what_the_ops_write(index: object, value: object) -> None:
    """Eager ``x[ints and slices] = value`` (EagerMode.basic_setitem) writes what
    copy_/fill_ on the select/slice view write: a number cast to the tensor's dtype
    (1e39 is inf in float32), a same-dtype tensor broadcast as copy_to does."""
    for dtype in (torch.float32, torch.float64):
        base = torch.arange(12, dtype=dtype).view(3, 4)
        source = {"row": torch.tensor([[10.0, 20.0]], dtype=dtype), "full": torch.full((4,), 9.0, dtype=dtype),
                  "scalar": torch.tensor(4.0, dtype=dtype)}.get(value, value)
        want = _assigned_by_ops(base, index, source)
        base[index] = source
        assert base.tolist() == want.tolist()


def test_eager_basic_assignment_leaves_other_cases_to_the_ops() -> None:
    x = torch.arange(6).view(2, 3)
    x[0, 1:] = 2.7  # an int tensor: the ops (a constant lifted in its dtype)
    assert x.tolist() == [[0, 2, 2], [3, 4, 5]]
    y = torch.zeros(2, 3)
    with pytest.raises(RuntimeError, match="expand"):
        y[0] = torch.ones(2)
    y[1] = y[0] + 1  # memory apart
    y[:, 1:] = y[:, :2]  # overlapping memory: the ops
    assert y.tolist() == [[0, 0, 0], [1, 1, 1]]
    with pytest.raises(ValueError, match="read-only"):
        torch.zeros(3).expand(2, 3)[0, 0] = 1.0  # a read-only view: the ops' error


def test_eager_assignment_to_a_weight_reaches_its_packed_copy() -> None:
    """x[...] = v into a Linear's weight after a forward: the next forward sees it (the
    write is noted, interpreter/prepacked.py forgets the packed transpose)."""
    layer = torch.nn.Linear(8, 4)
    x = torch.ones(16, 8)
    with torch.no_grad():
        layer(x)
        layer.weight[0] = 1.0
        layer.weight[1, 2:] = torch.zeros(6)
        out = layer(x)
    want = x.numpy() @ layer.weight.detach().numpy().T + layer.bias.detach().numpy()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)

def test_conversions_and_python_protocol() -> None:
    x = torch.tensor([[1.5, -2.0]])
    assert x.shape == torch.Size([1, 2]) and x.size(1) == 2 and x.dim() == 2
    assert x.numel() == 2 and len(x) == 1
    assert x.long().tolist() == [[1, -2]] and x.long().dtype is torch.int64
    assert x.to(torch.float64).dtype is torch.float64
    assert float(x[0, 0]) == 1.5 and int(torch.tensor(3)) == 3
    assert isinstance(x.numpy(), np.ndarray)
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(x)
    assert [t.tolist() for t in torch.tensor([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]


def test_named_results() -> None:
    x = torch.tensor([[1.0, 5.0], [7.0, 2.0]])
    values, indices = x.max(1)
    assert values.tolist() == [5.0, 7.0] and x.max(dim=0).indices.tolist() == [1, 0]
    assert x.topk(1).values.tolist() == [[5.0], [7.0]]
    assert x.sort(dim=1, descending=True).indices.tolist() == [[1, 0], [0, 1]]


def test_manual_seed_reproducible() -> None:
    torch.manual_seed(0)
    first = torch.randn(3).tolist()
    torch.manual_seed(0)
    assert torch.randn(3).tolist() == first
    assert torch.randn(3).tolist() != first


def test_repr_like_torch() -> None:
    assert repr(torch.tensor([[1.0, 2.0], [3.0, 14.0]])) == "tensor([[ 1.,  2.],\n        [ 3., 14.]])"
    assert repr(torch.tensor([0.5, -1.25])) == "tensor([ 0.5000, -1.2500])"
    assert repr(torch.tensor([1, 2], dtype=torch.int32)) == "tensor([1, 2], dtype=texport.int32)"
    assert repr(torch.tensor([True, False])) == "tensor([True, False])"
    assert repr(torch.tensor(3)) == "tensor(3)"
    assert repr(torch.Size([2, 3])) == "texport.Size([2, 3])"


def test_functions_namespace() -> None:
    a, b = torch.ones(2, 2), torch.zeros(2, 2)
    assert torch.cat([a, b], 1).shape == torch.Size([2, 4])
    assert torch.stack([a, b]).shape == torch.Size([2, 2, 2])
    assert torch.where(a > 0, a, b).tolist() == [[1, 1], [1, 1]]
    assert torch.flatten(torch.ones(2, 3, 4), 1).shape == torch.Size([2, 12])
    assert torch.allclose(torch.sigmoid(torch.zeros(1)), torch.tensor([0.5]))
