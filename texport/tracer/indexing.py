"""``x[idx]`` and ``x[idx] = v`` decomposed into ops, as torch does:
ints → select, slices → slice, None → unsqueeze, Ellipsis → skip dims,
tensors (and lists) → one index.Tensor (index_put_ when assigning).

Tensor's ``__getitem__`` and ``__setitem__`` call here, so tensors are named by
their base, TensorBase."""

from __future__ import annotations

import numbers
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.dtypes import DType
from texport.dialects.shape_rules.strides import known_le

from .dispatcher import TensorBase, call
from .factories import tensor as make_tensor
from .handles import op
from .symint import SymNode

_INT64_MAX = 9223372036854775807  # a slice's open end, as torch records it


def _known_at_most(size: Any, stop: Any) -> bool:
    """``size <= stop`` without a guard, as torch's indexing asks before it
    skips a slice: a dynamic size without an upper bound is not known to be
    below 2**63 - 1, so torch records ``x[:]`` on it as a slice."""
    tracer = next((v.tracer for v in (size, stop) if isinstance(v, SymNode)), None)
    size, stop = (v.expr if isinstance(v, SymNode) else v for v in (size, stop))
    if type(size) is int and type(stop) is int:
        return size <= stop
    shape_env = getattr(tracer, "shape_env", None)
    if shape_env is None:  # a decomposition's trace: sizes are >= 2 and unbounded
        return known_le(size, stop)
    low, _ = shape_env.bounds(sympy.sympify(stop) - size)
    return bool(low >= 0)


def _as_tuple(index: Any) -> tuple[Any, ...]:
    return index if isinstance(index, tuple) else (index,)


def _dims_used(item: Any) -> int:
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if isinstance(item, TensorBase) and item.dtype is DType.bool:
        return item.dim()
    return 1


def _basic(tensor: TensorBase, index: Any) -> tuple[TensorBase, list[Any]]:
    """Apply the basic part of an index; return the view and the advanced
    indices (by result dim, None where a dim is not indexed)."""
    items = _as_tuple(index)
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_dims_used(i) for i in items)
    if used > tensor.dim():
        raise IndexError(f"too many indices for tensor of dimension {tensor.dim()}")
    result, dim, advanced = tensor, 0, []
    for item in items:
        if item is Ellipsis:
            dim += tensor.dim() - used
        elif item is None:
            result = call(op("unsqueeze"), result, dim)
            dim += 1
        elif isinstance(item, bool):
            result = call(op("unsqueeze"), result, dim)
            if not item:
                result = call(op("slice.Tensor"), result, dim, 0, 0)
            dim += 1
        elif isinstance(item, slice):
            start = 0 if item.start is None else item.start
            stop = _INT64_MAX if item.stop is None else item.stop
            step = 1 if item.step is None else item.step
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if not (type(start) is int and start == 0 and step == 1 and _known_at_most(result.shape[dim], stop)):
                result = call(op("slice.Tensor"), result, dim, start, stop, step)
            dim += 1
        elif isinstance(item, (TensorBase, list)):
            index_tensor = item if isinstance(item, TensorBase) else _list_index(item)
            advanced.extend([None] * (dim - len(advanced)))
            advanced.append(index_tensor)
            dim += index_tensor.dim() if index_tensor.dtype is DType.bool else 1
        elif isinstance(item, int) or hasattr(item, "__index__"):
            result = call(op("select.int"), result, dim, item)
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                f"Variables are valid indices (got {type(item).__name__})"
            )
    return result, advanced


def _list_index(items: list[Any]) -> TensorBase:
    return make_tensor(items)


def getitem(tensor: TensorBase, index: Any) -> TensorBase:
    result, advanced = _basic(tensor, index)
    if not advanced:
        if result is tensor:
            return call(op("alias"), tensor)
        return result
    return call(op("index.Tensor"), result, advanced)


def setitem(tensor: TensorBase, index: Any, value: Any) -> None:
    """torch's ``THPVariable_setitem``: a Python number becomes a 0-d tensor of
    the tensor's dtype, lifted (a constant of the program) and copied fresh;
    then index_put_ for an advanced index, else ATen's ``copy_to`` on the view."""
    source = value if isinstance(value, TensorBase) else _scalar_tensor(value, tensor.dtype)  # first, as torch
    view, advanced = _basic(tensor, index)
    if advanced:
        call(op("index_put_"), view, advanced, source, False)
    else:
        _copy_to(view, source)


def _scalar_tensor(value: Any, dtype: DType) -> TensorBase:
    if isinstance(value, numbers.Number):  # (numpy's scalars too)
        return call(op("lift_fresh_copy"), make_tensor(value, dtype=dtype))
    return call(op("scalar_tensor"), value, dtype=dtype)  # a symbolic size: made in the program


def _copy_to(dst: TensorBase, src: TensorBase) -> None:
    """ATen's ``at::indexing::copy_to``: copy_ when the shapes agree, fill_ from
    a 0-d source, else copy_ from the source viewed without its leading 1s and
    expanded to the view's shape (each op recorded as ATen calls it)."""
    if list(dst.shape) == list(src.shape):
        call(op("copy_"), dst, src)
    elif src.dim() == 0:
        call(op("fill_.Tensor"), dst, src)
    else:
        sizes = list(src.shape)
        while sizes and type(sizes[0]) is int and sizes[0] == 1:
            sizes.pop(0)
        src = call(op("view"), src, sizes)
        if list(src.shape) != list(dst.shape):
            src = call(op("expand"), src, list(dst.shape))
        call(op("copy_"), dst, src)
