"""The IREE backend (texport/backends/iree.py): ``ep.compile(backend="iree")`` has
``ep.module()``'s calling convention, state handling and input checks, caches its
compiles and says clearly what went wrong.

The routes that lower a core program (linalg, torch dialect) are tested on their
own; here the backend runs hand-written upstream MLIR for tiny programs, registered
as test routes, so a failure is the backend's. Numbers are compared with the
interpreter (``ep.module()``): the programs are exact in f32 (relu, adds of small
values), so the tolerance is 1e-6 absolute."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import texport
from texport.backends import BackendError, routes

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from iree_test_routes import (  # noqa: E402
    INTS_AND_BOOLS,
    RELU,
    Dynamic,
    IntsAndBools,
    Relu,
    Stateful,
    hide_iree,
    install_test_routes,
    make_route,
    private_cache,
)

from texport.backends import iree as backend  # noqa: E402 - after the skips: IREE is there

ATOL = 1e-6


@pytest.fixture(autouse=True)
def cache(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Each test compiles into a cache of its own (no hit from another test or run)."""
    return private_cache(tmp_path, monkeypatch)


@pytest.fixture
def test_routes(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    return install_test_routes(monkeypatch)


def _x(rows: int = 2, seed: int = 0) -> Any:
    return texport.tensor(np.random.default_rng(seed).standard_normal((rows, 3)).astype(np.float32))


def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=ATOL)


def test_relu_equals_the_interpreter(test_routes: dict[str, Any]) -> None:
    ep = texport.export.export(Relu(), (_x(),))
    compiled = ep.compile(backend="iree", route="test-relu")
    x = _x(seed=3)
    _close(compiled(x), ep.module()(x))
    _close(compiled(x=x), ep.module()(x))  # by keyword too
    view = texport.tensor(np.arange(6, dtype=np.float32).reshape(3, 2) - 2.5).t()
    _close(compiled(view), ep.module()(view))  # a transposed view: not row-major memory
    assert compiled.route == "test-relu" and compiled.vmfb


def test_the_route_gets_the_core_program(test_routes: dict[str, Any]) -> None:
    ep = texport.export.export(Relu(), (_x(),))
    ep.compile(backend="iree", route="test-relu")
    (module,) = test_routes["relu"].calls
    assert "core.relu" in str(module)  # lowered to core before the route saw it


def test_buffer_write_back_across_calls(test_routes: dict[str, Any]) -> None:
    ep = texport.export.export(Stateful(), (_x(),))
    compiled, interpreted = ep.compile(route="test-stateful"), ep.module()
    for seed in (1, 2):  # the second call must see the first call's count on the device
        x = _x(seed=seed)
        _close(compiled(x), interpreted(x))
        _close(compiled.count, interpreted.count)
    assert np.abs(compiled.count.numpy()).max() > 0.1


def test_a_weight_written_in_place_is_uploaded_again(test_routes: dict[str, Any]) -> None:
    ep = texport.export.export(Stateful(), (_x(),))
    compiled, interpreted = ep.compile(route="test-stateful"), ep.module()
    x = _x(seed=1)
    compiled(x)
    interpreted(x)
    for module in (compiled, interpreted):
        module.w.add_(texport.ones(2, 3))  # in place: the kept device copy is stale now
    _close(compiled(x), interpreted(x))
    for module in (compiled, interpreted):  # written by numpy, unseen: uploaded at every call from now on
        module.w.numpy()[0, 0] = 10.0
    _close(compiled(x), interpreted(x))
    compiled.w.numpy()[1, 1] = -3.0
    interpreted.w.numpy()[1, 1] = -3.0
    _close(compiled(x), interpreted(x))


def test_dynamic_batch_and_pytree_outputs(test_routes: dict[str, Any]) -> None:
    dim = texport.export.Dim("batch", min=2, max=16)
    ep = texport.export.export(Dynamic(), (_x(4), _x(4, seed=1)), dynamic_shapes=({0: dim}, {0: dim}))
    compiled, interpreted = ep.compile(route="test-dynamic"), ep.module()
    for rows in (3, 9):
        x, y = _x(rows, seed=rows), _x(rows, seed=rows + 1)
        got, want = compiled(x, y=y), interpreted(x, y=y)
        assert set(got) == {"relu", "sum"}
        assert list(got["sum"].shape) == [rows, 3]
        for key in want:
            _close(got[key], want[key])


