"""Where in the user's program an op was called: file, line and the code text."""

from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass

_TRACER_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_NN_DIR = os.path.join(_TRACER_DIR, "nn") + os.sep
# The package folder: texport's own modules (export/, nn/, ...) and, linked in, every
# component folder. Its examples (models) and tools (CLI mains) call texport as a user does.
_PACKAGE_DIR = os.path.dirname(_TRACER_DIR.rstrip(os.sep)) + os.sep
_USER_FACING_DIRS = tuple(os.path.join(_PACKAGE_DIR, name) + os.sep for name in ("examples", "tools"))


@dataclass(frozen=True)
class SourceLocation:
    filename: str
    line: int
    function: str

    @property
    def code(self) -> str:
        return linecache.getline(self.filename, self.line).strip()

    def __str__(self) -> str:
        return f'File "{self.filename}", line {self.line}, in {self.function}\n    {self.code}'


_NN_HELPERS = tuple(os.path.join(_NN_DIR, f) for f in ("functional.py", "init.py", "utils.py"))


def _internal(filename: str, keep_nn: bool) -> bool:
    if filename.startswith(_TRACER_DIR):
        nn_module_code = filename.startswith(_NN_DIR) and not filename.startswith(_NN_HELPERS)
        return not (keep_nn and nn_module_code)
    texport_file = filename.startswith(_PACKAGE_DIR) and not filename.startswith(_USER_FACING_DIRS)
    return texport_file or filename.startswith("<texport")


def caller_location(keep_nn: bool = True) -> SourceLocation | None:
    """The innermost frame outside texport's machinery. With ``keep_nn`` the
    frames of texport.nn count as the caller (torch's ``# code:`` shows nn
    source lines too); without, the first frame of the user's own code."""
    frame = sys._getframe(1)
    first = None
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not _internal(filename, keep_nn):
            here = SourceLocation(filename, frame.f_lineno, frame.f_code.co_name)
            if not keep_nn or frame.f_code.co_name == "forward":
                return here  # torch's `# code:` shows the innermost module forward line
            first = first or here
        frame = frame.f_back
    return first


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes ``warnings.warn`` name the innermost frame
    outside texport (the user's call), however deep the warning is raised."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _internal(os.path.abspath(frame.f_code.co_filename), keep_nn=False):
        frame, level = frame.f_back, level + 1
    return level
