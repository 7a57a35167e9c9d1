"""Backends: a core program compiled to native code and run there, behind
``ep.compile(backend=...)``, with ``ep.module()``'s calling convention.

``BACKENDS`` names each backend's entry as a ``module:function`` string (as
``dialects/bootstrap.py`` names its stages): a backend and the packages it needs
(IREE's compiler and runtime) load only when it is asked for, and
``texport.export`` reaches them without importing them. The entry takes the
program and the backend's options and returns the callable.

How a core program becomes upstream MLIR text is a *route* (``routes.py``): the
linalg route (texport's own lowering) or the torch-dialect route (torch-mlir's
``torch`` dialect, which IREE imports itself)."""

from __future__ import annotations

import importlib
from typing import Any


class BackendError(RuntimeError):
    """A backend could not compile or run a program; the message says what and where."""


BACKENDS: dict[str, str] = {
    "iree": "texport.backends.iree:compile_program",
}


def compile_program(program: Any, backend: str = "iree", **options: Any) -> Any:
    """``program`` compiled by ``backend``: a callable taking the exported inputs."""
    entry = BACKENDS.get(backend)
    if entry is None:
        raise ValueError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
    module, function = entry.split(":")
    return getattr(importlib.import_module(module), function)(program, **options)
