"""``texport.library``: custom operators (torch.library's custom_op API), and the
one way to change texport's registries after start-up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from texport.dialects import bootstrap
from texport.lowering.table import register_decomposition as _register_in_default_table
from texport.tracer.library import (
    CustomOpDef,
    custom_decompositions,
    custom_op,
    define,
    get_ctx,
    infer_schema,
    registering,
)


def register_decomposition(op: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``@texport.library.register_decomposition(aten.foo.default)``: add ``fn`` to the
    default decomposition table (``default_decompositions()``, ``run_decompositions()``).
    An op that already has one is an error (edit a table from default_decompositions()
    to replace it for one lowering)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        bootstrap.start("decompositions")  # the default table first: a duplicate is caught here
        with registering():
            _register_in_default_table(op)(fn)
        return fn

    return wrap


__all__ = ["CustomOpDef", "custom_decompositions", "custom_op", "define", "get_ctx", "infer_schema",
           "register_decomposition"]
