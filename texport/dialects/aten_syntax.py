"""Fast parsing of an ATen op's argument list ``(%x, [1, %n], alpha = 2)``.

Going token by token through xDSL's lexer costs ~10 µs a token, and an op
line has a dozen of them. The argument list is instead cut out of the raw
text (a balanced scan to the closing ``)``), tokenised with one regex, and
parsed against the op's schema; the lexer then resumes after the ``)``.
Errors still point at the exact column of the offending token.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser
from xdsl.utils.mlir_lexer import StringLiteral

from .dtypes import BY_IR_NAME, BY_SCALAR_TYPE, DType
from .schema import ArgType, Argument
from .tx import tensor_type_from_body

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<ssa>%[A-Za-z0-9_$.\-]+)(?:\#(?P<index>\d+))?
    | (?P<complex>complex\((?P<real>[^,()]+),\s*(?P<imag>[^,()]+)\))
    | (?P<float>-?\d+\.\d*(?:[eE][-+]?\d+)?)
    | (?P<int>-?\d+)
    | (?P<str>"(?:[^"\\\n\v\f]++|\\.)*+")
    | (?P<punct>[\[\],=])
    | (?P<word>-?[A-Za-z_][A-Za-z0-9_.$]*(?:<[A-Za-z0-9_]*>)?)
    )""",
    re.X,
)
_WORDS = {"true": True, "false": False, "none": None, "inf": math.inf, "-inf": -math.inf,
          "nan": math.nan}
_UNSET: Any = object()


class _Tokens:
    """Tokens of one argument list; positions are absolute offsets in the input."""

    def __init__(self, parser: Parser, start: int, end: int) -> None:
        self.parser = parser
        self.items: list[tuple[str, str, int, re.Match[str]]] = []
        content = parser.lexer.input.content
        pos = start
        while pos < end:
            match = _TOKEN.match(content, pos, end)
            if match is None or match.end() == pos:
                if content[pos:end].strip() == "":
                    break
                bad = pos + len(content[pos:end]) - len(content[pos:end].lstrip())
                parser.raise_error(f"unexpected character {content[bad]!r} in argument list", bad)
            kind = match.lastgroup if match.lastgroup != "index" else "ssa"
            token_start = match.start(kind)
            self.items.append((kind, match.group(kind), token_start, match))
            pos = match.end()
        self.index = 0
        self.end = end

    def peek(self) -> tuple[str, str, int, re.Match[str]] | None:
        return self.items[self.index] if self.index < len(self.items) else None

    def take(self, text: str) -> bool:
        token = self.peek()
        if token is not None and token[0] == "punct" and token[1] == text:
            self.index += 1
            return True
        return False

    def expect(self, text: str, context: str) -> None:
        if not self.take(text):
            self.fail(f"expected '{text}' {context}")

    def fail(self, message: str) -> None:
        token = self.peek()
        where = token[2] if token else self.end
        found = f", found '{token[1]}'" if token else ", found ')'"
        self.parser.raise_error(message + found, where)


def scan_argument_list(parser: Parser) -> tuple[int, int]:
    """With the current token at ``(``, return the span inside the parentheses
    and move the lexer past the matching ``)``."""
    token = parser._current_token  # noqa: SLF001 - raw scan; xdsl is pinned
    if token.text != "(":
        parser.raise_error("expected '(' to open the argument list")
    content = parser.lexer.input.content
    start = token.span.end
    depth, pos, length = 0, start, len(content)
    while pos < length:
        ch = content[pos]
        if ch == '"':
            pos += 1
            while pos < length and content[pos] not in '"\n':  # a string ends on its line
                pos += 2 if content[pos] == "\\" else 1
        elif ch in "([":  # complex(re, im) nests a pair of parentheses
            depth += 1
        elif ch in ")]":
            if depth == 0 and ch == ")":
                parser.lexer.pos = pos + 1
                parser._parser_state.current_token = parser.lexer.lex()  # noqa: SLF001
                return start, pos
            depth -= 1
        pos += 1
    parser.raise_error("argument list is not closed with ')'", token.span.start)


