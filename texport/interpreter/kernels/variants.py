"""Kernels derived from other kernels: the in-place variant of a functional
op, the copy of a view, the functional form of a custom op that writes."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from texport.dialects.registry import OpDef, derive_missing, functional_twin
from texport.dialects.shape_rules.common import can_cast, scalar_type_name

from ..dtypes import cast, from_numpy, is_reduced_float
from . import KERNELS, Kernel
from .common import silenced


def derive_kernels() -> None:
    """Register the kernel of each in-place op from its functional twin's, and
    of each view copy from its view's. An op whose kernel is written by hand
    keeps it (torch gives cumsum_ its own dtype rule)."""
    derive_missing(KERNELS, derived_kernel)


def derived_kernel(op_def: OpDef) -> Kernel | None:
    if op_def.copied_view is not None:
        return copied(KERNELS[op_def.copied_view])
    twin = functional_twin(op_def)
    return None if twin is None else in_place(KERNELS[twin.key])


def in_place(functional: Kernel) -> Kernel:
    """``x.op_(...)``: run ``op(x, ...)`` and write the result into ``x``."""

    # wraps: the entry keeps its source's module, so it reads as part of its family
    @functools.wraps(functional)
    def run(self: np.ndarray, *args: Any) -> np.ndarray:
        return write_into(self, functional(self, *args))

    run.__name__ = run.__qualname__ = f"{functional.__name__}_"
    return run


def write_into(self: np.ndarray, result: np.ndarray) -> np.ndarray:
    """Store an op's result into ``self`` in place and return ``self``.

    As torch: the result must have self's shape, and its dtype may only be cast
    within or down the category order (float into int is refused)."""
    if result.dtype == self.dtype and result.shape == self.shape:
        np.copyto(self, result)  # nothing to cast: nothing to check, nothing can warn
        return self
    source, target = from_numpy(result.dtype), from_numpy(self.dtype)
    if not can_cast(source, target):
        raise RuntimeError(
            f"result type {scalar_type_name(source)} can't be cast to the desired output "
            f"type {scalar_type_name(target)}"
        )
    if result.shape != self.shape:
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )
    if is_reduced_float(self.dtype):
        result = cast(result, self.dtype)  # rounded as torch converts
    with silenced():
        np.copyto(self, result, casting="unsafe")
    return self


def copied(view: Kernel) -> Kernel:
    """The ``*_copy`` twin of a view kernel: the same values in fresh, contiguous memory."""

    # wraps: the entry keeps its source's module, so it reads as part of its family
    @functools.wraps(view)
    def copy_kernel(*args: Any) -> Any:
        out = view(*args)
        if isinstance(out, list):
            return [piece.copy() for piece in out]
        return out.copy()

    copy_kernel.__name__ = copy_kernel.__qualname__ = f"{view.__name__}_copy"
    return copy_kernel


def copy_on_write(kernel: Callable[..., Any], written: Sequence[int]) -> Callable[..., Any]:
    """The functional form of a kernel that writes the arguments at ``written``:
    it runs on copies and returns their new values, then the kernel's results
    (torch's auto_functionalized)."""

    def run(*values: Any) -> tuple[Any, ...]:
        copies = list(values)
        for i in written:
            copies[i] = np.array(values[i], copy=True)
        outputs = kernel(*copies)
        outputs = () if outputs is None else outputs if isinstance(outputs, tuple) else (outputs,)
        return (*(copies[i] for i in written), *outputs)

    return run
