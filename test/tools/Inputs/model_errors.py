# Models whose own code fails, one factory each (texport-export-errors.py uses them).
import sys

import texport as torch


def down(x):
    return down(x + 1)


class Recurses(torch.nn.Module):
    def forward(self, x):
        return down(x)


class Divides(torch.nn.Module):
    count = 0

    def forward(self, x):
        return x * (1 / self.count)


class Interrupted(torch.nn.Module):
    def forward(self, x):
        raise KeyboardInterrupt


class Exits(torch.nn.Module):
    def forward(self, x):
        sys.exit(3)


def make_recurses():
    return Recurses(), (torch.ones(2),)


def make_divides():
    return Divides(), (torch.ones(2),)


def make_interrupted():
    return Interrupted(), (torch.ones(2),)


def make_exits():
    return Exits(), (torch.ones(2),)


def make_fails_to_make():
    return Divides(), (torch.ones(2) / [],)


class Branches(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


def make_branches():
    return Branches(), (torch.ones(2),)
