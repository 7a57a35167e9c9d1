"""How much of torch's Python surface texport has, counted as a new user would
try it (issue 16): by ``dir()`` for torch.nn and torch.nn.functional, and by
the name lists in test/parity/api/ for the Tensor API and the export/library
surface. benchmarks/api_coverage.py prints it."""

from __future__ import annotations

import inspect
from pathlib import Path

import torch

import texport

API_LISTS = Path(__file__).resolve().parent / "api"

# Module classes issue 16 leaves out: lazy, multi-process and quantised ones.
OUT_OF_SCOPE_MODULES = ("Lazy", "DataParallel", "SyncBatchNorm")


def _module_classes(namespace: object) -> set[str]:
    return {name for name in dir(namespace)
            if inspect.isclass(getattr(namespace, name)) and issubclass(getattr(namespace, name), torch.nn.Module)}


def _public_callables(namespace: object) -> set[str]:
    return {name for name in dir(namespace) if not name.startswith("_") and callable(getattr(namespace, name))}


def listed_names(file_name: str) -> list[str]:
    """The dotted names of one list in test/parity/api/, in file order."""
    lines = (API_LISTS / file_name).read_text().splitlines()
    return [name for line in lines if not line.startswith("#") for name in line.split()]


def _roots(package: object) -> dict[str, object]:
    # An exported program, not its class: torch sets most members in __init__.
    program = package.export.export(package.nn.Linear(2, 2), (package.randn(1, 2),))
    return {"torch": package, "Tensor": package.Tensor,
            "ExportedProgram": program, "ExportGraphSignature": program.graph_signature}


def resolves(package: object, dotted: str) -> bool:
    """Whether ``dotted`` (rooted at torch, Tensor, ExportedProgram or
    ExportGraphSignature) names something in ``package``."""
    head, *path = dotted.split(".")
    owner = _roots(package)[head]
    for name in path:
        if not hasattr(owner, name):
            return False
        owner = getattr(owner, name)
    return True


def _listed(file_name: str) -> tuple[set[str], set[str]]:
    names = listed_names(file_name)
    return ({n for n in names if resolves(torch, n)}, {n for n in names if resolves(texport, n)})


def surfaces() -> list[tuple[str, set[str], set[str]]]:
    """(label, torch's names, texport's names) per namespace."""
    modules = _module_classes(torch.nn)
    in_scope = {name for name in modules if not name.startswith(OUT_OF_SCOPE_MODULES)}
    return [("torch.nn module classes", modules, set(dir(texport.nn))),
            ("  in issue 16's scope", in_scope, set(dir(texport.nn))),
            ("torch.nn.functional", _public_callables(torch.nn.functional), set(dir(texport.nn.functional))),
            ("Tensor API list", *_listed("tensor_api.txt")),
            ("export/library surface", *_listed("export_api.txt"))]
