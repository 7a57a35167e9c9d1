"""Activations and pointwise maths, one function each."""


class Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _x(rng):
    return (rng.standard_normal((3, 8), dtype=np.float32) * 4,)


def _lerp(x):
    return x.lerp(torch.zeros_like(x), 0.1) + torch.lerp(x, x * 2, torch.full_like(x, 0.3))


def cases():
    functions = {
        "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu,
        "softmax": lambda x: F.softmax(x, dim=-1), "log_softmax": lambda x: F.log_softmax(x, dim=-1),
        "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "relu6": F.relu6, "relu": F.relu,
        "leaky_relu": F.leaky_relu, "elu": F.elu, "tanh_sigmoid": lambda x: torch.tanh(x) + torch.sigmoid(x),
        "lerp": _lerp, "clamp": lambda x: torch.clamp(x, -0.5, 0.5), "clamp_min": lambda x: x.clamp(min=0.0),
        "where": lambda x: torch.where(x > 0, x, x * 2), "where_scalar": lambda x: torch.where(x > 0, x, 0.0),
        "rsqrt_pow": lambda x: torch.rsqrt(x.pow(2) + 1.0),
    }
    return [Case(name, (lambda fn=fn: Fn(fn)), inputs=_x) for name, fn in functions.items()] + layer_cases()


class Layer(torch.nn.Module):
    """An activation layer, applied to ``2x`` when it writes in place (so the
    example input stays the caller's)."""

    def __init__(self, layer) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x * 2 if getattr(self.layer, "inplace", False) else x)


def _image(rng):
    return (rng.standard_normal((2, 3, 4, 5), dtype=np.float32) * 2,)


def layer_cases():
    nn = torch.nn
    layers = {
        "SELU": lambda: nn.SELU(), "SELU_inplace": lambda: nn.SELU(inplace=True),
        "CELU": lambda: nn.CELU(), "CELU_alpha": lambda: nn.CELU(0.5),
        "CELU_inplace": lambda: nn.CELU(0.5, inplace=True), "Softmin": lambda: nn.Softmin(dim=1),
        "LogSigmoid": lambda: nn.LogSigmoid(), "Softsign": lambda: nn.Softsign(),
        "Softshrink": lambda: nn.Softshrink(), "Softshrink_lambd": lambda: nn.Softshrink(0.3),
        "Hardshrink": lambda: nn.Hardshrink(), "Hardshrink_lambd": lambda: nn.Hardshrink(1.5),
        "Tanhshrink": lambda: nn.Tanhshrink(), "Threshold": lambda: nn.Threshold(0.1, 20.0),
        "Threshold_inplace": lambda: nn.Threshold(-0.5, 3.0, inplace=True),
        "PReLU": lambda: nn.PReLU(), "PReLU_channels": lambda: nn.PReLU(3, init=0.1),
        "Softmax2d": lambda: nn.Softmax2d(),
        "RReLU_eval": lambda: nn.RReLU().eval(), "RReLU_eval_bounds": lambda: nn.RReLU(0.1, 0.5).eval(),
        "RReLU_eval_inplace": lambda: nn.RReLU(inplace=True).eval(),
    }
    functions = {
        "F_selu_": lambda x: F.selu_(x * 2), "F_celu_": lambda x: F.celu_(x * 2, 2.0),
        "F_threshold_": lambda x: F.threshold_(x * 2, 0.5, -1.0),
        "F_softmin_dtype": lambda x: F.softmin(x, dim=-1, dtype=torch.float64),
        # a getitem after rrelu: torch's rrelu_with_noise_functional claims two getitem names
        "F_rrelu_max": lambda x: torch.max(F.rrelu(x, 0.2, 0.4), dim=1)[0],
        "F_rrelu_inplace_max": lambda x: torch.max(F.rrelu(x * 2, inplace=True), dim=1)[0],
    }
    return [Case(name, (lambda build=build: Layer(build())), inputs=_image) for name, build in layers.items()] + [
        Case(name, (lambda fn=fn: Fn(fn)), inputs=_image) for name, fn in functions.items()
    ]
