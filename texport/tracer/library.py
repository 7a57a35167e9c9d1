"""Custom operators: ``texport.library.custom_op`` and the lower-level ``define``.

    @texport.library.custom_op("mylib::numpy_sin", mutates_args=())
    def numpy_sin(x: texport.Tensor) -> texport.Tensor:
        return texport.from_numpy(np.sin(x.numpy()))

    @numpy_sin.register_fake
    def _(x):
        return texport.empty_like(x)

The op enters the one op table under its own namespace (``mylib.numpy_sin``
in every level's dialect, ``texport.ops.mylib.numpy_sin.default``), with its
kernel (the function, on eager tensors) and its shape rule (the fake function,
run on traced tensors).
"""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from xdsl.ir import Block

from texport.dialects import bootstrap
from texport.dialects.meta import ScalarMeta, TensorMeta
from texport.dialects.registry import OPS, OpDef, Registry, op_key, register_op
from texport.dialects.schema import parse_schema
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.tx import TensorType
from texport.interpreter.kernels import KERNELS
from texport.interpreter.kernels.variants import copy_on_write

from .dispatcher import current_mode, using_mode
from .eager import wrap_array
from .handles import OpOverload, OpOverloadPacket, handle_for
from .symint import SymInt
from .tensor import Tensor
from .tracing import FakeValue, Tracer

# Decompositions of custom ops (the lowering layer's table takes them in:
# this layer cannot reach it). Filled only by the library, after start-up.
CUSTOM_DECOMPOSITIONS: Registry[Callable[..., Any]] = Registry("custom decomposition", stage="op table")

# What torch.library accepts for a custom op and texport stores without running
# (no autograd, vmap, autocast or __torch_dispatch__ here): keyed by op, then by
# what was registered (``autograd``, ``vmap``, ``autocast:cpu``, ``dispatch:CUDA``, ...).
STORED_REGISTRATIONS: Registry[dict[str, Any]] = Registry("stored registration", stage="op table")


def store_registration(key: str, what: str, value: Any) -> None:
    """Keep ``value`` as the op's ``what`` registration (replacing an earlier one)."""
    with registering():
        entries = dict(STORED_REGISTRATIONS.get(key) or {})
        if key in STORED_REGISTRATIONS.keys():
            STORED_REGISTRATIONS.unregister(key)
        entries[what] = value
        STORED_REGISTRATIONS.register(key, entries)


def stored_registration(key: str, what: str) -> Any:
    return (STORED_REGISTRATIONS.get(key) or {}).get(what)


# --------------------------------------------------------------------------
# Schema inference from type hints
# --------------------------------------------------------------------------

_SCALARS = {int: "SymInt", float: "float", bool: "bool", str: "str"}


def _hint_text(hint: Any, where: str) -> str:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Tensor:
        return "Tensor"
    if hint in _SCALARS:
        return _SCALARS[hint]
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)) and type(None) in args:
        inner = [a for a in args if a is not type(None)]
        return _hint_text(inner[0], where) + "?"
    if origin in (list, Sequence, typing.Sequence) and args:
        return _hint_text(args[0], where) + "[]"
    raise ValueError(
        f"custom_op: cannot infer a schema type for {where} annotated {hint!r} "
        "(supported: Tensor, int, float, bool, str, Optional[...], list[...]); pass schema="
    )


