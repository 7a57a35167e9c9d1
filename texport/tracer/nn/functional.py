"""``texport.nn.functional``: torch.nn.functional over op handles.

Every function computes only through op calls (``call(op(...))`` or Tensor
methods), never numpy, so that the same code runs eagerly and under tracing.
Each records the op torch.export records in its training IR: ``linear`` is
``aten.linear``, not ``mm`` + ``add``; composites (multi-head attention,
normalize) are spelled as torch spells them in Python.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from texport.dialects.dtypes import DType

from ..dispatcher import call
from ..factories import arange as _arange
from ..factories import ones_like, zeros, zeros_like
from ..factories import rand as _rand
from ..functions import cat
from ..grad import no_grad
from ..handles import op
from ..tensor import Tensor

# torch passes ``torch.backends.cudnn.enabled`` to batch_norm / layer_norm /
# group_norm; torch.export records False (the seed: ``batch_norm.default(...,
# True, 0.1, 1e-05, False)``), so texport records False for all three.
CUDNN_ENABLED = False

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "avg_pool1d",
    "avg_pool2d", "batch_norm", "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d", "conv2d", "conv3d",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_similarity",
    "cross_entropy", "dropout", "elu", "elu_", "embedding", "embedding_bag", "gaussian_nll_loss", "gelu", "glu", "group_norm",
    "hardsigmoid", "hardswish", "hardtanh", "hardtanh_", "instance_norm", "interpolate", "kl_div", "l1_loss", "layer_norm",
    "leaky_relu", "leaky_relu_", "linear", "log_softmax", "logsigmoid", "margin_ranking_loss", "max_pool1d",
    "max_pool2d",
    "huber_loss", "smooth_l1_loss",
    "mish", "mse_loss", "multi_head_attention_forward", "nll_loss", "normalize", "one_hot", "pad",
    "pixel_shuffle", "pixel_unshuffle", "poisson_nll_loss", "prelu", "relu", "relu6", "relu_", "rms_norm",
    "scaled_dot_product_attention", "sigmoid",
    "silu", "soft_margin_loss", "softmax", "softplus", "tanh", "selu", "selu_", "celu", "celu_", "threshold",
    "threshold_", "softshrink", "hardshrink", "softsign", "tanhshrink", "softmin", "rrelu", "rrelu_",
    "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
    "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices",
    "upsample", "upsample_bilinear", "upsample_nearest", "max_unpool1d", "max_unpool2d", "max_unpool3d",
    "affine_grid", "grid_sample", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d", "fractional_max_pool3d_with_indices",
]


# --------------------------------------------------------------------------
# Linear and convolution
# --------------------------------------------------------------------------


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    # y = x @ W^T + b
    return call(op("linear"), input, weight, bias)


def _conv(rank: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,  # noqa: A002
          padding: Any, dilation: Any, groups: int) -> Tensor:
    """conv{rank}d, or its ``.padding`` overload for 'same'/'valid'."""
    name = f"conv{rank}d.padding" if isinstance(padding, str) else f"conv{rank}d"
    return call(op(name), input, weight, bias, stride, padding, dilation, groups)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv(3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    return call(op("conv_transpose1d"), input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    return call(op("conv_transpose2d.input"), input, weight, bias, stride, padding, output_padding, groups,
                dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    return call(op("conv_transpose3d.input"), input, weight, bias, stride, padding, output_padding, groups,
                dilation)


# --------------------------------------------------------------------------
# Normalization
# --------------------------------------------------------------------------


def _verify_batch_size(size: Sequence[Any]) -> None:
    values_per_channel = size[0]
    for extent in size[2:]:
        values_per_channel = values_per_channel * extent
    if values_per_channel == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,  # noqa: A002
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if training:
        _verify_batch_size(input.size())
    return call(op("batch_norm"), input, weight, bias, running_mean, running_var, training, momentum, eps,
                CUDNN_ENABLED)


def layer_norm(input: Tensor, normalized_shape: Sequence[Any], weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    return call(op("layer_norm"), input, list(normalized_shape), weight, bias, eps, CUDNN_ENABLED)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    size = input.size()
    _verify_batch_size([size[0] * size[1] // num_groups, num_groups, *size[2:]])
    return call(op("group_norm"), input, num_groups, weight, bias, eps, CUDNN_ENABLED)


def rms_norm(input: Tensor, normalized_shape: Sequence[Any], weight: Tensor | None = None,  # noqa: A002
             eps: float | None = None) -> Tensor:
    return call(op("rms_norm"), input, list(normalized_shape), weight, eps)


def _verify_spatial_size(size: Sequence[Any]) -> None:
    spatial = 1
    for extent in size[2:]:
        spatial = spatial * extent
    if spatial == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def instance_norm(input: Tensor, running_mean: Tensor | None = None,  # noqa: A002
                  running_var: Tensor | None = None, weight: Tensor | None = None, bias: Tensor | None = None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if use_input_stats:
        _verify_spatial_size(input.size())
    return call(op("instance_norm"), input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                eps, CUDNN_ENABLED)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:  # noqa: A002
    # x / max(||x||_p, eps)
    norm = call(op("linalg_vector_norm"), input, p, [dim], True)
    denom = call(op("clamp_min"), norm, eps).expand_as(input)
    return input / denom


# --------------------------------------------------------------------------
# Dropout
# --------------------------------------------------------------------------


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return call(op("dropout_" if inplace else "dropout"), input, p, training)


# --------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("relu_" if inplace else "relu"), input)


def relu_(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("relu_"), input)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    # relu6_ is hardtanh_(x, 0, 6) in ATen (there is no relu6_ kernel of its own)
    if inplace:
        return call(op("hardtanh_"), input, 0.0, 6.0)
    return call(op("relu6"), input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("leaky_relu_" if inplace else "leaky_relu"), input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    return call(op("leaky_relu_"), input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("elu_" if inplace else "elu"), input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return call(op("elu_"), input, alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("selu_" if inplace else "selu"), input)


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("selu_"), input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("celu_" if inplace else "celu"), input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return call(op("celu_"), input, alpha)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("threshold_" if inplace else "threshold"), input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    return call(op("threshold_"), input, threshold, value)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,  # noqa: A002
          inplace: bool = False) -> Tensor:
    return call(op("rrelu_" if inplace else "rrelu"), input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:  # noqa: A002
    return call(op("rrelu_"), input, lower, upper, training)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    return call(op("softshrink"), input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    return call(op("hardshrink"), input, lambd)


def softsign(input: Tensor) -> Tensor:  # noqa: A002
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    return input - input.tanh()


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,  # noqa: A002
             inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return call(op("hardtanh_" if inplace else "hardtanh"), input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    return hardtanh(input, min_val, max_val, inplace=True)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    return call(op("softplus"), input, beta, threshold)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    return call(op("gelu"), input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("silu_" if inplace else "silu"), input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("mish_" if inplace else "mish"), input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("hardswish_" if inplace else "hardswish"), input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return call(op("hardsigmoid_" if inplace else "hardsigmoid"), input)


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("sigmoid"), input)


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("tanh"), input)


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("log_sigmoid"), input)


def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return call(op("glu"), input, dim)


def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    return call(op("prelu"), input, weight)


def _get_softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
            dtype: DType | None = None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim())
    return call(op("softmax.int"), input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
            dtype: DType | None = None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim())
    return call(op("softmax.int"), -input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
                dtype: DType | None = None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim())
    return call(op("log_softmax.int"), input, dim, dtype)


# --------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------


def _stride(stride: Any) -> Any:
    """torch passes an absent stride as [] (the op then uses the kernel size)."""
    return [] if stride is None else stride


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return call(op("max_pool1d_with_indices"), input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return call(op("max_pool1d"), input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return call(op("max_pool2d_with_indices"), input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return call(op("max_pool2d"), input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return call(op("max_pool3d_with_indices"), input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return call(op("max_pool3d"), input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    return call(op("avg_pool1d"), input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    return call(op("avg_pool2d"), input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                divisor_override)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    return call(op("avg_pool3d"), input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                divisor_override)


def _lp_pool(rank: int, input: Tensor, norm_type: float, kernel_size: Any, stride: Any,  # noqa: A002
             ceil_mode: bool) -> Tensor:
    """torch's lp_pool{1,2,3}d: (window mean of x^p, times the window size)^(1/p);
    p = ±inf is a max pool of |x|."""
    max_pool = (max_pool1d, max_pool2d, max_pool3d)[rank - 1]
    if norm_type == math.inf:
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    avg_pool = (avg_pool1d, avg_pool2d, avg_pool3d)[rank - 1]
    out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    window = math.prod(_expand(kernel_size, rank))
    return (out.sign() * relu(out.abs())).mul(window).pow(1.0 / norm_type)


def _expand(value: Any, rank: int) -> list[Any]:
    """torch's _single/_pair/_triple: an int repeated, a sequence as given."""
    return list(value) if isinstance(value, (list, tuple)) else [value] * rank


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,  # noqa: A002
              ceil_mode: bool = False) -> Tensor:
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,  # noqa: A002
              ceil_mode: bool = False) -> Tensor:
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,  # noqa: A002
              ceil_mode: bool = False) -> Tensor:
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def _fractional_max_pool(rank: int, input: Tensor, kernel_size: Any, output_size: Any,  # noqa: A002
                         output_ratio: Any, random_samples: Tensor | None) -> Any:
    """torch's fractional_max_pool{2,3}d_with_indices: a ratio scales the input's size; without given samples,
    one uniform sample per (batch, plane, axis) from the seeded generator."""
    name = f"fractional_max_pool{rank}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if rank == 2 and len(output_ratio) > 2:  # torch's own check, which a bare float fails too
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.")
        ratios = _expand(output_ratio, rank)
        output_size = [int(input.size(d - rank) * ratios[d]) for d in range(rank)]
    if random_samples is None:
        n_batch = 1 if input.dim() == rank + 1 else input.size(0)
        random_samples = _rand(n_batch, input.size(-rank - 1), rank, dtype=input.dtype)
    return call(op(name), input, kernel_size, output_size, random_samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> Any:
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> Any:
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    pooled = _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return pooled if return_indices else pooled[0]


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    pooled = _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return pooled if return_indices else pooled[0]


def _unpool_output_size(input: Tensor, kernel_size: list[int], stride: list[int],  # noqa: A002
                        padding: list[int], output_size: Any) -> list[Any]:
    """torch's _unpool_output_size: (in - 1)·stride + kernel - 2·padding, or a given size within a stride."""
    rank = len(kernel_size)
    spatial = list(input.size())[-rank:]
    default = [(spatial[d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(rank)]
    if output_size is None:
        sizes = default
    else:
        sizes = list(output_size)
        if len(sizes) == rank + 2:
            sizes = sizes[2:]
        if len(sizes) != rank:
            raise ValueError(f"output_size should be a sequence containing {rank} or {rank + 2} elements, but it "
                             f"has a length of '{len(sizes)}'")
        for d in range(rank):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < sizes[d] < high:
                raise ValueError(f'invalid output_size "{sizes}" (dim {d} must be between {low} and {high})')
    for d in range(rank):
        if sizes[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={sizes[d]}")
    return sizes


def _unpool_geometry(rank: int, kernel_size: Any, stride: Any, padding: Any) -> tuple[list[int], ...]:
    kernel = _expand(kernel_size, rank)
    return kernel, (_expand(stride, rank) if stride is not None else kernel), _expand(padding, rank)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    kernel, strides, pads = _unpool_geometry(1, kernel_size, stride, padding)
    sizes = _unpool_output_size(input, kernel, strides, pads, output_size) + [1]
    return call(op("max_unpool2d"), input.unsqueeze(-1), indices.unsqueeze(-1), sizes).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    kernel, strides, pads = _unpool_geometry(2, kernel_size, stride, padding)
    return call(op("max_unpool2d"), input, indices, _unpool_output_size(input, kernel, strides, pads, output_size))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    kernel, strides, pads = _unpool_geometry(3, kernel_size, stride, padding)
    sizes = _unpool_output_size(input, kernel, strides, pads, output_size)
    return call(op("max_unpool3d"), input, indices, sizes, strides, pads)


def _list_with_default(out_size: Any, defaults: Sequence[Any]) -> Any:
    """Adaptive pooling sizes: ``None`` entries keep the input's size."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    return call(op("adaptive_avg_pool1d"), input, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    return call(op("adaptive_avg_pool2d"), input, _list_with_default(output_size, input.size()))


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    return call(op("adaptive_avg_pool3d"), input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any,  # noqa: A002
                                     return_indices: bool = False) -> Any:
    return call(op("adaptive_max_pool1d"), input, output_size)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any,  # noqa: A002
                                     return_indices: bool = False) -> Any:
    return call(op("adaptive_max_pool2d"), input, _list_with_default(output_size, input.size()))


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any,  # noqa: A002
                                     return_indices: bool = False) -> Any:
    return call(op("adaptive_max_pool3d"), input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    output, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (output, indices) if return_indices else output


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    output, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (output, indices) if return_indices else output


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    output, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (output, indices) if return_indices else output


# --------------------------------------------------------------------------
# Embedding, padding, resampling, one_hot
# --------------------------------------------------------------------------


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # noqa: A002
              max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        raise NotImplementedError("embedding(max_norm=...) needs embedding_renorm_, which texport lacks")
    return call(op("embedding"), weight, input, padding_idx, scale_grad_by_freq, sparse)


_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,  # noqa: A002
                  max_norm: float | None = None, norm_type: float = 2, scale_grad_by_freq: bool = False,
                  mode: str = "mean", sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> Tensor:
    """Sums, means or maxima of bags of rows; a 2-D input is one bag per row."""
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
                         f"then it must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    input, offsets, per_sample_weights, include_last_offset = _flat_bags(  # noqa: A001
        input, offsets, per_sample_weights, include_last_offset)
    mode_enum = _bag_mode(mode, scale_grad_by_freq, sparse)
    if max_norm is not None:
        raise NotImplementedError("embedding_bag(max_norm=...) needs embedding_renorm_, which texport lacks")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    return call(op("embedding_bag.padding_idx"), weight, input, offsets, scale_grad_by_freq, mode_enum, sparse,
                per_sample_weights, include_last_offset, padding_idx)[0]


def _flat_bags(input: Tensor, offsets: Tensor | None, per_sample_weights: Tensor | None,  # noqa: A002
               include_last_offset: bool) -> tuple[Tensor, Tensor, Tensor | None, bool]:
    """The flat indices and bag offsets of a 1-D input with offsets, or of a 2-D input (a bag per row)."""
    if input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        return input, offsets, per_sample_weights, include_last_offset
    if input.dim() != 2:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if offsets is not None:
        raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                         f"of fixed length sequences. However, found offsets of type {type(offsets)}")
    offsets = _arange(0, input.numel(), input.size(1), dtype=input.dtype)
    weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    return input.reshape(-1), offsets, weights, False


def _bag_mode(mode: str, scale_grad_by_freq: bool, sparse: bool) -> int:
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    return _BAG_MODES[mode]


def pad(input: Tensor, pad: Sequence[Any], mode: str = "constant",  # noqa: A002
        value: float | None = None) -> Tensor:
    return call(op("pad"), input, list(pad), mode, value)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    return call(op("one_hot"), tensor, num_classes)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    return call(op("pixel_shuffle"), input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    return call(op("pixel_unshuffle"), input, downscale_factor)


# (mode, spatial rank) -> (op, whether it takes align_corners)
_UPSAMPLE_OPS = {
    ("nearest", 1): ("upsample_nearest1d.vec", False),
    ("nearest", 2): ("upsample_nearest2d.vec", False),
    ("nearest", 3): ("upsample_nearest3d.vec", False),
    ("nearest-exact", 1): ("_upsample_nearest_exact1d.vec", False),
    ("nearest-exact", 2): ("_upsample_nearest_exact2d.vec", False),
    ("nearest-exact", 3): ("_upsample_nearest_exact3d.vec", False),
    ("linear", 1): ("upsample_linear1d.vec", True),
    ("bilinear", 2): ("upsample_bilinear2d.vec", True),
    ("trilinear", 3): ("upsample_trilinear3d.vec", True),
    ("bicubic", 2): ("upsample_bicubic2d.vec", True),
}
_NEEDS_RANK = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _interpolate_sizes(input: Tensor, size: Any, scale_factor: Any,  # noqa: A002
                       recompute_scale_factor: bool | None) -> tuple[Any, Any]:
    """(output_size, scale_factors) as torch's interpolate computes them."""
    rank = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        if isinstance(size, (list, tuple)):
            if len(size) != rank:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please provide "
                    "input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
                )
            return list(size), None
        return [size] * rank, None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != rank:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                "(s1, s2, ...,sK) format."
            )
        factors = [float(s) for s in scale_factor]
    else:
        factors = [float(scale_factor)] * rank
    if recompute_scale_factor:
        return [math.floor(float(input.size(i + 2)) * factors[i]) for i in range(rank)], None
    return None, factors


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,  # noqa: A002
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    rank = input.dim() - 2
    if mode == "area" and scale_factor is not None:
        recompute_scale_factor = True  # area always pools to an explicit size
    output_size, factors = _interpolate_sizes(input, size, scale_factor, recompute_scale_factor)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported by texport")
    if mode == "area" and rank in (1, 2, 3):
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[rank - 1]
        return pool(input, output_size)
    entry = _UPSAMPLE_OPS.get((mode, rank))
    if entry is None:
        needed = _NEEDS_RANK.get(mode)
        if needed is not None and needed != rank:
            raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {needed + 2}D input")
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: "
            f"nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})"
        )
    name, takes_align_corners = entry
    if takes_align_corners:
        return call(op(name), input, output_size, align_corners, factors)
    return call(op(name), input, output_size, factors)


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",  # noqa: A002
             align_corners: bool | None = None) -> Tensor:
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:  # noqa: A002
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:  # noqa: A002
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_ALIGN_CORNERS_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                          "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                          "documentation of grid_sample for details.")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",  # noqa: A002
                align_corners: bool | None = None) -> Tensor:
    if mode not in _GRID_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _GRID_PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    return call(op("grid_sampler"), input, grid, _GRID_MODES[mode], _GRID_PADDINGS[padding_mode], align_corners)