def parse_arguments(parser: Parser, op_name: str, arguments: Sequence[Argument]) -> list[Any]:
    """Parse ``(a, b, name = c)`` into values in schema order (unset → _UNSET)."""
    start, end = scan_argument_list(parser)
    tokens = _Tokens(parser, start, end)
    values: list[Any] = [_UNSET] * len(arguments)
    by_name = {arg.name: i for i, arg in enumerate(arguments)}
    positional = [i for i, arg in enumerate(arguments) if not arg.kwarg_only]
    count = 0
    while tokens.peek() is not None:
        kind, text, pos, _ = tokens.peek()
        is_keyword = (
            kind == "word" and tokens.index + 1 < len(tokens.items)
            and tokens.items[tokens.index + 1][1] == "="
        )
        if is_keyword:
            if text not in by_name:
                parser.raise_error(f"'{op_name}' has no argument named '{text}'", pos)
            index = by_name[text]
            tokens.index += 2
        else:
            if count >= len(positional):
                parser.raise_error(
                    f"'{op_name}' takes {len(positional)} positional arguments, found more", pos
                )
            index = positional[count]
            count += 1
        if values[index] is not _UNSET:
            parser.raise_error(f"argument '{arguments[index].name}' of '{op_name}' given twice", pos)
        values[index] = _checked(tokens, op_name, arguments[index])
        if tokens.peek() is not None:
            tokens.expect(",", "between arguments")
    return values


def _checked(tokens: _Tokens, op_name: str, argument: Argument) -> Any:
    """The next value, if it is of the argument's kind (else a ParseError at it)."""
    first = tokens.index
    value = _value(tokens, argument.type)
    mismatch = literal_mismatch(value, argument.type)
    if mismatch is not None:
        item, message = mismatch
        # a list is flat: '[' item ',' item ... so item k is token 2k + 1 after the '['
        where = first + (2 * item + 1 if isinstance(value, list) else 0)
        tokens.parser.raise_error(
            f"argument '{argument.name}' of '{op_name}' {message}", tokens.items[where][2]
        )
    return _as_declared(value, argument.type)


# The literal values each schema base type holds (bool is an int, as in torch's
# schemas; enums also as the numbers schema defaults use). Tensor holds numbers:
# a wrapped scalar (add.Tensor(%x, 1)). Generator, Dimname, ...: SSA or none only.
_LITERAL_KINDS: dict[str, tuple[type, ...]] = {
    "int": (int,), "SymInt": (int,), "bool": (int,),
    "float": (int, float), "SymFloat": (int, float),
    "Scalar": (int, float, complex), "Tensor": (int, float, complex),
    "str": (str,), "ScalarType": (DType, int),
    "Layout": (str, int), "Device": (str, int), "MemoryFormat": (str, int),
}


# Enums whose values texport reads (others, such as Device, pass through as text):
# their names and the numbers torch's schema defaults use.
_ENUMS: dict[str, frozenset[Any]] = {
    "ScalarType": frozenset(BY_SCALAR_TYPE),
    "MemoryFormat": frozenset({"contiguous_format", "preserve_format", "channels_last",
                               "channels_last_3d", 0, 1, 2, 3}),
}


def literal_mismatch(value: Any, arg_type: ArgType) -> tuple[int, str] | None:
    """Why ``value`` (a parsed or held literal; SSA values are the verifier's)
    cannot be an ``arg_type`` argument, with the index of the offending list
    item (0 for a scalar): (1, 'expects int[], found float 1.0'); None if it can."""
    if value is None:
        return None if arg_type.optional else (0, f"expects {arg_type.render()}, found none")
    if isinstance(value, list) and not arg_type.is_list:
        return 0, f"expects {arg_type.render()}, found a list"
    for index, item in enumerate(value if isinstance(value, list) else [value]):
        if not _holds(arg_type, item):
            found = "none" if item is None else f"{_kind_name(item)} {item!r}"
            return index, f"expects {arg_type.render()}, found {found}"
    return None


def _holds(arg_type: ArgType, item: Any) -> bool:
    """Whether one (list item or scalar) value fits the argument's base type."""
    if isinstance(item, SSAValue):
        return True
    if item is None:
        return arg_type.element_optional
    if arg_type.is_tensor_like and arg_type.is_list:
        return False  # a Tensor[] holds values only: numbers are wrapped one at a time
    if isinstance(item, list) or not isinstance(item, _LITERAL_KINDS.get(arg_type.base, ())):
        return False
    enum = _ENUMS.get(arg_type.base)
    return enum is None or isinstance(item, DType) or item in enum


def _kind_name(item: Any) -> str:
    if isinstance(item, DType):
        return "dtype"
    return "a list" if isinstance(item, list) else type(item).__name__


def _as_declared(value: Any, arg_type: ArgType) -> Any:
    """``int[2] stride`` written as ``2`` means [2, 2], as in a torch call."""
    if arg_type.is_list and value is not None and not isinstance(value, list):
        return [value] * (arg_type.list_size or 1)
    return value


def _value(tokens: _Tokens, arg_type: ArgType) -> Any:
    if tokens.take("["):
        items: list[Any] = []
        if not tokens.take("]"):
            while True:
                items.append(_scalar(tokens, arg_type))
                if tokens.take("]"):
                    break
                tokens.expect(",", "or ']' in a list argument")
        return items
    return _scalar(tokens, arg_type)


