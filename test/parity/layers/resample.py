"""Pooling and resampling layers beyond conv_pool.py: 3-d and adaptive max pools,
LP pools, max unpooling, upsampling modules and every interpolate mode, grid_sample
and affine_grid."""


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


class PoolUnpool(torch.nn.Module):
    """A max pool with indices and the unpooling that inverts it, as the docs pair them."""

    def __init__(self, pool, unpool, output_size=None) -> None:
        super().__init__()
        self.pool, self.unpool, self.output_size = pool, unpool, output_size

    def forward(self, x):
        values, indices = self.pool(x)
        return self.unpool(values, indices, output_size=self.output_size)


class Sampler(torch.nn.Module):
    def __init__(self, **options) -> None:
        super().__init__()
        self.options = options

    def forward(self, x, grid):
        return F.grid_sample(x, grid, **self.options)


class Transformer(torch.nn.Module):
    """A spatial transformer's sampling: affine_grid over the input's size, then grid_sample."""

    def __init__(self, align_corners) -> None:
        super().__init__()
        self.align_corners = align_corners

    def forward(self, x, theta):
        grid = F.affine_grid(theta, list(x.size()), align_corners=self.align_corners)
        return F.grid_sample(x, grid, align_corners=self.align_corners)


class AffineGrid(torch.nn.Module):
    def __init__(self, size, align_corners) -> None:
        super().__init__()
        self.size, self.align_corners = size, align_corners

    def forward(self, theta):
        return F.affine_grid(theta, [theta.shape[0], *self.size], align_corners=self.align_corners)


class Fractional(torch.nn.Module):
    """Fractional max pooling at given random samples (the documented _random_samples argument)."""

    def __init__(self, fn, **options) -> None:
        super().__init__()
        self.fn, self.options = fn, options

    def forward(self, x, samples):
        return self.fn(x, _random_samples=samples, **self.options)


def _x_samples(x_shape, rank):
    def make(rng):
        return (rng.standard_normal(x_shape, dtype=np.float32),
                rng.random((x_shape[0], x_shape[1], rank), dtype=np.float32))
    return make


def _fractional_cases(Dim):
    batch = Dim("batch", min=1, max=16)
    two = {"x": {0: batch}, "samples": {0: batch}}
    specs = {
        "fractional_max_pool2d_size": (lambda: Fractional(F.fractional_max_pool2d, kernel_size=2, output_size=(4, 5)),
                                       (2, 3, 9, 10), 2),
        "fractional_max_pool2d_ratio_indices": (
            lambda: Fractional(F.fractional_max_pool2d, kernel_size=(3, 2), output_ratio=(0.5, 0.5), return_indices=True),
            (2, 3, 9, 10), 2),
        "fractional_max_pool2d_with_indices": (
            lambda: Fractional(F.fractional_max_pool2d_with_indices, kernel_size=2, output_size=5), (2, 3, 8, 8), 2),
        "fractional_max_pool3d_size": (
            lambda: Fractional(F.fractional_max_pool3d, kernel_size=2, output_size=(3, 4, 5)), (2, 3, 6, 7, 8), 3),
        "fractional_max_pool3d_with_indices": (
            lambda: Fractional(F.fractional_max_pool3d_with_indices, kernel_size=(2, 1, 2), output_ratio=0.6),
            (2, 3, 6, 7, 8), 3),
    }
    # torch's fractional_max_pool3d meta function specializes the batch: its cases are static
    cases = [Case(name, make, inputs=_x_samples(shape, rank), dynamic_shapes=two if rank == 2 else None,
                  second=_x_samples((5, *shape[1:]), rank) if rank == 2 else None)
             for name, (make, shape, rank) in specs.items()]
    samples = np.random.default_rng(1).random((2, 3, 2), dtype=np.float32)
    cases.append(Case("fractional_max_pool2d_layer",
                      lambda: Layer(torch.nn.FractionalMaxPool2d(2, output_size=3,
                                                                 _random_samples=torch.tensor(samples))),
                      inputs=_x(2, 3, 7, 7)))
    cases.append(Case("fractional_max_pool3d_layer_indices",
                      lambda: Layer(torch.nn.FractionalMaxPool3d(2, output_size=(2, 3, 2), return_indices=True,
                                                                 _random_samples=torch.rand(2, 3, 3) * 0 + 0.3)),
                      inputs=_x(2, 3, 5, 6, 5)))
    return cases


