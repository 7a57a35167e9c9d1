"""The default decomposition table: one module per family, each registering
its functions with ``@register_decomposition`` on import. A one-line algebra
comment sits above each decomposition."""

from . import factories, linalg, losses, maths, nn, reductions, views  # noqa: F401
