"""Symbolic dimensions: one symbol factory, FloorDiv, and memoised text <-> sympy.

Dims are ``int | sympy.Expr``: static sizes stay Python ints because sympy
arithmetic costs microseconds per operation and most dims are static.

Text is parsed by one bounded grammar with three entry points: ``parse_dim``
(an integer expression: !tx.symint, guards, range keys), ``parse_tensor_dim``
(also never provably negative) and ``parse_scalar_expr`` (also float literals:
!tx.symfloat). Its bounds (MAX_DIM_*) are checked before sympy computes
anything; whatever they accept prints back (``dim_str``) to the same dim.
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


class DimTooLargeError(ValueError):
    """A dim built by a shape rule (a product of dims) would expand to too many terms."""


MAX_EXPANDED_TERMS = 1024  # monomials canonical() may produce: expand costs ~1 ms a term


@functools.lru_cache(maxsize=65536)
def canonical(expr: sympy.Expr) -> Dim:
    """The one form a dim takes in the IR: expanded, so that printing then
    parsing gives back the same expression (sympy's structure otherwise
    depends on how an expression was built: 2*(s0 + 1) vs 2*s0 + 2).
    The expansion's size is estimated first: DimTooLargeError past the limit."""
    estimate = _expanded_terms(expr)
    if estimate > MAX_EXPANDED_TERMS:
        raise DimTooLargeError(f"a dim would expand to about {estimate} terms, more than the limit "
                               f"of {MAX_EXPANDED_TERMS}")
    expanded = sympy.expand(expr)
    if expanded.has(sympy.Max, sympy.Min):
        expanded = _settled_extrema(expanded)
    return int(expanded) if isinstance(expanded, sympy.Integer) else expanded


def _settled_extrema(expr: Any) -> Any:
    """sympy simplifies Max/Min only while building one, from its arguments as they
    were then: ``Min(s0, Max(s1, s0 + s1))`` stays, yet built again from its printed
    text it is ``s0``. Rebuild bottom-up until nothing changes (a few rounds at most),
    so that a printed dim parses back to itself."""
    for _ in range(4):
        rebuilt = sympy.expand(_rebuild(expr))
        if rebuilt == expr:
            break
        expr = rebuilt
    return expr


def _rebuild(expr: Any) -> Any:
    if expr.is_Atom:
        return expr
    return expr.func(*(_rebuild(arg) for arg in expr.args))


def _expanded_terms(expr: Any) -> int:
    """An upper bound on the monomials of ``expand(expr)`` (capped past the limit)."""
    if isinstance(expr, sympy.Add):
        return sum(_expanded_terms(arg) for arg in expr.args)
    if isinstance(expr, sympy.Mul):
        total = 1
        for arg in expr.args:
            total *= _expanded_terms(arg)
            if total > MAX_EXPANDED_TERMS:
                return total
        return total
    if isinstance(expr, sympy.Pow) and expr.args[1].is_Integer and expr.args[1] > 0:
        base, exponent = _expanded_terms(expr.args[0]), int(expr.args[1])
        if base == 1:
            return 1
        return math.comb(base + exponent - 1, exponent) if exponent <= MAX_EXPANDED_TERMS else exponent
    return 1


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
    """A malformed or out-of-bounds dim expression; ``offset`` is the column of
    the offending token within the text and ``length`` its width."""

    def __init__(self, message: str, offset: int, length: int = 1) -> None:
        super().__init__(message)
        self.offset = offset
        self.length = max(length, 1)


# Bounds on one dim's text, checked before sympy computes anything: sympy's
# expansion and its assumption queries (is_negative, Eq) grow fast with the
# size and degree of a polynomial, and a dim is an int64 in torch.
MAX_DIM_LENGTH = 4096  # characters of one dim's text (also of its printed form)
MAX_DIM_DEPTH = 64  # nesting of parentheses, function calls and unary minus
MAX_DIM_DEGREE = 8  # total degree of the dim as a polynomial in its symbols
MAX_DIM_TERMS = 128  # monomials the dim and its function arguments expand to, in all
# sympy's Mod and FloorDiv look for common factors of their arguments (time grows with
# the square of their monomials: Mod of two 56-term polynomials 3 s); Max and Min compare
# every pair of arguments (Max of 40 two-term arguments: 3.6 s)
MAX_DIM_SIMPLIFY_WORK = 1024  # see _DimParser.simplify
INT64_LIMIT = 2**63  # |constant| must stay below: dims are int64 in torch
_MAX_NAME_LENGTH = 64
# A tensor's numel is the product of its dims, expanded by shape rules (view,
# flatten): its monomials and its degree are bounded too.
MAX_TENSOR_TERMS = MAX_DIM_TERMS  # product over the dims of their monomials
MAX_TENSOR_DEGREE = 32  # sum over the dims of their degrees