def _x_grid(x_shape, grid_shape):
    def make(rng):
        grid = rng.uniform(-1.3, 1.3, grid_shape).astype(np.float32)
        return rng.standard_normal(x_shape, dtype=np.float32), grid
    return make


def _x_theta(x_shape):
    k = len(x_shape) - 2

    def make(rng):
        theta = np.eye(k, k + 1)[None] + 0.2 * rng.standard_normal((x_shape[0], k, k + 1))
        return rng.standard_normal(x_shape, dtype=np.float32), theta.astype(np.float32)
    return make


def _sampler_cases(Dim):
    batch = Dim("batch", min=1, max=16)
    two = {"x": {0: batch}, "grid": {0: batch}}
    cases = []
    for mode in ("bilinear", "nearest", "bicubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                name = f"grid_sample_{mode}_{padding}{'_align' if align else ''}"
                cases.append(Case(name, (lambda m=mode, p=padding, a=align: Sampler(mode=m, padding_mode=p,
                                                                                    align_corners=a)),
                                  inputs=_x_grid((2, 3, 5, 6), (2, 4, 7, 2)), dynamic_shapes=two,
                                  second=_x_grid((5, 3, 5, 6), (5, 4, 7, 2))))
    for mode in ("bilinear", "nearest"):
        for padding in ("zeros", "reflection"):
            cases.append(Case(f"grid_sample3d_{mode}_{padding}",
                              (lambda m=mode, p=padding: Sampler(mode=m, padding_mode=p, align_corners=False)),
                              inputs=_x_grid((2, 3, 4, 5, 6), (2, 3, 4, 2, 3)), dynamic_shapes=two,
                              second=_x_grid((5, 3, 4, 5, 6), (5, 3, 4, 2, 3))))
    pair = {"x": {0: batch}, "theta": {0: batch}}
    for align in (False, True):
        suffix = "_align" if align else ""
        cases.append(Case(f"spatial_transformer2d{suffix}", (lambda a=align: Transformer(a)),
                          inputs=_x_theta((2, 3, 5, 6)), dynamic_shapes=pair, second=_x_theta((5, 3, 5, 6))))
        cases.append(Case(f"spatial_transformer3d{suffix}", (lambda a=align: Transformer(a)),
                          inputs=_x_theta((2, 3, 3, 4, 5)), dynamic_shapes=pair,
                          second=_x_theta((5, 3, 3, 4, 5))))
        cases.append(Case(f"affine_grid2d{suffix}", (lambda a=align: AffineGrid([3, 4, 5], a)),
                          inputs=lambda rng: _x_theta((2, 3, 4, 5))(rng)[1:],
                          dynamic_shapes={"theta": {0: batch}}))
    return cases


def _x(*shape):
    return lambda rng: (rng.standard_normal(shape, dtype=np.float32),)


def _pool_layers(nn):
    return {
        "max_pool3d_layer": (lambda: nn.MaxPool3d(2), (2, 3, 4, 6, 6)),
        "max_pool3d_indices_layer": (lambda: nn.MaxPool3d(3, 2, 1, return_indices=True), (2, 3, 5, 5, 5)),
        "max_pool1d_indices_layer": (lambda: nn.MaxPool1d(3, 2, 1, return_indices=True), (2, 3, 9)),
        "avg_pool3d_layer": (lambda: nn.AvgPool3d(2), (2, 3, 4, 6, 6)),
        "avg_pool3d_padded": (lambda: nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False),
                              (2, 3, 5, 5, 5)),
        "adaptive_avg_pool3d_layer": (lambda: nn.AdaptiveAvgPool3d((2, 3, None)), (2, 3, 5, 6, 7)),
        "adaptive_avg_pool3d_1": (lambda: nn.AdaptiveAvgPool3d(1), (2, 3, 5, 6, 7)),
        "adaptive_max_pool1d_layer": (lambda: nn.AdaptiveMaxPool1d(3), (2, 3, 8)),
        "adaptive_max_pool1d_indices": (lambda: nn.AdaptiveMaxPool1d(5, return_indices=True), (2, 3, 7)),
        "adaptive_max_pool2d_layer": (lambda: nn.AdaptiveMaxPool2d((3, None)), (2, 3, 8, 5)),
        "adaptive_max_pool3d_layer": (lambda: nn.AdaptiveMaxPool3d(3, return_indices=True), (2, 3, 5, 6, 7)),
        "lp_pool1d_layer": (lambda: nn.LPPool1d(2, 3), (2, 3, 8)),
        "lp_pool2d_layer": (lambda: nn.LPPool2d(1.5, 2, stride=1), (2, 3, 6, 6)),
        "lp_pool3d_layer": (lambda: nn.LPPool3d(2, 2, ceil_mode=True), (2, 3, 5, 5, 5)),
        "max_unpool1d_layer": (lambda: PoolUnpool(nn.MaxPool1d(2, return_indices=True), nn.MaxUnpool1d(2)),
                               (2, 3, 8)),
        "max_unpool2d_layer": (lambda: PoolUnpool(nn.MaxPool2d(3, 2, 1, return_indices=True),
                                                  nn.MaxUnpool2d(3, 2, 1), output_size=[7, 8]), (2, 3, 7, 8)),
        "max_unpool3d_layer": (lambda: PoolUnpool(nn.MaxPool3d(2, return_indices=True), nn.MaxUnpool3d(2)),
                               (2, 3, 4, 4, 6)),
    }


