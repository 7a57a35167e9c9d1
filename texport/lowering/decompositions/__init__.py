"""The default decomposition table: one module per family (tags.FAMILIES), each
registering its functions with ``@register_decomposition`` on import. A
one-line algebra comment sits above each decomposition."""

from texport.dialects.tags import import_families

import_families(__name__)
