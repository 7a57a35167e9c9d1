"""Issue 16's coverage table: how much of torch's Python surface texport has
(torch.nn module classes, torch.nn.functional, the Tensor API list, the
export/library surface; the counting is test/parity/surface.py, the lists
test/parity/api/).

    python benchmarks/api_coverage.py [-v]

``-v`` lists what texport lacks. Without torch the script says so and exits 0.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("torch") is None:
    print("api_coverage: skipped, torch is not installed (pip install -e '.[parity]')")
    sys.exit(0)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test" / "parity"))

from surface import surfaces  # noqa: E402


def main() -> None:
    verbose = "-v" in sys.argv[1:]
    print(f"{'surface':28} {'torch':>5}  {'texport':>7}")
    for label, theirs, ours in surfaces():
        have = theirs & ours
        print(f"{label:28} {len(theirs):5}  {len(have):7} ({100 * len(have) / len(theirs):.0f}%)")
        if verbose and theirs - ours:
            print("    missing:", ", ".join(sorted(theirs - ours)))


if __name__ == "__main__":
    main()
