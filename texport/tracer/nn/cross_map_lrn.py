"""CrossMapLRN2d: torch's legacy (Lua Torch) local response norm across channels.

torch runs it as an autograd Function of in-place tensor updates that
torch.export cannot trace (it fails on ``resize_as_``), so it is an eager
layer. Its window is torch's: channels ``c - pre_pad + 1 .. c + pre_pad - 1``
(``pre_pad = (size - 1) // 2 + 1``), except that the sliding sum never drops
channel 0, a quirk of the original loop kept here."""

from __future__ import annotations

from ..factories import tensor, zeros_like
from ..functions import cat
from ..tensor import Tensor
from .module import Module

__all__ = ["CrossMapLRN2d"]


class CrossMapLRN2d(Module):
    """x / (k + alpha / size * sum of x² over the channel window) ** beta, for 4-D inputs."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        channels = input.size(1)
        pre_pad = int((self.size - 1) / 2 + 1)
        square = input * input
        # below[:, i] = sum of square[:, :i]: a window's sum is a difference of two of them
        below = cat([zeros_like(square[:, :1]), square.cumsum(1)], 1)
        last = [min(c + pre_pad - 1, channels - 1) + 1 for c in range(channels)]
        first = [max(1, c - pre_pad + 1) for c in range(channels)]
        window = (below.index_select(1, tensor(last)) - below.index_select(1, tensor(first))
                  + square[:, :1])
        scale = window * (self.alpha / self.size) + self.k
        return scale.pow(-self.beta) * input

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"