def test_a_range_violation_is_the_interpreters_error(test_routes: dict[str, Any]) -> None:
    dim = texport.export.Dim("batch", min=2, max=16)
    ep = texport.export.export(Dynamic(), (_x(4), _x(4, seed=1)), dynamic_shapes=({0: dim}, {0: dim}))
    compiled = ep.compile(route="test-dynamic")
    for x, y in [(_x(17), _x(17)), (_x(4), _x(5)), (_x(4), "a string")]:
        with pytest.raises(Exception) as want:
            ep.module()(x, y)
        with pytest.raises(type(want.value)) as got:
            compiled(x, y)
        assert str(got.value) == str(want.value)


def test_a_second_compile_hits_the_cache(test_routes: dict[str, Any], cache: Any,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import iree.compiler

    real, calls = iree.compiler.compile_str, []

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(iree.compiler, "compile_str", counting)
    ep = texport.export.export(Relu(), (_x(),))
    first = ep.compile(route="test-relu")
    second = ep.compile(route="test-relu")
    assert len(calls) == 1
    assert len(list(cache.glob("*.vmfb"))) == 1 and not list(cache.glob("*.partial"))
    x = _x(seed=5)
    _close(second(x), first(x))


def test_missing_iree_names_the_extra(monkeypatch: pytest.MonkeyPatch, test_routes: dict[str, Any]) -> None:
    hide_iree(monkeypatch)
    ep = texport.export.export(Relu(), (_x(),))
    with pytest.raises(backend.IreeUnavailable, match=r"pip install texport\[iree\]"):
        ep.compile(backend="iree", route="test-relu")
    assert not test_routes["relu"].calls  # said before any lowering work


def test_a_compile_error_names_route_diagnostic_and_saved_text(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = RELU.replace("arith.maximumf %in0, %zero : f32", "arith.maximumf %in0, %nowhere : f32")
    monkeypatch.setitem(routes.ROUTES, "test-broken", make_route(broken))
    ep = texport.export.export(Relu(), (_x(),))
    with pytest.raises(backend.IreeCompileError) as raised:
        ep.compile(route="test-broken")
    message = str(raised.value)
    assert "'test-broken' route" in message
    saved = raised.value.saved
    assert saved.read_text() == broken
    # the first diagnostic (not the whole log), located in the saved text
    assert f"{saved}:6:" in message and "error: use of undeclared SSA value" in message
    assert "Invoked with" not in message


def test_unknown_and_missing_routes_and_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = texport.export.export(Relu(), (_x(),))
    with pytest.raises(ValueError, match="unknown route 'nope'.*linalg"):
        ep.compile(route="nope")
    with pytest.raises(ValueError, match="unknown backend 'tvm'.*iree"):
        ep.compile(backend="tvm")
    monkeypatch.setitem(routes.ROUTES, "test-absent", routes._LazyRoute(
        "test-absent", "texport.lowering.no_such_route:lower", "none"))
    with pytest.raises(BackendError, match="'test-absent' route is not available.*no_such_route"):
        ep.compile(route="test-absent")


def test_the_zoos_convbn_in_eval_mode(test_routes: dict[str, Any]) -> None:
    """Parameters, buffers (an i64 scalar among them) and an input, uploaded and passed in
    the core signature's order. Tolerance 1e-5: the interpreter's batch norm rounds in
    another order (and may use rsqrt) than the hand-written sqrt and divide."""
    from texport.examples.models import ZOO

    model, args = ZOO["ConvBN"]()[:2]
    with texport.no_grad():  # statistics and an affine map that are not the identity's
        model.bn.running_mean.fill_(0.5)
        model.bn.running_var.fill_(2.0)
        model.bn.weight.fill_(1.5)
        model.bn.bias.fill_(-0.25)
    model.eval()
    ep = texport.export.export(model, args)
    compiled, interpreted = ep.compile(route="test-convbn"), ep.module()
    for seed in (0, 1):
        x = texport.tensor(np.random.default_rng(seed).standard_normal((1, 1, 3, 3)).astype(np.float32))
        (got,), (want,) = compiled(x), interpreted(x)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=1e-5)


def _ints_and_bools_program() -> Any:
    flags = texport.tensor(np.array([[True, False, True]]))
    counts = texport.tensor(np.array([1, 2, 3]))
    return texport.export.export(IntsAndBools(), (_x(), flags, counts, 3),
                                 dynamic_shapes=(None, None, None, texport.export.Dim("n", min=1, max=10)))


def test_ints_and_bools_cross_the_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(routes.ROUTES, "test-ints", make_route(INTS_AND_BOOLS))
    ep = _ints_and_bools_program()
    compiled = ep.compile(route="test-ints")
    call = (_x(seed=4), texport.tensor(np.array([[False, False, True]])), texport.tensor(np.array([7, 8, 9])), 5)
    got, want = compiled(*call), ep.module()(*call)
    assert got[3] == want[3] == 6
    for a, b in zip(got[:3], want[:3]):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0, atol=ATOL)


