"""Normalizations: the composite forms become the native and legit batch,
layer and group norms of the core set."""

from __future__ import annotations

from typing import Any

from texport.dialects.type_info import finfo

from ._common import (
    DType,
    Tensor,
    aten,
    cast_to,
    contiguous,
    is_contiguous,
    numel,
    register_decomposition,
)


# layer_norm(x, shape, w, b, eps) = native_layer_norm(x, shape, w, b, eps)[0]
@register_decomposition(aten.layer_norm.default)
def layer_norm(input: Tensor, normalized_shape: list[Any], weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    return aten.native_layer_norm.default(input, normalized_shape, weight, bias, eps)[0]


# rms_norm(x, shape, w, eps) = x·rsqrt(mean(x², trailing dims) + eps)·w, in float32 for reduced floats
# (torch's _fused_rms_norm decomposition: the same ops, add.Scalar for eps)
@register_decomposition(aten.rms_norm.default)
def rms_norm(input: Tensor, normalized_shape: list[Any], weight: Tensor | None = None,  # noqa: A002
             eps: float | None = None) -> Tensor:
    x = cast_to(input, _computation_dtype(input.dtype))
    axes = [input.dim() - 1 - i for i in range(len(normalized_shape))]
    eps = _machine_epsilon(x.dtype) if eps is None else eps
    mean_square = aten.mean.dim(aten.pow.Tensor_Scalar(x, 2), axes, True)
    out = aten.mul.Tensor(x, aten.rsqrt.default(aten.add.Scalar(mean_square, eps)))
    if weight is not None:
        out = aten.mul.Tensor(out, weight)
    if not _is_channels_last(input):
        out = contiguous(out)
    return cast_to(out, input.dtype)


def _computation_dtype(dtype: DType) -> DType:
    return DType.float32 if dtype in (DType.float16, DType.bfloat16) else dtype


def _machine_epsilon(dtype: DType) -> float:
    return finfo(DType.float32 if dtype in (DType.float32, DType.complex64) else DType.float64).eps


def _is_channels_last(x: Tensor) -> bool:
    """torch's suggest_memory_format(x) is a channels-last format."""
    channels_last = {4: "channels_last", 5: "channels_last_3d"}.get(x.dim())
    return channels_last is not None and not is_contiguous(x) and is_contiguous(x, channels_last)


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


# group_norm(x, G, w, b, eps) = native_group_norm(x, w, b, N, C, H·W, G, eps)[0]
@register_decomposition(aten.group_norm.default)
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,  # noqa: A002
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    sizes = list(input.shape)
    return aten.native_group_norm.default(input, weight, bias, sizes[0], sizes[1], numel(sizes[2:]),
                                          num_groups, eps)[0]


# instance_norm(x) = batch_norm of x viewed as [1, N·C, ...] with the per-channel tensors repeated N times
# (torch's composite); in training with running stats it updates them: functionalize first
@register_decomposition(aten.instance_norm.default)
def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    sizes = list(input.shape)
    per_instance = [None if t is None else aten.repeat.default(t, [sizes[0]])
                    for t in (weight, bias, running_mean, running_var)]
    folded = aten.view.default(contiguous(input), [1, sizes[0] * sizes[1], *sizes[2:]])
    out = native_batch_norm(folded, *per_instance, use_input_stats, momentum, eps)[0]
    return aten.view.default(out, sizes)


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
    dw = cast_to(aten.sum.dim_IntList(aten.mul.Tensor(grad_out, xhat), axes), param)
    db = cast_to(aten.sum.dim_IntList(grad_out, axes), param)
    outputs = (cast_to(dx, input.dtype), dw, db)
    return tuple(value if keep else None for value, keep in zip(outputs, output_mask))
