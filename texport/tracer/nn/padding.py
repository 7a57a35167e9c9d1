"""Padding layers: constant (and zero), reflection, replication and circular
padding of the last 1, 2 or 3 dims, each a call of F.pad (aten.pad)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tensor import Tensor
from . import functional as F
from .module import Module
from .utils import _ntuple

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d",
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]


class _PadNd(Module):
    """Pads the last ``_SPATIAL_DIMS`` dims; ``padding`` is one int or 2 per dim, last dim first."""

    _SPATIAL_DIMS = 1
    _MODE = "constant"
    padding: Sequence[int]

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(2 * self._SPATIAL_DIMS)(padding)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pad(input, self.padding, self._MODE)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _MODE = "circular"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        # torch checks the rank only here: circular padding needs a batch or channel dim
        dims = self._SPATIAL_DIMS
        if input.dim() not in (dims + 1, dims + 2):
            raise ValueError(f"expected {dims + 1}D or {dims + 2}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    _SPATIAL_DIMS = 1


class CircularPad2d(_CircularPadNd):
    _SPATIAL_DIMS = 2


class CircularPad3d(_CircularPadNd):
    _SPATIAL_DIMS = 3


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _SPATIAL_DIMS = 1


class ConstantPad2d(_ConstantPadNd):
    _SPATIAL_DIMS = 2


class ConstantPad3d(_ConstantPadNd):
    _SPATIAL_DIMS = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    _SPATIAL_DIMS, _MODE = 1, "reflect"


class ReflectionPad2d(_PadNd):
    _SPATIAL_DIMS, _MODE = 2, "reflect"


class ReflectionPad3d(_PadNd):
    _SPATIAL_DIMS, _MODE = 3, "reflect"


class ReplicationPad1d(_PadNd):
    _SPATIAL_DIMS, _MODE = 1, "replicate"


class ReplicationPad2d(_PadNd):
    _SPATIAL_DIMS, _MODE = 2, "replicate"


class ReplicationPad3d(_PadNd):
    _SPATIAL_DIMS, _MODE = 3, "replicate"
