"""Errors of tracing and export, modelled on torch's messages."""

from __future__ import annotations

from typing import Any

from .sources import caller_location


class TracingError(RuntimeError):
    """An op could not be traced (invalid shapes, missing shape rule)."""


class UnsupportedError(RuntimeError):
    """Python the exporter does not support (strict mode rules)."""


class UserError(RuntimeError):
    """A problem with what the user asked for (torch._dynamo.exc.UserError)."""

    def __init__(self, message: str, error_type: str = "INVALID_INPUT") -> None:
        super().__init__(message)
        self.error_type = error_type


_ADVICE = (
    "\n\nconsider using data-dependent friendly APIs such as guard_or_false, guard_or_true "
    "and statically_known_true.\n"
    "texport: data-dependent Python control flow cannot be exported. Capture both branches "
    "with texport.cond(pred, true_fn, false_fn, operands), or rewrite without branching "
    "(texport.where(cond, a, b)); for sizes from data, narrow them with texport._check(...)."
)


class GuardOnDataDependentSymNode(RuntimeError):
    """Python control flow needs a value that depends on tensor data."""

    @classmethod
    def create(cls, expr: Any) -> GuardOnDataDependentSymNode:
        text = str(expr)
        return cls(
            f"Could not guard on data-dependent expression {text} (unhinted: {text}).  "
            f"(Size-like symbols: none){_ADVICE}{_where()}"
        )

    @classmethod
    def for_tensor(cls, what: str) -> GuardOnDataDependentSymNode:
        return cls(
            f"Could not guard on data-dependent expression: {what} needs the values of a "
            f"traced tensor.{_ADVICE}{_where()}"
        )


def _where() -> str:
    location = caller_location(keep_nn=False)
    if location is None:
        return ""
    return f"\n\nThe following call raised this error:\n  {location}"
