"""An xDSL Context with every texport dialect loaded, and parse/print helpers."""

from __future__ import annotations

import io

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.complex import Complex
from xdsl.dialects.func import Func
from xdsl.ir import Dialect, Operation
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, VerifyException
from xdsl.utils.lexer import Span

from .aten import level_dialect
from .control import CONTROL
from .names import OP_SPANS, TexportParser
from .registry import LEVELS
from .tx import TX


def texport_dialects() -> dict[str, Dialect]:
    dialects = {"tx": TX, "control": CONTROL}
    for level in LEVELS:
        dialects[level] = level_dialect(level)
    return dialects


def make_context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    ctx.load_dialect(Complex)  # complex scalar arguments: #complex.number<:f64 1.0, 2.0>
    for dialect in texport_dialects().values():
        ctx.load_dialect(dialect)
    return ctx


def parse_module(text: str | bytes, ctx: Context | None = None, name: str = "<input>") -> ModuleOp:
    """Parse IR text (bytes must be UTF-8); any malformed input raises a ParseError
    located at ``name:line:col``."""
    return TexportParser(ctx or make_context(), text, name).parse_module()


def verify_module(module: ModuleOp) -> None:
    """``module.verify()``, raising only DiagnosticExceptions (VerifyException):
    a verifier that fails another way (xDSL's func.return reads its func.func's
    properties before the func.func itself is verified) is reported at the first
    op, outermost first, that does not verify on its own, with the cause kept."""
    try:
        module.verify()
    except Exception as err:  # noqa: BLE001 - DiagnosticExceptions too: they get the op's place
        for op in module.walk():
            try:
                op.verify(verify_nested_ops=False)
            except DiagnosticException as inner:
                raise LocatedVerifyException.at(op, str(inner)) from inner
            except Exception as inner:  # noqa: BLE001 - a verifier crashing on broken input
                raise LocatedVerifyException.at(
                    op, f"'{op.name}' op cannot be verified ({type(inner).__name__}: {inner})"
                ) from inner
        if isinstance(err, DiagnosticException):
            raise
        raise VerifyException(f"the module cannot be verified ({type(err).__name__}: {err})") from err


class LocatedVerifyException(VerifyException):
    """A VerifyException that knows where its op's text starts (``span``, for parsed
    ops; None for built ones): the tools print it as mlir-opt does,
    ``file:line:col: error: msg``, with the line and a caret. ``str()`` is ``msg``."""

    def __init__(self, msg: str, span: Span | None) -> None:
        super().__init__(msg)
        self.msg, self.span = msg, span

    @staticmethod
    def at(op: Operation, msg: str) -> LocatedVerifyException:
        return LocatedVerifyException(msg, OP_SPANS.get(op))


def print_module(module: ModuleOp, *, generic: bool = False) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue()
