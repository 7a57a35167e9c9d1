"""Bounds checked on an archive's text before json, numpy or sympy see it.

An archive comes from anywhere: these checks are linear in the text and decide
whether the expensive readers may run at all (json's decoder recurses per
bracket; sympy expands ``(s0+s1+1)**60`` into thousands of terms, divides by a
literal zero, or raises ``3**999999999`` at call time).
"""

from __future__ import annotations

import re

import numpy as np

MAX_MANIFEST_BYTES = 16 << 20  # a 10,000-tensor model's manifest is about 3 MB
MAX_PROGRAM_BYTES = 256 << 20  # the IR text; xDSL's objects take ~10x more
MAX_JSON_DEPTH = 128  # a pytree spec is 2 levels per node: 60 nested containers
MAX_SPEC_DEPTH = 60
MAX_NPY_HEADER_BYTES = 10_000  # numpy's own read_array_header limit
MAX_NPY_DIMS = 32
MAX_DIM_TEXT = 1000  # characters of one range key or guard side
MAX_DIM_NESTING = 32  # parentheses
MAX_DIM_DIGITS = 30  # an integer in a dim (sizes fit in 64 bits; 30 leaves room)
MAX_DIM_EXPONENT = 64
MAX_DIM_TERMS = 512  # terms of a dim once expanded (saved dims are already expanded)
MAX_DIM_ARGUMENTS = 8  # of Max/Min/FloorDiv/Mod
MAX_DIM_WORK = 20_000  # term products sympy would form while expanding
# sympy's Mod and FloorDiv look for common factors: time grows with the square of
# their arguments' terms (Mod of a 64-term polynomial: 1.5 s; of 484 terms: minutes).
MAX_DIM_DIVISION_WORK = 1024  # sum over divisions of (dividend + divisor terms) ** 2

# A JSON string, or an unterminated one running to the end: always matches at a '"',
# each character is consumed once (no backtracking across strings).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*(?:"|\Z)')
_OPENERS = np.frombuffer(b"[{", np.uint8)
_CLOSERS = np.frombuffer(b"]}", np.uint8)


def json_depth(text: str) -> int:
    """How deeply ``text``'s arrays and objects nest (brackets inside strings ignored)."""
    skeleton = np.frombuffer(_JSON_STRING.sub("", text).encode("utf-8"), np.uint8)
    steps = np.isin(skeleton, _OPENERS).astype(np.int64) - np.isin(skeleton, _CLOSERS)
    return int(np.cumsum(steps).max(initial=0))


_DIM_TOKEN = re.compile(r"\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|[A-Za-z_][A-Za-z_0-9]*|//|\*\*|[-+*%(),]|\S")


class DimTooComplex(Exception):
    """A dim text refused before parsing; the message says why."""


def check_dim_text(text: str) -> None:
    """Raise DimTooComplex unless ``text`` is a dim sympy can build quickly: bounded
    length, nesting, integers and exponents, integral literals, no literal division
    by zero, and at most MAX_DIM_TERMS terms once expanded."""
    if len(text) > MAX_DIM_TEXT:
        raise DimTooComplex(f"is {len(text)} characters long (a dim has at most {MAX_DIM_TEXT})")
    if not text.isascii():  # the dim grammar is ASCII (and str.isdigit() below is then exact)
        raise DimTooComplex("holds a character outside ASCII")
    tokens = _DIM_TOKEN.findall(text)
    for token in tokens:
        if token[0].isdigit() and not token.isdigit():
            raise DimTooComplex(f"holds {token!r}: dims are integers")
        if token.isdigit() and len(token) > MAX_DIM_DIGITS:
            raise DimTooComplex(f"holds a {len(token)}-digit integer (at most {MAX_DIM_DIGITS} digits)")
    _check_nesting(tokens)
    _DimCost(tokens).check()


