"""Kernels lay their results out as torch does.

numpy picks the memory order of what a kernel returns (a ufunc follows its
inputs' order, a reduction keeps the order of the dims it keeps); torch picks
it by the op (dialects/shape_rules/strides.py): a view shares its input's
memory, an elementwise op follows its inputs as TensorIterator does, any other
op writes a fresh row-major tensor. The two differ only when an input is not
row-major, and the difference matters: a later ``view`` succeeds, in torch and
here, only where the strides allow it, and programs are lowered to views where
torch's strides allow them. So each kernel is registered wrapped: when one of
its inputs is not row-major, its results are laid out as the op's stride rule
says (views and ops writing their inputs keep numpy's, which is torch's).

The wrapper costs on every call of every kernel, so what can be decided per op
is decided once: a view's kernel is registered bare (its results are numpy
views of its input, laid out as torch's by construction); any other kernel
looks at its tensor arguments only (the schema says where they are); and the
layout a stride rule gives is remembered per op and layout of the arguments
(a stride rule is a function of its arguments' shapes, dtypes, strides and
other values, and of the results' shapes and dtypes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from texport.dialects.meta import TensorMeta
from texport.dialects.registry import OPS, op_key
from texport.dialects.shape_rules import STRIDE_RULES
from texport.dialects.shape_rules.strides import result_strides

from ..dtypes import from_numpy

Kernel = Callable[..., Any]

_OWN, _RULE, _ROW_MAJOR = "own", "rule", "row-major"
_HOW: dict[str, str] = {}  # op key -> how its results are laid out, decided on first need

# (op key, layout signature of the arguments and results) -> per result, KEEP or the
# strides to lay it out in (None: row-major); bounded, as models repeat a few layouts
_KEEP = "keep"
_LAYOUTS: dict[tuple[Any, ...], list[Any]] = {}
_LAYOUTS_BOUND = 8192


def laid_out(name: str, kernel: Kernel) -> Kernel:
    """``kernel``, whose results are laid out as torch's when an input is not row-major."""
    key = op_key(name)
    op_def = OPS.get(key)
    if op_def is None or op_def.schema.is_view or op_def.has_tag("inplace_view"):
        return kernel  # numpy's view of an input is laid out as torch's view of it
    arguments = op_def.schema.arguments
    tensors = tuple(i for i, a in enumerate(arguments) if a.type.is_tensor_like and not a.type.is_list)
    lists = tuple(i for i, a in enumerate(arguments) if a.type.is_tensor_like and a.type.is_list)
    count = len(arguments)
    if not tensors and not lists:
        return kernel  # no input to follow: its results are fresh, row-major

    # one and two tensors (unary and binary ops, most calls) spelled out: no loop
    if count == 1 and tensors:
        kept: set[tuple[Any, ...]] = set()  # layouts of (x, out) that lay_out kept as they are
        pointwise = op_def.has_tag("pointwise")  # TensorIterator's layout: _row_major_order

        def run(*args: Any) -> Any:
            out = kernel(*args)
            if len(args) != 1:
                return lay_out(key, args, out) if _any_strided(args) else out
            (arg,) = args
            if type(arg) is not np.ndarray or arg.flags.c_contiguous:
                return out
            if type(out) is not np.ndarray:
                return lay_out(key, args, out)
            if pointwise and out.flags.c_contiguous and _row_major_order(arg.strides):
                return out  # a view in row-major dim order (a chunk, a slice): so is torch's result
            # a unary op on another view (a column): one set lookup instead of lay_out's signature
            seen = (arg.shape, arg.strides, arg.dtype, out.shape, out.strides, out.dtype)
            if seen in kept:
                return out
            laid = lay_out(key, args, out)
            if laid is out:
                if len(kept) >= _LAYOUTS_BOUND:
                    kept.clear()
                kept.add(seen)
            return laid
    elif len(tensors) == 1 and not lists:
        (only,) = tensors

        def run(*args: Any) -> Any:
            out = kernel(*args)
            if len(args) == count:
                arg = args[only]
                if type(arg) is not np.ndarray or arg.flags.c_contiguous:
                    return out
            elif not _any_strided(args):
                return out
            return lay_out(key, args, out)
    elif len(tensors) == 2 and not lists:
        first, second = tensors

        def run(*args: Any) -> Any:
            out = kernel(*args)
            if len(args) == count:
                a, b = args[first], args[second]
                if ((type(a) is not np.ndarray or a.flags.c_contiguous)
                        and (type(b) is not np.ndarray or b.flags.c_contiguous)):
                    return out
            elif not _any_strided(args):
                return out
            return lay_out(key, args, out)
    else:
        def run(*args: Any) -> Any:
            out = kernel(*args)
            if len(args) != count:
                return lay_out(key, args, out) if _any_strided(args) else out
            for i in tensors:
                arg = args[i]
                if type(arg) is np.ndarray and not arg.flags.c_contiguous:
                    return lay_out(key, args, out)
            for i in lists:
                if _any_strided(args[i]):
                    return lay_out(key, args, out)
            return out

    # the entry keeps its source's names, so it reads as part of its family (not as
    # derived from another kernel: no __wrapped__)
    run.__module__, run.__name__, run.__qualname__, run.__doc__ = (
        kernel.__module__, kernel.__name__, kernel.__qualname__, kernel.__doc__)
    return run


