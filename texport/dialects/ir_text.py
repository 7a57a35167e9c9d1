"""Guards on IR text before and while xDSL's lexer reads it.

Hostile text must end in a located ParseError, never a crash or a hang:

- bytes that are not UTF-8 are reported at the line and column of the bad byte;
- integer literals of more than MAX_INTEGER_DIGITS digits (int() and str() fail
  past 4300), and numeric characters that are not ASCII digits ('²'), likewise;
- nesting of ``{ [ ( <`` deeper than MAX_NESTING is refused up front, before
  xDSL's recursive-descent parser runs out of Python stack (RecursionError);
- xDSL's string-literal regex nests a ``+`` inside a ``*``, so a string that does
  not close on its line backtracks in exponential time (26 letters: 8 s).
  TexportLexer matches the same language with possessive quantifiers (linear),
  and reads an escaped string whose bytes are UTF-8 as a string, as MLIR does
  (xDSL reads ``"\\C3\\A9"``, which its printer writes for "é", as bytes only).
(Uses xDSL internals: the lexer's string regex, _lex_number, _form_token and
the lexer's construction in Parser.__init__, identical in xdsl 0.74 and 0.75.)
"""

from __future__ import annotations

import re
from itertools import accumulate

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Position, Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind, StringLiteral

# Deep enough for any program (a module nests a function, a few control regions
# and a type or two); shallow enough that the parser's ~8 Python frames a level
# stay well inside the default recursion limit of 1000, wherever it is called from.
MAX_NESTING = 64

# Python's int() and str() refuse numbers of more than 4300 decimal digits (a
# ValueError deep in xDSL, or in an error message printing the number); 1000
# digits, hexadecimal ones too, stay well inside and beyond any real program.
MAX_INTEGER_DIGITS = 1000

_OPENERS = "{[(<"
_CLOSERS = "}])>"
# The next character that may change the depth, open a string or a comment.
_NESTING_EVENT = re.compile(r'[{\[(<}\])>"/]')
# Where a string literal ends as far as nesting goes: its closing quote or its line.
_STRING_REST = re.compile(r'(?:[^"\\\n]++|\\.)*+"?')
# Everything but the brackets that nest: strings, comments, '->' and other text.
_NOT_NESTING = re.compile(r'"(?:[^"\\\n]++|\\.)*+"?|//[^\n]*+|->|[^{}\[\]()<>"/-]++|[/-]')
_DEPTH_CHANGE = {**dict.fromkeys(_OPENERS, 1), **dict.fromkeys(_CLOSERS, -1)}


def decode_ir_bytes(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; a ParseError at the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        text = data.decode("utf-8", errors="replace")
        offset = len(data[: err.start].decode("utf-8"))
        bad = data[err.start: err.end]
        span = Span(offset, offset + 1, Input(text, name))
        raise ParseError(span, f"the input is not UTF-8 text: invalid byte {bad!r} ({err.reason})") from err


def check_nesting(text: str, name: str) -> None:
    """Refuse text whose brackets nest deeper than MAX_NESTING, at the bracket
    that crosses the limit (string literals and ``//`` comments are skipped)."""
    if sum(map(text.count, _OPENERS)) <= MAX_NESTING:
        return  # cannot nest that deep: the common small input pays one count
    # The parser is hot: sum the depth changes in C; only text that nests too deep
    # or closes more than it opened (which the exact scan clamps) is scanned exactly.
    depths = list(accumulate(map(_DEPTH_CHANGE.__getitem__, _NOT_NESTING.sub("", text))))
    if max(depths, default=0) > MAX_NESTING or min(depths, default=0) < 0:  # empty: all in comments
        _check_nesting_exactly(text, name)


def _check_nesting_exactly(text: str, name: str) -> None:
    depth, pos, search = 0, 0, _NESTING_EVENT.search
    while (match := search(text, pos)) is not None:
        char, pos = match.group(), match.end()
        if char in _OPENERS:
            depth += 1
            if depth > MAX_NESTING:
                span = Span(pos - 1, pos, Input(text, name))
                raise ParseError(span, f"nesting deeper than {MAX_NESTING} levels of {{ [ ( <")
        elif char in _CLOSERS:
            if char != ">" or text[pos - 2: pos - 1] != "-":  # '->' closes nothing
                depth = max(depth - 1, 0)
        elif char == '"':
            pos = _STRING_REST.match(text, pos).end()
        elif text.startswith("/", pos):  # a '//' comment runs to the end of its line
            newline = text.find("\n", pos)
            pos = len(text) if newline < 0 else newline


class TexportLexer(MLIRLexer):
    """xDSL's MLIR lexer with a linear-time string-literal regex, and escaped
    strings whose bytes are UTF-8 read as strings."""

    # The language of xDSL's `"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"`,
    # possessive: each character is read once, whether or not the string closes.
    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
    )
    _string_prefix = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+')

    def _lex_string_literal(self, start_pos: Position) -> MLIRToken:
        stop = self._string_prefix.match(self.input.content, start_pos).end()
        if stop >= self.input.len or self.input.content[stop] != '"':
            raise ParseError(Span(stop, stop + 1, self.input), self._unclosed_reason(stop))
        token = super()._lex_string_literal(start_pos)
        if token.kind is MLIRTokenKind.BYTES_LIT and _is_utf8(StringLiteral.from_span(token.span)):
            return Token(MLIRTokenKind.STRING_LIT, token.span)
        return token

    def _lex_number(self, start_pos: Position) -> MLIRToken:
        first = self.input.content[start_pos]
        if not "0" <= first <= "9":  # xDSL lexes any str.isnumeric() character ('²', '½') as a number
            raise ParseError(Span(start_pos, start_pos + 1, self.input), f"unexpected character {first!r}")
        return super()._lex_number(start_pos)

    def _form_token(self, kind: MLIRTokenKind, start_pos: Position) -> MLIRToken:
        # xDSL's one line, inlined: every token passes here
        token = Token(kind, Span(start_pos, self.pos, self.input))
        if self.pos - start_pos > MAX_INTEGER_DIGITS:  # rare: only long tokens pay the check
            _check_digits(token)
        return token

    def _unclosed_reason(self, stop: Position) -> str:
        """Why the string literal that reaches ``stop`` does not close there."""
        if stop >= self.input.len:
            return "string literal not closed before the end of the input"
        if self.input.content[stop] == "\\":
            escape = self.input.content[stop: stop + 2]
            return (f"invalid escape {escape!r} in string literal "
                    '(expected \\n, \\t, \\\\, \\" or two hex digits)')
        return "string literal not closed on its line"


def _check_digits(token: MLIRToken) -> None:
    """Refuse digits xDSL would read with int(): 123, %x#123 (a result number), i123 (a type)."""
    if token.kind is MLIRTokenKind.INTEGER_LIT:
        digits = len(token.text)
    elif token.kind in (MLIRTokenKind.HASH_IDENT, MLIRTokenKind.BARE_IDENT):
        digits = max((len(run) for run in re.findall(r"[0-9]+", token.text)), default=0)
    else:
        return
    if digits > MAX_INTEGER_DIGITS:
        raise ParseError(token.span, f"integer literal of {digits} digits (at most {MAX_INTEGER_DIGITS})")


def _is_utf8(literal: StringLiteral) -> bool:
    try:
        literal.bytes_contents.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
