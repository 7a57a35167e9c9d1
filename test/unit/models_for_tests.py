"""Small models the lowering tests share."""

from __future__ import annotations

import texport as torch


class ConvBN(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 3, 1, 1)
        self.bn = torch.nn.BatchNorm2d(3)

    def forward(self, x):  # noqa: ANN001, ANN201
        return (self.bn(self.conv(x)),)


def conv_bn(train: bool = True) -> torch.export.ExportedProgram:
    torch.manual_seed(0)
    model = ConvBN()
    model.train(train)
    return torch.export.export(model, (torch.randn(1, 1, 3, 3),))
