"""The default decomposition table: one module per family (tags.FAMILIES), each
registering its functions with ``@register_decomposition`` on import. A
one-line algebra comment sits above each decomposition."""

from . import (  # noqa: F401
    conv_pool,
    elementwise,
    factories,
    indexing,
    linalg,
    losses,
    norms,
    reductions,
    scalars,
    views,
)
