"""print ∘ parse on generated types and attributes (issue 17): text that parses prints
to text that parses back to the same value and prints identically.

Each property builds a small module around one generated value, parses it (no
verification: the syntax is under test, not the shape rules), prints it, parses the
print and prints again; the value read back from the printed text must be the one
generated (float bits included: -0.0, nan, inf)."""

from __future__ import annotations

import math
import re
import struct

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import StringAttr

from texport.dialects.context import make_context, parse_module, print_module
from texport.dialects.dtypes import BY_IR_NAME
from texport.dialects.symbolic import DimSyntaxError, parse_dim, parse_tensor_dim

CTX = make_context()
PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _round_trip(text: str) -> str:
    """The printed module; it must parse back and print the same."""
    printed = print_module(parse_module(text, CTX))
    assert print_module(parse_module(printed, CTX)) == printed
    return printed


def _unary(argument: str, tensor: str = "!tx.tensor<[3], f32>") -> str:
    return (f"func.func @f(%x: {tensor}) -> {tensor} {{\n"
            f"  %r = core.mul.Scalar(%x, {argument}) : {tensor}\n"
            f"  func.return %r : {tensor}\n}}\n")


def _argument(printed: str) -> str:
    return re.search(r"core\.mul\.Scalar\(%x, (.*)\) :", printed).group(1)


# --------------------------------------------------------------------------
# tensor types
# --------------------------------------------------------------------------

_static_dims = st.lists(st.integers(0, 2**31), max_size=5)
_dtypes = st.sampled_from(sorted(BY_IR_NAME))


@given(_static_dims, _dtypes)
@PROPERTY
def test_static_tensor_types_round_trip(dims: list[int], dtype: str) -> None:
    tensor = f"!tx.tensor<[{', '.join(map(str, dims))}], {dtype}>"
    text = f"func.func @f(%x: {tensor}) -> {tensor} {{\n  func.return %x : {tensor}\n}}\n"
    assert f"%x: {tensor}" in _round_trip(text)


# --------------------------------------------------------------------------
# scalar arguments of aten ops
# --------------------------------------------------------------------------


@given(st.integers(-(2**63), 2**63 - 1))
@PROPERTY
def test_int_scalars_round_trip(value: int) -> None:
    assert int(_argument(_round_trip(_unary(str(value))))) == value


def _float_text(value: float) -> str:
    """A float as MLIR writes one: a '.' in the mantissa; nan and inf as words."""
    if math.isnan(value) or math.isinf(value):
        return repr(value)
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (f"e{exponent}" if exponent else "")


def _bits(value: float) -> bytes:
    return struct.pack("<d", value) if not math.isnan(value) else b"nan"


@given(st.floats(allow_nan=False, allow_infinity=False))
@PROPERTY
def test_finite_float_scalars_round_trip(value: float) -> None:
    assert _bits(float(_argument(_round_trip(_unary(_float_text(value)))))) == _bits(value)


@pytest.mark.parametrize("value", [-0.0, math.inf, -math.inf, math.nan, 5e-324, 1.7976931348623157e308])
def test_special_float_scalars_round_trip(value: float) -> None:
    assert _bits(float(_argument(_round_trip(_unary(_float_text(value)))))) == _bits(value)


def test_signed_zeros_keep_their_sign_whatever_was_parsed_before() -> None:
    # Literal attributes are memoised by value: 0.0 == -0.0 must not share an entry.
    for first, second in (("0.0", "-0.0"), ("-0.0", "0.0")):
        assert _argument(_round_trip(_unary(first))) == first
        assert _argument(_round_trip(_unary(second))) == second


@given(st.booleans(), st.lists(st.integers(-(2**63), 2**63 - 1), max_size=6))
@PROPERTY
def test_bools_and_int_lists_round_trip(keep: bool, dims: list[int]) -> None:
    listed = ", ".join(map(str, dims))
    text = ("func.func @f(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {\n"
            f"  %r = core.sum.dim_IntList(%x, [{listed}], {str(keep).lower()}) : !tx.tensor<[3], f32>\n"
            "  func.return %r : !tx.tensor<[3], f32>\n}\n")
    printed = _round_trip(text)
    written = f"core.sum.dim_IntList(%x, [{listed}]" + (", true)" if keep else ")")  # (false: the default)
    assert written in printed


