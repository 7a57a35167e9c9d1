"""The default decomposition table: one module per family, each registering
its functions with ``@register_decomposition`` on import. A one-line algebra
comment sits above each decomposition."""

from . import conv_pool, elementwise, factories, linalg, losses, reductions, views  # noqa: F401