_TOKEN = re.compile(
    r"\s*(?:([0-9]+\.[0-9]*(?:e[-+]?[0-9]+)?|[0-9]+)|([A-Za-z_][A-Za-z_0-9]*)|(//|\*\*|[-+*%(),]))",
    re.ASCII,
)
_ARITY = {"Max": (2, None), "Min": (2, None), "FloorDiv": (2, 2), "Mod": (2, 2)}


def _functions() -> dict[str, Any]:
    return {"Max": sympy.Max, "Min": sympy.Min, "FloorDiv": _classes()[0], "Mod": sympy.Mod}


class _Value:
    """A parsed subexpression with what bounds it, known before sympy builds
    anything from it: its Python value when it is an integer constant; upper
    bounds on its monomials after expansion, on its degree, and on the sum of
    its coefficients' magnitudes (so on every coefficient and constant)."""

    __slots__ = ("expr", "const", "terms", "degree", "scale", "offset")

    def __init__(self, expr: Any, const: int | None, terms: int, degree: int, scale: int,
                 offset: int) -> None:
        self.expr, self.const, self.terms, self.degree = expr, const, terms, degree
        self.scale, self.offset = scale, offset


class _DimParser:
    """Recursive descent over: expr := term (('+'|'-') term)*;
    term := unary (('*'|'//'|'%') unary)*; unary := '-'* power;
    power := atom ('**' INT)?; atom := INT | NAME | NAME '(' expr, ... ')' | '(' expr ')'.

    Every bound (MAX_DIM_*) is checked on the tokens and on the estimates of
    ``_Value`` before the sympy operation that could exceed it runs."""

    def __init__(self, text: str, *, allow_float: bool) -> None:
        if len(text) > MAX_DIM_LENGTH:
            raise DimSyntaxError(f"dim is {len(text)} characters long, more than the limit of "
                                 f"{MAX_DIM_LENGTH}", 0, len(text))
        self.text = text
        self.allow_float = allow_float
        self.depth = 0
        self.function_terms = 0  # monomials inside function arguments, all counted
        self.simplify_work = 0  # what sympy's Mod/FloorDiv/Max/Min will cost (simplify)
        self.tokens = self._tokenize(text)
        self.index = 0

    @staticmethod
    def _tokenize(text: str) -> list[tuple[str, str, int]]:
        tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            match = _TOKEN.match(text, pos)
            if match is None:
                col = pos + len(text[pos:]) - len(text[pos:].lstrip())
                raise DimSyntaxError(f"unexpected character {text[col]!r} in dim", col)
            kind = "int" if match.group(1) else "name" if match.group(2) else "op"
            group = match.lastindex or 0
            tokens.append((kind, match.group(group), match.start(group)))
            pos = match.end()
        return tokens

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
        last = self.tokens[-1] if self.tokens else ("", "", 0)
        where = token[2] if token else last[2] + len(last[1])  # just after the last token
        found = repr(token[1]) if token else "end of text"
        return DimSyntaxError(f"expected {what}, found {found}", where, len(token[1]) if token else 1)

    def error(self, message: str, offset: int) -> DimSyntaxError:
        """An error whose caret spans the text from ``offset`` to the last token read."""
        last = self.tokens[self.index - 1] if self.index else None
        end = last[2] + len(last[1]) if last else offset + 1
        return DimSyntaxError(message, offset, end - offset)

    def nest(self, offset: int) -> None:
        self.depth += 1
        if self.depth > MAX_DIM_DEPTH:
            raise DimSyntaxError(f"dim nested more than {MAX_DIM_DEPTH} levels deep "
                                 "(parentheses, calls and unary minus)", offset)

    def parse(self) -> _Value:
        value = self.expr()
        if self.peek() is not None:
            raise self.fail("an operator")
        return value

    def expr(self) -> _Value:
        items = [self.term()]
        while True:
            if self.take("+"):
                items.append(self.term())
            elif self.take("-"):
                items.append(self.negate(self.term()))
            else:
                return items[0] if len(items) == 1 else self.sum(items)

    def term(self) -> _Value:
        value = self.unary()
        while True:
            if self.take("*"):
                value = self.product(value, self.unary())
            elif self.take("//"):
                value = self.divide("FloorDiv", value, self.unary())
            elif self.take("%"):
                value = self.divide("Mod", value, self.unary())
            else:
                return value

    def unary(self) -> _Value:
        signs = 0
        token = self.peek()
        while self.take("-"):  # a loop, not recursion: 1000 signs cost no stack
            self.nest(token[2])
            signs += 1
            token = self.peek()
        value = self.power()
        self.depth -= signs
        return self.negate(value) if signs % 2 else value

    def power(self) -> _Value:
        base = self.atom()
        if not self.take("**"):
            return base
        token = self.peek()
        if token is None or token[0] != "int" or "." in token[1]:
            raise self.fail("a non-negative integer exponent")
        exponent = self.integer(token)
        self.index += 1
        if exponent == 0:
            return self.constant(1, base.offset)
        if base.scale >= 2 and exponent >= 64:  # 2**64 and up: refused before computing it
            what = f"{base.const}**{exponent}" if base.const is not None else f"a power with exponent {exponent}"
            raise self.error(f"{what} is not below 2**63 (dims are int64)", base.offset)
        if base.const is not None:
            return self.constant(base.const**exponent, base.offset)
        if base.degree * exponent > MAX_DIM_DEGREE:
            raise self.error(f"exponent {exponent} gives degree {base.degree * exponent}, more than "
                             f"the limit of {MAX_DIM_DEGREE}", base.offset)
        terms = math.comb(base.terms + exponent - 1, exponent)  # monomials of the expansion
        return self.bounded(base.expr**exponent, terms, base.degree * exponent, base.scale**exponent,
                            base.offset)

    def atom(self) -> _Value:
        token = self.peek()
        if token is None:
            raise self.fail("a dim")
        kind, text, offset = token
        if kind == "int":
            self.index += 1
            if "." in text:
                return self.float_literal(token)
            return self.constant(self.integer(token), offset)
        if kind == "name":
            self.index += 1
            if self.take("("):
                return self.call(text, offset)
            if len(text) > _MAX_NAME_LENGTH:
                raise DimSyntaxError(f"symbol name is {len(text)} characters long, more than the "
                                     f"limit of {_MAX_NAME_LENGTH}", offset, len(text))
            return _Value(symbol(text), None, 1, 1, 1, offset)
        if self.take("("):
            self.nest(offset)
            value = self.expr()
            if not self.take(")"):
                raise self.fail("')'")
            self.depth -= 1
            value.offset = offset
            return value
        raise self.fail("a dim")

    def integer(self, token: tuple[str, str, int]) -> int:
        """An integer literal below 2**63, checked on its digits before int() reads them."""
        digits = token[1].lstrip("0") or "0"
        if len(digits) > 19 or int(digits) >= INT64_LIMIT:
            shown = token[1] if len(token[1]) <= 24 else f"{token[1][:20]}... ({len(token[1])} digits)"
            raise DimSyntaxError(f"integer {shown} is not below 2**63 (dims are int64)",
                                 token[2], len(token[1]))
        return int(digits)

    def float_literal(self, token: tuple[str, str, int]) -> _Value:
        _, text, offset = token
        if not self.allow_float:
            raise DimSyntaxError(f"expected an integer, found {text!r}: a dim is integral", offset, len(text))
        if len(text) > 32 or not math.isfinite(float(text)):
            raise DimSyntaxError(f"float {text!r} is too long or not finite", offset, len(text))
        return _Value(sympy.Float(text), None, 1, 0, math.ceil(abs(float(text))), offset)

    def call(self, name: str, offset: int) -> _Value:
        if name not in _ARITY:
            raise DimSyntaxError(f"unknown function {name!r} in dim (expected one of "
                                 f"{', '.join(_ARITY)})", offset, len(name))
        self.nest(offset)
        args = [self.expr()]
        ends = [self._end()]
        while self.take(","):
            args.append(self.expr())
            ends.append(self._end())
        if not self.take(")"):
            raise self.fail("')'")
        self.depth -= 1
        least, most = _ARITY[name]
        if len(args) < least or (most is not None and len(args) > most):
            wanted = f"{least}" if least == most else f"at least {least}"
            raise self.error(f"{name} takes {wanted} arguments, found {len(args)}", offset)
        if name in ("FloorDiv", "Mod"):
            return self.divide(name, args[0], args[1], offset, divisor_end=ends[1])
        return self.extremum(name, args, offset)

    # -- building, each bound checked before the sympy operation --

    def constant(self, value: int, offset: int) -> _Value:
        if abs(value) >= INT64_LIMIT:
            shown = value if abs(value) < 10**30 else "(more than 30 digits)"
            raise self.error(f"constant {shown} is not below 2**63 (dims are int64)", offset)
        return _Value(sympy.Integer(value), value, 1, 0, abs(value), offset)

    def bounded(self, expr: Any, terms: int, degree: int, scale: int, offset: int) -> _Value:
        """A non-constant value, once its estimates are within the limits."""
        if terms + self.function_terms > MAX_DIM_TERMS:
            raise self.error(f"dim expands to more than {MAX_DIM_TERMS} terms", offset)
        if scale >= INT64_LIMIT:
            raise self.error("dim's coefficients reach 2**63 (dims are int64)", offset)
        return _Value(expr, None, terms, degree, scale, offset)

    def negate(self, value: _Value) -> _Value:
        if value.const is not None:
            return self.constant(-value.const, value.offset)
        return _Value(-value.expr, None, value.terms, value.degree, value.scale, value.offset)

    def sum(self, items: list[_Value]) -> _Value:
        if all(item.const is not None for item in items):
            return self.constant(sum(item.const for item in items), items[0].offset)
        return self.bounded(sympy.Add(*(item.expr for item in items)), sum(item.terms for item in items),
                            max(item.degree for item in items), sum(item.scale for item in items),
                            items[0].offset)

    def product(self, left: _Value, right: _Value) -> _Value:
        if left.const is not None and right.const is not None:
            return self.constant(left.const * right.const, left.offset)
        if left.degree + right.degree > MAX_DIM_DEGREE:
            raise self.error(f"dim has degree {left.degree + right.degree}, more than the limit of "
                             f"{MAX_DIM_DEGREE}", left.offset)
        return self.bounded(left.expr * right.expr, left.terms * right.terms, left.degree + right.degree,
                            left.scale * right.scale, left.offset)

    def opaque(self, args: list[_Value], offset: int) -> None:
        """Count a function's arguments against the term budget (expand goes inside)."""
        self.function_terms += sum(arg.terms for arg in args)
        if self.function_terms > MAX_DIM_TERMS:
            raise self.error(f"dim expands to more than {MAX_DIM_TERMS} terms", offset)

    def divide(self, name: str, base: _Value, divisor: _Value, offset: int | None = None,
               divisor_end: int | None = None) -> _Value:
        offset = base.offset if offset is None else offset
        width = (self._end() if divisor_end is None else divisor_end) - divisor.offset  # the divisor's text
        if divisor.const is not None:
            if divisor.const == 0:
                raise DimSyntaxError(f"{'division' if name == 'FloorDiv' else 'modulo'} by zero in dim",
                                     divisor.offset, width)
            if base.const is not None:
                result = base.const // divisor.const if name == "FloorDiv" else base.const % divisor.const
                return self.constant(result, offset)
            divisor_expr = divisor.expr
        else:
            divisor_expr = sympy.expand(divisor.expr)  # bounded by the estimates; exposes a zero
            if divisor_expr == 0:
                raise DimSyntaxError(f"{'division' if name == 'FloorDiv' else 'modulo'} by an expression "
                                     "that is zero", divisor.offset, width)
        self.opaque([base, divisor], offset)
        self.simplify([base, divisor], name, offset)
        return _Value(_functions()[name](base.expr, divisor_expr), None, 1, 1, 1, offset)

    def simplify(self, args: list[_Value], name: str, offset: int) -> None:
        """Count what sympy's simplification of ``name(*args)`` costs against the budget:
        a division's common-factor search grows with the square of its monomials, an
        extremum's pairwise comparisons with the square of its arguments."""
        terms = sum(arg.terms for arg in args)
        self.simplify_work += terms ** 2 if name in ("Mod", "FloorDiv") else len(args) ** 2
        if self.simplify_work > MAX_DIM_SIMPLIFY_WORK:
            raise self.error(f"dim is too costly to simplify: {name} of {len(args)} arguments with {terms} "
                             f"terms in all (the budget: {MAX_DIM_SIMPLIFY_WORK} for the sum over Mod and "
                             "FloorDiv of their terms squared and over Max and Min of their arguments "
                             "squared)", offset)

    def extremum(self, name: str, args: list[_Value], offset: int) -> _Value:
        if all(arg.const is not None for arg in args):
            pick = max if name == "Max" else min
            return self.constant(pick(arg.const for arg in args), offset)
        self.opaque(args, offset)
        self.simplify(args, name, offset)
        return _Value(_functions()[name](*(arg.expr for arg in args)), None, 1, 1, 1, offset)

    def _end(self) -> int:
        """Where the last token read ends."""
        last = self.tokens[self.index - 1]
        return last[2] + len(last[1])


