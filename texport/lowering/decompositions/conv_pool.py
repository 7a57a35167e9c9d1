"""Convolution, pooling, padding and resampling: the nn.functional forms become
convolution, the *_with_indices pools, constant_pad_nd and the upsample .vec
ops of the core set. Where torch's default table decomposes further (1-D pools
through their 2-D forms, reflection and replication padding and 1-D upsampling
by indexing), these follow it, core ops included."""

from __future__ import annotations

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


# pad(x, p, "constant", v) = constant_pad_nd(x, p, v); reflect/replicate/circular: their pad ops
@register_decomposition(aten.pad.default)
def pad(self: Tensor, pad: list[Any], mode: str = "constant", value: float | None = None) -> Tensor:
    if mode == "constant":
        return aten.constant_pad_nd.default(self, pad, 0 if value is None else value)
    sides = len(pad) // 2
    if mode == "reflect":
        return getattr(aten, f"reflection_pad{sides}d").default(self, pad)
    if mode == "replicate":
        return _index_pad(self, pad, _replicated)  # (texport has no replication_pad1d op)
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


# replication_pad{2,3}d(x, p) = x indexed along each padded dim d of size m by clamp(arange(-l, m+r), 0, m-1)
@register_decomposition([aten.replication_pad2d.default, aten.replication_pad3d.default])
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


# upsample_nearest1d.vec(x, L | s) = x[..., int(arange(L) · in/L)], L = floor(in · s) for a scale
# (torch._decomp's _upsample_nearest; torch keeps upsample_nearest1d.default)
@register_decomposition(aten.upsample_nearest1d.vec)
def upsample_nearest1d_vec(input: Tensor, output_size: list[Any] | None,  # noqa: A002
                           scale_factors: list[float] | None) -> Tensor:
    size = input.shape[-1]
    if output_size is not None:
        out, ratio = output_size[0], size / output_size[0]
    else:
        out = _scaled_size(size, scale_factors[0])
        ratio = size / (size * scale_factors[0])
    positions = aten.arange.start_step(0, out, 1, dtype=DType.float32)
    source = aten.mul.Tensor(aten.add.Tensor(positions, 0.0), ratio)
    return aten.index.Tensor(input, [None, None, aten._to_copy.default(source, dtype=DType.int64)])


def _scaled_size(size: Any, scale: float) -> Any:
    """floor(size · scale), as torch's upsample_compute_output_size."""
    return int(size * scale) if type(size) is int else (size * scale) // 1


