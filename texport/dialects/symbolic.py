"""Symbolic dimensions: one symbol factory, FloorDiv, and memoised text <-> sympy.

Dims are ``int | sympy.Expr``: static sizes stay Python ints because sympy
arithmetic costs microseconds per operation and most dims are static.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use

Dim = Any  # int | sympy.Expr; an alias for annotations that does not load sympy

_SYMBOL_NAME = re.compile(r"[su][0-9]+|[A-Za-z_][A-Za-z_0-9]*")


@functools.cache
def symbol(name: str) -> sympy.Symbol:
    """The one factory for size symbols.

    sympy symbols with different assumptions are different symbols, so every
    symbol is made here: ``s<N>`` (backed by an input size) is a positive
    integer, like torch's; anything else (``u<N>``, unbacked) is an integer.
    """
    if not _SYMBOL_NAME.fullmatch(name):
        raise ValueError(f"invalid symbol name {name!r}")
    if name.startswith("s") and name[1:].isdigit():
        return sympy.Symbol(name, integer=True, positive=True)
    return sympy.Symbol(name, integer=True)


@functools.cache
def _classes() -> tuple[Any, Any]:
    """FloorDiv and the dim printer, made on first use (they subclass sympy)."""
    class FloorDiv(sympy.Function):
        """Integer floor division ``a // b`` kept symbolic (torch's FloorDiv)."""

        nargs = 2
        is_integer = True

        @classmethod
        def eval(cls, base, divisor):  # noqa: ANN001, ANN206 - sympy protocol
            return _floordiv(cls, base, divisor)


    class _DimPrinter(sympy.printing.StrPrinter):
        def _print_FloorDiv(self, expr: FloorDiv) -> str:  # noqa: N802 - sympy protocol
            base, divisor = expr.args
            return f"({self._wrap(base)}//{self._wrap(divisor)})"

        def _print_Float(self, expr: sympy.Float) -> str:  # noqa: N802 - sympy protocol
            text = repr(float(expr))
            if "e" in text and "." not in text:  # the dim grammar needs a '.' in a float
                mantissa, exponent = text.split("e")
                text = f"{mantissa}.0e{exponent}"
            return text

        def _print_Mod(self, expr: sympy.Mod) -> str:  # noqa: N802 - sympy protocol
            base, divisor = expr.args
            return f"({self._wrap(base)} % {self._wrap(divisor)})"

        def _wrap(self, expr: sympy.Expr) -> str:
            text = self._print(expr)
            if expr.is_Atom or isinstance(expr, (FloorDiv, sympy.Mod)):
                return text
            return f"({text})"


    return FloorDiv, _DimPrinter()