def _scalar(tokens: _Tokens, arg_type: ArgType) -> Any:
    token = tokens.peek()
    if token is None:
        tokens.fail(f"expected a value for a {arg_type.render()} argument")
    kind, text, pos, match = token
    tokens.index += 1
    parser = tokens.parser
    if kind == "ssa":
        return _resolve(parser, text[1:], _result_index(parser, match), pos, len(text))
    if kind == "int":
        return float(text) if arg_type.base == "float" else _int64(parser, text, pos)
    if kind == "float":
        return float(text)
    if kind == "complex":  # complex(re, im): a complex scalar, each part a float or inf/nan word
        return complex(_complex_part(parser, match, "real"), _complex_part(parser, match, "imag"))
    if kind == "str":
        return _string(parser, pos, len(text))
    if kind == "word":
        if text in _WORDS:
            return _WORDS[text]
        if arg_type.base == "ScalarType" and text in BY_IR_NAME:
            return BY_IR_NAME[text]
        if arg_type.base in ("MemoryFormat", "Layout", "Device"):
            return text
    tokens.index -= 1
    tokens.fail(
        f"expected a value for a {arg_type.render()} argument "
        "(%ssa, number, true/false, none, string, [list])"
    )


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT64_DIGITS = 20  # a longer literal is out of range: never handed to int() (4300-digit limit)


def _int64(parser: Parser, text: str, pos: int) -> int:
    value = int(text) if len(text) <= _INT64_DIGITS else None
    if value is None or not _INT64_MIN <= value <= _INT64_MAX:
        shown = text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"
        parser.raise_error(f"integer {shown} is out of the int64 range", pos, pos + len(text))
    return value


def _result_index(parser: Parser, match: re.Match[str]) -> int:
    index = match.group("index")
    if index is None:
        return 0
    if len(index) > 9:  # more results than any op has
        parser.raise_error(f"result number #{index[:20]} is too large", match.start("index"), match.end())
    return int(index)


def _complex_part(parser: Parser, match: re.Match[str], part: str) -> float:
    text = match.group(part).strip()
    if text in _WORDS and isinstance(_WORDS[text], float):
        return _WORDS[text]
    try:
        return float(text)
    except ValueError:
        parser.raise_error(f"expected a number or inf/nan as the {part} part of complex(...), found "
                           f"'{text}'", match.start(part), match.end(part))


def _string(parser: Parser, pos: int, length: int) -> str:
    """A string argument's value: escapes decoded, the bytes UTF-8."""
    literal = StringLiteral(pos, pos + length, parser.lexer.input)
    try:
        return literal.bytes_contents.decode("utf-8")
    except UnicodeDecodeError as err:
        parser.raise_error(f"string literal is not UTF-8 once unescaped ({err.reason} at byte "
                           f"{err.start})", pos, pos + length)


def _resolve(parser: Parser, name: str, index: int, pos: int, length: int) -> SSAValue:
    values = parser.ssa_values.get(name)
    if values is None:
        parser.raise_error(
            f"use of undefined value '%{name}' (texport IR is in SSA order: "
            "define a value before its use)", pos, pos + length,
        )
    if index >= len(values):
        parser.raise_error(f"'%{name}' has {len(values)} results, #{index} requested", pos)
    return values[index]


UNSET = _UNSET
_TENSOR_PREFIX = "!tx.tensor<"


def parse_result_types(parser: Parser) -> list[Attribute]:
    """`` : type`` or `` : (type, type)``; ``!tx.tensor<...>`` types are read
    straight from the raw text through the type memo."""
    parser.parse_punctuation(":", context_msg=" before the result type")
    if parser.parse_optional_punctuation("(") is not None:
        types = [_result_type(parser)]
        while parser.parse_optional_punctuation(",") is not None:
            types.append(_result_type(parser))
        parser.parse_punctuation(")")
        return types
    return [_result_type(parser)]


def _result_type(parser: Parser) -> Attribute:
    token = parser._current_token  # noqa: SLF001 - raw scan; xdsl is pinned
    content = parser.lexer.input.content
    start = token.span.start
    if not content.startswith(_TENSOR_PREFIX, start):
        return parser.parse_type()
    close = content.find(">", start + len(_TENSOR_PREFIX))
    if close < 0:
        return parser.parse_type()  # which reports the unclosed type
    cached = tensor_type_from_body(content[start + len(_TENSOR_PREFIX):close])
    if cached is None:
        return parser.parse_type()
    parser.lexer.pos = close + 1
    parser._parser_state.current_token = parser.lexer.lex()  # noqa: SLF001
    return cached
