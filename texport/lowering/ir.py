"""Small IR utilities the passes share: cloning with torch's names kept,
torch-style renaming, reading each symbolic size once."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from texport.dialects.aten import AtenOp
from texport.dialects.names import copy_name, node_name, set_name
from texport.tracer.tracing import NameTable

_SUFFIX = re.compile(r"_\d+$")


def functions(module: Operation) -> Iterator[FuncOp]:
    """The module's top-level functions."""
    for op in module.regions[0].block.ops if module.regions else ():
        if isinstance(op, FuncOp):
            yield op


def clone_module(module: ModuleOp) -> ModuleOp:
    """A deep copy that keeps SSA names whole (xDSL's clone drops ``_N`` suffixes)."""
    copies: dict[SSAValue, SSAValue] = {}
    copy = module.clone(value_mapper=copies, clone_name_hints=False)
    for old, new in copies.items():
        if old.name_hint:
            copy_name(old, new)
    return copy


def _node_name(op: AtenOp) -> str:
    return node_name(op.op_def.schema)


def rename(block: Block) -> None:
    """Name every value as torch names the nodes of a freshly traced graph:
    the op's name, ``_1``, ``_2`` ... on reuse; the results of a multi-result op
    are ``getitem``s (trailing unused ones stay unnamed, as torch never reads
    them). Block arguments keep their names. Nested regions share the
    function's names (an MLIR name is visible in the regions below it)."""
    names = NameTable()
    for arg in block.args:
        if arg.name_hint:
            names.used[arg.name_hint] = 0
    _rename_block(block, names)


def _rename_block(block: Block, names: NameTable) -> None:
    for op in block.ops:
        for region in op.regions:
            for inner in region.blocks:
                _rename_block(inner, names)
        if isinstance(op, AtenOp):
            _rename_aten(op, names)
            continue
        for result in op.results:
            if result.name_hint:
                set_name(result, names.claim(_SUFFIX.sub("", result.name_hint)))


# The functional forms torch's functionalization makes of an op that writes a
# temporary (rrelu_with_noise's noise): it reads every result, to copy the
# written ones back, so each claims a getitem even when the copy is dropped.
_READS_EVERY_RESULT = frozenset({"aten.rrelu_with_noise_functional.default"})


def _rename_aten(op: AtenOp, names: NameTable) -> None:
    schema = op.op_def.schema
    results = op.results
    if len(results) == 1 and not schema.returns_tuple and not schema.returns[0].type.is_list:
        set_name(results[0], names.claim(_node_name(op)))
        return
    names.claim(_node_name(op))
    last_used = max((i for i, r in enumerate(results) if r.uses), default=-1)
    if op.op_def.key in _READS_EVERY_RESULT:
        last_used = len(results) - 1
    for index, result in enumerate(results):
        if index <= last_used:
            set_name(result, names.claim("getitem"))
        else:
            result._name = None  # noqa: SLF001 - an unread result has no name


def dedupe_symbols(block: Block) -> int:
    """Read each symbolic size once: a later ``sym_size.int`` or ``tx`` op
    with the same operands and properties as an earlier one is replaced by it
    (decompositions and export each read sizes where they need them)."""
    seen: dict[tuple[Any, ...], Operation] = {}
    erased = 0
    for op in list(block.ops):
        if not _is_symbolic(op):
            continue
        key = (op.name, tuple(op.operands), tuple(sorted(op.properties.items(), key=lambda kv: kv[0])),
               tuple(sorted(op.attributes.items(), key=lambda kv: kv[0])))
        first = seen.get(key)
        if first is None:
            seen[key] = op
            continue
        for old, new in zip(op.results, first.results):
            old.replace_all_uses_with(new)
        block.erase_op(op)
        erased += 1
    return erased


def _is_symbolic(op: Operation) -> bool:
    name = op.name  # (by name: asked of every op, and cheaper than isinstance)
    if name.startswith("tx."):
        return bool(op.results) and name != "tx.assert"
    return name.endswith(".sym_size.int")
