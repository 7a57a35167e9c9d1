"""Grad-mode context managers. texport has no autograd; these keep torch code
running and record the mode (exporting under no_grad gives the same IR, as torch)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_ENABLED = [True]


def is_grad_enabled() -> bool:
    return _ENABLED[-1]


class set_grad_enabled:  # noqa: N801 - torch's spelling
    """Context manager and decorator setting grad mode."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        _ENABLED.append(self.mode)

    def __exit__(self, *exc: object) -> None:
        _ENABLED.pop()

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with type(self)(*self._args()):
                return fn(*args, **kwargs)

        return run

    def _args(self) -> tuple[Any, ...]:
        return (self.mode,)


class no_grad(set_grad_enabled):  # noqa: N801
    def __init__(self) -> None:
        super().__init__(False)

    def _args(self) -> tuple[Any, ...]:
        return ()


class enable_grad(set_grad_enabled):  # noqa: N801
    def __init__(self) -> None:
        super().__init__(True)

    def _args(self) -> tuple[Any, ...]:
        return ()


class inference_mode(set_grad_enabled):  # noqa: N801
    def __init__(self, mode: bool = True) -> None:
        super().__init__(not mode)
        self._mode_arg = mode

    def _args(self) -> tuple[Any, ...]:
        return (self._mode_arg,)
