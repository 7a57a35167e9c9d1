"""``texport.library``: custom operators (torch.library's API: ``custom_op``,
``define``/``impl``/``register_fake``/``register_kernel``, ``Library``,
``opcheck``), and the one way to change texport's registries after start-up.

An op is named as torch names it: ``"mylib::foo"`` (its default overload),
``"mylib::foo.out"``, its handle ``texport.ops.mylib.foo.default`` or the
CustomOpDef ``custom_op`` returned. What texport cannot run (autograd formulas,
vmap and autocast rules, ``__torch_dispatch__`` rules, kernels for devices
other than the CPU) is accepted and stored with the op, as torch stores it
(``texport.tracer.library.stored_registration``).
"""

from __future__ import annotations

import enum
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from texport.dialects import bootstrap
from texport.library_check import opcheck
from texport.lowering.table import register_decomposition as _register_in_default_table
from texport.tracer.handles import OpOverload, OpOverloadPacket
from texport.tracer.library import (
    CustomOpDef,
    custom_decompositions,
    custom_op,
    define_op,
    get_ctx,
    infer_schema,
    install_decomposition,
    install_fake,
    install_kernel,
    registering,
    resolve_op,
    store_registration,
)

# --------------------------------------------------------------------------
# Defining ops
# --------------------------------------------------------------------------


def define(qualname: str, schema: str | None = None, *, lib: Library | None = None, tags: Any = (),
           shape_rule: Callable[..., Any] | None = None, kernel: Callable[..., Any] | None = None,
           decomposition: Callable[..., Any] | None = None) -> OpOverload | None:
    """torch's ``define("mylib::foo", "(Tensor x) -> Tensor")``: declare the op (its
    kernel and fake kernel come from ``impl``/``register_kernel``/``register_fake``);
    returns None, as torch.

    texport's lower level, ``define("mylib::scale(Tensor x, float s) -> Tensor",
    shape_rule=..., kernel=..., decomposition=...)``, takes the whole schema, a shape
    rule (metas in, metas out), a kernel (numpy arrays in and out) and an optional
    decomposition, and returns the op's handle."""
    if schema is None:
        return define_op(qualname, shape_rule=shape_rule, kernel=kernel, decomposition=decomposition)
    if "::" not in qualname:
        raise ValueError(f"define: expected a qualname 'namespace::name', got {qualname!r}")
    name = qualname.split("::", 1)[1]
    text = schema if schema.lstrip().startswith(name) else f"{name}{schema}"
    define_op(f"{qualname.split('::', 1)[0]}::{text}")
    return None


_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "default": "CompositeExplicitAutograd", "meta": "Meta"}
_KERNEL_KEYS = ("CPU", "CompositeExplicitAutograd", "CompositeImplicitAutograd", "Default")


def _impl(op: Any, dispatch_key: str, fn: Callable[..., Any]) -> None:
    """One kernel for one dispatch key: the CPU and composite keys give the kernel texport
    runs; a CompositeImplicitAutograd one is also the op's fake kernel (run on traced
    tensors) and its decomposition (the op stays in the training program and in
    ``run_decompositions({})``, and decomposes at core level, as torch); Meta gives the
    fake kernel; other keys are stored."""
    handle = resolve_op(op)
    if dispatch_key == "Meta":
        install_fake(handle, fn)
    elif dispatch_key in _KERNEL_KEYS:
        install_kernel(handle, fn)
        if dispatch_key == "CompositeImplicitAutograd":
            install_fake(handle, fn)
            install_decomposition(handle, fn)
    else:
        store_registration(handle.key, f"dispatch:{dispatch_key}", fn)


def impl(qualname: Any, types: Any = "", func: Callable[..., Any] | None = None, *,
         lib: Library | None = None) -> Any:
    """``@impl("mylib::foo", "cpu")``: the op's kernel for those device types (``"cpu"``,
    ``"default"``, or dispatch keys). The older form ``impl(lib, "foo", dispatch_key)``
    registers through the Library."""
    if isinstance(qualname, Library):
        library, name, key = qualname, types, func if isinstance(func, str) else ""
        return lambda fn: (library.impl(name, fn, key), fn)[1]
    keys = [types] if isinstance(types, str) else list(types)

    def install(fn: Callable[..., Any]) -> Callable[..., Any]:
        for device in keys:
            _impl(qualname, _DEVICE_KEYS.get(device, device), fn)
        return fn

    return install if func is None else install(func)


