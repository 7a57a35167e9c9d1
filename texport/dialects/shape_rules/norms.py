"""Shape rules: batch, layer, group and instance normalisation (forward and backward).

Shapes and dtypes follow torch's CPU meta functions: the output has the input's
meta; batch norm's saved mean/invstd are [C] in training and (0,) otherwise;
layer norm's mean/rstd keep the normalised dims as 1s; group norm's are (N, group).
Statistics are in the input's dtype (CPU casts them back). A backward output
whose output_mask bit is False is None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use

from ..dtypes import DType, promote_types
from ..meta import TensorMeta
from ..symbolic import Dim, dim_str, to_dim
from . import shape_rule
from .common import shape_text
from .guards import ShapeGuardError, check, guard_bool, sym_eq

Stats = tuple[TensorMeta, TensorMeta, TensorMeta]


def _like(tensor: TensorMeta, shape: Sequence[Dim] | None = None) -> TensorMeta:
    return TensorMeta(tensor.shape if shape is None else tuple(shape), tensor.dtype)


def _masked(mask: Sequence[bool], *outputs: TensorMeta) -> tuple[TensorMeta | None, ...]:
    """Backward outputs: None where output_mask is False (as torch)."""
    return tuple(out if wanted else None for wanted, out in zip(mask, outputs))


def _divisible(size: Dim, by: int) -> bool:
    if type(size) is int:
        return size % by == 0
    return guard_bool(sympy.Eq(sympy.Mod(size, by), 0))


def _computation(dtype: DType) -> DType:
    """Half and bfloat16 statistics are computed in float32."""
    return DType.float32 if dtype in (DType.float16, DType.bfloat16) else dtype


# ---------------------------------------------------------------- batch norm


def _check_features(name: str, channels: Dim, tensor: TensorMeta | None) -> None:
    if tensor is not None and not sym_eq(tensor.numel(), channels):
        raise ShapeGuardError(
            f"{name} should contain {dim_str(channels)} elements not {dim_str(tensor.numel())}"
        )


def _batch_norm(
    input: TensorMeta,  # noqa: A002 - torch's argument names
    weight: TensorMeta | None,
    bias: TensorMeta | None,
    running_mean: TensorMeta | None,
    running_var: TensorMeta | None,
    training: bool,
) -> Stats:
    """(out, save_mean, save_invstd): stats are [C] in training, (0,) in eval (CPU)."""
    if input.ndim < 2:
        raise ShapeGuardError(f"batch_norm: expected input with at least 2 dims, got {input.ndim}")
    channels = input.shape[1]
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        _check_features(name, channels, stat)
        if not training and stat is None:
            raise ShapeGuardError(f"{name} must be defined in evaluation mode")
    _check_features("weight", channels, weight)
    _check_features("bias", channels, bias)
    saved = _like(input, (channels,) if training else (0,))
    return _like(input), saved, saved


@shape_rule("native_batch_norm", "_native_batch_norm_legit")
def _native_batch_norm(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    running_mean: TensorMeta | None, running_var: TensorMeta | None, training: bool, *_: Any,
) -> Stats:
    return _batch_norm(input, weight, bias, running_mean, running_var, training)


@shape_rule("_native_batch_norm_legit.no_stats")
def _batch_norm_no_stats(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    training: bool, *_: Any,
) -> Stats:
    return _batch_norm(input, weight, bias, None, None, training)


@shape_rule("_native_batch_norm_legit_no_training")
def _batch_norm_no_training(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    running_mean: TensorMeta, running_var: TensorMeta, *_: Any,
) -> Stats:
    return _batch_norm(input, weight, bias, running_mean, running_var, False)


def _running_out(input: TensorMeta, stat: TensorMeta, training: bool) -> TensorMeta:  # noqa: A002
    """New running stat: momentum * batch stat (computation dtype) + (1 - momentum) * old."""
    dtype = _computation(input.dtype)
    return TensorMeta(stat.shape, promote_types(dtype, stat.dtype) if training else dtype)


@shape_rule("_native_batch_norm_legit_functional")
def _batch_norm_functional(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    running_mean: TensorMeta, running_var: TensorMeta, training: bool, *_: Any,
) -> tuple[TensorMeta, ...]:
    stats = _batch_norm(input, weight, bias, running_mean, running_var, training)
    running = (_running_out(input, s, training) for s in (running_mean, running_var))
    return (*stats, *running)


def _reserve() -> TensorMeta:
    return TensorMeta((0,), DType.uint8)  # cudnn's reserve space; empty on CPU


@shape_rule("_batch_norm_with_update")
def _batch_norm_with_update(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    running_mean: TensorMeta, running_var: TensorMeta, *_: Any,
) -> tuple[TensorMeta, ...]:
    return (*_batch_norm(input, weight, bias, running_mean, running_var, True), _reserve())


@shape_rule("_batch_norm_no_update")
def _batch_norm_no_update(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    running_mean: TensorMeta | None, running_var: TensorMeta | None, *_: Any,
) -> tuple[TensorMeta, ...]:
    return (*_batch_norm(input, weight, bias, running_mean, running_var, False), _reserve())


@shape_rule("_batch_norm_with_update_functional")
def _batch_norm_with_update_functional(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    running_mean: TensorMeta, running_var: TensorMeta, *_: Any,
) -> tuple[TensorMeta, ...]:
    out = _batch_norm_with_update(input, weight, bias, running_mean, running_var)
    return (*out, *(_running_out(input, s, True) for s in (running_mean, running_var)))


@shape_rule("batch_norm")
def _batch_norm_composite(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    running_mean: TensorMeta | None, running_var: TensorMeta | None, training: bool, *_: Any,
) -> TensorMeta:
    return _batch_norm(input, weight, bias, running_mean, running_var, training)[0]


@shape_rule("instance_norm")
def _instance_norm(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    running_mean: TensorMeta | None, running_var: TensorMeta | None, use_input_stats: bool,
    *_: Any,
) -> TensorMeta:
    check(
        use_input_stats or (running_mean is not None and running_var is not None),
        "Expected running_mean and running_var to be defined when use_input_stats is false",
    )
    check(input.ndim >= 2, "instance_norm: expected input with at least 2 dims")
    return _like(input)


@shape_rule("native_batch_norm_backward")
def _batch_norm_backward(
    grad_out: TensorMeta, input: TensorMeta, weight: TensorMeta | None,  # noqa: A002
    running_mean: Any, running_var: Any, save_mean: Any, save_invstd: Any, train: bool,
    eps: float, output_mask: Sequence[bool],
) -> tuple[TensorMeta | None, ...]:
    check(input.ndim >= 2, "rank of the input must be at least 2")
    channels = (input.shape[1],)
    param = weight.dtype if weight is not None else input.dtype  # grads take weight's dtype
    params = TensorMeta(channels, param)
    return _masked(output_mask, _like(input), params, params)


# ---------------------------------------------------------------- layer norm


def _check_layer_norm(
    input: TensorMeta, normalized_shape: Sequence[Dim],  # noqa: A002
    weight: TensorMeta | None, bias: TensorMeta | None,
) -> int:
    """torch's _check_layer_norm_inputs; returns the first normalised axis."""
    shape = list(normalized_shape)
    if not shape:
        raise ShapeGuardError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and not _same_shape(param.shape, shape):
            raise ShapeGuardError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {shape_text(param.shape)} and normalized_shape = {shape_text(shape)}"
            )
    axis = input.ndim - len(shape)
    if axis < 0 or not _same_shape(input.shape[axis:], shape):
        raise ShapeGuardError(
            f"Given normalized_shape={shape_text(shape)}, expected input with shape "
            f"[*{''.join(', ' + dim_str(d) for d in shape)}], but got input of size"
            f"{shape_text(input.shape)}"
        )
    return axis


