"""Start-up: what fills texport's registries, in layer order, run when first needed.

Importing a texport module registers nothing. The first read of a registry
(or the first op call, which needs the eager mode) runs ``start(stage)``: every
stage up to that one runs once, in the layer order of the design card, each
by calling one function of the layer that owns the registry. This is the one
place that knows every layer; it names them as ``module:function`` strings, as
an entry-point table does, so the lowest layer can start the higher ones
without importing them.

After a registry's stage has run, the registry is sealed: it changes only
through ``texport.library`` (custom ops, user decompositions), which opens it
with ``Registry.opened_for_library()``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

# (stage, "module:function"), in layer order: dialects, interpreter, tracer, lowering.
STAGES: tuple[tuple[str, str], ...] = (
    ("op table", "texport.dialects.op_table:register_all"),
    ("shape rules", "texport.dialects.shape_rules.loader:load_all"),
    ("kernels", "texport.interpreter.kernels.loader:load_all"),
    ("eager mode", "texport.tracer.eager:install_eager_mode"),
    ("decompositions", "texport.lowering.default_table:load_all"),
)
_ORDER = {name: index for index, (name, _) in enumerate(STAGES)}
_started: set[str] = set()  # a stage is marked before it runs: its own reads do not re-enter
_done: set[str] = set()


def start(stage: str) -> None:
    """Run every stage up to and including ``stage`` that has not run yet."""
    if stage in _done:
        return
    for name, entry in STAGES[: _ORDER[stage] + 1]:
        if name not in _started:
            _started.add(name)
            _entry_point(entry)()
            _done.add(name)


def is_done(stage: str) -> bool:
    return stage in _done


def _entry_point(entry: str) -> Callable[[], None]:
    module, _, function = entry.partition(":")
    return getattr(importlib.import_module(module), function)
