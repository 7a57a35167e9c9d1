# ruff: noqa: F821 - the harness injects torch, nn, F, np and Case (as for corpus/)
"""Dynamic shapes from issue 15: derived input dims (4*h) read by interpolate
and reshape, reshape(b, t, -1) over dynamic dims, stacked downsampling and a
half slice on Dim.AUTO dims, and a size from data (nonzero) in an output."""


class UpToSkip(torch.nn.Module):
    def forward(self, x, skip):
        return F.interpolate(x, size=skip.shape[-2:]) + skip


class Flatten(torch.nn.Module):
    def forward(self, x):
        return x.reshape(x.shape[0], x.shape[1] * x.shape[2])


class MergeTail(torch.nn.Module):
    def forward(self, x):
        b, t = x.shape[0], x.shape[1]
        return x.reshape(b, t, -1) * 2


class ConvPool(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.pool = torch.nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(self.conv(x))


class Half(torch.nn.Module):
    def forward(self, x):
        return x[: x.shape[0] // 2]


class CountTwice(torch.nn.Module):
    def forward(self, x):
        nonzero = x.nonzero()
        return nonzero, nonzero.shape[0] * 2


def _normal(*shape):
    return lambda rng: tuple(rng.standard_normal(s, dtype=np.float32) for s in shape)


def _mask(rows):
    return lambda rng: ((rng.standard_normal((rows, 3)) > 0).astype(np.float32),)


def cases():
    Dim = torch.export.Dim
    h = Dim("h", min=2, max=64)
    return [
        Case("derived_dim_interpolate", UpToSkip, inputs=_normal((1, 3, 4, 4), (1, 3, 16, 16)),
             dynamic_shapes={"x": None, "skip": {2: 4 * h, 3: 4 * h}},
             second=_normal((1, 3, 4, 4), (1, 3, 20, 20))),
        Case("derived_dim_reshape", Flatten, inputs=_normal((2, 8, 3)),
             dynamic_shapes={"x": {0: Dim("b"), 1: 4 * h}}, second=_normal((3, 12, 3))),
        Case("reshape_infers_static_tail", MergeTail, inputs=_normal((2, 3, 4, 4)),
             dynamic_shapes={"x": {0: Dim.AUTO, 1: Dim.AUTO}}, second=_normal((5, 7, 4, 4))),
        Case("stacked_downsampling_auto", ConvPool, inputs=_normal((1, 3, 32, 32)),
             dynamic_shapes={"x": {2: Dim.AUTO, 3: Dim.AUTO}}, second=_normal((1, 3, 24, 40))),
        Case("half_slice_auto", Half, inputs=_normal((8, 3)),
             dynamic_shapes={"x": {0: Dim.AUTO}}, second=_normal((5, 3))),
        Case("nonzero_size_in_output", CountTwice, inputs=_mask(6),
             dynamic_shapes={"x": {0: Dim.AUTO}}, second=_mask(9)),
    ]


def violations():
    """Programs whose named Dims the traced guards narrow: each raises."""
    Dim = torch.export.Dim

    def export(model, *shapes, spec):
        args = tuple(torch.randn(*shape) for shape in shapes)
        return lambda: torch.export.export(model, args, dynamic_shapes=spec)

    return {
        "half_slice_named": export(Half(), (8, 3), spec={"x": {0: Dim("n")}}),
        "half_slice_named_bounded": export(Half(), (8, 3), spec={"x": {0: Dim("n", min=4, max=100)}}),
        "stacked_downsampling_named": export(ConvPool(), (1, 3, 32, 32),
                                             spec={"x": {2: Dim("h"), 3: Dim("w")}}),
    }
