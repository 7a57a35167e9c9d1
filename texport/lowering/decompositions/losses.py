"""Losses: elementwise terms, then the reduction (0 none, 1 mean, 2 sum)."""

from __future__ import annotations

from typing import Any

from ._common import Tensor, aten, register_decomposition

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
    diff = aten.sub.Tensor(self, target)
    return _reduce(aten.mul.Tensor(diff, diff), reduction)


# l1_loss(x, y) = reduce(|x - y|)
@register_decomposition(aten.l1_loss.default)
def l1_loss(self: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    return _reduce(aten.abs.default(aten.sub.Tensor(self, target)), reduction)


# smooth_l1_loss(x, y, β) = reduce(z < β ? z²/(2β) : z - β/2), z = |x - y|
@register_decomposition(aten.smooth_l1_loss.default)
def smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = _MEAN, beta: float = 1.0) -> Tensor:
    z = aten.abs.default(aten.sub.Tensor(self, target))
    if beta == 0:
        return _reduce(z, reduction)
    quadratic = aten.div.Scalar(aten.mul.Tensor(aten.mul.Tensor(z, z), 0.5), beta)
    return _reduce(aten.where.self(aten.lt.Scalar(z, beta), quadratic, aten.sub.Tensor(z, 0.5 * beta)), reduction)


# huber_loss(x, y, δ) = reduce(z < δ ? z²/2 : δ(z - δ/2)), z = |x - y|
@register_decomposition(aten.huber_loss.default)
def huber_loss(self: Tensor, target: Tensor, reduction: int = _MEAN, delta: float = 1.0) -> Tensor:
    z = aten.abs.default(aten.sub.Tensor(self, target))
    quadratic = aten.mul.Tensor(aten.mul.Tensor(z, z), 0.5)
    linear = aten.mul.Tensor(aten.sub.Tensor(z, 0.5 * delta), delta)
    return _reduce(aten.where.self(aten.lt.Scalar(z, delta), quadratic, linear), reduction)


# binary_cross_entropy(x, y, w) = reduce(w·((y - 1)·max(log(1 - x), -100) - y·max(log x, -100)))
@register_decomposition(aten.binary_cross_entropy.default)
def binary_cross_entropy(self: Tensor, target: Tensor, weight: Tensor | None = None,
                         reduction: int = _MEAN) -> Tensor:
    log_x = aten.clamp.default(aten.log.default(self), -100, None)
    log_1mx = aten.clamp.default(aten.log1p.default(aten.neg.default(self)), -100, None)
    loss = aten.sub.Tensor(aten.mul.Tensor(aten.sub.Tensor(target, 1), log_1mx), aten.mul.Tensor(target, log_x))
    if weight is not None:
        loss = aten.mul.Tensor(loss, weight)
    return _reduce(loss, reduction)


# bce_with_logits(x, y, w, pw) = reduce(w·((1 - y)·x - log_sigmoid(x)·(1 + (pw - 1)·y)))
@register_decomposition(aten.binary_cross_entropy_with_logits.default)
def binary_cross_entropy_with_logits(self: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = _MEAN) -> Tensor:
    zero = aten.scalar_tensor.default(0, dtype=self.dtype)
    log_sigmoid = aten.sub.Tensor(aten.minimum.default(self, zero),
                                  aten.log1p.default(aten.exp.default(aten.neg.default(aten.abs.default(self)))))
    if pos_weight is not None:
        log_sigmoid = aten.mul.Tensor(log_sigmoid, aten.add.Tensor(aten.mul.Tensor(aten.sub.Tensor(pos_weight, 1),
                                                                                   target), 1))
    loss = aten.sub.Tensor(aten.mul.Tensor(aten.rsub.Scalar(target, 1), self), log_sigmoid)
    if weight is not None:
        loss = aten.mul.Tensor(loss, weight)
    return _reduce(loss, reduction)