def register_fake(op: Any, func: Callable[..., Any] | None = None, /, *, lib: Library | None = None,
                  _stacklevel: int = 1, allow_override: bool = True) -> Any:
    """``@register_fake("mylib::foo")``: the function that gives the op's outputs'
    shapes and dtypes from its inputs' (run on traced tensors under export)."""
    if isinstance(op, CustomOpDef):
        return op.register_fake if func is None else op.register_fake(func)
    handle = resolve_op(op)

    def install(fn: Callable[..., Any]) -> Callable[..., Any]:
        install_fake(handle, fn)
        return fn

    return install if func is None else install(func)


def impl_abstract(qualname: Any, func: Callable[..., Any] | None = None, *, lib: Library | None = None,
                  _stacklevel: int = 1) -> Any:
    """The old name of ``register_fake``."""
    warnings.warn("torch.library.impl_abstract was renamed to torch.library.register_fake. Please use that "
                  "instead; we will remove torch.library.impl_abstract in a future version of PyTorch.",
                  DeprecationWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib)


def register_kernel(op: Any, device_types: Any, func: Callable[..., Any] | None = None, /, *,
                    lib: Library | None = None) -> Any:
    """``@register_kernel("mylib::foo", "cpu")``: the op's kernel (on eager tensors)
    for those devices (None: every device)."""
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, func)
    handle = resolve_op(op)
    devices = [None] if device_types is None else [device_types] if isinstance(device_types, str) \
        else list(device_types)

    def install(fn: Callable[..., Any]) -> Callable[..., Any]:
        for device in devices:
            _impl(handle, "CPU" if device in (None, "cpu") else _DEVICE_KEYS.get(device, device), fn)
        return fn

    return install if func is None else install(func)


def _custom(op: Any) -> Any:
    """A CustomOpDef's own methods, else the op's handle (for a ``define``d op)."""
    return op if isinstance(op, CustomOpDef) else resolve_op(op)


def register_autograd(op: Any, backward: Callable[..., Any], /, *,
                      setup_context: Callable[..., Any] | None = None, lib: Library | None = None) -> None:
    """Stored with the op: texport computes no gradients."""
    target = _custom(op)
    if isinstance(target, CustomOpDef):
        target.register_autograd(backward, setup_context=setup_context)
        return
    if not callable(backward):
        raise TypeError(f"register_autograd: expected a callable backward, got {type(backward).__name__}")
    store_registration(target.key, "autograd", (backward, setup_context))


def register_vmap(op: Any, func: Callable[..., Any] | None = None, /, *, lib: Library | None = None) -> Any:
    """Stored with the op: texport has no vmap."""
    target = _custom(op)
    if isinstance(target, CustomOpDef):
        return target.register_vmap(func)

    def install(rule: Callable[..., Any]) -> Callable[..., Any]:
        store_registration(target.key, "vmap", rule)
        return rule

    return install if func is None else install(func)


def register_autocast(op: Any, device_type: str, cast_inputs: Any, /, *, lib: Library | None = None) -> None:
    """Stored with the op: texport has no autocast."""
    if device_type not in ("cpu", "cuda"):
        raise ValueError(f"Unknown device type: {device_type}")
    target = _custom(op)
    key = target._opoverload.key if isinstance(target, CustomOpDef) else target.key
    store_registration(key, f"autocast:{device_type}", cast_inputs)


def register_torch_dispatch(op: Any, torch_dispatch_class: Any, func: Callable[..., Any] | None = None, /, *,
                            lib: Library | None = None) -> Any:
    """Stored with the op: texport has no tensor subclasses to dispatch on."""
    target = _custom(op)
    if isinstance(target, CustomOpDef):
        return target.register_torch_dispatch(torch_dispatch_class, func)

    def install(rule: Callable[..., Any]) -> Callable[..., Any]:
        store_registration(target.key, f"torch_dispatch:{getattr(torch_dispatch_class, '__name__', '')}", rule)
        return rule

    return install if func is None else install(func)


