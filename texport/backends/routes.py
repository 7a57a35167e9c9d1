"""Routes from a core program to upstream MLIR text that a native compiler takes.

A route is a function of the core program's module (one ``func.func @forward``:
arguments = parameters, buffers, constants, user inputs in the core signature's
order; results = buffer and input mutations, then user outputs) returning the
text of one ``func.func @forward`` with the same arguments and results in the same
order, and the input type IREE compiles it as. At that boundary a tensor is a
tensor of its dtype (bool as ``i1``, int64 as ``i64``; dynamic dims ``?``) and a
symbolic int is an ``i64`` scalar; the backend checks each result's dtype and rank
against the core program's. ``ROUTES`` holds them by name; the
built-in ones import their lowering only when called, so a route whose module is
missing fails when it is asked for, and only then."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import NamedTuple

from xdsl.dialects.builtin import ModuleOp

from texport.backends import BackendError


class RouteText(NamedTuple):
    """A route's output: the MLIR text, and IREE's ``--iree-input-type`` for it."""

    text: str
    input_type: str


class RouteUnavailable(BackendError):
    """The route's lowering is not in this texport."""


class _LazyRoute:
    """The route whose text ``module:function`` makes, imported on the first call."""

    def __init__(self, name: str, entry: str, input_type: str) -> None:
        self.name, self.entry, self.input_type = name, entry, input_type

    def __call__(self, module: ModuleOp) -> RouteText:
        module_name, function = self.entry.split(":")
        try:
            lower = getattr(importlib.import_module(module_name), function)
        except (ImportError, AttributeError) as err:
            raise RouteUnavailable(f"the {self.name!r} route is not available: it needs {self.entry}, "
                                   f"which this texport does not have ({err})") from err
        return RouteText(lower(module), self.input_type)

    def __repr__(self) -> str:
        return f"<route {self.name}: {self.entry}, input type {self.input_type}>"


ROUTES: dict[str, Callable[[ModuleOp], RouteText]] = {
    # texport's own lowering to linalg/tensor/arith/math/func/scf
    "linalg": _LazyRoute("linalg", "texport.lowering.linalg:lower_to_linalg_text", "none"),
    # torch-mlir's torch dialect (torch.aten.* on !torch.vtensor), imported by IREE itself
    "torch": _LazyRoute("torch", "texport.lowering.torch_dialect:emit_torch_dialect", "torch"),
}


def route_text(route: str, module: ModuleOp) -> RouteText:
    """``module`` as upstream MLIR text by ``route``."""
    lower = ROUTES.get(route)
    if lower is None:
        raise ValueError(f"unknown route {route!r} (routes: {', '.join(ROUTES)})")
    return lower(module)
