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


# The escapes xDSL's and MLIR's string lexers decode; any other character below
# a space (and DEL) as two hex digits.
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}


def string_literal(text: str) -> str:
    """``text`` as a string literal that parses back to ``text``: printable
    characters (non-ASCII too) as themselves, so messages stay readable; the
    rest escaped, a non-ASCII one as its UTF-8 bytes (TexportLexer reads an
    escaped string whose bytes are UTF-8 as a string; xDSL's own lexer reads
    only raw non-ASCII text as one)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'  # the common case: nothing to escape
    return '"' + "".join(_escaped(char) for char in text) + '"'


def _escaped(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char.isprintable():
        return char
    return "".join(f"\\{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
