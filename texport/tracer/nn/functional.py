"""``texport.nn.functional``: torch.nn.functional over op handles.

Every function computes only through op calls (``call(op(...))`` or Tensor
methods), never numpy, so that the same code runs eagerly and under tracing.
Each records the op torch.export records in its training IR: ``linear`` is
``aten.linear``, not ``mm`` + ``add``; composites (multi-head attention,
normalize) are spelled as torch spells them in Python.
"""

from __future__ import annotations

import enum
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Optional  # noqa: F401 - torch.nn.functional re-exports both (F.Callable, F.Optional)

from texport.dialects.dtypes import DType

from ..dispatcher import call
from ..factories import arange as _arange
from ..factories import ones_like, zeros, zeros_like
from ..factories import rand as _rand
from ..functions import cat
from ..grad import no_grad
from ..handles import op
from ..tensor import Tensor
from .overrides import (  # noqa: F401 - torch.nn.functional's helpers
    assert_int_or_pair,
    boolean_dispatch,
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
from .utils import _pair

# torch passes ``torch.backends.cudnn.enabled`` to batch_norm / layer_norm /
# group_norm; torch.export records False (the seed: ``batch_norm.default(...,
# True, 0.1, 1e-05, False)``), so texport records False for all three.
CUDNN_ENABLED = False

# torch.legacy_contiguous_format, which torch.export records as contiguous_format
_CONTIGUOUS = "contiguous_format"

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "avg_pool1d",
    "avg_pool2d", "batch_norm", "bilinear", "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d", "conv2d", "conv3d",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_similarity",
    "cross_entropy", "dropout", "elu", "elu_", "embedding", "embedding_bag", "gaussian_nll_loss", "gelu", "glu", "group_norm",
    "hardsigmoid", "hardswish", "hardtanh", "hardtanh_", "instance_norm", "interpolate", "kl_div", "l1_loss", "layer_norm",
    "leaky_relu", "leaky_relu_", "linear", "log_softmax", "logsigmoid", "margin_ranking_loss", "max_pool1d",
    "max_pool2d",
    "huber_loss", "smooth_l1_loss",
    "Callable", "Optional", "assert_int_or_pair", "boolean_dispatch", "handle_torch_function", "has_torch_function",
    "has_torch_function_unary", "has_torch_function_variadic",
    "ScalingType", "SwizzleType", "grouped_mm", "scaled_grouped_mm", "scaled_mm",
    "channel_shuffle", "conv_tbc", "gumbel_softmax", "fold", "local_response_norm", "native_channel_shuffle", "unfold",
    "alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout",
    "cosine_embedding_loss", "ctc_loss", "hinge_embedding_loss", "linear_cross_entropy", "multi_margin_loss",
    "multilabel_margin_loss", "multilabel_soft_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
    "mish", "mse_loss", "multi_head_attention_forward", "nll_loss", "normalize", "one_hot", "pad",
    "pairwise_distance", "pdist",
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


def _check_dropout_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:  # noqa: A002
    return call(op("feature_dropout_" if inplace else "feature_dropout"), input, p, training)


def _unbatched_feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:  # noqa: A002
    """feature_dropout on input with a batch dim of 1 put in front, then taken away. In
    place, torch unsqueeze_s the input itself; texport drops out through an unsqueezed
    view of it (functionalization has no in-place shape changes): the same values land
    in the input."""
    if not inplace:
        return _feature_dropout(input.unsqueeze(0), p, training, inplace).squeeze(0)
    _feature_dropout(input.unsqueeze(0), p, training, inplace)
    return input


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """One draw per channel of an [N, C, L] or [C, L] input."""
    _check_dropout_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs)."
        )
    if input.dim() == 3:
        return _feature_dropout(input, p, training, inplace)
    return _unbatched_feature_dropout(input, p, training, inplace)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """One draw per channel of an [N, C, H, W] input; a 3-D input is read as [N, C, L], as torch does."""
    _check_dropout_p(p)
    rank = input.dim()
    if rank not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {rank}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if rank == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """One draw per channel of an [N, C, D, H, W] or [C, D, H, W] input."""
    _check_dropout_p(p)
    rank = input.dim()
    if rank not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {rank}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if rank == 5:
        return _feature_dropout(input, p, training, inplace)
    return _unbatched_feature_dropout(input, p, training, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                  inplace: bool = False) -> Tensor:
    _check_dropout_p(p)
    return call(op("alpha_dropout_" if inplace else "alpha_dropout"), input, p, training)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                          inplace: bool = False) -> Tensor:
    _check_dropout_p(p)
    return call(op("feature_alpha_dropout_" if inplace else "feature_alpha_dropout"), input, p, training)


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


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """torch's Python composite: softmax((logits + g) / tau) with g ~ Gumbel(0, 1) drawn
    as -log(Exp(1)) from the seeded generator; hard: the one-hot of its argmax, with
    the soft sample's gradient (straight through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    # torch.empty_like(logits, memory_format=torch.legacy_contiguous_format).exponential_()
    noise = call(op("empty_like"), logits, memory_format=_CONTIGUOUS)
    gumbels = -call(op("exponential_"), noise).log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = call(op("zeros_like"), logits, memory_format=_CONTIGUOUS).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


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
        # torch renormalises weight's rows in place (embedding_renorm_), a parameter write
        # texport's functionalization refuses
        raise NotImplementedError("embedding(max_norm=...) writes the weight in place, which texport does not export")
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
        raise NotImplementedError("embedding_bag(max_norm=...) writes the weight in place, which texport does not export")
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
        if mode == "lanczos":
            raise NotImplementedError("interpolate(mode='lanczos', antialias=True) is not supported by texport")
        return call(op(f"_upsample_{mode}2d_aa.vec"), input, output_size, align_corners, factors)
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
# Grouped and scaled matmuls
# --------------------------------------------------------------------------


def grouped_mm(mat_a: Tensor, mat_b: Tensor, *, offs: Tensor | None = None, bias: Tensor | None = None,
               out_dtype: DType | None = None) -> Tensor:
    """A matmul per group (torch._grouped_mm): offs, int32, ends the groups of a 2-d operand."""
    return call(op("_grouped_mm"), mat_a, mat_b, offs=offs, bias=bias, out_dtype=out_dtype)


class _ScalingType(enum.Enum):
    """Supported Tensor scaling types (torch's pybind enum: an int under int())."""

    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5

    def __int__(self) -> int:
        return self.value

    __index__ = __int__


class _SwizzleType(enum.Enum):
    """Supported scale swizzle types."""

    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1

    def __int__(self) -> int:
        return self.value

    __index__ = __int__


ScalingType = _ScalingType
SwizzleType = _SwizzleType


def scaled_mm(mat_a: Tensor, mat_b: Tensor, scale_a: Any, scale_recipe_a: Any, scale_b: Any, scale_recipe_b: Any,
              swizzle_a: Any = None, swizzle_b: Any = None, bias: Tensor | None = None,
              output_dtype: DType | None = DType.bfloat16, contraction_dim: Sequence[int] = (),
              use_fast_accum: bool = False) -> Tensor:
    """torch's float8 matmul. Every recipe wants float8 operands, a dtype texport does not
    have: it refuses as torch refuses non-float8 operands on CPU."""
    first = scale_a[0] if isinstance(scale_a, list) else scale_a
    raise ValueError(
        "Invalid scaling configuration.\n"
        "- For TensorWise scaling, a and b should be float8, scales should be float and singletons.\n"
        f"- For RowWise scaling, a and b should be float8, scales should be float, scale_a should be "
        f"({mat_a.shape[0]}, 1) and scale_b should be (1, {mat_b.shape[-1]}), and both should be contiguous.\n"
        f"Got mat_a.dtype()={mat_a.dtype}, scale_a.dtype()={first.dtype}, mat_b.dtype()={mat_b.dtype} "
        "(texport has no float8 dtypes)"
    )


def scaled_grouped_mm(mat_a: Tensor, mat_b: Tensor, scale_a: Any, scale_recipe_a: Any, scale_b: Any,
                      scale_recipe_b: Any, swizzle_a: Any = None, swizzle_b: Any = None, bias: Tensor | None = None,
                      offs: Tensor | None = None, output_dtype: DType | None = DType.bfloat16,
                      contraction_dim: Sequence[int] = (), use_fast_accum: bool = False) -> Tensor:
    """CUDA only in torch: on CPU it has no kernel."""
    raise NotImplementedError("Could not run 'aten::_scaled_grouped_mm_v2' with arguments from the 'CPU' backend. "
                              "This could be because the operator doesn't exist for this backend.")


# --------------------------------------------------------------------------
# Sliding blocks, local response norm, channel shuffle, conv_tbc
# --------------------------------------------------------------------------


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002
           stride: Any = 1) -> Tensor:
    """The sliding blocks of an [N, C, H, W] (or [C, H, W]) input as columns: aten.im2col."""
    return call(op("im2col"), input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002
         stride: Any = 1) -> Tensor:
    """Columns of sliding blocks summed back into an image: aten.col2im."""
    return call(op("col2im"), input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding),
                _pair(stride))


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,  # noqa: A002
                        k: float = 1.0) -> Tensor:
    """torch's Python composite: x / (k + alpha · mean of x² over the size channels
    around each one)^beta, the mean an average pool over the channel dim."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = call(op("avg_pool3d"), div, [size, 1, 1], [1, 1, 1]).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    return call(op("channel_shuffle"), input, groups)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    return call(op("native_channel_shuffle"), input, groups)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:  # noqa: A002
    """A 1-d convolution over time of a [time, batch, channel] input; weight [K, C_in, C_out]."""
    return call(op("conv_tbc"), input, weight, bias, pad)


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


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *,  # noqa: A002
                         linear_bias: Tensor | None = None, weight: Tensor | None = None, reduction: str = "mean",
                         ignore_index: int | None = None, label_smoothing: float = 0.0,
                         options: Any = None) -> Tensor:
    """cross_entropy(linear(input, W, b), target), W [C, *out_features, in_features] as
    torch's plain path records it (reshape, linear, reshape, cross_entropy_loss). torch's
    ``options`` pick a chunked custom op computing the same numbers; texport takes the
    plain path whatever they say."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batches, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if out_features:
        linear_weight = linear_weight.reshape((math.prod(out_features, start=classes), in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=classes))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
             size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None,
             reduction: str = "mean") -> Tensor:
    enum = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return call(op("nll_loss_nd"), input, target, weight, enum, ignore_index)