def _pool_functions(F):
    return {
        "max_pool1d_with_indices": (lambda x: F.max_pool1d_with_indices(x, 2), (2, 3, 8)),
        "max_pool2d_with_indices": (lambda x: F.max_pool2d_with_indices(x, 3, 2, 1), (2, 3, 8, 8)),
        "max_pool3d_fn": (lambda x: F.max_pool3d(x, 2, ceil_mode=True), (2, 3, 5, 5, 5)),
        "max_pool3d_with_indices": (lambda x: F.max_pool3d_with_indices(x, 2), (2, 3, 4, 4, 4)),
        "avg_pool3d_divisor": (lambda x: F.avg_pool3d(x, 2, divisor_override=3), (2, 3, 4, 4, 4)),
        "adaptive_max_pool1d_with_indices": (lambda x: F.adaptive_max_pool1d_with_indices(x, 3), (2, 3, 8)),
        "adaptive_max_pool2d_with_indices": (lambda x: F.adaptive_max_pool2d_with_indices(x, 3), (2, 3, 7, 8)),
        "adaptive_max_pool3d_with_indices": (lambda x: F.adaptive_max_pool3d_with_indices(x, 2), (2, 3, 5, 5, 5)),
        "lp_pool1d_inf": (lambda x: F.lp_pool1d(x, float("inf"), 2), (2, 3, 8)),
        "lp_pool2d_fn": (lambda x: F.lp_pool2d(x, 3, (2, 3)), (2, 3, 6, 6)),
        "max_unpool1d_fn": (lambda x: F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2, output_size=[9]),
                            (2, 3, 9)),
        "max_unpool2d_fn": (lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2), (2, 3, 6, 8)),
        "max_unpool3d_fn": (lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, 1, return_indices=True), 2, 1),
                            (2, 3, 4, 4, 4)),
    }


def _upsample_layers(nn):
    return {
        "upsample_nearest_layer": (lambda: nn.Upsample(scale_factor=2), (2, 3, 4, 5)),
        "upsample_bilinear_layer": (lambda: nn.Upsample(size=(7, 9), mode="bilinear"), (2, 3, 4, 5)),
        "upsample_trilinear_layer": (lambda: nn.Upsample(scale_factor=(2, 1.5, 2), mode="trilinear",
                                                         align_corners=True), (2, 3, 3, 4, 5)),
        "upsample_bicubic_layer": (lambda: nn.Upsample(scale_factor=1.5, mode="bicubic"), (2, 3, 4, 6)),
        "upsampling_nearest2d": (lambda: nn.UpsamplingNearest2d(size=(6, 7)), (2, 3, 4, 5)),
        "upsampling_bilinear2d": (lambda: nn.UpsamplingBilinear2d(scale_factor=2), (2, 3, 4, 5)),
    }


