"""The bridge with real torch: ``from_torch`` imports a ``torch.export.ExportedProgram``
into texport IR, ``to_torch`` hands a texport program back to torch.

torch is optional: this package is the only place in texport that imports it,
and only when an entry point is called (``import texport.bridge`` loads no torch).
"""

from __future__ import annotations

from typing import Any


def from_torch(torch_ep: Any, *, level: str | None = None) -> Any:
    """A texport ExportedProgram holding ``torch_ep`` (see ``bridge/importer.py``)."""
    from .importer import from_torch as _from_torch

    return _from_torch(torch_ep, level=level)


def to_torch(ep: Any, *args: Any, **kwargs: Any) -> Any:
    """A ``torch.export.ExportedProgram`` holding texport's ``ep`` (``bridge/exporter.py``)."""
    from .exporter import to_torch as _to_torch

    return _to_torch(ep, *args, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "TorchImportError":  # the error from_torch raises (its module imports torch)
        from .values import TorchImportError

        return TorchImportError
    raise AttributeError(f"module 'texport.bridge' has no attribute '{name}'")


__all__ = ["TorchImportError", "from_torch", "to_torch"]