def _broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:  # noqa: A002
    """torch.broadcast_tensors(input, target), which torch's regression losses call whatever the
    sizes (one op of the program), warning first when they differ."""
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
            "This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )
    expanded = call(op("broadcast_tensors"), [input, target])
    return expanded[0], expanded[1]


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


def _reduction_of(size_average: bool | None, reduce: bool | None, reduction: str) -> int:
    return _reduction_enum(_legacy_reduction(size_average, reduce, reduction))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification: log_probs [T, N, C] (or [T, C]), targets
    padded [N, S] or concatenated; lengths as tensors (ctc_loss.Tensor) or int lists."""
    overload = "ctc_loss.Tensor" if isinstance(input_lengths, Tensor) else "ctc_loss.IntList"
    return call(op(overload), log_probs, targets, input_lengths, target_lengths, blank,
                _reduction_enum(reduction), zero_infinity)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,  # noqa: A002
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    enum = _reduction_of(size_average, reduce, reduction)
    return call(op("hinge_embedding_loss"), input, target, margin, enum)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Tensor:
    enum = _reduction_of(size_average, reduce, reduction)
    return call(op("cosine_embedding_loss"), input1, input2, target, margin, enum)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,  # noqa: A002
                      weight: Tensor | None = None, size_average: bool | None = None,
                      reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    enum = _reduction_of(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return call(op("multi_margin_loss"), input, target, p, margin, weight, enum)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
                           reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    enum = _reduction_of(size_average, reduce, reduction)
    return call(op("multilabel_margin_loss"), input, target, enum)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                size_average: bool | None = None, reduce: bool | None = None,
                                reduction: str = "mean") -> Tensor:
    """torch's Python composite: -(y log σ(x) + (1 - y) log σ(-x)), weighted, averaged
    over the classes (the last dim), then reduced."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: bool | None = None,
                        reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    enum = _reduction_of(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return call(op("triplet_margin_loss"), anchor, positive, negative, margin, p, eps, swap, enum)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """torch's Python composite: max(margin + d(a, p) - d(a, n), 0), d pairwise_distance
    unless given; with swap d(a, n) is min(d(a, n), d(p, n))."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )
    distance = distance_function if distance_function is not None else pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(distance(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    return call(op("cosine_similarity"), x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    return call(op("pairwise_distance"), x1, x2, p, eps, keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:  # noqa: A002
    # the p-norm distance of each pair of rows i < j
    return call(op("pdist"), input, p)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    # y[..., o] = x1[..., :] @ W[o] @ x2[..., :] + b[o]
    return call(op("bilinear"), input1, input2, weight, bias)


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
    output = output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
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

