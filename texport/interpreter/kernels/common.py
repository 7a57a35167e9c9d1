"""Helpers shared by kernel families."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from texport.dialects.dtypes import DType, result_type
from texport.dialects.meta import TensorMeta

from ..dtypes import FLOAT32, cast, from_numpy, is_reduced_float, to_numpy


def meta_of(value: Any) -> Any:
    """TensorMeta for an array (for dtype rules shared with the shape rules)."""
    if isinstance(value, np.ndarray):
        return TensorMeta(value.shape, from_numpy(value.dtype))
    return value


# torch.result_type depends only on each operand's dtype and whether it is 0-d (a
# tensor), or on its Python type (a wrapped number): decided once per such key
_RESULT_DTYPES: dict[tuple[Any, ...], np.dtype] = {}
_PYTHON_SCALARS = (bool, int, float, complex, type(None))


def _promotion_key(value: Any) -> Any:
    """What torch.result_type reads of an operand; None when it is not a plain ndarray or
    Python scalar (a symbolic scalar, a numpy scalar): no cache for those."""
    kind = type(value)
    if kind is np.ndarray:
        return (value.dtype, value.ndim == 0)
    return kind if kind in _PYTHON_SCALARS else None


def torch_result_dtype(*operands: Any) -> np.dtype:
    """torch.result_type over arrays and Python scalars, as a numpy dtype."""
    key = tuple(_promotion_key(o) for o in operands)
    found = _RESULT_DTYPES.get(key)
    if found is not None:
        return found
    dtype = to_numpy(result_type(*(meta_of(o) for o in operands)))
    if None not in key:
        _RESULT_DTYPES[key] = dtype
    return dtype


# numpy keeps its floating-point error state in a context variable (numpy >= 2);
# np.errstate builds a new state object on every entry (~1-2 us, as much as a
# small kernel), so kernels set one built once here (~0.1 us). Besides the error
# actions it sets the ufunc buffer: numpy allocates one of bufsize elements per operand
# for any broadcast operand (a bias added to (32, 256): 33.9 KB beside 32 KB of data),
# and with 1024 instead of 8192 elements that costs 5.2 KB; the add itself is as fast
# or faster (the buffers stay in L1), a casting ufunc ~7% slower.
_UFUNC_BUFFER = 1024
try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _IGNORE_ALL: Any = _make_extobj(all="ignore", bufsize=_UFUNC_BUFFER)
except ImportError:  # another numpy layout: np.errstate, as numpy documents it
    _extobj_contextvar = None


def quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` run without numpy's floating-point warnings: torch gives inf/nan silently."""
    if _extobj_contextvar is None:
        return np.errstate(all="ignore")(fn)
    enter, leave = _extobj_contextvar.set, _extobj_contextvar.reset

    @functools.wraps(fn)
    def run(*args: Any) -> Any:
        token = enter(_IGNORE_ALL)
        try:
            return fn(*args)
        finally:
            leave(token)

    return run


def quiet_unary(plain: Callable[[np.ndarray], Any], general: Callable[[Any], Any],
                plain_dtypes: frozenset[np.dtype]) -> Callable[[Any], Any]:
    """A unary kernel, quiet as ``quiet`` makes it: ``plain(x)`` (as an ndarray) for an
    ndarray of ``plain_dtypes``, ``general(x)`` for anything else. One frame: elementwise
    ops on small views cost ~2 us, of which nested wrappers took a sixth."""
    if _extobj_contextvar is None:
        return np.errstate(all="ignore")(
            lambda x: general(x) if type(x) is not np.ndarray or x.dtype not in plain_dtypes else as_result(plain(x)))
    enter, leave = _extobj_contextvar.set, _extobj_contextvar.reset

    def run(x: Any) -> Any:
        token = enter(_IGNORE_ALL)
        try:
            if type(x) is np.ndarray and x.dtype in plain_dtypes:
                out = plain(x)
                return out if type(out) is np.ndarray else np.asarray(out)
            return general(x)
        finally:
            leave(token)

    return run


def add_into(out: np.ndarray, other: Any) -> np.ndarray:
    """``out += other`` in the kernels' numpy state: a broadcast bias allocates the small
    ufunc buffers, and an overflow to inf is silent, as in torch."""
    if _extobj_contextvar is None:
        out += other
        return out
    token = _extobj_contextvar.set(_IGNORE_ALL)
    try:
        out += other
    finally:
        _extobj_contextvar.reset(token)
    return out


