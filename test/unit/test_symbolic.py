"""Symbolic dims: the symbol factory, FloorDiv, and text round trips."""

from __future__ import annotations

import itertools

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from texport.dialects.context import parse_module, print_module
from texport.dialects.dtypes import DType
from texport.dialects.symbolic import (
    DimSyntaxError,
    FloorDiv,
    dim_str,
    parse_dim,
    parse_tensor_dim,
    symbol,
    to_dim,
)
from texport.dialects.tx import TensorType


def test_one_symbol_per_name() -> None:
    assert symbol("s0") is symbol("s0")
    assert symbol("s0").is_positive and symbol("s0").is_integer
    assert symbol("u3").is_integer and symbol("u3").is_positive is None


def test_floordiv_simplifies_and_prints_like_torch() -> None:
    s0 = symbol("s0")
    assert FloorDiv(sympy.Integer(7), sympy.Integer(2)) == 3
    assert FloorDiv(s0, sympy.Integer(1)) == s0
    assert FloorDiv(4 * s0, sympy.Integer(2)) == 2 * s0
    assert dim_str(FloorDiv(s0, sympy.Integer(2))) == "(s0//2)"
    assert dim_str(sympy.Mod(s0, 4)) == "(s0 % 4)"
    assert dim_str(2 * s0 + 1) == "2*s0 + 1"


def test_floordiv_cancels_what_the_divisor_divides() -> None:
    """As torch's FloorDiv: a reshape's -1 over dynamic dims is a plain 16, not
    ((16*s0*s1)//(s0*s1)), so its decomposition's type equals the op's."""
    s0, s1, u0 = symbol("s0"), symbol("s1"), symbol("u0")
    assert FloorDiv(16 * s0 * s1, s0 * s1) == 16
    assert FloorDiv(16 * s0 * s1, 4 * s1) == 4 * s0
    assert FloorDiv(3 * s0, sympy.Integer(6)) == FloorDiv(s0, sympy.Integer(2))
    assert FloorDiv(s0 * s1 + s0, s0) == s1 + 1
    assert FloorDiv(s0 + 2, sympy.Integer(2)) == FloorDiv(s0, sympy.Integer(2)) + 1
    assert FloorDiv(FloorDiv(s0, sympy.Integer(2)), sympy.Integer(2)) == FloorDiv(s0, sympy.Integer(4))
    assert dim_str(FloorDiv(s0 - 2, sympy.Integer(2)) + 1) == "(s0//2)"  # torch's max_pool2d dim
    assert isinstance(FloorDiv(u0 * s0, u0), FloorDiv)  # u0 may be negative: nothing cancels


_divisions = st.tuples(st.integers(-6, 6), st.integers(-6, 6), st.integers(1, 4), st.integers(0, 3),
                       st.sampled_from([1, 2, 3, 4, 6]))


@given(_divisions)
@settings(max_examples=60, deadline=None)
def test_floordiv_simplification_is_exact(case: tuple[int, int, int, int, int]) -> None:
    a, b, c, d, k = case
    s0, s1 = symbol("s0"), symbol("s1")
    base, divisor = a * s0 * s1 + b * s0 + c * s1 * k, (d + 1) * k * s1
    for v0, v1 in itertools.product((1, 2, 5, 7), (1, 3, 4)):
        values = {s0: v0, s1: v1}
        expected = int(base.subs(values)) // int(divisor.subs(values))
        assert FloorDiv(base, divisor).subs(values) == expected


def test_parse_known_forms() -> None:
    s0, s1 = symbol("s0"), symbol("s1")
    assert parse_dim("3") == 3 and type(parse_dim("3")) is int
    assert parse_dim("2*s0 + 1") == 2 * s0 + 1
    assert parse_dim("(s0//2)") == FloorDiv(s0, sympy.Integer(2))
    assert parse_dim("s0*s1 - 3") == s0 * s1 - 3
    assert parse_dim("-s0 + 5") == 5 - s0
    assert parse_dim("Max(s0, 4)") == sympy.Max(s0, 4)
    assert parse_dim("s1**2") == s1**2


def test_canonical_form_is_a_fixed_point_of_print_and_parse() -> None:
    s0, s1 = symbol("s0"), symbol("s1")
    for expr in (2 * (s0 + 1) * (s1 + 1), FloorDiv(2 * (s0 + 1), sympy.Integer(3)), s0 * (s0 + 1)):
        text = dim_str(to_dim(expr))
        assert dim_str(parse_dim(text)) == text
        assert sympy.expand(parse_dim(text) - expr) == 0


def test_parse_errors_carry_the_column() -> None:
    for text, column in [("2*+", 2), ("s0 $ 1", 3), ("(s0", 3), ("Foo(s0)", 0)]:
        try:
            parse_dim(text)
        except DimSyntaxError as err:
            assert err.offset == column, (text, err.offset)
        else:
            raise AssertionError(f"{text!r} parsed")


_names = st.sampled_from(["s0", "s1", "s2", "u0"])


def _atoms() -> st.SearchStrategy[sympy.Expr]:
    return st.one_of(
        st.integers(min_value=0, max_value=50).map(sympy.Integer),
        _names.map(symbol),
    )


def _combine(children: st.SearchStrategy[sympy.Expr]) -> st.SearchStrategy[sympy.Expr]:
    pairs = st.tuples(children, children)
    return st.one_of(
        pairs.map(lambda p: p[0] + p[1]),
        pairs.map(lambda p: p[0] * p[1]),
        pairs.map(lambda p: p[0] - p[1]),
        st.tuples(children, st.integers(1, 9)).map(lambda p: FloorDiv(p[0], sympy.Integer(p[1]))),
        st.tuples(children, st.integers(2, 9)).map(lambda p: sympy.Mod(p[0], p[1])),
    )


expressions = st.recursive(_atoms(), _combine, max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(expressions)
def test_print_parse_round_trip(expr: sympy.Expr) -> None:
    dim = to_dim(expr)  # dims enter the IR in canonical form
    text = dim_str(dim)
    parsed = parse_dim(text)
    assert parsed == dim
    assert dim_str(parsed) == text
    # the same function of the symbols (simplify cannot always prove two forms
    # equal: Mod((1 - s0)*(s0 - 1), 3) against its expanded form)
    symbols = sorted(sympy.sympify(expr).free_symbols, key=str)
    for point in itertools.islice(itertools.product((0, 1, 2, 3, 7, 10), repeat=len(symbols)), 50):
        values = dict(zip(symbols, point))
        assert sympy.sympify(parsed).subs(values) == sympy.sympify(expr).subs(values), values


@settings(max_examples=100, deadline=None)
@given(st.lists(expressions, min_size=0, max_size=4))
def test_tensor_type_round_trips_through_ir(dims: list[sympy.Expr]) -> None:
    shape = tuple(int(d) if d.is_Integer else d for d in dims)
    shape = tuple(d for d in shape if _may_be_a_size(d))
    tensor = TensorType.get(shape, DType.float32)
    text = f"func.func @f(%x: {tensor}) {{\n  func.return\n}}\n"
    once = print_module(parse_module(text))
    assert print_module(parse_module(once)) == once
    assert str(tensor) in once


def _may_be_a_size(dim: object) -> bool:
    """Sizes are >= 0: the parser refuses a provably negative tensor dim."""
    try:
        parse_tensor_dim(dim_str(dim))
    except DimSyntaxError:
        return False
    return True
