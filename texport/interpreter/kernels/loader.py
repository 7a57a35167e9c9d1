"""Start-up stage "kernels" (dialects/bootstrap.py): the kernel module of every
family (each registers on import), then the kernels derived from theirs: in-place
variants and view copies."""

from __future__ import annotations

from texport.dialects.tags import import_families

from .variants import derive_kernels


def load_all() -> None:
    import_families(__package__)
    derive_kernels()