def _same_shape(a: Sequence[Dim], b: Sequence[Dim]) -> bool:
    return len(a) == len(b) and all(sym_eq(x, y) for x, y in zip(a, b))


@shape_rule("native_layer_norm")
def _native_layer_norm(
    input: TensorMeta, normalized_shape: Sequence[Dim],  # noqa: A002
    weight: TensorMeta | None, bias: TensorMeta | None, eps: float,
) -> Stats:
    axis = _check_layer_norm(input, normalized_shape, weight, bias)
    stats = _like(input, input.shape[:axis] + (1,) * len(normalized_shape))
    return _like(input), stats, stats


@shape_rule("layer_norm")
def _layer_norm(
    input: TensorMeta, normalized_shape: Sequence[Dim],  # noqa: A002
    weight: TensorMeta | None = None, bias: TensorMeta | None = None, *_: Any,
) -> TensorMeta:
    _check_layer_norm(input, normalized_shape, weight, bias)
    return _like(input)


@shape_rule("rms_norm")
def _rms_norm(
    input: TensorMeta, normalized_shape: Sequence[Dim],  # noqa: A002
    weight: TensorMeta | None = None, eps: float | None = None,
) -> TensorMeta:
    _check_layer_norm(input, normalized_shape, weight, None)  # torch checks both norms alike
    return _like(input)


