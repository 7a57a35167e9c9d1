"""Losses: elementwise terms, then the reduction (0 none, 1 mean, 2 sum)."""

from __future__ import annotations

import math
from typing import Any

from ._common import DType, Tensor, aten, register_decomposition

_NONE, _MEAN, _SUM = 0, 1, 2


def _reduce(loss: Tensor, reduction: int) -> Tensor:
    if reduction == _MEAN:
        return aten.mean.default(loss)
    if reduction == _SUM:
        return aten.sum.dim_IntList(loss, [])
    return loss


# mse_loss(x, y) = reduce((x - y)²)
@register_decomposition(aten.mse_loss.default)
def mse_loss(self: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    return _reduce(aten.pow.Tensor_Scalar(aten.sub.Tensor(self, target), 2), reduction)


# l1_loss(x, y) = reduce(|x - y|)
@register_decomposition(aten.l1_loss.default)
def l1_loss(self: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    return _reduce(aten.abs.default(aten.sub.Tensor(self, target)), reduction)


# smooth_l1_loss(x, y, β) = reduce(z < β ? 0.5·z²/β : z - β/2), z = |x - y| (β = 0: never z < β)
@register_decomposition(aten.smooth_l1_loss.default)
def smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = _MEAN, beta: float = 1.0) -> Tensor:
    z = aten.abs.default(aten.sub.Tensor(self, target))
    near = aten.lt.Scalar(z, beta)
    quadratic = aten.div.Tensor(aten.mul.Tensor(aten.pow.Tensor_Scalar(z, 2), 0.5), beta)
    return _reduce(aten.where.self(near, quadratic, aten.sub.Tensor(z, 0.5 * beta)), reduction)


# huber_loss(x, y, δ) = reduce(z < δ ? z²/2 : δ(z - δ/2)), z = |x - y|
@register_decomposition(aten.huber_loss.default)
def huber_loss(self: Tensor, target: Tensor, reduction: int = _MEAN, delta: float = 1.0) -> Tensor:
    z = aten.abs.default(aten.sub.Tensor(self, target))
    quadratic = aten.mul.Tensor(aten.mul.Tensor(z, z), 0.5)
    linear = aten.mul.Tensor(aten.sub.Tensor(z, 0.5 * delta), delta)
    return _reduce(aten.where.self(aten.lt.Scalar(z, delta), quadratic, linear), reduction)


# soft_margin_loss(x, y) = reduce(log1p(exp(-x·y)))
@register_decomposition(aten.soft_margin_loss.default)
def soft_margin_loss(self: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    return _reduce(aten.log1p.default(aten.exp.default(aten.mul.Tensor(aten.neg.default(self), target))), reduction)


# kl_div(x, y) = reduce(xlogy(y, y) - y·x), xlogy as torch's ref (y = 0 → 0, NaN y → NaN);
# with log_target: reduce(exp(y)·(y - x))
@register_decomposition(aten.kl_div.default)
def kl_div(self: Tensor, target: Tensor, reduction: int = _MEAN, log_target: bool = False) -> Tensor:
    if log_target:
        loss = aten.mul.Tensor(aten.exp.default(target), aten.sub.Tensor(target, self))
    else:
        product = aten.mul.Tensor(target, aten.log.default(target))
        zero = aten.scalar_tensor.default(0, dtype=product.dtype)
        rhs = aten.where.self(aten.eq.Scalar(target, 0), zero, product)
        nan = aten.scalar_tensor.default(float("nan"), dtype=product.dtype)
        xlogy = aten.where.self(aten.isnan.default(target), nan, rhs)
        loss = aten.sub.Tensor(xlogy, aten.mul.Tensor(target, self))
    return _reduce(loss, reduction)


# poisson_nll_loss(x, y) = reduce(exp(x) - y·x), or x - y·log(x + eps) without log_input;
# full adds where(y <= 1, 0, y·log y - y + log(2π·y)/2), as torch's C++ (masked_fill → where)
@register_decomposition(aten.poisson_nll_loss.default)
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,  # noqa: A002
                     reduction: int) -> Tensor:
    if log_input:
        loss = aten.sub.Tensor(aten.exp.default(input), aten.mul.Tensor(target, input))
    else:
        loss = aten.sub.Tensor(input, aten.mul.Tensor(target, aten.log.default(aten.add.Scalar(input, eps))))
    if full:
        half_log = aten.mul.Scalar(aten.log.default(aten.mul.Scalar(target, 2 * math.pi)), 0.5)
        stirling = aten.add.Tensor(
            aten.sub.Tensor(aten.mul.Tensor(target, aten.log.default(target)), target), half_log)
        zero = aten.scalar_tensor.default(0.0, dtype=stirling.dtype)
        loss = aten.add.Tensor(loss, aten.where.self(aten.le.Scalar(target, 1), zero, stirling))
    return _reduce(loss, reduction)


# margin_ranking_loss(x1, x2, y, m) = reduce(max(-y·(x1 - x2) + m, 0))
@register_decomposition(aten.margin_ranking_loss.default)
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = _MEAN) -> Tensor:
    scaled = aten.mul.Tensor(aten.neg.default(target), aten.sub.Tensor(input1, input2))
    return _reduce(aten.clamp.default(aten.add.Scalar(scaled, margin), 0), reduction)