def _parse_bounded(text: str, *, allow_float: bool) -> Dim:
    """Parse, bound and canonicalise one dim expression (signed)."""
    stripped = text.strip()
    if len(stripped) <= 18 and stripped.isascii() and stripped.isdigit():
        return int(stripped)  # the common static dim: below 10**18, so within int64
    parser = _DimParser(text, allow_float=allow_float)
    value = parser.parse()
    if value.const is not None:
        return value.const
    dim = to_dim(value.expr)
    if type(dim) is int:
        if abs(dim) >= INT64_LIMIT:
            raise DimSyntaxError("dim is a constant not below 2**63 (dims are int64)", 0, len(text))
        return dim
    if not _in_grammar(dim, allow_float):
        raise DimSyntaxError(f"dim simplifies to {dim_str(dim)[:200]}, which is not an integer "
                             "polynomial of symbols, Max, Min, // and %", 0, len(text))
    inner_degree = MAX_DIM_DEGREE if parser.function_terms else value.degree  # arguments' own degrees
    _check_printed_length(dim, value.terms + parser.function_terms, max(value.degree, inner_degree), text)
    return dim


def _in_grammar(dim: Any, allow_float: bool) -> bool:
    """Whether sympy's result is still in the dim grammar (sympy's Mod with a
    symbolic divisor can answer with a rational function, which would not
    print back as a dim)."""
    kinds = (sympy.Add, sympy.Mul, sympy.Symbol, sympy.Integer, sympy.Max, sympy.Min, sympy.Mod,
             _classes()[0]) + ((sympy.Float,) if allow_float else ())
    stack = [dim]
    while stack:
        node = stack.pop()
        if isinstance(node, sympy.Pow):
            exponent = node.args[1]
            if not (exponent.is_Integer and exponent > 0):
                return False
            stack.append(node.args[0])
        elif isinstance(node, kinds):
            stack.extend(node.args)
        else:
            return False
    return True