def infer_schema(prototype_function: Callable[..., Any], /, name: str | None = None,
                 mutates_args: Sequence[str] | str = (), *, op_name: str | None = None, tags: Any = ()) -> str:
    """torch.library's schema inference from type hints: ``(Tensor x) -> Tensor``, with
    the op's name in front when one is given (``numpy_sin(Tensor x) -> Tensor``)."""
    fn = prototype_function
    name = name if name is not None else op_name
    if isinstance(mutates_args, str):
        raise ValueError("infer_schema: mutates_args='unknown' is not supported; list the mutated args")
    hints = typing.get_type_hints(fn)
    params = []
    alias = iter("abcdefghijklmnopqrstuvwxyz")
    for param in inspect.signature(fn).parameters.values():
        if param.name not in hints:
            raise ValueError(f"custom_op: parameter '{param.name}' of {name} needs a type annotation")
        text = _hint_text(hints[param.name], f"parameter '{param.name}'")
        if param.name in mutates_args:
            text = text.replace("Tensor", f"Tensor({next(alias)}!)", 1)
        default = "" if param.default is inspect.Parameter.empty else f"={param.default!r}"
        params.append(f"{text} {param.name}{default}")
    returns = hints.get("return", type(None))
    if returns is type(None):
        out = "()"
    elif typing.get_origin(returns) is tuple:
        out = "(" + ", ".join(_hint_text(a, "return") for a in typing.get_args(returns)) + ")"
    else:
        out = _hint_text(returns, "return")
    return f"{name or ''}({', '.join(params)}) -> {out}"


# --------------------------------------------------------------------------
# Kernels and shape rules around user functions
# --------------------------------------------------------------------------


