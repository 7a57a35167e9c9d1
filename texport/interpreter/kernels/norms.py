"""Kernels: batch, layer, group and instance normalisation, forward and backward.

Statistics follow torch's CPU kernels: batch norm normalises with the biased
batch variance and feeds the running variance the unbiased one; saved
mean/invstd come back in the input dtype ((0,)-shaped outside training);
float16 and bfloat16 are computed in float32 and rounded back once. A backward output whose
output_mask bit is False is None.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from ..dtypes import is_bfloat16
from . import kernel
from .common import cast, dtype_constants, ones_vector, opmath

Array = np.ndarray
_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))  # computed as they are (no opmath)


@functools.lru_cache(maxsize=64)
def _row_constants(length: int, eps: float, dtype: np.dtype) -> tuple[Array, Array, Array, Array]:
    """Normalising rows of ``length`` values: ones_vector, then length, eps and 1 as 0-d arrays of
    dtype (dtype_constants)."""
    return ones_vector(length, dtype), *dtype_constants(dtype, length, eps, 1)


@functools.lru_cache(maxsize=64)
def _batch_constants(length: int, count: int, eps: float, dtype: np.dtype) -> tuple[Array, ...]:
    """Training batch norm over [N, C, length] rows (``count`` values a channel): ones_vector, then
    count, eps, 1 and count / (count - 1) as 0-d arrays of dtype (dtype_constants). The momentum
    has its own (a cumulative average's changes every step)."""
    return ones_vector(length, dtype), *dtype_constants(dtype, count, eps, 1, count / (count - 1))


def _channels(x: Array, values: Array | None) -> Array | None:
    """A per-channel [C] vector shaped to broadcast against [N, C, *spatial]."""
    if values is None:
        return None
    return values.reshape(1, -1, *([1] * (x.ndim - 2)))


def _affine(out: Array, weight: Array | None, bias: Array | None) -> Array:
    """out * weight + bias, each optional and already broadcastable."""
    if weight is not None:
        out = out * weight.astype(out.dtype, copy=False)
    if bias is not None:
        out = out + bias.astype(out.dtype, copy=False)
    return out


def _masked(mask: Sequence[bool], *outputs: Array | None) -> tuple[Array | None, ...]:
    return tuple(out if wanted else None for wanted, out in zip(mask, outputs))


# ---------------------------------------------------------------- batch norm


def _batch_stats(x: Array, eps: float) -> tuple[Array, Array, Array]:
    """(mean, biased var, invstd) per channel, over batch and spatial dims."""
    axes = (0, *range(2, x.ndim))
    mean = x.mean(axis=axes)
    var = x.var(axis=axes)
    return mean, var, 1 / np.sqrt(var + eps)


def _batch_stats_blas(x: Array, eps: float) -> tuple[Array, Array, Array, Array]:
    """_batch_stats of a non-empty float32/float64 x (_channel_stats), with the deviations'
    buffer, for the output to be written into."""
    rows = x.reshape(x.shape[0], x.shape[1], -1)
    mean, var, deviations = _channel_stats(rows, ones_vector(rows.shape[2], x.dtype), rows.shape[0] * rows.shape[2])
    return mean, var, _inverse_std(var, eps), deviations


def _channel_stats(rows: Array, ones: Array, count: Array | int) -> tuple[Array, Array, Array]:
    """(mean, biased var, deviations from the mean) per channel of non-empty float32/float64
    [N, C, L] rows (``count`` = N * L values a channel): two passes as torch's CPU kernel
    (the mean, then the squared deviations from it), each sum a BLAS product over the rows
    (numpy's mean/var reduce across strided axes through Python wrappers), then over N.
    [N, C] rows (L = 1) sum over N only: a row's sum is its value (+0 for -0, as the sum
    over N makes it anyway), and a column broadcast against rows of 1 is numpy's slowest."""
    if rows.ndim == 2:
        mean = np.add.reduce(rows, axis=0)
        np.divide(mean, count, out=mean)
        deviations = np.subtract(rows, mean)
        var = np.add.reduce(np.multiply(deviations, deviations), axis=0)
    else:
        mean = np.add.reduce(np.matmul(rows, ones), axis=0)
        np.divide(mean, count, out=mean)
        deviations = np.subtract(rows, mean[:, None])
        var = np.add.reduce(np.vecdot(deviations, deviations), axis=0)
    np.divide(var, count, out=var)
    return mean, var, deviations


def _inverse_std(var: Array, eps: Array | float, one: Array | int = 1, out: Array | None = None) -> Array:
    """1 / sqrt(var + eps), in a new array or ``out``."""
    invstd = np.add(var, eps, out=out)
    np.sqrt(invstd, out=invstd)
    return np.divide(one, invstd, out=invstd)


def _new_running(old: Array | None, batch: Array, momentum: float) -> Array | None:
    """momentum * batch + (1 - momentum) * old (torch's type promotion of the two)."""
    if old is None:
        return None
    if old.dtype == np.float16:  # in double, as torch's float16 kernel (numpy would round each step)
        return cast(momentum * batch.astype(np.float64) + (1 - momentum) * old.astype(np.float64), old.dtype)
    return momentum * batch + (1 - momentum) * old


def _batch_norm(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                running_mean: Array | None, running_var: Array | None, training: bool,
                momentum: float, eps: float) -> tuple[Array, ...]:
    """torch's native_batch_norm_helper: (out, save_mean, save_invstd, new_running_mean,
    new_running_var); nothing is mutated here."""
    if not training and _eval_fast(input, weight, bias, running_mean, running_var):
        return _batch_norm_eval(input, weight, bias, running_mean, running_var, eps)
    if training and _train_fast(input, weight, bias, running_mean, running_var):
        return _batch_norm_train(input, weight, bias, running_mean, running_var, momentum, eps, False)
    x = opmath(input)
    same_dtype = _params_in_input_dtype(input, weight, bias, running_mean, running_var)
    if training and same_dtype and is_bfloat16(input.dtype):
        return _batch_norm_reduced_float(input, weight, bias, running_mean, running_var, momentum, eps)
    buffer = None  # an x-shaped scratch array of the statistics, the output's when it may be
    if training and x.dtype in _BLAS_FLOATS and x.size:
        mean, var, invstd, buffer = _batch_stats_blas(x, eps)
    elif training:
        mean, var, invstd = _batch_stats(x, eps)
    if training:
        count = x.size // x.shape[1]
        with np.errstate(divide="ignore", invalid="ignore"):  # one value per channel: inf
            unbiased = var * (count / (count - 1)) if count > 1 else var / 0
        new_mean = _new_running(running_mean, mean, momentum)
        new_var = _new_running(running_var, unbiased, momentum)
        saved = (mean.astype(input.dtype), invstd.astype(input.dtype))
    else:
        if running_mean is None or running_var is None:
            raise ValueError("running_mean and running_var must be defined in evaluation mode")
        new_mean = running_mean.astype(x.dtype)
        new_var = running_var.astype(x.dtype)
        mean, invstd = new_mean, 1 / np.sqrt(new_var + eps)
        saved = (np.empty((0,), input.dtype), np.empty((0,), input.dtype))
    fused = training and same_dtype and input.dtype == np.float16
    if fused:  # torch's float16 kernel normalizes with the saved (rounded) statistics, in one fma
        mean, invstd = opmath(saved[0]), opmath(saved[1])
    # torch's batch_norm_cpu_transform_input: x * alpha + beta per channel, with
    # alpha = invstd * weight, beta = bias - mean * alpha (not (x - mean) * invstd)
    alpha = invstd if weight is None else invstd * opmath(weight)
    beta = -mean * alpha if bias is None else opmath(bias) - mean * alpha
    if fused:  # x * alpha + beta rounded once: exact in float64, then float32
        out = (x.astype(np.float64) * _channels(x, alpha) + _channels(x, beta)).astype(np.float32)
    elif buffer is not None and alpha.dtype == x.dtype and beta.dtype == x.dtype:
        out = np.multiply(x, _channels(x, alpha), out=buffer.reshape(x.shape))
        out += _channels(x, beta)
    else:
        out = _scale_shift(x, alpha, beta, own=x is not input)
    return out.astype(input.dtype, copy=False), *saved, new_mean, new_var


def _train_fast(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                running_mean: Array | None, running_var: Array | None) -> bool:
    """Whether training batch norm may take _batch_norm_train: float32/float64, more than one
    value per channel, every parameter and running statistic absent or in the input's dtype."""
    dtype = input.dtype
    return (dtype in _BLAS_FLOATS and input.size > input.shape[1]
            and (weight is None or weight.dtype == dtype) and (bias is None or bias.dtype == dtype)
            and (running_mean is None or running_mean.dtype == dtype)
            and (running_var is None or running_var.dtype == dtype))


def _batch_norm_train(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                      running_mean: Array | None, running_var: Array | None, momentum: float,
                      eps: float, in_place: bool) -> tuple[Array | None, ...]:
    """The training path of _batch_norm for an input _train_fast admits (the same steps,
    without the per-call dtype plumbing: a small batch norm is all overhead); the new running
    statistics are written into the old ones when ``in_place`` (native_batch_norm's update),
    else returned new."""
    rows = input.reshape(input.shape[0], input.shape[1], -1)
    ones, count, eps_, one, unbias = _batch_constants(rows.shape[2], rows.shape[0] * rows.shape[2], eps, input.dtype)
    if rows.shape[2] == 1:  # one value a channel and sample (BatchNorm1d of [N, C]): [N, C] rows
        rows = rows.reshape(rows.shape[:2])
    rate, keep = dtype_constants(input.dtype, momentum, 1 - momentum)
    mean, var, out = _channel_stats(rows, ones, count)
    invstd = _inverse_std(var, eps_, one)
    _transform_into(out, rows, mean, invstd, weight, bias)
    # momentum * batch + (1 - momentum) * old (_new_running's steps), both old values read
    # before either is written
    kept_mean = None if running_mean is None else np.multiply(running_mean, keep)
    kept_var = None if running_var is None else np.multiply(running_var, keep)
    if running_mean is not None:
        moved = np.multiply(mean, rate)
        running_mean = np.add(moved, kept_mean, out=running_mean if in_place else moved)
    if running_var is not None:
        moved = np.multiply(var, unbias)
        moved *= rate
        running_var = np.add(moved, kept_var, out=running_var if in_place else moved)
    return out.reshape(input.shape), mean, invstd, running_mean, running_var


def _transform_into(out: Array, rows: Array, mean: Array, invstd: Array, weight: Array | None,
                    bias: Array | None) -> None:
    """out = rows * alpha + beta per channel of [..., C, L] rows (mean and invstd [..., C],
    weight and bias [C]) or [N, C] rows, alpha = invstd * weight, beta = bias - mean * alpha
    (torch's batch_norm_cpu_transform_input); mean and invstd are left as they are (saved
    outputs)."""
    alpha = invstd if weight is None else np.multiply(invstd, weight)
    if bias is None:
        beta = np.negative(mean)
        beta *= alpha
    else:
        beta = np.multiply(mean, alpha)
        np.subtract(bias, beta, out=beta)
    if rows.ndim == 3:  # [..., C, L]; [N, C] rows take [C] as it is
        alpha, beta = alpha[..., None], beta[..., None]
    np.multiply(rows, alpha, out=out)
    out += beta


def _batch_norm_eval(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                     running_mean: Array, running_var: Array, eps: float) -> tuple[Array, ...]:
    """The evaluation-mode path of _batch_norm for a float32/float64 input whose parameters
    share its dtype (the same formula, without the per-call dtype plumbing: a small
    batch norm is all overhead)."""
    out = _eval_transform(input, weight, bias, running_mean, running_var, eps)
    empty = np.empty((0,), input.dtype)
    return out, empty, empty.copy(), running_mean.copy(), running_var.copy()


def _eval_transform(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                    running_mean: Array, running_var: Array, eps: float) -> Array:
    """x * alpha + beta per channel with alpha = invstd * weight, beta = bias - mean * alpha
    (torch's batch_norm_cpu_transform_input) from the running statistics."""
    invstd = _inverse_std(running_var, *dtype_constants(input.dtype, eps, 1))
    alpha = invstd if weight is None else np.multiply(invstd, weight, out=invstd)
    beta = np.multiply(running_mean, alpha)
    if bias is None:
        np.negative(beta, out=beta)
    else:
        np.subtract(bias, beta, out=beta)
    shape = (1, -1, *(1,) * (input.ndim - 2))
    out = np.multiply(input, alpha.reshape(shape))
    np.add(out, beta.reshape(shape), out=out)
    return out


def _eval_fast(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
               running_mean: Array | None, running_var: Array | None) -> bool:
    """Whether evaluation-mode batch norm may take _eval_transform: float32/float64 with
    every parameter and running statistic present where needed and in the input's dtype."""
    dtype = input.dtype
    return (dtype in _BLAS_FLOATS and running_mean is not None and running_var is not None
            and running_mean.dtype == dtype and running_var.dtype == dtype
            and (weight is None or weight.dtype == dtype) and (bias is None or bias.dtype == dtype))


def _scale_shift(x: Array, alpha: Array, beta: Array, own: bool) -> Array:
    """x * alpha + beta per channel, in x's dtype: one output buffer (x itself when the kernel
    ``own``s it, a float32 copy of a reduced float), the shift added into it in place."""
    dtype = np.result_type(x.dtype, alpha.dtype, beta.dtype)
    out = x if own and dtype == x.dtype else np.empty(x.shape, dtype)
    np.multiply(x, _channels(x, alpha), out=out)
    np.add(out, _channels(x, beta), out=out)
    return out


def _params_in_input_dtype(input: Array, *params: Array | None) -> bool:  # noqa: A002
    """No float32 parameter or running statistic beside a reduced float input: torch's CPU kernel
    is then not "mixed type", and keeps its statistics in the input dtype (bfloat16: each sum too;
    float16: the saved mean and invstd)."""
    return all(param is None or param.dtype == input.dtype for param in params)


def _batch_norm_reduced_float(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                              running_mean: Array | None, running_var: Array | None, momentum: float,
                              eps: float) -> tuple[Array, ...]:
    """Training batch norm as torch's CPU kernel for bfloat16: mean and squared deviations
    summed in float32, each rounded to the input dtype; the variances are that rounded sum divided
    by the count in the input dtype's arithmetic (c10's BFloat16 / int64); the output is
    (x - mean) * invstd * weight + bias in float32 with the rounded mean and invstd."""
    dtype, x = input.dtype, opmath(input)
    axes = (0, *range(2, x.ndim))
    count = x.size // x.shape[1]
    mean32 = x.mean(axis=axes)
    var_sum = cast(np.square(x - _channels(x, mean32)).sum(axis=axes), dtype)
    mean = cast(mean32, dtype)
    with np.errstate(divide="ignore", invalid="ignore"):  # one value per channel: inf
        var = _divided_in(dtype, var_sum, count)
        unbiased = _divided_in(dtype, var_sum, count - 1)
        invstd = cast(1 / np.sqrt(opmath(var) + np.float32(eps)), dtype)
    out = (x - _channels(x, opmath(mean))) * _channels(x, opmath(invstd))
    out = _affine(out, _channels(x, weight), _channels(x, bias))
    return cast(out, dtype), mean, invstd, *_new_running_stats(running_mean, running_var, mean, unbiased, momentum)


def _new_running_stats(running_mean: Array | None, running_var: Array | None, mean: Array, unbiased: Array,
                       momentum: float) -> tuple[Array | None, Array | None]:
    """momentum * batch + (1 - momentum) * old with momentum in the stats' reduced float dtype and each
    product of two reduced floats rounded to it (c10's arithmetic); momentum * unbiased variance
    (a float32) stays float32."""
    dtype = mean.dtype
    rate = _in(dtype, np.float32(momentum))
    keep = _in(dtype, 1 - rate)
    if running_mean is not None:
        running_mean = cast(_in(dtype, rate * opmath(mean)) + _in(dtype, keep * opmath(running_mean)), dtype)
    if running_var is not None:
        running_var = cast(rate * opmath(unbiased) + _in(dtype, keep * opmath(running_var)), dtype)
    return running_mean, running_var


def _divided_in(dtype: np.dtype, values: Array, count: int) -> Array:
    """values / count in a reduced float's arithmetic: the count rounded to it, the quotient too."""
    return cast(opmath(values) / opmath(cast(np.float32(count), dtype)), dtype)


def _in(dtype: np.dtype, values: Array) -> Array:
    """float32 values rounded to the reduced float dtype, back in float32 to compute on."""
    return opmath(cast(values, dtype))


def _update(running: Array | None, new: Array | None) -> None:
    """Write a new running statistic into the (a!) buffer, keeping its dtype."""
    if running is not None and new is not None:
        running[...] = new


@kernel("native_batch_norm", "_native_batch_norm_legit")
def native_batch_norm(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                      running_mean: Array | None, running_var: Array | None, training: bool,
                      momentum: float, eps: float) -> tuple[Array, Array, Array]:
    """Training updates the running stats in place (unbiased variance)."""
    if not training and _eval_fast(input, weight, bias, running_mean, running_var):
        empty = np.empty((0,), input.dtype)
        return _eval_transform(input, weight, bias, running_mean, running_var, eps), empty, empty.copy()
    if training and _train_fast(input, weight, bias, running_mean, running_var):
        out, mean, invstd, _, _ = _batch_norm_train(
            input, weight, bias, running_mean, running_var, momentum, eps, True
        )
        return out, mean, invstd
    out, mean, invstd, new_mean, new_var = _batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )
    if training:
        _update(running_mean, new_mean)
        _update(running_var, new_var)
    return out, mean, invstd


