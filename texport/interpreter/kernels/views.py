"""Kernels: views, joins, splits, rearrangements, dtype casts (the copies of
views are derived from their views, variants.py).

Aliasing follows torch. A view op returns a numpy view of its input, so a write
through it reaches the base; a ``*_copy`` op returns fresh memory. torch's
strides and storage offsets are read off numpy's byte strides and data
addresses (element strides = byte strides / itemsize; the storage is the
allocation at the root of the ``.base`` chain).

Limitations, all because numpy cannot re-stride an existing array object
(assigning ``ndarray.strides`` is deprecated since numpy 2.4, assigning
``ndarray.shape`` since 2.5: set_shape_in_place is the one place that still
does the latter) or resize it safely:

- expand / expand_as return a READ-ONLY view when some dim is really broadcast:
  several elements share one memory location, and writing through such a
  tensor is undefined in torch too (its in-place ops refuse it).
- t_ / transpose_ / swapaxes_ / swapdims_ / as_strided_ keep the array object
  and change its shape (as_strided_ to another element count returns a new
  view of the storage, as resize_ below); when the element order changes (a real transpose) the
  data is rewritten in place in the new order. The object then reads exactly
  as torch's tensor, but OTHER live views of the same memory see the reordered
  elements (torch's would not). A non-contiguous array that needs a real
  re-stride raises NotImplementedError.
- as_strided_ that changes the element count returns a new array, a view of the
  same storage, as resize_ does.
- resize_ keeps the object only when the element count is unchanged and the
  array is contiguous; otherwise it returns a new array (a view of the same
  storage when it fits, as torch does, else a fresh zero-padded one).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

from texport.dialects.shape_rules.views import chunk_cat_dim, scalar_type

from ..dtypes import FLOAT32, is_reduced_float, to_numpy
from . import kernel
from .common import torch_result_dtype

# ---------------------------------------------------------------------------- shared helpers
# (also used by indexing.py and factories.py)


def np_dtype(value: Any, default: np.dtype) -> np.dtype:
    """A ScalarType argument (DType, schema default number such as 4, or None) as numpy."""
    dtype = scalar_type(value)
    return default if dtype is None else to_numpy(dtype)


def wrap_dim(dim: int, ndim: int) -> int:
    """torch's maybe_wrap_dim: negative dims count from the end; a 0-d tensor takes -1 and 0."""
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], "
            f"but got {dim})"
        )
    return dim + bound if dim < 0 else dim


def along(dim: int, item: Any) -> tuple[Any, ...]:
    """An index tuple applying `item` to dim `dim` (the Ellipsis keeps a 0-d result an array)."""
    return (slice(None),) * dim + (item, Ellipsis)


def check_index_range(index: np.ndarray, size: int, dim: int) -> None:
    """gather/scatter/embedding indices must lie in [0, size): no negative wrap-around."""
    if index.size == 0:
        return
    low, high = int(index.min()), int(index.max())
    if low < 0 or high >= size:
        bad = low if low < 0 else high
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _storage_root(a: np.ndarray) -> np.ndarray:
    """The ndarray at the root of `a`'s base chain: torch's storage."""
    root: np.ndarray = a
    obj: Any = a
    while (obj := getattr(obj, "base", None)) is not None:  # DummyArray (as_strided) has .base
        if isinstance(obj, np.ndarray):
            root = obj
    return root


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def storage_offset(a: np.ndarray) -> int:
    """torch's storage_offset(): elements between the storage start and a's first element."""
    return (_address(a) - _address(_storage_root(a))) // a.itemsize


