"""How much of torch's Python surface texport has, counted by ``dir()`` as a
new user would try it: torch.nn module classes and torch.nn.functional
callables present in both (issue 16; the counting is test/parity/surface.py).

    python benchmarks/surface.py [-v]

``-v`` lists what texport lacks. Without torch the script says so and exits 0.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("torch") is None:
    print("surface: skipped, torch is not installed (pip install -e '.[parity]')")
    sys.exit(0)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test" / "parity"))

from surface import surfaces  # noqa: E402


def main() -> None:
    verbose = "-v" in sys.argv[1:]
    for label, theirs, ours in surfaces():
        have = theirs & ours
        print(f"{label:28} torch {len(theirs):4}  texport {len(have):4} ({100 * len(have) / len(theirs):.0f}%)")
        if verbose:
            print("    missing:", ", ".join(sorted(theirs - ours)))


if __name__ == "__main__":
    main()
