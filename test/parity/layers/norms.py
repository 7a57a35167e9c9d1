"""Normalization layers, eval and train."""


class Layer(torch.nn.Module):
    def __init__(self, layer) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)


class RMSNorm(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(8))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def _x(*shape):
    return lambda rng: (rng.standard_normal(shape, dtype=np.float32),)


def cases():
    nn = torch.nn
    Dim = torch.export.Dim
    batch = {"x": {0: Dim("batch", min=2, max=16)}}
    layers = {
        "layer_norm": (lambda: nn.LayerNorm(8), (2, 3, 8), False),
        "layer_norm_no_affine": (lambda: nn.LayerNorm([3, 8], elementwise_affine=False), (2, 3, 8), False),
        "group_norm": (lambda: nn.GroupNorm(2, 4), (2, 4, 5, 5), False),
        "batch_norm2d_eval": (lambda: nn.BatchNorm2d(4), (2, 4, 5, 5), False),
        "batch_norm2d_train": (lambda: nn.BatchNorm2d(4), (2, 4, 5, 5), True),
        "batch_norm1d_train": (lambda: nn.BatchNorm1d(4), (3, 4), True),
        "batch_norm1d_eval_3d": (lambda: nn.BatchNorm1d(4), (3, 4, 6), False),
        "rms_norm_manual": (RMSNorm, (2, 3, 8), False),
    }
    cases = [Case(name, (lambda make=make: Layer(make())), inputs=_x(*shape), train=train)
             for name, (make, shape, train) in layers.items()]
    cases += [Case(f"{name}_dynamic", (lambda make=make: Layer(make())), inputs=_x(*shape), train=train,
                   dynamic_shapes=batch, second=_x(5, *shape[1:]))
              for name, (make, shape, train) in layers.items() if name in ("layer_norm", "group_norm",
                                                                           "batch_norm2d_eval")]
    return cases
