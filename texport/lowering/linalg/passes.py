"""The passes below core, for texport-opt and ``lower_to_linalg``:

- ``lower-core-to-linalg-<family>``: the ops of one family (``registry.FAMILIES``)
  become upstream ops; the rest stay, linked by unrealized casts;
- ``lower-core-to-linalg``: every family, then the function signatures
  (``!tx.tensor`` arguments and results become ``tensor``, texport's argument
  attributes go: the program's signature keeps them), the casts folded in
  pairs, dead sizes dropped. An op with no lowering stays where it was;
- ``legalize-linalg``: fails on the first op outside the upstream dialects,
  naming it and its source line.
"""

from __future__ import annotations

import warnings
import weakref
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, UnrealizedConversionCastOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import dce
from xdsl.transforms.reconcile_unrealized_casts import reconcile_unrealized_casts

from texport.dialects.context import print_module

from ..errors import LegalityError, LoweringError
from ..legality import where
from . import control, conv_pool, indexing, matmul, norms, pointwise, reductions, scalars, views  # noqa: F401
from .builder import Lowering
from .registry import FAMILIES, LOWERINGS, op_key
from .scalars import assert_ranges
from .sizes import SizeError, SizeTable
from .types import UnsupportedType, upstream_type

# The dialects a lowered program may hold: what iree-opt and mlir-opt register.
UPSTREAM_DIALECTS = frozenset({"builtin", "func", "linalg", "tensor", "arith", "math", "scf", "cf"})


# Why an op that has a lowering was left: its lowering could not apply (a size
# only known at run time, an element type upstream tensors lack)
UNLOWERED_BECAUSE: weakref.WeakKeyDictionary[Operation, str] = weakref.WeakKeyDictionary()


class LowerToLinalgPattern(RewritePattern):
    """Lowers each op whose lowering is in one of ``families``."""

    def __init__(self, families: frozenset[str]) -> None:
        self.families = families
        self._sizes: dict[int, SizeTable] = {}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        entry = LOWERINGS.get(op_key(op))
        if entry is None or entry.family not in self.families:
            return
        func = _function_of(op)
        sizes = self._sizes.get(id(func))
        if sizes is None:
            sizes = self._sizes[id(func)] = SizeTable(func)
        try:
            values = entry.lower(Lowering(op, rewriter, sizes))
        except (SizeError, UnsupportedType) as error:
            # the op stays (what the lowering inserted before failing is dead, and goes);
            # legalize-linalg names it with the reason
            UNLOWERED_BECAUSE[op] = str(error)
            return
        _replace(op, values, rewriter)


def _function_of(op: Operation) -> FuncOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    if parent is None:
        raise LoweringError(f"lower-core-to-linalg: '{op.name}'{where(op)} is outside a function")
    return parent


def _replace(op: Operation, values: list, rewriter: PatternRewriter) -> None:
    """Each result's uses take the new value, cast back to the result's texport type."""
    if len(values) != len(op.results):
        raise LoweringError(f"lower-core-to-linalg: the lowering of '{op.name}' gave {len(values)} "
                            f"values for {len(op.results)} results")
    replacements = []
    for result, value in zip(op.results, values, strict=True):
        if value is None:
            if result.uses:
                raise LoweringError(f"lower-core-to-linalg: '{op.name}'{where(op)}: result "
                                    f"#{result.index} is used but its lowering computes none")
            replacements.append(None)
            continue
        cast = UnrealizedConversionCastOp.get([value], [result.type])
        rewriter.insert(cast, InsertPoint.before(op))
        replacements.append(cast.results[0])
    for result, new in zip(op.results, replacements, strict=True):
        if new is not None:
            result.replace_all_uses_with(new)
    rewriter.erase(op, safe_erase=False)


def lower_families(module: ModuleOp, families: frozenset[str]) -> None:
    walker = PatternRewriteWalker(GreedyRewritePatternApplier([LowerToLinalgPattern(families)]),
                                  apply_recursively=False)
    walker.rewrite_module(module)


