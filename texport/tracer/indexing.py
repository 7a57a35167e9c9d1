"""``x[idx]`` and ``x[idx] = v`` decomposed into ops, as torch does:
ints → select, slices → slice, None → unsqueeze, Ellipsis → skip dims,
tensors (and lists) → one index.Tensor (index_put_ when assigning).

Tensor's ``__getitem__`` and ``__setitem__`` call here, so tensors are named by
their base, TensorBase."""

from __future__ import annotations

import numbers
from typing import Any

from texport.dialects.dtypes import DType

from .dispatcher import TensorBase, call, current_mode
from .factories import constant_tensor
from .factories import tensor as make_tensor
from .handles import op
from .symint import SymNode

_INT64_MAX = 2**63 - 1  # the stop of an open slice, as torch passes it


def _as_tuple(index: Any) -> tuple[Any, ...]:
    return index if isinstance(index, tuple) else (index,)


def _dims_used(item: Any) -> int:
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if isinstance(item, TensorBase) and item.dtype is DType.bool:
        return item.dim()
    return 1


def _basic(tensor: TensorBase, index: Any, record_every_slice: bool = False) -> tuple[TensorBase, list[Any]]:
    """Apply the basic part of an index; return the view and the advanced
    indices (by result dim, None where a dim is not indexed). A slice that
    keeps every element records no op unless ``record_every_slice``."""
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
            step = 1 if item.step is None else item.step
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if record_every_slice or not _keeps_every_element(result.shape[dim], start, item.stop, step):
                stop = _INT64_MAX if item.stop is None else item.stop
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


def _keeps_every_element(size: Any, start: Any, stop: Any, step: Any) -> bool:
    """torch's applySlice returns the tensor itself, recording no slice, when the
    slice statically keeps every element: start 0, step 1 and size <= stop known
    (a symbolic size without an upper bound is not known to fit under the
    default stop, so ``x[:, None]`` of such a size records a slice)."""
    if type(start) is not int or start != 0 or type(step) is not int or step != 1:
        return False
    return _known_le(size, _INT64_MAX if stop is None else stop)


def _known_le(a: Any, b: Any) -> bool:
    """a <= b for every value of the symbols (torch's statically_known_true)."""
    if type(a) is int and type(b) is int:
        return a <= b
    gap = getattr(a, "expr", a) - getattr(b, "expr", b)
    if type(gap) is int or gap.is_number:
        return bool(gap <= 0)
    node = a if isinstance(a, SymNode) else b
    shape_env = getattr(node.tracer, "shape_env", None)
    return shape_env is not None and shape_env.bounds(gap)[1] <= 0


def _list_index(items: list[Any]) -> TensorBase:
    return make_tensor(items)


def getitem(tensor: TensorBase, index: Any) -> TensorBase:
    quick = getattr(current_mode(), "basic_getitem", None)  # eager mode's view, no op per dim
    if quick is not None and (view := quick(tensor, index)) is not None:
        return view
    # torch reads a lone slice (x[a:b]) with its slice optimization disabled
    result, advanced = _basic(tensor, index, record_every_slice=isinstance(index, slice))
    if not advanced:
        if result is tensor:
            return call(op("alias"), tensor)
        return result
    return call(op("index.Tensor"), result, advanced)


def setitem(tensor: TensorBase, index: Any, value: Any) -> None:
    """torch's ``THPVariable_setitem``: a Python number becomes a 0-d tensor of
    the tensor's dtype, lifted (a constant of the program) and copied fresh;
    then index_put_ for an advanced index, else ATen's ``copy_to`` on the view."""
    quick = getattr(current_mode(), "basic_setitem", None)  # eager mode's assignment, no op per dim
    if quick is not None and quick(tensor, index, value):
        return
    source = value if isinstance(value, TensorBase) else _scalar_tensor(value, tensor.dtype)  # first, as torch
    view, advanced = _basic(tensor, index)
    if advanced:
        call(op("index_put_"), view, advanced, source, False)
    else:
        _copy_to(view, source)


def _scalar_tensor(value: Any, dtype: DType) -> TensorBase:
    if isinstance(value, numbers.Number):  # (numpy's scalars too)
        return call(op("lift_fresh_copy"), constant_tensor(value, dtype))
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
