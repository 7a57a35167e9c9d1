"""Linalg lowerings: layer, batch and group normalisation.

Each is the interpreter's formula (``interpreter/kernels/norms.py``) in steps of the
reductions family's helpers: the statistics by ``moments`` (the mean, then the
squared deviations from it, as torch's two passes), the rest elementwise. The
statistics are computed in float32 for float16/bfloat16 and every result rounded
once to its dtype.

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

from xdsl.dialects import arith, tensor
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from texport.dialects.symbolic import is_static

from .builder import Body, Lowering
from .reductions import compute_element, elementwise, empty, moments
from .registry import lowers
from .types import element_type


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
    return elementwise(lw, result.shape, target, [value], lambda b, v: v[0])


# ---------------------------------------------------------------- layer norm


@lowers("norms", "aten.native_layer_norm.default")
def native_layer_norm(lw: Lowering) -> list[SSAValue]:
    """(out, mean, rstd); mean and rstd keep the normalised dims as 1s."""
    x, normalized_shape, weight, bias, eps = lw.op.arguments()
    shape = x.type.shape
    rank = len(shape)
    element = compute_element(x.type.dtype)
    axes = tuple(range(rank - len(normalized_shape), rank))
    value = lw.value(x)
    mean, squares, count = moments(lw, value, shape, axes, True, element)
    stats_dims = lw.result_type(1).shape
    eps_value = lw.constant(eps, element)
    rstd = elementwise(lw, stats_dims, element, [squares],
                       lambda b, v: _inverse_root(b, b.insert(arith.DivfOp(v[0], count)), eps_value))
    keep = AffineMap(rank, 0, tuple(AffineExpr.constant(0) if a in axes else AffineExpr.dimension(a)
                                    for a in range(rank)))
    trailing = AffineMap(rank, 0, tuple(AffineExpr.dimension(a) for a in axes))
    params = [(lw.value(p), trailing) for p in _present([weight, bias])]

    def normalise(b: Body, v: list[SSAValue]) -> SSAValue:
        centred = b.insert(arith.SubfOp(b.convert(v[0], element), v[1]))
        scaled = b.insert(arith.MulfOp(centred, v[2]))
        return _affine(b, scaled, *_optional_args(v[3:], [weight, bias]))

    out = elementwise(lw, shape, element_type(x.type.dtype), [value, (mean, keep), (rstd, keep), *params],
                      normalise)
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

    alpha = elementwise(lw, channels, element, [invstd, *optional], alpha_of)

    def beta_of(b: Body, v: list[SSAValue]) -> SSAValue:
        shift = b.insert(arith.MulfOp(b.convert(v[0], element), v[1]))
        bias_element = _optional_args(v[2:], [weight, bias])[1]
        if bias_element is None:
            return b.insert(arith.NegfOp(shift))
        return b.insert(arith.SubfOp(b.convert(bias_element, element), shift))

    beta = elementwise(lw, channels, element, [mean, alpha, *optional], beta_of)
    per_channel = _channel_map(len(shape))

    def transform(b: Body, v: list[SSAValue]) -> SSAValue:
        return b.insert(arith.AddfOp(b.insert(arith.MulfOp(b.convert(v[0], element), v[1])), v[2]))

    return elementwise(lw, shape, element_type(lw.result_type(0).dtype),
                       [lw.value(x), (alpha, per_channel), (beta, per_channel)], transform)


def _batch_norm_training(lw: Lowering, x: SSAValue, weight: Any, bias: Any, running_mean: Any,
                         running_var: Any, momentum: float, eps: float) -> list[SSAValue | None]:
    """(out, save_mean, save_invstd, new running_mean, new running_var) from the batch's
    statistics; a running statistic that is None gives None."""
    shape = x.type.shape
    element = compute_element(x.type.dtype)
    channels = [shape[1]]
    axes = (0, *range(2, len(shape)))
    mean, squares, count = moments(lw, lw.value(x), shape, axes, False, element)
    variance = elementwise(lw, channels, element, [squares], lambda b, v: b.insert(arith.DivfOp(v[0], count)))
    eps_value = lw.constant(eps, element)
    invstd = elementwise(lw, channels, element, [variance], lambda b, v: _inverse_root(b, v[0], eps_value))
    out = _scale_shift(lw, x, weight, bias, mean, invstd, element)
    # torch: var * (count / (count - 1)); one value per channel (count 1) gives inf, or nan for 0
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

        return elementwise(lw, channels, element_type(running.type.dtype), [batch, lw.value(running)], blend)

    return [out, _result(lw, mean, 1), _result(lw, invstd, 2),
            updated(mean, running_mean, False), updated(variance, running_var, True)]


def _batch_norm_eval(lw: Lowering, x: SSAValue, weight: Any, bias: Any, running_mean: SSAValue,
                     running_var: SSAValue, eps: float) -> list[SSAValue]:
    """(out, empty, empty): normalised by the running statistics."""
    element = compute_element(x.type.dtype)
    channels = [x.type.shape[1]]
    eps_value = lw.constant(eps, element)
    invstd = elementwise(lw, channels, element, [lw.value(running_var)],
                         lambda b, v: _inverse_root(b, b.convert(v[0], element), eps_value))
    mean = lw.value(running_mean)
    out = _scale_shift(lw, x, weight, bias, mean, invstd, element)
    return [out, empty(lw, lw.result_type(1).shape, element_type(lw.result_type(1).dtype)),
            empty(lw, lw.result_type(2).shape, element_type(lw.result_type(2).dtype))]


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


def _reassociation(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in group]) for group in groups])


@lowers("norms", "aten.native_group_norm.default")
def native_group_norm(lw: Lowering) -> list[SSAValue]:
    """(out, mean, rstd), mean and rstd [N, group]: x seen as [N, group, C / group, *spatial]."""
    x, weight, bias, _n, channels, _hxw, group, eps = lw.op.arguments()
    shape = x.type.shape
    if not isinstance(channels, int):
        raise ValueError(f"'{lw.op.name}': group norm needs a static channel count, found {channels}")
    per_group = channels // group
    grouped_shape = [shape[0], group, per_group, *shape[2:]]
    element = compute_element(x.type.dtype)
    source = lw.value(x)
    grouped_type = TensorType(source.type.element_type,
                              [int(d) if is_static(d) else DYNAMIC_INDEX for d in grouped_shape])
    reassociation = _reassociation([[0], [1, 2], *([a] for a in range(3, len(grouped_shape)))])
    grouped = lw.insert(tensor.ExpandShapeOp(
        source, [lw.index(d) for d in grouped_shape if not is_static(d)], reassociation,
        list(grouped_type.get_shape()), grouped_type)).results[0]
    rank = len(grouped_shape)
    axes = tuple(range(2, rank))
    mean, squares, count = moments(lw, grouped, grouped_shape, axes, False, element)
    eps_value = lw.constant(eps, element)
    rstd = elementwise(lw, grouped_shape[:2], element, [squares],
                       lambda b, v: _inverse_root(b, b.insert(arith.DivfOp(v[0], count)), eps_value))
    stats = AffineMap(rank, 0, (AffineExpr.dimension(0), AffineExpr.dimension(1)))
    channel = AffineMap(rank, 0, (AffineExpr.dimension(1) * per_group + AffineExpr.dimension(2),))
    params = [(lw.value(p), channel) for p in _present([weight, bias])]

    def normalise(b: Body, v: list[SSAValue]) -> SSAValue:
        centred = b.insert(arith.SubfOp(b.convert(v[0], element), v[1]))
        return _affine(b, b.insert(arith.MulfOp(centred, v[2])), *_optional_args(v[3:], [weight, bias]))

    normalised = elementwise(lw, grouped_shape, element_type(x.type.dtype),
                             [grouped, (mean, stats), (rstd, stats), *params], normalise)
    out = lw.insert(tensor.CollapseShapeOp(
        operands=[normalised], result_types=[source.type],
        properties={"reassociation": reassociation})).results[0]
    return [out, _result(lw, mean, 1), _result(lw, rstd, 2)]
