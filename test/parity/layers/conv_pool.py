"""Convolutions, pools, padding and resampling, one layer each."""


class Layer(torch.nn.Module):
    def __init__(self, layer) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)


class Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _x(*shape):
    return lambda rng: (rng.standard_normal(shape, dtype=np.float32),)


def cases():
    nn = torch.nn
    Dim = torch.export.Dim
    batch = {"x": {0: Dim("batch", min=1, max=16)}}
    layers = {
        "conv1d": (lambda: nn.Conv1d(3, 4, 3, padding=1), (2, 3, 9)),
        "conv2d": (lambda: nn.Conv2d(3, 4, 3, stride=2, padding=1), (2, 3, 9, 9)),
        "conv2d_depthwise": (lambda: nn.Conv2d(4, 4, 3, padding=1, groups=4), (2, 4, 9, 9)),
        "conv2d_same": (lambda: nn.Conv2d(3, 4, 4, padding="same"), (2, 3, 9, 9)),
        "conv_transpose1d": (lambda: nn.ConvTranspose1d(3, 4, 3, stride=2), (2, 3, 5)),
        "conv_transpose2d": (lambda: nn.ConvTranspose2d(3, 4, 2, stride=2), (2, 3, 5, 5)),
        "max_pool1d": (lambda: nn.MaxPool1d(2), (2, 3, 8)),
        "max_pool2d": (lambda: nn.MaxPool2d(3, 2, 1), (2, 3, 8, 8)),
        "avg_pool1d": (lambda: nn.AvgPool1d(2), (2, 3, 8)),
        "avg_pool1d_padded": (lambda: nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False), (2, 3, 8)),
        "avg_pool2d": (lambda: nn.AvgPool2d(2), (2, 3, 8, 8)),
        "adaptive_avg_pool1d_1": (lambda: nn.AdaptiveAvgPool1d(1), (2, 3, 8)),
        "adaptive_avg_pool1d_3": (lambda: nn.AdaptiveAvgPool1d(3), (2, 3, 8)),
        "adaptive_avg_pool2d_1": (lambda: nn.AdaptiveAvgPool2d(1), (2, 3, 8, 8)),
        "adaptive_avg_pool2d_3": (lambda: nn.AdaptiveAvgPool2d(3), (2, 3, 8, 8)),
        "pixel_shuffle_layer": (lambda: nn.PixelShuffle(2), (2, 8, 3, 3)),
        "pixel_unshuffle_layer": (lambda: nn.PixelUnshuffle(2), (2, 3, 4, 6)),
        "reflection_pad1d": (lambda: nn.ReflectionPad1d(2), (2, 3, 6)),
        "reflection_pad2d": (lambda: nn.ReflectionPad2d((1, 2, 2, 1)), (2, 3, 5, 6)),
        "reflection_pad3d": (lambda: nn.ReflectionPad3d(1), (2, 3, 4, 4, 4)),
        "replication_pad1d": (lambda: nn.ReplicationPad1d((2, 1)), (2, 3, 6)),
        "replication_pad2d": (lambda: nn.ReplicationPad2d(2), (2, 3, 5, 6)),
        "replication_pad3d": (lambda: nn.ReplicationPad3d((1, 0, 1, 2, 0, 1)), (2, 3, 4, 4, 4)),
        "zero_pad2d": (lambda: nn.ZeroPad2d((1, 2, 0, 1)), (2, 3, 5, 5)),
        "constant_pad1d": (lambda: nn.ConstantPad1d(2, 3.5), (2, 3, 6)),
        "constant_pad3d": (lambda: nn.ConstantPad3d((1, 0, 0, 1, 1, 1), -1.0), (2, 3, 4, 4, 4)),
        "circular_pad1d": (lambda: nn.CircularPad1d((1, 2)), (2, 3, 6)),
        "circular_pad2d": (lambda: nn.CircularPad2d((0, 1, 2, 0)), (2, 3, 5, 5)),
        "circular_pad3d": (lambda: nn.CircularPad3d(1), (2, 3, 4, 4, 4)),
    }
    functions = {
        "interpolate_nearest_size": (lambda x: F.interpolate(x, size=(6, 7)), (2, 3, 4, 4)),
        "interpolate_bilinear_align": (lambda x: F.interpolate(x, size=(7, 7), mode="bilinear", align_corners=True),
                                       (2, 3, 4, 4)),
        "interpolate_nearest1d": (lambda x: F.interpolate(x, scale_factor=2), (2, 3, 8)),
        "interpolate_nearest1d_size": (lambda x: F.interpolate(x, size=11), (2, 3, 8)),
        "interpolate_linear1d": (lambda x: F.interpolate(x, scale_factor=2, mode="linear"), (2, 3, 8)),
        "interpolate_linear1d_align": (lambda x: F.interpolate(x, size=13, mode="linear", align_corners=True),
                                       (2, 3, 8)),
        "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 3), (2, 3, 8, 8)),
        "pad_reflect2d": (lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), (2, 3, 5, 6)),
        "pad_reflect1d": (lambda x: F.pad(x, (2, 2), mode="reflect"), (2, 3, 6)),
        "pad_replicate2d": (lambda x: F.pad(x, (1, 1, 1, 1), mode="replicate"), (2, 3, 5, 6)),
        "pad_replicate1d": (lambda x: F.pad(x, (1, 2), mode="replicate"), (2, 3, 8)),
        "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), (2, 8, 3, 3)),
        "interpolate_nearest2d": (lambda x: F.interpolate(x, scale_factor=2), (2, 3, 4, 4)),
        "interpolate_bilinear2d": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), (2, 3, 4, 4)),
        "pad_constant": (lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), (2, 3, 5, 5)),
        # nn.Unfold's op
        "im2col": (lambda x: torch.ops.aten.im2col.default(x, [3, 3], [1, 1], [1, 1], [2, 2]), (2, 3, 5, 5)),
        # nn.Fold's op, a core op torch's default table decomposes
        "col2im": (lambda x: torch.ops.aten.col2im.default(x, [5, 6], [2, 3], [1, 1], [1, 0], [1, 2]),
                   (2, 12, 12)),
    }
    cases = [Case(name, (lambda make=make: Layer(make())), inputs=_x(*shape), dynamic_shapes=batch,
                  second=_x(5, *shape[1:])) for name, (make, shape) in layers.items()]
    cases += [Case(name, (lambda fn=fn: Fn(fn)), inputs=_x(*shape), dynamic_shapes=batch,
                   second=_x(5, *shape[1:])) for name, (fn, shape) in functions.items()]
    return cases
