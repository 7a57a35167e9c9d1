"""The design card's layering: each component folder imports only the folders
listed before it (dialects, interpreter, tracer, lowering, texport, tools), so
that, e.g., dialects reach texport's canonicalization rules through a registry
lowering fills, never by importing lowering."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

LAYERS = ("dialects", "interpreter", "tracer", "lowering", "texport", "tools")
ROOT = Path(__file__).resolve().parents[2]


def _sources(layer: str) -> Iterator[Path]:
    package = ROOT / "texport"
    if layer != "texport":
        yield from (package / layer).rglob("*.py")
        return
    for path in package.iterdir():  # texport's own files, not the component folders
        if path.name in LAYERS or path.is_symlink():
            continue
        yield from ([path] if path.suffix == ".py" else path.rglob("*.py"))


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "texport":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "texport"


def _imported_layers(path: Path) -> Iterator[tuple[str, int]]:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            layer = _layer_of(name)
            if layer is not None:
                yield layer, node.lineno


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_the_layers_before_it(layer: str) -> None:
    allowed = set(LAYERS[:LAYERS.index(layer) + 1])
    wrong = [f"{path.relative_to(ROOT)}:{line} imports texport.{imported}"
             for path in _sources(layer) for imported, line in _imported_layers(path) if imported not in allowed]
    assert not wrong, "\n".join(wrong)
