"""Start-up stage "shape rules" (dialects/bootstrap.py): the rule module of every
family (each registers on import), then the rules derived from theirs: in-place
variants and view copies."""

from __future__ import annotations

from ..tags import import_families
from .variants import derive_rules


def load_all() -> None:
    import_families(__package__)
    derive_rules()
