"""Small models: MLP, conv + batch norm (train, updating running stats), an
in-place activation on an intermediate."""


class MLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class ConvBN(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)

    def forward(self, x):
        y = self.bn(self.conv(x))
        y.relu_()
        return torch.nn.functional.hardswish(y)


def cases():
    Dim = torch.export.Dim
    return [
        Case("mlp", MLP, inputs=lambda rng: (rng.standard_normal((4, 16), dtype=np.float32),),
             dynamic_shapes={"x": {0: Dim("batch", min=1, max=64)}},
             second=lambda rng: (rng.standard_normal((9, 16), dtype=np.float32),)),
        Case("conv_bn_train", ConvBN, train=True,
             inputs=lambda rng: (rng.standard_normal((2, 3, 8, 8), dtype=np.float32),),
             dynamic_shapes={"x": {0: Dim("batch", min=1, max=16)}},
             second=lambda rng: (rng.standard_normal((5, 3, 8, 8), dtype=np.float32),)),
    ]