def _check_printed_length(dim: Any, terms: int, degree: int, text: str) -> None:
    """The printed form must parse back: expansion may make it longer than the text was."""
    widest_term = 24 + degree * (_MAX_NAME_LENGTH + 4)
    if (terms + degree) * widest_term + len(text) <= MAX_DIM_LENGTH:
        return  # cannot exceed the limit: skip printing
    if len(dim_str(dim)) > MAX_DIM_LENGTH:
        raise DimSyntaxError(f"dim expands to more than {MAX_DIM_LENGTH} characters", 0, len(text))


@functools.lru_cache(maxsize=65536)
def parse_dim(text: str) -> Dim:
    """Parse one integer dim expression (``3``, ``s0``, ``2*s0 + 1``, ``(s0//2)``,
    ``-s0 + 5``), memoised: the grammar of !tx.symint, guards and range keys. It
    may be negative; it must be integral and within the MAX_DIM_* bounds, and
    it never divides by zero. Any other text raises DimSyntaxError."""
    return _parse_bounded(text, allow_float=False)


@functools.lru_cache(maxsize=65536)
def parse_tensor_dim(text: str) -> Dim:
    """parse_dim for a tensor size: also refuses a dim that is provably negative
    (``-3``, ``-s0``: an ``s`` symbol is positive)."""
    dim = parse_dim(text)
    upper = dim if type(dim) is int else dim_bounds(dim)[1]
    if upper is not None and upper < 0:
        lead = len(text) - len(text.lstrip())
        raise DimSyntaxError(f"a tensor dim must be non-negative, found {dim_str(dim)}",
                             lead, len(text.strip()))
    return dim