class silenced:  # noqa: N801 (used as np.errstate is: ``with silenced():``)
    """A block without numpy's floating-point warnings (np.errstate(all="ignore"), cheaper)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        if _extobj_contextvar is None:
            self._token = np.errstate(all="ignore")
            self._token.__enter__()
        else:
            self._token = _extobj_contextvar.set(_IGNORE_ALL)

    def __exit__(self, *exc_info: Any) -> None:
        if _extobj_contextvar is None:
            self._token.__exit__(*exc_info)
        else:
            _extobj_contextvar.reset(self._token)


def read_only(array: np.ndarray) -> np.ndarray:
    """``array``, made read-only: what a kernel keeps between calls (a remembered plan's
    index, a cached constant) is shared by them, so a write would be a bug, and fails."""
    array.setflags(write=False)
    return array


@functools.lru_cache(maxsize=256)
def ones_vector(length: int, dtype: np.dtype) -> np.ndarray:
    """``length`` ones (read-only, remembered): sums over a last axis as BLAS products."""
    return read_only(np.ones(length, dtype))


@functools.lru_cache(maxsize=256)
def dtype_constants(dtype: np.dtype, *values: float) -> tuple[np.ndarray, ...]:
    """Python scalars as read-only 0-d arrays of ``dtype``, remembered: a ufunc converts a
    Python scalar operand to the array's dtype on every call (~0.2 us) and takes a 0-d
    array of that dtype as it is; the value is the one it would have converted."""
    return tuple(read_only(np.array(value, dtype)) for value in values)


def last_axis_sums(x: np.ndarray) -> np.ndarray:
    """The sums over a float32/float64 array's last axis, kept as a size-1 axis: a BLAS
    product with a vector of ones, 1.5-4x numpy's add.reduce along a short last axis
    and as accurate (blocked float sums either way; a softmax's (1024, 128) rows: 34 ->
    8 us)."""
    return np.matmul(x, ones_vector(x.shape[-1], x.dtype))[..., None]


def as_result(value: Any) -> np.ndarray:
    """A ufunc's result as an ndarray: numpy returns a scalar for 0-d operands."""
    return value if type(value) is np.ndarray else np.asarray(value)


def opmath(x: np.ndarray) -> np.ndarray:
    """x in the dtype products and sums are computed in (float16, bfloat16 -> float32)."""
    return x.astype(FLOAT32) if is_reduced_float(x.dtype) else x


def result_as(value: object, dtype: np.dtype) -> np.ndarray:
    """`value` as an ndarray of `dtype`, rounded as torch casts; a 0-d result stays
    a 0-d ndarray."""
    return cast(value, dtype)


def as_array(value: Any, dtype: np.dtype | None = None) -> np.ndarray:
    """An ndarray (0-d stays 0-d ndarray, never a numpy scalar)."""
    array = np.asarray(value, dtype=dtype)
    return array


def numpy_dtype(dtype: DType) -> np.dtype:
    return to_numpy(dtype)


def check_arguments(op: str, *args: Any) -> None:
    """Eager calls run kernels without shape rules: a kernel whose inputs need torch's
    checks runs its op's shape rule on their metas (with the arrays' strides) first,
    so eager refuses bad input with the same message as export."""
    from texport.dialects.shape_rules import SHAPE_RULES
    from texport.dialects.shape_rules.guards import ShapeGuardError

    try:
        SHAPE_RULES[op](*(_strided_meta(a) for a in args))
    except ShapeGuardError as error:  # torch's eager kernels raise RuntimeError
        raise RuntimeError(str(error)) from error


def _strided_meta(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        strides = tuple(s // value.itemsize for s in value.strides) if value.itemsize else None
        return TensorMeta(value.shape, from_numpy(value.dtype), strides)
    return value


def logaddexp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log(exp(a) + exp(b)); for complex numbers torch's formula: with lo, hi ordered by
    real part (b is lo on a tie), log1p(exp(lo - hi)) + hi (so the imaginary part is
    not wrapped into (-pi, pi]); a nan anywhere gives nan + nan j, two -inf real parts give lo, two
    +inf real parts give log(exp(lo) + exp(hi))."""
    if a.dtype.kind != "c" and b.dtype.kind != "c":
        return np.logaddexp(a, b)
    a, b = np.broadcast_arrays(a, b)
    swap = b.real <= a.real  # a tie takes b as lo
    lo, hi = np.where(swap, b, a), np.where(swap, a, b)
    with silenced():
        value = np.log1p(np.exp(lo - hi)) + hi
        both_inf = ~np.isfinite(lo.real) & (lo.real == hi.real)
        value = np.where(both_inf, np.where(lo.real < 0, lo, np.log(np.exp(lo) + np.exp(hi))), value)
    nan = np.isnan(lo.real) | np.isnan(lo.imag)
    return np.where(nan, np.asarray(complex(np.nan, np.nan), value.dtype), value).astype(value.dtype)
