"""The design card's layering: each component folder imports only the folders
listed before it (dialects, interpreter, tracer, lowering, texport, bridge, tools;
texport/export and texport/backends are texport's own), so that, e.g., dialects
reach texport's canonicalization rules through a registry lowering fills, never
by importing lowering; and no module imports itself through others. Optional
packages (torch, IREE) are imported by one folder each."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

LAYERS = ("dialects", "interpreter", "tracer", "lowering", "texport", "bridge", "tools")
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


# --------------------------------------------------------------------------
# No import cycles (the design card): every import counts, also one inside a
# function or under TYPE_CHECKING, since hiding an arrow does not remove it.
# --------------------------------------------------------------------------


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in (ROOT / "texport").rglob("*.py")}


def _imported_modules(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            for alias in node.names:  # `from P import m` imports the module P.m when there is one
                target = f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
                if target in known:
                    yield target


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (as a path that ends where it starts), or []."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        state[node] = "done"
        stack.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_module_imports_itself_through_others() -> None:
    known = _modules()
    graph = {name: set(_imported_modules(name, path, known)) - {name} for name, path in known.items()}
    cycle = _cycle(graph)
    assert not cycle, "import cycle: " + " -> ".join(cycle)


# optional packages, each imported by one folder only (and there only when called)
OPTIONAL_PACKAGES = {"torch": "bridge", "iree": "backends"}


@pytest.mark.parametrize("package", OPTIONAL_PACKAGES)
def test_only_its_folder_imports_an_optional_package(package: str) -> None:
    """torch is optional: texport/bridge is the one place that may import it; IREE too,
    for texport/backends (every import counts, also one inside a function)."""
    folder = OPTIONAL_PACKAGES[package]
    wrong = []
    for path in (ROOT / "texport").rglob("*.py"):
        if folder in path.relative_to(ROOT / "texport").parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
            wrong += [f"{path.relative_to(ROOT)}:{node.lineno} imports {name}" for name in names
                      if name.split(".")[0] == package]
    assert not wrong, "\n".join(wrong)


def test_the_backends_import_iree_only_when_called() -> None:
    """A backend module imports IREE inside functions, so ``texport.backends.iree`` loads
    (and says how to install IREE) without it."""
    for path in (ROOT / "texport" / "backends").rglob("*.py"):
        tree = ast.parse(path.read_text())
        top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
        names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names] + \
            [n.module for n in top if isinstance(n, ast.ImportFrom) and n.module]
        assert not [n for n in names if n.split(".")[0] == "iree"], path