def dim_size(dim: Dim) -> tuple[int, int]:
    """Monomials and degree of a canonical (expanded) dim; a function call
    (Max, //, %) counts as one symbol."""
    if type(dim) is int:
        return 1, 0
    terms = sympy.Add.make_args(dim)
    return len(terms), max(_term_degree(term) for term in terms)


def _term_degree(term: Any) -> int:
    degree = 0
    for factor in sympy.Mul.make_args(term):
        if factor.is_Number:
            continue
        if isinstance(factor, sympy.Pow) and factor.args[1].is_Integer:
            degree += int(factor.args[1])
        else:
            degree += 1
    return degree


def dim_bounds(dim: Dim) -> tuple[int | None, int | None]:
    """Lower and upper bounds of an integer dim (None: unknown), read off its
    structure with every ``s`` symbol at least 1: enough to prove ``-s0`` or
    ``1 - 2*s0 - s1`` negative, or ``(s0 + 1)**16 - 3`` non-zero, without
    sympy's assumption queries (which grow fast with the degree)."""
    return (dim, dim) if type(dim) is int else _bounds(dim)


def _bounds(expr: Any) -> tuple[int | None, int | None]:
    if expr.is_Integer:
        return int(expr), int(expr)
    if expr.is_Symbol:
        return (1 if expr.is_positive else None), None
    if isinstance(expr, sympy.Add):
        parts = [_bounds(arg) for arg in expr.args]
        return _total([lo for lo, _ in parts]), _total([hi for _, hi in parts])
    if isinstance(expr, sympy.Mul):
        return _product_bounds(expr)
    if isinstance(expr, sympy.Pow):
        if not (expr.args[1].is_Integer and expr.args[1] > 0):
            return None, None
        (lo, hi), exponent = _bounds(expr.args[0]), int(expr.args[1])
        if lo is None or lo < 0:
            return (0 if exponent % 2 == 0 else None), None
        return lo**exponent, (hi**exponent if hi is not None else None)
    if isinstance(expr, sympy.Max):  # at least any argument, at most the largest
        los, his = zip(*(_bounds(arg) for arg in expr.args))
        known = [lo for lo in los if lo is not None]
        return (max(known) if known else None), (None if None in his else max(his))
    if isinstance(expr, sympy.Min):
        los, his = zip(*(_bounds(arg) for arg in expr.args))
        known = [hi for hi in his if hi is not None]
        return (None if None in los else min(los)), (min(known) if known else None)
    return _division_bounds(expr)


