"""Errors raised while running texport programs, phrased like torch's."""

from __future__ import annotations


class GuardError(AssertionError):
    """An input does not fit the program: ``Guard failed: x.size()[0] >= 4``."""


class RuntimeAssertError(RuntimeError):
    """A ``tx.assert`` failed: ``Runtime assertion failed for expression u0 >= 0``."""


class ExecutionError(RuntimeError):
    """An op failed while running; names the op and its source location."""
