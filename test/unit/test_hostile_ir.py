"""Hostile IR text ends in a located ParseError or a VerifyException, never a
crash, a hang or text that does not parse back (issue 17)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from texport.dialects import tx
from texport.dialects.asm import string_literal
from texport.dialects.context import parse_module, print_module, verify_module
from texport.dialects.ir_text import MAX_INTEGER_DIGITS, MAX_NESTING


def in_function(body: str) -> str:
    return f"func.func @f(%x: !tx.tensor<[3, 4], f32>) {{\n  {body}\n  func.return\n}}\n"


def parse_error(text: str | bytes) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_module(text).verify()
    return info.value


def where(err: ParseError) -> str:
    """``line:col`` of the error (its first line is ``name:line:col``)."""
    return str(err).splitlines()[0].split(":", 1)[1]


# ---------------------------------------------------------------------------- nesting


def test_nested_modules_stop_at_the_limit() -> None:
    err = parse_error("builtin.module {\n" * 200 + "}\n" * 200)
    assert f"nesting deeper than {MAX_NESTING}" in str(err)
    assert where(err) == f"{MAX_NESTING + 1}:16"  # the '{' that crosses the limit


def test_nested_brackets_in_an_attribute_stop_at_the_limit() -> None:
    prefix = "func.func @f() attributes {a = "
    err = parse_error(prefix + "[" * 150 + "]" * 150 + "} {\n  func.return\n}")
    assert f"nesting deeper than {MAX_NESTING}" in str(err)
    assert where(err) == f"1:{len(prefix) + MAX_NESTING}"  # '{' counts as the first level


def test_brackets_only_in_comments_nest_nothing() -> None:
    module = parse_module("// " + "[" * 100 + "\nbuiltin.module {\n}\n")
    assert module is not None


def test_extra_closing_brackets_do_not_hide_deep_nesting_after_them() -> None:
    err = parse_error(")" * 100 + "\n" + "builtin.module {" * 200)
    assert f"nesting deeper than {MAX_NESTING}" in str(err)
    assert where(err) == f"2:{16 * MAX_NESTING + 16}"


def test_nesting_within_the_limit_parses() -> None:
    depth = MAX_NESTING - 4
    module = parse_module("builtin.module {\n" * depth + "}\n" * depth)
    assert module is not None


def test_brackets_in_strings_and_comments_do_not_nest() -> None:
    deep = "[" * 200
    text = f'// {deep}\nfunc.func @f() attributes {{a = "{deep}"}} {{\n  func.return\n}}\n'
    assert parse_module(text).body.block.first_op.attributes["a"].data == deep


# ---------------------------------------------------------------------------- strings


_TIMED_PARSE = textwrap.dedent("""
    import json, sys, time
    from xdsl.utils.exceptions import ParseError
    from texport.dialects.context import parse_module
    times = []
    for text in json.loads(sys.stdin.read()):
        start = time.perf_counter()
        try:
            parse_module(text)
        except ParseError:
            pass
        else:
            raise SystemExit("accepted: " + text[:40])
        times.append(time.perf_counter() - start)
    print(json.dumps(times))