# binary_cross_entropy(x, y, w) = reduce(w·((y - 1)·max(log1p(-x), -100) - y·max(log x, -100)))
@register_decomposition(aten.binary_cross_entropy.default)
def binary_cross_entropy(self: Tensor, target: Tensor, weight: Tensor | None = None,
                         reduction: int = _MEAN) -> Tensor:
    floor = -100
    log_1mx = aten.maximum.default(aten.log1p.default(aten.neg.default(self)),
                                   aten.full.default([], floor, dtype=self.dtype))
    first = aten.mul.Tensor(aten.sub.Tensor(target, 1), log_1mx)
    log_x = aten.maximum.default(aten.log.default(self), aten.full.default([], floor, dtype=self.dtype))
    loss = aten.sub.Tensor(first, aten.mul.Tensor(target, log_x))
    if weight is not None:
        loss = aten.mul.Tensor(loss, weight)
    return _reduce(loss, reduction)


# bce_with_logits(x, y, w, pw) = reduce(w·((1 - y)·x - (1 + (pw - 1)·y)·log_sigmoid(x)))
@register_decomposition(aten.binary_cross_entropy_with_logits.default)
def binary_cross_entropy_with_logits(self: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = _MEAN) -> Tensor:
    log_weight = None
    if pos_weight is not None:
        log_weight = aten.add.Tensor(aten.mul.Tensor(aten.sub.Tensor(pos_weight, 1), target), 1)
    linear = aten.mul.Tensor(aten.sub.Tensor(1, target), self)
    log_sigmoid = aten.log_sigmoid.default(self)
    if log_weight is not None:
        log_sigmoid = aten.mul.Tensor(log_weight, log_sigmoid)
    loss = aten.sub.Tensor(linear, log_sigmoid)
    if weight is not None:
        loss = aten.mul.Tensor(loss, weight)
    if loss.dtype is not target.dtype:
        loss = aten._to_copy.default(loss, dtype=target.dtype)
    return _reduce(loss, reduction)


def _where_kept(target: Tensor, ignore_index: Any, value: Tensor, fill: Any) -> Tensor:
    """torch.where(target != ignore_index, value, fill)."""
    kept = aten.ne.Scalar(target, ignore_index)
    return aten.where.self(kept, value, aten.scalar_tensor.default(fill, dtype=value.dtype))


