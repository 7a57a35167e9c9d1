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


class LayerNormGrads(torch.nn.Module):
    """layer norm's backward called as an op (torch's default table decomposes it):
    with weight and bias over the last dim, and without over the last two."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8))
        self.bias = torch.nn.Parameter(torch.randn(8))

    def forward(self, x):
        forward, backward = torch.ops.aten.native_layer_norm.default, torch.ops.aten.native_layer_norm_backward.default
        grad = x.flip(0)
        _, mean, rstd = forward(x, [8], self.weight, self.bias, 1e-5)
        full = backward(grad, x, [8], mean, rstd, self.weight, self.bias, [True, True, True])
        _, mean2, rstd2 = forward(x, [3, 8], None, None, 1e-5)
        return full, backward(grad, x, [3, 8], mean2, rstd2, None, None, [True, False, False])[0]


class GroupNormGrads(torch.nn.Module):
    """group norm's backward called as an op (torch's default table decomposes it)."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(4))
        self.bias = torch.nn.Parameter(torch.randn(4))

    def forward(self, x):
        _, mean, rstd = torch.ops.aten.native_group_norm.default(x, self.weight, self.bias, 2, 4, 15, 2, 1e-5)
        backward = torch.ops.aten.native_group_norm_backward.default
        grad = x.flip(0)
        return (backward(grad, x, mean, rstd, self.weight, 2, 4, 15, 2, [True, True, True]),
                backward(grad * 2, x, mean, rstd, self.weight, 2, 4, 15, 2, [False, True, False]))


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
        "rms_norm": (lambda: nn.RMSNorm(8), (2, 3, 8), False),
        "rms_norm_2d_eps_no_affine": (lambda: nn.RMSNorm([3, 8], eps=1e-3, elementwise_affine=False), (2, 3, 8),
                                      False),
        "instance_norm1d": (lambda: nn.InstanceNorm1d(4), (2, 4, 7), False),
        "instance_norm2d_affine": (lambda: nn.InstanceNorm2d(4, affine=True), (2, 4, 5, 5), False),
        "instance_norm3d_no_bias": (lambda: nn.InstanceNorm3d(3, affine=True, bias=False), (2, 3, 4, 4, 4), False),
        "instance_norm2d_tracked_eval": (lambda: nn.InstanceNorm2d(4, affine=True, track_running_stats=True),
                                         (2, 4, 5, 5), False),
        "instance_norm2d_tracked_train": (lambda: nn.InstanceNorm2d(4, track_running_stats=True), (2, 4, 5, 5),
                                          True),
    }
    cases = [Case(name, (lambda make=make: Layer(make())), inputs=_x(*shape), train=train)
             for name, (make, shape, train) in layers.items()]
    cases += [Case(f"{name}_dynamic", (lambda make=make: Layer(make())), inputs=_x(*shape), train=train,
                   dynamic_shapes=batch, second=_x(5, *shape[1:]))
              for name, (make, shape, train) in layers.items() if name in ("layer_norm", "group_norm",
                                                                           "batch_norm2d_eval", "rms_norm",
                                                                           "instance_norm2d_affine")]
    cases.append(Case("layer_norm_backward", LayerNormGrads, inputs=_x(2, 3, 8)))
    cases.append(Case("group_norm_backward", GroupNormGrads, inputs=_x(2, 4, 3, 5)))
    return cases
