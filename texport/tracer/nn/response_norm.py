"""Normalisation across neighbouring channels (torch/nn/modules/normalization.py's
LocalResponseNorm and CrossMapLRN2d)."""

from __future__ import annotations

from ..dispatcher import call
from ..factories import arange
from ..handles import op
from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["CrossMapLRN2d", "LocalResponseNorm"]


class LocalResponseNorm(Module):
    __constants__ = ["size", "alpha", "beta", "k"]
    size: int
    alpha: float
    beta: float
    k: float

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """Lua Torch's cross-map LRN of [N, C, H, W] inputs, as torch's autograd Function
    computes it: x · (k + alpha / size · S)^-beta, S the sum of x² over channels
    c - h + 1 .. c + h - 1 (h = (size - 1) // 2 + 1), plus channel 0's square from
    channel h on (torch's running window never drops channel 0)."""

    size: int
    alpha: float
    beta: float
    k: float

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        half = int((self.size - 1) / 2 + 1)
        channels = input.size(1)
        square = input * input
        width = 2 * half - 1
        padded = F.pad(square.unsqueeze(1), (0, 0, 0, 0, half - 1, half - 1))
        window = call(op("avg_pool3d"), padded, [width, 1, 1], [1, 1, 1]).squeeze(1) * width
        from_half = (arange(channels) >= half).to(input.dtype).view(1, channels, 1, 1)
        scale = window + square[:, :1] * from_half
        return input * (scale * (self.alpha / self.size) + self.k).pow(-self.beta)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
