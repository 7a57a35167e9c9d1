"""Linalg lowerings: layer, batch and group normalisation.

Each is the interpreter's formula (``interpreter/kernels/norms.py``) in steps of the
reduction building blocks (``reducing.py``): the statistics by ``moments`` (the mean, then the
squared deviations from it, as torch's two passes), the rest elementwise. float16
and bfloat16 compute in float32, each result rounded once to its dtype, except where
torch's kernels round sooner (training batch norm with parameters of the input's
dtype: float16 normalises with the rounded saved statistics, bfloat16 rounds every
statistic; ``Body.rounded_through``).

- layer norm: mean and rstd over the trailing ``normalized_shape`` dims, kept as 1s;
  out = (x - mean) * rstd * weight + bias.
- batch norm: per channel (dim 1), over batch and spatial dims; out = x * alpha + beta
  with alpha = invstd * weight, beta = bias - mean * alpha (torch's CPU transform).
  Training normalises with the biased variance and feeds the running variance the
  unbiased one: new = momentum * batch + (1 - momentum) * old. Evaluation uses the
  running statistics and its saved mean/invstd are empty ([0]).
- group norm: the input seen as [N, group, C / group, *spatial] (``tensor.expand_shape``),
  mean and rstd of shape [N, group]."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from texport.dialects.dtypes import DType

from .builder import Body, Lowering
from .reducing import moments, reduced_map
from .registry import lowers
from .shapes import collapse, expand
from .types import element_type, opmath_dtype


def _inverse_root(b: Body, variance: SSAValue, eps: SSAValue) -> SSAValue:
    """1 / sqrt(variance + eps)."""
    root = b.insert(mathd.SqrtOp(b.insert(arith.AddfOp(variance, eps))))
    return b.insert(arith.DivfOp(b.constant(1.0, variance.type), root))


def _affine(b: Body, value: SSAValue, weight: SSAValue | None, bias: SSAValue | None) -> SSAValue:
    """value * weight + bias, each optional."""
    if weight is not None:
        value = b.insert(arith.MulfOp(value, b.convert(weight, value.type)))
    if bias is not None:
        value = b.insert(arith.AddfOp(value, b.convert(bias, value.type)))
    return value


def _present(values: Sequence[Any]) -> list[SSAValue]:
    return [v for v in values if v is not None]


def _optional_args(args: Sequence[SSAValue], present: Sequence[Any]) -> list[SSAValue | None]:
    """The body's elements of optional operands, None where the operand is absent."""
    found, position = [], 0
    for value in present:
        if value is None:
            found.append(None)
        else:
            found.append(args[position])
            position += 1
    return found


def _result(lw: Lowering, value: SSAValue, index: int) -> SSAValue:
    """``value`` (computed in float32 or the input's dtype) as result ``index``'s dtype."""
    result = lw.result_type(index)
    target = element_type(result.dtype)
    if value.type.element_type == target:
        return value
    return lw.elementwise(result.shape, target, [value], lambda b, v: v[0])


def _normalised(lw: Lowering, x: SSAValue, dims: Sequence[Any], stats: AffineMap, mean: SSAValue,
                rstd: SSAValue, params: AffineMap, weight: Any, bias: Any, element: Attribute) -> SSAValue:
    """(x - mean) * rstd * weight + bias in ``element``, as x's dtype: ``x`` (upstream) over
    ``dims``, the statistics read by ``stats``, weight and bias (optional) by ``params``."""
    optional = [(lw.value(p), params) for p in _present([weight, bias])]

    def normalise(b: Body, v: list[SSAValue]) -> SSAValue:
        centred = b.insert(arith.SubfOp(b.convert(v[0], element), v[1]))
        return _affine(b, b.insert(arith.MulfOp(centred, v[2])), *_optional_args(v[3:], [weight, bias]))

    return lw.elementwise(dims, x.type.element_type, [x, (mean, stats), (rstd, stats), *optional], normalise)


# ---------------------------------------------------------------- layer norm