""")


def _unclosed_strings() -> list[str]:
    """Every way xDSL's string regex fails after a run it can split many ways:
    a line break, \\v, \\f, a bad escape or the end of the input after the run,
    with and without valid escapes between runs."""
    texts = []
    for letters in (30, 10_000):
        run = "a" * letters
        for tail in ("\n", "\v", "\f", "\\q", ""):
            texts.append(in_function(f'"{run}{tail}'))
            texts.append(in_function(f'"{run}\\n{run}\\22{run}{tail}'))
        texts.append(f'"{run}')  # the very first token
        texts.append(f'func.func @"{run}\n')  # a symbol name
        texts.append(in_function(f'%g = core.gelu(%x, approximate = "{run}\n)'))
    return texts


def test_unclosed_strings_fail_in_linear_time() -> None:
    """xDSL's regex took 8 s for 26 letters; run apart so a hang cannot stall the suite."""
    texts = _unclosed_strings()
    done = subprocess.run(
        [sys.executable, "-c", _TIMED_PARSE], input=json.dumps(texts),
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    times = json.loads(done.stdout)
    assert len(times) == len(texts)
    assert max(times) < 1.0, max(times)


@pytest.mark.parametrize(("tail", "message"), [
    ("\n", "string literal not closed on its line"),
    ("", "string literal not closed before the end of the input"),
    ("\\q", "invalid escape '\\\\q' in string literal"),
])
def test_unclosed_string_error_points_where_it_stops(tail: str, message: str) -> None:
    err = parse_error(f'func.func @f() attributes {{a = "abc{tail}')
    assert message in str(err)
    assert where(err) == "1:36"


MESSAGES = ["é", 'say "hi"', "back\\slash", "line\nbreak", "tab\there", "bell\x07 del\x7f",
            "line\u2028separator", "mixed é\n\"\\", "", "日本語 ✓", "\x85", "\\FF literal"]


@pytest.mark.parametrize("message", MESSAGES)
def test_strings_print_so_that_they_parse_back(message: str) -> None:
    literal = string_literal(message)
    text = (
        "func.func @f(%x: !tx.tensor<[3, 4], f32>, %b: !tx.symbool) {\n"
        f"  tx.assert %b, {literal}\n"
        f"  %g = core.gelu(%x, approximate = {literal}) : !tx.tensor<[3, 4], f32>\n"
        "  func.return\n}\n"
    )
    printed = print_module(parse_module(text))
    module = parse_module(printed)
    assert print_module(module) == printed
    check, gelu = list(module.body.block.first_op.body.block.ops)[:2]
    assert isinstance(check, tx.AssertOp)
    assert check.message.data == message
    assert gelu.argument("approximate") == message


def test_a_non_ascii_assert_message_prints_as_written() -> None:
    """It printed as "\\C3\\A9", which xDSL's lexer reads as bytes, not a string."""
    text = "func.func @f(%b: !tx.symbool) {\n  tx.assert %b, \"é\"\n  func.return\n}\n"
    printed = print_module(parse_module(text))
    assert 'tx.assert %b, "é"' in printed
    assert print_module(parse_module(printed)) == printed


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(exclude_categories=["Cs"])))  # a lone surrogate is no UTF-8 text
def test_any_string_prints_so_that_it_parses_back(message: str) -> None:
    text = f"func.func @f(%b: !tx.symbool) {{\n  tx.assert %b, {string_literal(message)}\n  func.return\n}}"
    check = parse_module(text).body.block.first_op.body.block.first_op
    assert check.message.data == message


@pytest.mark.parametrize("message", MESSAGES)
def test_xdsl_printed_strings_parse_back(message: str) -> None:
    """xDSL prints "é" as "\\C3\\A9" (as MLIR does), in attributes and symbol names."""
    stream = io.StringIO()
    Printer(stream=stream).print_string_literal(message)
    literal = stream.getvalue()
    function = parse_module(f"func.func @{literal}() attributes {{a = {literal}}} {{\n  func.return\n}}")
    op = function.body.block.first_op
    assert (op.sym_name.data, op.attributes["a"].data) == (message, message)


def test_escapes_that_are_not_utf8_are_located() -> None:
    err = parse_error(in_function('%g = core.gelu(%x, approximate = "\\FF") : !tx.tensor<[3, 4], f32>'))
    assert "not UTF-8" in str(err)
    assert where(err) == "2:36"


# ---------------------------------------------------------------------------- bytes


def test_bytes_that_are_not_utf8_are_located() -> None:
    err = parse_error(b"func.func @f\xff() {}")
    assert "not UTF-8" in str(err)
    assert "\\xff" in str(err)
    assert where(err) == "1:13"
    assert isinstance(err.__cause__, UnicodeDecodeError)


def test_bad_byte_on_a_later_line_after_multibyte_text() -> None:
    err = parse_error("// é\nfunc.func @f() {\n  func.return é".encode() + b"\xc3(\n}")
    assert where(err) == "3:16"  # é is one column


