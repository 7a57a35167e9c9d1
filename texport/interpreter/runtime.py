"""Helpers the generated plans call for control flow (cond, map, scan, while_loop)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Region = Callable[..., tuple[Any, ...]]


def run_cond(pred: Any, true_fn: Region, false_fn: Region, operands: tuple[Any, ...]) -> tuple[Any, ...]:
    """torch.cond: one branch runs."""
    return (true_fn if bool(pred) else false_fn)(*operands)


def run_map(body: Region, xs: Sequence[np.ndarray], args: Sequence[Any]) -> tuple[Any, ...]:
    """map: the body on each leading slice of ``xs``; outputs stacked on dim 0."""
    length = xs[0].shape[0]
    steps = [body(*(x[i] for x in xs), *args) for i in range(length)]
    if not steps:
        raise RuntimeError("control.map over zero slices cannot infer its output shapes")
    return tuple(np.stack([np.asarray(step[k]) for step in steps]) for k in range(len(steps[0])))


def run_scan(body: Region, init: Sequence[Any], xs: Sequence[np.ndarray], extra: Sequence[Any],
             reverse: bool = False) -> tuple[Any, ...]:
    """scan: carries threaded through the body; per-step outputs stacked."""
    carries = list(init)
    length = xs[0].shape[0] if xs else 0
    order = range(length - 1, -1, -1) if reverse else range(length)
    outputs: list[tuple[Any, ...]] = []
    for i in order:
        result = body(*carries, *(x[i] for x in xs), *extra)
        carries = list(result[: len(carries)])
        outputs.append(result[len(carries):])
    if reverse:
        outputs.reverse()
    n_out = len(outputs[0]) if outputs else 0
    stacked = tuple(np.stack([np.asarray(step[k]) for step in outputs]) for k in range(n_out))
    return (*carries, *stacked)


def run_while(cond: Region, body: Region, carried: Sequence[Any], extra: Sequence[Any]) -> tuple[Any, ...]:
    """while_loop: run the body while cond yields true."""
    values = tuple(carried)
    while bool(cond(*values, *extra)[0]):
        values = tuple(body(*values, *extra))
    return values


RUNTIME_HELPERS = {"run_cond": run_cond, "run_map": run_map, "run_scan": run_scan, "run_while": run_while}
