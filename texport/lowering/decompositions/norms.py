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
    reshape_to,
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


# native_layer_norm_backward(g, x, shape, mean, rstd, w, b, mask):
#   x̂ = (x - mean)·rstd, ĝ = g·w, N = numel(shape)
#   dx = rstd / N · (N·ĝ - Σ ĝ - x̂·Σ ĝ·x̂) (sums over the normalized dims), dw = Σ g·x̂, db = Σ g
#   (sums over the outer dims); torch's default table takes this core op there, in float32 for
#   half types
@register_decomposition(aten.native_layer_norm_backward.default)
def native_layer_norm_backward(grad_out: Tensor, input: Tensor, normalized_shape: list[Any],  # noqa: A002
                               mean: Tensor, rstd: Tensor, weight: Tensor | None, bias: Tensor | None,
                               output_mask: list[bool]) -> tuple[Any, Any, Any]:
    axis = input.dim() - len(normalized_shape)
    inner, outer = list(range(axis, input.dim())), list(range(axis))
    n = numel(list(input.shape)[axis:])
    grad, x, w = (_computed(t) if t is not None else None for t in (grad_out, input, weight))
    mean, rstd = (_unsqueeze_to(t, input.dim()) for t in (mean, rstd))
    x_hat = aten.mul.Tensor(aten.sub.Tensor(x, mean), rstd)
    grad_x_hat = grad if w is None else aten.mul.Tensor(grad, w)
    scaled = aten.mul.Tensor(grad_x_hat, n)
    total = aten.sum.dim_IntList(grad_x_hat, inner, True)
    along = aten.mul.Tensor(x_hat, aten.sum.dim_IntList(aten.mul.Tensor(grad_x_hat, x_hat), inner, True))
    d_input = d_weight = d_bias = None
    if output_mask[0]:
        d_input = aten.mul.Tensor(aten.div.Tensor(rstd, n),
                                  aten.sub.Tensor(aten.sub.Tensor(scaled, total), along))
    if output_mask[1] and weight is not None:
        d_weight = aten.mul.Tensor(grad, x_hat)
        d_weight = aten.sum.dim_IntList(d_weight, outer, False) if outer else d_weight
    if output_mask[2] and bias is not None:
        d_bias = aten.sum.dim_IntList(grad, outer, False) if outer else aten.clone.default(grad)
    return (_cast_back(d_input, input), _cast_back(d_weight, weight), _cast_back(d_bias, bias))


def _computed(x: Tensor) -> Tensor:
    """x.to(float32 for half types, memory_format=contiguous_format): x itself when it already is."""
    dtype = DType.float32 if x.dtype in (DType.float16, DType.bfloat16) else x.dtype
    if dtype is x.dtype and is_contiguous(x):
        return x
    return aten._to_copy.default(x, dtype=dtype, memory_format="contiguous_format")


def _unsqueeze_to(x: Tensor, rank: int) -> Tensor:
    for _ in range(rank - x.dim()):
        x = aten.unsqueeze.default(x, -1)
    return x


def _cast_back(result: Tensor | None, like: Tensor | None) -> Tensor | None:
    return None if result is None or like is None else cast_to(result, like.dtype)


# native_group_norm_backward(g, x, mean, rstd, γ, N, C, HxW, groups, mask), torch._decomp's:
#   ds = Σ g·x, db = Σ g per (n, c); per group, ds·γ and db·γ summed over its channels;
#   dx = g·rstd·γ + x·c2 + c3, c2 = (db·mean - ds)·rstd³/(HxW·cpg), c3 = -c2·mean - db·rstd/(HxW·cpg);
#   dγ = Σ_n (ds - db·mean)·rstd, dβ = Σ_n db
@register_decomposition(aten.native_group_norm_backward.default)
def native_group_norm_backward(grad_output: Tensor, input: Tensor, mean: Tensor, rstd: Tensor,  # noqa: A002
                               gamma: Tensor | None, N: Any, C: Any, HxW: Any, group: int,  # noqa: N803
                               output_mask: list[bool]) -> tuple[Any, Any, Any]:
    cpg = C // group
    ds = aten.sum.dim_IntList(aten.view.default(aten.mul.Tensor(grad_output, input), [N, C, HxW]), [2])
    db = aten.sum.dim_IntList(aten.view.default(grad_output, [N, C, HxW]), [2])
    d_input = d_gamma = d_bias = None
    if output_mask[0]:
        d_input = _group_norm_input_grad(grad_output, input, mean, rstd, gamma, ds, db, [N, group, cpg, HxW])
    if output_mask[1]:
        centered = aten.sub.Tensor(aten.view.default(ds, [N, group, cpg]),
                                   aten.mul.Tensor(aten.view.default(db, [N, group, cpg]),
                                                   aten.unsqueeze.default(mean, -1)))
        d_gamma = aten.mul.Tensor(centered, aten.unsqueeze.default(rstd, -1))
        d_gamma = reshape_to(aten.sum.dim_IntList(d_gamma, [0]), [C])
    if output_mask[2]:
        d_bias = aten.sum.dim_IntList(db, [0])
    return d_input, d_gamma, d_bias


def _group_norm_input_grad(grad_output: Tensor, input: Tensor, mean: Tensor, rstd: Tensor,  # noqa: A002
                           gamma: Tensor | None, ds: Tensor, db: Tensor, sizes: list[Any]) -> Tensor:
    n, group, cpg, hxw = sizes
    s = 1.0 / (hxw * cpg)
    if gamma is not None:
        ds = aten.mul.Tensor(ds, aten.unsqueeze.default(gamma, 0))
        db = aten.mul.Tensor(db, aten.unsqueeze.default(gamma, 0))
        weight = reshape_to(gamma, [1, group, cpg])
    else:
        weight = aten.full.default([1, group, cpg], 1, dtype=DType.float32)
    ds_val = aten.sum.dim_IntList(reshape_to(ds, [n, group, cpg]), [2])
    db_val = aten.sum.dim_IntList(reshape_to(db, [n, group, cpg]), [2])
    c1 = aten.unsqueeze.default(aten.mul.Tensor(aten.unsqueeze.default(rstd, -1), weight), -1)
    c2 = aten.sub.Tensor(aten.mul.Tensor(db_val, mean), ds_val)
    for _ in range(3):
        c2 = aten.mul.Tensor(c2, rstd)
    c2 = aten.mul.Tensor(c2, s)
    c3 = aten.sub.Tensor(aten.mul.Tensor(aten.neg.default(c2), mean), aten.mul.Tensor(aten.mul.Tensor(db_val, rstd), s))
    c2, c3 = (_unsqueeze_to(c, 4) for c in (c2, c3))
    d_input = aten.add.Tensor(aten.add.Tensor(aten.mul.Tensor(reshape_to(grad_output, sizes), c1),
                                              aten.mul.Tensor(reshape_to(input, sizes), c2)), c3)
    return cast_to(reshape_to(d_input, list(input.shape)), input.dtype)