@kernel("_native_batch_norm_legit.no_stats")
def _native_batch_norm_legit_no_stats(input: Array, weight: Array | None,  # noqa: A002
                                      bias: Array | None, training: bool, momentum: float,
                                      eps: float) -> tuple[Array, Array, Array]:
    return native_batch_norm(input, weight, bias, None, None, training, momentum, eps)


@kernel("_native_batch_norm_legit_no_training")
def _native_batch_norm_legit_no_training(input: Array, weight: Array | None,  # noqa: A002
                                         bias: Array | None, running_mean: Array,
                                         running_var: Array, momentum: float,
                                         eps: float) -> tuple[Array, Array, Array]:
    return native_batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)


@kernel("_native_batch_norm_legit_functional")
def _native_batch_norm_legit_functional(input: Array, weight: Array | None,  # noqa: A002
                                        bias: Array | None, running_mean: Array,
                                        running_var: Array, training: bool, momentum: float,
                                        eps: float) -> tuple[Array, ...]:
    """Like _native_batch_norm_legit, but the new running stats are outputs 3 and 4."""
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def _reserve() -> Array:
    return np.empty((0,), np.uint8)  # cudnn's reserve space: empty on CPU


@kernel("_batch_norm_with_update")
def _batch_norm_with_update(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                            running_mean: Array, running_var: Array, momentum: float,
                            eps: float) -> tuple[Array, ...]:
    out = native_batch_norm(input, weight, bias, running_mean, running_var, True, momentum, eps)
    return (*out, _reserve())


