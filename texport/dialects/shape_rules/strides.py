"""Strides: how torch lays a tensor out in memory.

A shape rule knows shapes; strides are a property of how a value was made. A
view shares its input's memory, so its strides follow from the input's (a
stride rule beside the view's shape rule, views.py); an elementwise op lays
its result out like its inputs (torch's TensorIterator); clone, _to_copy and
the ``*_like`` factories keep a dense input's strides; any other op writes a
fresh row-major (contiguous) tensor and has no stride rule. Strides are
element strides, ints or sympy expressions over the size symbols, and
``None`` stands for the row-major strides of the shape, so a program with
static, contiguous tensors computes nothing here.

The algorithms are torch's: ``view_strides`` is ATen's ``computeStride``
(whether ``view`` can express a shape, and so whether ``reshape`` copies),
``elementwise_strides`` is ``compute_elementwise_output_strides``,
``preserved_strides`` is ``empty_like``'s preserve_format, ``is_contiguous``
and ``is_non_overlapping_and_dense`` are TensorImpl's. Where torch asks a
symbolic question without guarding (``guard_or_false``), the helpers here
answer from the expressions alone: sizes are taken to be at least 2 (as
size-oblivious reasoning does), and what cannot be proven is false. So no
guard is ever recorded for a stride. Symbolic answers are memoised: models
repeat a few shapes, and sympy arithmetic costs microseconds.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use

from ..meta import TensorMeta
from ..symbolic import Dim, to_dim
from . import STRIDE_RULES

Strides = tuple[Dim, ...]

# torch's MemoryFormat, as texport spells it (schema defaults are its numbers)
_MEMORY_FORMATS = {None: "preserve_format", 0: "contiguous_format", 1: "preserve_format",
                   2: "channels_last", 3: "channels_last_3d"}
# the dims of a channels-last tensor from the slowest to the fastest
_CHANNELS_LAST_ORDER = {4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}


# ---------------------------------------------------------------------------- deciding without guards


def known_eq(a: Dim, b: Dim) -> bool:
    """a == b, proven from the expressions (torch's guard_or_false(a == b))."""
    if type(a) is int and type(b) is int:
        return a == b
    return a == b or _symbolic_eq(a, b)


@functools.lru_cache(maxsize=4096)
def _symbolic_eq(a: Dim, b: Dim) -> bool:
    return sympy.expand(a - b) == 0


def known_lt(a: Dim, b: Dim) -> bool:
    """a < b, proven from the expressions with every size symbol at least 2."""
    if type(a) is int and type(b) is int:
        return a < b
    return _symbolic_lt(a, b)


def known_le(a: Dim, b: Dim) -> bool:
    """a <= b, proven as known_lt is."""
    if type(a) is int and type(b) is int:
        return a <= b
    return _symbolic_le(a, b)


@functools.lru_cache(maxsize=4096)
def _symbolic_lt(a: Dim, b: Dim) -> bool:
    return _shifted(b - a).is_positive is True


@functools.lru_cache(maxsize=4096)
def _symbolic_le(a: Dim, b: Dim) -> bool:
    return _shifted(b - a).is_nonnegative is True


def _shifted(expr: Any) -> Any:
    """expr with every symbol written as 2 + a non-negative integer, expanded."""
    expr = sympy.sympify(expr)
    return sympy.expand(expr.xreplace({s: _at_least_two(s) for s in expr.free_symbols}))


@functools.cache
def _at_least_two(symbol: Any) -> Any:
    """symbol as 2 + a fresh non-negative integer."""
    return sympy.Dummy(f"{symbol.name}_minus_2", integer=True, nonnegative=True) + 2


def _divides(b: Dim, a: Dim) -> bool:
    """b divides a, proven (torch's guard_or_false(a % b == 0))."""
    if type(a) is int and type(b) is int:
        return b != 0 and a % b == 0
    return not known_eq(b, 0) and known_eq(sympy.Mod(a, b), 0)


# ---------------------------------------------------------------------------- layouts of a shape


def contiguous_strides(shape: Sequence[Dim]) -> Strides:
    """Row-major strides; a static 0 counts as 1 (torch), a symbolic size is assumed >= 1."""
    return _contiguous_strides(tuple(shape))


@functools.lru_cache(maxsize=4096)
def _contiguous_strides(shape: tuple[Dim, ...]) -> Strides:
    strides: list[Dim] = []
    step: Dim = 1
    for size in reversed(shape):
        strides.append(step)
        step = step * (max(size, 1) if type(size) is int else size)
    return tuple(to_dim(s) for s in reversed(strides))


def strides_of(meta: TensorMeta) -> Strides:
    """A tensor's strides, written out (row-major when it carries none)."""
    return meta.strides if meta.strides is not None else contiguous_strides(meta.shape)


def normalized(shape: Sequence[Dim], strides: Sequence[Dim] | None) -> Strides | None:
    """``strides``, or None when they are the row-major strides of ``shape``."""
    if strides is None:
        return None
    strides = tuple(s if type(s) is int else to_dim(s) for s in strides)
    row_major = contiguous_strides(shape)
    if strides == row_major or all(known_eq(a, b) for a, b in zip(strides, row_major)):
        return None
    return strides


def memory_format_name(value: Any) -> str:
    """A MemoryFormat argument (schema default number, name, or None) as its name."""
    return _MEMORY_FORMATS.get(value, str(value).removeprefix("torch."))


def format_strides(shape: Sequence[Dim], memory_format: Any) -> Strides | None:
    """The strides of a fresh tensor in ``memory_format`` (None: row-major)."""
    order = _CHANNELS_LAST_ORDER.get(len(shape)) if memory_format_name(memory_format).startswith(
        "channels_last") else None
    return None if order is None else _dense_in_order(shape, order)


def _dense_in_order(shape: Sequence[Dim], order: Sequence[int]) -> Strides:
    """Dense strides laying the dims out from the slowest (``order[0]``) to the fastest."""
    strides: list[Dim] = [0] * len(shape)
    step: Dim = 1
    for dim in reversed(order):
        strides[dim] = step
        size = shape[dim]
        step = step * (max(size, 1) if type(size) is int else size)
    return tuple(to_dim(s) for s in strides)


def permuted_strides(shape: Sequence[Dim], physical_layout: Sequence[int]) -> Strides | None:
    """The strides of ``empty_permuted(shape, physical_layout)``: dense, the dims laid
    out from the slowest (``physical_layout[0]``) to the fastest (None: row-major)."""
    return normalized(shape, _dense_in_order(shape, physical_layout))


def physical_layout(shape: Sequence[Dim], strides: Strides | None) -> list[int]:
    """The dims of a tensor from the slowest to the fastest, as torch's empty_like
    orders them (compute_elementwise_output_logical_to_physical_perm of one tensor;
    None strides: row-major)."""
    if len(shape) <= 1 or strides is None:
        return list(range(len(shape)))
    return _logical_to_physical(shape, [strides])


# ---------------------------------------------------------------------------- facts of a layout


def is_contiguous(meta: TensorMeta, memory_format: Any = 0) -> bool:
    """torch's is_contiguous: size-1 dims may have any stride; an empty tensor is contiguous."""
    if meta.strides is None and memory_format_name(memory_format) == "contiguous_format":
        return True
    order = range(meta.ndim)
    if memory_format_name(memory_format).startswith("channels_last"):
        order = _CHANNELS_LAST_ORDER.get(meta.ndim)  # type: ignore[assignment]
        if order is None:
            return False
    return _dense_along(meta.shape, strides_of(meta), order)


def _dense_along(shape: Sequence[Dim], strides: Sequence[Dim], order: Sequence[int]) -> bool:
    if any(known_eq(size, 0) for size in shape):
        return True
    expected: Dim = 1
    for dim in reversed(order):
        if known_eq(shape[dim], 1):
            continue
        if not known_eq(strides[dim], expected):
            return False
        expected = expected * shape[dim]
    return True


def is_non_overlapping_and_dense(shape: Sequence[Dim], strides: Sequence[Dim]) -> bool:
    """Some order of the dims is row-major (TensorImpl's compute_non_overlapping_and_dense)."""
    if len(shape) == 1:
        return known_lt(shape[0], 2) or known_eq(strides[0], 1)
    order = sorted(range(len(shape)), key=functools.cmp_to_key(
        lambda a, b: _stride_order(shape, strides, a, b)))
    expected: Dim = 1
    for dim in order:
        if known_lt(shape[dim], 2):
            return True
        if not known_eq(strides[dim], expected):
            return False
        expected = expected * shape[dim]
    return True


def _stride_order(shape: Sequence[Dim], strides: Sequence[Dim], a: int, b: int) -> int:
    """Size-1 (and empty) dims last, then by increasing stride."""
    small_a, small_b = known_lt(shape[a], 2), known_lt(shape[b], 2)
    if small_a or small_b:
        return int(small_a) - int(small_b)
    return -1 if known_lt(strides[a], strides[b]) else 1 if known_lt(strides[b], strides[a]) else 0


# ---------------------------------------------------------------------------- views: computeStride


def view_strides(shape: Sequence[Dim], strides: Sequence[Dim], new_shape: Sequence[Dim]) -> Strides | None:
    """The strides of ``view(new_shape)`` over a tensor laid out as (shape, strides),
    or None when no strides can express it (ATen's computeStride): the old dims
    are cut into chunks that are contiguous among themselves, and the new shape
    must split into chunks of the same element counts."""
    return _view_strides(tuple(shape), tuple(strides), tuple(new_shape))


@functools.lru_cache(maxsize=4096)
def _view_strides(shape: tuple[Dim, ...], strides: Strides, new_shape: tuple[Dim, ...]) -> Strides | None:
    if not shape:
        return (1,) * len(new_shape)
    numel = _product(shape)
    if known_eq(numel, 0):
        if len(shape) == len(new_shape) and all(known_eq(a, b) for a, b in zip(shape, new_shape)):
            return tuple(strides)
        return contiguous_strides(new_shape)
    new: list[Dim] = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = strides[-1]  # the stride of each element of the current chunk
    tensor_numel: Dim = 1
    view_numel: Dim = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel = tensor_numel * shape[tensor_d]
        chunk_ends = tensor_d == 0 or (not known_eq(shape[tensor_d - 1], 1)
                                       and not known_eq(strides[tensor_d - 1], tensor_numel * chunk_base))
        if not chunk_ends:
            continue
        while view_d >= 0 and (known_lt(view_numel, tensor_numel) or known_eq(new_shape[view_d], 1)):
            new[view_d] = view_numel * chunk_base
            view_numel = view_numel * new_shape[view_d]
            view_d -= 1
        if not known_eq(view_numel, tensor_numel):
            return None
        if tensor_d > 0:
            chunk_base, tensor_numel, view_numel = strides[tensor_d - 1], 1, 1
    if view_d != -1:
        return None
    return tuple(to_dim(s) for s in new)


def _product(values: Sequence[Dim]) -> Dim:
    total: Dim = 1
    for value in values:
        total = total * value
    return total


# ---------------------------------------------------------------------------- new tensors like others


def preserved_strides(meta: TensorMeta, memory_format: Any = None) -> Strides | None:
    """The strides of ``empty_like(meta, memory_format)`` (clone, _to_copy): under
    preserve_format a dense layout is kept and any other is made dense in the
    same order of dims (ATen's infer_dense_strides); another format lays the
    tensor out afresh."""
    name = memory_format_name(memory_format)
    if name != "preserve_format":
        return format_strides(meta.shape, name)
    if meta.strides is None or is_non_overlapping_and_dense(meta.shape, meta.strides):
        return meta.strides
    return _dense_in_order(meta.shape, _logical_to_physical(meta.shape, [meta.strides]))


def elementwise_strides(shape: Sequence[Dim], operands: Sequence[Any]) -> Strides | None:
    """The strides torch gives the result of an elementwise op over ``operands``
    (tensors broadcast to ``shape``; numbers and 0-d tensors do not count):
    the dims ordered as the inputs' strides order them, the first input
    deciding where they disagree, then laid out densely in that order."""
    tensors = [t for t in operands if isinstance(t, TensorMeta) and t.ndim > 0]
    if not tensors or len(shape) == 0 or all(t.strides is None for t in tensors):
        return None
    if len(shape) == 1:
        return (1,)
    return _elementwise_strides(tuple(shape), tuple(_broadcast_strides(t, shape) for t in tensors))


@functools.lru_cache(maxsize=4096)
def _elementwise_strides(shape: tuple[Dim, ...], broadcast: tuple[Strides, ...]) -> Strides | None:
    if all(_dense_along(shape, s, range(len(shape))) for s in broadcast):
        return None
    if len(broadcast) == 1:
        dense = is_non_overlapping_and_dense(shape, broadcast[0])
        return broadcast[0] if dense else _dense_in_order(shape, _logical_to_physical(shape, broadcast))
    return _dense_in_order(shape, _logical_to_physical(shape, broadcast))


def _broadcast_strides(meta: TensorMeta, shape: Sequence[Dim]) -> Strides:
    """meta's strides once expanded to ``shape``: 0 for new and stretched dims."""
    offset = len(shape) - meta.ndim
    strides = strides_of(meta)
    out: list[Dim] = [0] * offset
    for index, (size, stride) in enumerate(zip(meta.shape, strides)):
        stretched = known_eq(size, 1) and not known_eq(shape[offset + index], 1)
        out.append(0 if stretched else stride)
    return tuple(out)


def _logical_to_physical(shape: Sequence[Dim], strides: Sequence[Strides]) -> list[int]:
    """The dims from the slowest to the fastest (torch's insertion sort with
    ambiguous comparisons, compute_elementwise_output_logical_to_physical_perm)."""
    perm = list(reversed(range(len(shape))))
    for i in range(1, len(shape)):
        dim1 = i
        for dim0 in reversed(range(i)):
            comparison = _should_swap(shape, strides, perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return list(reversed(perm))


def _should_swap(shape: Sequence[Dim], strides: Sequence[Strides], a: int, b: int) -> int:
    for tensor in strides:
        stride_a, stride_b = tensor[a], tensor[b]
        if known_eq(stride_a, 0) or known_eq(stride_b, 0):
            continue
        if known_eq(stride_a, stride_b):
            if _ge(shape[b], shape[a]):
                continue
            return 1
        if _ge(stride_b, stride_a):
            return -1
        if _ge(stride_a, stride_b):
            return 1
    return 0


def _ge(a: Dim, b: Dim) -> bool:
    if known_eq(b, 0):
        return True
    if known_eq(a, 0):
        return False
    return known_le(b, a) or _divides(b, a)


# ---------------------------------------------------------------------------- running a stride rule


def result_strides(key: str, args: Sequence[Any], expected: Any) -> list[Strides | None] | None:
    """The strides of each result of op ``key`` on ``args`` (metas carrying their
    strides), given what its shape rule returned: its stride rule's answer; None
    when every result is row-major (as the results of an op without one)."""
    rule = STRIDE_RULES.get(key)
    return None if rule is None else apply_stride_rule(rule, args, expected)


def apply_stride_rule(rule: Any, args: Sequence[Any], expected: Any) -> list[Strides | None] | None:
    """``result_strides`` with the op's stride rule in hand."""
    got = rule(expected, *args)
    if not isinstance(expected, (tuple, list)):
        return None if got is None else [normalized(expected.shape, got)]
    strides = [normalized(r.shape, s) if isinstance(r, TensorMeta) else None for r, s in zip(expected, got)]
    return strides if any(s is not None for s in strides) else None
