"""Scalars read from tensors: item is _local_scalar_dense of the core set."""

from __future__ import annotations

from typing import Any

from ._common import Tensor, aten, register_decomposition


# item(x) = _local_scalar_dense(x)
@register_decomposition(aten.item.default)
def item(self: Tensor) -> Any:
    return aten._local_scalar_dense.default(self)
