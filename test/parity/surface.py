"""How much of torch's Python surface texport has, counted by ``dir()`` as a
new user would try it (issue 16): names present in torch and in texport.
benchmarks/surface.py prints it."""

from __future__ import annotations

import inspect

import torch

import texport


def _module_classes(namespace: object) -> set[str]:
    return {name for name in dir(namespace)
            if inspect.isclass(getattr(namespace, name)) and issubclass(getattr(namespace, name), torch.nn.Module)}


def _public_callables(namespace: object) -> set[str]:
    return {name for name in dir(namespace) if not name.startswith("_") and callable(getattr(namespace, name))}


def surfaces() -> list[tuple[str, set[str], set[str]]]:
    """(label, torch's names, texport's names) per namespace."""
    return [("torch.nn module classes", _module_classes(torch.nn), set(dir(texport.nn))),
            ("torch.nn.functional", _public_callables(torch.nn.functional), set(dir(texport.nn.functional)))]
