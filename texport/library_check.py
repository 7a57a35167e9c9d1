"""``texport.library.opcheck``: test a custom op's registrations against its real
kernel on sample inputs, as torch.library.opcheck does, with torch's test names:

- ``test_schema``: the kernel writes only the arguments the schema marks written
  (``Tensor(a!)``), and returns no view of an input the schema does not alias;
- ``test_autograd_registration``: an input that requires grad has an autograd
  formula registered (``register_autograd``);
- ``test_faketensor``: the fake kernel's outputs have the real outputs' number,
  shapes and dtypes;
- ``test_aot_dispatch_dynamic``: the op exported in a program (every input dim
  dynamic where the op allows it, else static) gives the real kernel's numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from texport.dialects.meta import TensorMeta
from texport.dialects.shape_rules import SHAPE_RULES
from texport.interpreter.prepacked import note_written
from texport.tracer import pytree
from texport.tracer.dispatcher import bind_arguments, normalize_values
from texport.tracer.eager import wrap_array
from texport.tracer.handles import OpOverload
from texport.tracer.library import resolve_op, stored_registration
from texport.tracer.signature import ConstantArgument
from texport.tracer.tensor import Tensor

DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    """An opcheck test failed."""


class MetadataMismatchError(Exception):
    """The fake kernel's outputs differ from the real kernel's (torch._subclasses.fake_utils')."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __repr__(self) -> str:
        return f"MetadataMismatchError(reason={self.reason!r})"


def opcheck(op: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
            test_utils: str | Sequence[str] = DEFAULT_TEST_UTILS, raise_exception: bool = True,
            atol: float | None = None, rtol: float | None = None) -> dict[str, Any]:
    """Each test's result, ``"SUCCESS"`` or the error (raised as OpCheckError when
    ``raise_exception``)."""
    handle = resolve_op(op)
    kwargs = dict(kwargs or {})
    tests = [test_utils] if isinstance(test_utils, str) else list(test_utils)
    for name in tests:
        if name not in _TESTS:
            raise ValueError(f"test_utils={name!r} is not supported; choose from {', '.join(DEFAULT_TEST_UTILS)}")
    results: dict[str, Any] = {}
    for name in tests:
        try:
            _TESTS[name](handle, args, kwargs, atol, rtol)
            results[name] = "SUCCESS"
        except Exception as err:  # noqa: BLE001 - each test's failure is its result
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {err} (scroll up for stack trace)") from err
            results[name] = err
    return results


def _copy(value: Any) -> Any:
    return pytree.tree_map(lambda v: v.clone() if isinstance(v, Tensor) else v, value)


def _run(handle: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return handle(*_copy(args), **_copy(kwargs))


def _test_schema(handle: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any], *_: Any) -> None:
    schema = handle._schema
    copies = _copy((args, kwargs))
    before = [np.array(v._value, copy=True) for v in pytree.tree_leaves(copies) if isinstance(v, Tensor)]
    values = bind_arguments(schema, copies[0], copies[1])
    outputs = handle(*copies[0], **copies[1])
    written = {i for i, arg in enumerate(schema.arguments) if arg.is_write}
    leaves = [v for v in pytree.tree_leaves(copies) if isinstance(v, Tensor)]
    for index, (arg, value) in enumerate(zip(schema.arguments, values)):
        for tensor in (t for t in pytree.tree_leaves(value) if isinstance(t, Tensor)):
            old = before[next(i for i, leaf in enumerate(leaves) if leaf is tensor)]
            if index not in written and not _same(old, tensor._value):
                raise RuntimeError(f"Argument {arg.name} is not defined as mutable but was mutated")
    aliased = [arg for arg in schema.returns if "(" in str(arg).split(" ")[0]]
    for out in (o for o in pytree.tree_leaves(outputs) if isinstance(o, Tensor)):
        if not aliased and any(np.shares_memory(out._value, leaf._value) for leaf in leaves):
            raise RuntimeError(
                f"{schema.name}: The output of this custom operator (1) must not also be an input to this "
                "custom operator and (2) may not alias any inputs to this custom operator or other returns. "
                "The most common way to trigger this error is if we have y = custom_op(x) and y and x are the "
                "same Tensor. Please instead return a clone of the offending output tensor(s) (e.g. return "
                "x.clone()) or refactor the custom operator to not return y.")


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def _needs_grad(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return any(isinstance(t, Tensor) and t.requires_grad for t in pytree.tree_leaves((args, kwargs)))


def _test_autograd_registration(handle: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any], *_: Any) -> None:
    """custom_op gives every op an autograd kernel (which raises on backward without a
    formula); an op from ``define`` has one only through register_autograd."""
    if _needs_grad(args, kwargs) and not _has_autograd_kernel(handle):
        raise AssertionError(
            f"{handle.name()}: at least one output of this operator has requires_grad=True but the operator "
            "does not have an autograd kernel defined at an autograd key (e.g. DispatchKey::Autograd). This "
            "could mean that you have incorrectly registered an autograd kernel to a non-Autograd DispatchKey, "
            "which may lead to silently incorrect results. If your operator consists of regular PyTorch "
            "operations, consider not using an operator at all or registering your operator as "
            "CompositeImplicitAutograd. If you have an autograd.Function registered to a backend (CPU/CUDA/XPU) "
            "key, the correct location for it is the Autograd key.")


def _has_autograd_kernel(handle: OpOverload) -> bool:
    return stored_registration(handle.key, "custom_op") is not None or \
        stored_registration(handle.key, "autograd") is not None


def _test_faketensor(handle: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any], *_: Any) -> None:
    schema = handle._schema
    values = normalize_values(schema, bind_arguments(schema, args, kwargs))
    fake = SHAPE_RULES[handle.key](*[_meta(v) for v in values])
    real = _run(handle, args, kwargs)
    fakes, reals = _as_list(fake), _as_list(real)
    if len(fakes) != len(reals):
        raise MetadataMismatchError(f"When comparing the output of {handle.key} on FakeTensor and concrete "
                                    f"Tensors, found {len(fakes)} fake outputs and {len(reals)} real ones")
    for meta, value in zip(fakes, reals):
        if not isinstance(value, Tensor):
            continue
        if not isinstance(meta, TensorMeta):
            raise MetadataMismatchError(f"When comparing the output of {handle.key} on FakeTensor and concrete "
                                        f"Tensors, the fake kernel returned {meta!r} for a Tensor")
        shape = tuple(meta.shape)
        if not all(type(d) is int for d in shape) or shape != tuple(value.shape):
            raise MetadataMismatchError(
                f"When comparing the output of {handle.key} on FakeTensor and concrete Tensors, found "
                f"mismatched tensor metadata: Shapes {_size(tuple(value.shape))} and {_size(shape)} are not equal!")
        if meta.dtype != value.dtype:
            raise MetadataMismatchError(
                f"When comparing the output of {handle.key} on FakeTensor and concrete Tensors, found "
                f"mismatched tensor metadata: Dtypes {value.dtype} and {meta.dtype} are not equal!")


