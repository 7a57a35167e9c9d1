"""Fixtures shared by the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from texport.dialects import bootstrap
from texport.dialects.registry import Registry


@pytest.fixture
def restore_registries() -> Iterator[None]:
    """A test that registers ops (custom ops, decompositions) leaves every
    registry as it found it."""
    bootstrap.start_all()
    with Registry.restored():
        yield


@pytest.fixture(scope="module")
def restore_registries_after_module() -> Iterator[None]:
    """The same, for a module whose tests share the ops a fixture registers."""
    bootstrap.start_all()
    with Registry.restored():
        yield


@pytest.fixture(scope="session", autouse=True)
def registries_unchanged_by_the_suite() -> Iterator[None]:
    """Fails the run when a test leaves an op registered (it must restore)."""
    bootstrap.start_all()
    before = {registry.concern: set(registry.keys()) for registry in Registry._all}
    yield
    after = {registry.concern: set(registry.keys()) for registry in Registry._all}
    leaked = {concern: sorted(keys - before.get(concern, set()))
              for concern, keys in after.items() if keys != before.get(concern, set())}
    assert not leaked, f"tests left these registrations behind: {leaked}"