def _total(values: list[int | None]) -> int | None:
    return None if None in values else sum(values)


def _product_bounds(expr: Any) -> tuple[int | None, int | None]:
    """A coefficient times factors that are each non-negative (else unknown)."""
    coeff, rest = expr.as_coeff_Mul()
    if not coeff.is_Integer:
        return None, None
    lo, hi = 1, 1
    for factor in sympy.Mul.make_args(rest):
        f_lo, f_hi = _bounds(factor)
        if f_lo is None or f_lo < 0:
            return None, None
        lo *= f_lo
        hi = hi * f_hi if hi is not None and f_hi is not None else None
    scaled = (int(coeff) * lo, int(coeff) * hi if hi is not None else None)
    return scaled if coeff >= 0 else (scaled[1], scaled[0])


def _division_bounds(expr: Any) -> tuple[int | None, int | None]:
    """``a // k`` and ``a % k`` for a positive constant k; anything else unknown."""
    if not isinstance(expr, (_classes()[0], sympy.Mod)):
        return None, None
    base, divisor = expr.args
    if not (divisor.is_Integer and divisor > 0):
        return None, None
    if isinstance(expr, sympy.Mod):
        return 0, int(divisor) - 1
    lo, hi = _bounds(base)
    return (lo // int(divisor) if lo is not None else None), (hi // int(divisor) if hi is not None else None)


@functools.lru_cache(maxsize=65536)
def parse_scalar_expr(text: str) -> Dim:
    """parse_dim that also takes float literals (``3.0``, ``0.5*s0``): the value
    of a !tx.symfloat or !tx.symbool."""
    return _parse_bounded(text, allow_float=True)


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


def unbacked_symbols(dims: tuple[Dim, ...]) -> set[sympy.Symbol]:
    """The symbols of ``dims`` no input size backs (``u<N>``: a size the data decides)."""
    return {s for s in free_symbols(dims) if s.name.startswith("u")}


def free_symbols(dims: tuple[Dim, ...]) -> set[sympy.Symbol]:
    out: set[sympy.Symbol] = set()
    for dim in dims:
        if type(dim) is not int:
            out |= dim.free_symbols
    return out
