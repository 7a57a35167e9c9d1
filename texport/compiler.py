"""``texport.compiler``: torch.compiler's questions and decorators that code under
export asks. There is no torch.compile here: tracing is export's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def is_exporting() -> bool:
    """True while ``texport.export`` traces (the forward, a control-flow branch, a fake kernel)."""
    from texport.tracer.dispatcher import current_mode  # noqa: PLC0415 - keep `import texport` light
    from texport.tracer.tracing import Tracer  # noqa: PLC0415

    return isinstance(current_mode(), Tracer)


def is_compiling() -> bool:
    """True under export, as torch's (which also answers True under torch.compile)."""
    return is_exporting()


def is_dynamo_compiling() -> bool:
    """Always False: texport traces as torch's non-strict export, without dynamo."""
    return False


def assume_constant_result(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``fn``'s result as a constant; a non-strict trace just calls it, as torch's."""
    return fn


def disable(fn: Callable[..., Any] | None = None, recursive: bool = True, *,
            reason: str | None = None) -> Any:
    """Keep ``fn`` out of torch.compile; export (non-strict) traces through it as torch's."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    return fn


__all__ = ["assume_constant_result", "disable", "is_compiling", "is_dynamo_compiling", "is_exporting"]
