"""Eager mode: run each op's numpy kernel, as torch runs ATen on the CPU.

Tensors are unwrapped to their arrays, the kernel runs, results are wrapped.
An op that writes an ``(a!)`` argument returns that very Tensor object (as
torch's ``x.add_(1) is x``); a view op returns a new Tensor over a numpy
view, so writes through it reach the base.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from texport.dialects.dtypes import DType
from texport.dialects.registry import Registry
from texport.interpreter.dtypes import from_numpy
from texport.interpreter.kernels import KERNELS
from texport.interpreter.prepacked import note_written

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


def _make_wrapper(plan: _ReturnPlan) -> Wrapper:
    """The plan as a function; one plain Tensor return, the common case, has one of its own."""
    if not plan.kinds:
        return _wrap_nothing
    if len(plan.kinds) == 1 and not plan.is_tuple:
        kind, written = plan.kinds[0], plan.written_arg[0]
        if kind == "tensor" and written is None:
            return _wrap_tensor
        if kind == "list" and written is None:
            return _wrap_tensor_list
        return lambda values, out: _wrap_one(kind, written, values, out)
    returns = tuple(zip(plan.kinds, plan.written_arg))
    return lambda values, out: tuple(
        _wrap_one(kind, written, values, item) for (kind, written), item in zip(returns, out)
    )


def _wrap_nothing(values: list[Any], out: Any) -> None:
    return None


def _wrap_tensor(values: list[Any], out: Any) -> Tensor | None:
    return None if out is None else wrap_array(out)


def _wrap_tensor_list(values: list[Any], out: Any) -> list[Tensor]:
    """A Tensor[] return (chunk, split, unbind): each array of a dtype seen before made a
    Tensor directly (tensor_of), without wrap_array's checks."""
    tensors = []
    for item in out:
        dtype = _DTYPES.get(item.dtype) if type(item) is np.ndarray else None
        tensors.append(wrap_array(item) if dtype is None else tensor_of(item, dtype))
    return tensors


class EagerMode:
    """Runs kernels on numpy arrays."""

    def call(self, op: OpOverload, values: list[Any]) -> Any:
        return (_RUNNERS.get(op) or _runner(op))(values)

    def tensor(self, array: np.ndarray, dtype: DType, requires_grad: bool = False) -> Tensor:
        """``texport.tensor(data)`` outside tracing: a Tensor holding the array."""
        return Tensor._make(array, dtype, requires_grad)

    def basic_getitem(self, tensor: Any, index: Any) -> Tensor | None:
        """``tensor[index]`` for an index of ints and forward slices: numpy's basic
        indexing is the view that torch's select and slice ops give (same memory,
        strides, clamping of slice bounds), without a dispatch per indexed dim. None
        for any other index, or an int out of range: indexing.py's general path then
        runs the ops (and raises torch's errors)."""
        if type(tensor) not in _TENSOR_TYPES or type(value := tensor._value) is not np.ndarray:
            return None
        items = _basic_items(index, value.ndim)
        if items is None:
            return None
        try:
            out = value[(*items, Ellipsis)]  # the Ellipsis keeps a 0-d result an array
        except IndexError:
            return None
        return tensor_of(out, tensor._dtype)

    def basic_setitem(self, tensor: Any, index: Any, value: Any) -> bool:
        """``tensor[index] = value`` done by numpy's assignment, for an index of ints and
        forward slices into a float32/float64 tensor, and a Python number (cast to the
        tensor's dtype as torch's lifted constant is) or a tensor of the same dtype whose
        memory is apart (broadcast as torch's copy_to: leading 1s dropped, then expanded).
        The write is noted (interpreter/prepacked.py) as copy_'s runner notes it. False
        for anything else, or what numpy refuses (a read-only view, a shape that does not
        broadcast): indexing.py's general path then runs the ops and raises torch's errors."""
        if type(tensor) not in _TENSOR_TYPES or type(target := tensor._value) is not np.ndarray:
            return False
        if target.dtype not in _PLAIN_FLOAT_DTYPES:
            return False
        kind = type(value)
        if kind in _TENSOR_TYPES:
            source = value._value
            if type(source) is not np.ndarray or source.dtype != target.dtype or np.may_share_memory(source, target):
                return False
        elif kind is float or kind is int or kind is bool:
            if not -_FLOAT32_MAX <= value <= _FLOAT32_MAX:  # inf in float32 (numpy warns), nan
                return False
            source = value
        else:
            return False
        items = _basic_items(index, target.ndim)
        if items is None:
            return False
        try:
            view = target[(*items, Ellipsis)]
            view[...] = source
        except (IndexError, ValueError, OverflowError):  # numpy checks before it writes
            return False
        note_written(target)
        return True


