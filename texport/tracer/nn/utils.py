"""Argument helpers shared by layers and functionals (torch.nn.modules.utils)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def _ntuple(n: int) -> Callable[[Any], tuple[Any, ...]]:
    """``_pair(3) == (3, 3)``; an iterable is kept as a tuple."""

    def parse(x: Any) -> tuple[Any, ...]:
        if isinstance(x, Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(x for _ in range(n))

    return parse


_single = _ntuple(1)
_pair = _ntuple(2)
_triple = _ntuple(3)


def _reverse_repeat_tuple(t: tuple[Any, ...], n: int) -> tuple[Any, ...]:
    """``(1, 2)`` → ``(2, 2, 1, 1)``: conv padding in F.pad's last-dim-first order."""
    return tuple(x for x in reversed(t) for _ in range(n))
