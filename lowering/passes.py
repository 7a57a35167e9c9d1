"""texport's passes, for texport-opt / xdsl-opt (``-p functionalize,decompose``)
and for ``ep.run_decompositions``. Each docstring says source level → target
level; each leaves IR that verifies. xDSL's own ``dce`` and ``cse`` work on
texport IR as they are (ATen ops without writes or randomness are Pure).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from .decompose import decompose_function
from .default_table import NAMED_TABLES
from .functionalize import functionalize_function
from .ir import blocks, dce, dedupe_symbols, functions, rename
from .legality import (
    LegalityError,
    check_core,
    check_functional,
    describe_left,
    is_core_legal,
    is_custom,
)
from .patterns import apply_rules
from .rules import CANONICALIZE, LEGALIZE_CORE, LEGALIZE_FUNCTIONAL


@dataclass(frozen=True)
class FunctionalizePass(ModulePass):
    """training → functional: in-place ops become their functional forms,
    writes through views are replayed on their bases, and mutated buffers and
    user inputs become extra results (BUFFER_MUTATION / USER_INPUT_MUTATION)."""

    name = "functionalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in functions(op):
            functionalize_function(func)
            dce(func.body.block)
            rename(func.body.block)


@dataclass(frozen=True)
class DecomposePass(ModulePass):
    """functional → core (with ``table=core``, the default table): each op with
    a decomposition is replaced in place by the ops its decomposition traces
    to, recursively; core ops then move to the core dialect. An op left outside
    core is an error that lists them."""

    name = "decompose"

    table: str = "core"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.table not in NAMED_TABLES:
            raise ValueError(f"decompose: unknown table {self.table!r} (known: {', '.join(NAMED_TABLES)})")
        table = NAMED_TABLES[self.table]()
        for func in functions(op):
            check_functional(func, "decompose")
            decompose_function(func, table)
            block = func.body.block
            for inner in blocks(block):
                apply_rules(inner, LEGALIZE_CORE)
            left = [inner for inner in func.walk() if not is_core_legal(inner) and not is_custom(inner)]
            if left:
                raise LegalityError(f"decompose{{table={self.table}}}: {describe_left(left, 'core')}")
            dedupe_symbols(block)
            dce(block)
            rename(block)


@dataclass(frozen=True)
class LegalizeFunctionalPass(ModulePass):
    """training → functional, for programs that write nothing: each op moves to
    the functional dialect; an op that writes is an error naming it."""

    name = "legalize-functional"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in functions(op):
            for block in blocks(func.body.block):
                apply_rules(block, LEGALIZE_FUNCTIONAL)
        check_functional(op, self.name)


@dataclass(frozen=True)
class LegalizeCorePass(ModulePass):
    """functional → core: each core op moves to the core dialect; an op
    outside the core set is an error naming it."""

    name = "legalize-core"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in functions(op):
            for block in blocks(func.body.block):
                apply_rules(block, LEGALIZE_CORE)
        check_core(op, self.name)


@dataclass(frozen=True)
class CanonicalizeAtenPass(ModulePass):
    """functional → functional, core → core: algebraic simplifications (x*1,
    x+0, view of view, transpose of transpose, no-op expand/clone/permute),
    then dead-code elimination. Training programs are left as they are (a
    clone there may be written later)."""

    name = "aten-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in functions(op):
            if any(getattr(inner, "level", None) == "training" for inner in func.walk()):
                continue
            for block in blocks(func.body.block):
                apply_rules(block, CANONICALIZE)
            dce(func.body.block)


PASSES: tuple[type[ModulePass], ...] = (
    FunctionalizePass, DecomposePass, LegalizeFunctionalPass, LegalizeCorePass, CanonicalizeAtenPass,
)
