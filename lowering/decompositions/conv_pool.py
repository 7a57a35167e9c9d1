"""nn.functional ops: convolutions, normalizations, softmax, pooling."""

from __future__ import annotations

import math
from typing import Any

from ._common import DType, Tensor, aten, canonical_dim, numel, register_decomposition


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


# layer_norm(x, shape, w, b, eps) = native_layer_norm(x, shape, w, b, eps)[0]
@register_decomposition(aten.layer_norm.default)
def layer_norm(input: Tensor, normalized_shape: list[Any], weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    return aten.native_layer_norm.default(input, normalized_shape, weight, bias, eps)[0]


# batch_norm(eval) = _native_batch_norm_legit_no_training(...)[0]; without running stats, the no_stats form
@register_decomposition(aten.batch_norm.default)
def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
               running_mean: Tensor | None, running_var: Tensor | None, training: bool, momentum: float,
               eps: float, cudnn_enabled: bool) -> Tensor:
    return native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


# native_batch_norm = the legit forms (training mode with running stats writes them: functionalize first)
@register_decomposition(aten.native_batch_norm.default)
def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                      momentum: float, eps: float) -> Any:
    if running_mean is None or running_var is None:
        return aten._native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps)
    if not training:
        return aten._native_batch_norm_legit_no_training.default(
            input, weight, bias, running_mean, running_var, momentum, eps)
    raise ValueError("batch norm in training mode updates its running statistics: run functionalize first")