# ---------------------------------------------------------------------------- block labels


def test_a_block_label_starting_with_a_digit_is_located() -> None:
    err = parse_error("func.func @f() {\n^0:\n  func.return\n}")
    assert "invalid block label '^0'" in str(err)
    assert where(err) == "2:1"


# ---------------------------------------------------------------------------- ATen arguments


@pytest.mark.parametrize(("call", "at", "message"), [
    ("core.permute(%x, [1., 0])", "1.",
     "argument 'dims' of 'core.permute' expects int[], found float 1.0"),
    ("functional.transpose.int(%x, 0, -0.0)", "-0.0",
     "argument 'dim1' of 'functional.transpose.int' expects int, found float -0.0"),
    ("functional.transpose.int(%x, \"a\", 1)", "\"a\"",
     "argument 'dim0' of 'functional.transpose.int' expects int, found str 'a'"),
    ("core.view(%x, [nan, 5])", "nan",
     "argument 'size' of 'core.view' expects SymInt[], found float nan"),
    ("core.view(%x, [3, -inf])", "-inf",
     "argument 'size' of 'core.view' expects SymInt[], found float -inf"),
    ("core.view(%x, [none, 12])", "none",
     "expects SymInt[], found none"),
    ("core.view(%x, none)", "none",
     "expects SymInt[], found none"),
    ("core.sum.dim_IntList(%x, [0], 1.5)", "1.5",
     "argument 'keepdim' of 'core.sum.dim_IntList' expects bool"),
    ("core.gelu(%x, approximate = 3)", "3",
     "argument 'approximate' of 'core.gelu' expects str, found int 3"),
    ("core.cumsum(%x, 0, dtype = \"f32\")", "\"f32\"",
     "argument 'dtype' of 'core.cumsum' expects ScalarType?"),
    ("core.leaky_relu(%x, \"a\")", "\"a\"",
     "argument 'negative_slope' of 'core.leaky_relu' expects Scalar"),
    ("core.add.Tensor(%x, \"a\")", "\"a\"",
     "argument 'other' of 'core.add.Tensor' expects Tensor, found str"),
    ("core.cat([%x, 1.5])", "1.5",
     "argument 'tensors' of 'core.cat' expects Tensor[], found float 1.5"),
    ("core.index.Tensor(%x, [none, \"a\"])", "\"a\"",
     "expects Tensor?[], found str 'a'"),
    ("core.clone(%x, memory_format = 1.5)", "1.5",
     "expects MemoryFormat?, found float 1.5"),
    ("core.add.Scalar(%x, complex(abc, 1.0))", "abc",
     "real part of complex(...), found 'abc'"),
    ("core.view(%x, 1" + "0" * 5000 + ")", "1",
     "(5001 characters) is out of the int64 range"),
    ("core.view(%x, [9223372036854775808])", "9223372036854775808",
     "integer 9223372036854775808 is out of the int64 range"),
    ("core.view(%x#99999999999, [12])", "99999999999",
     "result number #99999999999 is too large"),
])
def test_argument_of_the_wrong_kind_is_located(call: str, at: str, message: str) -> None:
    """The error names op, argument, expected kind and found value, at the value."""
    line = f"%p = {call} : !tx.tensor<[12], f32>"
    err = parse_error(in_function(line))
    assert message in str(err)
    assert where(err) == f"2:{len('  ') + line.index(at, len('%p = core.')) + 1}"


def test_generic_form_with_a_literal_of_the_wrong_kind_fails_to_verify() -> None:
    text = in_function(
        '%p = "core.permute"(%x) <{dims = [1.0, 0], operandSegmentSizes = array<i32: 1, 0>}> '
        ": (!tx.tensor<[3, 4], f32>) -> !tx.tensor<[4, 3], f32>"
    )
    with pytest.raises(VerifyException, match="argument 'dims' expects int\\[\\], found float 1.0"):
        parse_module(text).verify()