def _check_nesting(tokens: list[str]) -> None:
    """Parentheses and unary minus bound the cost estimator's recursion."""
    depth = 0
    for token in tokens:
        depth += token == "("
        depth -= token == ")"
        if depth > MAX_DIM_NESTING:
            raise DimTooComplex(f"nests parentheses more than {MAX_DIM_NESTING} deep")
    if tokens.count("-") > MAX_DIM_TEXT // 4:
        raise DimTooComplex(f"has {tokens.count('-')} minus signs")


class _DimCost:
    """An upper bound on the terms of each subexpression once expanded, over the dim
    grammar (expr := term (+|- term)*; term := unary (*|//|% unary)*; unary := -* power;
    power := atom (** INT)?; atom := INT | NAME | NAME(expr, ...) | (expr)).
    A syntax error is left for parse_dim to report with its column."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.index, self.work, self.division_work = tokens, 0, 0, 0

    def check(self) -> None:
        while self.index < len(self.tokens):  # past a syntax error too: cost every token
            before = self.index
            self.expr()
            self.index += self.index == before

    def peek(self) -> str | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, token: str) -> bool:
        if self.peek() == token:
            self.index += 1
            return True
        return False

    def bounded(self, terms: int, work: int) -> int:
        self.work += work
        if terms > MAX_DIM_TERMS or self.work > MAX_DIM_WORK:
            raise DimTooComplex(f"expands to more than {MAX_DIM_TERMS} terms (too costly to build)")
        return terms

    def expr(self) -> int:
        terms = self.term()
        while self.take("+") or self.take("-"):
            terms = self.bounded(terms + self.term(), 1)
        return terms

    def term(self) -> int:
        terms = self.unary()
        while True:
            if self.take("*"):
                right = self.unary()
                terms = self.bounded(terms * right, terms * right)
            elif self.take("//") or self.take("%"):
                start = self.index
                self.divided(terms, self.unary())
                self.refuse_zero_divisor(start)
                terms = 1  # FloorDiv and Mod stay one opaque term
            else:
                return terms

    def unary(self) -> int:
        while self.take("-"):
            pass
        terms = self.atom()
        if self.take("**"):
            exponent = self.peek()
            if exponent is None or not exponent.isdigit():
                return terms  # parse_dim reports the missing integer exponent
            self.index += 1
            if int(exponent) > MAX_DIM_EXPONENT:
                raise DimTooComplex(f"raises to the power {exponent} (at most {MAX_DIM_EXPONENT})")
            if terms > 1:
                expanded = min(terms ** int(exponent), MAX_DIM_TERMS + 1)
                terms = self.bounded(expanded, expanded * terms)
        return terms

    def atom(self) -> int:
        token = self.peek()
        if token is None:
            return 1
        self.index += 1
        if token == "(":
            terms = self.expr()
            self.take(")")
            return terms
        if token[0].isalpha() or token[0] == "_":
            if self.take("("):  # Max, Min, FloorDiv, Mod: arguments expand on their own
                self.arguments(token)
        return 1

    def divided(self, dividend: int, divisor: int) -> None:
        self.division_work += (dividend + divisor) ** 2
        if self.division_work > MAX_DIM_DIVISION_WORK:
            raise DimTooComplex("divides polynomials with too many terms (too costly to build)")

    def arguments(self, function: str) -> None:
        starts, terms = [self.index], [self.expr()]
        while self.take(","):
            starts.append(self.index)
            terms.append(self.expr())
        if len(starts) > MAX_DIM_ARGUMENTS:  # sympy's Max/Min compare every pair
            raise DimTooComplex(f"calls {function} with {len(starts)} arguments (at most {MAX_DIM_ARGUMENTS})")
        if function in ("FloorDiv", "Mod") and len(starts) == 2:
            self.divided(*terms)
            self.refuse_zero_divisor(starts[1])
        self.take(")")

    def refuse_zero_divisor(self, start: int) -> None:
        """A divisor that is a literal zero (``0``, ``(0)``, ``-00``); a zero only sympy
        finds (``s0 - s0``) is left to parse_dim."""
        divisor = [t for t in self.tokens[start:self.index] if t not in ("(", ")", "-")]
        if divisor and all(t.isdigit() and int(t) == 0 for t in divisor):
            raise DimTooComplex("divides by zero")