def _row_major_order(strides: tuple[int, ...]) -> bool:
    """Strides strictly decreasing and positive: the dims in row-major order, with gaps. An
    elementwise op's TensorIterator orders its result's dims by its input's strides, so
    the result of such a view is row-major (numpy's K order gives the same)."""
    if len(strides) == 2:
        return strides[0] > strides[1] > 0
    return all(a > b for a, b in zip(strides, strides[1:])) and bool(strides) and strides[-1] > 0


def _any_strided(values: Any) -> bool:
    """Some array among ``values`` (or in a list among them) is not row-major."""
    for value in values:
        if type(value) is np.ndarray:
            if not value.flags.c_contiguous:
                return True
        elif type(value) is list and _any_strided(value):
            return True
    return False


def lay_out(key: str, args: Sequence[Any], out: Any) -> Any:
    """The results ``out`` of op ``key`` on ``args``, in the layout torch gives them."""
    how = _HOW.get(key) or _decide(key)
    if how == _OWN:
        return out
    if how == _ROW_MAJOR and type(out) is np.ndarray:  # one result, of an op without a stride rule
        return out if out.flags.c_contiguous else np.ascontiguousarray(out)
    several = isinstance(out, (tuple, list))
    results = out if several else (out,)
    plans = [None] * len(results) if how == _ROW_MAJOR else _rule_plans(key, args, out, results, several)
    if plans is _KEEP:
        return out
    laid = [r if plan is _KEEP or type(r) is not np.ndarray else with_strides(r, plan)
            for r, plan in zip(results, plans)]
    return type(out)(laid) if several else laid[0]


def _rule_plans(key: str, args: Sequence[Any], out: Any, results: Sequence[Any], several: bool) -> Any:
    """KEEP when every result is laid out as the op's stride rule says, else per result
    KEEP or the strides to lay it out in (memoised)."""
    try:
        signature = (key, _signature(args), (out.shape, out.strides, out.dtype) if type(out) is np.ndarray
                     else _result_signature(results))
        plans = _LAYOUTS.get(signature)
    except TypeError:  # an unhashable argument: nothing to remember it by
        signature, plans = None, None
    if plans is not None:
        return plans
    metas = [_meta(r) if type(r) is np.ndarray else r for r in results]
    strides = (result_strides(key, [_meta(a) for a in args], type(out)(metas) if several else metas[0])
               or [None] * len(results))
    plans = [_KEEP if type(r) is not np.ndarray or _is_laid_out(r, s) else s
             for r, s in zip(results, strides)]
    if all(plan is _KEEP for plan in plans):
        plans = _KEEP
    if signature is not None:
        if len(_LAYOUTS) >= _LAYOUTS_BOUND:
            _LAYOUTS.clear()
        _LAYOUTS[signature] = plans
    return plans


def _signature(values: Sequence[Any]) -> tuple[Any, ...]:
    """What a stride rule may read of ``values``: an array's shape, strides and dtype,
    another value itself and its type (unhashable values make the signature unhashable)."""
    return tuple([(value.shape, value.strides, value.dtype) if type(value) is np.ndarray
                  else (type(value), _signature(value)) if type(value) is list or type(value) is tuple
                  else (type(value), value) for value in values])


def _result_signature(results: Sequence[Any]) -> tuple[Any, ...]:
    """What a stride rule may read of the results: an array's shape, strides and dtype
    (of a scalar result, its type: its value says nothing of a layout)."""
    return tuple([(r.shape, r.strides, r.dtype) if type(r) is np.ndarray else type(r) for r in results])


def _decide(key: str) -> str:
    op_def = OPS.get(key)
    if STRIDE_RULES.get(key) is None:
        how = _ROW_MAJOR
    elif op_def is None or op_def.schema.is_view or op_def.schema.is_mutable or op_def.has_tag("inplace_view"):
        how = _OWN
    else:
        how = _RULE
    _HOW[key] = how
    return how


def _meta(value: Any) -> Any:
    if type(value) is np.ndarray:
        strides = tuple(s // value.itemsize for s in value.strides) if value.itemsize else None
        return TensorMeta(value.shape, from_numpy(value.dtype), strides)
    if type(value) is list:
        return [_meta(v) for v in value]
    return value


def with_strides(array: np.ndarray, strides: Sequence[int] | None) -> np.ndarray:
    """``array`` laid out densely in the order of dims ``strides`` gives (None:
    row-major); itself when it already is."""
    if _is_laid_out(array, strides):
        return array
    if strides is None:
        return np.ascontiguousarray(array)
    order = sorted(range(array.ndim), key=lambda d: -int(strides[d]))  # slowest dim first
    dense = np.ascontiguousarray(np.transpose(array, order))
    return np.transpose(dense, np.argsort(order))


def _is_laid_out(array: np.ndarray, strides: Sequence[int] | None) -> bool:
    """``array`` is laid out as ``strides`` say (None: row-major); size-1 dims' strides
    do not matter. A function of the array's shape, strides and item size."""
    if strides is None:
        return bool(array.flags.c_contiguous)
    return all(size < 2 or have == want * array.itemsize
               for size, have, want in zip(array.shape, array.strides, strides))