def test_a_result_of_another_form_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A route whose @forward returns another dtype than the core program's is caught at the call."""
    # the int64 result narrowed to i32 and declared so
    wrong = INTS_AND_BOOLS.replace("-> (tensor<2x3xf32>, tensor<1x3xi1>, tensor<3xi64>, i64)",
                                   "-> (tensor<2x3xf32>, tensor<1x3xi1>, tensor<3xi32>, i64)").replace(
        "  %n1 = arith.addi %n, %one : i64\n",
        "  %n1 = arith.addi %n, %one : i64\n  %narrow = arith.trunci %next : tensor<3xi64> to tensor<3xi32>\n").replace(
        "return %scaled, %not, %next, %n1 : tensor<2x3xf32>, tensor<1x3xi1>, tensor<3xi64>, i64",
        "return %scaled, %not, %narrow, %n1 : tensor<2x3xf32>, tensor<1x3xi1>, tensor<3xi32>, i64")
    monkeypatch.setitem(routes.ROUTES, "test-narrow", make_route(wrong))
    compiled = _ints_and_bools_program().compile(route="test-narrow")
    call = (_x(), texport.tensor(np.array([[False, False, True]])), texport.tensor(np.array([7, 8, 9])), 5)
    with pytest.raises(BackendError, match=r"result #2 of the 'test-narrow' route's @forward is a int32 array "
                                           r"of rank 1; the core program returns a int64 array of rank 1"):
        compiled(*call)


def test_threads_size_the_device(test_routes: dict[str, Any]) -> None:
    ep = texport.export.export(Relu(), (_x(),))
    one = ep.compile(route="test-relu", threads=1)
    assert backend._DEVICES[1] is one._plan.program(lambda position: None).device
    x = _x(seed=2)
    _close(one(x), ep.module()(x))


def test_a_size_that_depends_on_the_data_is_refused_by_name_on_either_route():
    class NonZero(texport.nn.Module):
        def forward(self, x):
            return (x.nonzero(),)

    program = texport.export.export(NonZero(), (texport.randn(3, 4),))
    for route in ("linalg", "torch"):
        with pytest.raises(BackendError, match=r"'core.nonzero'.*depends on the data \(u0\)"):
            program.compile(backend="iree", route=route)


def _rows(rows: int, width: int, seed: int = 0) -> Any:
    return texport.tensor(np.random.default_rng(seed).standard_normal((rows, width)).astype(np.float32))


def _near(got: Any, want: Any, tolerance: float) -> None:
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tolerance, atol=tolerance)


class TwoLayers(texport.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first, self.second = texport.nn.Linear(6, 8), texport.nn.Linear(8, 3)
        self.norm = texport.nn.BatchNorm1d(8)

    def forward(self, x):
        return self.second(self.norm(self.first(x)).relu())


def test_linalg_weights_are_parameters_loaded_once_and_again_after_a_write() -> None:
    model = TwoLayers()
    model.train()  # the batch norm's running statistics are written: they stay arguments
    ep = texport.export.export(model, (_rows(4, 6),))
    compiled, interpreted = ep.compile(route="linalg"), ep.module()
    hoisted = {s.target for i, s in enumerate(compiled._program.graph_signature.input_specs)
               if i in compiled._plan.hoisted}
    assert hoisted == {"first.weight", "first.bias", "second.weight", "second.bias", "norm.weight", "norm.bias"}
    for seed in (1, 2):  # two calls: the running statistics written back in between
        x = _rows(4, 6, seed=seed)
        _near(compiled(x), interpreted(x), 1e-5)
    _near(compiled.norm.running_mean, interpreted.norm.running_mean, 1e-6)
    for module in (compiled, interpreted):  # a weight written in place, then through .numpy()
        module.first.weight.mul_(2.0)
    x = _rows(4, 6, seed=3)
    _near(compiled(x), interpreted(x), 1e-5)
    for module in (compiled, interpreted):
        module.second.weight.numpy()[...] *= -1.0
    _near(compiled(x), interpreted(x), 1e-5)