def _nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                      ignore_index: Any) -> tuple[Tensor, Tensor]:
    """torch._decomp's _nll_loss_forward: (the reduced -w[t]·x[t], the kept targets' total weight)."""
    channel = 1 if self.dim() >= 2 else 0
    scaled_weight = None
    if weight is not None:
        scaled_weight = weight
        if self.dim() > 1:
            scaled_weight = aten.view.default(weight, [weight.shape[0] if i == channel else 1
                                                       for i in range(self.dim())])
        self = aten.mul.Tensor(self, scaled_weight)
    safe = aten.unsqueeze.default(_where_kept(target, ignore_index, target, 0), channel)
    result = aten.neg.default(aten.squeeze.dims(aten.gather.default(self, channel, safe), [channel]))
    result = _where_kept(target, ignore_index, result, 0)
    if reduction == _NONE and self.dim() > 1:
        return result, aten.full.default([], 0.0, dtype=self.dtype)
    if scaled_weight is not None:
        expanded = aten.expand.default(scaled_weight, list(self.shape))
        picked = aten.squeeze.dims(aten.gather.default(expanded, channel, safe), [channel])
        total = aten.sum.dim_IntList(_where_kept(target, ignore_index, picked, 0), [])
    else:
        kept = aten.sum.dim_IntList(aten.ne.Scalar(target, ignore_index), [])
        total = aten._to_copy.default(kept, dtype=self.dtype)
    if reduction == _SUM:
        result = aten.sum.dim_IntList(result, [])
    elif reduction == _MEAN:
        result = aten.div.Tensor(aten.sum.dim_IntList(result, []), total)
    return result, total


# nll_loss_forward(x, t, w) = (reduce(-w[t]·x[t]), sum of the kept w[t]), ignored targets weigh 0
@register_decomposition([aten.nll_loss_forward.default, aten.nll_loss2d_forward.default])
def nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                     ignore_index: Any) -> tuple[Tensor, Tensor]:
    return _nll_loss_forward(self, target, weight, reduction, ignore_index)


# nll_loss(x, t, w) = nll_loss_forward(x, t, w)[0] (ATen's nll_loss_nd: 3-D and >4-D inputs viewed as 4-D)
@register_decomposition([aten.nll_loss.default, aten.nll_loss_nd.default])
def nll_loss(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = _MEAN,
             ignore_index: Any = -100) -> Tensor:
    return _nll_loss_nd(self, target, weight, reduction, ignore_index)


def _nll_loss_nd(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: Any) -> Tensor:
    if self.dim() in (1, 2, 4):
        return _nll_loss_forward(self, target, weight, reduction, ignore_index)[0]
    batch, classes, rest = self.shape[0], self.shape[1], list(self.shape)[2:]
    if target.numel() != 0:  # (torch's check: an empty target is not reshaped)
        self = aten.view.default(self, [batch, classes, 1, -1])
        target = aten.view.default(target, [batch, 1, -1])
    loss = _nll_loss_forward(self, target, weight, reduction, ignore_index)[0]
    return aten.view.default(loss, [batch, *rest]) if reduction == _NONE else loss


# cross_entropy(x, t) = nll_loss(log_softmax(x, class dim), t); class probabilities t: -Σ t·log_softmax(x);
# label smoothing mixes in the mean over classes (ATen's cross_entropy_loss)
@register_decomposition(aten.cross_entropy_loss.default)
def cross_entropy_loss(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = _MEAN,
                       ignore_index: Any = -100, label_smoothing: float = 0.0) -> Tensor:
    axis = 0 if self.dim() == 1 else 1
    logp = aten._log_softmax.default(self, axis, False)
    if list(self.shape) == list(target.shape):
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, axis)
    loss = _nll_loss_nd(logp, target, weight, reduction, ignore_index)
    if label_smoothing <= 0:
        return loss
    smooth = _smoothing_term(logp, target, weight, reduction, ignore_index, axis)
    mixed = aten.mul.Scalar(smooth, label_smoothing / logp.shape[axis])
    return aten.add.Tensor(aten.mul.Scalar(loss, 1 - label_smoothing), mixed)


