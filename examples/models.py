"""The model zoo: real models written only with the public API, exactly as a
torch user writes them (swap the import for ``import torch`` and they run on
torch). Each ``make_<Name>()`` returns ``(model, example_args)``."""

from __future__ import annotations

import math

import texport as torch
import texport.nn as nn
import texport.nn.functional as F

# --------------------------------------------------------------------------
# ConvBN: the seed's M
# --------------------------------------------------------------------------


class ConvBN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 1, 1)
        self.bn = nn.BatchNorm2d(3)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        return (x,)


def make_ConvBN():  # noqa: N802 - factory named after the model
    torch.manual_seed(0)
    return ConvBN(), (torch.randn(1, 1, 3, 3),)


# --------------------------------------------------------------------------
# MLP50: 50 x (Linear(256, 256) + ReLU)
# --------------------------------------------------------------------------


class MLP50(nn.Module):
    def __init__(self, width: int = 256, depth: int = 50) -> None:
        super().__init__()
        layers = []
        for _ in range(depth):
            layers += [nn.Linear(width, width), nn.ReLU()]
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


def make_MLP50():  # noqa: N802
    torch.manual_seed(0)
    return MLP50(), (torch.randn(32, 256),)


# --------------------------------------------------------------------------
# GPT4: 4 pre-LayerNorm transformer blocks
# --------------------------------------------------------------------------


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, max_len: int) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len)).bool())

    def forward(self, x):
        batch, seq, d_model = x.shape
        head = d_model // self.n_heads
        q, k, v = self.qkv(x).split(d_model, dim=2)
        q = q.view(batch, seq, self.n_heads, head).transpose(1, 2)
        k = k.view(batch, seq, self.n_heads, head).transpose(1, 2)
        v = v.view(batch, seq, self.n_heads, head).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head))
        causal = self.mask[:seq, :seq]
        scores = scores.masked_fill(~causal, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        out = (weights @ v).transpose(1, 2).contiguous().view(batch, seq, d_model)
        return self.proj(out)


class Block(nn.Module):
    def __init__(self, d_model: int, n_heads: int, hidden: int, max_len: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads, max_len)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, hidden), nn.GELU(), nn.Linear(hidden, d_model))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT4(nn.Module):
    def __init__(self, d_model: int = 256, n_heads: int = 4, hidden: int = 1024,
                 n_layers: int = 4, max_len: int = 1024) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(
            [Block(d_model, n_heads, hidden, max_len) for _ in range(n_layers)]
        )
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)


def make_GPT4():  # noqa: N802
    torch.manual_seed(0)
    return GPT4(), (torch.randn(2, 128, 256),)


# --------------------------------------------------------------------------
# ResNet18: torchvision's layout, written by hand
# --------------------------------------------------------------------------


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes: int, planes: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or in_planes != planes:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False),
                nn.BatchNorm2d(planes),
            )

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet18(nn.Module):
    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._layer(64, 64, 1)
        self.layer2 = self._layer(64, 128, 2)
        self.layer3 = self._layer(128, 256, 2)
        self.layer4 = self._layer(256, 512, 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)

    @staticmethod
    def _layer(in_planes: int, planes: int, stride: int) -> nn.Sequential:
        return nn.Sequential(BasicBlock(in_planes, planes, stride), BasicBlock(planes, planes, 1))

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def make_ResNet18():  # noqa: N802
    torch.manual_seed(0)
    return ResNet18(), (torch.randn(1, 3, 224, 224),)


# --------------------------------------------------------------------------
# TinyLSTM: an LSTM cell from Linear layers, unrolled in a Python loop
# --------------------------------------------------------------------------


class LSTMCell(nn.Module):
    def __init__(self, input_size: int, hidden: int) -> None:
        super().__init__()
        self.input_map = nn.Linear(input_size, 4 * hidden)
        self.hidden_map = nn.Linear(hidden, 4 * hidden, bias=False)

    def forward(self, x, h, c):
        gates = self.input_map(x) + self.hidden_map(h)
        i, f, g, o = gates.chunk(4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c


class TinyLSTM(nn.Module):
    def __init__(self, input_size: int = 64, hidden: int = 128, steps: int = 16) -> None:
        super().__init__()
        self.hidden = hidden
        self.steps = steps
        self.cell = LSTMCell(input_size, hidden)
        self.head = nn.Linear(hidden, input_size)

    def forward(self, xs):
        batch = xs.shape[0]
        h = torch.zeros(batch, self.hidden)
        c = torch.zeros(batch, self.hidden)
        for t in range(self.steps):
            h, c = self.cell(xs[:, t], h, c)
        return self.head(h)


def make_TinyLSTM():  # noqa: N802
    torch.manual_seed(0)
    return TinyLSTM(), (torch.randn(4, 16, 64),)


# --------------------------------------------------------------------------
# LSTMScan: the TinyLSTM cell run with torch.scan (static or dynamic steps)
# --------------------------------------------------------------------------


class LSTMScan(nn.Module):
    def __init__(self, input_size: int = 64, hidden: int = 128) -> None:
        super().__init__()
        self.hidden = hidden
        self.cell = LSTMCell(input_size, hidden)
        self.head = nn.Linear(hidden, input_size)

    def forward(self, xs):
        batch = xs.shape[0]
        init = (torch.zeros(batch, self.hidden), torch.zeros(batch, self.hidden))

        def step(carry, x):
            h, c = self.cell(x, *carry)
            return (h, c), h

        (h, _), hs = torch.scan(step, init, xs.transpose(0, 1))
        return self.head(h), hs


def make_LSTMScan():  # noqa: N802
    torch.manual_seed(0)
    return LSTMScan(), (torch.randn(4, 16, 64),)


# --------------------------------------------------------------------------
# EarlyExit: the second half runs only when the first half is confident
# --------------------------------------------------------------------------


class EarlyExit(nn.Module):
    def __init__(self, width: int = 64) -> None:
        super().__init__()
        self.first = nn.Sequential(nn.Linear(width, width), nn.ReLU())
        self.second = nn.Sequential(nn.Linear(width, width), nn.Tanh(), nn.Linear(width, width))

    def forward(self, x):
        h = self.first(x)
        return torch.cond(h.mean() > 0.1, lambda h: h * 1.0, lambda h: self.second(h), (h,))


def make_EarlyExit():  # noqa: N802
    torch.manual_seed(0)
    return EarlyExit(), (torch.randn(8, 64),)


ZOO = {
    "ConvBN": make_ConvBN,
    "MLP50": make_MLP50,
    "GPT4": make_GPT4,
    "ResNet18": make_ResNet18,
    "TinyLSTM": make_TinyLSTM,
    "LSTMScan": make_LSTMScan,
    "EarlyExit": make_EarlyExit,
}