def convert_signatures(module: ModuleOp) -> None:
    """Arguments and results of each function in upstream types; texport's
    attributes dropped (the program's signature keeps what they said)."""
    for func in (op for op in module.walk() if isinstance(op, FuncOp)):
        block = func.body.block
        for arg in list(block.args):
            new_type = upstream_type(arg.type)
            if new_type is arg.type:
                continue
            old_type = arg.type
            uses = list(arg.uses)
            func.replace_argument_type(arg, new_type, Rewriter())
            cast = UnrealizedConversionCastOp.get([block.args[arg.index]], [old_type])
            Rewriter.insert_op(cast, InsertPoint.at_start(block))
            for use in uses:
                use.operation.operands[use.index] = cast.results[0]
        for ret in (op for op in block.ops if isinstance(op, ReturnOp)):
            for position, value in enumerate(ret.operands):
                new_type = upstream_type(value.type)
                if new_type is not value.type:
                    cast = UnrealizedConversionCastOp.get([value], [new_type])
                    Rewriter.insert_op(cast, InsertPoint.before(ret))
                    ret.operands[position] = cast.results[0]
        func.update_function_type()
        _drop_texport_attributes(func)


def _drop_texport_attributes(func: FuncOp) -> None:
    def upstream_only(attrs: DictionaryAttr) -> DictionaryAttr:
        return DictionaryAttr({k: v for k, v in attrs.data.items() if not k.startswith("tx.")})

    if func.arg_attrs is not None:
        func.arg_attrs = type(func.arg_attrs)([upstream_only(a) for a in func.arg_attrs.data])
    if func.res_attrs is not None:
        func.res_attrs = type(func.res_attrs)([upstream_only(a) for a in func.res_attrs.data])
    for name in [n for n in func.attributes if n.startswith("tx.")]:
        del func.attributes[name]


def illegal_ops(module: ModuleOp) -> list[Operation]:
    return [op for op in module.walk() if op.dialect_name() not in UPSTREAM_DIALECTS
            or isinstance(op, UnrealizedConversionCastOp)]


def check_linalg(module: ModuleOp, pass_name: str = "legalize-linalg") -> None:
    left = [op for op in illegal_ops(module) if not isinstance(op, UnrealizedConversionCastOp)]
    if not left:
        left = illegal_ops(module)
    if left:
        first = left[0]
        names = sorted({op.name for op in left})
        reason = UNLOWERED_BECAUSE.get(first)
        why = f"was not lowered: {reason}" if reason else "has no lowering to upstream MLIR"
        raise LegalityError(
            f"{pass_name}: '{first.name}'{where(first)} {why} ({len(left)} op(s) left: {', '.join(names)})")


def lower_to_linalg(module: ModuleOp) -> ModuleOp:
    """``module`` (core level) lowered in place by ``lower-core-to-linalg``, then checked."""
    LowerCoreToLinalgPass().apply(Context(), module)
    check_linalg(module)
    return module


def lower_to_linalg_text(module: ModuleOp) -> str:
    """The upstream MLIR text of a core module (which is left as it was)."""
    lowered = lower_to_linalg(module.clone())
    return print_module(lowered)


# --------------------------------------------------------------------------
# The passes
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class LowerCoreToLinalgPass(ModulePass):
    """core → upstream MLIR: every family, then the signatures; casts folded."""

    name = "lower-core-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_families(op, frozenset(FAMILIES))
        for func in (inner for inner in op.walk() if isinstance(inner, FuncOp)):
            assert_ranges(func)
        convert_signatures(op)
        with warnings.catch_warnings():
            # the casts around an op left unlowered stay (legalize-linalg names the op)
            warnings.simplefilter("ignore", UserWarning)
            reconcile_unrealized_casts(op)
        dce(op)
        cse(op)


@dataclass(frozen=True)
class LegalizeLinalgPass(ModulePass):
    """upstream MLIR → upstream MLIR, checked: fails on the first op outside the upstream dialects, naming it."""

    name = "legalize-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_linalg(op, self.name)


@dataclass(frozen=True)
class _FamilyPass(ModulePass):
    family: ClassVar[str]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_families(op, frozenset({self.family}))


def _family_pass(family: str) -> type[ModulePass]:
    name = f"lower-core-to-linalg-{family}"
    doc = f"core → upstream MLIR for the {family} ops only; others stay, linked by casts."
    cls = type(f"Lower{family.title().replace('-', '')}ToLinalgPass", (_FamilyPass,),
               {"name": name, "family": family, "__doc__": doc, "__module__": __name__})
    return dataclass(frozen=True)(cls)


LINALG_PASSES: tuple[type[ModulePass], ...] = (
    LowerCoreToLinalgPass, LegalizeLinalgPass, *(_family_pass(f) for f in FAMILIES),
)