def _smoothing_term(logp: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: Any,
                    axis: int) -> Tensor:
    """The reduced -Σ_c w_c·logp_c of the kept targets (the mean divides by their weight, or count)."""
    per_class = logp if weight is None else aten.mul.Tensor(logp, _class_view(weight, logp.dim(), axis))
    smooth = aten.neg.default(aten.sum.dim_IntList(per_class, [axis]))
    ignored = aten.eq.Scalar(target, ignore_index)
    smooth = aten.where.self(ignored, aten.scalar_tensor.default(0.0, dtype=smooth.dtype), smooth)
    if reduction == _SUM:
        return aten.sum.dim_IntList(smooth, [])
    if reduction != _MEAN:
        return smooth
    if weight is None:
        kept = aten.sum.dim_IntList(aten.bitwise_not.default(ignored), [])
        return aten.div.Tensor(aten.sum.dim_IntList(smooth, []), kept)
    safe = aten.where.self(ignored, aten.scalar_tensor.default(0, dtype=target.dtype), target)
    if safe.dim() == 1:  # (flatten and the view back are no-ops)
        picked = aten.gather.default(weight, 0, safe)
    else:
        picked = aten.view.default(aten.gather.default(weight, 0, aten.view.default(safe, [safe.numel()])),
                                   list(safe.shape))
    picked = aten.where.self(ignored, aten.scalar_tensor.default(0, dtype=picked.dtype), picked)
    return aten.div.Tensor(aten.sum.dim_IntList(smooth, []), aten.sum.dim_IntList(picked, []))


def _class_view(weight: Tensor, rank: int, axis: int) -> Tensor:
    return aten.view.default(weight, [weight.shape[0] if i == axis else 1 for i in range(rank)])


def _soft_cross_entropy(logp: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                        smoothing: float, axis: int) -> Tensor:
    """-Σ w·p·log q over the class dim with class probabilities p (mean: over samples)."""
    classes = logp.shape[axis]
    probs = target
    if smoothing > 0:
        probs = aten.add.Scalar(aten.mul.Scalar(target, 1 - smoothing), smoothing / classes)
    terms = aten.mul.Tensor(logp, probs)
    if weight is not None:
        terms = aten.mul.Tensor(terms, _class_view(weight, logp.dim(), axis))
    if reduction == _NONE:
        return aten.neg.default(aten.sum.dim_IntList(terms, [axis]))
    total = aten.neg.default(aten.sum.dim_IntList(terms, []))
    if reduction == _MEAN:
        return aten.div.Scalar(total, logp.numel() // classes)
    return total


def _scalar_minus(value: Any, x: Tensor) -> Tensor:
    """ATen's ``value - x`` (operator-(Scalar, Tensor)): empty_like(x).fill_(value).sub_(x)."""
    return aten.sub.Tensor(aten.full_like.default(aten.empty_like.default(x), value), x)


# hinge_embedding_loss(x, y, m) = reduce(where(y != 1, max(m - x, 0), 0) + where(y != -1, x, 0))
# (ATen's composite, which spells m - x as empty_like(x).fill_(m).sub_(x))
@register_decomposition(aten.hinge_embedding_loss.default)
def hinge_embedding_loss(self: Tensor, target: Tensor, margin: float = 1.0, reduction: int = _MEAN) -> Tensor:
    zeros = aten.full_like.default(self, 0)
    margin_clamp = aten.clamp.default(_scalar_minus(margin, self), 0)
    output_margin = aten.where.self(aten.ne.Scalar(target, 1), margin_clamp, zeros)
    output_self = aten.where.self(aten.ne.Scalar(target, -1), self, zeros)
    return _reduce(aten.add.Tensor(output_margin, output_self), reduction)


_COSINE_EPS = 1e-12  # ATen's EPSILON, added to each squared norm


# cosine_embedding_loss(a, b, y, m) = reduce(where(y == 1, 1 - cos, 0) + where(y == -1, max(cos - m, 0), 0)),
# cos = Σab / sqrt((Σa² + ε)(Σb² + ε)) along the last dim (ATen's composite)
@register_decomposition(aten.cosine_embedding_loss.default)
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = _MEAN) -> Tensor:
    dim = [target.dim()]
    prod_sum = aten.sum.dim_IntList(aten.mul.Tensor(input1, input2), dim)
    mag_square1 = aten.add.Scalar(aten.sum.dim_IntList(aten.mul.Tensor(input1, input1), dim), _COSINE_EPS)
    mag_square2 = aten.add.Scalar(aten.sum.dim_IntList(aten.mul.Tensor(input2, input2), dim), _COSINE_EPS)
    cos = aten.div.Tensor(prod_sum, aten.sqrt.default(aten.mul.Tensor(mag_square1, mag_square2)))
    zeros = aten.full_like.default(cos, 0)
    pos = _scalar_minus(1, cos)
    neg = aten.clamp.default(aten.sub.Scalar(cos, margin), 0)
    output_pos = aten.where.self(aten.eq.Scalar(target, 1), pos, zeros)
    output_neg = aten.where.self(aten.eq.Scalar(target, -1), neg, zeros)
    return _reduce(aten.add.Tensor(output_pos, output_neg), reduction)


