"""numpy's array-data allocations, counted exactly: a NEP 49 memory handler.

    with tracked_allocations() as allocations:
        out = forward()
    allocations.peak   # most array-data bytes live at once, of those allocated inside
    allocations.live   # of those, the bytes still live (``out``'s among them)

numpy (>= 1.22, NEP 49) allocates every array's data through the handler
current in the calling context (a context variable), and stores that handler
in the array, whose data it later frees through it. Inside the ``with``, the
handler is one of ours: a ``PyDataMem_Handler`` whose malloc, calloc, realloc
and free call libc's and keep, per pointer, the bytes it holds, and the sum of
those and its peak. Arrays allocated before keep their own handler, so only the
allocations made inside are counted; their frees are counted as long as the
``with`` lasts. What numpy allocates outside arrays (the scratch of its
iterators, sorts and casts, Python objects) is not array data and not counted;
nor are arrays allocated by other threads, whose contexts do not see the
handler.

The handler is installed with the C-API functions ``PyDataMem_SetHandler`` and
``PyDataMem_GetHandler``, reached by ctypes through the ``_ARRAY_API`` capsule
of numpy's extension module (the table of function pointers a C extension gets
from ``import_array()``). Their positions in that table are fixed by numpy's
C-ABI (an entry never moves): 304 and 305, as the installed header
``numpy/_core/include/numpy/__multiarray_api.h`` defines them (numpy 2.x;
``numpy/core/include/...`` on 1.22-1.26)::

    #define PyDataMem_SetHandler (*(PyObject * (*)(PyObject *)) PyArray_API[304])
    #define PyDataMem_GetHandler (*(PyObject * (*)(void)) PyArray_API[305])

The header, when installed, is read to check them, and the handler numpy
returns must be a capsule named ``mem_handler``; otherwise a clear error.

The handler (its structure, callbacks and capsule) is made once and never
freed, not even when the interpreter exits and clears this module: an array
allocated inside may outlive the ``with`` (a buffer a training-mode forward
updates, a cache), and numpy frees it through the handler it was made with,
whenever that is.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

SET_HANDLER, GET_HANDLER = 304, 305  # PyArray_API slots, see the module's docstring
CAPSULE_NAME = b"mem_handler"  # numpy's MEM_HANDLER_CAPSULE_NAME

# the C-API of Python, as ctypes.pythonapi, its functions' types set here without touching that one's
_PYTHON = ctypes.PyDLL(ctypes.pythonapi._name, handle=ctypes.pythonapi._handle)

_MALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_CALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t)
_REALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)


class _Allocator(ctypes.Structure):
    """numpy's ``PyDataMemAllocator`` (ndarraytypes.h)."""

    _fields_ = [("ctx", ctypes.c_void_p), ("malloc", _MALLOC), ("calloc", _CALLOC), ("realloc", _REALLOC),
                ("free", _FREE)]


class _Handler(ctypes.Structure):
    """numpy's ``PyDataMem_Handler`` (ndarraytypes.h), version 1."""

    _fields_ = [("name", ctypes.c_char * 127), ("version", ctypes.c_uint8), ("allocator", _Allocator)]


class Allocations:
    """Array-data bytes allocated inside a ``tracked_allocations()``: ``live`` now, ``peak`` at most;
    ``count`` allocations."""

    def __init__(self) -> None:
        self.live = 0
        self.peak = 0
        self.count = 0
        self._sizes: dict[int, int] = {}

    def _allocated(self, pointer: int, size: int) -> None:
        self._sizes[pointer] = size
        self.count += 1
        self.live += size
        if self.live > self.peak:
            self.peak = self.live

    def _freed(self, pointer: int) -> None:
        size = self._sizes.pop(pointer, None)
        if size is not None:  # else allocated before this tracker started
            self.live -= size

    def __repr__(self) -> str:
        return f"Allocations(live={self.live}, peak={self.peak}, count={self.count})"


_active: list[Allocations] = []  # the trackers open now (nested ones all count)