def affine_grid(theta: Tensor, size: list[int], align_corners: bool | None = None) -> Tensor:
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    k = len(size) - 2
    if theta.dim() != 3 or theta.shape[-2] != k or theta.shape[-1] != k + 1:
        raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for size {size}. "
                         f"Got {theta.shape}.")
    spatial = list(size)[-k:]
    if align_corners and any(s == 1 for s in spatial):
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the "
                      "documentation of affine_grid for details.", stacklevel=2)
    elif any(s <= 0 for s in size):  # min(size) <= 0 without ordering symbolic sizes
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return call(op("affine_grid_generator"), theta, size, align_corners)


# --------------------------------------------------------------------------
# Losses and distances
# --------------------------------------------------------------------------

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction: str) -> int:
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=3)
        return 1
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """The reduction string, from the deprecated size_average/reduce pair when given."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{result}' instead.",
                  stacklevel=3)
    return result


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                  size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return call(op("cross_entropy_loss"), input, target, weight, enum, ignore_index, label_smoothing)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
             size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None,
             reduction: str = "mean") -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return call(op("nll_loss_nd"), input, target, weight, enum, ignore_index)


def _broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:  # noqa: A002
    """torch.broadcast_tensors for two: expands only the operands whose size differs."""
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    warnings.warn(
        f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
        "This will likely lead to incorrect results due to broadcasting. "
        "Please ensure they have the same size.",
        stacklevel=3,
    )
    shape = _broadcast_shape(tuple(input.shape), tuple(target.shape))
    expand = [t if tuple(t.shape) == shape else t.expand(list(shape)) for t in (input, target)]
    return expand[0], expand[1]


def _broadcast_shape(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + a
    b = (1,) * (rank - len(b)) + b
    shape = []
    for x, y in zip(a, b):
        if x != 1 and y != 1 and x != y:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y})")
        shape.append(y if x == 1 else x)
    return tuple(shape)


def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
             reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    input, target = _broadcast_pair(input, target)
    return call(op("mse_loss"), input, target, enum)


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
            reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    input, target = _broadcast_pair(input, target)
    return call(op("l1_loss"), input, target, enum)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
                   reduce: bool | None = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    input, target = _broadcast_pair(input, target)
    return call(op("smooth_l1_loss"), input, target, enum, beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0) -> Tensor:  # noqa: A002
    input, target = _broadcast_pair(input, target)
    return call(op("huber_loss"), input, target, _reduction_enum(reduction), delta)


def _infer_size(a: tuple, b: tuple) -> tuple:
    """torch's _infer_size: the broadcast of two sizes, right-aligned."""
    ndim = max(len(a), len(b))
    a = (1,) * (ndim - len(a)) + tuple(a)
    b = (1,) * (ndim - len(b)) + tuple(b)
    out = []
    for i, (p, q) in enumerate(zip(a, b)):
        if p != q and p != 1 and q != 1:
            raise RuntimeError(f"The size of tensor a ({p}) must match the size of tensor b ({q}) "
                               f"at non-singleton dimension {i}")
        out.append(q if p == 1 else p)
    return tuple(out)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) "
            "is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(_infer_size(tuple(target.shape), tuple(weight.shape)))
    return call(op("binary_cross_entropy"), input, target, weight, enum)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: Tensor | None = None, size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    return call(op("binary_cross_entropy_with_logits"), input, target, weight, pos_weight, enum)