@lowers("norms", "aten.native_layer_norm.default")
def native_layer_norm(lw: Lowering) -> list[SSAValue]:
    """(out, mean, rstd); mean and rstd keep the normalised dims as 1s."""
    x, normalized_shape, weight, bias, eps = lw.op.arguments()
    shape = x.type.shape
    rank = len(shape)
    element = element_type(opmath_dtype(x.type.dtype))
    axes = tuple(range(rank - len(normalized_shape), rank))
    value = lw.value(x)
    mean, squares, count = moments(lw, value, shape, axes, True, element)
    stats_dims = lw.result_type(1).shape
    eps_value = lw.constant(eps, element)
    rstd = lw.elementwise(stats_dims, element, [squares],
                          lambda b, v: _inverse_root(b, b.insert(arith.DivfOp(v[0], count)), eps_value))
    keep = reduced_map(rank, axes, keepdim=True)
    trailing = AffineMap(rank, 0, tuple(AffineExpr.dimension(a) for a in axes))
    out = _normalised(lw, value, shape, keep, mean, rstd, trailing, weight, bias, element)
    return [out, _result(lw, mean, 1), _result(lw, rstd, 2)]


# ---------------------------------------------------------------- batch norm


def _channel_map(rank: int) -> AffineMap:
    return AffineMap(rank, 0, (AffineExpr.dimension(1),))


def _scale_shift(lw: Lowering, x: SSAValue, weight: Any, bias: Any, mean: SSAValue, invstd: SSAValue,
                 element: Attribute) -> SSAValue:
    """x * alpha + beta per channel, alpha = invstd * weight, beta = bias - mean * alpha."""
    shape = x.type.shape
    channels = [shape[1]]
    optional = [(lw.value(p)) for p in _present([weight, bias])]

    def alpha_of(b: Body, v: list[SSAValue]) -> SSAValue:
        return _affine(b, v[0], _optional_args(v[1:], [weight, bias])[0], None)

    alpha = lw.elementwise(channels, element, [invstd, *optional], alpha_of)

    def beta_of(b: Body, v: list[SSAValue]) -> SSAValue:
        shift = b.insert(arith.MulfOp(b.convert(v[0], element), v[1]))
        bias_element = _optional_args(v[2:], [weight, bias])[1]
        if bias_element is None:
            return b.insert(arith.NegfOp(shift))
        return b.insert(arith.SubfOp(b.convert(bias_element, element), shift))

    beta = lw.elementwise(channels, element, [mean, alpha, *optional], beta_of)
    per_channel = _channel_map(len(shape))

    def transform(b: Body, v: list[SSAValue]) -> SSAValue:
        return b.insert(arith.AddfOp(b.insert(arith.MulfOp(b.convert(v[0], element), v[1])), v[2]))

    return lw.elementwise(shape, element_type(lw.result_type(0).dtype),
                          [lw.value(x), (alpha, per_channel), (beta, per_channel)], transform)


def _batch_norm_training(lw: Lowering, x: SSAValue, weight: Any, bias: Any, running_mean: Any,
                         running_var: Any, momentum: float, eps: float) -> list[SSAValue | None]:
    """(out, save_mean, save_invstd, new running_mean, new running_var) from the batch's
    statistics; a running statistic that is None gives None. A float16/bfloat16 input
    whose parameters share its dtype follows torch's kernels for it: float16 normalises
    with the saved (rounded) statistics, bfloat16 rounds every statistic."""
    shape = x.type.shape
    element = element_type(opmath_dtype(x.type.dtype))
    axes = (0, *range(2, len(shape)))
    mean, squares, count = moments(lw, lw.value(x), shape, axes, False, element)
    params = (weight, bias, running_mean, running_var)
    own_dtype = element != element_type(x.type.dtype) and all(p is None or p.type.dtype == x.type.dtype
                                                              for p in params)
    stats = _BatchStatistics(lw, [shape[1]], element, count)
    if own_dtype and x.type.dtype == DType.bfloat16:
        return _batch_norm_training_rounded(lw, x, weight, bias, running_mean, running_var, momentum, eps,
                                            stats, mean, squares)
    variance = stats.map([squares], lambda b, v: b.insert(arith.DivfOp(v[0], count)))
    eps_value = lw.constant(eps, element)
    invstd = stats.map([variance], lambda b, v: _inverse_root(b, v[0], eps_value))
    saved = [_result(lw, mean, 1), _result(lw, invstd, 2)]
    if own_dtype:  # float16: x * alpha + beta from the saved statistics
        low = element_type(x.type.dtype)
        mean, invstd = (stats.map([v], lambda b, v: b.rounded_through(v[0], low)) for v in (mean, invstd))
    out = _scale_shift(lw, x, weight, bias, mean, invstd, element)
    # torch: var * (count / (count - 1)); one value per channel (count 1) gives 0 / 0
    one = lw.constant(1.0, element)
    bessel = lw.insert(arith.DivfOp(count, lw.insert(arith.SubfOp(count, one)).results[0])).results[0]
    rate = lw.constant(momentum, element)
    keep = lw.constant(1 - momentum, element)

    def updated(batch: SSAValue, running: Any, unbiased: bool) -> SSAValue | None:
        if running is None:
            return None

        def blend(b: Body, v: list[SSAValue]) -> SSAValue:
            new = b.insert(arith.MulfOp(v[0], bessel)) if unbiased else v[0]
            old = b.insert(arith.MulfOp(keep, b.convert(v[1], element)))
            return b.insert(arith.AddfOp(b.insert(arith.MulfOp(rate, new)), old))

        return stats.result(4 if unbiased else 3, [batch, lw.value(running)], blend)

    return [out, *saved, updated(mean, running_mean, False), updated(variance, running_var, True)]


