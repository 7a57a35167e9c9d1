"""Start-up: what fills texport's registries, one stage per layer's concern, run
when first needed.

Importing a texport module registers nothing. The first read of a registry
(or the first op call, which needs the eager mode) runs ``start(stage)``: the
stage runs once, by calling one function of the layer that owns the registry.
A stage that reads a registry of a layer below starts that registry's stage
first, so stages always run in the layer order of the design card, the order
of STAGES. This is the one place that knows every layer; it names them as
``module:function`` strings, as an entry-point table does, so the lowest layer
can start the higher ones without importing them.

After a registry's stage has run, the registry is sealed: it changes only
through ``texport.library`` (custom ops, user decompositions), which opens it
with ``Registry.opened_for_library()``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

# (stage, "module:function"), in layer order: dialects, interpreter, tracer, lowering, backends.
STAGES: tuple[tuple[str, str], ...] = (
    ("op table", "texport.dialects.op_table:register_all"),
    ("shape rules", "texport.dialects.shape_rules.loader:load_all"),
    ("kernels", "texport.interpreter.kernels.loader:load_all"),
    ("eager mode", "texport.tracer.eager:install_eager_mode"),
    ("canonicalizations", "texport.lowering.rules:register_canonicalization_patterns"),
    ("decompositions", "texport.lowering.default_table:load_all"),
    ("native kernels", "texport.backends.native_kernels:install"),  # IREE itself loads when a kernel is asked for
)
_ENTRIES = dict(STAGES)
_started: set[str] = set()  # a stage is marked before it runs
_done: set[str] = set()


def start(stage: str) -> None:
    """Run ``stage`` unless it has run (or is running: its own reads do not re-enter)."""
    if stage in _started:
        return
    _started.add(stage)
    _entry_point(_ENTRIES[stage])()
    _done.add(stage)


def start_all() -> None:
    """Run every stage (tests that snapshot the registries, benchmarks)."""
    for stage, _ in STAGES:
        start(stage)


def is_done(stage: str) -> bool:
    return stage in _done


def _entry_point(entry: str) -> Callable[[], None]:
    module, _, function = entry.partition(":")
    return getattr(importlib.import_module(module), function)
