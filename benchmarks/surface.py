"""How much of torch's Python surface texport has, counted by ``dir()`` as a
new user would try it: torch.nn module classes and torch.nn.functional
callables present in both (issue 16).

    python benchmarks/surface.py [-v]

``-v`` lists what texport lacks. Without torch the script says so and exits 0.
"""

from __future__ import annotations

import inspect
import sys

try:
    import torch
except ImportError:
    print("surface: skipped, torch is not installed (pip install -e '.[parity]')")
    sys.exit(0)

import texport


def module_classes(namespace: object, base: type) -> set[str]:
    return {name for name in dir(namespace)
            if inspect.isclass(getattr(namespace, name)) and issubclass(getattr(namespace, name), base)}


def public_callables(namespace: object) -> set[str]:
    return {name for name in dir(namespace) if not name.startswith("_") and callable(getattr(namespace, name))}


def report(label: str, theirs: set[str], ours: set[str], verbose: bool) -> None:
    have = theirs & ours
    print(f"{label:28} torch {len(theirs):4}  texport {len(have):4} ({100 * len(have) / len(theirs):.0f}%)")
    if verbose:
        print("    missing:", ", ".join(sorted(theirs - ours)))


def main() -> None:
    verbose = "-v" in sys.argv[1:]
    report("torch.nn module classes", module_classes(torch.nn, torch.nn.Module), set(dir(texport.nn)), verbose)
    report("torch.nn.functional", public_callables(torch.nn.functional), set(dir(texport.nn.functional)), verbose)


if __name__ == "__main__":
    main()