def _to_tensors(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return wrap_array(value)
    if isinstance(value, list):
        return [_to_tensors(v) for v in value]
    return value


def _to_arrays(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value._value
    if isinstance(value, (tuple, list)):
        return type(value)(_to_arrays(v) for v in value)
    return value


def _kernel_of(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A kernel (arrays in, arrays out) from a function on eager tensors."""

    def kernel(*arrays: Any) -> Any:
        return _to_arrays(fn(*[_to_tensors(a) for a in arrays]))

    kernel.__name__ = getattr(fn, "__name__", "custom_kernel")
    return kernel


class FakeContext:
    """``texport.library.get_ctx()`` inside a fake function."""

    def __init__(self, tracer: Any) -> None:
        self._tracer = tracer

    def new_dynamic_size(self, *, min: int = 0, max: int | None = None) -> Any:  # noqa: A002
        sym = self._tracer.new_unbacked()
        if self._tracer.shape_env is not None:
            info = self._tracer.shape_env.symbols[sym]
            info.low = min
            if max is not None:
                info.high = max
        return SymInt(sym, self._tracer)


_CONTEXT: list[FakeContext] = []


def get_ctx() -> FakeContext:
    if not _CONTEXT:
        raise RuntimeError("get_ctx() is only available inside a fake (meta) function")
    return _CONTEXT[-1]


def _shape_rule_of(fake: Callable[..., Any]) -> Callable[..., Any]:
    """A shape rule from a fake function: run it on traced tensors in a scratch block."""

    def rule(*metas: Any) -> Any:
        outer = current_mode()
        shape_env = getattr(outer, "shape_env", None)
        scratch = Tracer(Block(), shape_env=shape_env)
        scratch.meta_only = True
        if isinstance(outer, Tracer):
            scratch.unbacked = outer.unbacked
        args = [_fake_arg(scratch, m) for m in metas]
        _CONTEXT.append(FakeContext(outer if isinstance(outer, Tracer) else scratch))
        try:
            with using_mode(scratch):
                out = fake(*args)
        finally:
            _CONTEXT.pop()
        return _metas_of(out, FakeValue)

    return rule


def _fake_arg(tracer: Any, meta: Any) -> Any:
    if isinstance(meta, TensorMeta):
        holder = Block(arg_types=[TensorType.get(meta.shape, meta.dtype)])
        return tracer.fake(meta.shape, meta.dtype, holder.args[0])
    if isinstance(meta, list):
        return [_fake_arg(tracer, m) for m in meta]
    return meta


def _metas_of(out: Any, fake_value: type) -> Any:
    if isinstance(out, Tensor):
        inner = out._value
        dims = inner.dims if isinstance(inner, fake_value) else tuple(inner.shape)
        return TensorMeta(tuple(dims), out.dtype)
    if isinstance(out, (tuple, list)):
        return type(out)(_metas_of(o, fake_value) for o in out)
    if out is None:
        return ()
    return ScalarMeta("int", getattr(out, "expr", out))


def _missing_fake(definition: CustomOpDef) -> Callable[..., Any]:
    def rule(*_: Any) -> Any:
        raise RuntimeError(
            f"There was no fake impl registered for <CustomOpDef({definition.qualname})>. This is "
            "necessary for torch.compile/export/fx tracing to work. Please use "
            f"`{definition.name}.register_fake` to add an fake impl."
        )

    return rule


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


class CustomOpDef:
    """What ``custom_op`` returns: callable like the function, plus registration methods."""

    def __init__(self, qualname: str, fn: Callable[..., Any], schema: str) -> None:
        self.qualname = qualname
        self.name = qualname.split("::", 1)[1]
        self._fn = fn
        namespace, _, name = qualname.partition("::")
        self._schema_text = f"{namespace}::{schema}" if "::" not in schema else schema
        with registering():
            op_def = _register_custom_op(self._schema_text)
            KERNELS.register(op_def.key, _kernel_of(fn))
            SHAPE_RULES.register(op_def.key, _missing_fake(self))
        self._opoverload: OpOverload = handle_for(op_def.key)
        self.__name__ = name
        store_registration(op_def.key, "custom_op", self)  # it has an autograd kernel, as torch's

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._opoverload(*args, **kwargs)

    def register_fake(self, fake: Callable[..., Any]) -> Callable[..., Any]:
        key = self._opoverload.key
        with registering():
            SHAPE_RULES.unregister(key)
            SHAPE_RULES.register(key, _shape_rule_of(fake))
        return fake

    def register_kernel(self, device_types: Any = None, fn: Callable[..., Any] | None = None) -> Any:
        def install(kernel_fn: Callable[..., Any]) -> Callable[..., Any]:
            key = self._opoverload.key
            with registering():
                KERNELS.unregister(key)
                KERNELS.register(key, _kernel_of(kernel_fn))
            return kernel_fn

        if callable(device_types) and fn is None:
            return install(device_types)
        return install if fn is None else install(fn)

    def register_decomposition(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        with registering():
            CUSTOM_DECOMPOSITIONS.register(self._opoverload.key, fn)
        return fn

    def register_autograd(self, backward: Callable[..., Any], /, *,
                          setup_context: Callable[..., Any] | None = None) -> None:
        """Stored (texport computes no gradients): ``backward(ctx, *grads)``, ``setup_context``."""
        if not callable(backward):
            raise TypeError(f"register_autograd: expected a callable backward, got {type(backward).__name__}")
        store_registration(self._opoverload.key, "autograd", (backward, setup_context))

    def register_vmap(self, func: Callable[..., Any] | None = None) -> Any:
        def install(rule: Callable[..., Any]) -> Callable[..., Any]:
            store_registration(self._opoverload.key, "vmap", rule)
            return rule

        return install if func is None else install(func)

    def register_autocast(self, device_type: str, cast_inputs: Any) -> None:
        if device_type not in ("cpu", "cuda"):
            raise ValueError(f"Unknown device type: {device_type}")
        store_registration(self._opoverload.key, f"autocast:{device_type}", cast_inputs)

    def register_torch_dispatch(self, torch_dispatch_class: Any, func: Callable[..., Any] | None = None) -> Any:
        def install(rule: Callable[..., Any]) -> Callable[..., Any]:
            name = getattr(torch_dispatch_class, "__name__", "")
            store_registration(self._opoverload.key, f"torch_dispatch:{name}", rule)
            return rule

        return install if func is None else install(func)

    def __repr__(self) -> str:
        return f"<CustomOpDef({self.qualname})>"


def custom_op(name: str, fn: Callable[..., Any] | None = None, *, mutates_args: Any = (),
              device_types: Any = None, schema: str | None = None) -> Any:
    """``@custom_op("mylib::name", mutates_args=())``: a new op at every level."""
    if "::" not in name:
        raise ValueError(f"custom_op name must be 'namespace::name', got {name!r}")
    if mutates_args == "unknown":
        raise ValueError("custom_op: mutates_args='unknown' is not supported; list the mutated args")

    def wrap(function: Callable[..., Any]) -> CustomOpDef:
        op_name = name.split("::", 1)[1]
        text = schema if schema is not None else infer_schema(function, op_name, tuple(mutates_args))
        if not text.lstrip().startswith(op_name) and "::" not in text:
            text = f"{op_name}{text}"  # torch allows the schema without the name
        return CustomOpDef(name, function, text)

    return wrap if fn is None else wrap(fn)


def define_op(schema: str, *, shape_rule: Callable[..., Any] | None = None,
              kernel: Callable[..., Any] | None = None,
              decomposition: Callable[..., Any] | None = None) -> OpOverload:
    """An op from a schema string (``mylib::scale(Tensor x, float s) -> Tensor``) with a
    shape rule (metas in, metas out), a kernel (numpy arrays in and out) and an
    optional decomposition (texport code). Without a kernel or a shape rule, using
    the op says which one it lacks, as torch does."""
    with registering():
        op_def = _register_custom_op(schema)
        name = op_def.schema.name if not op_def.schema.overload_name else \
            f"{op_def.schema.name}.{op_def.schema.overload_name}"
        SHAPE_RULES.register(op_def.key, shape_rule or _missing_fake_rule(f"{op_def.schema.namespace}::{name}"))
        KERNELS.register(op_def.key, kernel or _missing_kernel(f"{op_def.schema.namespace}::{name}"))
        if decomposition is not None:
            CUSTOM_DECOMPOSITIONS.register(op_def.key, decomposition)
    return handle_for(op_def.key)


define = define_op


def _missing_fake_rule(qualname: str) -> Callable[..., Any]:
    def rule(*_: Any) -> Any:
        raise RuntimeError(
            f"{qualname}: There was no fake impl registered for {qualname}. This is necessary for "
            "torch.compile/export/fx tracing to work. Please use `torch.library.register_fake` to add "
            "a fake impl.")

    return rule


def _missing_kernel(qualname: str) -> Callable[..., Any]:
    def kernel(*_: Any) -> Any:
        raise NotImplementedError(f"Could not run '{qualname}' with arguments from the 'CPU' backend: "
                                  "it has no kernel (register one with torch.library.impl or register_kernel)")

    return kernel


def resolve_op(op: Any) -> OpOverload:
    """The handle of ``op``: ``"mylib::foo"`` (default overload), ``"mylib::foo.bar"``,
    a handle, a packet (its default overload) or a CustomOpDef."""
    if isinstance(op, CustomOpDef):
        return op._opoverload
    if isinstance(op, OpOverload):
        return op
    if isinstance(op, OpOverloadPacket):
        return op.default
    if not isinstance(op, str):
        raise TypeError(f"expected an op: a 'namespace::name' string, an OpOverload or a CustomOpDef, "
                        f"got {type(op).__name__}")
    bootstrap.start("op table")
    if "::" not in op:
        raise ValueError(f"expected a qualname 'namespace::name[.overload]', got {op!r}")
    key = op_key(op)
    if key not in OPS:
        raise RuntimeError(f"operator {op} does not exist")
    return handle_for(key)


def install_fake(handle: OpOverload, fake: Callable[..., Any]) -> None:
    """``fake`` (on traced tensors) as a custom op's shape rule."""
    _refuse_builtin(handle, "register_fake")
    with registering():
        if SHAPE_RULES.get(handle.key) is not None:
            SHAPE_RULES.unregister(handle.key)
        SHAPE_RULES.register(handle.key, _shape_rule_of(fake))


def install_kernel(handle: OpOverload, fn: Callable[..., Any]) -> None:
    """``fn`` (on eager tensors) as a custom op's kernel."""
    _refuse_builtin(handle, "register_kernel")
    with registering():
        if KERNELS.get(handle.key) is not None:
            KERNELS.unregister(handle.key)
        KERNELS.register(handle.key, _kernel_of(fn))


def install_decomposition(handle: OpOverload, fn: Callable[..., Any]) -> None:
    """``fn`` (texport code) as a custom op's decomposition in the default table."""
    _refuse_builtin(handle, "decomposition")
    with registering():
        if CUSTOM_DECOMPOSITIONS.get(handle.key) is not None:
            CUSTOM_DECOMPOSITIONS.unregister(handle.key)
        CUSTOM_DECOMPOSITIONS.register(handle.key, fn)


def _refuse_builtin(handle: OpOverload, what: str) -> None:
    if handle._schema.namespace in ("aten", "prims"):
        raise RuntimeError(f"{what}(...): {handle.name()} is a built-in operator: it already has its "
                           "kernel and fake kernel (only custom operators take new ones)")


@contextlib.contextmanager
def registering() -> Iterator[None]:
    """The library's way into the registries: after start-up (which it runs
    first, so a custom op never races the op table), they change only here."""
    for stage in ("op table", "shape rules", "kernels"):
        bootstrap.start(stage)
    with Registry.opened_for_library():
        yield


def _register_custom_op(schema: str) -> OpDef:
    """The op, and for one that writes its arguments, its functional variant."""
    parse_schema(schema)  # a malformed schema is an error before anything is registered
    op_def = register_op(schema)
    if op_def.schema.is_mutable:
        _register_functional_variant(op_def)
    return op_def


# --------------------------------------------------------------------------
# torch's auto_functionalized: the functional form of a custom op that writes
# --------------------------------------------------------------------------

AUTO_FUNCTIONALIZED = "auto_functionalized"


def functional_variant(op: OpOverload) -> tuple[OpOverload, list[int]]:
    """For ``mylib::add_one_(Tensor(a!) x) -> ()``, the op
    ``mylib::add_one_.auto_functionalized(Tensor x) -> (Tensor)``, registered
    with the custom op: it writes nothing and returns the new value of each
    written argument, then the op's own results. Also the indices of the
    arguments ``op`` writes."""
    schema = op._schema
    written = [i for i, arg in enumerate(schema.arguments) if arg.is_write]
    return handle_for(f"{schema.namespace}.{schema.name}.{AUTO_FUNCTIONALIZED}"), written


def _register_functional_variant(op_def: OpDef) -> None:
    schema = op_def.schema
    written = [i for i, arg in enumerate(schema.arguments) if arg.is_write]
    args = ", ".join(_without_alias(str(arg)) for arg in schema.arguments)
    returns = ["Tensor"] * len(written) + [_without_alias(str(r)) for r in schema.returns]
    variant = register_op(f"{schema.namespace}::{schema.name}.{AUTO_FUNCTIONALIZED}({args}) -> "
                          f"({', '.join(returns)})")

    # The op's own rule and kernel are read at each call: register_fake and
    # register_kernel may replace them after this.
    def shape_rule(*metas: Any) -> tuple[Any, ...]:
        outputs = SHAPE_RULES[op_def.key](*metas)
        outputs = () if outputs == () else outputs if isinstance(outputs, tuple) else (outputs,)
        return (*(TensorMeta(metas[i].shape, metas[i].dtype) for i in written), *outputs)

    def kernel(*values: Any) -> tuple[Any, ...]:
        return copy_on_write(KERNELS[op_def.key], written)(*values)

    SHAPE_RULES.register(variant.key, shape_rule)
    KERNELS.register(variant.key, kernel)


def _without_alias(text: str) -> str:
    """A schema type without its alias annotation: ``Tensor(a!) x`` → ``Tensor x``."""
    if text.startswith("Tensor("):
        text = "Tensor" + text[text.index(")") + 1:]
    return text


def custom_decompositions() -> dict[str, Callable[..., Any]]:
    """Decompositions registered for custom ops (the lowering table adds them)."""
    return {key: CUSTOM_DECOMPOSITIONS[key] for key in CUSTOM_DECOMPOSITIONS.keys()}


def is_registered(key: str) -> bool:
    return key in OPS
