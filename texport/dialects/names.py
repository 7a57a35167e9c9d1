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
