"""Small helpers for texport's custom assembly formats.

texport's formats print only result types: an operand's type is the type of
its definition, which the parser already knows (programs are SSACFG, so a
value is defined before it is used)."""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.parser import Parser


def parse_defined_operand(parser: Parser) -> SSAValue:
    """Parse ``%name`` (or ``%name#i``) that must already be defined."""
    operand = parser.parse_unresolved_operand()
    return resolve_defined(parser, operand)


def resolve_defined(parser: Parser, operand) -> SSAValue:  # noqa: ANN001 - UnresolvedOperand
    values = parser.ssa_values.get(operand.operand_name)
    if values is None:
        parser.raise_error(
            f"use of undefined value '%{operand.operand_name}' (texport IR is in SSA order: "
            "define a value before its use)",
            operand.span,
        )
    if operand.index >= len(values):
        parser.raise_error(
            f"'%{operand.operand_name}' has {len(values)} results, #{operand.index} requested",
            operand.span,
        )
    return values[operand.index]


def parse_optional_defined_operand(parser: Parser) -> SSAValue | None:
    operand = parser.parse_optional_unresolved_operand()
    return None if operand is None else resolve_defined(parser, operand)
