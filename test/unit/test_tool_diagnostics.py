"""The tools' shared error reporting (texport/tools/diagnostics.py) and the input checks
of texport-run (texport/interpreter/inputs.py): one paragraph and an exit status, never a
traceback unless asked for."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.func import FuncOp

from texport.dialects.context import parse_module
from texport.interpreter.inputs import InputError, load_inputs, parse_bindings, random_inputs
from texport.tools.diagnostics import (
    EXIT_INTERRUPTED,
    ToolError,
    UsageError,
    debug_wanted,
    not_utf8,
    run_tool,
)


def raising(err: BaseException):
    def body() -> int:
        raise err
    return body


def test_an_unexpected_exception_is_one_paragraph_that_asks_for_a_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_tool("tool", raising(IndexError("list index out of range")), debug=False) == 1
    err = capsys.readouterr().err
    assert err.startswith("tool: error: unexpected IndexError: list index out of range\n")
    assert "--debug or TEXPORT_DEBUG=1 shows the traceback" in err and "Traceback" not in err


class OddBaseException(BaseException):
    """xDSL raises some errors as BaseExceptions (ArgSpecParseError)."""


def test_a_base_exception_that_is_an_error_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_tool("tool", raising(OddBaseException("odd")), debug=False) == 1
    assert capsys.readouterr().err.startswith("tool: error: unexpected OddBaseException: odd\n")


def test_sys_exit_passes_through() -> None:
    with pytest.raises(SystemExit):
        run_tool("tool", raising(SystemExit(4)), debug=False)


@pytest.mark.parametrize(("err", "status", "message"), [
    (ToolError("bad input"), 1, "tool: error: bad input\n"),
    (UsageError("bad option"), 2, "tool: error: bad option\n"),
    (FileNotFoundError(2, "No such file or directory", "in.mlir"), 1,
     "tool: error: No such file or directory: in.mlir\n"),
    (KeyboardInterrupt(), EXIT_INTERRUPTED, "tool: interrupted\n"),
])
def test_each_kind_of_error_has_its_exit_status(err: BaseException, status: int, message: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert run_tool("tool", raising(err), debug=False) == status
    assert capsys.readouterr().err == message


def test_clear_errors_print_as_they_are(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_tool("tool", raising(LookupError("no key 'x'")), debug=False, clear=(LookupError,)) == 1
    assert capsys.readouterr().err == "tool: error: no key 'x'\n"


@pytest.mark.parametrize("err", [IndexError("bug"), ToolError("bad"), KeyboardInterrupt()])
def test_debugging_lets_the_exception_through(err: BaseException) -> None:
    with pytest.raises(type(err)):
        run_tool("tool", raising(err), debug=True)


@pytest.mark.parametrize(("value", "wanted"), [(None, False), ("", False), ("0", False), ("1", True),
                                               ("yes", True)])
def test_the_debug_variable(value: str | None, wanted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if value is None:
        monkeypatch.delenv("TEXPORT_DEBUG", raising=False)
    else:
        monkeypatch.setenv("TEXPORT_DEBUG", value)
    assert debug_wanted() is wanted
    assert debug_wanted(True)


def test_not_utf8_at_the_very_start() -> None:
    try:
        b"\x80abc".decode("utf-8")
    except UnicodeDecodeError as err:
        assert not_utf8("x", err).splitlines()[0].startswith("x:1:1: error: not UTF-8 text: byte 0x80")


# ---------------------------------------------------------------------------
# texport-run's inputs
# ---------------------------------------------------------------------------


def function(text: str) -> FuncOp:
    return next(op for op in parse_module(text).walk() if isinstance(op, FuncOp))


TWO_ARGUMENTS = """func.func @main(%x: !tx.tensor<[s0, 3], f32>, %n: !tx.symint<s0>) {
  func.return
}"""


@pytest.mark.parametrize(("bindings", "message"), [
    (["s0"], "--bind expects SYMBOL=INTEGER (e.g. --bind s0=8), found 's0'"),
    (["s0=two"], "found 's0=two'"),
    (["s0=1.5"], "found 's0=1.5'"),
    (["s0=\N{FULLWIDTH DIGIT THREE}"], "found 's0="),
    (["=3"], "found '=3'"),
    (["s0=-5"], "--bind 's0=-5': a size is a non-negative integer, found -5"),
    (["s0=2", "s0=3"], "--bind gives s0 twice: s0=2 and 's0=3'"),
])
def test_malformed_bindings_are_refused(bindings: list[str], message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        parse_bindings(bindings)


def test_bindings_may_have_spaces_and_a_plus_sign() -> None:
    assert parse_bindings([" s0 = +3", "s1=0"]) == {"s0": 3, "s1": 0}


def test_a_binding_for_no_symbol_of_the_function_is_refused() -> None:
    with pytest.raises(InputError, match=r"--bind s9: the arguments of @main have no such size symbol \(theirs: s0\)"):
        random_inputs(function(TWO_ARGUMENTS), ["s0=2", "s9=3"], 0)


def test_a_size_that_comes_out_negative_is_refused() -> None:
    func = function("func.func @main(%x: !tx.tensor<[s0 - 2], f32>) {\n  func.return\n}")
    with pytest.raises(InputError, match=r"argument 'x' dim 0 has size s0 - 2 = -1 with s0=1: a size cannot be negative"):
        random_inputs(func, ["s0=1"], 0)


def test_random_inputs_are_capped_before_allocating() -> None:
    with pytest.raises(InputError, match=r"argument 'x' would be f32\[10000000000000, 3\]"):
        random_inputs(function(TWO_ARGUMENTS), ["s0=10000000000000"], 0)


def save(path: Path, **arrays: np.ndarray) -> str:
    np.savez(path, **arrays)
    return str(path)


def test_npz_inputs_are_checked_against_the_arguments(tmp_path: Path) -> None:
    func = function(TWO_ARGUMENTS)
    good = save(tmp_path / "good.npz", x=np.ones((4, 3), np.float32), n=np.int64(4))
    x, n = load_inputs(func, good)
    assert x.shape == (4, 3) and n == 4 and type(n) is int
    extra = save(tmp_path / "extra.npz", x=np.ones((4, 3), np.float32), n=np.int64(4), z=np.ones(1))
    with pytest.raises(InputError, match=r"extra.npz has arrays for no argument: z \(arguments: x, n\)"):
        load_inputs(func, extra)
    floats = save(tmp_path / "floats.npz", x=np.ones((4, 3), np.float32), n=np.float64(4))
    with pytest.raises(InputError, match=r"array 'n' for argument 'n' must be a 0-d integer array .* found f64\[\]"):
        load_inputs(func, floats)


@pytest.mark.parametrize(("content", "message"), [
    (b"", "is not an .npz file .*: it is empty"),
    (b"hello there", "is not an .npz file .*: it starts with b'hello '"),
    (b"PK\x03\x04" + b"\x00" * 40, "is not a readable .npz file: BadZipFile"),
])
def test_files_that_are_not_npz_are_named(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "in.npz"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        load_inputs(function(TWO_ARGUMENTS), str(path))


def test_object_arrays_are_refused_naming_the_array(tmp_path: Path) -> None:
    path = save(tmp_path / "objects.npz", x=np.array([1, None], dtype=object), n=np.int64(2))
    with pytest.raises(InputError, match=r"objects.npz: array 'x' holds Python objects \(dtype object\)"):
        load_inputs(function(TWO_ARGUMENTS), path)