# softmax(x, d, dtype) = _softmax(x.to(dtype), d, False)
@register_decomposition(aten.softmax.int)
def softmax(self: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    return aten._softmax.default(_cast(self, dtype), dim, False)


# log_softmax(x, d, dtype) = _log_softmax(x.to(dtype), d, False)
@register_decomposition(aten.log_softmax.int)
def log_softmax(self: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    return aten._log_softmax.default(_cast(self, dtype), dim, False)


def _cast(x: Tensor, dtype: DType | None) -> Tensor:
    if dtype is None or dtype is x.dtype:
        return x
    return aten._to_copy.default(x, dtype=dtype)


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


# dropout(x, p, train) = x when not training; else x * mask / (1 - p), mask from native_dropout
@register_decomposition(aten.dropout.default)
def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    if not train or p == 0:
        return aten.clone.default(input)
    return aten.native_dropout.default(input, p, train)[0]


# feature_dropout(x, p, train) = x * mask[N, C, 1...] / (1 - p)
@register_decomposition(aten.feature_dropout.default)
def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    if not train or p == 0:
        return aten.clone.default(input)
    keep = _keep_mask(input, p, feature=True)
    return aten.mul.Tensor(input, aten.div.Scalar(aten._to_copy.default(keep, dtype=input.dtype), 1 - p))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_ALPHA_PRIME = _SELU_ALPHA * _SELU_SCALE


# alpha_dropout(x, p) = x·a·mask + a·α'·(p - (1 - mask)), a = ((α'²p + 1)(1 - p))^-½ (keeps selu's statistics)
@register_decomposition(aten.alpha_dropout.default)
def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return _alpha_dropout(input, p, train, feature=False)


# feature_alpha_dropout = alpha_dropout with one mask per (N, C) channel
@register_decomposition(aten.feature_alpha_dropout.default)
def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return _alpha_dropout(input, p, train, feature=True)


def _alpha_dropout(input: Tensor, p: float, train: bool, feature: bool) -> Tensor:  # noqa: A002
    if not train or p == 0:
        return aten.clone.default(input)
    a = 1.0 / math.sqrt((_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    noise = aten._to_copy.default(_keep_mask(input, p, feature), dtype=input.dtype)
    shift = aten.add.Tensor(aten.mul.Tensor(aten.sub.Tensor(noise, 1), _ALPHA_PRIME * a), _ALPHA_PRIME * a * p)
    return aten.add.Tensor(aten.mul.Tensor(input, aten.mul.Tensor(noise, a)), shift)


def _keep_mask(input: Tensor, p: float, feature: bool) -> Tensor:  # noqa: A002
    shape = list(input.shape)
    if feature:
        shape = shape[:2] + [1] * (len(shape) - 2)
    return aten.lt.Scalar(aten.rand.default(shape, dtype=DType.float32), 1 - p)


# relu6(x) = hardtanh(x, 0, 6)
@register_decomposition(aten.relu6.default)
def relu6(self: Tensor) -> Tensor:
    return aten.hardtanh.default(self, 0, 6)


# silu(x) = x · sigmoid(x)
@register_decomposition(aten.silu.default)
def silu(self: Tensor) -> Tensor:
    return aten.mul.Tensor(self, aten.sigmoid.default(self))


# selu(x) = elu(x, α, scale) with selu's constants
@register_decomposition(aten.selu.default)
def selu(self: Tensor) -> Tensor:
    return aten.elu.default(self, _SELU_ALPHA, _SELU_SCALE)


# celu(x, α) = elu(x, α, 1, 1/α)
@register_decomposition(aten.celu.default)
def celu(self: Tensor, alpha: Any = 1.0) -> Tensor:
    return aten.elu.default(self, alpha, 1, 1.0 / alpha)


# threshold(x, t, v) = where(x <= t, v, x)
@register_decomposition(aten.threshold.default)
def threshold(self: Tensor, threshold: Any, value: Any) -> Tensor:
    return aten.where.self(aten.le.Scalar(self, threshold), aten.scalar_tensor.default(value, dtype=self.dtype), self)


# hardswish(x) = x · hardtanh(x + 3, 0, 6) / 6
@register_decomposition(aten.hardswish.default)
def hardswish(self: Tensor) -> Tensor:
    return aten.div.Scalar(aten.mul.Tensor(self, aten.hardtanh.default(aten.add.Tensor(self, 3), 0, 6)), 6)


# hardsigmoid(x) = hardtanh(x + 3, 0, 6) / 6
@register_decomposition(aten.hardsigmoid.default)
def hardsigmoid(self: Tensor) -> Tensor:
    return aten.div.Scalar(aten.hardtanh.default(aten.add.Tensor(self, 3), 0, 6), 6)


# softplus(x, β, t) = where(βx > t, x, log1p(exp(βx)) / β)
@register_decomposition(aten.softplus.default)
def softplus(self: Tensor, beta: Any = 1, threshold: Any = 20) -> Tensor:
    scaled = aten.mul.Tensor(self, beta)
    soft = aten.div.Scalar(aten.log1p.default(aten.exp.default(scaled)), beta)
    return aten.where.self(aten.gt.Scalar(scaled, threshold), self, soft)


# mish(x) = x · tanh(softplus(x))
@register_decomposition(aten.mish.default)
def mish(self: Tensor) -> Tensor:
    return aten.mul.Tensor(self, aten.tanh.default(softplus(self)))


# log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))
@register_decomposition(aten.log_sigmoid.default)
def log_sigmoid(self: Tensor) -> Tensor:
    return log_sigmoid_forward(self)[0]


# log_sigmoid_forward(x) = (min(x, 0) - log1p(b), b) with b = exp(-|x|)
@register_decomposition(aten.log_sigmoid_forward.default)
def log_sigmoid_forward(self: Tensor) -> tuple[Tensor, Tensor]:
    buffer = aten.exp.default(aten.neg.default(aten.abs.default(self)))
    low = aten.minimum.default(self, aten.scalar_tensor.default(0, dtype=self.dtype))
    return aten.sub.Tensor(low, aten.log1p.default(buffer)), buffer


# glu(x, d) = a · sigmoid(b), [a, b] the halves of x along d
@register_decomposition(aten.glu.default)
def glu(self: Tensor, dim: int = -1) -> Tensor:
    dim = canonical_dim(dim, self.dim())
    half = self.shape[dim] // 2
    first = aten.slice.Tensor(self, dim, 0, half)
    second = aten.slice.Tensor(self, dim, half, self.shape[dim])
    return aten.mul.Tensor(first, aten.sigmoid.default(second))


# prelu(x, w) = where(x > 0, x, w·x), w along the channel dim 1
@register_decomposition(aten.prelu.default)
def prelu(self: Tensor, weight: Tensor) -> Tensor:
    if self.dim() >= 2 and weight.numel() != 1:
        weight = aten.view.default(weight, [1, weight.shape[0]] + [1] * (self.dim() - 2))
    elif weight.dim() == 1 and self.dim() == 0:
        weight = aten.view.default(weight, [])
    return aten.where.self(aten.gt.Scalar(self, 0), self, aten.mul.Tensor(weight, self))


# _softmax_backward_data(g, y, d) = y · (g - sum(g·y, d))
@register_decomposition(aten._softmax_backward_data.default)
def softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: DType) -> Tensor:
    product = aten.mul.Tensor(grad_output, output)
    total = aten.sum.dim_IntList(product, [dim], True)
    return _cast(aten.sub.Tensor(product, aten.mul.Tensor(output, total)), input_dtype)


# _log_softmax_backward_data(g, y, d) = g - exp(y) · sum(g, d)
@register_decomposition(aten._log_softmax_backward_data.default)
def log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: DType) -> Tensor:
    total = aten.sum.dim_IntList(grad_output, [dim], True)
    return _cast(aten.sub.Tensor(grad_output, aten.mul.Tensor(aten.exp.default(output), total)), input_dtype)


# ---------------------------------------------------------------- normalization


# group_norm(x, G, w, b, eps) = native_group_norm(x, w, b, N, C, H·W, G, eps)[0]
@register_decomposition(aten.group_norm.default)
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,  # noqa: A002
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    sizes = list(input.shape)
    return aten.native_group_norm.default(input, weight, bias, sizes[0], sizes[1], numel(sizes[2:]),
                                          num_groups, eps)[0]


# instance_norm(x) = batch norm of x viewed as [1, N·C, ...] (input stats), or with running stats
@register_decomposition(aten.instance_norm.default)
def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    if not use_input_stats:
        return aten._native_batch_norm_legit_no_training.default(
            input, weight, bias, running_mean, running_var, momentum, eps)[0]
    sizes = list(input.shape)
    folded = aten.view.default(input, [1, sizes[0] * sizes[1], *sizes[2:]])
    normed = aten._native_batch_norm_legit.no_stats(folded, None, None, True, momentum, eps)[0]
    out = aten.view.default(normed, sizes)
    channel = [1, sizes[1]] + [1] * (len(sizes) - 2)
    if weight is not None:
        out = aten.mul.Tensor(out, aten.view.default(weight, channel))
    if bias is not None:
        out = aten.add.Tensor(out, aten.view.default(bias, channel))
    return out


# _batch_norm_with_update_functional = _native_batch_norm_legit_functional + an empty reserve
@register_decomposition(aten._batch_norm_with_update_functional.default)
def batch_norm_with_update_functional(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                                      running_mean: Tensor, running_var: Tensor, momentum: float,
                                      eps: float) -> tuple[Tensor, ...]:
    out, mean, invstd, new_mean, new_var = aten._native_batch_norm_legit_functional.default(
        input, weight, bias, running_mean, running_var, True, momentum, eps)
    return out, mean, invstd, _reserve(), new_mean, new_var


# _batch_norm_no_update = _native_batch_norm_legit_no_training + an empty reserve
@register_decomposition(aten._batch_norm_no_update.default)
def batch_norm_no_update(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                         running_mean: Tensor | None, running_var: Tensor | None, momentum: float,
                         eps: float) -> tuple[Tensor, ...]:
    out, mean, invstd = native_batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)
    return out, mean, invstd, _reserve()


def _reserve() -> Tensor:
    return aten.empty.memory_format([0], dtype=DType.uint8)


# native_batch_norm_backward: dx = w·invstd·(g - mean(g) - x̂·mean(g·x̂)) (train), w·invstd·g (eval);
# dw = sum(g·x̂); db = sum(g), with x̂ = (x - mean)·invstd
@register_decomposition(aten.native_batch_norm_backward.default)
def native_batch_norm_backward(grad_out: Tensor, input: Tensor, weight: Tensor | None,  # noqa: A002
                               running_mean: Tensor | None, running_var: Tensor | None,
                               save_mean: Tensor | None, save_invstd: Tensor | None, train: bool, eps: float,
                               output_mask: list[bool]) -> tuple[Any, ...]:
    rank = input.dim()
    axes = [0, *range(2, rank)]
    channel = [1, input.shape[1]] + [1] * (rank - 2)
    if train:
        mean, invstd = save_mean, save_invstd
    else:
        mean, invstd = running_mean, aten.rsqrt.default(aten.add.Tensor(running_var, eps))
    mean, invstd = aten.view.default(mean, channel), aten.view.default(invstd, channel)
    xhat = aten.mul.Tensor(aten.sub.Tensor(input, mean), invstd)
    scale = invstd if weight is None else aten.mul.Tensor(invstd, aten.view.default(weight, channel))
    if train:
        centered = aten.sub.Tensor(grad_out, aten.mean.dim(grad_out, axes, True))
        projected = aten.mul.Tensor(xhat, aten.mean.dim(aten.mul.Tensor(grad_out, xhat), axes, True))
        dx = aten.mul.Tensor(scale, aten.sub.Tensor(centered, projected))
    else:
        dx = aten.mul.Tensor(grad_out, scale)
    param = input.dtype if weight is None else weight.dtype
    dw = _cast(aten.sum.dim_IntList(aten.mul.Tensor(grad_out, xhat), axes), param)
    db = _cast(aten.sum.dim_IntList(grad_out, axes), param)
    outputs = (_cast(dx, input.dtype), dw, db)
    return tuple(value if keep else None for value, keep in zip(outputs, output_mask))


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


# adaptive_max_pool2d(x, out) = max_pool2d_with_indices(x, in/out, in/out) when out divides in
@register_decomposition(aten.adaptive_max_pool2d.default)
def adaptive_max_pool2d(self: Tensor, output_size: list[int]) -> Any:
    sizes = list(self.shape)[-2:]
    if any(type(s) is not int or s % o for s, o in zip(sizes, output_size)):
        return NotImplemented
    kernel = [s // o for s, o in zip(sizes, output_size)]
    return aten.max_pool2d_with_indices.default(self, kernel, kernel, [0, 0], [1, 1], False)


# adaptive_max_pool1d(x, out) = adaptive_max_pool2d(x[..., None, :], [1, out]) squeezed
@register_decomposition(aten.adaptive_max_pool1d.default)
def adaptive_max_pool1d(self: Tensor, output_size: list[int]) -> Any:
    size = self.shape[-1]
    if type(size) is not int or size % output_size[0]:
        return NotImplemented
    kernel = size // output_size[0]
    values, indices = aten.max_pool2d_with_indices.default(
        aten.unsqueeze.default(self, -2), [1, kernel], [1, kernel], [0, 0], [1, 1], False)
    axis = self.dim() - 1
    return aten.squeeze.dims(values, [axis]), aten.squeeze.dims(indices, [axis])


# pad(x, p, "constant", v) = constant_pad_nd(x, p, v); reflect/replicate/circular: their pad ops
@register_decomposition(aten.pad.default)
def pad(self: Tensor, pad: list[Any], mode: str = "constant", value: float | None = None) -> Tensor:
    if mode == "constant":
        return aten.constant_pad_nd.default(self, pad, 0 if value is None else value)
    sides = len(pad) // 2
    if mode == "reflect":
        return getattr(aten, f"reflection_pad{sides}d").default(self, pad)
    if mode == "replicate":
        if sides == 1:
            wide = aten.unsqueeze.default(self, -2)
            return aten.squeeze.dims(aten.replication_pad2d.default(wide, [*pad, 0, 0]), [self.dim() - 1])
        return getattr(aten, f"replication_pad{sides}d").default(self, pad)
    if mode == "circular":
        out = self
        for side in range(sides):
            dim = self.dim() - 1 - side
            before, after = pad[2 * side], pad[2 * side + 1]
            size = out.shape[dim]
            pieces = [aten.slice.Tensor(out, dim, size - before, size)] if before else []
            pieces.append(out)
            if after:
                pieces.append(aten.slice.Tensor(out, dim, 0, after))
            out = aten.cat.default(pieces, dim) if len(pieces) > 1 else out
        return out
    raise ValueError(f"pad: unknown mode {mode!r}")


# upsample_nearest1d(x, L) = upsample_nearest2d(x[..., None, :], [1, L])[..., 0, :]
@register_decomposition(aten.upsample_nearest1d.default)
def upsample_nearest1d(self: Tensor, output_size: list[Any], scales: float | None = None) -> Tensor:
    wide = aten.unsqueeze.default(self, -2)
    if scales is None:
        out = aten.upsample_nearest2d.vec(wide, [1, output_size[0]], None)
    else:
        out = aten.upsample_nearest2d.vec(wide, None, [1.0, scales])
    return aten.squeeze.dims(out, [self.dim() - 1])


# upsample_nearest1d.vec = upsample_nearest1d
@register_decomposition(aten.upsample_nearest1d.vec)
def upsample_nearest1d_vec(input: Tensor, output_size: list[Any] | None,  # noqa: A002
                           scale_factors: list[float] | None) -> Tensor:
    wide = aten.unsqueeze.default(input, -2)
    if output_size is not None:
        out = aten.upsample_nearest2d.vec(wide, [1, output_size[0]], None)
    else:
        out = aten.upsample_nearest2d.vec(wide, None, [1.0, scale_factors[0]])
    return aten.squeeze.dims(out, [input.dim() - 1])


# upsample_nearest2d(x, size, sh, sw) = upsample_nearest2d.vec(x, size) (or the scales)
@register_decomposition(aten.upsample_nearest2d.default)
def upsample_nearest2d(self: Tensor, output_size: list[Any], scales_h: float | None = None,
                       scales_w: float | None = None) -> Tensor:
    if scales_h is None or scales_w is None:
        return aten.upsample_nearest2d.vec(self, output_size, None)
    return aten.upsample_nearest2d.vec(self, None, [scales_h, scales_w])


# upsample_bilinear2d(x, size, ac, sh, sw) = upsample_bilinear2d.vec(x, size, ac) (or the scales)
@register_decomposition(aten.upsample_bilinear2d.default)
def upsample_bilinear2d(self: Tensor, output_size: list[Any], align_corners: bool,
                        scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    if scales_h is None or scales_w is None:
        return aten.upsample_bilinear2d.vec(self, output_size, align_corners, None)
    return aten.upsample_bilinear2d.vec(self, None, align_corners, [scales_h, scales_w])


# upsample_linear1d(x, L) = upsample_bilinear2d(x[..., None, :], [1, L])[..., 0, :]
@register_decomposition(aten.upsample_linear1d.vec)
def upsample_linear1d_vec(input: Tensor, output_size: list[Any] | None, align_corners: bool,  # noqa: A002
                          scale_factors: list[float] | None) -> Tensor:
    wide = aten.unsqueeze.default(input, -2)
    if output_size is not None:
        out = aten.upsample_bilinear2d.vec(wide, [1, output_size[0]], align_corners, None)
    else:
        out = aten.upsample_bilinear2d.vec(wide, None, align_corners, [1.0, scale_factors[0]])
    return aten.squeeze.dims(out, [input.dim() - 1])


# pixel_shuffle(x, r): [N, C·r², H, W] -> [N, C, r, r, H, W] -> [N, C, H, r, W, r] -> [N, C, H·r, W·r]
@register_decomposition(aten.pixel_shuffle.default)
def pixel_shuffle(self: Tensor, upscale_factor: int) -> Tensor:
    r = upscale_factor
    *batch, c, h, w = list(self.shape)
    n = len(batch)
    split = aten.view.default(self, [*batch, c // (r * r), r, r, h, w])
    order = [*range(n), n, n + 3, n + 1, n + 4, n + 2]
    moved = aten.clone.default(aten.permute.default(split, order), memory_format="contiguous_format")
    return aten.view.default(moved, [*batch, c // (r * r), h * r, w * r])


# pixel_unshuffle(x, r): [N, C, H·r, W·r] -> [N, C, H, r, W, r] -> [N, C, r, r, H, W] -> [N, C·r², H, W]
@register_decomposition(aten.pixel_unshuffle.default)
def pixel_unshuffle(self: Tensor, downscale_factor: int) -> Tensor:
    r = downscale_factor
    *batch, c, h, w = list(self.shape)
    n = len(batch)
    split = aten.view.default(self, [*batch, c, h // r, r, w // r, r])
    order = [*range(n), n, n + 2, n + 4, n + 1, n + 3]
    moved = aten.clone.default(aten.permute.default(split, order), memory_format="contiguous_format")
    return aten.view.default(moved, [*batch, c * r * r, h // r, w // r])


# im2col(x, k, d, p, s)[n, c·kh·kw + i·kw + j, l] = padded x at the (i, j) tap of sliding block l
@register_decomposition(aten.im2col.default)
def im2col(self: Tensor, kernel_size: list[int], dilation: list[int], padding: list[int],
           stride: list[int]) -> Tensor:
    batched = self.dim() == 4
    x = self if batched else aten.unsqueeze.default(self, 0)
    x = aten.constant_pad_nd.default(x, [padding[1], padding[1], padding[0], padding[0]], 0)
    n, c, h, w = list(x.shape)
    out_h = (h - dilation[0] * (kernel_size[0] - 1) - 1) // stride[0] + 1
    out_w = (w - dilation[1] * (kernel_size[1] - 1) - 1) // stride[1] + 1
    taps = []
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            top, left = i * dilation[0], j * dilation[1]
            rows = aten.slice.Tensor(x, 2, top, top + stride[0] * (out_h - 1) + 1, stride[0])
            tap = aten.slice.Tensor(rows, 3, left, left + stride[1] * (out_w - 1) + 1, stride[1])
            taps.append(aten.unsqueeze.default(tap, 2))
    stacked = aten.cat.default(taps, 2)
    cols = aten.view.default(stacked, [n, c * kernel_size[0] * kernel_size[1], out_h * out_w])
    return cols if batched else aten.squeeze.dims(cols, [0])


# one_hot(x, n) = (x[..., None] == arange(n)).to(int64)
@register_decomposition(aten.one_hot.default)
def one_hot(self: Tensor, num_classes: int = -1) -> Any:
    if num_classes == -1:
        return NotImplemented  # the class count comes from the data
    classes = aten.arange.start_step(0, num_classes, 1, dtype=DType.int64)
    return aten._to_copy.default(aten.eq.Tensor(aten.unsqueeze.default(self, -1), classes), dtype=DType.int64)


# ---------------------------------------------------------------- attention


# sdpa(q, k, v) = softmax(q·kᵀ·scale + mask) · v (dropout on the weights when p > 0)
@register_decomposition(aten.scaled_dot_product_attention.default)
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    length, source = query.shape[-2], key.shape[-2]
    factor = scale if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        repeat = query.shape[-3] // key.shape[-3]
        key = _repeat_heads(key, repeat)
        value = _repeat_heads(value, repeat)
    scores = aten.mul.Tensor(aten.matmul.default(query, aten.transpose.int(key, -2, -1)), factor)
    if is_causal:
        ones = aten.full.default([length, source], True, dtype=DType.bool)
        causal = aten.logical_not.default(_tril_mask(ones, 0))
        scores = aten.where.self(causal, aten.scalar_tensor.default(float("-inf"), dtype=scores.dtype), scores)
    if attn_mask is not None:
        if attn_mask.dtype is DType.bool:
            minus = aten.scalar_tensor.default(float("-inf"), dtype=scores.dtype)
            scores = aten.where.self(aten.logical_not.default(attn_mask), minus, scores)
        else:
            scores = aten.add.Tensor(scores, attn_mask)
    weights = aten._softmax.default(scores, -1, False)
    if dropout_p > 0:
        weights = aten.native_dropout.default(weights, dropout_p, True)[0]
    return aten.matmul.default(weights, value)


def _repeat_heads(x: Tensor, repeat: int) -> Tensor:
    """repeat_interleave(x, repeat, dim=-3)."""
    sizes = list(x.shape)
    wide = aten.unsqueeze.default(x, -3)
    expanded = aten.expand.default(wide, [*sizes[:-3], sizes[-3], repeat, *sizes[-2:]])
    return aten.view.default(aten.clone.default(expanded), [*sizes[:-3], sizes[-3] * repeat, *sizes[-2:]])


def _tril_mask(x: Tensor, diagonal: int) -> Tensor:
    """x where col - row <= diagonal, else False/0 (a 2-D mask)."""
    rows = aten.unsqueeze.default(aten.arange.start_step(0, x.shape[-2], 1), -1)
    cols = aten.arange.start_step(0, x.shape[-1], 1)
    keep = aten.le.Scalar(aten.sub.Tensor(cols, rows), diagonal)
    return aten.logical_and.default(keep, x)


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