# float dtypes whose assignment numpy casts and broadcasts as torch's copy_to
_PLAIN_FLOAT_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _basic_items(index: Any, ndim: int) -> tuple[Any, ...] | None:
    """The items of an index of ints and forward slices of int bounds, at most ``ndim``
    of them (numpy reads them as torch's select and slice); None for any other index."""
    items = index if type(index) is tuple else (index,)
    if len(items) > ndim:
        return None
    for item in items:
        if type(item) is not int and not (type(item) is slice and _plain_slice(item)):
            return None
    return items


def _plain_slice(item: slice) -> bool:
    """A slice of int (or omitted) bounds and a positive step: numpy reads it as torch."""
    start, stop, step = item.start, item.stop, item.step
    return ((start is None or type(start) is int) and (stop is None or type(stop) is int)
            and (step is None or (type(step) is int and step > 0)))


Runner = Callable[[list[Any]], Any]

# op -> runner(values): unwraps the values, calls the op's kernel, wraps its result.
# Each runner holds its kernel, so a change to any registry (texport.library, a test
# restoring the registries) forgets them all.
_RUNNERS: dict[OpOverload, Runner] = {}
Registry.on_change.append(_RUNNERS.clear)


def _runner(op: OpOverload) -> Runner:
    kernel = KERNELS.get(op.key)
    if kernel is None:
        raise NotImplementedError(f"{op} has no kernel: it cannot run eagerly")
    plan = _plan(op)
    one_tensor = plan.kinds == ("tensor",) and plan.written_arg == (None,) and not plan.is_tuple
    make = _runner_maker(len(op._schema.arguments), one_tensor)
    runner = make(_make_wrapper(plan), kernel)
    written = tuple(i for i, arg in enumerate(op._schema.arguments) if arg.is_write)
    if written:
        runner = _noting_writes(runner, written)
    _RUNNERS[op] = runner
    return runner


def _noting_writes(runner: Runner, written: tuple[int, ...]) -> Runner:
    """``runner``, telling interpreter/prepacked.py which arrays the op wrote."""

    def run(values: list[Any]) -> Any:
        out = runner(values)
        for index in written:
            value = values[index]
            note_written([v._value for v in value if isinstance(v, Tensor)] if isinstance(value, (list, tuple))
                         else value._value if isinstance(value, Tensor) else value)
        return out

    return run


@functools.cache
def _runner_maker(arity: int, one_tensor: bool) -> Callable[[Wrapper, Callable[..., Any]], Runner]:
    """The runner of ops taking ``arity`` arguments, as code: each argument unwrapped
    by a type test inline (a loop over the values costs more than the small kernels it
    wraps); an op returning one new Tensor builds it inline when the kernel gives an
    ndarray of a dtype seen before, and leaves any other result to its wrapper."""
    names = [f"value{index}" for index in range(arity)]
    unwrapped = ", ".join(
        f"{name}._value if type({name}) in TENSORS else {name} if type({name}) in PLAIN else unwrap({name})"
        for name in names
    )
    unpack = f"        {', '.join(names)}, = values\n" if names else ""
    if one_tensor:
        body = (
            f"        out = kernel({unwrapped})\n"
            "        if type(out) is ndarray:\n"
            "            dtype = dtypes.get(out.dtype)\n"
            "            if dtype is not None:\n"
            "                tensor = new(Tensor)\n"  # tensor_of(out, dtype), inline
            "                tensor._value = out\n"
            "                tensor._dtype = dtype\n"
            "                tensor.requires_grad = False\n"
            "                tensor.grad = None\n"
            "                return tensor\n"
            "        return wrap(values, out)\n"
        )
    else:
        body = f"        return wrap(values, kernel({unwrapped}))\n"
    source = f"def make(wrap, kernel):\n    def run(values):\n{unpack}{body}    return run\n"
    namespace = {"Tensor": Tensor, "TENSORS": _TENSOR_TYPES, "PLAIN": _PLAIN, "unwrap": _unwrap,
                 "ndarray": np.ndarray, "dtypes": _DTYPES, "new": object.__new__}
    exec(compile(source, f"<eager runner of {arity} arguments>", "exec"), namespace)  # noqa: S102
    return namespace["make"]


# argument types that a kernel takes as they are (_unwrap's last case)
_PLAIN = frozenset({int, float, bool, str, type(None), DType})
# Tensor and the subclasses met so far (Parameter...): their arrays are ``_value``
_TENSOR_TYPES = {Tensor}


def _unwrap(value: Any) -> Any:
    if isinstance(value, Tensor):
        _TENSOR_TYPES.add(type(value))
        return value._value
    if isinstance(value, list):
        return [
            item._value if type(item) in _TENSOR_TYPES else item if type(item) in _PLAIN else _unwrap(item)
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
