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


def laid_out(name: str, kernel: Kernel) -> Kernel:
    """``kernel``, whose results are laid out as torch's when an input is not row-major."""
    key = op_key(name)

    def run(*args: Any) -> Any:
        out = kernel(*args)
        for arg in args:
            if type(arg) is np.ndarray:
                if not arg.flags.c_contiguous:
                    return lay_out(key, args, out)
            elif type(arg) is list and any(type(a) is np.ndarray and not a.flags.c_contiguous for a in arg):
                return lay_out(key, args, out)
        return out

    # the entry keeps its source's names, so it reads as part of its family (not as
    # derived from another kernel: no __wrapped__)
    run.__module__, run.__name__, run.__qualname__, run.__doc__ = (
        kernel.__module__, kernel.__name__, kernel.__qualname__, kernel.__doc__)
    return run


def lay_out(key: str, args: Sequence[Any], out: Any) -> Any:
    """The results ``out`` of op ``key`` on ``args``, in the layout torch gives them."""
    how = _HOW.get(key) or _decide(key)
    if how == _OWN:
        return out
    several = isinstance(out, (tuple, list))
    results = list(out) if several else [out]
    if how == _ROW_MAJOR:
        strides: list[Any] = [None] * len(results)
    else:
        metas = [_meta(r) if type(r) is np.ndarray else r for r in results]
        strides = (result_strides(key, [_meta(a) for a in args], type(out)(metas) if several else metas[0])
                   or [None] * len(results))
    laid = [with_strides(r, s) if type(r) is np.ndarray else r for r, s in zip(results, strides)]
    return type(out)(laid) if several else laid[0]


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
    if strides is None:
        return array if array.flags.c_contiguous else np.ascontiguousarray(array)
    if all(size < 2 or have == want * array.itemsize
           for size, have, want in zip(array.shape, array.strides, strides)):
        return array
    order = sorted(range(array.ndim), key=lambda d: -int(strides[d]))  # slowest dim first
    dense = np.ascontiguousarray(np.transpose(array, order))
    return np.transpose(dense, np.argsort(order))
