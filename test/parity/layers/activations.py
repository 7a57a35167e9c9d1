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
    return [Case(name, (lambda fn=fn: Fn(fn)), inputs=_x) for name, fn in functions.items()]
