"""texport's dialects and passes for xDSL tools (`xdsl-opt` finds them through
the ``xdsl.universe`` entry point; `texport-opt` uses the same table)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe

from texport.dialects.registry import LEVELS


def _tx() -> Dialect:
    from texport.dialects.tx import TX

    return TX


def _control() -> Dialect:
    from texport.dialects.control import CONTROL

    return CONTROL


def _level(level: str) -> Callable[[], Dialect]:
    def factory() -> Dialect:
        from texport.dialects.aten import level_dialect

        return level_dialect(level)

    return factory


DIALECTS: dict[str, Callable[[], Dialect]] = {
    "tx": _tx,
    "control": _control,
    **{level: _level(level) for level in LEVELS},
}

PASSES: dict[str, Callable[[], type[ModulePass]]] = {}

TEXPORT_UNIVERSE = Universe(all_dialects=DIALECTS, all_passes=PASSES)