class _BatchStatistics:
    """Per-channel vectors ([C]) computed elementwise in ``element``."""

    def __init__(self, lw: Lowering, channels: list[Any], element: Attribute, count: SSAValue) -> None:
        self.lw, self.channels, self.element, self.count = lw, channels, element, count

    def map(self, inputs: list[SSAValue], compute: Any) -> SSAValue:
        return self.lw.elementwise(self.channels, self.element, inputs, compute)

    def result(self, index: int, inputs: list[SSAValue], compute: Any) -> SSAValue:
        """A [C] result in the dtype the IR gives it (for a float16 input's running
        statistics: float32)."""
        return self.lw.elementwise(self.channels, element_type(self.lw.result_type(index).dtype), inputs, compute)


def _batch_norm_training_rounded(lw: Lowering, x: SSAValue, weight: Any, bias: Any, running_mean: Any,
                                 running_var: Any, momentum: float, eps: float, stats: _BatchStatistics,
                                 mean: SSAValue, squares: SSAValue) -> list[SSAValue | None]:
    """Training batch norm as torch's bfloat16 CPU kernel: the mean and the squared
    deviations summed in float32, each rounded to bfloat16; the variances are that sum
    divided by the rounded count, rounded; out = (x - mean) * invstd * weight + bias in
    float32 with the rounded statistics; the running blend rounds each product."""
    low, element, count = element_type(x.type.dtype), stats.element, stats.count

    def rounded(b: Body, value: SSAValue) -> SSAValue:
        return b.rounded_through(value, low)

    def divided(b: Body, value: SSAValue, divisor: SSAValue) -> SSAValue:
        return rounded(b, b.insert(arith.DivfOp(rounded(b, value), rounded(b, divisor))))

    mean = stats.map([mean], lambda b, v: rounded(b, v[0]))
    count_less_one = lw.insert(arith.SubfOp(count, lw.constant(1.0, element))).results[0]
    variance = stats.map([squares], lambda b, v: divided(b, v[0], count))
    unbiased = stats.map([squares], lambda b, v: divided(b, v[0], count_less_one))
    eps_value = lw.constant(eps, element)
    invstd = stats.map([variance], lambda b, v: rounded(b, _inverse_root(b, v[0], eps_value)))
    per_channel = _channel_map(len(x.type.shape))
    out = _normalised(lw, lw.value(x), x.type.shape, per_channel, mean, invstd, per_channel, weight, bias,
                      element)

    def updated(batch: SSAValue, running: Any, index: int) -> SSAValue | None:
        if running is None:
            return None

        def blend(b: Body, v: list[SSAValue]) -> SSAValue:
            rate = rounded(b, b.constant(momentum, element))
            keep = rounded(b, b.insert(arith.SubfOp(b.constant(1.0, element), rate)))
            new = b.insert(arith.MulfOp(rate, v[0]))
            new = rounded(b, new) if index == 3 else new  # c10: bfloat16 * bfloat16 rounds
            old = rounded(b, b.insert(arith.MulfOp(keep, b.convert(v[1], element))))
            return rounded(b, b.insert(arith.AddfOp(new, old)))

        return stats.result(index, [batch, lw.value(running)], blend)

    return [out, _result(lw, mean, 1), _result(lw, invstd, 2),
            updated(mean, running_mean, 3), updated(unbiased, running_var, 4)]