@shape_rule("native_layer_norm_backward")
def _layer_norm_backward(
    grad_out: TensorMeta, input: TensorMeta, normalized_shape: Sequence[Dim],  # noqa: A002
    mean: TensorMeta, rstd: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,
    output_mask: Sequence[bool],
) -> tuple[TensorMeta | None, ...]:
    axis = input.ndim - len(normalized_shape)
    param = _like(input, input.shape[axis:])
    # torch's decomposition gives no weight/bias grad when that parameter is absent.
    present = (True, weight is not None, bias is not None)
    return _masked([m and p for m, p in zip(output_mask, present)], _like(input), param, param)


# ---------------------------------------------------------------- group norm


def _check_group_norm(
    input: TensorMeta, channels: Dim, groups: int,  # noqa: A002
    weight: TensorMeta | None, bias: TensorMeta | None, sep: str,
) -> None:
    """torch's check_group_norm_inputs (sep: "=" in C++, " = " in the meta decomposition)."""
    if input.ndim < 2:
        raise ShapeGuardError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    if groups <= 0:
        raise ShapeGuardError(f"Expected num groups to be greater than 0, got {groups}")
    if not _divisible(channels, groups):
        raise ShapeGuardError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {shape_text(input.shape)} and num_groups{sep}{groups}"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and not (param.ndim == 1 and sym_eq(param.shape[0], channels)):
            raise ShapeGuardError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {shape_text(param.shape)} and input of shape "
                f"{shape_text(input.shape)}"
            )


@shape_rule("native_group_norm")
def _native_group_norm(
    input: TensorMeta, weight: TensorMeta | None, bias: TensorMeta | None,  # noqa: A002
    N: Dim, C: Dim, HxW: Dim, group: int, eps: float,  # noqa: N803 - torch's names
) -> Stats:
    _check_group_norm(input, C, group, weight, bias, " = ")
    stats = _like(input, (to_dim(N), group))
    return _like(input), stats, stats


@shape_rule("group_norm")
def _group_norm(
    input: TensorMeta, num_groups: int, weight: TensorMeta | None = None,  # noqa: A002
    bias: TensorMeta | None = None, *_: Any,
) -> TensorMeta:
    channels = input.shape[1] if input.ndim >= 2 else 1  # rank is checked first
    _check_group_norm(input, channels, num_groups, weight, bias, "=")
    return _like(input)


@shape_rule("native_group_norm_backward")
def _group_norm_backward(
    grad_out: TensorMeta, input: TensorMeta, mean: TensorMeta, rstd: TensorMeta,  # noqa: A002
    weight: TensorMeta | None, N: Dim, C: Dim, HxW: Dim, group: int,  # noqa: N803
    output_mask: Sequence[bool],
) -> tuple[TensorMeta | None, ...]:
    if not _divisible(C, group):
        raise ShapeGuardError(
            f"Expect number of channels {dim_str(C)} to be evenly-divisible by number of groups "
            f"{group}"
        )
    param = _like(input, (to_dim(C),))
    return _masked(output_mask, _like(input), param, param)