def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
           reduce: bool | None = None, reduction: str = "mean", log_target: bool = False) -> Tensor:
    if size_average is not None or reduce is not None:
        enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                stacklevel=2,
            )
        enum = _reduction_enum("sum" if reduction == "batchmean" else reduction)
    reduced = call(op("kl_div"), input, target, enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,  # noqa: A002
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """torch's Python composite: 0.5 (log var + (input - target)^2 / var), var clamped at eps
    (in place, without grad, on a clone); full adds log(2 pi) / 2."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.size()) != tuple(input.size()):
        if tuple(input.size())[:-1] == tuple(var.size()):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size(), strict=True) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,  # noqa: A002
                     size_average: bool | None = None, eps: float = 1e-8, reduce: bool | None = None,
                     reduction: str = "mean") -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return call(op("poisson_nll_loss"), input, target, log_input, full, eps, _reduction_enum(reduction))


def soft_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return call(op("soft_margin_loss"), input, target, enum)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return call(op("margin_ranking_loss"), input1, input2, target, margin, enum)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    return call(op("cosine_similarity"), x1, x2, dim, eps)


# --------------------------------------------------------------------------
# Attention
# --------------------------------------------------------------------------


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    # softmax(Q K^T * scale + mask) V
    return call(op("scaled_dot_product_attention"), query, key, value, attn_mask, dropout_p, is_causal,
                scale=scale, enable_gqa=enable_gqa)


def _none_or_dtype(value: Tensor | None) -> DType | None:
    if value is None:
        return None
    if isinstance(value, Tensor):
        return value.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type: DType | None, other_name: str,
                    target_type: DType, check_other: bool = True) -> Tensor | None:
    """A bool mask becomes an additive float mask (0 where kept, -inf where masked)."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype is not DType.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
            stacklevel=3,
        )
    if not is_float:
        mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                     attn_mask: Tensor | None, num_heads: int) -> bool:
    """Whether the call is batched (3-D query); checks the ranks of the other inputs."""
    if query.dim() == 3:
        _check(key.dim() == 3 and value.dim() == 3,
               "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
               f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None:
            _check(key_padding_mask.dim() == 2,
                   "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
                   f"{key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            _check(attn_mask.dim() in (2, 3),
                   "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                   f"{attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        _check(key.dim() == 2 and value.dim() == 2,
               "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
               f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None:
            _check(key_padding_mask.dim() == 1,
                   "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found "
                   f"{key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            _check(attn_mask.dim() in (2, 3),
                   "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                   f"{attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                _check(tuple(attn_mask.shape) == expected,
                       f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
    )


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor,
                          b: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """q, k, v projected by one packed [3E, E] weight; self-attention is one linear."""
    embed = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            # [..., 3, E] then move the 3 first: same order as chunk(), better memory locality
            proj = proj.unflatten(-1, (3, embed)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([embed, embed * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed, embed * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, embed)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor,
                   b_q: Tensor | None = None, b_k: Tensor | None = None,
                   b_v: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _mha_masks(attn_mask: Tensor | None, key_padding_mask: Tensor | None, is_causal: bool,
               need_weights: bool, dtype: DType) -> tuple[Tensor | None, Tensor | None, bool]:
    """Canonical float masks; a causal hint alone (no padding mask, no weights) goes to sdpa."""
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                       "attn_mask", dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        return None, None, True
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", dtype, check_other=False)
    return attn_mask, key_padding_mask, is_causal and key_padding_mask is None


def _mha_mask_to_3d(attn_mask: Tensor, tgt_len: int, src_len: int, bsz: int, num_heads: int) -> Tensor:
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(tgt_len, src_len)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        expected = (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != expected:
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {expected}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
    bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
    out_proj_bias: Tensor | None, training: bool = True, key_padding_mask: Tensor | None = None,
    need_weights: bool = True, attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None, static_k: Tensor | None = None, static_v: Tensor | None = None,
    average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """torch's multi-head attention, sequence-first ([L, N, E]); the same op sequence."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    attn_mask, key_padding_mask, is_causal = _mha_masks(attn_mask, key_padding_mask, is_causal, need_weights,
                                                        query.dtype)
    _check(embed_dim == embed_dim_to_check,
           f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    _check(head_dim * num_heads == embed_dim, f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        _check(tuple(key.shape[:2]) == tuple(value.shape[:2]),
               f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)
    else:
        _check(tuple(key.shape) == tuple(value.shape),
               f"key shape {key.shape} does not match value shape {value.shape}")
        _check(in_proj_weight is not None, "use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        attn_mask = _mha_mask_to_3d(attn_mask, tgt_len, src_len, bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        _check(static_k is None, "bias cannot be added to static key.")
        _check(static_v is None, "bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    else:
        _check(bias_k is None and bias_v is None, "bias_k and bias_v must be given together")
    q, k, v = _mha_heads(q, k, v, tgt_len, bsz, num_heads, head_dim, static_k, static_v)
    if add_zero_attn:
        zero_shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(zero_shape, dtype=k.dtype)], dim=1)
        v = cat([v, zeros(zero_shape, dtype=v.dtype)], dim=1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        expected = (bsz, src_len)
        _check(tuple(key_padding_mask.shape) == expected,
               f"expecting key_padding_mask shape of {expected}, but got {key_padding_mask.shape}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        key_padding_mask = key_padding_mask.reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    shape = (tgt_len, bsz, src_len, embed_dim, num_heads, head_dim)
    if need_weights:
        return _mha_with_weights(q, k, v, attn_mask, dropout_p, out_proj_weight, out_proj_bias, shape,
                                 average_attn_weights, is_batched)
    return _mha_with_sdpa(q, k, v, attn_mask, dropout_p, is_causal, out_proj_weight, out_proj_bias, shape,
                          is_batched)


def _mha_heads(q: Tensor, k: Tensor, v: Tensor, tgt_len: int, bsz: int, num_heads: int, head_dim: int,
               static_k: Tensor | None, static_v: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    """[L, N, E] -> [N*H, L, E/H] for q, k and v (static k/v are already in that form)."""
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        _check(static_k.size(0) == bsz * num_heads,
               f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}")
        _check(static_k.size(2) == head_dim,
               f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        _check(static_v.size(0) == bsz * num_heads,
               f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}")
        _check(static_v.size(2) == head_dim,
               f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v
    return q, k, v


def _mha_with_weights(q: Tensor, k: Tensor, v: Tensor, attn_mask: Tensor | None, dropout_p: float,
                      out_proj_weight: Tensor, out_proj_bias: Tensor | None, shape: tuple[Any, ...],
                      average_attn_weights: bool, is_batched: bool) -> tuple[Tensor, Tensor]:
    # weights = softmax(Q K^T / sqrt(d) + mask); out = (weights V) W_o^T + b_o
    tgt_len, bsz, src_len, embed_dim, num_heads, _ = shape
    head_dim = q.shape[-1]
    q_scaled = q * math.sqrt(1.0 / float(head_dim))
    if attn_mask is not None:
        weights = attn_mask.baddbmm(q_scaled, k.transpose(-2, -1))
    else:
        weights = q_scaled.bmm(k.transpose(-2, -1))
    weights = softmax(weights, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    output = weights.bmm(v)
    output = output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
    output = linear(output, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not is_batched:
        output = output.squeeze(1)
        weights = weights.squeeze(0)
    return output, weights


def _mha_with_sdpa(q: Tensor, k: Tensor, v: Tensor, attn_mask: Tensor | None, dropout_p: float,
                   is_causal: bool, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
                   shape: tuple[Any, ...], is_batched: bool) -> tuple[Tensor, None]:
    tgt_len, bsz, src_len, embed_dim, num_heads, head_dim = shape
    if attn_mask is not None:
        # (1, L, S) broadcasts over (N, H); (N*H, L, S) splits into (N, H, L, S)
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    output = output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    output = linear(output, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    if not is_batched:
        output = output.squeeze(1)
    return output, None

