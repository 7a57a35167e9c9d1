"""``ep.run_decompositions(decomp_table)`` as a pass pipeline: the passes
texport-opt offers, as ``texport-opt -p`` would run them.

- ``{}``: ``functionalize`` → the functional (inference) level;
- ``None``: ``functionalize{tidy=false},decompose{table=core}`` → core ATen;
  an op left outside core is an error that lists them;
- a table: the same, ``decompose`` carrying that table (a pass option cannot
  name it): ops without an entry are kept, core ops move to core.

(decompose tidies the program at its end: functionalize need not before it.)
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Iterator
from typing import Any

from xdsl.passes import PassPipeline

from .passes import PASSES, DecomposePass, FunctionalizePass
from .table import as_key_table

_BY_NAME = {cls.name: (lambda cls=cls: cls) for cls in PASSES}


def decomposition_pipeline(decomp_table: Any = None) -> PassPipeline:
    """The passes ``ep.run_decompositions(decomp_table)`` runs."""
    if decomp_table is None:
        return _parsed("functionalize{tidy=false},decompose{table=core}")
    table = as_key_table(decomp_table)
    if not table:
        return _parsed("functionalize")
    return PassPipeline((FunctionalizePass(tidy=False), DecomposePass(decompositions=table)))


@functools.cache
def _parsed(spec: str) -> PassPipeline:
    """A pipeline as texport-opt reads ``-p spec`` (parsed once: parsing costs
    more than lowering a small program)."""
    return PassPipeline.parse_spec(_BY_NAME, spec)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Lowering allocates many small, long-lived IR objects: the cyclic
    collector would rescan the growing heap again and again (a superlinear
    cost on large programs). It runs once, after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
