"""Differential checks of the bridge against real torch, shared by the third-party
and corpus tests and the benchmark: a torch program imported into texport runs on
texport's interpreter with torch's numbers, keeps torch's graph signature, prints
and parses back, lowers to torch's core op multiset; ``to_torch(from_torch(ep))``
runs in torch with torch's numbers and keeps the signature.

The numbers compared are always torch's own (its eager model's), never texport
against itself.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

import texport

LEVELS = ("training", "functional", "core")


def torch_at_level(torch_ep: Any, level: str) -> Any:
    """torch's program at a level: training as exported, functional, core."""
    if level == "training":
        return torch_ep
    return torch_ep.run_decompositions({} if level == "functional" else None)


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------


def to_texport(value: Any) -> Any:
    """torch tensors (nested in tuples, lists, dicts) as texport tensors with the same bytes."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return texport.from_numpy(np.array(value.detach().numpy(), copy=True))
    if isinstance(value, dict):
        return {k: to_texport(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_texport(v) for v in value)
    return value


def fresh_torch(value: Any) -> Any:
    """A copy of torch inputs (a program may write into its inputs)."""
    if hasattr(value, "detach") and hasattr(value, "clone"):
        return value.detach().clone()
    if isinstance(value, dict):
        return {k: fresh_torch(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(fresh_torch(v) for v in value)
    return value


def leaves(value: Any) -> list[Any]:
    """Outputs of either framework as a flat list of numpy arrays and Python values."""
    if isinstance(value, dict):
        return [leaf for key in value for leaf in leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in leaves(item)]
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "numpy") and callable(value.numpy):
        return [np.asarray(value.numpy())]
    return [value]


def assert_same_numbers(want: Any, got: Any, rtol: float, atol: float, where: str) -> float:
    """Equal structure, dtypes, shapes and values (float within tolerances); returns
    the largest absolute difference of the float values."""
    want_leaves, got_leaves = leaves(want), leaves(got)
    assert len(got_leaves) == len(want_leaves), \
        f"{where}: {len(got_leaves)} output values, torch has {len(want_leaves)}"
    worst = 0.0
    for index, (w, g) in enumerate(zip(want_leaves, got_leaves)):
        label = f"{where}, output value {index}"
        if not isinstance(w, np.ndarray):
            assert g == w, f"{label}: {g!r}, torch {w!r}"
            continue
        g = np.asarray(g)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), \
            f"{label}: {g.dtype}{list(g.shape)}, torch {w.dtype}{list(w.shape)}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=label)
        if w.dtype.kind == "f" and w.size:
            worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))))
    return worst


# --------------------------------------------------------------------------
# Running programs
# --------------------------------------------------------------------------


def run_texport_program(ep: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> Any:
    """texport's interpreter on torch's inputs (the same bytes as texport tensors)."""
    return ep.module()(*to_texport(args), **to_texport(kwargs or {}))


# --------------------------------------------------------------------------
# Text and archives
# --------------------------------------------------------------------------


def assert_prints_and_parses(ep: Any, where: str) -> None:
    """The printed IR parses, verifies and prints back to the same text."""
    from texport.dialects.context import parse_module, print_module, verify_module

    text = ep.mlir()
    module = parse_module(text, name=where)
    verify_module(module)
    assert print_module(module) == text, f"{where}: the IR parsed back prints differently"


def saved_and_loaded(ep: Any) -> Any:
    """The program through texport's archive (IR text, signature, state) and back."""
    buffer = io.BytesIO()
    texport.export.save(ep, buffer)
    buffer.seek(0)
    return texport.export.load(buffer)


# --------------------------------------------------------------------------
# Signatures
# --------------------------------------------------------------------------


def signature_lines(signature: Any) -> list[str]:
    """A graph signature as comparable lines: every input and output kind, name,
    target and persistent flag."""
    lines = []
    for spec in signature.input_specs:
        lines.append(f"in {spec.kind.name} {_arg_name(spec.arg)} {spec.target} {getattr(spec, 'persistent', None)}")
    for spec in signature.output_specs:
        lines.append(f"out {spec.kind.name} {_arg_name(spec.arg)} {spec.target}")
    return lines


def _arg_name(arg: Any) -> str:
    name = getattr(arg, "name", None)
    return name if name is not None else f"const={getattr(arg, 'value', arg)!r}"