def _size(shape: tuple[Any, ...]) -> str:
    return f"torch.Size([{', '.join(str(d) for d in shape)}])"


def _as_list(value: Any) -> list[Any]:
    if value is None or (isinstance(value, tuple) and not value):
        return []
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _meta(value: Any) -> Any:
    """What a shape rule takes for an argument: a tensor's meta, anything else as is."""
    if isinstance(value, Tensor):
        return TensorMeta(tuple(value.shape), value.dtype)
    if isinstance(value, list):
        return [_meta(v) for v in value]
    return value


def _test_aot_dispatch_dynamic(handle: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any],
                               atol: float | None, rtol: float | None) -> None:
    if _needs_grad(args, kwargs) and stored_registration(handle.key, "autograd") is None:
        if stored_registration(handle.key, "custom_op") is not None:
            raise RuntimeError(f"Trying to backward through {handle.key} but no autograd formula was registered. "
                               "Please use register_autograd to add one.")
        raise AssertionError("Gradients of the operator are different in eager-mode PyTorch vs AOTDispatcher. "
                             "This means the operator will have incorrect gradients underneath torch.compile. "
                             "This could be because the operator's backward is incorrectly registered or not "
                             "traceable.")
    eager_args = _copy(args)
    expected = handle(*eager_args, **_copy(kwargs))
    got, exported_args = _run_exported(handle, args, kwargs)
    pairs = list(zip(_as_list(expected), _as_list(got)))
    pairs += [(a, b) for a, b in zip(eager_args, exported_args) if isinstance(a, Tensor)]  # writes to inputs
    for want, have in pairs:
        if isinstance(want, Tensor):
            np.testing.assert_allclose(np.asarray(have._value), np.asarray(want._value),
                                       rtol=1.3e-6 if rtol is None else rtol, atol=1e-5 if atol is None else atol,
                                       err_msg=f"{handle.name()} exported differs from the op run eagerly")


def _run_exported(handle: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The op exported in a one-op program of its tensor arguments (every dim dynamic
    where the op allows, else static), run by the interpreter."""
    from texport.interpreter.executor import compile_function  # noqa: PLC0415 - loads on first use
    from texport.tracer.dynamic_shapes import Dim  # noqa: PLC0415
    from texport.tracer.export import export_program  # noqa: PLC0415
    from texport.tracer.nn.module import Module  # noqa: PLC0415

    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]

    class CallsOp(Module):
        def forward(self, *tensors: Any) -> Any:
            call = list(args)
            for position, tensor in zip(positions, tensors):
                call[position] = tensor
            return handle(*call, **kwargs)

    tensors = tuple(args[i] for i in positions)
    try:
        shapes = tuple({d: Dim.AUTO for d in range(t.dim())} for t in tensors)
        traced = export_program(CallsOp(), _copy(tensors), dynamic_shapes=shapes)
    except Exception:  # noqa: BLE001 - an op that only traces with static shapes is checked static
        traced = export_program(CallsOp(), _copy(tensors))
    inputs = _copy(args)
    arrays = [inputs[i]._value for i in positions]
    outputs = iter(compile_function(traced.func)(*arrays))
    user_args = [s.arg.name for s in traced.signature.input_specs if s.kind.name == "USER_INPUT"]
    results = []
    for spec in traced.signature.output_specs:  # the signature says where each output goes
        if isinstance(spec.arg, ConstantArgument):
            results.append(spec.arg.value)
        elif spec.kind.name == "USER_INPUT_MUTATION":
            target = arrays[user_args.index(spec.target)]
            np.copyto(target, next(outputs))
            note_written(target)
        else:
            value = next(outputs)
            results.append(wrap_array(value) if isinstance(value, np.ndarray) else value)
    return pytree.tree_unflatten(results, traced.out_spec), inputs


_TESTS = {"test_schema": _test_schema, "test_autograd_registration": _test_autograd_registration,
          "test_faketensor": _test_faketensor, "test_aot_dispatch_dynamic": _test_aot_dispatch_dynamic}
