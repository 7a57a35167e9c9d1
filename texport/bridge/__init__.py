"""The bridge with real torch: ``from_torch`` imports a ``torch.export.ExportedProgram``
into texport IR, ``to_torch`` hands a texport program back to torch.

torch is optional: this package is the only place in texport that imports it,
and only when an entry point is called (``import texport.bridge`` loads no torch).

    torch_ep = torch.export.export(model, (x,), dynamic_shapes={"x": {0: Dim("batch")}})
    ep = texport.from_torch(torch_ep)                  # training; TRAINING dialect
    ep = texport.from_torch(torch_ep.run_decompositions())   # core; ATEN dialect
    print(ep.mlir())                                   # torch's symbols: !tx.tensor<[s77, 3], f32>
    ep.module()(texport.from_numpy(x.numpy()))         # texport's interpreter, torch's calling convention

Files: ``importer.py`` (the FX graph as IR, the level, state and ranges),
``signature.py`` (graph signature and calling convention), ``values.py``
(dims, types, literals, tensors, locations, ``TorchImportError``).
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