def _nll_terms(logp: Tensor, target: Tensor, weight: Tensor | None, ignore_index: Any) -> tuple[Tensor, Tensor]:
    """(-w[t]·logp[t], w[t]) per target, both 0 where t == ignore_index (class dim 1, or 0 for 1-D)."""
    axis = 0 if logp.dim() == 1 else 1
    kept = aten.ne.Scalar(target, ignore_index)
    safe = aten.where.self(kept, target, aten.scalar_tensor.default(0, dtype=target.dtype))
    picked = aten.squeeze.dims(aten.gather.default(logp, axis, aten.unsqueeze.default(safe, axis)), [axis])
    zero = aten.scalar_tensor.default(0, dtype=logp.dtype)
    if weight is None:
        chosen = aten.where.self(kept, aten.scalar_tensor.default(1, dtype=logp.dtype), zero)
    else:
        chosen = aten.where.self(kept, aten.index.Tensor(weight, [safe]), zero)
    return aten.mul.Tensor(aten.neg.default(picked), chosen), chosen


def _weighted(terms: Tensor, total: Tensor, reduction: int) -> Tensor:
    if reduction == _NONE:
        return terms
    summed = aten.sum.dim_IntList(terms, [])
    return aten.div.Tensor(summed, total) if reduction == _MEAN else summed


# nll_loss_forward(x, t, w) = (reduce(-w[t]·x[t]), sum(w[t])), ignored targets weigh 0
@register_decomposition([aten.nll_loss_forward.default, aten.nll_loss2d_forward.default])
def nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                     ignore_index: Any) -> tuple[Tensor, Tensor]:
    terms, chosen = _nll_terms(self, target, weight, ignore_index)
    if reduction == _NONE and self.dim() != 1:
        return terms, aten.scalar_tensor.default(0, dtype=self.dtype)
    total = aten.sum.dim_IntList(chosen, [])
    return _weighted(terms, total, _SUM if reduction == _NONE else reduction), total


# nll_loss(x, t, w) = reduce(-w[t]·x[t]) (the mean divides by the kept weight)
@register_decomposition(aten.nll_loss.default)
def nll_loss(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = _MEAN,
             ignore_index: Any = -100) -> Tensor:
    terms, chosen = _nll_terms(self, target, weight, ignore_index)
    return _weighted(terms, aten.sum.dim_IntList(chosen, []), reduction)


# cross_entropy(x, t) = nll_loss(log_softmax(x, class dim), t), with label smoothing
@register_decomposition(aten.cross_entropy_loss.default)
def cross_entropy_loss(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = _MEAN,
                       ignore_index: Any = -100, label_smoothing: float = 0.0) -> Tensor:
    axis = 0 if self.dim() == 1 else 1
    logp = aten._log_softmax.default(self, axis, False)
    classes = self.shape[axis]
    if list(self.shape) == list(target.shape):
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, axis)
    terms, chosen = _nll_terms(logp, target, weight, ignore_index)
    total = aten.sum.dim_IntList(chosen, [])
    loss = _weighted(terms, total, reduction)
    if label_smoothing <= 0:
        return loss
    per_class = logp if weight is None else aten.mul.Tensor(logp, _class_view(weight, logp.dim(), axis))
    smooth = aten.neg.default(aten.sum.dim_IntList(per_class, [axis]))
    kept = aten.ne.Scalar(target, ignore_index)
    smooth = aten.where.self(kept, smooth, aten.scalar_tensor.default(0, dtype=smooth.dtype))
    smooth = _weighted(smooth, total, reduction)
    return aten.add.Tensor(aten.mul.Tensor(loss, 1 - label_smoothing),
                           aten.mul.Tensor(smooth, label_smoothing / classes))


def _class_view(weight: Tensor, rank: int, axis: int) -> Tensor:
    return aten.view.default(weight, [-1 if i == axis else 1 for i in range(rank)])


def _soft_cross_entropy(logp: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                        smoothing: float, axis: int) -> Tensor:
    """-sum(w·p·log q) over the class dim with class probabilities p (mean: over samples)."""
    classes = logp.shape[axis]
    probs = target
    if smoothing > 0:
        probs = aten.add.Tensor(aten.mul.Tensor(target, 1 - smoothing), smoothing / classes)
    terms = aten.mul.Tensor(logp, probs)
    if weight is not None:
        terms = aten.mul.Tensor(terms, _class_view(weight, logp.dim(), axis))
    if reduction == _NONE:
        return aten.neg.default(aten.sum.dim_IntList(terms, [axis]))
    total = aten.neg.default(aten.sum.dim_IntList(terms, []))
    if reduction == _MEAN:
        return aten.div.Scalar(total, logp.numel() // classes)
    return total