class _CountingHandler:
    """The handler: libc's allocation functions, each call reported to the open trackers."""

    def __init__(self, api: Any) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
        malloc, calloc, realloc, free = libc.malloc, libc.calloc, libc.realloc, libc.free
        malloc.restype = calloc.restype = realloc.restype = ctypes.c_void_p
        malloc.argtypes = [ctypes.c_size_t]
        calloc.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
        realloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        free.argtypes = [ctypes.c_void_p]
        free.restype = None
        active = _active  # the callbacks hold it (and libc's functions) themselves: at the
        # interpreter's exit the module's globals go before the last arrays made here are freed

        def on_malloc(ctx: int | None, size: int) -> int | None:
            pointer = malloc(size)
            if pointer:
                for tracker in active:
                    tracker._allocated(pointer, size)
            return pointer

        def on_calloc(ctx: int | None, count: int, item: int) -> int | None:
            pointer = calloc(count, item)
            if pointer:
                for tracker in active:
                    tracker._allocated(pointer, count * item)
            return pointer

        def on_realloc(ctx: int | None, pointer: int | None, size: int) -> int | None:
            moved = realloc(pointer, size)
            if moved:  # on failure the old block stays, as it was
                for tracker in active:
                    if pointer:
                        tracker._freed(pointer)
                    tracker._allocated(moved, size)
            return moved

        def on_free(ctx: int | None, pointer: int | None, size: int) -> None:
            if pointer:
                for tracker in active:
                    tracker._freed(pointer)
            free(pointer)

        # kept on self, self kept for good: numpy calls them as long as an array made with them lives
        self.callbacks = (_MALLOC(on_malloc), _CALLOC(on_calloc), _REALLOC(on_realloc), _FREE(on_free))
        self.struct = _Handler(b"texport_benchmarks_counting", 1, _Allocator(None, *self.callbacks))
        self.name = ctypes.create_string_buffer(CAPSULE_NAME)  # the capsule keeps the pointer, not a copy
        new_capsule = _PYTHON.PyCapsule_New
        new_capsule.restype = ctypes.py_object
        new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.capsule = new_capsule(ctypes.addressof(self.struct), ctypes.addressof(self.name), None)
        self.set_handler, self.get_handler = api
        _PYTHON.Py_IncRef(ctypes.py_object(self))  # never freed, see the module's docstring


def _c_api() -> tuple[Any, Any]:
    """numpy's ``PyDataMem_SetHandler`` and ``PyDataMem_GetHandler``, as ctypes functions."""
    version = tuple(int(p) for p in re.findall(r"\d+", np.__version__)[:2])
    if version < (1, 22):
        raise RuntimeError(f"numpy_memory: needs numpy >= 1.22 (NEP 49 memory handlers), found {np.__version__}")
    try:
        from numpy._core import _multiarray_umath as extension
    except ImportError:  # numpy 1.x
        from numpy.core import multiarray as extension
    table_capsule = getattr(extension, "_ARRAY_API", None)
    if type(table_capsule).__name__ != "PyCapsule":
        raise RuntimeError(f"numpy_memory: expected the C-API capsule {extension.__name__}._ARRAY_API, "
                           f"found {type(table_capsule).__name__} (numpy {np.__version__})")
    _check_header()
    api = _PYTHON
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    table = ctypes.cast(api.PyCapsule_GetPointer(table_capsule, api.PyCapsule_GetName(table_capsule)),
                        ctypes.POINTER(ctypes.c_void_p))
    # PYFUNCTYPE: called with the GIL held, a Python error raised; a py_object result is a new reference
    set_handler = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)(table[SET_HANDLER])
    get_handler = ctypes.PYFUNCTYPE(ctypes.py_object)(table[GET_HANDLER])
    current = get_handler()
    if type(current).__name__ != "PyCapsule" or api.PyCapsule_GetName(current) != CAPSULE_NAME:
        raise RuntimeError(f"numpy_memory: PyArray_API[{GET_HANDLER}] (PyDataMem_GetHandler) should return a "
                           f"capsule named {CAPSULE_NAME.decode()!r}, found {current!r} (numpy {np.__version__})")
    return set_handler, get_handler


def _check_header() -> None:
    """The slots, checked against the installed header where there is one."""
    include = Path(np.get_include()) / "numpy" / "__multiarray_api.h"
    if not include.is_file():
        return
    text = include.read_text()
    for name, slot in (("PyDataMem_SetHandler", SET_HANDLER), ("PyDataMem_GetHandler", GET_HANDLER)):
        found = re.search(rf"#define {name}\b[^#\[]*PyArray_API\[(\d+)\]", text)
        if found is None or int(found.group(1)) != slot:
            raise RuntimeError(f"numpy_memory: expected {name} at PyArray_API[{slot}], the header {include} "
                               f"says {found.group(1) if found else 'nothing'} (numpy {np.__version__})")


_handler: _CountingHandler | None = None


def prepare() -> None:
    """Makes the handler now (once), not in the first ``tracked_allocations()``: its Python
    objects then stay out of a measurement around that, and an unexpected numpy fails here."""
    global _handler
    if _handler is None:
        _handler = _CountingHandler(_c_api())


@contextlib.contextmanager
def tracked_allocations() -> Iterator[Allocations]:
    """Counts the array data numpy allocates and frees inside (this thread's context)."""
    prepare()
    assert _handler is not None
    tracker = Allocations()
    previous = _handler.set_handler(_handler.capsule)
    _active.append(tracker)
    try:
        yield tracker
    finally:
        _active.remove(tracker)
        _handler.set_handler(previous)
