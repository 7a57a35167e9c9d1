"""Issue 16, item 6: the ATen overloads torch's own operator tests reach (the
OpInfo samples of op_db in float32, int64, bool, float16 and complex64), how
many texport has a handle for and how many match torch when replayed on
texport eager (the harness is test/parity/opinfo.py).

    python benchmarks/opinfo_coverage.py [-v] [--refresh] [--dtypes float32,int64]

``-v`` lists the missing, erroring and wrong overloads, grouped by family,
with the first failure. ``--refresh`` re-records torch's calls (otherwise a
cache under the temporary folder is reused). Without torch the script says so
and exits 0.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import sys
import time
from pathlib import Path

if importlib.util.find_spec("torch") is None:
    print("opinfo_coverage: skipped, torch is not installed (pip install -e '.[parity]')")
    sys.exit(0)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test" / "parity"))

import opinfo  # noqa: E402


def _percent(part: int, whole: int) -> str:
    return f"{part:4} ({100 * part / max(whole, 1):.1f}%)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", action="store_true", help="list what does not match, by family")
    parser.add_argument("--refresh", action="store_true", help="re-record torch's calls")
    parser.add_argument("--dtypes", default=",".join(opinfo.DTYPES))
    options = parser.parse_args()
    dtypes = tuple(options.dtypes.split(","))

    start = time.perf_counter()
    calls = opinfo.record(dtypes=dtypes, refresh=options.refresh)
    recorded = time.perf_counter()
    results = opinfo.run(calls)
    replayed = time.perf_counter()

    counts = collections.Counter(r.status for r in results.values())
    total = len(results)
    print(f"ATen overloads reached by torch's OpInfo samples ({', '.join(dtypes)}; "
          f"{len(calls)} calls; record {recorded - start:.0f} s, replay {replayed - recorded:.0f} s)")
    print(f"  reached            {total:4}")
    print(f"  with a handle      {_percent(total - counts['missing'], total)}")
    print(f"  matching torch     {_percent(counts['match'], total)}")
    print(f"  error / wrong      {counts['error']:4} / {counts['wrong']}")
    if not options.v:
        return
    for status in ("missing", "error", "wrong"):
        by_family: dict[str, list[opinfo.Result]] = collections.defaultdict(list)
        for result in results.values():
            if result.status == status:
                by_family[opinfo.family(result.overload, result.ops)].append(result)
        if not by_family:
            continue
        print(f"\n{status} ({counts[status]}):")
        for name in sorted(by_family):
            print(f"  [{name}]")
            for result in sorted(by_family[name], key=lambda r: r.overload):
                detail = f"  {result.message}" if result.message else ""
                print(f"    {result.overload}{detail}")


if __name__ == "__main__":
    main()
