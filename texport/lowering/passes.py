"""texport's passes, for texport-opt / xdsl-opt (``-p functionalize,decompose``)
and for ``ep.run_decompositions`` (``pipeline.decomposition_pipeline``). Each
docstring says source level → target level; each leaves IR that verifies.

Rule tables run as xDSL rewrite patterns under xDSL's ``PatternRewriteWalker``;
dead ops go through xDSL's ``dce``. texport's algebraic rules are no pass
of their own: they are the ops' canonicalization patterns, which xDSL's stock
``canonicalize`` applies; xDSL's ``dce`` and ``cse`` work on texport IR as they
are (ATen ops without writes or randomness are Pure).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import dce, is_trivially_dead

from .decompose import Decomposition, decompose_before_functionalize, decompose_function
from .default_table import NAMED_TABLES
from .functionalize import forward_buffer_copies, functionalize_function
from .ir import dedupe_symbols, functions, rename
from .legality import (
    LegalityError,
    check_core,
    check_functional,
    describe_left,
    is_core_legal,
    is_custom,
)
from .patterns import rule_walker
from .rules import LEGALIZE_CORE, LEGALIZE_FUNCTIONAL


def _tidy(module: ModuleOp) -> None:
    """Read each size once, name the values as torch names the nodes of its
    retraced graph, drop dead ops, then let a buffer take the value copied into
    it. torch names a node when its retrace makes it and only then eliminates
    dead code: a dead op has taken its name (a loss reduced by sum is ``sum_2``:
    the unused total weight took ``sum_1``). Its copy removal comes last: what
    only a removed copy read stays (a buffer copied into twice keeps the first)."""
    for func in functions(module):
        dedupe_symbols(func.body.block)
        rename(func.body.block)
    # xDSL's dce runs a worklist over every op: looking for a dead op first
    # costs a quarter of that, and most passes leave none
    if any(is_trivially_dead(op) for op in module.walk()):
        dce(module)
    for func in functions(module):
        forward_buffer_copies(func)


@dataclass(frozen=True)
class FunctionalizePass(ModulePass):
    """training → functional: writes become functional ops, mutated buffers and inputs extra results."""

    name = "functionalize"

    # Leave the program tidy (no dead op, each size read once, torch's names).
    # A pipeline whose next pass tidies again may skip it: run_decompositions
    # runs functionalize{tidy=false},decompose (renaming costs as much as
    # legalizing a program).
    tidy: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in functions(op):
            decompose_before_functionalize(func)
            functionalize_function(func)
        if self.tidy:
            _tidy(op)


@dataclass(frozen=True)
class DecomposePass(ModulePass):
    """functional → core: each op with a table entry becomes the ops its decomposition traces to."""

    name = "decompose"

    # A named table (texport-opt's ``decompose{table=core}``): it takes every
    # op to core, and an op left outside core is an error that lists them.
    table: str = "core"
    # A table object by registry key (``ep.run_decompositions(table)``; no
    # pass option can name it): it replaces the named one, and ops without an
    # entry are kept.
    decompositions: Mapping[str, Decomposition] | None = field(default=None, kw_only=True, hash=False, repr=False)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        table = self._table()
        for func in functions(op):
            check_functional(func, "decompose")
            decompose_function(func, table)
            rule_walker(LEGALIZE_CORE, revisit=False).rewrite_region(func.body)
            if self.decompositions is None:
                self._check_core(func)
        _tidy(op)

    def _table(self) -> Mapping[str, Decomposition]:
        if self.decompositions is not None:
            return self.decompositions
        if self.table not in NAMED_TABLES:
            raise ValueError(f"decompose: unknown table {self.table!r} (known: {', '.join(NAMED_TABLES)})")
        return NAMED_TABLES[self.table]()

    def _check_core(self, func: FuncOp) -> None:
        left = [inner for inner in func.walk() if not is_core_legal(inner) and not is_custom(inner)]
        if left:
            raise LegalityError(f"decompose{{table={self.table}}}: {describe_left(left, 'core')}")


@dataclass(frozen=True)
class LegalizeFunctionalPass(ModulePass):
    """training → functional, for programs that write nothing: each op moves down; a writer is an error."""

    name = "legalize-functional"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rule_walker(LEGALIZE_FUNCTIONAL, revisit=False).rewrite_module(op)
        check_functional(op, self.name)


@dataclass(frozen=True)
class LegalizeCorePass(ModulePass):
    """functional → core: each core op moves to the core dialect; any other op is an error naming it."""

    name = "legalize-core"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rule_walker(LEGALIZE_CORE, revisit=False).rewrite_module(op)
        check_core(op, self.name)


PASSES: tuple[type[ModulePass], ...] = (
    FunctionalizePass, DecomposePass, LegalizeFunctionalPass, LegalizeCorePass,
)