def element_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def contiguous_strides(shape: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return strides[::-1]


def strided_view(
    a: np.ndarray, size: Sequence[int], stride: Sequence[int], offset: int | None
) -> np.ndarray:
    """torch's as_strided: element strides and offset relative to a's storage, bounds-checked."""
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    offset = storage_offset(a) if offset is None else int(offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {stride}")
    root = _storage_root(a)
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        raise NotImplementedError("as_strided: the storage of this array is not one memory block")
    capacity = root.nbytes // a.itemsize
    extent = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if offset + extent > capacity:
        raise RuntimeError(
            f"setStorage: sizes {size}, strides {stride}, storage offset {offset}, and itemsize "
            f"{a.itemsize} requiring a storage size of {(offset + extent) * a.itemsize} are out "
            f"of bounds for storage of size {capacity * a.itemsize}"
        )
    memory = root.reshape(-1, order="A").view(np.uint8)  # the whole allocation, in bytes
    start = offset * a.itemsize
    origin = memory[start:start + max(extent, 1) * a.itemsize].view(a.dtype)
    byte_strides = [s * a.itemsize for s in stride]
    return _np_as_strided(origin, size, byte_strides, writeable=a.flags.writeable)


def restrided(a: np.ndarray, shape: Sequence[int], byte_strides: Sequence[int], writeable: bool) -> np.ndarray:
    """numpy's as_strided of `a` (byte strides from a's first element). On a contiguous array
    the view is made directly over a's memory: as_strided's Python wrapper costs ten times more."""
    if not (a.flags.c_contiguous and a.size):
        return _np_as_strided(a, shape, byte_strides, writeable=writeable)
    out = np.ndarray(shape, a.dtype, a, 0, byte_strides)  # its base is a; read-only if a is
    if not writeable:
        out.flags.writeable = False
    return out


def _shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def infer_size(size: Sequence[int], numel: int) -> tuple[int, ...]:
    """A view size list with its one -1 filled in, checked against numel (torch's messages)."""
    sizes = [int(s) for s in size]
    holes = [i for i, s in enumerate(sizes) if s == -1]
    if len(holes) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in sizes:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = math.prod(s for s in sizes if s != -1)
    invalid = f"shape '{_shape_text(sizes)}' is invalid for input of size {numel}"
    if not holes:
        if known != numel:
            raise RuntimeError(invalid)
        return tuple(sizes)
    if known == 0:
        if numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {_shape_text(sizes)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        raise RuntimeError(invalid)
    if numel % known:
        raise RuntimeError(invalid)
    sizes[holes[0]] = numel // known
    return tuple(sizes)


_VIEW_ERROR = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)


_RESHAPE_HAS_COPY = np.lib.NumpyVersion(np.__version__) >= "2.1.0"


def reshape_view(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A reshaped view of `a`, or torch's view error when the strides cannot express it."""
    if _RESHAPE_HAS_COPY:
        try:
            return np.reshape(a, shape, copy=False)
        except ValueError:
            raise RuntimeError(_VIEW_ERROR) from None
    out = a.view()
    try:
        out.shape = shape  # numpy < 2.1 refuses with AttributeError when a copy is needed
    except AttributeError:
        raise RuntimeError(_VIEW_ERROR) from None
    return out


def set_shape_in_place(a: np.ndarray, shape: tuple[int, ...]) -> None:
    """Give the array OBJECT `a` a new shape without copying (AttributeError if impossible).

    In-place view ops (squeeze_, t_...) must change the very object later ops read, and
    assigning ``ndarray.shape`` is numpy's only way to do it; numpy 2.5 deprecates it, so
    the warning is silenced here and only here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        a.shape = shape


# ---------------------------------------------------------------------------- reshaping views


# view and reshape try numpy's reshape first: where it succeeds on sizes of at least -1
# (numpy takes any negative size for the one to infer), torch's gives the same shape; where it
# fails (or on older numpy), the general path below raises torch's error


@kernel("view")
def _view(self: np.ndarray, size: Sequence[int]) -> np.ndarray:
    try:
        if min(size, default=0) >= -1:  # a contiguous array always reshapes to a view
            return self.reshape(size) if self.flags.c_contiguous else self.reshape(size, copy=False)
    except (ValueError, TypeError):
        pass
    return reshape_view(self, infer_size(size, self.size))


@kernel("reshape", "_unsafe_view")
def _reshape(self: np.ndarray, size: Sequence[int]) -> np.ndarray:
    """A view when the strides allow it, else a copy (torch's reshape)."""
    try:
        if min(size, default=0) >= -1:
            return self.reshape(size)
    except (ValueError, TypeError):
        pass
    return np.reshape(self, infer_size(size, self.size))


@kernel("view_as")
def _view_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return _view(self, other.shape)


@kernel("reshape_as")
def _reshape_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return _reshape(self, other.shape)


@kernel("view.dtype")
def _view_dtype(self: np.ndarray, dtype: Any) -> np.ndarray:
    """Reinterpret the bytes; a different item size rescales the last dim (must be dense)."""
    target = np_dtype(dtype, self.dtype)
    if target.itemsize != self.itemsize and self.ndim == 0:
        raise RuntimeError("self.dim() cannot be 0 to view as a dtype with a different size")
    try:
        return self.view(target)
    except ValueError as error:
        raise RuntimeError(f"view.dtype: {error}") from None


@kernel("flatten.using_ints")
def _flatten(self: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    if self.ndim == 0:
        wrap_dim(start_dim, 0)
        wrap_dim(end_dim, 0)
        return self.reshape(1)
    start, end = wrap_dim(start_dim, self.ndim), wrap_dim(end_dim, self.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    merged = math.prod(self.shape[start:end + 1])
    return np.reshape(self, (*self.shape[:start], merged, *self.shape[end + 1:]))


@kernel("unflatten.int")
def _unflatten(self: np.ndarray, dim: int, sizes: Sequence[int]) -> np.ndarray:
    """Splitting one dim is always expressible with strides: a view."""
    d = wrap_dim(dim, self.ndim)
    inner = infer_size(sizes, self.shape[d])
    return _view(self, (*self.shape[:d], *inner, *self.shape[d + 1:]))


# ---------------------------------------------------------------------------- dim reordering


@kernel("permute")
def _permute(self: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    if len(dims) == self.ndim:  # numpy wraps dims as torch; what it refuses, torch does below
        try:
            return self.transpose(dims)
        except (ValueError, IndexError, TypeError):
            pass
    order = [wrap_dim(d, self.ndim) for d in dims]
    if len(order) != self.ndim or len(set(order)) != len(order):
        raise RuntimeError(f"permute(): invalid dims {list(dims)} for a {self.ndim}-d tensor")
    return np.transpose(self, order) if self.ndim else self.view()


@kernel("transpose.int", "swapaxes", "swapdims")
def _transpose(self: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
    if self.ndim:  # numpy wraps dims as torch; what it refuses, torch does below
        try:
            return self.swapaxes(dim0, dim1)
        except (ValueError, IndexError, TypeError):
            pass
    a, b = wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim)
    return np.swapaxes(self, a, b) if self.ndim else self.view()


@kernel("t")
def _t(self: np.ndarray) -> np.ndarray:
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return self.transpose()


@kernel("movedim.int", "moveaxis.int")
def _movedim(self: np.ndarray, source: int, destination: int) -> np.ndarray:
    return _movedim_list(self, [source], [destination])


@kernel("movedim.intlist", "moveaxis.intlist")
def _movedim_list(
    self: np.ndarray, source: Sequence[int], destination: Sequence[int]
) -> np.ndarray:
    src = [wrap_dim(d, self.ndim) for d in source]
    dst = [wrap_dim(d, self.ndim) for d in destination]
    if self.ndim == 0:
        return self.view()
    return np.moveaxis(self, src, dst)


# ---------------------------------------------------------------------------- size-1 dims, expand


@kernel("squeeze")
def _squeeze(self: np.ndarray) -> np.ndarray:
    return self.squeeze()


@kernel("squeeze.dim")
def _squeeze_dim(self: np.ndarray, dim: int) -> np.ndarray:
    return _squeeze_dims(self, [dim])


@kernel("squeeze.dims")
def _squeeze_dims(self: np.ndarray, dim: Sequence[int]) -> np.ndarray:
    """Only the listed dims of size 1 go; a listed dim of another size stays (torch)."""
    if len(dim) == 1 and -self.ndim <= dim[0] < self.ndim:  # one dim in range (decompositions' case)
        return self.squeeze(dim[0] if self.shape[dim[0]] == 1 else ())
    wanted = {wrap_dim(d, self.ndim) for d in dim}
    if self.ndim == 0:
        return self.view()
    shape = self.shape
    return self.squeeze(tuple(d for d in sorted(wanted) if shape[d] == 1))


@kernel("unsqueeze")
def _unsqueeze(self: np.ndarray, dim: int) -> np.ndarray:
    """A size-1 dim inserted by reshape, a view whatever the strides (as np.expand_dims)."""
    d = wrap_dim(dim, self.ndim + 1)
    shape = self.shape
    return self.reshape(shape[:d] + (1,) + shape[d:])


def expand_shape(shape: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """torch's inferExpandGeometry: -1 keeps a dim, size-1 dims stretch, new dims lead."""
    sizes = [int(s) for s in sizes]
    lead = len(sizes) - len(shape)
    if lead < 0:
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(shape)})"
        )
    out = []
    for i, target in enumerate(sizes):
        size = shape[i - lead] if i >= lead else None
        if size is not None and target == -1:
            target = size
        elif size is None and target < 0:
            raise RuntimeError(f"The expanded size of the tensor ({target}) isn't allowed in a "
                               f"leading, non-existing dimension {i}")
        elif size is not None and size not in (1, target):
            raise RuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size "
                f"({size}) at non-singleton dimension {i}.  Target sizes: {_shape_text(sizes)}.  "
                f"Tensor sizes: {_shape_text(shape)}"
            )
        out.append(target)
    return tuple(out)


@kernel("expand")
def _expand(self: np.ndarray, size: Sequence[int], implicit: bool = False) -> np.ndarray:
    """A stride-0 view; read-only when a dim really repeats memory (see the module docstring)."""
    try:
        shape, strides, repeats = _expand_geometry(self.shape, self.strides, tuple(size))
    except TypeError:  # an unhashable size (a symbolic one): worked out afresh
        shape, strides, repeats = _expand_geometry.__wrapped__(self.shape, self.strides, tuple(size))
    if shape is None:  # decompositions expand to the same shape
        return self.view()
    return restrided(self, shape, strides, self.flags.writeable and not repeats)


@functools.lru_cache(maxsize=1024)
def _expand_geometry(have: tuple[int, ...], byte_strides: tuple[int, ...],
                     size: tuple[int, ...]) -> tuple[Any, Any, bool]:
    """(shape, byte strides, whether a dim really repeats memory) of ``expand(size)`` of an
    array of shape ``have`` (shape None: the same shape, a plain view); remembered, as a
    model expands the same shapes call after call. torch's errors are raised uncached."""
    if len(size) == len(have) and size == have:
        return None, None, False
    shape = expand_shape(have, size)
    lead = len(shape) - len(have)
    strides = tuple([0] * lead + [
        0 if (old == 1 and new != 1) else stride
        for old, new, stride in zip(have, shape[lead:], byte_strides)
    ])
    repeats = any(s == 0 and n > 1 for s, n in zip(strides, shape)) and 0 not in have
    return shape, strides, repeats


@kernel("expand_as")
def _expand_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return _expand(self, other.shape)


# ---------------------------------------------------------------------------- sub-tensor views


@kernel("slice.Tensor")
def slice_view(
    self: np.ndarray, dim: int = 0, start: int | None = None, end: int | None = None,
    step: int = 1,
) -> np.ndarray:
    """Python slicing clamps bounds exactly as torch does for a positive step."""
    if self.ndim == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = wrap_dim(dim, self.ndim)
    bounds = slice(None if start is None else int(start), None if end is None else int(end), int(step))
    return self[bounds] if d == 0 else self[along(d, bounds)]


@kernel("select.int")
def select_view(self: np.ndarray, dim: int, index: int) -> np.ndarray:
    if self.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, self.ndim)
    size, index = self.shape[d], int(index)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
    return self[along(d, index)]


@kernel("narrow")
def _narrow(self: np.ndarray, dim: int, start: int, length: int) -> np.ndarray:
    if self.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, self.ndim)
    size, start, length = self.shape[d], int(start), int(length)
    if start < 0:
        start += size
    if length < 0 or not 0 <= start <= size or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return self[along(d, slice(start, start + length))]


@kernel("diagonal")
def diagonal_view(self: np.ndarray, offset: int = 0, dim1: int = 0, dim2: int = 1) -> np.ndarray:
    """A writable strided view (np.diagonal's is read-only): stride = stride1 + stride2."""
    a, b = wrap_dim(dim1, self.ndim), wrap_dim(dim2, self.ndim)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rows, cols = self.shape[a], self.shape[b]
    if offset >= 0:
        length, first = min(rows, cols - offset), (0, offset)
    else:
        length, first = min(rows + offset, cols), (-offset, 0)
    length = max(length, 0)
    if length == 0:
        first = (0, 0)  # keep the origin inside the array
    corner = tuple(slice(first[0], None) if i == a else slice(first[1], None) if i == b
                   else slice(None) for i in range(self.ndim))
    rest = [i for i in range(self.ndim) if i not in (a, b)]
    shape = [self.shape[i] for i in rest] + [length]
    strides = [self.strides[i] for i in rest] + [self.strides[a] + self.strides[b]]
    return _np_as_strided(self[corner], shape, strides, writeable=self.flags.writeable)


@kernel("as_strided")
def _as_strided(
    self: np.ndarray, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> np.ndarray:
    return strided_view(self, size, stride, storage_offset)


@kernel("unfold")
def _unfold(self: np.ndarray, dimension: int, size: int, step: int) -> np.ndarray:
    """Windows of `size` every `step` along a dim, as a new last dim: a strided view."""
    d = wrap_dim(dimension, self.ndim)
    length = self.shape[d] if self.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if self.ndim == 0:
        return self.reshape(1)
    windows = (length - size) // step + 1
    shape = [*self.shape[:d], windows, *self.shape[d + 1:], size]
    strides = [*self.strides[:d], self.strides[d] * step, *self.strides[d + 1:], self.strides[d]]
    return _np_as_strided(self, shape, strides, writeable=self.flags.writeable)


def unfold_positions(length: int, size: int, step: int) -> np.ndarray:
    """The input positions unfold's windows read, window after window."""
    windows = (length - size) // step + 1
    return (np.arange(windows)[:, None] * step + np.arange(size)[None, :]).ravel()


@kernel("unfold_backward")
def _unfold_backward(grad_in: np.ndarray, input_sizes: Sequence[int], dim: int, size: int, step: int) -> np.ndarray:
    """A zero input of input_sizes with each window's gradient added where the window read
    (overlapping windows add up); grad_in has unfold's output shape."""
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if not input_sizes:
        return grad_in.reshape(()).copy()
    d = wrap_dim(dim, len(input_sizes))
    out = np.zeros(tuple(input_sizes), grad_in.dtype)
    source = np.moveaxis(grad_in, -1, d + 1)
    source = source.reshape(source.shape[:d] + (-1,) + source.shape[d + 2:])
    np.add.at(out, (slice(None),) * d + (unfold_positions(input_sizes[d], size, step),), source)
    return out


# ---------------------------------------------------------------------------- splitting


def _pieces(self: np.ndarray, d: int, sizes: Sequence[int]) -> list[np.ndarray]:
    before = (slice(None),) * d  # along(d, ...) without a tuple built per piece
    pieces, start = [], 0
    for size in sizes:
        pieces.append(self[(*before, slice(start, start + size), Ellipsis)])
        start += size
    return pieces


def _split_dim(self: np.ndarray, dim: int, what: str) -> int:
    if self.ndim == 0:
        raise RuntimeError(f"{what} expects at least a 1-dimensional tensor")
    return wrap_dim(dim, self.ndim)


@kernel("split.Tensor", "unsafe_split.Tensor")
def _split(self: np.ndarray, split_size: int, dim: int = 0) -> list[np.ndarray]:
    d = _split_dim(self, dim, "split")
    size, step = self.shape[d], int(split_size)
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0:
        if size != 0:
            raise RuntimeError("split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {size}")
        return [self.view()]
    count = max(-(-size // step), 1)
    return _pieces(self, d, [step] * (count - 1) + [size - step * (count - 1)])


@kernel("split.sizes", "split_with_sizes", "unsafe_split_with_sizes")
def _split_with_sizes(self: np.ndarray, split_sizes: Sequence[int], dim: int = 0) -> list:
    d = _split_dim(self, dim, "split")
    sizes = [int(s) for s in split_sizes]
    if any(s < 0 for s in sizes) or sum(sizes) != self.shape[d]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {self.shape[d]} (input "
            f"tensor's size at dimension {d}), but got split_sizes={sizes}"
        )
    return _pieces(self, d, sizes)


@kernel("chunk", "unsafe_chunk")
def _chunk(self: np.ndarray, chunks: int, dim: int = 0) -> list[np.ndarray]:
    d = _split_dim(self, dim, "chunk")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = self.shape[d]
    step = -(-size // chunks)
    if step == 0:
        return [self.view()]
    count = -(-size // step)
    return _pieces(self, d, [step] * (count - 1) + [size - step * (count - 1)])


@kernel("unbind.int")
def _unbind(self: np.ndarray, dim: int = 0) -> list[np.ndarray]:
    if self.ndim == 0:
        raise RuntimeError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, self.ndim)
    return [self[along(d, i)] for i in range(self.shape[d])]


@kernel("tensor_split.sections")
def _tensor_split_sections(self: np.ndarray, sections: int, dim: int = 0) -> list[np.ndarray]:
    """The first size % n pieces get one extra element."""
    d = _split_dim(self, dim, "tensor_split")
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size = self.shape[d]
    return _pieces(self, d, [(size + sections - 1 - i) // sections for i in range(sections)])


@kernel("tensor_split.indices")
def _tensor_split_indices(
    self: np.ndarray, indices: Sequence[int], dim: int = 0
) -> list[np.ndarray]:
    d = _split_dim(self, dim, "tensor_split")
    bounds = [0, *(int(i) for i in indices), None]
    return [self[along(d, slice(lo, hi))] for lo, hi in zip(bounds, bounds[1:])]


# ---------------------------------------------------------------------------- same memory, same shape


@kernel("alias", "detach", "lift_fresh")
def _alias(self: np.ndarray) -> np.ndarray:
    return self.view()


# detach_ changes no value: written by hand, it never writes into self (which may be
# read-only, an expanded view), as a derived in-place kernel would.
@kernel("detach_")
def _detach_(self: np.ndarray) -> np.ndarray:
    return self


@kernel("lift_fresh_copy")
def _lift_fresh_copy(self: np.ndarray) -> np.ndarray:
    return self.copy()


_CHANNELS_LAST = {4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}


_MEMORY_FORMATS = {0: "contiguous_format", 1: "preserve_format", 2: "channels_last",
                   3: "channels_last_3d", None: "preserve_format"}


def _memory_format(value: Any) -> str:
    """MemoryFormat as torch numbers it (contiguous 0, preserve 1, channels_last 2, 3d 3)."""
    name = _MEMORY_FORMATS.get(value)
    return name if name is not None else str(value).removeprefix("torch.")


def _is_dense(a: np.ndarray) -> bool:
    """Non-overlapping and dense: some permutation of the dims is contiguous (torch's test for
    whether preserve_format may keep the strides)."""
    expected, item = 1, a.itemsize
    for stride, size in sorted([(s // item, n) for s, n in zip(a.strides, a.shape)]):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def _order(values: np.ndarray, memory_format: Any) -> str:
    """numpy's copy order for a torch memory format other than channels_last."""
    if values.flags.c_contiguous:  # order "K" of a row-major array is "C"
        return "C"
    keep = _memory_format(memory_format) == "preserve_format" and _is_dense(values)
    return "K" if keep else "C"


def _laid_out(values: np.ndarray, memory_format: Any) -> np.ndarray:
    """A fresh copy of `values` in the requested memory layout."""
    layout = _memory_format(memory_format)
    if layout in ("channels_last", "channels_last_3d") and values.ndim in _CHANNELS_LAST:
        order = _CHANNELS_LAST[values.ndim]
        dense = np.transpose(values, order).copy()
        return np.transpose(dense, np.argsort(order))
    return values.copy(order=_order(values, memory_format))


@kernel("clone")
def _clone(self: np.ndarray, memory_format: Any = None) -> np.ndarray:
    """Always a copy; preserve_format keeps a dense layout (numpy's order='K')."""
    if self.flags.c_contiguous and (memory_format is None or memory_format == 0 or memory_format == 1):
        return self.copy()  # row-major stays row-major (preserve_format and contiguous_format)
    return _laid_out(self, memory_format)


def is_contiguous(self: np.ndarray, memory_format: Any = 0) -> bool:
    if _memory_format(memory_format) in ("channels_last", "channels_last_3d"):
        order = _CHANNELS_LAST.get(self.ndim)
        return order is not None and np.transpose(self, order).flags.c_contiguous
    return bool(self.flags.c_contiguous)


@kernel("contiguous")
def _contiguous(self: np.ndarray, memory_format: Any = 0) -> np.ndarray:
    """self itself when already laid out so (torch returns self), else a copy."""
    if is_contiguous(self, memory_format):
        return self
    return _laid_out(self, memory_format if memory_format is not None else 0)


# ---------------------------------------------------------------------------- dtype changes


def _cast(self: np.ndarray, dtype: np.dtype, memory_format: Any = None) -> np.ndarray:
    """A converted copy, rounded as torch converts (a reduced float, to or from, goes
    through float32: dtypes.cast); float -> int truncates toward zero (NaN/inf:
    undefined in torch too)."""
    order = _order(self, memory_format)
    with np.errstate(invalid="ignore", over="ignore"):
        if (is_reduced_float(dtype) or is_reduced_float(self.dtype)) and self.dtype != FLOAT32:
            self = self.astype(FLOAT32, order=order)
        return self.astype(dtype, order=order)  # astype copies


@kernel("_to_copy")
def _to_copy(
    self: np.ndarray, dtype: Any = None, layout: Any = None, device: Any = None,
    pin_memory: Any = None, non_blocking: bool = False, memory_format: Any = None,
) -> np.ndarray:
    return _cast(self, np_dtype(dtype, self.dtype), memory_format)


def _to(self: np.ndarray, dtype: np.dtype, copy: bool, memory_format: Any) -> np.ndarray:
    """torch's to(): self itself when nothing changes and no copy is asked for."""
    if dtype == self.dtype and not copy:
        return self
    return _cast(self, dtype, memory_format)


@kernel("to.dtype")
def _to_dtype(
    self: np.ndarray, dtype: Any, non_blocking: bool = False, copy: bool = False,
    memory_format: Any = None,
) -> np.ndarray:
    return _to(self, np_dtype(dtype, self.dtype), copy, memory_format)


@kernel("to.dtype_layout")
def _to_dtype_layout(
    self: np.ndarray, dtype: Any = None, layout: Any = None, device: Any = None,
    pin_memory: Any = None, non_blocking: bool = False, copy: bool = False,
    memory_format: Any = None,
) -> np.ndarray:
    return _to(self, np_dtype(dtype, self.dtype), copy, memory_format)


@kernel("to.device")
def _to_device(
    self: np.ndarray, device: Any, dtype: Any, non_blocking: bool = False, copy: bool = False,
    memory_format: Any = None,
) -> np.ndarray:
    return _to(self, np_dtype(dtype, self.dtype), copy, memory_format)


@kernel("to.other")
def _to_other(
    self: np.ndarray, other: np.ndarray, non_blocking: bool = False, copy: bool = False,
    memory_format: Any = None,
) -> np.ndarray:
    return _to(self, other.dtype, copy, memory_format)


@kernel("type_as")
def _type_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return _to(self, other.dtype, False, None)


# ---------------------------------------------------------------------------- rearranging copies


@kernel("flip")
def _flip(self: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    axes = sorted({wrap_dim(d, self.ndim) for d in dims})
    if len(axes) != len(dims):
        raise RuntimeError(f"dims has duplicates, original flip dims size={len(dims)}, but unique "
                           f"flip dims size={len(axes)}")
    if self.ndim == 0 or not axes:
        return self.copy()
    return np.flip(self, axes).copy()


@kernel("roll")
def _roll(self: np.ndarray, shifts: Sequence[int], dims: Sequence[int] = ()) -> np.ndarray:
    """No dims: roll the flattened tensor and restore the shape."""
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return np.roll(self, int(shifts[0]))
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    axes = [wrap_dim(d, self.ndim) for d in dims]
    if self.ndim == 0:
        return self.copy()
    return np.roll(self, [int(s) for s in shifts], axis=axes)


@kernel("repeat")
def _repeat(self: np.ndarray, repeats: Sequence[int]) -> np.ndarray:
    times = [int(r) for r in repeats]
    if len(times) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    if any(t < 0 for t in times):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {times}")
    return np.tile(self, times) if times else self.copy()


@kernel("meshgrid")
def _meshgrid(tensors: Sequence[np.ndarray]) -> list[np.ndarray]:
    return _meshgrid_indexing(tensors, "ij")


@kernel("meshgrid.indexing")
def _meshgrid_indexing(tensors: Sequence[np.ndarray], indexing: str) -> list[np.ndarray]:
    """Each 0-/1-d input viewed along its own dim and expanded (stride-0 views, as torch's)."""
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.ndim}-d")
    dims = list(range(len(tensors)))
    if indexing == "xy" and len(dims) >= 2:
        dims[0], dims[1] = 1, 0
    sizes = [0] * len(tensors)
    for t, d in zip(tensors, dims):
        sizes[d] = t.size
    return [_expand(t.reshape([t.size if i == d else 1 for i in range(len(sizes))]), sizes)
            for t, d in zip(tensors, dims)]


@kernel("broadcast_tensors")
def _broadcast_tensors(tensors: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each input expanded to the common shape (one of that shape: a view of itself)."""
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    return [_expand(t, shape) for t in tensors]


@kernel("diag")
def _diag(self: np.ndarray, diagonal: int = 0) -> np.ndarray:
    """A vector's diagonal matrix (diag_embed), or a copy of a matrix's diagonal."""
    if self.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.ndim}D")
    if self.ndim == 1:
        return _diag_embed(self, diagonal)
    return diagonal_view(self, diagonal).copy()


@kernel("diagflat")
def _diagflat(self: np.ndarray, offset: int = 0) -> np.ndarray:
    return _diag(self.reshape(-1), offset)


@kernel("repeat_interleave.self_int")
def _repeat_interleave_int(
    self: np.ndarray, repeats: int, dim: int | None = None, output_size: int | None = None
) -> np.ndarray:
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    return _repeat_interleave(self, np.asarray(int(repeats)), dim, output_size)


@kernel("repeat_interleave.self_Tensor")
def _repeat_interleave_tensor(
    self: np.ndarray, repeats: np.ndarray, dim: int | None = None, output_size: int | None = None
) -> np.ndarray:
    return _repeat_interleave(self, repeats, dim, output_size)


def _repeat_interleave(
    self: np.ndarray, repeats: np.ndarray, dim: int | None, output_size: int | None
) -> np.ndarray:
    source = self.reshape(-1) if dim is None or self.ndim == 0 else self
    d = 0 if dim is None or self.ndim == 0 else wrap_dim(dim, self.ndim)
    if repeats.ndim > 1 or (repeats.size != 1 and repeats.size != source.shape[d]):
        raise RuntimeError("repeats must have the same size as input along dim")
    if repeats.size and repeats.min() < 0:
        raise RuntimeError("repeats can not be negative")
    counts = repeats.reshape(-1) if repeats.size != 1 else int(repeats.reshape(-1)[0])
    out = np.repeat(source, counts, axis=d)
    if output_size is not None and out.shape[d] != output_size:
        raise RuntimeError(f"allocated size does not match required size: output_size="
                           f"{output_size}, required {out.shape[d]}")
    return out


@kernel("repeat_interleave.Tensor")
def _repeat_interleave_counts(repeats: np.ndarray, output_size: int | None = None) -> np.ndarray:
    """[0]*r0 + [1]*r1 + ...: each position repeated by its count."""
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    positions = np.arange(repeats.shape[0], dtype=repeats.dtype)
    return _repeat_interleave(positions, repeats, 0, output_size)


def _triangle(self: np.ndarray, diagonal: int, lower: bool) -> np.ndarray:
    """Mask over the last two dims: True where an element is kept."""
    if self.ndim < 2:
        raise RuntimeError("tril/triu: input tensor must have at least 2 dimensions")
    rows, cols = self.shape[-2:]
    if lower:
        return np.tri(rows, cols, diagonal, dtype=bool)
    return ~np.tri(rows, cols, diagonal - 1, dtype=bool)


@kernel("tril")
def _tril(self: np.ndarray, diagonal: int = 0) -> np.ndarray:
    return np.where(_triangle(self, diagonal, True), self, np.zeros((), self.dtype))


@kernel("triu")
def _triu(self: np.ndarray, diagonal: int = 0) -> np.ndarray:
    return np.where(_triangle(self, diagonal, False), self, np.zeros((), self.dtype))


@kernel("rot90")
def _rot90(self: np.ndarray, k: int = 1, dims: Sequence[int] = (0, 1)) -> np.ndarray:
    """Rotation from the first dim towards the second (numpy's and torch's convention)."""
    if len(dims) != 2 or self.ndim < 2:
        raise RuntimeError(f"expected total rotation dims == 2 and total dims >= 2, but got "
                           f"dims = {len(dims)} and total dims = {self.ndim}")
    a, b = wrap_dim(dims[0], self.ndim), wrap_dim(dims[1], self.ndim)
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {a} and "
                           f"dim1 = {b}")
    return np.rot90(self, k, axes=(a, b)).copy()


# ---------------------------------------------------------------------------- joining


@kernel("block_diag")
def _block_diag(tensors: Sequence[np.ndarray]) -> np.ndarray:
    """Each matrix (a 0-d or 1-d tensor as one row) on the diagonal of zeros."""
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.ndim} dimensions")
    blocks = [t if t.ndim == 2 else t.reshape(1, -1) for t in tensors]
    dtype = torch_result_dtype(*tensors) if tensors else np.dtype(np.float32)
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)), dtype)
    row = col = 0
    for b in blocks:  # one slice assignment per block, not per element
        out[row:row + b.shape[0], col:col + b.shape[1]] = b
        row, col = row + b.shape[0], col + b.shape[1]
    return out


@kernel("cat")
def join_tensors(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    """Promotes dtypes; skips legacy empty 1-D tensors (torch.Tensor() was shape [0])."""
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    dtype = _joined_dtype(tensors)
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    if not kept:
        return np.empty((0,), dtype)
    d = wrap_dim(dim, kept[0].ndim)
    return np.concatenate([t if t.dtype == dtype else t.astype(dtype) for t in kept], axis=d)


def _joined_dtype(tensors: Sequence[np.ndarray]) -> np.dtype:
    """torch.result_type of the tensors: their dtype when they share one (the common case,
    without building metas)."""
    dtype = tensors[0].dtype
    if all(t.dtype == dtype for t in tensors):
        return dtype
    return torch_result_dtype(*tensors)


@kernel("_chunk_cat")
def _chunk_cat(tensors: Sequence[np.ndarray], dim: int, num_chunks: int) -> np.ndarray:
    """Each tensor zero-padded along dim to a multiple of num_chunks, viewed as
    (leading dims, num_chunks, -1), the views concatenated after the chunk axis."""
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    d = chunk_cat_dim([t.ndim for t in tensors], dim)
    rows = []
    for t in tensors:
        widths = [(0, 0)] * t.ndim
        widths[d] = (0, -t.shape[d] % num_chunks)
        rows.append(np.pad(t, widths).reshape(t.shape[:d] + (num_chunks, -1)))
    return np.concatenate(rows, axis=d + 1)


@kernel("stack")
def _stack(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    dtype = _joined_dtype(tensors)
    d = wrap_dim(dim, tensors[0].ndim + 1)
    return np.stack([t if t.dtype == dtype else t.astype(dtype) for t in tensors], axis=d)


# ---------------------------------------------------------------------------- composites torch keeps whole


@kernel("tile")
def _tile(self: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    return _repeat(self, [1] * (self.ndim - len(dims)) + [int(d) for d in dims])


@kernel("fliplr")
def _fliplr(self: np.ndarray) -> np.ndarray:
    if self.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(self, [1])


@kernel("flipud")
def _flipud(self: np.ndarray) -> np.ndarray:
    if self.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(self, [0])


# numpy's atleast_Nd shape as torch's do (a 1-d tensor is [1, n, 1] at rank 3); the result is a view
# of the input, as torch's (numpy returns a tensor of enough dims itself: .view() makes it a new array)
@kernel("atleast_1d")
def _atleast_1d(self: np.ndarray) -> np.ndarray:
    return np.atleast_1d(self).view()


@kernel("atleast_2d")
def _atleast_2d(self: np.ndarray) -> np.ndarray:
    return np.atleast_2d(self).view()


@kernel("atleast_3d")
def _atleast_3d(self: np.ndarray) -> np.ndarray:
    return np.atleast_3d(self).view()


@kernel("atleast_1d.Sequence")
def _atleast_1d_all(tensors: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.atleast_1d(t).view() for t in tensors]


@kernel("atleast_2d.Sequence")
def _atleast_2d_all(tensors: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.atleast_2d(t).view() for t in tensors]


@kernel("atleast_3d.Sequence")
def _atleast_3d_all(tensors: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.atleast_3d(t).view() for t in tensors]


def _nonempty(tensors: Sequence[np.ndarray], name: str) -> None:
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@kernel("hstack")
def _hstack(tensors: Sequence[np.ndarray]) -> np.ndarray:
    _nonempty(tensors, "hstack")
    joined = [np.atleast_1d(t) for t in tensors]
    return join_tensors(joined, 0 if joined[0].ndim == 1 else 1)


@kernel("vstack", "row_stack")
def _vstack(tensors: Sequence[np.ndarray]) -> np.ndarray:
    _nonempty(tensors, "vstack")
    return join_tensors([np.atleast_2d(t) for t in tensors], 0)


@kernel("dstack")
def _dstack(tensors: Sequence[np.ndarray]) -> np.ndarray:
    _nonempty(tensors, "dstack")
    return join_tensors([np.atleast_3d(t) for t in tensors], 2)


@kernel("column_stack")
def _column_stack(tensors: Sequence[np.ndarray]) -> np.ndarray:
    _nonempty(tensors, "column_stack")
    return _hstack([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors])


@kernel("cartesian_prod")
def _cartesian_prod(tensors: Sequence[np.ndarray]) -> np.ndarray:
    """Rows of every combination, the last input varying fastest; one input is itself."""
    _nonempty(tensors, "cartesian_prod")
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0].view()
    dtype = torch_result_dtype(*tensors)
    grids = np.meshgrid(*[t.astype(dtype, copy=False) for t in tensors], indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1)


# ---------------------------------------------------------------------------- in-place metadata


def _keeps_order(shape: Sequence[int], perm: Sequence[int]) -> bool:
    """Whether permuting leaves the row-major element sequence unchanged (only size-1 dims move)."""
    moved = [p for p in perm if shape[p] != 1]
    return moved == sorted(moved)


def _relayout_(self: np.ndarray, shape: tuple[int, ...], values: Callable[[], np.ndarray],
               same_order: bool, op: str) -> np.ndarray:
    """Give the array object `self` a new shape, in place (see the module docstring)."""
    if same_order:
        try:
            set_shape_in_place(self, shape)
            return self
        except AttributeError:
            pass
    if not (self.flags.c_contiguous and self.flags.writeable):
        raise NotImplementedError(
            f"{op}: numpy cannot re-stride this non-contiguous array in place (assigning "
            "ndarray.strides is deprecated since numpy 2.4); use the out-of-place op"
        )
    new = values().copy()
    set_shape_in_place(self, shape)
    self[...] = new
    return self


def _permute_(self: np.ndarray, perm: list[int], op: str) -> np.ndarray:
    shape = tuple(self.shape[p] for p in perm)
    same = _keeps_order(self.shape, perm)
    return _relayout_(self, shape, lambda: np.transpose(self, perm), same, op)


@kernel("transpose_", "swapaxes_", "swapdims_")
def _transpose_(self: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
    a, b = wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim)
    perm = list(range(self.ndim))
    if self.ndim:
        perm[a], perm[b] = perm[b], perm[a]
    return _permute_(self, perm, "transpose_")


@kernel("t_")
def _t_(self: np.ndarray) -> np.ndarray:
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _permute_(self, list(range(self.ndim))[::-1], "t_")


@kernel("squeeze_")
def _squeeze_(self: np.ndarray) -> np.ndarray:
    set_shape_in_place(self, _squeeze(self).shape)
    return self


@kernel("squeeze_.dim")
def _squeeze_dim_(self: np.ndarray, dim: int) -> np.ndarray:
    set_shape_in_place(self, _squeeze_dim(self, dim).shape)
    return self


@kernel("squeeze_.dims")
def _squeeze_dims_(self: np.ndarray, dim: Sequence[int]) -> np.ndarray:
    set_shape_in_place(self, _squeeze_dims(self, dim).shape)
    return self


@kernel("unsqueeze_")
def _unsqueeze_(self: np.ndarray, dim: int) -> np.ndarray:
    set_shape_in_place(self, _unsqueeze(self, dim).shape)
    return self


@kernel("as_strided_")
def _as_strided_(
    self: np.ndarray, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> np.ndarray:
    """In place when the element count is kept (see the module docstring); otherwise, as
    resize_, a NEW array: the strided view of self's storage torch's tensor becomes."""
    view = strided_view(self, size, stride, storage_offset)
    if view.size != self.size:
        return view
    same = (_address(view) == _address(self) and view.flags.c_contiguous
            and self.flags.c_contiguous)
    return _relayout_(self, view.shape, lambda: view, same, "as_strided_")


@kernel("resize_")
def _resize_(self: np.ndarray, size: Sequence[int], memory_format: Any = None) -> np.ndarray:
    """Same count and contiguous: the same object reshaped. Otherwise a NEW array: a contiguous
    view of the storage from self's offset when it fits (as torch), else fresh memory holding
    the old storage elements and zeros (torch leaves them uninitialised)."""
    shape = tuple(int(s) for s in size)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
    numel = math.prod(shape)
    if numel == self.size and self.flags.c_contiguous:
        set_shape_in_place(self, shape)
        return self
    capacity = _storage_root(self).nbytes // self.itemsize - storage_offset(self)
    if numel <= capacity:
        return strided_view(self, shape, contiguous_strides(shape), None)
    old = strided_view(self, (capacity,), (1,), None)
    out = np.zeros(numel, self.dtype)
    out[:capacity] = old
    return out.reshape(shape)


@kernel("resize_as_")
def _resize_as_(self: np.ndarray, the_template: np.ndarray, memory_format: Any = None) -> np.ndarray:
    """resize_ to the template's sizes (its values are not read)."""
    return _resize_(self, the_template.shape, memory_format)


@kernel("diag_embed")
def _diag_embed(self: np.ndarray, offset: int = 0, dim1: int = -2, dim2: int = -1) -> np.ndarray:
    """out[..., i, i + offset] = self[..., i] in dims (dim1, dim2), zeros elsewhere."""
    rank = self.ndim + 1
    a, b = wrap_dim(dim1, rank), wrap_dim(dim2, rank)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    x = self.reshape(1) if self.ndim == 0 else self
    n = x.shape[-1]
    size = n + abs(offset)
    square = np.zeros((*x.shape[:-1], size, size), self.dtype)
    steps = np.arange(n)
    square[..., steps + max(-offset, 0), steps + max(offset, 0)] = x
    return np.ascontiguousarray(np.moveaxis(square, (-2, -1), (a, b)))
