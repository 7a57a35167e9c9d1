"""Weights laid out once for BLAS: the row-major transpose of a linear weight, a
convolution's weight by kernel offset (kernels/conv_by_offsets.py).

numpy's OpenBLAS multiplies ``x @ w.T`` (w row-major, as torch keeps a Linear's
weight) markedly slower than ``x @ wt`` with ``wt = w.T`` copied row-major when x
has few rows (1 thread: (4, 128) @ (128, 512) 18.4 -> 4.9 us, (32, 256) @
(256, 256) 61 -> 43 us; the sums are the same, in the same order, for most
shapes; kernels/linalg.py's linear says for which rows it packs). The copy is
made on a weight's first use and kept while the weight lives, as inference
runtimes pre-pack weights (so every call of a shape, eager or ``ep.module()``,
runs the same product); it stays right because every way an array is written
tells this module:

- texport's own writes: the eager runner of an op with a written argument, the
  plan step of such an op, the program's write-back of mutated buffers and inputs,
  ``Tensor.apply_``/``map_`` call ``note_written`` with the written array; a
  view's write reaches its base (every array is tracked by the array owning its
  memory);
- writes texport cannot see: an array handed to the user (``Tensor.numpy()``)
  or taken from the user (``from_numpy``, ``as_tensor`` without a copy) is
  ``note_shared``, and an array whose memory is shared is never packed.

Only arrays that own their memory are packed (two arrays over one foreign buffer
could not tell each other of a write). The packed copies hold at most
``PACKED_BYTES`` in all.

Copies made elsewhere rest on the same notes: a native backend keeps a weight's
device copy while the weight is unwritten (``note_copied``: its ``forget`` is
called at the first write)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

PACKED_BYTES = 256 << 20

# (id(weight), layout) -> (weakref to the weight, its packed copy, id of the memory's owner)
_PACKED: dict[tuple[int, str], tuple[Any, np.ndarray, int]] = {}
_BY_OWNER: dict[int, list[tuple[int, str]]] = {}  # id(owner) -> keys of the packed copies over its memory
_SHARED: dict[int, Any] = {}  # id(owner) -> weakref: memory the user holds too
_COPIES: dict[int, tuple[Any, list[Any]]] = {}  # id(owner) -> (weakref, forget callbacks of copies elsewhere)
_bytes = [0]


def _owner(array: np.ndarray) -> np.ndarray:
    """The array at the bottom of ``array``'s chain of views."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def note_written(array: Any) -> None:
    """``array`` (or a view of it, or a list of them) was written: forget what was packed
    or copied from its memory."""
    if not _BY_OWNER and not _COPIES:
        return
    if isinstance(array, (list, tuple)):
        for item in array:
            note_written(item)
        return
    if type(array) is np.ndarray:
        owner = id(_owner(array))
        for key in _BY_OWNER.pop(owner, ()):
            _forget(key)
        copies = _COPIES.pop(owner, None)
        for forget in copies[1] if copies is not None else ():
            forget()


def note_copied(array: np.ndarray, forget: Any) -> bool:
    """A copy of ``array`` is kept elsewhere (a device's): ``forget()`` is called at the
    next write to its memory. False (nothing noted) when writes to it could go unseen
    (memory shared with the user, not its own, read-only): then keep no copy."""
    if not _trackable(array):
        return False
    owner = _owner(array)
    key = id(owner)
    entry = _COPIES.get(key)
    if entry is None or entry[0]() is not owner:
        entry = _COPIES[key] = (weakref.ref(owner, lambda _, key=key, copies=_COPIES: copies.pop(key, None)), [])
    entry[1].append(forget)
    return True


def _trackable(array: np.ndarray) -> bool:
    """Every write to ``array``'s memory reaches ``note_written``."""
    owner = _owner(array)
    shared = _SHARED.get(id(owner))
    return not (shared is not None and shared() is owner) and owner.flags.owndata and owner.flags.writeable


def note_shared(array: Any) -> None:
    """The user holds ``array``'s memory too: it may change unseen, so it is never packed."""
    if type(array) is not np.ndarray:
        return
    owner = _owner(array)
    key = id(owner)
    if key not in _SHARED:
        _SHARED[key] = weakref.ref(owner, lambda _, key=key, shared=_SHARED: shared.pop(key, None))
    note_written(owner)


def transposed(weight: np.ndarray) -> np.ndarray | None:
    """``weight.T`` row-major, packed on the weight's first use; None when its memory is shared."""
    return packed(weight, "transposed", lambda w: np.ascontiguousarray(w.T))


def packed(weight: np.ndarray, layout: str, make: Callable[[np.ndarray], np.ndarray]) -> np.ndarray | None:
    """``make(weight)``, made on the weight's first use in ``layout`` (a name for what
    ``make`` does) and kept while the weight lives unwritten; None when its memory is
    shared or the packed copies are full."""
    key = (id(weight), layout)
    entry = _PACKED.get(key)
    if entry is not None:
        if entry[0]() is weight:
            return entry[1]
        _forget(key)  # another array now has that id
    return _pack(weight, key, make)


def _pack(weight: np.ndarray, key: tuple[int, str], make: Callable[[np.ndarray], np.ndarray]) -> np.ndarray | None:
    owner = _owner(weight)
    if not _trackable(weight):
        return None  # (read-only memory may be a file's, written behind numpy's back)
    if _bytes[0] + weight.nbytes > PACKED_BYTES:
        return None
    copy = make(weight)
    # the callback holds _forget itself: at interpreter exit the module's globals may be gone
    _PACKED[key] = (weakref.ref(weight, lambda _, key=key, forget=_forget: forget(key)), copy, id(owner))
    _BY_OWNER.setdefault(id(owner), []).append(key)
    _bytes[0] += copy.nbytes
    return copy


def _forget(key: tuple[int, str], packed: dict[tuple[int, str], Any] = _PACKED,
            by_owner: dict[int, list[tuple[int, str]]] = _BY_OWNER, total: list[int] = _bytes) -> None:
    # (the tables are bound as defaults: a weight may die while the interpreter shuts
    # down, after this module's globals are gone)
    entry = packed.pop(key, None)
    if entry is not None:
        total[0] -= entry[1].nbytes
        keys = by_owner.get(entry[2])
        if keys is not None and key in keys:
            keys.remove(key)
            if not keys:
                del by_owner[entry[2]]


def clear() -> None:
    """Drop every packed weight."""
    for key in list(_PACKED):
        _forget(key)