# upsample_bilinear2d(x, size, ac, sh, sw) = upsample_bilinear2d.vec(x, size, ac) (or the scales)
@register_decomposition(aten.upsample_bilinear2d.default)
def upsample_bilinear2d(self: Tensor, output_size: list[Any], align_corners: bool,
                        scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    if scales_h is None or scales_w is None:
        return aten.upsample_bilinear2d.vec(self, output_size, align_corners, None)
    return aten.upsample_bilinear2d.vec(self, None, align_corners, [scales_h, scales_w])


# upsample_linear1d(x, L) = x[i0] + (x[i0 + 1] - x[i0])·frac, i0 = floor(source index) (torch._decomp's
# _upsample_linear)
@register_decomposition(aten.upsample_linear1d.vec)
def upsample_linear1d_vec(input: Tensor, output_size: list[Any] | None, align_corners: bool,  # noqa: A002
                          scale_factors: list[float] | None) -> Tensor:
    size = input.shape[-1]
    scale = None if scale_factors is None else scale_factors[0]
    out = output_size[0] if output_size is not None else _scaled_size(size, scale)
    dtype = input.dtype if input.dtype.is_floating_point else DType.float32
    ratio = _linear_scale(size, out, align_corners, scale)
    positions = aten._to_copy.default(aten.arange.start_step(0, out, 1), dtype=dtype)
    if align_corners:
        source = aten.mul.Tensor(positions, ratio)
    else:
        source = aten.sub.Tensor(aten.mul.Tensor(aten.add.Tensor(positions, 0.5), ratio), 0.5)
    source = aten.view.default(aten.clamp.default(source, 0.0), [out])
    low = aten._to_copy.default(source, dtype=DType.int64)
    high = aten.clamp.default(aten.add.Tensor(low, 1), None, size - 1)
    left = aten.index.Tensor(input, [None, None, low])
    right = aten.index.Tensor(input, [None, None, high])
    weight = aten.clamp.default(aten.sub.Tensor(source, low), 0.0, 1.0)
    return aten.add.Tensor(left, aten.mul.Tensor(aten.sub.Tensor(right, left), weight))


def _linear_scale(size: Any, out: Any, align_corners: bool, scale: float | None) -> Any:
    """torch's _compute_scale: source positions per output position."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0
    return 1.0 / scale if scale is not None and scale > 0 else size / out


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


# bicubic(x): along W then H, out[o] = Σ_t x[clamp(⌊s_o⌋ + t, 0, n-1)]·cubic_t(s_o - ⌊s_o⌋), t = -1..2,
# s_o = torch's source index of output o
@register_decomposition(aten.upsample_bicubic2d.vec)
def upsample_bicubic2d_vec(input: Tensor, output_size: list[Any] | None, align_corners: bool,  # noqa: A002
                           scale_factors: list[float] | None) -> Tensor:
    sizes = list(input.shape)[-2:]
    if output_size is not None:
        outs = list(output_size)
    else:
        outs = [int(s * f) for s, f in zip(sizes, scale_factors)]
    out = input
    for j in (1, 0):
        scale = None if scale_factors is None else scale_factors[j]
        out = _cubic_axis(out, input.dim() - 2 + j, sizes[j], outs[j], align_corners, scale)
    return out


def _cubic_axis(x: Tensor, axis: int, size: int, out: int, align_corners: bool, scale: float | None) -> Tensor:
    dtype = x.dtype
    if align_corners:
        ratio = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale is not None and scale > 0 else size / out
    dst = aten.arange.start_step(0, out, 1, dtype=dtype)
    src = aten.mul.Tensor(dst, ratio) if align_corners else aten.sub.Tensor(
        aten.mul.Tensor(aten.add.Tensor(dst, 0.5), ratio), 0.5)
    floor = aten.floor.default(src)
    index = aten.clamp.default(aten._to_copy.default(floor, dtype=DType.int64), None, size - 1)
    lam = aten.clamp.default(aten.sub.Tensor(src, aten._to_copy.default(index, dtype=dtype)), 0, 1)
    weights = _cubic_weights(lam)
    shape = [1] * x.dim()
    shape[axis] = out
    total = None
    for tap, weight in zip(range(-1, 3), weights):
        taps = aten.clamp.default(aten.add.Tensor(index, tap), 0, size - 1)
        term = aten.mul.Tensor(aten.index_select.default(x, axis, taps), aten.view.default(weight, shape))
        total = term if total is None else aten.add.Tensor(total, term)
    return total


def _cubic_weights(t: Tensor) -> list[Tensor]:
    """torch's cubic convolution coefficients (A = -0.75) for taps -1, 0, 1, 2 at offset t."""
    a = -0.75

    def near(x: Tensor) -> Tensor:  # ((a + 2)·x - (a + 3))·x² + 1
        return aten.add.Tensor(aten.mul.Tensor(aten.mul.Tensor(
            aten.sub.Tensor(aten.mul.Tensor(x, a + 2), a + 3), x), x), 1)

    def far(x: Tensor) -> Tensor:  # ((a·x - 5a)·x + 8a)·x - 4a
        return aten.sub.Tensor(aten.mul.Tensor(aten.add.Tensor(aten.mul.Tensor(
            aten.sub.Tensor(aten.mul.Tensor(x, a), 5 * a), x), 8 * a), x), 4 * a)

    return [far(aten.add.Tensor(t, 1)), near(t), near(aten.rsub.Scalar(t, 1)), far(aten.rsub.Scalar(t, 2))]
