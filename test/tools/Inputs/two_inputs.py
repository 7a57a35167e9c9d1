# forward(x, y) with x (4, 3) and y (4, 5): dim 0 can be one dynamic size.
import texport as torch


class Two(torch.nn.Module):
    def forward(self, x, y):
        return x.sum(1) + y.sum(1)


def make_two():
    return Two(), (torch.ones(4, 3), torch.ones(4, 5))
