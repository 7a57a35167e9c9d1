"""SSA names exactly as torch names nodes (``add_1``, ``inp_others_0``).

xDSL strips a trailing ``_<digits>`` from name hints and renumbers values when
printing; torch's names keep their suffixes (``getitem_3``, ``inp_others_0``).
texport sets names whole, and its parser keeps them whole, so that a module
prints → parses → prints identically and the IR's names are the signature's.
(Uses xDSL internals: tested on the xdsl versions pyproject.toml admits.)"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xdsl.parser import Parser
from xdsl.utils.lexer import Span

from .schema import OpSchema

# What torch's size reads and runtime asserts return: their nodes are made by
# export itself, not traced through the dispatcher.
_INSERTED_RETURNS = frozenset({"SymInt", "SymBool", "SymFloat"})


def node_name(schema: OpSchema) -> str:
    """The base name torch gives an op's node: a traced op is named after its
    packet (``softmax.int`` -> ``softmax``); an op export inserts itself (one
    returning a symbolic scalar or nothing: ``sym_size.int``, ``_assert_scalar``)
    after its overload, the dot an underscore (``sym_size_int``)."""
    returns = schema.returns
    if not returns or returns[0].type.base in _INSERTED_RETURNS:
        return f"{schema.name}_{schema.overload}"
    if schema.name.startswith("__") and schema.name.endswith("__"):
        return schema.name[2:-2]  # fx names a magic method's node without its underscores (lshift)
    return schema.name


def set_name(value: SSAValue, name: str) -> None:
    """Name ``value`` exactly ``name`` (validated like any xDSL name hint)."""
    if not SSAValue.is_valid_name(name):
        raise ValueError(f"invalid SSA name '{name}'")
    value._name = name  # noqa: SLF001 - keep torch's `_N` suffix


def copy_name(source: SSAValue, target: SSAValue) -> None:
    """Give ``target`` the name of ``source`` whole (already a valid name)."""
    target._name = source._name  # noqa: SLF001 - keep torch's `_N` suffix


class TexportParser(Parser):
    """xDSL's parser, keeping SSA names whole."""

    def _register_ssa_definition(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        super()._register_ssa_definition(name, values, span)
        if len(values) == 1 and SSAValue.is_valid_name(name):
            values[0]._name = name  # noqa: SLF001