def test_a_result_type_the_op_does_not_produce_fails_to_verify() -> None:
    text = "func.func @f(%x: !tx.tensor<[3], f32>) {\n  %n = training.nonzero(%x) : !tx.tensor<[3], f32>\n  func.return\n}"
    with pytest.raises(VerifyException, match=r"result #0 has type !tx.tensor<\[3\], f32>, but its "
                                              r"shape rule gives !tx.tensor<\[\?, 1\], i64>"):
        parse_module(text).verify()


# ---------------------------------------------------------------------------- last resort


def test_an_unforeseen_exception_becomes_a_located_parse_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(cls: type, parser: object) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(tx.ConstantOp, "parse", classmethod(broken))
    err = parse_error("func.func @f() {\n  %c = tx.constant 2 : !tx.symint<2>\n  func.return\n}")
    assert "KeyError" in str(err)
    assert where(err) == "2:20"  # the token after the op name
    assert isinstance(err.__cause__, KeyError)


def test_a_shape_rule_that_fails_unforeseen_fails_to_verify() -> None:
    """arange to inf: the shape rule's int(inf) becomes a VerifyException naming the op."""
    text = in_function("%p = core.arange.start_step(0, inf, 1) : !tx.tensor<[3], i64>")
    with pytest.raises(VerifyException, match="'core.arange.start_step' op: .*OverflowError") as info:
        parse_module(text).verify()
    assert isinstance(info.value.__cause__, OverflowError)


def test_a_scalar_type_number_torch_does_not_have_is_located() -> None:
    err = parse_error(in_function("%p = core.cumsum(%x, 0, dtype = 99) : !tx.tensor<[3, 4], f32>"))
    assert "argument 'dtype' of 'core.cumsum' expects ScalarType?, found int 99" in str(err)


# ---------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(("literal", "message"), [
    ("99999999999999999999999", "tx.constant 99999999999999999999999 is out of the int64 range"),
    ("1.0e400", "tx.constant must be a finite number, found inf"),
    ("0x" + "F" * 900, "tx.constant literal is out of the int64 range"),  # 1084 decimal digits
    ("-1.0e400", "tx.constant must be a finite number, found -inf"),
])
def test_a_constant_that_does_not_print_back_is_located(literal: str, message: str) -> None:
    err = parse_error(in_function(f"%c = tx.constant {literal} : !tx.symint"))
    assert message in str(err)
    assert where(err) == "2:20"


@pytest.mark.parametrize(("context", "column"), [
    ("%c = tx.constant {} : !tx.symint", 20),
    ("%c = tx.constant 1 {{a = {}}} : !tx.symint", 27),
    ("%c = tx.constant 1 {{a = 1 : i{}}} : !tx.symint", 31),
    ("func.return %x#{}", 17),
])
def test_a_number_longer_than_int_reads_is_located(context: str, column: int) -> None:
    """Python's int() refuses more than 4300 digits: a ValueError inside xDSL."""
    err = parse_error(in_function(context.format("1" * 5000)))
    assert f"integer literal of 5000 digits (at most {MAX_INTEGER_DIGITS})" in str(err)
    assert where(err) == f"2:{column}"


# ---------------------------------------------------------------------------- generic form


_PERMUTE = '%r = "core.permute"(%x) <{{{}}}> {}: (!tx.tensor<[3, 4], f32>) -> !tx.tensor<[4, 3], f32>'


@pytest.mark.parametrize(("properties", "regions", "message"), [
    ("dims = [#tx.ssa, 0], operandSegmentSizes = array<i32: 1, 0>", "",
     "more #tx.ssa markers than operands"),
    ("dims = [1, 0], operandSegmentSizes = array<i32: -1, 2>", "",
     "operandSegmentSizes [-1, 2] does not fit"),
    ("dims = [1, 0], operandSegmentSizes = array<i32: 1, 0>", "({}) ",
     "'core.permute' op takes no regions or successors"),
])
def test_generic_form_that_the_custom_form_cannot_hold_fails_to_verify(
        properties: str, regions: str, message: str) -> None:
    text = in_function(_PERMUTE.format(properties, regions))
    with pytest.raises(VerifyException, match=re.escape(message)):
        parse_module(text).verify()


