"""The bridge's tests need real torch (``pip install -e ".[parity]"``, or
``texport[torch]``); the third-party models also need ``.[models]``. Without them
every test here is skipped (each module starts with ``pytest.importorskip``).

The support modules (``models``: the third-party models and torchvision's shim;
``differential``: the checks against torch) are imported by name, as the parity
folder's harness is, which the corpus checks reuse."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
for folder in (HERE, HERE.parent / "parity"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A module's ``KNOWN_FAILURES`` (test id -> reason) are strict xfails: a test
    that starts passing must leave its table."""
    for item in items:
        if HERE not in Path(item.path).parents:  # the hook sees the whole session's items
            continue
        reason = getattr(getattr(item, "module", None), "KNOWN_FAILURES", {}).get(item.name)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
