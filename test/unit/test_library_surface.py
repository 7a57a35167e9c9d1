"""torch.library's module-level API (issue 16, item 5): define in torch's call form,
impl, register_fake/register_kernel on any custom op, Library, opcheck, the
registrations texport stores (autograd, vmap, autocast, torch_dispatch),
get_kernel, impl_abstract, fallthrough_kernel, triton_op/wrap_triton."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import texport as torch
from texport.tracer.library import stored_registration

L = torch.library
pytestmark = pytest.mark.usefixtures("restore_registries")
_names = itertools.count()


def _fresh(prefix: str = "surf") -> str:
    """A namespace no other test used (Library("ns", "DEF") may define a namespace once)."""
    return f"{prefix}{next(_names)}"


def test_define_in_torch_form_then_kernel_and_fake() -> None:
    ns = _fresh()
    assert L.define(f"{ns}::foo", "(Tensor x) -> Tensor") is None
    op = getattr(torch.ops, ns).foo.default
    with pytest.raises(NotImplementedError, match=f"Could not run '{ns}::foo'"):
        op(torch.ones(2))

    class M(torch.nn.Module):
        def forward(self, x):
            return op(x) * 2

    L.impl(f"{ns}::foo", "cpu")(lambda x: x.sin())
    with pytest.raises(RuntimeError, match="There was no fake impl registered"):
        torch.export.export(M(), (torch.ones(2),))

    @L.register_fake(f"{ns}::foo")
    def _(x):
        return torch.empty_like(x)

    x = torch.tensor([0.0, np.pi / 2])
    np.testing.assert_allclose(op(x).numpy(), [0.0, 1.0], atol=1e-7)
    ep = torch.export.export(M(), (x,))
    assert f"training.{ns}.foo" in ep.mlir()
    np.testing.assert_allclose(ep.module()(x).numpy(), [0.0, 2.0], atol=1e-6)


def test_register_kernel_replaces_and_unknown_ops_raise() -> None:
    ns = _fresh()
    L.define(f"{ns}::bar", "(Tensor x) -> Tensor")
    L.register_kernel(f"{ns}::bar", "cpu", lambda x: x + 1)
    assert getattr(torch.ops, ns).bar(torch.zeros(1)).tolist() == [1.0]
    L.register_kernel(f"{ns}::bar", None)(lambda x: x + 2)
    assert getattr(torch.ops, ns).bar(torch.zeros(1)).tolist() == [2.0]
    with pytest.raises(RuntimeError, match=f"operator {ns}::nope does not exist"):
        L.register_fake(f"{ns}::nope")(lambda x: x)
    with pytest.raises(RuntimeError, match="built-in operator"):
        L.register_fake("aten::sin", lambda x: x)


def test_library_def_impl_fragment() -> None:
    ns = _fresh()
    lib = L.Library(ns, "DEF")
    try:
        assert lib.define("scale(Tensor x, float s) -> Tensor") == "scale"
        lib.impl("scale", lambda x, s: x * s, "CompositeExplicitAutograd")
        lib.impl("scale", lambda x, s: torch.empty_like(x), "Meta")
        assert getattr(torch.ops, ns).scale(torch.ones(2), 3.0).tolist() == [3.0, 3.0]
        with pytest.raises(RuntimeError, match=f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}"):
            L.Library(ns, "DEF")
        fragment = L.Library(ns, "FRAGMENT")
        fragment.define("neg(Tensor x) -> Tensor")
        impl = L.Library(ns, "IMPL", "CPU")
        impl.impl("neg", lambda x: -x)  # the library's dispatch key
        assert getattr(torch.ops, ns).neg(torch.ones(1)).tolist() == [-1.0]
        with pytest.raises(RuntimeError, match="cannot define"):
            impl.define("other(Tensor x) -> Tensor")
        impl.impl("neg", lambda x: x, "CUDA")  # a device texport does not run: stored
        assert stored_registration(f"{ns}.neg.default", "dispatch:CUDA") is not None
    finally:
        lib._destroy()
    with pytest.raises(ValueError, match="Unsupported kind: BAD"):
        L.Library(ns, "BAD")


def test_composite_implicit_impl_gives_kernel_and_fake() -> None:
    ns = _fresh()
    L.define(f"{ns}::twice", "(Tensor x) -> Tensor")
    L.impl(f"{ns}::twice", "CompositeImplicitAutograd", lambda x: x + x)
    op = getattr(torch.ops, ns).twice.default

    class M(torch.nn.Module):
        def forward(self, x):
            return op(x)

    ep = torch.export.export(M(), (torch.ones(3),))
    assert ep.module()(torch.ones(3)).tolist() == [2.0] * 3
    assert f"{ns}.twice" in ep.run_decompositions({}).mlir()  # kept, as torch
    core = ep.run_decompositions()  # decomposed into its composite, as torch
    assert f"{ns}.twice" not in core.mlir() and "core.add.Tensor" in core.mlir()
    assert core.module()(torch.ones(3)).tolist() == [2.0] * 3


def test_stored_registrations() -> None:
    @L.custom_op(f"{_fresh()}::ident", mutates_args=())
    def ident(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    def backward(ctx, grad):
        return grad

    L.register_autograd(ident, backward)
    L.register_vmap(ident, lambda info, dims, x: (x, 0))
    L.register_autocast(ident, "cpu", torch.float16)
    L.register_torch_dispatch(ident, type("Mode", (), {}), lambda *a: None)
    key = ident._opoverload.key
    assert stored_registration(key, "autograd")[0] is backward
    assert stored_registration(key, "vmap") is not None and stored_registration(key, "autocast:cpu") is torch.float16
    assert stored_registration(key, "torch_dispatch:Mode") is not None
    with pytest.raises(ValueError, match="Unknown device type: tpu"):
        L.register_autocast(ident, "tpu", torch.float16)
    with pytest.raises(TypeError, match="callable backward"):
        L.register_autograd(ident, None)


def test_get_kernel_impl_abstract_fallthrough_triton() -> None:
    ns = _fresh()
    L.define(f"{ns}::inc", "(Tensor x) -> Tensor")
    L.impl(f"{ns}::inc", "default", lambda x: x + 1)
    kernel = L.get_kernel(f"{ns}::inc", "CPU")
    assert kernel(torch.zeros(2)).tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="no kernel registered for dispatch key CUDA"):
        L.get_kernel(f"{ns}::inc", "CUDA")
    with pytest.warns(DeprecationWarning, match="renamed to torch.library.register_fake"):
        L.impl_abstract(f"{ns}::inc")(lambda x: torch.empty_like(x))
    with pytest.raises(NotImplementedError, match="should never be called"):
        L.fallthrough_kernel()
    assert L.EffectType.ORDERED.value == "Ordered"
    assert L.OpOverload is type(torch.ops.aten.add.Tensor)

    @L.triton_op(f"{ns}::tri", mutates_args=())
    def tri(x: torch.Tensor) -> torch.Tensor:
        return x * 3

    assert isinstance(tri, L.CustomOpDef) and tri(torch.ones(1)).tolist() == [3.0]
    with pytest.raises(ModuleNotFoundError, match="No module named 'triton'"):
        L.wrap_triton(lambda x: x)


def test_infer_schema_torch_form() -> None:
    def proto(x: torch.Tensor, n: int, scale: float = 1.0) -> torch.Tensor:
        raise AssertionError

    assert L.infer_schema(proto, mutates_args=()) == "(Tensor x, SymInt n, float scale=1.0) -> Tensor"
    assert L.infer_schema(proto, mutates_args=("x",), op_name="p") == \
        "p(Tensor(a!) x, SymInt n, float scale=1.0) -> Tensor"


# --------------------------------------------------------------------------
# opcheck
# --------------------------------------------------------------------------

_ALL = {"test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"}


def _op(ns: str, body, fake=None, mutates_args=()):
    @L.custom_op(f"{ns}::op", mutates_args=mutates_args)
    def op(x: torch.Tensor) -> torch.Tensor:
        return body(x)

    if fake is not None:
        op.register_fake(fake)
    return op


def test_opcheck_passes_a_correct_op() -> None:
    op = _op(_fresh(), lambda x: x.sin(), lambda x: torch.empty_like(x))
    result = L.opcheck(op, (torch.randn(3, 2),))
    assert result == dict.fromkeys(_ALL, "SUCCESS")
    assert L.opcheck(op._opoverload, (torch.randn(3),), test_utils="test_schema") == {"test_schema": "SUCCESS"}


def test_opcheck_finds_a_wrong_fake_kernel() -> None:
    op = _op(_fresh(), lambda x: x.sin(), lambda x: torch.empty(3))
    result = L.opcheck(op, (torch.ones(2),), raise_exception=False)
    assert result["test_schema"] == "SUCCESS"
    assert "Shapes torch.Size([2]) and torch.Size([3]) are not equal" in str(result["test_faketensor"])
    with pytest.raises(Exception, match="test_faketensor failed with When comparing the output"):
        L.opcheck(op, (torch.ones(2),))
    dtype_op = _op(_fresh(), lambda x: x.sin(), lambda x: torch.empty_like(x, dtype=torch.float64))
    assert "Dtypes" in str(L.opcheck(dtype_op, (torch.ones(2),), raise_exception=False)["test_faketensor"])


def test_opcheck_finds_an_undeclared_mutation_and_a_view() -> None:
    def mutate(x):
        x.add_(1)
        return x.clone()

    result = L.opcheck(_op(_fresh(), mutate, lambda x: torch.empty_like(x)), (torch.ones(2),),
                       raise_exception=False)
    assert str(result["test_schema"]) == "Argument x is not defined as mutable but was mutated"
    result = L.opcheck(_op(_fresh(), lambda x: x.view(-1), lambda x: torch.empty_like(x)), (torch.ones(2),),
                       raise_exception=False)
    assert "may not alias any inputs" in str(result["test_schema"])


def test_opcheck_autograd_and_missing_fake() -> None:
    op = _op(_fresh(), lambda x: x.clone())
    x = torch.ones(2)
    x.requires_grad_(True)
    result = L.opcheck(op, (x,), raise_exception=False)
    assert result["test_schema"] == "SUCCESS" and result["test_autograd_registration"] == "SUCCESS"
    assert "There was no fake impl registered" in str(result["test_faketensor"])
    assert "no autograd formula was registered" in str(result["test_aot_dispatch_dynamic"])
    ns = _fresh()
    L.define(f"{ns}::plain", "(Tensor x) -> Tensor")
    L.impl(f"{ns}::plain", "cpu", lambda x: x.sin())
    L.register_fake(f"{ns}::plain", lambda x: torch.empty_like(x))
    result = L.opcheck(getattr(torch.ops, ns).plain.default, (x,), raise_exception=False)
    assert isinstance(result["test_autograd_registration"], AssertionError)
    with pytest.raises(ValueError, match="not supported"):
        L.opcheck(op, (x,), test_utils="test_nothing")