# triplet_margin_loss(a, p, n) = reduce(max(m + d(a, p) - d(a, n), 0)), d = pairwise_distance;
# swap: d(a, n) = min(d(a, n), d(p, n))
@register_decomposition(aten.triplet_margin_loss.default)
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-6, swap: bool = False, reduction: int = _MEAN) -> Tensor:
    dist_pos = aten.pairwise_distance.default(anchor, positive, p, eps)
    dist_neg = aten.pairwise_distance.default(anchor, negative, p, eps)
    if swap:
        dist_neg = aten.minimum.default(dist_neg, aten.pairwise_distance.default(positive, negative, p, eps))
    return _reduce(aten.clamp.default(aten.sub.Tensor(aten.add.Scalar(dist_pos, margin), dist_neg), 0), reduction)


def _atleast_2d(x: Tensor) -> Tensor:
    """torch.atleast_2d: a vector gains a leading dim (unsqueeze), a scalar becomes [1, 1]."""
    if x.dim() >= 2:
        return x
    return aten.unsqueeze.default(x, 0) if x.dim() == 1 else aten.view.default(x, [1, 1])


# multi_margin_loss(x, y) = Σ_{i≠y} w[y]·max(m - x[y] + x[i], 0)^p / C per frame (torch._decomp's)
@register_decomposition(aten.multi_margin_loss.default)
def multi_margin_loss(self: Tensor, target: Tensor, p: Any = 1, margin: Any = 1, weight: Tensor | None = None,
                      reduction: int = _MEAN) -> Tensor:
    x = _atleast_2d(self)
    target = aten.unsqueeze.default(target if target.dim() else aten.view.default(target, [1]), 1)
    classes = x.shape[1]
    z = aten.clamp.default(aten.add.Tensor(aten.sub.Tensor(margin, aten.gather.default(x, 1, target)), x), 0)
    z = z if p == 1 else aten.mul.Tensor(z, z)
    if weight is not None:
        z = aten.mul.Tensor(z, aten.index.Tensor(weight, [target]))
    others = aten.ne.Tensor(aten.arange.start_step(0, classes), target)
    z = aten.where.self(others, z, aten.scalar_tensor.default(0, dtype=z.dtype))
    if reduction == _MEAN:
        return aten.mean.default(z)
    if reduction == _SUM:
        return aten.div.Tensor(aten.sum.dim_IntList(z, []), classes)
    per_frame = aten.mean.dim(z, [1])
    return per_frame if self.dim() == 2 else aten.view.default(per_frame, [])


