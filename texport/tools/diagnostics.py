"""How texport's command-line tools end on an error: one paragraph on stderr, an exit status.

Tools are fed broken files and mistyped options every day, so their errors are
messages, never Python tracebacks: ``tool: error: ...`` (a located IR error reads
``file:line:col`` with the line and a caret) and exit status 1 for bad input, 2 for
a bad command line (argparse's convention), 130 when interrupted. ``--debug`` or
``TEXPORT_DEBUG=1`` lets the exception through, traceback and all, for developers.
Only the standard library here: texport-opt starts without loading texport's heavy parts.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

DEBUG_VARIABLE = "TEXPORT_DEBUG"
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class ToolError(Exception):
    """Bad input whose text already says what was expected, what was found and where."""

    exit_status = EXIT_ERROR


class LocatedError(ToolError):
    """Bad input at a place in a file: printed as mlir-opt prints a diagnostic,
    ``file:line:col: error: what``, then the line and a caret, with no tool prefix."""


class UsageError(ToolError):
    """A bad command line found after argparse was done with it (exit status 2, as argparse's)."""

    exit_status = EXIT_USAGE


def add_debug_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--debug", action="store_true",
                        help=f"show Python's traceback of an error (as {DEBUG_VARIABLE}=1 does)")


def non_negative_int(text: str) -> int:
    """argparse type of a count or seed: a usage error, not a crash later, when negative."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, found {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, found {value}")
    return value


def check_output_path(path: str, option: str) -> None:
    """An output is a file in a folder that exists: said before any work is done, and
    not left to the writer (numpy's would write DIR.npz next to a directory DIR)."""
    if os.path.isdir(path):
        raise ToolError(f"{option} {path}: is a directory, not a file name")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise ToolError(f"{option} {path}: there is no folder {folder}")


def debug_wanted(flag: bool = False) -> bool:
    return flag or os.environ.get(DEBUG_VARIABLE, "").strip() not in ("", "0")


def run_tool(tool: str, body: Callable[[], int | None], *, debug: bool,
             clear: tuple[type[BaseException], ...] = ()) -> int:
    """``body()``'s exit status; an exception it raises becomes one paragraph on stderr
    (``clear`` lists the exception types whose text is the whole message)."""
    try:
        return body() or 0
    except KeyboardInterrupt:
        if debug:
            raise
        print(f"{tool}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`| head`): nothing left to tell it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except (SystemExit, GeneratorExit):
        raise
    except BaseException as err:  # xDSL raises errors that are BaseExceptions (ArgSpecParseError)
        if debug:
            raise
        located = located_message(err)
        if located is not None:
            print(located, file=sys.stderr)
            return EXIT_ERROR
        message, status = describe(err, clear)
        print(f"{tool}: error: {message}", file=sys.stderr)
        return status


def located_message(err: BaseException) -> str | None:
    """mlir-opt's layout for an error that knows where it is: an xDSL ParseError
    (a ``span`` into the text; recognised by its fields, so xDSL need not load here),
    a LocatedError, a not-UTF-8 input."""
    if isinstance(err, LocatedError):
        return str(err)
    if isinstance(err, UnicodeDecodeError) and isinstance(err.object, bytes | bytearray):
        return not_utf8("<input>", err)
    span, msg = getattr(err, "span", None), getattr(err, "msg", None)
    if span is None or not isinstance(msg, str) or not hasattr(span, "print_with_context"):
        return None
    context = span.print_with_context(None).splitlines()[1:]  # its first line is the location
    lines = [f"{span.get_location()}: error: {msg}", *context]
    for ref_span, ref_msg in getattr(err, "refs", None) or ():  # MultipleSpansParseError
        lines += [f"{ref_span.get_location()}: note: {ref_msg or ''}".rstrip(),
                  *ref_span.print_with_context(None).splitlines()[1:]]
    return "\n".join(lines)


def describe(err: BaseException, clear: tuple[type[BaseException], ...] = ()) -> tuple[str, int]:
    """(message, exit status) for an exception that reached a tool's top level."""
    if isinstance(err, ToolError):
        return str(err), err.exit_status
    if isinstance(err, clear):
        return str(err) or type(err).__name__, EXIT_ERROR
    if isinstance(err, OSError):
        return os_error(err), EXIT_ERROR
    if isinstance(err, MemoryError):
        return f"out of memory{': ' + str(err) if str(err) else ''}", EXIT_ERROR
    return unexpected(err), EXIT_ERROR


def os_error(err: OSError) -> str:
    """``No such file or directory: in.mlir``: the reason and the path, no errno."""
    if err.strerror and err.filename is not None:
        return f"{err.strerror}: {err.filename}"
    return str(err) or type(err).__name__


def unexpected(err: BaseException) -> str:
    return (f"unexpected {type(err).__name__}: {err}\n(most likely a bug in texport, not in the input: "
            f"--debug or {DEBUG_VARIABLE}=1 shows the traceback; please report it)")


def not_utf8(name: str, err: UnicodeDecodeError) -> str:
    """``in.mlir:1:13: not UTF-8 text ...``, the line and a caret under the bad byte."""
    data = bytes(err.object)
    start = data.rfind(b"\n", 0, err.start) + 1
    end = data.find(b"\n", err.start)
    line = data.count(b"\n", 0, err.start) + 1
    column = len(data[start:err.start].decode("utf-8", "replace")) + 1
    text = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace")
    return (f"{name}:{line}:{column}: error: not UTF-8 text: byte {data[err.start]:#04x} cannot be decoded "
            f"({err.reason})\n{text}\n{' ' * (column - 1)}^")
