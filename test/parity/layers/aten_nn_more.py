"""nn ops issue 16's OpInfo harness found missing (item 6), one small program
each: prelu's kernel with shaped slopes, replication_pad1d, rrelu_with_noise(_),
embedding_renorm_, F.interpolate(antialias=True) (_upsample_{bilinear,bicubic}2d_aa)."""


class Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class PreluKernel(torch.nn.Module):
    """prelu's kernel called as nn.PReLU's composite does: slopes viewed [1, C, 1]."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.tensor([0.1, 0.25, 0.5]))

    def forward(self, x):
        return torch.ops.aten._prelu_kernel.default(x, self.weight.view(1, 3, 1))


class RreluWithNoise(torch.nn.Module):
    """rrelu's op with its slopes buffer (written only in training: eval here, deterministic)."""

    def __init__(self, inplace: bool) -> None:
        super().__init__()
        self.inplace = inplace
        self.register_buffer("noise", torch.zeros(2, 3, 4))

    def forward(self, x):
        if self.inplace:
            y = x.clone()
            torch.ops.aten.rrelu_with_noise_.default(y, self.noise, 0.1, 0.3, False)
            return y
        return torch.ops.aten.rrelu_with_noise.default(x, self.noise, 0.1, 0.3, False)


class EmbeddingRenorm(torch.nn.Module):
    """F.embedding(max_norm=...)'s renormalisation, on a copy of the table."""

    def __init__(self, norm_type: float) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.register_buffer("table", torch.arange(30, dtype=torch.float32).reshape(10, 3) / 7 - 2)

    def forward(self, indices):
        table = self.table.clone()
        torch.ops.aten.embedding_renorm_.default(table, indices, 1.5, self.norm_type)
        return table


def _x(*shape):
    return lambda rng: (rng.standard_normal(shape, dtype=np.float32),)


def cases():
    batch = {"x": {0: torch.export.Dim("batch", min=1, max=16)}}
    functions = {
        "replication_pad1d": (lambda x: torch.ops.aten.replication_pad1d.default(x, [2, 3]), (2, 3, 6)),
        "interpolate_bilinear_antialias_down": (
            lambda x: F.interpolate(x, size=(3, 5), mode="bilinear", antialias=True), (2, 3, 8, 11)),
        "interpolate_bilinear_antialias_scale": (
            lambda x: F.interpolate(x, scale_factor=(0.4, 1.5), mode="bilinear", antialias=True, align_corners=True),
            (2, 3, 8, 6)),
        "interpolate_bicubic_antialias_down": (
            lambda x: F.interpolate(x, size=(4, 3), mode="bicubic", antialias=True), (2, 3, 9, 10)),
    }
    cases = [Case(name, (lambda fn=fn: Fn(fn)), inputs=_x(*shape), dynamic_shapes=batch,
                  second=_x(5, *shape[1:])) for name, (fn, shape) in functions.items()]
    cases.append(Case("prelu_kernel", PreluKernel, inputs=_x(2, 3, 4), dynamic_shapes=batch, second=_x(5, 3, 4)))
    cases += [Case(f"rrelu_with_noise{suffix}", (lambda inplace=inplace: RreluWithNoise(inplace)), inputs=_x(2, 3, 4))
              for suffix, inplace in (("", False), ("_inplace", True))]
    cases += [Case(f"embedding_renorm_p{p}", (lambda p=p: EmbeddingRenorm(p)),
                   inputs=lambda rng: (rng.integers(0, 10, (6,)),)) for p in (1.0, 2.0)]
    return cases
