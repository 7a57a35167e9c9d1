"""Convolution, pooling, padding and resampling: the nn.functional forms become
convolution, the *_with_indices pools, constant_pad_nd and the upsample .vec
ops of the core set. Where torch's default table decomposes further (1-D pools
through their 2-D forms, reflection and replication padding and 1-D upsampling
by indexing), these follow it, core ops included."""

from __future__ import annotations

import itertools
import math
from typing import Any

from ._common import DType, Tensor, aten, register_decomposition, reshape_to


# conv{1,2,3}d(x, w, b, s, p, d, g) = convolution(x, w, b, s, p, d, transposed=False, output_padding=0, g)
@register_decomposition([aten.conv1d.default, aten.conv2d.default, aten.conv3d.default])
def conv(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
         padding: Any = 0, dilation: Any = 1, groups: Any = 1) -> Tensor:
    n = weight.dim() - 2
    return aten.convolution.default(input, weight, bias, _spatial(stride, n), _spatial(padding, n),
                                    _spatial(dilation, n), False, [0] * n, groups)


def _spatial(value: Any, n: int) -> list[Any]:
    return list(value) * (n if len(value) == 1 else 1) if isinstance(value, (list, tuple)) else [value] * n


# conv{1,2,3}d(padding="valid") = padding 0; "same" = (d·(k-1))/2 each side, an odd total padded first
@register_decomposition([aten.conv1d.padding, aten.conv2d.padding, aten.conv3d.padding])
def conv_padding(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                 padding: str = "valid", dilation: Any = 1, groups: Any = 1) -> Tensor:
    n = weight.dim() - 2
    dilation = _spatial(dilation, n)
    if padding == "valid":
        return conv(input, weight, bias, stride, [0] * n, dilation, groups)
    totals = [d * (k - 1) for d, k in zip(dilation, list(weight.shape)[2:])]
    if any(t % 2 for t in totals):
        pad: list[Any] = []
        for total in reversed(totals):
            pad += [0, total % 2]
        input = aten.constant_pad_nd.default(input, pad, 0)  # noqa: A001
    return conv(input, weight, bias, stride, [t // 2 for t in totals], dilation, groups)


# conv_transpose{1,2,3}d(x, w, b, s, p, op, g, d) = convolution(x, w, b, s, p, d, transposed=True, op, g)
@register_decomposition([aten.conv_transpose1d.default, aten.conv_transpose2d.input, aten.conv_transpose3d.input])
def conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                   padding: Any = 0, output_padding: Any = 0, groups: Any = 1, dilation: Any = 1) -> Tensor:
    n = weight.dim() - 2
    return aten.convolution.default(input, weight, bias, _spatial(stride, n), _spatial(padding, n),
                                    _spatial(dilation, n), True, _spatial(output_padding, n), groups)


# max_pool2d(x, ...) = max_pool2d_with_indices(x, ...)[0]
@register_decomposition(aten.max_pool2d.default)
def max_pool2d(self: Tensor, kernel_size: list[int], stride: list[int] = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    return aten.max_pool2d_with_indices.default(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


# adaptive_avg_pool2d(x, (1, 1)) = mean(x, [-1, -2], keepdim); otherwise _adaptive_avg_pool2d
@register_decomposition(aten.adaptive_avg_pool2d.default)
def adaptive_avg_pool2d(self: Tensor, output_size: list[Any]) -> Tensor:
    if list(output_size) == [1, 1]:
        return aten.mean.dim(self, [-1, -2], True)
    return aten._adaptive_avg_pool2d.default(self, output_size)


# ---------------------------------------------------------------- normalization


# ---------------------------------------------------------------- pooling, padding, resampling


# max_pool1d(x) = max_pool2d_with_indices(x[..., None, :], [1, k], ...)[0][..., 0, :]
@register_decomposition(aten.max_pool1d.default)
def max_pool1d(self: Tensor, kernel_size: list[int], stride: list[int] = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    stride = list(stride) or list(kernel_size)
    wide = aten.unsqueeze.default(self, -2)
    pooled = aten.max_pool2d_with_indices.default(wide, [1, kernel_size[0]], [1, stride[0]],
                                                  [0, _first(padding)], [1, _first(dilation)], ceil_mode)[0]
    return aten.squeeze.dims(pooled, [self.dim() - 1])


# max_pool1d_with_indices(x) = max_pool2d_with_indices(x[..., None, :], [1, k], ...), both squeezed
@register_decomposition(aten.max_pool1d_with_indices.default)
def max_pool1d_with_indices(self: Tensor, kernel_size: list[int], stride: list[int] = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False) -> Any:
    stride = list(stride) or list(kernel_size)
    values, indices = aten.max_pool2d_with_indices.default(
        aten.unsqueeze.default(self, -2), [1, kernel_size[0]], [1, stride[0]], [0, _first(padding)],
        [1, _first(dilation)], ceil_mode)
    return aten.squeeze.dims(values, [-2]), aten.squeeze.dims(indices, [-2])


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, (list, tuple)) else value


# max_pool3d(x) = max_pool3d_with_indices(x)[0]
@register_decomposition(aten.max_pool3d.default)
def max_pool3d(self: Tensor, kernel_size: list[int], stride: list[int] = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    return aten.max_pool3d_with_indices.default(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


# adaptive_avg_pool3d(x, (1, 1, 1)) = mean(x, [-1, -2, -3], keepdim); otherwise _adaptive_avg_pool3d
@register_decomposition(aten.adaptive_avg_pool3d.default)
def adaptive_avg_pool3d(self: Tensor, output_size: list[Any]) -> Tensor:
    if list(output_size) == [1, 1, 1]:
        return aten.mean.dim(self, [-1, -2, -3], True)
    return aten._adaptive_avg_pool3d.default(self, output_size)


# adaptive_max_pool1d(x, out) = adaptive_max_pool2d(x[..., None, :], [1, out]) squeezed
@register_decomposition(aten.adaptive_max_pool1d.default)
def adaptive_max_pool1d(self: Tensor, output_size: list[int]) -> Any:
    values, indices = aten.adaptive_max_pool2d.default(aten.unsqueeze.default(self, -2), [1, output_size[0]])
    return aten.squeeze.dims(values, [-2]), aten.squeeze.dims(indices, [-2])


# avg_pool1d(x, k, s, p) = avg_pool2d(x[..., None, :], [1, k], [1, s], [0, p])[..., 0, :]
@register_decomposition(aten.avg_pool1d.default)
def avg_pool1d(self: Tensor, kernel_size: list[int], stride: list[int] = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    stride = list(stride) or list(kernel_size)
    pooled = aten.avg_pool2d.default(aten.unsqueeze.default(self, -2), [1, kernel_size[0]], [1, stride[0]],
                                     [0, _first(padding)], ceil_mode, count_include_pad)
    return aten.squeeze.dims(pooled, [-2])


# adaptive_avg_pool1d(x, out) = adaptive_avg_pool2d(x[..., None, :], [1, out])[..., 0, :]
@register_decomposition(aten.adaptive_avg_pool1d.default)
def adaptive_avg_pool1d(self: Tensor, output_size: list[Any]) -> Tensor:
    pooled = adaptive_avg_pool2d(aten.unsqueeze.default(self, -2), [1, output_size[0]])
    return aten.squeeze.dims(pooled, [-2])


# max_unpool{2,3}d(x, i, size) = zeros(N·C·prod(size)).index_put([i + plane·prod(size)], x).view(N, C, *size)
# (torch._decomp's _max_unpoolnd)
@register_decomposition(aten.max_unpool2d.default)
def max_unpool2d(self: Tensor, indices: Tensor, output_size: list[Any]) -> Tensor:
    return _max_unpool(self, indices, list(output_size))


# max_unpool3d(x, i, size, stride, padding) = the same scatter (stride and padding only checked by torch)
@register_decomposition(aten.max_unpool3d.default)
def max_unpool3d(input: Tensor, indices: Tensor, output_size: list[Any], stride: list[int],  # noqa: A002
                 padding: list[int]) -> Tensor:
    return _max_unpool(input, indices, list(output_size))


def _max_unpool(x: Tensor, indices: Tensor, output_size: list[Any]) -> Tensor:
    n = len(output_size)
    lead = list(x.shape)[:-n]
    planes, plane = math.prod(lead), math.prod(output_size)
    shape = [*lead, *output_size]
    plane_index = aten.view.default(aten.arange.start_step(0, planes, 1), [*lead, *[1] * n])
    flat = aten.view.default(aten.add.Tensor(indices, aten.mul.Tensor(plane_index, plane)), [-1])
    out = aten.full.default(shape, 0, dtype=x.dtype)
    out = aten.index_put.default(aten.view.default(out, [-1]), [flat], aten.view.default(x, [-1]))
    return aten.view.default(out, shape)


# pad(x, p, "constant", v) = constant_pad_nd(x, p, v); reflect/replicate/circular: their pad ops
@register_decomposition(aten.pad.default)
def pad(self: Tensor, pad: list[Any], mode: str = "constant", value: float | None = None) -> Tensor:
    if mode == "constant":
        return aten.constant_pad_nd.default(self, pad, 0 if value is None else value)
    sides = len(pad) // 2
    if mode in ("reflect", "replicate"):
        kind = "reflection" if mode == "reflect" else "replication"
        return getattr(aten, f"{kind}_pad{sides}d").default(self, pad)
    if mode == "circular":
        return _circular_pad(self, pad)
    raise ValueError(f"pad: unknown mode {mode!r}")


# circular pad = torch's _pad_circular, functionalized: x copied into the middle of an empty result,
# then, dim by dim (last first), its left and right edges copied from the wrapped-around side
def _circular_pad(x: Tensor, pad: list[Any]) -> Tensor:
    rank, count = x.dim(), len(pad) // 2
    dims = [rank - 1 - i for i in range(count)]
    lefts, rights = pad[0::2], pad[1::2]
    in_sizes = list(x.shape)
    out_sizes = list(in_sizes)
    for dim, left, right in zip(dims, lefts, rights):
        out_sizes[dim] = in_sizes[dim] + left + right
    out = aten.empty.memory_format(out_sizes, dtype=x.dtype)
    middle = [(dim, max(left, 0), out_sizes[dim] - max(right, 0)) for dim, left, right in zip(dims, lefts, rights)]
    source = [(dim, max(-left, 0), in_sizes[dim] - max(-right, 0)) for dim, left, right in zip(dims, lefts, rights)]
    out = _scatter_nested(out, middle, aten.copy.default(_sliced(out, middle), _sliced(x, source)))
    for dim, left, right in zip(dims, lefts, rights):
        end = out_sizes[dim]
        if left > 0:
            wrapped = (dim, end - left - max(right, 0), end - max(right, 0))
            out = _copy_within(out, (dim, 0, left), wrapped)
        if right > 0:
            out = _copy_within(out, (dim, end - right, end), (dim, max(left, 0), max(left, 0) + right))
    return out


def _sliced(x: Tensor, slices: list[tuple[Any, Any, Any]]) -> Tensor:
    for dim, start, end in slices:
        x = aten.slice.Tensor(x, dim, start, end)
    return x


def _scatter_nested(base: Tensor, slices: list[tuple[Any, Any, Any]], value: Tensor) -> Tensor:
    """base with value written through the nested slices: each enclosing slice re-read from base
    and scattered back, innermost first (how functionalization replays a write to a view of a view)."""
    enclosing = [base]
    for dim, start, end in slices[:-1]:
        enclosing.append(aten.slice.Tensor(enclosing[-1], dim, start, end))
    for outer, (dim, start, end) in zip(reversed(enclosing), reversed(slices)):
        value = aten.slice_scatter.default(outer, value, dim, start, end)
    return value


def _copy_within(x: Tensor, target: tuple[Any, Any, Any], source: tuple[Any, Any, Any]) -> Tensor:
    """x with its slice ``target`` overwritten by its slice ``source`` (same dim and length)."""
    copied = aten.copy.default(_sliced(x, [target]), _sliced(x, [source]))
    return aten.slice_scatter.default(x, copied, *target)


# reflection_pad{1,2,3}d(x, p) = x indexed along each padded dim d of size m by m-1-|m-1-|arange(-l, m+r)||
@register_decomposition([aten.reflection_pad1d.default, aten.reflection_pad2d.default,
                         aten.reflection_pad3d.default])
def reflection_pad(self: Tensor, padding: list[Any]) -> Tensor:
    return _index_pad(self, padding, _reflected)


# replication_pad{1,2,3}d(x, p) = x indexed along each padded dim d of size m by clamp(arange(-l, m+r), 0, m-1)
@register_decomposition([aten.replication_pad1d.default, aten.replication_pad2d.default,
                         aten.replication_pad3d.default])
def replication_pad(self: Tensor, padding: list[Any]) -> Tensor:
    return _index_pad(self, padding, _replicated)


def _index_pad(x: Tensor, padding: list[Any], positions: Any) -> Tensor:
    """torch._decomp's _reflection_or_replication_pad: one index per padded dim, outermost first."""
    count = len(padding) // 2
    lead = x.dim() - count
    sizes = list(x.shape)[lead:]
    out = x
    for i in range(count):
        index: list[Any] = [None] * out.dim()
        index[lead + i] = positions(padding[2 * (count - 1 - i)], sizes[i], padding[2 * (count - 1 - i) + 1])
        out = aten.index.Tensor(out, index)
    return out


def _reflected(left: Any, size: Any, right: Any) -> Tensor:
    offsets = aten.abs.default(aten.arange.start_step(-left, size + right, 1))
    return aten.sub.Tensor(size - 1, aten.abs.default(aten.sub.Tensor(size - 1, offsets)))


def _replicated(left: Any, size: Any, right: Any) -> Tensor:
    return aten.clamp.default(aten.arange.start_step(-left, size + right, 1), 0, size - 1)


# upsample_nearest{1,2,3}d.vec(x, L | s) = x[..., int(arange(L_d) · in_d/L_d), ...], L = floor(in · s) for a
# scale; nearest-exact samples at int((arange + 0.5) · in/L) (torch._decomp's _upsample_nearest; torch keeps
# the sized forms)
@register_decomposition([aten.upsample_nearest1d.vec, aten.upsample_nearest3d.vec])
def upsample_nearest_vec(input: Tensor, output_size: list[Any] | None,  # noqa: A002
                         scale_factors: list[float] | None) -> Tensor:
    return _upsample_nearest(input, output_size, scale_factors, 0.0)


# _upsample_nearest_exact{1,2,3}d.vec(x, L | s) = x[..., int((arange(L_d) + 0.5) · in_d/L_d), ...]
@register_decomposition([aten._upsample_nearest_exact1d.vec, aten._upsample_nearest_exact2d.vec,
                         aten._upsample_nearest_exact3d.vec])
def upsample_nearest_exact_vec(input: Tensor, output_size: list[Any] | None,  # noqa: A002
                               scale_factors: list[float] | None) -> Tensor:
    return _upsample_nearest(input, output_size, scale_factors, 0.5)


def _upsample_nearest(x: Tensor, output_size: list[Any] | None, scale_factors: list[float] | None,
                      offset: float) -> Tensor:
    sizes = list(x.shape)[2:]
    n = len(sizes)
    outs = _output_sizes(sizes, output_size, scale_factors)
    indices: list[Any] = [None, None]
    for d, (size, out) in enumerate(zip(sizes, outs)):
        scale = None if scale_factors is None else scale_factors[d]
        if scale is not None and scale > 0:  # torch's in/(in·scale), 1/scale for a symbolic size
            ratio = size / (size * scale) if type(size) is int else 1.0 / scale
        else:
            ratio = size / out
        positions = aten.arange.start_step(0, out, 1, dtype=DType.float32)
        source = aten._to_copy.default(aten.mul.Tensor(aten.add.Tensor(positions, offset), ratio),
                                       dtype=DType.int64)
        for _ in range(n - 1 - d):
            source = aten.unsqueeze.default(source, -1)
        indices.append(source)
    return aten.index.Tensor(x, indices)


def _output_sizes(sizes: list[Any], output_size: list[Any] | None, scale_factors: list[float] | None) -> list[Any]:
    """torch's upsample_compute_output_size: the sizes given, or floor(in · scale)."""
    if output_size is not None:
        return list(output_size)
    return [_scaled_size(size, scale) for size, scale in zip(sizes, scale_factors)]


def _scaled_size(size: Any, scale: float) -> Any:
    """floor(size · scale), as torch's upsample_compute_output_size: an integral scale multiplies exactly;
    a symbolic size times a short binary fraction p/q is (p·size) // q, as the shape rule has it (a longer
    fraction's double product can round across an integer, so that size is read concretely)."""
    if float(scale).is_integer():
        return size * int(scale)
    p, q = float(scale).as_integer_ratio()
    if type(size) is int or q > 1 << 16:
        return int(size * scale)
    return (size * p) // q


# upsample_bilinear2d(x, size, ac, sh, sw) = upsample_bilinear2d.vec(x, size, ac) (or the scales)
@register_decomposition(aten.upsample_bilinear2d.default)
def upsample_bilinear2d(self: Tensor, output_size: list[Any], align_corners: bool,
                        scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    if scales_h is None or scales_w is None:
        return aten.upsample_bilinear2d.vec(self, output_size, align_corners, None)
    return aten.upsample_bilinear2d.vec(self, None, align_corners, [scales_h, scales_w])


# upsample_{linear1d,trilinear3d}(x, L) = per axis (W first) v0 + (v1 - v0)·frac, v0/v1 the input at
# i0 = floor(source index) and min(i0 + 1, in - 1), read at every corner of the box (torch._decomp's
# _upsample_linear; torch keeps upsample_bilinear2d.vec and upsample_trilinear3d.default)
@register_decomposition([aten.upsample_linear1d.vec, aten.upsample_trilinear3d.vec])
def upsample_linear_vec(input: Tensor, output_size: list[Any] | None, align_corners: bool,  # noqa: A002
                        scale_factors: list[float] | None) -> Tensor:
    outs = _output_sizes(list(input.shape)[2:], output_size, scale_factors)
    return _upsample_linear(input, outs, align_corners, scale_factors or [None] * len(outs))


# upsample_linear1d(x, L, ac, s) = the same interpolation at the sized form's scale
@register_decomposition(aten.upsample_linear1d.default)
def upsample_linear1d(self: Tensor, output_size: list[Any], align_corners: bool,
                      scales: float | None = None) -> Tensor:
    return _upsample_linear(self, list(output_size), align_corners, [scales])


def _upsample_linear(x: Tensor, outs: list[Any], align_corners: bool, scales: list[float | None]) -> Tensor:
    sizes = list(x.shape)[2:]
    n = len(sizes)
    dtype = x.dtype if x.dtype.is_floating_point else DType.float32
    axes = [_linear_sources(size, out, align_corners, scale, dtype, n - 1 - d)
            for d, (size, out, scale) in enumerate(zip(sizes, outs, scales))]
    values = []
    for corner in itertools.product((0, 1), repeat=n):
        value = aten.index.Tensor(x, [None, None, *(axes[d][1 + corner[d]] for d in range(n))])
        values.append(value if value.dtype == dtype else aten._to_copy.default(value, dtype=dtype))
    for d in reversed(range(n)):
        source, low = axes[d][0], axes[d][1]
        weight = aten.clamp.default(aten.sub.Tensor(source, low), 0.0, 1.0)
        values = [aten.add.Tensor(v0, aten.mul.Tensor(aten.sub.Tensor(v1, v0), weight))
                  for v0, v1 in zip(values[::2], values[1::2])]
    result = values[0]
    return result if x.dtype.is_floating_point else aten.round.default(result)


def _linear_sources(size: Any, out: Any, align_corners: bool, scale: float | None, dtype: DType,
                    trailing: int) -> tuple[Tensor, Tensor, Tensor]:
    """(source index, its floor, the next index clamped to the input), shaped [out, 1 × trailing]."""
    ratio = _linear_scale(size, out, align_corners, scale)
    positions = aten._to_copy.default(aten.arange.start_step(0, out, 1), dtype=dtype)
    if align_corners:
        source = aten.mul.Tensor(positions, ratio)
    else:
        source = aten.sub.Tensor(aten.mul.Tensor(aten.add.Tensor(positions, 0.5), ratio), 0.5)
    source = aten.view.default(aten.clamp.default(source, 0.0), [out, *[1] * trailing])
    low = aten._to_copy.default(source, dtype=DType.int64)
    high = aten.clamp.default(aten.add.Tensor(low, 1), None, size - 1)
    return source, low, high


def _linear_scale(size: Any, out: Any, align_corners: bool, scale: float | None) -> Any:
    """torch's _compute_scale: source positions per output position."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0
    return 1.0 / scale if scale is not None and scale > 0 else size / out


# grid_sampler(x, g, ...) = grid_sampler_2d or grid_sampler_3d by the input's rank
@register_decomposition(aten.grid_sampler.default)
def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,  # noqa: A002
                 align_corners: bool) -> Tensor:
    sampler = aten.grid_sampler_3d.default if input.dim() == 5 else aten.grid_sampler_2d.default
    return sampler(input, grid, interpolation_mode, padding_mode, align_corners)


# affine_grid_generator(θ, [N, C, *sizes]) = Σ_j base[..., j, None]·θᵀ[n, j, :] over the base grid
# (x, y[, z], 1) of pixel centres in [-1, 1], each coordinate padded into place and summed (torch._decomp's
# affine_grid_generator)
@register_decomposition(aten.affine_grid_generator.default)
def affine_grid_generator(theta: Tensor, size: list[Any], align_corners: bool) -> Tensor:
    n, spatial = size[0], list(size)[2:]
    k = len(spatial)
    parts = []
    for axis, steps in enumerate(spatial):  # depth/height/width carry z/y/x, the last coordinates first
        shape = [1] * k + [1]
        shape[axis] = steps
        line = aten.view.default(_linspace_from_neg_one(steps, align_corners, theta.dtype), shape)
        slot = k - 1 - axis
        parts.append(aten.constant_pad_nd.default(line, [slot, k - slot], 0))
    one = aten.ones.default([1] * (k + 1), dtype=theta.dtype)
    base = aten.add.Tensor(_sum_in_order(list(reversed(parts))), aten.constant_pad_nd.default(one, [k, 0], 0))
    products = aten.mul.Tensor(aten.view.default(base, [-1, k + 1, 1]),
                               aten.unsqueeze.default(aten.transpose.int(theta, -2, -1), 1))
    return aten.view.default(aten.sum.dim_IntList(products, [-2]), [n, *spatial, k])


def _sum_in_order(values: list[Tensor]) -> Tensor:
    total = values[0]
    for value in values[1:]:
        total = aten.add.Tensor(total, value)
    return total


def _linspace_from_neg_one(steps: Any, align_corners: bool, dtype: DType) -> Tensor:
    """linspace(-e, e, steps) as torch's reference decomposes it inside affine_grid_generator: an int64
    arange cast to the dtype, start + i·step for the first half, end - (steps-1-i)·step for the rest."""
    if steps <= 1:
        return aten.full.default([], 0, dtype=dtype)
    end = 1 if align_corners else (steps - 1) / steps
    step = 2 * end / (steps - 1)
    index = aten.arange.start_step(0, steps, 1)
    low = aten.add.Tensor(aten.mul.Tensor(aten._to_copy.default(index, dtype=dtype), step), -end)
    high = aten.rsub.Scalar(aten.mul.Tensor(aten._to_copy.default(aten.rsub.Scalar(index, steps - 1), dtype=dtype),
                                            step), end)
    return aten.where.self(aten.lt.Scalar(index, steps / 2), low, high)


# pixel_shuffle(x, r): [N, C·r², H, W] -> [N, C, r, r, H, W] -> [N, C, H, r, W, r] -> [N, C, H·r, W·r]
@register_decomposition(aten.pixel_shuffle.default)
def pixel_shuffle(self: Tensor, upscale_factor: int) -> Tensor:
    r = upscale_factor
    *batch, c, h, w = list(self.shape)
    n = len(batch)
    split = aten.view.default(self, [*batch, c // (r * r), r, r, h, w])
    order = [*range(n), n, n + 3, n + 1, n + 4, n + 2]
    moved = aten.clone.default(aten.permute.default(split, order), memory_format="contiguous_format")
    shuffled = aten.view.default(moved, [*batch, c // (r * r), h * r, w * r])
    return aten.clone.default(shuffled, memory_format="contiguous_format")  # torch._refs' final clone


# pixel_unshuffle(x, r): [N, C, H·r, W·r] -> [N, C, H, r, W, r] -> [N, C, r, r, H, W] -> [N, C·r², H, W]
@register_decomposition(aten.pixel_unshuffle.default)
def pixel_unshuffle(self: Tensor, downscale_factor: int) -> Tensor:
    r = downscale_factor
    *batch, c, h, w = list(self.shape)
    n = len(batch)
    split = aten.view.default(self, [*batch, c, h // r, r, w // r, r])
    order = [*range(n), n, n + 2, n + 4, n + 1, n + 3]
    moved = aten.clone.default(aten.permute.default(split, order), memory_format="contiguous_format")
    unshuffled = aten.view.default(moved, [*batch, c * r * r, h // r, w // r])
    return aten.clone.default(unshuffled, memory_format="contiguous_format")  # torch._refs' final clone


# im2col(x, k, d, p, s)[n, c·kh·kw + i·kw + j, l] = padded x at the (i, j) tap of sliding block l,
# gathered by one index with each tap's row and column positions (torch._decomp's im2col)
@register_decomposition(aten.im2col.default)
def im2col(self: Tensor, kernel_size: list[int], dilation: list[int], padding: list[int],
           stride: list[int]) -> Tensor:
    x = self if self.dim() == 4 else aten.unsqueeze.default(self, 0)
    n, c, h, w = list(x.shape)
    rows = _block_indices(h, kernel_size[0], dilation[0], padding[0], stride[0])
    cols = _block_indices(w, kernel_size[1], dilation[1], padding[1], stride[1])
    padded = aten.constant_pad_nd.default(x, [padding[1], padding[1], padding[0], padding[0]], 0)
    rows = aten.unsqueeze.default(aten.unsqueeze.default(rows, -1), -1)
    taps = aten.permute.default(aten.index.Tensor(padded, [None, None, rows, cols]), [0, 1, 2, 4, 3, 5])
    out = reshape_to(taps, [n, c * kernel_size[0] * kernel_size[1], rows.shape[1] * cols.shape[1]])
    return out if self.dim() == 4 else aten.squeeze.dims(out, [0])


# col2im(x, out, k, d, p, s) = the sliding blocks of x summed back onto a zero image
# (index_put with accumulate), its padding cut off; torch's default table takes
# this core op there (torch._decomp's col2im, computing f16/bf16 in float32)
@register_decomposition(aten.col2im.default)
def col2im(self: Tensor, output_size: list[Any], kernel_size: list[int], dilation: list[int],
           padding: list[int], stride: list[int]) -> Tensor:
    origin = self.dtype
    x = self if self.dim() == 3 else aten.unsqueeze.default(self, 0)
    if origin in (DType.float16, DType.bfloat16):
        x = aten._to_copy.default(x, dtype=DType.float32)
    taps = kernel_size[0] * kernel_size[1]
    blocks = [(o + 2 * p - d * (k - 1) - 1) // st + 1
              for o, p, d, k, st in zip(output_size, padding, dilation, kernel_size, stride)]
    n, channels = x.shape[0], x.shape[1] // taps
    x = aten.permute.default(reshape_to(x, [n, channels, *kernel_size, *blocks]), [0, 1, 2, 4, 3, 5])
    rows = _block_indices(output_size[0], kernel_size[0], dilation[0], padding[0], stride[0])
    rows = aten.unsqueeze.default(aten.unsqueeze.default(rows, -1), -1)
    cols = _block_indices(output_size[1], kernel_size[1], dilation[1], padding[1], stride[1])
    padded = [o + 2 * p for o, p in zip(output_size, padding)]
    image = aten.full.default([n, channels, *padded], 0, dtype=x.dtype)
    image = aten.index_put.default(image, [None, None, rows, cols], x, True)
    out = aten.constant_pad_nd.default(image, [-padding[1], -padding[1], -padding[0], -padding[0]], 0.0)
    out = out if self.dim() == 3 else aten.squeeze.dims(out, [0])
    return out if out.dtype is origin else aten._to_copy.default(out, dtype=origin)


def _block_indices(size: Any, kernel: int, dilation: int, padding: int, stride: int) -> Tensor:
    """[kernel, blocks]: the start of each sliding block along one dim plus each
    kernel tap's offset (torch's _im2col_col2im_indices_along_dim)."""
    span = size + padding * 2 - dilation * (kernel - 1)
    starts = aten.unsqueeze.default(aten.arange.start_step(0, span, stride, dtype=DType.int64), 0)
    offsets = aten.arange.start_step(0, kernel * dilation, dilation, dtype=DType.int64)
    return aten.add.Tensor(starts, aten.unsqueeze.default(offsets, -1))


# ---------------------------------------------------------------- attention


# bicubic(x) = Σ_{ty, tx} x[clamp(⌊sy⌋ + ty), clamp(⌊sx⌋ + tx)]·cubic_tx(fx)·cubic_ty(fy), t = -1..2, over the
# source index s = ⌊s⌋ + f of each output, the x sums first (torch._decomp's upsample_bicubic2d_default,
# its CPU weights as stack/unbind pairs)
@register_decomposition(aten.upsample_bicubic2d.vec)
def upsample_bicubic2d_vec(input: Tensor, output_size: list[Any] | None, align_corners: bool,  # noqa: A002
                           scale_factors: list[float] | None) -> Tensor:
    outs = _output_sizes(list(input.shape)[-2:], output_size, scale_factors)
    return _upsample_bicubic(input, outs, align_corners, scale_factors or [None, None])


# _upsample_bilinear2d_aa.vec(x, size | scales) = _upsample_bilinear2d_aa(x, size, ac, *scales) (ATen's
# composite; torch keeps the sized form in core)
@register_decomposition(aten._upsample_bilinear2d_aa.vec)
def upsample_bilinear2d_aa_vec(input: Tensor, output_size: list[Any] | None, align_corners: bool,  # noqa: A002
                               scale_factors: list[float] | None) -> Tensor:
    return _sized_aa(aten._upsample_bilinear2d_aa.default, input, output_size, align_corners, scale_factors)


# _upsample_bicubic2d_aa.vec(x, size | scales) = _upsample_bicubic2d_aa(x, size, ac, *scales)
@register_decomposition(aten._upsample_bicubic2d_aa.vec)
def upsample_bicubic2d_aa_vec(input: Tensor, output_size: list[Any] | None, align_corners: bool,  # noqa: A002
                              scale_factors: list[float] | None) -> Tensor:
    return _sized_aa(aten._upsample_bicubic2d_aa.default, input, output_size, align_corners, scale_factors)


def _sized_aa(sized: Any, x: Tensor, output_size: list[Any] | None, align_corners: bool,
              scale_factors: list[float] | None) -> Tensor:
    scales = scale_factors or [None, None]
    return sized(x, _output_sizes(list(x.shape)[-2:], output_size, scale_factors), align_corners, *scales)


# upsample_bicubic2d(x, size, ac, sh, sw) = the same interpolation at the sized form's scales
@register_decomposition(aten.upsample_bicubic2d.default)
def upsample_bicubic2d(self: Tensor, output_size: list[Any], align_corners: bool,
                       scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    return _upsample_bicubic(self, list(output_size), align_corners, [scales_h, scales_w])


def _upsample_bicubic(x: Tensor, outs: list[Any], align_corners: bool, scales: list[float | None]) -> Tensor:
    in_h, in_w = list(x.shape)[-2:]
    dtype = x.dtype if x.dtype.is_floating_point else DType.float32
    rows = aten._to_copy.default(aten.arange.start_step(0, outs[0], 1), dtype=dtype)
    cols = aten._to_copy.default(aten.arange.start_step(0, outs[1], 1), dtype=dtype)
    x_src = _source_index(cols, _linear_scale(in_w, outs[1], align_corners, scales[1]), align_corners)
    y_src = aten.unsqueeze.default(
        _source_index(rows, _linear_scale(in_h, outs[0], align_corners, scales[0]), align_corners), -1)
    x_floor, y_floor = aten.floor.default(x_src), aten.floor.default(y_src)
    y_frac = aten.clamp.default(aten.sub.Tensor(y_src, y_floor), 0.0, 1.0)
    x_frac = aten.clamp.default(aten.sub.Tensor(x_src, x_floor), 0.0, 1.0)
    x0 = aten._to_copy.default(x_floor, dtype=DType.int64)
    y0 = aten._to_copy.default(y_floor, dtype=DType.int64)
    ys = [aten.sub.Tensor(y0, 1), y0, aten.add.Tensor(y0, 1), aten.add.Tensor(y0, 2)]
    xs = [aten.sub.Tensor(x0, 1), x0, aten.add.Tensor(x0, 1), aten.add.Tensor(x0, 2)]
    weights_x, weights_y = _cubic_weights(x_frac), _cubic_weights(y_frac)

    def row(y: Tensor) -> Tensor:  # each tap clamps both indices, as torch's load_bounded
        taps = [aten.index.Tensor(x, [None, None, aten.clamp.default(y, 0, in_h - 1),
                                      aten.clamp.default(xi, 0, in_w - 1)]) for xi in xs]
        return _weighted_sum(taps, weights_x)

    return _weighted_sum([row(y) for y in ys], weights_y)


def _source_index(positions: Tensor, ratio: Any, align_corners: bool) -> Tensor:
    if align_corners:
        return aten.mul.Tensor(positions, ratio)
    return aten.sub.Tensor(aten.mul.Tensor(aten.add.Tensor(positions, 0.5), ratio), 0.5)


def _weighted_sum(values: list[Tensor], weights: list[Tensor]) -> Tensor:
    total = aten.mul.Tensor(values[0], weights[0])
    for value, weight in zip(values[1:], weights[1:]):
        total = aten.add.Tensor(total, aten.mul.Tensor(value, weight))
    return total


def _cubic_weights(t: Tensor) -> list[Tensor]:
    """torch's cubic convolution coefficients (A = -0.75) for taps -1, 0, 1, 2 at offset t, computed as
    torch's CPU decomposition does: the near pair (t, 1 - t) and far pair (t + 1, 2 - t) stacked."""
    a = -0.75
    near = aten.stack.default([t, aten.rsub.Scalar(t, 1.0)])
    far = aten.stack.default([aten.add.Tensor(t, 1.0), aten.rsub.Scalar(t, 2.0)])
    # ((a·x - 5a)·x + 8a)·x - 4a
    far = aten.sub.Tensor(aten.mul.Tensor(aten.add.Tensor(aten.mul.Tensor(
        aten.sub.Tensor(aten.mul.Tensor(far, a), 5 * a), far), 8 * a), far), 4 * a)
    # ((a + 2)·x - (a + 3))·x² + 1
    near = aten.add.Tensor(aten.mul.Tensor(aten.mul.Tensor(
        aten.sub.Tensor(aten.mul.Tensor(near, a + 2), a + 3), near), near), 1)
    w0, w3 = aten.unbind.int(far, 0)
    w1, w2 = aten.unbind.int(near, 0)
    return [w0, w1, w2, w3]


# channel_shuffle(x, g): [N, g·k, *] -> [N, g, k, *] -> [N, k, g, *] -> [N, k·g, *] (torch._refs': reshape,
# transpose, reshape back, contiguous; an empty input is a view)
@register_decomposition(aten.channel_shuffle.default)
def channel_shuffle(self: Tensor, groups: Any) -> Tensor:
    shape = list(self.shape)
    if self.numel() == 0:
        return aten.view.default(self, shape)
    n, c, *rest = shape
    split = aten.view.default(self, [n, groups, c // groups, *rest])
    moved = aten.permute.default(split, [0, 2, 1, *range(3, len(shape) + 1)])
    return aten.view.default(aten.clone.default(moved, memory_format="contiguous_format"), shape)
