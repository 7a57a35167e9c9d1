"""Native kernels: a large float32 elementwise kernel run as machine code, when a
backend that compiles one is installed (IREE: ``pip install texport[iree]``).

Why: numpy runs a formula one ufunc pass at a time, on one core. Exact GELU is
about 27 passes (``kernels/elementwise.py``): 2.0 ms for GPT4's 262,144 elements on
this project's 2-core machine, where torch's vectorised loop takes 0.19 ms on one
thread. The same formula compiled as one loop by IREE takes 0.52 ms on one core,
reading the input and writing the result in place. numexpr (scalar ``expf``: 12 ms) and numba (no
vector exp: 3.5 ms on one thread; its thread pool and OpenBLAS's spin against each
other) were measured slower than numpy's passes or no faster.

Where: the design card keeps compiling and running native code in ``texport/backends/``,
so this layer holds only the slot. ``kernel(name, size)`` gives the native kernel of
that name (a function of a flat contiguous array, returning a new array) or None; the
kernels then run their numpy path. The provider is installed by the "native kernels"
stage of ``dialects/bootstrap.py`` (``backends/native_kernels.py:install``), started on
the first large call. It answers None where it cannot compile (IREE not installed; a
compile failure, which it reports once as a warning).

Off: ``texport.set_native_kernels(False)``, or ``TEXPORT_NATIVE_KERNELS=0`` in the
environment. Arrays below ``MIN_SIZE`` elements always take the numpy path: a native
call's fixed cost (the copies' allocations, IREE's dispatch) makes 4,096 elements no
faster, while 32,768 take 0.09 ms against numpy's 0.2.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from texport.dialects import bootstrap

NativeKernel = Callable[[np.ndarray], np.ndarray]
Provider = Callable[[str], NativeKernel | None]

ENVIRONMENT_VARIABLE = "TEXPORT_NATIVE_KERNELS"
MIN_SIZE = 32768

_enabled = os.environ.get(ENVIRONMENT_VARIABLE, "1") != "0"
_provider: Provider | None = None


def set_native_kernels(enabled: bool) -> None:
    """Whether large float32 elementwise kernels may run as native code (on by default
    where a backend can compile them; results differ from the numpy path's by float32
    rounding, within the same stated error against a float64 reference)."""
    global _enabled
    if not isinstance(enabled, bool):
        raise TypeError(f"set_native_kernels expects a bool, but got {type(enabled).__name__}")
    _enabled = enabled


def native_kernels_enabled() -> bool:
    return _enabled


def install_provider(provider: Provider) -> None:
    """The function that gives a native kernel by name (the "native kernels" start-up stage)."""
    global _provider
    _provider = provider


def kernel(name: str, size: int) -> NativeKernel | None:
    """The native kernel ``name`` for a flat array of ``size`` elements, or None."""
    if not _enabled or size < MIN_SIZE:
        return None
    if _provider is None:
        bootstrap.start("native kernels")
    return _provider(name) if _provider is not None else None
