"""Kernels derived from other kernels (not registered on their own)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


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
