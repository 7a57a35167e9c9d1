"""numpy kernels: one per op, looked up by op key.

Convention (shared by every kernel, the eager dispatcher and the executor):
a kernel takes EVERY schema argument positionally, in schema order, defaults
filled in. Tensors are np.ndarray (a 0-d tensor is a 0-d ndarray, never a
numpy scalar), an absent ``Tensor?`` is None, ``Tensor[]`` a list of arrays,
SymInts are ints, Scalars Python numbers, ScalarType a DType or None.
It returns an ndarray, a tuple (tuple returns), a list (``Tensor[]``) or a
Python scalar (Scalar/SymInt returns), with torch's dtype (the one the op's
shape rule gives). A mutating kernel writes into its ``(a!)`` argument array in
place and returns that same array object; a view op returns a numpy view of
its input, so writes through the view reach the base, as in torch.

In-place variants (``add_``) and view copies (``permute_copy``) have no kernel
of their own: load_all derives theirs from the functional twin's (run it, write
the result into self with torch's casting rule) and the view's (copy its result).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from texport.dialects import bootstrap
from texport.dialects.registry import Registry
from texport.dialects.tags import import_families

Kernel = Callable[..., Any]

KERNELS: Registry[Kernel] = Registry("kernel", stage="kernels")


def kernel(*names: str) -> Callable[[Kernel], Kernel]:
    """Register one kernel for the named ops (``add.Tensor``, ``relu``...)."""
    return KERNELS.decorator(*names)


def load_all() -> None:
    """Start-up stage "kernels" (dialects/bootstrap.py): import the kernel module of
    every family (each registers on import), then register the kernels derived
    from theirs: in-place variants and view copies."""
    bootstrap.start(KERNELS.stage)  # called from outside, it runs through the start-up
    import_families(__name__)
    from . import variants

    variants.derive_kernels()