def _batch_norm_eval(lw: Lowering, x: SSAValue, weight: Any, bias: Any, running_mean: SSAValue,
                     running_var: SSAValue, eps: float) -> list[SSAValue]:
    """(out, empty, empty): normalised by the running statistics."""
    element = element_type(opmath_dtype(x.type.dtype))
    channels = [x.type.shape[1]]
    eps_value = lw.constant(eps, element)
    invstd = lw.elementwise(channels, element, [lw.value(running_var)],
                            lambda b, v: _inverse_root(b, b.convert(v[0], element), eps_value))
    mean = lw.value(running_mean)
    out = _scale_shift(lw, x, weight, bias, mean, invstd, element)
    return [out, lw.empty_of(lw.result_type(1).shape, element_type(lw.result_type(1).dtype)),
            lw.empty_of(lw.result_type(2).shape, element_type(lw.result_type(2).dtype))]


@lowers("norms", "aten._native_batch_norm_legit_functional.default")
def batch_norm_functional(lw: Lowering) -> list[SSAValue | None]:
    x, weight, bias, running_mean, running_var, training, momentum, eps = lw.op.arguments()
    if not training:
        results = _batch_norm_eval(lw, x, weight, bias, running_mean, running_var, eps)
        return [*results, lw.value(running_mean), lw.value(running_var)]
    return _batch_norm_training(lw, x, weight, bias, running_mean, running_var, momentum, eps)


@lowers("norms", "aten._native_batch_norm_legit.no_stats")
def batch_norm_no_stats(lw: Lowering) -> list[SSAValue | None]:
    x, weight, bias, training, momentum, eps = lw.op.arguments()
    if not training:
        raise ValueError(f"'{lw.op.name}': evaluation needs running statistics, and this overload has "
                         f"none (training=False)")
    return _batch_norm_training(lw, x, weight, bias, None, None, momentum, eps)[:3]


@lowers("norms", "aten._native_batch_norm_legit_no_training.default")
def batch_norm_no_training(lw: Lowering) -> list[SSAValue]:
    x, weight, bias, running_mean, running_var, _momentum, eps = lw.op.arguments()
    return _batch_norm_eval(lw, x, weight, bias, running_mean, running_var, eps)


# ---------------------------------------------------------------- group norm


@lowers("norms", "aten.native_group_norm.default")
def native_group_norm(lw: Lowering) -> list[SSAValue]:
    """(out, mean, rstd), mean and rstd [N, group]: x seen as [N, group, C / group, *spatial]."""
    x, weight, bias, _n, channels, _hxw, group, eps = lw.op.arguments()
    shape = x.type.shape
    if not isinstance(channels, int):
        raise ValueError(f"'{lw.op.name}': group norm needs a static channel count, found {channels}")
    per_group = channels // group
    grouped_shape = [shape[0], group, per_group, *shape[2:]]
    element = element_type(opmath_dtype(x.type.dtype))
    source = lw.value(x)
    groups = [[0], [1, 2], *([a] for a in range(3, len(grouped_shape)))]
    grouped = expand(lw, source, groups, grouped_shape)
    rank = len(grouped_shape)
    axes = tuple(range(2, rank))
    mean, squares, count = moments(lw, grouped, grouped_shape, axes, False, element)
    eps_value = lw.constant(eps, element)
    rstd = lw.elementwise(grouped_shape[:2], element, [squares],
                          lambda b, v: _inverse_root(b, b.insert(arith.DivfOp(v[0], count)), eps_value))
    stats = AffineMap(rank, 0, (AffineExpr.dimension(0), AffineExpr.dimension(1)))
    channel = AffineMap(rank, 0, (AffineExpr.dimension(1) * per_group + AffineExpr.dimension(2),))
    normalised = _normalised(lw, grouped, grouped_shape, stats, mean, rstd, channel, weight, bias, element)
    out = collapse(lw, normalised, groups, source.type)
    return [out, _result(lw, mean, 1), _result(lw, rstd, 2)]