@kernel("_batch_norm_with_update_functional")
def _batch_norm_with_update_functional(input: Array, weight: Array | None,  # noqa: A002
                                       bias: Array | None, running_mean: Array,
                                       running_var: Array, momentum: float,
                                       eps: float) -> tuple[Array, ...]:
    out, mean, invstd, new_mean, new_var = _batch_norm(
        input, weight, bias, running_mean, running_var, True, momentum, eps
    )
    return out, mean, invstd, _reserve(), new_mean, new_var


@kernel("_batch_norm_no_update")
def _batch_norm_no_update(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                          running_mean: Array | None, running_var: Array | None,
                          momentum: float, eps: float) -> tuple[Array, ...]:
    out = native_batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)
    return (*out, _reserve())


@kernel("batch_norm")
def batch_norm(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
               running_mean: Array | None, running_var: Array | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Array:
    """The composite: native_batch_norm's output (running stats updated when training)."""
    if not training and _eval_fast(input, weight, bias, running_mean, running_var):
        return _eval_transform(input, weight, bias, running_mean, running_var, eps)
    return native_batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )[0]


@kernel("instance_norm")
def instance_norm(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                  running_mean: Array | None, running_var: Array | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Array:
    """torch's composite: batch norm of [1, N*C, *spatial] with per-instance copies of the
    parameters and running stats; each running stat then becomes the mean of its copies."""
    n, c = input.shape[:2]
    reshaped = input.reshape(1, n * c, *input.shape[2:])
    if use_input_stats and _train_fast(reshaped, weight, bias, running_mean, running_var):
        return _instance_norm_train(input, weight, bias, running_mean, running_var, momentum, eps)
    per_channel = (weight, bias, running_mean, running_var)
    repeat = [None if t is None else np.tile(t, n) for t in per_channel]
    out = batch_norm(reshaped, *repeat, use_input_stats, momentum, eps, cudnn_enabled)
    for running, copies in zip((running_mean, running_var), repeat[2:]):
        if running is not None:  # torch's mean of a reduced float: in float32, rounded once
            running[...] = cast(opmath(copies).reshape(n, c).mean(axis=0), running.dtype)
    return out.reshape(input.shape)


def _instance_norm_train(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                         running_mean: Array | None, running_var: Array | None, momentum: float,
                         eps: float) -> Array:
    """instance_norm from the input's statistics, for an input whose [1, N*C, *spatial] form
    _train_fast admits: the batch norm's steps, the parameters broadcast over the instances
    where torch tiles copies of them; each running statistic becomes the mean over the
    instances of its updated copies (both old values read before either is written)."""
    n, c = input.shape[:2]
    rows = input.reshape(1, n * c, -1)
    length = rows.shape[2]
    ones, count, eps_, one, unbias = _batch_constants(length, length, eps, input.dtype)
    rate, keep = dtype_constants(input.dtype, momentum, 1 - momentum)
    mean, var, out = _channel_stats(rows, ones, count)
    invstd = _inverse_std(var, eps_, one)
    by_instance = (n, c)
    _transform_into(out.reshape(n, c, length), rows.reshape(n, c, length), mean.reshape(by_instance),
                    invstd.reshape(by_instance), weight, bias)
    updates = []
    if running_mean is not None:
        updates.append((running_mean, np.multiply(mean, rate), np.multiply(running_mean, keep)))
    if running_var is not None:
        moved = np.multiply(var, unbias)
        moved *= rate
        updates.append((running_var, moved, np.multiply(running_var, keep)))
    for running, moved, kept in updates:
        copies = moved.reshape(by_instance)
        copies += kept
        np.divide(np.add.reduce(copies, axis=0), n, out=running)
    return out.reshape(input.shape)


@kernel("native_batch_norm_backward")
def native_batch_norm_backward(grad_out: Array, input: Array, weight: Array | None,  # noqa: A002
                               running_mean: Array | None, running_var: Array | None,
                               save_mean: Array | None, save_invstd: Array | None, train: bool,
                               eps: float, output_mask: Sequence[bool]) -> tuple[Array | None, ...]:
    """Analytic gradients: in training the batch statistics depend on the input too."""
    x, g = opmath(input), opmath(grad_out)
    axes = (0, *range(2, x.ndim))
    if train:
        mean, invstd = save_mean, save_invstd
    else:
        mean, invstd = running_mean, 1 / np.sqrt(opmath(running_var) + eps)
    mean, invstd = _channels(x, opmath(mean)), _channels(x, opmath(invstd))
    xhat = (x - mean) * invstd
    scale = invstd if weight is None else invstd * _channels(x, opmath(weight))
    if train:
        dx = scale * (g - g.mean(axis=axes, keepdims=True)
                      - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    else:
        dx = g * scale
    param = input.dtype if weight is None else weight.dtype
    dw = (g * xhat).sum(axis=axes).astype(param)
    db = g.sum(axis=axes).astype(param)
    return _masked(output_mask, dx.astype(input.dtype, copy=False), dw, db)


# ---------------------------------------------------------------- layer norm


def _trailing(x: Array, count: int) -> tuple[int, ...]:
    return tuple(range(x.ndim - count, x.ndim))


@kernel("native_layer_norm")
def native_layer_norm(input: Array, normalized_shape: Sequence[int],  # noqa: A002
                      weight: Array | None, bias: Array | None,
                      eps: float) -> tuple[Array, Array, Array]:
    """(out, mean, rstd); mean/rstd keep the normalised dims as 1s."""
    if len(normalized_shape) == 1 and input.ndim >= 1 and input.shape[-1] and input.dtype in _BLAS_FLOATS:
        return _layer_norm_last_dim(input, weight, bias, eps)
    x = opmath(input)
    axes = _trailing(x, len(normalized_shape))
    mean = x.mean(axis=axes, keepdims=True)
    out = np.asarray(x - mean)  # x.var's own steps, the centred values kept for the output
    rstd = np.asarray(np.square(out).mean(axis=axes, keepdims=True))  # (a 0-d input: arrays)
    _normalise_in_place(out, rstd, eps, weight, bias)
    dtype = input.dtype
    return out.astype(dtype, copy=False), mean.astype(dtype), rstd.astype(dtype)


def _normalise_in_place(out: Array, rstd: Array, eps: Array | float, weight: Array | None,
                        bias: Array | None, one: Array | int = 1) -> None:
    """The centred values ``out`` scaled by 1/sqrt(var + eps) (``rstd`` holds the variance
    and becomes that factor), then by weight and shifted by bias: layer norm's last steps."""
    np.add(rstd, eps, out=rstd)
    np.sqrt(rstd, out=rstd)
    np.divide(one, rstd, out=rstd)
    out *= rstd
    if weight is not None:
        out *= weight.astype(out.dtype, copy=False)
    if bias is not None:
        out += bias.astype(out.dtype, copy=False)


def _layer_norm_last_dim(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                         eps: float) -> tuple[Array, Array, Array]:
    """The usual layer norm (over the last dim, float32/float64): the same steps as the
    general path, the sums as products (the squared deviations' a dot product per row,
    np.vecdot: no squared temporary), no dtype round trips."""
    ones, count, eps_, one = _row_constants(input.shape[-1], eps, input.dtype)
    # row sums as a matrix-vector product (BLAS: 5-8x numpy's add.reduce along a short last
    # axis, and as accurate on float32: blocked sums in float32 either way)
    mean = np.matmul(input, ones)[..., None]
    np.divide(mean, count, out=mean)
    out = np.subtract(input, mean)
    rstd = np.vecdot(out, out)[..., None]
    np.divide(rstd, count, out=rstd)
    _normalise_in_place(out, rstd, eps_, weight, bias, one)
    return out, mean, rstd


@kernel("layer_norm")
def layer_norm(input: Array, normalized_shape: Sequence[int],  # noqa: A002
               weight: Array | None = None, bias: Array | None = None, eps: float = 1e-05,
               cudnn_enable: bool = True) -> Array:
    return native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


@kernel("rms_norm")
def rms_norm(input: Array, normalized_shape: Sequence[int],  # noqa: A002
             weight: Array | None = None, eps: float | None = None) -> Array:
    """x / sqrt(mean(x², trailing dims) + eps) · weight, computed in float32 for reduced floats;
    eps None: the machine epsilon of that computation dtype, as torch."""
    if len(normalized_shape) == 1 and input.ndim >= 1 and input.shape[-1] and input.dtype in _BLAS_FLOATS and (
            weight is None or weight.dtype == input.dtype):
        return _rms_norm_last_dim(input, weight, eps)
    x = opmath(input)
    axes = _trailing(x, len(normalized_shape))
    eps = np.finfo(x.dtype).eps if eps is None else eps
    rstd = 1 / np.sqrt(np.square(x).mean(axis=axes, keepdims=True) + eps)
    return _affine(x * rstd, weight, None).astype(input.dtype, copy=False)


_EPSILON = {dtype: float(np.finfo(dtype).eps) for dtype in _BLAS_FLOATS}


def _rms_norm_last_dim(input: Array, weight: Array | None, eps: float | None) -> Array:  # noqa: A002
    """rms_norm over the last dim of a float32/float64 input: the same steps, the mean
    square a dot product per row (np.vecdot), the scaling in one output buffer."""
    count, eps_, one = dtype_constants(input.dtype, input.shape[-1], _EPSILON[input.dtype] if eps is None else eps, 1)
    rstd = np.vecdot(input, input)[..., None]
    np.divide(rstd, count, out=rstd)
    np.add(rstd, eps_, out=rstd)
    np.sqrt(rstd, out=rstd)
    np.divide(one, rstd, out=rstd)
    out = np.multiply(input, rstd)
    if weight is not None:
        out *= weight
    return out


@kernel("native_layer_norm_backward")
def native_layer_norm_backward(grad_out: Array, input: Array,  # noqa: A002
                               normalized_shape: Sequence[int], mean: Array, rstd: Array,
                               weight: Array | None, bias: Array | None,
                               output_mask: Sequence[bool]) -> tuple[Array | None, ...]:
    """dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = grad * weight;
    weight/bias grads are None when that parameter is absent (torch's decomposition)."""
    x, go = opmath(input), opmath(grad_out)
    axes = _trailing(x, len(normalized_shape))
    rows = tuple(range(x.ndim - len(normalized_shape)))
    xhat = (x - opmath(mean)) * opmath(rstd)
    g = go if weight is None else go * opmath(weight)
    dx = opmath(rstd) * (g - g.mean(axis=axes, keepdims=True)
                          - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    dtype = input.dtype
    dw = None if weight is None else (go * xhat).sum(axis=rows).astype(dtype)
    db = None if bias is None else go.sum(axis=rows).astype(dtype)
    return _masked(output_mask, dx.astype(dtype, copy=False), dw, db)


# ---------------------------------------------------------------- group norm


def _grouped(x: Array, group: int) -> Array:
    """[N, C, HxW] -> [N, group, C/group * HxW]."""
    n, c, hxw = x.shape
    return x.reshape(n, group, c // group * hxw)


def _column(values: Array | None) -> Array | None:
    """A per-channel [C] vector shaped to broadcast against [N, C, HxW]."""
    return None if values is None else values.reshape(-1, 1)


@kernel("native_group_norm")
def native_group_norm(input: Array, weight: Array | None, bias: Array | None,  # noqa: A002
                      N: int, C: int, HxW: int, group: int,  # noqa: N803 - torch's names
                      eps: float) -> tuple[Array, Array, Array]:
    """(out, mean, rstd) with mean/rstd of shape (N, group)."""
    x = _grouped(opmath(input).reshape(N, C, HxW), group)
    if x.dtype in _BLAS_FLOATS and x.size:
        out, mean, rstd = _group_norm_blas(x, (N, C, HxW), weight, bias, eps)
        out = out.reshape(input.shape)
        if out.dtype == input.dtype:  # mean and rstd are this call's own: no copies
            return out, mean, rstd
    else:
        mean = x.mean(axis=-1)
        rstd = 1 / np.sqrt(x.var(axis=-1) + eps)
        normed = ((x - mean[..., None]) * rstd[..., None]).reshape(N, C, HxW)
        out = _affine(normed, _column(weight), _column(bias)).reshape(input.shape)
    dtype = input.dtype
    return out.astype(dtype, copy=False), mean.astype(dtype), rstd.astype(dtype)


def _group_norm_blas(x: Array, channels: tuple[int, int, int], weight: Array | None,
                     bias: Array | None, eps: float) -> tuple[Array, Array, Array]:
    """(out [N, C, HxW], mean, rstd) of native_group_norm for non-empty float32/float64
    [N, group, C/group * HxW] rows ``x``, ``channels`` its [N, C, HxW]: the same two passes,
    the sums as BLAS products, the affine steps in the output's own buffer."""
    ones, count, eps_, one = _row_constants(x.shape[-1], eps, x.dtype)
    mean = np.matmul(x, ones)
    np.divide(mean, count, out=mean)
    out = np.subtract(x, mean[..., None])
    rstd = np.vecdot(out, out)
    np.divide(rstd, count, out=rstd)
    _inverse_std(rstd, eps_, one, out=rstd)
    out *= rstd[..., None]
    out = out.reshape(channels)
    if weight is not None:
        out *= _column(weight.astype(out.dtype, copy=False))
    if bias is not None:
        out += _column(bias.astype(out.dtype, copy=False))
    return out, mean, rstd


@kernel("group_norm")
def group_norm(input: Array, num_groups: int, weight: Array | None = None,  # noqa: A002
               bias: Array | None = None, eps: float = 1e-05,
               cudnn_enabled: bool = True) -> Array:
    n, c = input.shape[:2]
    return native_group_norm(input, weight, bias, n, c, math.prod(input.shape[2:]), num_groups, eps)[0]


@kernel("native_group_norm_backward")
def native_group_norm_backward(grad_out: Array, input: Array, mean: Array,  # noqa: A002
                               rstd: Array, weight: Array | None, N: int, C: int,  # noqa: N803
                               HxW: int, group: int,  # noqa: N803
                               output_mask: Sequence[bool]) -> tuple[Array | None, ...]:
    """Per group: dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = grad * weight[c]."""
    x, go = opmath(input).reshape(N, C, HxW), opmath(grad_out).reshape(N, C, HxW)
    m, r = opmath(mean)[..., None], opmath(rstd)[..., None]
    xhat = ((_grouped(x, group) - m) * r).reshape(N, C, HxW)
    g = go if weight is None else go * opmath(weight).reshape(-1, 1)
    gg, hg = _grouped(g, group), _grouped(xhat, group)
    dx = r * (gg - gg.mean(axis=-1, keepdims=True) - hg * (gg * hg).mean(axis=-1, keepdims=True))
    dtype = input.dtype
    dw = (go * xhat).sum(axis=(0, 2)).astype(dtype)
    db = go.sum(axis=(0, 2)).astype(dtype)
    return _masked(output_mask, dx.reshape(input.shape).astype(dtype, copy=False), dw, db)
