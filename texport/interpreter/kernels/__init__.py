"""numpy kernels: one per op, looked up by op key.

Convention (shared by every kernel, the eager dispatcher and the executor):
a kernel takes EVERY schema argument positionally, in schema order, defaults
filled in. Tensors are np.ndarray (a 0-d tensor is a 0-d ndarray, never a
numpy scalar), an absent ``Tensor?`` is None, ``Tensor[]`` a list of arrays,
SymInts are ints, Scalars Python numbers, ScalarType a DType or None.
It returns an ndarray, a tuple (tuple returns), a list (``Tensor[]``) or a
Python scalar (Scalar/SymInt returns), with torch's dtype (the one the op's
shape rule gives); its registered form lays the results out as torch does
(layout.py). A mutating kernel writes into its ``(a!)`` argument array in
place and returns that same array object; a view op returns a numpy view of
its input, so writes through the view reach the base, as in torch.

In-place variants (``add_``) and view copies (``permute_copy``) have no kernel
of their own: the start-up (loader.py) derives theirs from the functional twin's (run it, write
the result into self with torch's casting rule) and the view's (copy its result).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from texport.dialects.registry import Registry

from .layout import laid_out

Kernel = Callable[..., Any]

KERNELS: Registry[Kernel] = Registry("kernel", stage="kernels")


def kernel(*names: str) -> Callable[[Kernel], Kernel]:
    """Register one kernel for the named ops (``add.Tensor``, ``relu``...),
    its results laid out as torch's (layout.py)."""

    def register(fn: Kernel) -> Kernel:
        for name in names:
            KERNELS.register(name, laid_out(name, fn))
        return fn

    return register
