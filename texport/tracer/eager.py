"""Eager mode: run each op's numpy kernel, as torch runs ATen on the CPU.

Tensors are unwrapped to their arrays, the kernel runs, results are wrapped.
An op that writes an ``(a!)`` argument returns that very Tensor object (as
torch's ``x.add_(1) is x``); a view op returns a new Tensor over a numpy
view, so writes through it reach the base.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from texport.dialects.dtypes import DType
from texport.interpreter.dtypes import from_numpy
from texport.interpreter.kernels import KERNELS

from .dispatcher import install_base_mode
from .handles import OpOverload
from .tensor import Tensor, tensor_of


@dataclass(frozen=True)
class _ReturnPlan:
    """For each return: 'tensor', 'list', 'scalar'; and the index of the
    argument it writes (an in-place return), or None."""

    kinds: tuple[str, ...]
    written_arg: tuple[int | None, ...]
    is_tuple: bool


_PLANS: dict[OpOverload, _ReturnPlan] = {}


def _plan(op: OpOverload) -> _ReturnPlan:
    plan = _PLANS.get(op)
    if plan is None:
        schema = op._schema
        kinds, written = [], []
        for ret in schema.returns:
            kinds.append("list" if ret.type.is_list else "tensor" if ret.type.base == "Tensor" else "scalar")
            index = None
            if ret.alias is not None and ret.alias.is_write:
                index = next(
                    i for i, a in enumerate(schema.arguments)
                    if a.alias is not None and a.alias.before == ret.alias.before
                )
            written.append(index)
        plan = _PLANS[op] = _ReturnPlan(tuple(kinds), tuple(written), schema.returns_tuple)
    return plan


Wrapper = Callable[[list[Any], Any], Any]

# op -> how its kernel's result becomes the call's result, decided once per op
_WRAPPERS: dict[OpOverload, Wrapper] = {}


def _wrapper(op: OpOverload) -> Wrapper:
    wrap = _WRAPPERS.get(op)
    if wrap is None:
        wrap = _WRAPPERS[op] = _make_wrapper(_plan(op))
    return wrap


def _make_wrapper(plan: _ReturnPlan) -> Wrapper:
    """The plan as a function; one plain Tensor return, the common case, has one of its own."""
    if not plan.kinds:
        return _wrap_nothing
    if len(plan.kinds) == 1 and not plan.is_tuple:
        kind, written = plan.kinds[0], plan.written_arg[0]
        if kind == "tensor" and written is None:
            return _wrap_tensor
        return lambda values, out: _wrap_one(kind, written, values, out)
    returns = tuple(zip(plan.kinds, plan.written_arg))
    return lambda values, out: tuple(
        _wrap_one(kind, written, values, item) for (kind, written), item in zip(returns, out)
    )


def _wrap_nothing(values: list[Any], out: Any) -> None:
    return None


def _wrap_tensor(values: list[Any], out: Any) -> Tensor | None:
    return None if out is None else wrap_array(out)


class EagerMode:
    """Runs kernels on numpy arrays."""

    def call(self, op: OpOverload, values: list[Any]) -> Any:
        kernel = KERNELS.get(op.key)
        if kernel is None:
            raise NotImplementedError(f"{op} has no kernel: it cannot run eagerly")
        out = kernel(*[
            value._value if type(value) is Tensor else value if type(value) in _PLAIN else _unwrap(value)
            for value in values
        ])
        return (_WRAPPERS.get(op) or _wrapper(op))(values, out)

    def tensor(self, array: np.ndarray, dtype: DType, requires_grad: bool = False) -> Tensor:
        """``texport.tensor(data)`` outside tracing: a Tensor holding the array."""
        return Tensor._make(array, dtype, requires_grad)


# argument types that a kernel takes as they are (_unwrap's last case)
_PLAIN = frozenset({int, float, bool, str, type(None), DType})


def _unwrap(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value._value
    if isinstance(value, list):
        return [
            item._value if type(item) is Tensor else item if type(item) in _PLAIN else _unwrap(item)
            for item in value
        ]
    if getattr(value, "is_symbolic_scalar", False):
        return value.concrete()
    return value


def _wrap_one(kind: str, written: int | None, values: list[Any], out: Any) -> Any:
    if written is not None:
        target = values[written]
        if isinstance(out, np.ndarray) and isinstance(target, Tensor) and out.shape != target._value.shape:
            # resize_ / as_strided_ to another element count: numpy cannot re-shape the
            # array object, so the kernel returns the new view and the Tensor takes it
            target._value = out
        return target
    if kind == "tensor":
        return None if out is None else wrap_array(out)
    if kind == "list":
        return [wrap_array(item) for item in out]
    return out.item() if isinstance(out, np.generic) else out


# numpy dtype -> texport DType, learnt from from_numpy (which normalises and may
# load bfloat16) on a dtype's first sight
_DTYPES: dict[np.dtype, DType] = {}


def wrap_array(array: Any) -> Tensor:
    if not isinstance(array, np.ndarray):
        array = np.asarray(array)
    dtype = _DTYPES.get(array.dtype)
    if dtype is None:
        dtype = _DTYPES[array.dtype] = from_numpy(array.dtype)
    return tensor_of(array, dtype)


def install_eager_mode() -> None:
    """Start-up stage "eager mode" (dialects/bootstrap.py): ops run eagerly
    unless a mode above (tracing) takes them."""
    install_base_mode(EagerMode())
