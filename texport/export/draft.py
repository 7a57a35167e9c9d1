"""``texport.export.draft_export``: export that reports every issue it meets
instead of stopping at the first (torch.export.draft_export).

The trace carries real values (tracer/draft.py): a guard on data takes its real
answer with a runtime assert, a custom op without a fake kernel its real output
shapes; a dynamic-shape spec the trace contradicts is retried with every named
Dim as Dim.AUTO (its min/max kept), as torch does. The program comes back with
its report in ``ep._report`` (``failures``, ``successful()``, a printable text).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Mapping
from typing import Any

from texport.tracer import pytree
from texport.tracer.draft import DraftRecorder, guards_added
from texport.tracer.dynamic_shapes import Dim, _DimHint
from texport.tracer.errors import ConstraintViolationError
from texport.tracer.export import export_program
from texport.tracer.nn.module import Module

from .program import ExportedProgram

log = logging.getLogger(__name__)

_WARNING, _GREEN, _END = "\033[93m", "\033[92m", "\033[0m"
_BAR = "#" * 99


class FailureType(enum.IntEnum):
    MISSING_FAKE_KERNEL = 1
    DATA_DEPENDENT_ERROR = 2
    GUARD_ADDED = 3
    MISMATCHED_FAKE_KERNEL = 4

    def __str__(self) -> str:
        return self.name


class FailureReport:
    def __init__(self, failure_type: FailureType, data: dict[str, Any], xfail: bool = False) -> None:
        self.failure_type = failure_type
        self.data = data
        self.xfail = xfail

    def __repr__(self) -> str:
        return f"FailureReport(failure_type={self.failure_type}, xfail={self.xfail}, data={self.data})"

    def print(self, str_to_filename: dict[int, str] | None = None) -> str:
        data = self.data
        if self.failure_type is FailureType.MISSING_FAKE_KERNEL:
            return (f"Missing fake kernel.\n    torch.ops.{data['op']} is missing a fake kernel implementation.\n\n"
                    "    Register one with torch.library.register_fake (or the op's register_fake).\n")
        if self.failure_type is FailureType.MISMATCHED_FAKE_KERNEL:
            return (f"Mismatched fake kernel.\n    torch.ops.{data['op']} has a fake kernel implementation, but "
                    "it has incorrect behavior, based on the real kernel.\n"
                    f"    The reason for the mismatch is: {data['reason']}.\n")
        if self.failure_type is FailureType.GUARD_ADDED:
            return ("Guard Added.\n    A guard was added during tracing, which might've resulted in some incorrect\n"
                    f"    tracing or constraint violation error.\n    Specifically, this guard was added: {data['expr']}\n"
                    "    Because of this, we have modified the dynamic shapes structure to be the\n    following.\n"
                    f"    ```\n    dynamic_shapes = {data['new_dynamic_shapes']}\n    ```\n")
        return (f"Data dependent error.\n    When exporting, we were unable to evaluate the value of `{data['expr']}`.\n"
                f"    This was encountered {data['occurrences']} times.\n"
                f"    This occurred at the following user stacktrace: {_stack_text(data['user_stack'])}\n\n"
                f"    As a result, it was specialized to a constant (e.g. `{data['result']}` in the 1st occurrence), "
                "and asserts were inserted into the graph.\n\n"
                "    Please add `torch._check(...)` to the original code to assert this data-dependent assumption.\n")


def _stack_text(stack: list[dict[str, Any]]) -> str:
    text = "".join(f"\n        File {f['filename']}, lineno {f['line']}, in {f['name']}" for f in stack)
    return text + (f"\n            {stack[-1]['loc']}" if stack else "")


class DraftExportReport:
    def __init__(self, failures: list[FailureReport], str_to_filename: dict[int, str] | None = None,
                 expressions_created: dict[int, dict[str, Any]] | None = None,
                 op_profiles: dict[str, Any] | None = None) -> None:
        self.failures = failures
        self.str_to_filename = str_to_filename or {}
        self.expressions_created = expressions_created or {}
        self.op_profiles = op_profiles or {}

    def successful(self) -> bool:
        return all(failure.xfail for failure in self.failures)

    def apply_suggested_fixes(self) -> None:
        raise NotImplementedError("Not implemented yet")

    def __repr__(self) -> str:
        return f"DraftExportReport({self.failures})"

    def __str__(self) -> str:
        if self.successful():
            return (f"{_GREEN}\n{'#' * 94}\nCongratulations: No issues are found during export, and it was able "
                    f"to soundly produce a graph.\nYou can now change back to torch.export.export()\n{'#' * 94}\n{_END}")
        text = (f"{_WARNING}\n{_BAR}\nWARNING: {len(self.failures)} issue(s) found during export, and it was not "
                f"able to soundly produce a graph.\nPlease follow the instructions to fix the errors.\n{_BAR}\n\n")
        for index, failure in enumerate(self.failures, 1):
            text += f"{index}. {failure.print(self.str_to_filename)}\n"
        return text + _END


def draft_export(mod: Module, args: tuple[Any, ...], kwargs: Mapping[str, Any] | None = None, *,
                 dynamic_shapes: Any = None, preserve_module_call_signature: tuple[str, ...] = (),
                 strict: bool = False, pre_dispatch: bool = True,
                 prefer_deferred_runtime_asserts_over_guards: bool = False) -> ExportedProgram:
    """Export ``mod``, going past what export stops at; ``ep._report`` says what was found."""
    kwargs = dict(kwargs or {})
    recorder = DraftRecorder()
    guard_added: list[FailureReport] = []
    try:
        traced = export_program(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict,
                                preserve_module_call_signature=preserve_module_call_signature, draft=recorder)
    except ConstraintViolationError as err:
        new_shapes = pytree.tree_map(_as_auto, dynamic_shapes, is_leaf=lambda x: isinstance(x, (Dim, _DimHint)))
        guards = guards_added(recorder)
        recorder = DraftRecorder()
        traced = export_program(mod, args, kwargs, dynamic_shapes=new_shapes, strict=strict,
                                preserve_module_call_signature=preserve_module_call_signature, draft=recorder)
        guard_added = [FailureReport(FailureType.GUARD_ADDED, {**g.data, "new_dynamic_shapes": new_shapes,
                                                               "message": str(err)}) for g in guards]
    failures = guard_added + [FailureReport(FailureType[f.kind], f.data) for f in recorder.failures]
    report = DraftExportReport(failures)
    ep = ExportedProgram(traced)
    ep._report = report  # type: ignore[attr-defined]
    if not report.successful():
        log.warning("\n%s\nWARNING: %d issue(s) found during export, and it was not able to soundly produce a "
                    "graph.\nYou can view the errors in python by inspecting `print(ep._report)`.\n%s",
                    _BAR, len(failures), _BAR)
    return ep


def _as_auto(dim: Any) -> Any:
    if isinstance(dim, Dim):
        return Dim.AUTO(min=dim.min, max=dim.max)
    if isinstance(dim, _DimHint) and dim.kind == "DYNAMIC":
        return Dim.AUTO(min=dim.min, max=dim.max)
    return dim


__all__ = ["DraftExportReport", "FailureReport", "FailureType", "draft_export"]