def test_generic_form_without_a_defaulted_argument_fails_to_verify() -> None:
    """alpha absent means None, which add.Scalar's Scalar alpha cannot be (its default is 1)."""
    text = in_function(
        '%r = "core.add.Scalar"(%x) <{other = 1.5, operandSegmentSizes = array<i32: 1, 0, 0>}> '
        ": (!tx.tensor<[3, 4], f32>) -> !tx.tensor<[3, 4], f32>"
    )
    with pytest.raises(VerifyException, match="required argument 'alpha' is missing"):
        parse_module(text).verify()


@pytest.mark.parametrize("character", ["²", "½", "٣"])
def test_a_numeric_character_that_is_not_an_ascii_digit_is_located(character: str) -> None:
    """xDSL's lexer reads any str.isnumeric() character as a number, then int() fails (or reads ٣ as 3)."""
    err = parse_error(f"func.func @f() attributes {{a = {character}}} {{\n  func.return\n}}")
    assert f"unexpected character '{character}'" in str(err)
    assert where(err) == "1:32"


def test_an_unclosed_result_type_is_located() -> None:
    err = parse_error(in_function("%p = core.permute(%x, [1, 0]) : !tx.tensor<[4, 3], f32"))
    assert "Unbalanced '}' in dialect symbol body" in str(err)
    assert where(err) == "4:1"  # the function's '}', where the type's body cannot go on


@pytest.mark.parametrize(("held", "canonical"), [("1 : i32", "1 : i64"), ("2.0 : f16", "2.000000e+00 : f64")])
def test_generic_form_holding_a_literal_in_another_type_fails_to_verify(held: str, canonical: str) -> None:
    """The custom form prints the value only: it would come back in texport's type (found by fuzzing)."""
    text = in_function(
        f'%r = "core.add.Tensor"(%x, %x) <{{alpha = {held}, operandSegmentSizes = array<i32: 1, 1, 0>}}> '
        ": (!tx.tensor<[3, 4], f32>, !tx.tensor<[3, 4], f32>) -> !tx.tensor<[3, 4], f32>"
    )
    held_shown = held.replace("2.0", "2.000000e+00")
    with pytest.raises(VerifyException, match=re.escape(f"property 'alpha' is {held_shown}, texport holds this value as {canonical}")):
        parse_module(text).verify()


def test_verify_module_reports_the_op_an_unforeseen_verifier_error_comes_from() -> None:
    """xDSL's func.return reads its func.func's function_type before the func.func is
    verified: a KeyError from module.verify(), a VerifyException from verify_module."""
    module = parse_module('"func.func"() <{sym_name = "f"}> ({\n  "func.return"() : () -> ()\n}) : () -> ()')
    with pytest.raises(KeyError):
        module.verify()
    with pytest.raises(VerifyException, match="function_type") as info:
        verify_module(module)
    assert not isinstance(info.value.__cause__, KeyError)  # the func.func's own error, found first


def test_verify_module_names_the_op_whose_verifier_crashes(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(op: object) -> None:
        raise IndexError("surprise")

    monkeypatch.setattr(tx.ConstantOp, "verify_", broken)
    module = parse_module("func.func @f() {\n  %c = tx.constant 2 : !tx.symint<2>\n  func.return\n}")
    with pytest.raises(VerifyException, match="'tx.constant' op cannot be verified \\(IndexError: surprise\\)") as info:
        verify_module(module)
    assert isinstance(info.value.__cause__, IndexError)


def test_a_verify_error_knows_where_its_op_starts() -> None:
    text = ("func.func @f(%x: !tx.tensor<[3, 4], f32>) {\n"
            "  %y = training.nonzero(%x) : !tx.tensor<[3], f32>\n"
            "  func.return\n}\n")
    module = parse_module(text, name="in.mlir")
    with pytest.raises(VerifyException) as caught:
        verify_module(module)
    location = caught.value.span.get_location()
    assert (location.file, location.line, location.col) == ("in.mlir", 2, 3)
    assert str(caught.value).startswith("'training.nonzero' op result #0 has type")
