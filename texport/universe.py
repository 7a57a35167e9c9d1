"""texport's dialects and passes for xDSL tools (`xdsl-opt` finds them through
the ``xdsl.universe`` entry point; `texport-opt` uses the same table).

Each entry is a factory that imports its dialect or pass when a tool first asks
for it, as xDSL's own universe does: a tool that never meets a texport op
never pays for generating texport's dialects (benchmarks/startup.py)."""

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

def _pass(name: str) -> Callable[[], type[ModulePass]]:
    def factory() -> type[ModulePass]:
        from texport.lowering.passes import PASSES as LOWERING_PASSES

        return next(p for p in LOWERING_PASSES if p.name == name)

    return factory


def _linalg_pass(name: str) -> Callable[[], type[ModulePass]]:
    def factory() -> type[ModulePass]:
        from texport.lowering.linalg import LINALG_PASSES

        return next(p for p in LINALG_PASSES if p.name == name)

    return factory


# The passes below core (texport.lowering.linalg), named here so that a tool
# finds them without importing them
LINALG_PASS_NAMES = (
    "lower-core-to-linalg", "legalize-linalg",
    *(f"lower-core-to-linalg-{family}" for family in
      ("scalars", "pointwise", "matmul", "conv-pool", "reductions", "norms", "views", "indexing", "control")),
)


# Lowering passes by name (xDSL's own `dce`, `cse`, `canonicalize` and
# `apply-pdl` come from xDSL's universe and work on texport IR too; stock
# `canonicalize` applies texport's algebraic rules, the ops' canonicalization
# patterns).
PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    **{name: _pass(name) for name in ("functionalize", "decompose", "legalize-functional", "legalize-core")},
    **{name: _linalg_pass(name) for name in LINALG_PASS_NAMES},
}

TEXPORT_UNIVERSE = Universe(all_dialects=DIALECTS, all_passes=PASSES)