# --------------------------------------------------------------------------
# strings: tx.assert messages
# --------------------------------------------------------------------------


def _string_literal(value: str) -> str:
    """An MLIR string literal: printable ASCII as is, the rest as \\XX escapes of UTF-8."""
    out = []
    for byte in value.encode("utf-8"):
        char = chr(byte)
        out.append(char if 32 <= byte < 127 and char not in '"\\' else f"\\{byte:02X}")
    return '"' + "".join(out) + '"'


def _assert_message(message: str) -> str:
    text = ("func.func @f(%n: !tx.symint<s0>, %c: !tx.symint<2>) {\n"
            "  %ge = tx.cmp ge, %n, %c : !tx.symbool\n"
            f"  tx.assert %ge, {_string_literal(message)}\n"
            "  func.return\n}\n")
    module = parse_module(_round_trip(text), CTX)
    (op,) = [op for op in module.walk() if op.name == "tx.assert"]
    (found,) = [a.data for a in (*op.properties.values(), *op.attributes.values()) if isinstance(a, StringAttr)]
    return found


@given(st.text(st.characters(min_codepoint=0, max_codepoint=127)))
@PROPERTY
def test_ascii_assert_messages_round_trip(message: str) -> None:
    assert _assert_message(message) == message


@given(st.text())
@PROPERTY
def test_any_assert_messages_round_trip(message: str) -> None:
    assert _assert_message(message) == message


# --------------------------------------------------------------------------
# symbolic dims
# --------------------------------------------------------------------------

_atoms = st.one_of(st.sampled_from(["s0", "s1", "s2", "u0"]), st.integers(0, 64).map(str))


def _compose(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.tuples(children, children)
    return st.one_of(
        pairs.map(lambda p: f"{p[0]} + {p[1]}"),
        pairs.map(lambda p: f"{p[0]}*{p[1]}"),
        st.tuples(children, st.integers(1, 9)).map(lambda p: f"(({p[0]})//{p[1]})"),
        st.tuples(children, st.integers(1, 9)).map(lambda p: f"(({p[0]}) % {p[1]})"),
        st.tuples(children, st.integers(0, 3)).map(lambda p: f"({p[0]})**{p[1]}"),
        pairs.map(lambda p: f"Max({p[0]}, {p[1]})"),
        pairs.map(lambda p: f"Min({p[0]}, {p[1]})"),
    )


_dim_texts = st.recursive(_atoms, _compose, max_leaves=6)


@given(st.lists(_dim_texts, min_size=1, max_size=3))
@PROPERTY
def test_symbolic_dims_round_trip(dims: list[str]) -> None:
    assume(all(_within_bounds(d) for d in dims))  # past the parser's bounds: test_hostile_dims
    tensor = f"!tx.tensor<[{', '.join(dims)}], f32>"
    text = f"func.func @f(%x: {tensor}) -> {tensor} {{\n  func.return %x : {tensor}\n}}\n"
    printed = _round_trip(text)
    body = re.search(r"%x: !tx\.tensor<\[(.*?)\], f32>", printed).group(1)
    assert [parse_dim(d) for d in _split_dims(body)] == [parse_dim(d) for d in dims]


def _within_bounds(text: str) -> bool:
    try:
        parse_tensor_dim(text)
    except DimSyntaxError:
        return False
    return True


def _split_dims(body: str) -> list[str]:
    """Split a printed dim list at top-level commas."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(body):
        depth += 1 if char == "(" else -1 if char == ")" else 0
        if char == "," and depth == 0:
            parts.append(body[start:index])
            start = index + 1
    return [*parts, body[start:]] if body else []


def test_an_exported_program_keeps_both_signed_zeros() -> None:
    import texport as torch

    class Scale(torch.nn.Module):
        def forward(self, x):  # noqa: ANN001, ANN202
            return x * 0.0, x * -0.0

    ep = torch.export.export(Scale(), (torch.ones(2),))
    text = ep.mlir()
    assert "(%x, 0.0)" in text and "(%x, -0.0)" in text
    positive, negative = ep.module()(torch.ones(2))
    assert [math.copysign(1, v) for v in negative.numpy()] == [-1.0, -1.0]
    assert [math.copysign(1, v) for v in positive.numpy()] == [1.0, 1.0]
