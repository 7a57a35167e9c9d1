"""What texport's command line asks of real torch: torch itself (or an error naming
the extra that installs it), a ``torch.export.save`` archive read by torch's own
loader, a real-torch model exported by torch. The commands import this module
only when they run (torch is optional: ``pip install texport[torch]``)."""

from __future__ import annotations

import errno
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

TORCH_EXTRA = "pip install texport[torch]"


class TorchNotInstalled(ImportError):
    """torch is not importable: the bridge's commands cannot run."""


class TorchArchiveError(ValueError):
    """A file that torch.export.load cannot read as an exported program."""


def import_torch(doing: str) -> Any:
    """torch, or TorchNotInstalled saying what needed it and how to install it."""
    try:
        import torch
    except ModuleNotFoundError as err:
        if err.name != "torch":
            raise
        raise TorchNotInstalled(f"{doing} needs PyTorch (torch 2.13), which is not installed: "
                                f"{TORCH_EXTRA}") from None
    return torch


def load_torch_archive(path: str) -> Any:
    """The torch.export.ExportedProgram a ``torch.export.save`` archive holds, read by
    torch's own ``torch.export.load``."""
    torch = import_torch(f"reading the torch archive {path}")
    if not Path(path).is_file():
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
    with _torch_load_warnings() as warnings:
        try:
            return torch.export.load(path)
        except Exception as err:  # noqa: BLE001 - torch raises many kinds for a file it cannot read
            cause = warnings[-1] if warnings else f"{type(err).__name__}: {_first_line(err)}"
            raise TorchArchiveError(
                f"{path} is not an archive torch.export.load (torch {torch.__version__}) can read: expected "
                f"a torch.export.save file (.pt2, a zip of the program and its weights); torch says {cause}"
            ) from err


@contextmanager
def _torch_load_warnings() -> Iterator[list[str]]:
    """The errors torch.export.load logs (with their traceback, then raises "check the
    warnings above"), kept as their last line for our message instead of printed."""
    logger = logging.getLogger("torch.export")
    found: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            error = record.exc_info[1] if record.exc_info else None
            found.append(f"{type(error).__name__}: {_first_line(error)}" if error else record.getMessage())

    handlers, propagate = logger.handlers, logger.propagate  # torch's logging gives it its own stderr handler
    logger.handlers, logger.propagate = [Keep()], False
    try:
        yield found
    finally:
        logger.handlers, logger.propagate = handlers, propagate


def export_with_torch(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any], dynamic_shapes: Any,
                      level: str) -> Any:
    """torch.export.export of a real-torch model, at ``level`` with torch's own
    run_decompositions (functional: ``{}``, core: torch's default table). torch's
    errors pass on as torch raised them: the caller knows whose code they are in."""
    torch = import_torch("exporting a model with torch")
    program = torch.export.export(model, args, kwargs, dynamic_shapes=dynamic_shapes)
    if level == "training":
        return program
    return program.run_decompositions({} if level == "functional" else None)


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else "(no message)"
