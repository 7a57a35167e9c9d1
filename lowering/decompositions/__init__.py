"""The default decomposition table: one module per family (tags.FAMILIES), each
registering its functions with ``@register_decomposition`` on import. A
one-line algebra comment sits above each decomposition."""

import importlib

from texport.dialects.tags import FAMILIES

for _family in FAMILIES:
    importlib.import_module(f"{__name__}.{_family}")