def _floordiv(cls: Any, base: Any, divisor: Any) -> Any:
    """torch's FloorDiv.eval: the exact cases, ``(a//b)//c -> a//(b*c)``, terms
    a constant divisor divides taken out (``(4*s0 + 1)//2 -> 2*s0 + (1//2)``),
    and common factors cancelled (``(16*s0*s1)//(s0*s1) -> 16``)."""
    if divisor == 1:
        return base
    if base == 0:
        return sympy.Integer(0)
    if base == divisor:
        return sympy.Integer(1)
    if base.is_Integer and divisor.is_Integer:
        return sympy.Integer(int(base) // int(divisor))
    if isinstance(base, cls) and divisor.is_Integer and divisor > 0:
        return cls(base.args[0], base.args[1] * divisor)
    if divisor.is_Integer and divisor > 0:
        exact = [t for t in sympy.Add.make_args(base) if _divisible(t, int(divisor))]
        if exact:
            rest = sympy.Add(*(t for t in sympy.Add.make_args(base) if t not in exact))
            return cls(rest, divisor) + sympy.Add(*exact) / divisor
    common = _common_factor(base, divisor)
    if common != 1:
        return cls(sympy.expand(base / common), sympy.expand(divisor / common))
    return None


def _divisible(term: Any, k: int) -> bool:
    """Whether the integer coefficient of ``term`` (a monomial) is a multiple of ``k``."""
    coeff, _ = term.as_coeff_Mul()
    return coeff.is_Integer and int(coeff) % k == 0


def _common_factor(base: Any, divisor: Any) -> Any:
    """A positive factor of both (torch's simple_floordiv_gcd): the gcd of the
    integer coefficients times each positive factor of the divisor that every
    term of the base has. Syntactic: it never calls sympy's polynomial gcd."""
    terms = [t.as_coeff_Mul() for t in sympy.Add.make_args(base)]
    coeff, rest = divisor.as_coeff_Mul()
    numbers = [c for c, _ in terms] + [coeff]
    number = math.gcd(*(abs(int(c)) for c in numbers)) if all(c.is_Integer for c in numbers) else 1
    common = sympy.Integer(number)
    for factor in sympy.Mul.make_args(rest):
        if factor != 1 and factor.is_positive and all(factor in sympy.Mul.make_args(t) for _, t in terms):
            common *= factor
    return common


def __getattr__(name: str) -> Any:
    """``symbolic.FloorDiv`` is created with sympy, on first use."""
    if name == "FloorDiv":
        return _classes()[0]
    raise AttributeError(name)





@functools.lru_cache(maxsize=65536)
def _expr_str(expr: sympy.Expr) -> str:
    return _classes()[1].doprint(expr)


def dim_str(dim: Dim) -> str:
    """Text of one dim, as it appears in ``!tx.tensor<[...]>``; memoised."""
    if type(dim) is int:
        return str(dim)
    return _expr_str(dim)


@functools.lru_cache(maxsize=65536)
def canonical(expr: sympy.Expr) -> Dim:
    """The one form a dim takes in the IR: expanded, so that printing then
    parsing gives back the same expression (sympy's structure otherwise
    depends on how an expression was built: 2*(s0 + 1) vs 2*s0 + 2)."""
    expanded = sympy.expand(expr)
    return int(expanded) if isinstance(expanded, sympy.Integer) else expanded


def to_dim(value: Dim) -> Dim:
    """Normalise: an integer-valued expression becomes a Python int; any other
    expression takes its canonical (expanded) form."""
    if type(value) is int:
        return value
    if isinstance(value, sympy.Expr):
        return canonical(value)
    return int(value)


def is_static(dim: Dim) -> bool:
    return type(dim) is int


class DimSyntaxError(ValueError):
    """A malformed dim expression; ``offset`` is the column within the text."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


_TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:e[-+]?\d+)?|\d+)|([A-Za-z_][A-Za-z_0-9]*)|(//|\*\*|[-+*%(),]))")
def _functions() -> dict[str, Any]:
    return {"Max": sympy.Max, "Min": sympy.Min, "FloorDiv": _classes()[0], "Mod": sympy.Mod}


class _DimParser:
    """Recursive descent over: expr := term (('+'|'-') term)*;
    term := unary (('*'|'//'|'%') unary)*; unary := '-' unary | power;
    power := atom ('**' INT)?; atom := INT | NAME | NAME '(' expr, ... ')' | '(' expr ')'."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            match = _TOKEN.match(text, pos)
            if match is None:
                col = pos + len(text[pos:]) - len(text[pos:].lstrip())
                raise DimSyntaxError(f"unexpected character {text[col]!r} in dim", col)
            kind = "int" if match.group(1) else "name" if match.group(2) else "op"
            start = match.start(match.lastindex or 0)
            self.tokens.append((kind, match.group(match.lastindex or 0), start))
            pos = match.end()
        self.index = 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, op: str) -> bool:
        token = self.peek()
        if token is not None and token[0] == "op" and token[1] == op:
            self.index += 1
            return True
        return False

    def fail(self, what: str) -> DimSyntaxError:
        token = self.peek()
        where = token[2] if token else len(self.text)
        found = repr(token[1]) if token else "end of text"
        return DimSyntaxError(f"expected {what}, found {found}", where)

    def parse(self) -> sympy.Expr:
        expr = self.expr()
        if self.peek() is not None:
            raise self.fail("an operator")
        return expr

    def expr(self) -> sympy.Expr:
        value = self.term()
        while True:
            if self.take("+"):
                value = value + self.term()
            elif self.take("-"):
                value = value - self.term()
            else:
                return value

    def term(self) -> sympy.Expr:
        value = self.unary()
        while True:
            if self.take("*"):
                value = value * self.unary()
            elif self.take("//"):
                value = _classes()[0](value, self.unary())
            elif self.take("%"):
                value = sympy.Mod(value, self.unary())
            else:
                return value

    def unary(self) -> sympy.Expr:
        if self.take("-"):
            return -self.unary()
        base = self.atom()
        if self.take("**"):
            token = self.peek()
            if token is None or token[0] != "int":
                raise self.fail("an integer exponent")
            self.index += 1
            return base ** int(token[1])
        return base

    def atom(self) -> sympy.Expr:
        token = self.peek()
        if token is None:
            raise self.fail("a dim")
        kind, text, _ = token
        if kind == "int":
            self.index += 1
            return sympy.Float(text) if "." in text else sympy.Integer(int(text))
        if kind == "name":
            self.index += 1
            if self.take("("):
                return self.call(text)
            return symbol(text)
        if self.take("("):
            value = self.expr()
            if not self.take(")"):
                raise self.fail("')'")
            return value
        raise self.fail("a dim")

    def call(self, name: str) -> sympy.Expr:
        if name not in _functions():
            raise DimSyntaxError(f"unknown function {name!r} in dim", self.tokens[self.index - 2][2])
        args = [self.expr()]
        while self.take(","):
            args.append(self.expr())
        if not self.take(")"):
            raise self.fail("')'")
        return _functions()[name](*args)


@functools.lru_cache(maxsize=65536)
def parse_dim(text: str) -> Dim:
    """Parse one dim (``3``, ``s0``, ``2*s0 + 1``, ``(s0//2)``); memoised."""
    stripped = text.strip()
    if stripped.isdigit():
        return int(stripped)
    return to_dim(_DimParser(text).parse())


def _relations() -> dict[type, str]:
    return {sympy.Eq: "eq", sympy.Ne: "ne", sympy.Lt: "lt", sympy.Le: "le", sympy.Gt: "gt",
            sympy.Ge: "ge"}


def relation_name(condition: Any) -> str | None:
    """The predicate name (``eq``, ``ge`` ...) of a sympy relation, else None;
    tx.PREDICATES spells it in Python."""
    return _relations().get(type(condition))


def relation_of(name: str) -> Any:
    """The sympy relation class of a predicate name."""
    return {v: k for k, v in _relations().items()}[name]


def free_symbols(dims: tuple[Dim, ...]) -> set[sympy.Symbol]:
    out: set[sympy.Symbol] = set()
    for dim in dims:
        if type(dim) is not int:
            out |= dim.free_symbols
    return out