# multilabel_margin_loss(x, y) = multilabel_margin_loss_forward(x, y)[0]
@register_decomposition(aten.multilabel_margin_loss.default)
def multilabel_margin_loss(self: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    return aten.multilabel_margin_loss_forward.default(self, target, reduction)[0]


# multilabel_margin_loss_forward(x, y): per frame Σ_{labels j} Σ_{classes i not labels} max(1 - x[j] + x[i], 0) / C,
# the labels those before the first -1 (torch._decomp's, which also sums the positions past the first -1:
# here masked out, as ATen's kernel does), and the labels' 0/1 mask
@register_decomposition(aten.multilabel_margin_loss_forward.default)
def multilabel_margin_loss_forward(self: Tensor, target: Tensor, reduction: int) -> tuple[Tensor, Tensor]:
    x, labels = _atleast_2d(self), _atleast_2d(target)
    classes = x.shape[1]
    positions = aten.arange.start_step(0, classes)
    ends = aten.where.self(aten.eq.Scalar(labels, -1), positions,
                           aten.scalar_tensor.default(classes, dtype=labels.dtype))
    labelled = aten.lt.Tensor(positions, aten.amin.default(ends, [-1], True))
    u = aten.gather.default(x, -1, aten.where.self(labelled, labels, aten.scalar_tensor.default(0, dtype=labels.dtype)))
    kept = aten.where.self(labelled, labels, aten.scalar_tensor.default(-1, dtype=labels.dtype))
    is_target = aten.any.dim(aten.eq.Tensor(positions, aten.unsqueeze.default(kept, -1)), 1)
    z = aten.add.Tensor(aten.sub.Tensor(1.0, aten.unsqueeze.default(aten.permute.default(u, [1, 0]), -1)), x)
    z = aten.div.Tensor(aten.clamp.default(z, 0), classes)
    zero = aten.scalar_tensor.default(0, dtype=x.dtype)
    z = aten.where.self(is_target, zero, z)
    z = aten.where.self(aten.unsqueeze.default(aten.permute.default(labelled, [1, 0]), -1), z, zero)
    if reduction == _MEAN:
        output = aten.mean.default(aten.sum.dim_IntList(z, [0, -1]))
    elif reduction == _SUM:
        output = aten.sum.dim_IntList(z, [])
    else:
        output = aten.sum.dim_IntList(z, [0, -1])
        output = output if self.dim() == 2 else aten.view.default(output, [])
    mask = aten._to_copy.default(is_target, dtype=self.dtype)
    return output, mask if self.dim() == 2 else aten.view.default(mask, list(self.shape))


# ctc_loss(lp, y, Ti, Ty) = reduce(nll), nll = _ctc_loss(lp, y.long(), Ti, Ty)[0] (inf -> 0 with zero_infinity);
# mean: mean(nll / max(Ty, 1)) (ATen's ctc_loss_impl; a 2-d lp is one unbatched sequence)
@register_decomposition([aten.ctc_loss.IntList, aten.ctc_loss.Tensor])
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: int = _MEAN, zero_infinity: bool = False) -> Tensor:
    batched = log_probs.dim() == 3
    log_probs = log_probs if batched else aten.unsqueeze.default(log_probs, 1)
    if targets.dtype is not DType.int64:
        targets = aten._to_copy.default(targets, dtype=DType.int64)
    forward = aten._ctc_loss.Tensor if isinstance(input_lengths, Tensor) else aten._ctc_loss.default
    res = forward(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)[0]
    if zero_infinity:
        infinite = aten.eq.Scalar(res, math.inf)
        res = aten.where.self(infinite, aten.full.default([], 0, dtype=res.dtype), res)
    if reduction == _MEAN:
        return aten.mean.default(aten.div.Tensor(res, _clamped_lengths(target_lengths, res.dtype)))
    if reduction == _SUM:
        return aten.sum.dim_IntList(res, [])
    return res if batched else aten.squeeze.dims(res, [0])


def _clamped_lengths(lengths: Any, dtype: DType) -> Tensor:
    """max(target_lengths, 1) as a tensor of dtype (ATen's get_clamped_target_length; a list
    becomes one full() per sequence, joined)."""
    if isinstance(lengths, Tensor):
        return aten.clamp_min.default(aten._to_copy.default(lengths, dtype=dtype), 1)
    return aten.cat.default([aten.full.default([1], max(int(n), 1), dtype=dtype) for n in lengths])
