"""nn.functional ops: convolutions, normalizations, softmax, pooling."""

from __future__ import annotations

from typing import Any

from ._common import DType, Tensor, aten, canonical_dim, register_decomposition


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
@register_decomposition([aten.dropout.default, aten.feature_dropout.default])
def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    if not train or p == 0:
        return aten.alias.default(input)
    return aten.native_dropout.default(input, p, train)[0]


_ = canonical_dim
