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


class ConstraintViolationError(UserError):
    """The traced program needs a narrower spec than the one given; the
    message ends in ``Suggested fixes:`` with valid Python, also in
    ``suggested_fixes``. Raised where the example inputs contradict the spec
    (input_dims.py) and where the traced guards do (solver.py)."""

    def __init__(self, message: str, suggested_fixes: list[str] | None = None) -> None:
        super().__init__(message, "CONSTRAINT_VIOLATION")
        self.suggested_fixes = suggested_fixes or []

    @classmethod
    def of(cls, names: str, bullets: list[str], fixes: list[str]) -> ConstraintViolationError:
        """torch's message: the dims at fault, one bullet per problem, then the fixes."""
        text = f'Constraints violated ({names})! For more information, run with TORCH_LOGS="+dynamic".\n'
        text += "\n".join(f"  - {b}" for b in bullets)
        if fixes:
            text += "\nSuggested fixes:\n" + "\n".join(f"  {f}" for f in fixes)
        return cls(text, fixes)


def specialized_bullet(name: str, value: Any) -> str:
    """A dim the user marked dynamic that became the constant ``value``."""
    return (
        f"You marked {name} as dynamic but your code specialized it to be a constant ({value}). "
        "If you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're "
        "using Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO."
    )


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
