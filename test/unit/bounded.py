"""Run a test's action with a time bound: a hang fails the test instead of stalling the suite."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def finishes(action: Callable[[], Any], seconds: float, what: str = "the action") -> Any:
    """``action()``'s result (or its exception, re-raised) if it finishes within
    ``seconds`` in a daemon thread; an AssertionError naming ``what`` otherwise."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = action()
        except BaseException as err:  # noqa: BLE001 - handed back to the test
            outcome["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{what} did not finish within {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