class _KernelFunction:
    """``get_kernel(op, "CPU")``: the op's kernel, callable on eager tensors."""

    def __init__(self, handle: OpOverload, dispatch_key: str) -> None:
        self._handle, self._dispatch_key = handle, dispatch_key

    def call_boxed(self, keyset: Any, *args: Any, **kwargs: Any) -> Any:
        return self(*args, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from texport.tracer.dispatcher import base_mode, bind_arguments, normalize_values  # noqa: PLC0415
        from texport.tracer.eager import EagerMode  # noqa: PLC0415 - eager mode loads on first use

        schema = self._handle._schema
        mode = base_mode()
        assert isinstance(mode, EagerMode)
        return mode.call(self._handle, normalize_values(schema, bind_arguments(schema, args, kwargs)))

    def __repr__(self) -> str:
        return f"KernelFunction({self._handle.name()}, {self._dispatch_key})"


def get_kernel(op: Any, dispatch_key: str) -> _KernelFunction:
    """The op's kernel for ``dispatch_key`` (``"CPU"``, or a composite key)."""
    from texport.interpreter.kernels import KERNELS  # noqa: PLC0415

    handle = resolve_op(op._opoverload if isinstance(op, CustomOpDef) else op)
    key = str(getattr(dispatch_key, "name", dispatch_key))
    if key not in _KERNEL_KEYS or KERNELS.get(handle.key) is None:
        raise RuntimeError(f"{handle.name()} has no kernel registered for dispatch key {key} "
                           f"(texport runs the CPU kernel: {', '.join(_KERNEL_KEYS)})")
    return _KernelFunction(handle, key)


def fallthrough_kernel() -> None:
    """A dummy to pass to ``Library.impl`` to fall through to the next dispatch key."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


class EffectType(enum.Enum):
    ORDERED = "Ordered"


def triton_op(name: str, fn: Callable[..., Any] | None = None, /, *, mutates_args: Any,
              schema: str | None = None) -> Any:
    """A custom op whose body launches triton kernels; as torch without triton, it is
    an ordinary custom op (its body runs eagerly, its fake kernel is needed to export)."""
    return custom_op(name, fn, mutates_args=mutates_args, schema=schema)


def wrap_triton(triton_kernel: Callable[..., Any], /) -> Any:
    """Raises as torch does without triton installed."""
    raise ModuleNotFoundError("No module named 'triton'", name="triton")


# --------------------------------------------------------------------------
# Library
# --------------------------------------------------------------------------

_DEFINED_NAMESPACES: set[str] = set()


class Library:
    """``Library("mylib", "DEF")``: define ops (``DEF``/``FRAGMENT``) and register their
    kernels (``IMPL`` too) in one namespace."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if kind == "DEF" and ns in _DEFINED_NAMESPACES:
            raise RuntimeError(
                f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all "
                "of your definitions in a single TORCH_LIBRARY block.  If you were trying to specify "
                "implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you "
                "really intended to define operators for a single namespace in a distributed way, you can "
                "use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.")
        if kind == "DEF":
            _DEFINED_NAMESPACES.add(ns)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._fallbacks: dict[str, Callable[..., Any]] = {}

    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = ()) -> str:
        """Declare ``schema`` (``"foo(Tensor x) -> Tensor"``) in this namespace; returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError(f"Library(\"{self.ns}\", \"IMPL\") cannot define operators: use DEF or FRAGMENT")
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        define_op(f"{self.ns}::{schema.strip()}")
        return schema.strip().split("(", 1)[0]

    def impl(self, op_name: Any, fn: Callable[..., Any], dispatch_key: str = "", *,
             with_keyset: bool = False, allow_override: bool = False) -> None:
        """Register ``fn`` as ``op_name``'s kernel for ``dispatch_key`` (default: the
        library's, else CompositeImplicitAutograd, as torch)."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        if fn is fallthrough_kernel:
            store_registration(resolve_op(self._qualified(op_name)).key, f"dispatch:{key}", fn)
            return
        _impl(self._qualified(op_name), key, fn)

    def fallback(self, fn: Callable[..., Any], dispatch_key: str = "", *, with_keyset: bool = False) -> None:
        """A kernel for every op of the namespace under ``dispatch_key``: stored."""
        self._fallbacks[dispatch_key or self.dispatch_key] = fn

    def _qualified(self, op_name: Any) -> Any:
        if isinstance(op_name, (OpOverload, OpOverloadPacket)):
            return op_name
        return op_name if "::" in op_name else f"{self.ns}::{op_name}"

    def _destroy(self) -> None:
        if self.kind == "DEF":
            _DEFINED_NAMESPACES.discard(self.ns)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"


# --------------------------------------------------------------------------
# The default decomposition table
# --------------------------------------------------------------------------


def register_decomposition(op: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``@texport.library.register_decomposition(aten.foo.default)``: add ``fn`` to the
    default decomposition table (``default_decompositions()``, ``run_decompositions()``).
    An op that already has one is an error (edit a table from default_decompositions()
    to replace it for one lowering)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        bootstrap.start("decompositions")  # the default table first: a duplicate is caught here
        with registering():
            _register_in_default_table(op)(fn)
        return fn

    return wrap


__all__: Sequence[str] = [
    "CustomOpDef", "EffectType", "Library", "OpOverload", "custom_decompositions", "custom_op", "define",
    "fallthrough_kernel", "get_ctx", "get_kernel", "impl", "impl_abstract", "infer_schema", "opcheck",
    "register_autocast", "register_autograd", "register_decomposition", "register_fake", "register_kernel",
    "register_torch_dispatch", "register_vmap", "triton_op", "wrap_triton",
]