def _interpolate_functions(F):
    def up(**kwargs):
        return lambda x: F.interpolate(x, **kwargs)

    return {
        "interpolate_nearest3d": (up(scale_factor=2), (2, 3, 3, 4, 5)),
        "interpolate_nearest3d_size": (up(size=(4, 5, 7)), (2, 3, 3, 4, 5)),
        "interpolate_nearest_exact1d": (up(scale_factor=2, mode="nearest-exact"), (2, 3, 5)),
        "interpolate_nearest_exact2d": (up(size=(7, 3), mode="nearest-exact"), (2, 3, 4, 5)),
        "interpolate_nearest_exact3d": (up(scale_factor=(1.5, 2, 0.5), mode="nearest-exact"), (2, 3, 4, 4, 6)),
        "interpolate_trilinear": (up(size=(5, 6, 7), mode="trilinear"), (2, 3, 3, 4, 5)),
        "interpolate_trilinear_scale": (up(scale_factor=2, mode="trilinear", recompute_scale_factor=True),
                                        (2, 3, 3, 4, 5)),
        "interpolate_bicubic": (up(size=(7, 9), mode="bicubic"), (2, 3, 4, 5)),
        "interpolate_bicubic_align": (up(scale_factor=2, mode="bicubic", align_corners=True), (2, 3, 4, 5)),
        "interpolate_linear_recompute": (up(scale_factor=1.7, mode="linear", recompute_scale_factor=True),
                                         (2, 3, 6)),
        "interpolate_bilinear_down": (up(size=(3, 2), mode="bilinear"), (2, 3, 7, 5)),
        "interpolate_area1d": (up(size=3, mode="area"), (2, 3, 8)),
        "interpolate_area2d": (up(scale_factor=0.5, mode="area"), (2, 3, 8, 6)),
        "interpolate_area3d": (up(size=(2, 3, 2), mode="area"), (2, 3, 5, 6, 7)),
        "upsample_fn": (lambda x: F.upsample(x, scale_factor=2, mode="linear"), (2, 3, 5)),
        "upsample_nearest_fn": (lambda x: F.upsample_nearest(x, size=(6, 9)), (2, 3, 4, 5)),
        "upsample_bilinear_fn": (lambda x: F.upsample_bilinear(x, scale_factor=2), (2, 3, 4, 5)),
    }


def cases():
    nn = torch.nn
    Dim = torch.export.Dim
    batch = {"x": {0: Dim("batch", min=1, max=16)}}
    layers = {**_pool_layers(nn), **_upsample_layers(nn)}
    functions = {**_pool_functions(F), **_interpolate_functions(F)}
    cases = [Case(name, (lambda make=make: Layer(make())), inputs=_x(*shape), dynamic_shapes=batch,
                  second=_x(5, *shape[1:])) for name, (make, shape) in layers.items()]
    cases += [Case(name, (lambda fn=fn: Fn(fn)), inputs=_x(*shape), dynamic_shapes=batch,
                   second=_x(5, *shape[1:])) for name, (fn, shape) in functions.items()]
    return cases + _sampler_cases(Dim) + _fractional_cases(Dim) + _dynamic_spatial_cases(Dim)


def _dynamic_spatial_cases(Dim):
    """Scale factors over a dynamic width: the output size is an expression of it."""
    spatial = {"x": {0: Dim("batch", min=1, max=16), 3: Dim("w", min=4, max=32)}}
    functions = {
        "interpolate_nearest_exact2d_dynamic": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest-exact"),
                                                (2, 3, 4, 5)),
        "interpolate_nearest2d_dynamic": (lambda x: F.interpolate(x, scale_factor=(2, 0.5)), (2, 3, 4, 6)),
        "interpolate_bicubic_dynamic": (lambda x: F.interpolate(x, scale_factor=2, mode="bicubic"), (2, 3, 4, 5)),
        "max_unpool2d_dynamic": (lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2), (2, 3, 4, 6)),
        "lp_pool2d_dynamic": (lambda x: F.lp_pool2d(x, 2, 2), (2, 3, 4, 6)),
    }
    return [Case(name, (lambda fn=fn: Fn(fn)), inputs=_x(*shape), dynamic_shapes=spatial,
                 second=_x(5, shape[1], shape[2], 2 * shape[3])) for name, (fn, shape) in functions.items()]
