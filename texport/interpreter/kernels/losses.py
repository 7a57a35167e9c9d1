"""Kernels: losses. Each takes torch's Reduction enum: 0 none, 1 mean, 2 sum;
float16 and bfloat16 inputs are computed in float32 and rounded once at the end."""

from __future__ import annotations

import numpy as np

from ..dtypes import cast, is_floating
from . import kernel
from .common import check_arguments, opmath, result_as, torch_result_dtype

_NONE, _MEAN, _SUM = 0, 1, 2


@np.errstate(invalid="ignore")
def _reduce(loss: np.ndarray, reduction: int, dtype: np.dtype) -> np.ndarray:
    """torch's apply_loss_reduction (the mean of nothing is NaN)."""
    if reduction == _MEAN:
        loss = loss.mean() if loss.size else np.nan
    elif reduction == _SUM:
        loss = loss.sum()
    return result_as(loss, dtype)


def _difference(self: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.dtype]:
    """self - target in the accumulation dtype, and the promoted result dtype."""
    dtype = torch_result_dtype(self, target)
    return opmath(np.subtract(self, target).astype(dtype, copy=False)), dtype


@kernel("mse_loss")
def mse_loss(self: np.ndarray, target: np.ndarray, reduction: int = _MEAN) -> np.ndarray:
    diff, dtype = _difference(self, target)
    return _reduce(diff * diff, reduction, dtype)


@kernel("l1_loss")
def l1_loss(self: np.ndarray, target: np.ndarray, reduction: int = _MEAN) -> np.ndarray:
    diff, dtype = _difference(self, target)
    return _reduce(np.abs(diff), reduction, dtype)


@kernel("smooth_l1_loss")
def smooth_l1_loss(self: np.ndarray, target: np.ndarray, reduction: int = _MEAN,
                   beta: float = 1.0) -> np.ndarray:
    """0.5 z^2 / beta below beta, z - beta / 2 above (z = |self - target|); beta=0 is L1."""
    diff, dtype = _difference(self, target)
    z = np.abs(diff)
    loss = z if beta == 0 else np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)
    return _reduce(loss, reduction, dtype)


@kernel("huber_loss")
def huber_loss(self: np.ndarray, target: np.ndarray, reduction: int = _MEAN,
               delta: float = 1.0) -> np.ndarray:
    """0.5 z^2 below delta, delta (z - delta / 2) above (z = |self - target|): torch's
    kernel computes each element in opmath (the difference unrounded) and rounds it
    to the dtype before reducing."""
    dtype = torch_result_dtype(self, target)
    z = np.abs(opmath(cast(self, dtype)) - opmath(cast(target, dtype)))
    loss = np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    return _reduce(opmath(loss.astype(dtype)), reduction, dtype)


@kernel("soft_margin_loss")
def soft_margin_loss(self: np.ndarray, target: np.ndarray, reduction: int = _MEAN) -> np.ndarray:
    """log(1 + exp(-y x)), torch's composite of ops: each step rounds to the dtype
    (a float16 exp overflows to inf)."""
    dtype = torch_result_dtype(self, target)

    def step(value: np.ndarray) -> np.ndarray:
        return opmath(value.astype(dtype))

    with np.errstate(over="ignore"):
        loss = step(np.log1p(step(np.exp(-step(opmath(cast(self, dtype)) * opmath(cast(target, dtype)))))))
    return _reduce(loss, reduction, dtype)


@kernel("kl_div")
@np.errstate(divide="ignore", invalid="ignore")
def kl_div(self: np.ndarray, target: np.ndarray, reduction: int = _MEAN, log_target: bool = False) -> np.ndarray:
    """xlogy(y, y) - y x (0 where y = 0, NaN where y is), or exp(y) (y - x) for a log target."""
    dtype = torch_result_dtype(self, target)
    x, y = opmath(self), opmath(target)
    if log_target:
        loss = np.exp(y) * (y - x)
    else:
        xlogy = np.where(np.isnan(y), np.nan, np.where(y == 0, 0, y * np.log(y)))
        loss = xlogy - y * x
    return _reduce(loss, reduction, dtype)


@kernel("poisson_nll_loss")
@np.errstate(divide="ignore", invalid="ignore")
def poisson_nll_loss(input: np.ndarray, target: np.ndarray, log_input: bool, full: bool, eps: float,  # noqa: A002
                     reduction: int) -> np.ndarray:
    """exp(x) - y x (log input) or x - y log(x + eps); full adds y log y - y + log(2 pi y) / 2
    where y > 1."""
    dtype = torch_result_dtype(input, target)
    x, y = opmath(input), opmath(target)
    loss = np.exp(x) - y * x if log_input else x - y * np.log(x + eps)
    if full:
        stirling = y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y)
        loss = loss + np.where(y <= 1, 0, stirling)
    return _reduce(loss, reduction, dtype)


@kernel("margin_ranking_loss")
def margin_ranking_loss(input1: np.ndarray, input2: np.ndarray, target: np.ndarray, margin: float = 0.0,
                        reduction: int = _MEAN) -> np.ndarray:
    """max(0, -y (x1 - x2) + margin)."""
    dtype = torch_result_dtype(input1, input2, target)
    loss = np.maximum(-opmath(target) * (opmath(input1) - opmath(input2)) + margin, 0)
    return _reduce(loss, reduction, dtype)


@kernel("binary_cross_entropy")
@np.errstate(divide="ignore")
def binary_cross_entropy(self: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None,
                         reduction: int = _MEAN) -> np.ndarray:
    """-w (y log x + (1 - y) log(1 - x)), each log clamped at -100 as torch (so x = 0 or 1
    gives a finite loss)."""
    x, y = opmath(self), opmath(target)
    if not np.all((x >= 0) & (x <= 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not np.all((y >= 0) & (y <= 1)):
        raise RuntimeError("all elements of target should be between 0 and 1")
    loss = (y - 1) * np.maximum(np.log1p(-x), -100) - y * np.maximum(np.log(x), -100)
    if weight is not None:
        loss = loss * opmath(weight)
    return _reduce(loss, reduction, self.dtype)


@kernel("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(
    self: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None,
    pos_weight: np.ndarray | None = None, reduction: int = _MEAN,
) -> np.ndarray:
    """(1 - y) x - log_sigmoid(x) * (1 + (pos_weight - 1) y), times weight. torch builds
    the loss in place on (1 - target), so a floating target's dtype is the result's."""
    x, y = opmath(self), opmath(target)
    dtype = target.dtype if is_floating(target.dtype) else torch_result_dtype(self, target)
    log_sigmoid = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((opmath(pos_weight) - 1) * y + 1)
    loss = (1 - y) * x - log_sigmoid
    if weight is not None:
        loss = loss * opmath(weight)
    return _reduce(loss, reduction, dtype)


def _class_axis(x: np.ndarray) -> int:
    return 0 if x.ndim == 1 else 1


def _nll_terms(
    logp: np.ndarray, target: np.ndarray, weight: np.ndarray | None, ignore_index: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per-target -w[t] logp[t] and w[t], both 0 where t == ignore_index. The class dim
    is 1 (0 for a 1-D input); the target has the input's shape without it."""
    axis = _class_axis(logp)
    classes = logp.shape[axis]
    ignored = target == ignore_index
    safe = np.where(ignored, 0, target)
    bad = ~ignored & ((safe < 0) | (safe >= classes))
    if bad.any():
        raise IndexError(f"Target {int(safe[bad].flat[0])} is out of bounds.")
    picked = np.take_along_axis(logp, np.expand_dims(safe, axis), axis).squeeze(axis)
    weights = np.ones(classes, logp.dtype) if weight is None else opmath(weight)
    chosen = np.where(ignored, 0, weights[safe]).astype(logp.dtype, copy=False)
    return np.where(ignored, 0, -picked * chosen).astype(logp.dtype, copy=False), chosen


@np.errstate(invalid="ignore", divide="ignore")
def _weighted_reduce(terms: np.ndarray, total_weight: np.ndarray, reduction: int) -> np.ndarray:
    """nll_loss's reduction: the mean divides by the total weight of the kept targets."""
    if reduction == _NONE:
        return terms
    summed = terms.sum()
    return summed / total_weight if reduction == _MEAN else summed


@kernel("nll_loss_forward", "nll_loss2d_forward")
def nll_loss_forward(self: np.ndarray, target: np.ndarray, weight: np.ndarray | None,
                     reduction: int, ignore_index: int) -> tuple[np.ndarray, np.ndarray]:
    """(output, total_weight). Unreduced, total_weight stays 0, except for a 1-D input,
    which torch handles on its scalar path and which reports the target's weight."""
    terms, chosen = _nll_terms(opmath(self), target, weight, ignore_index)
    if reduction == _NONE and self.ndim != 1:
        return result_as(terms, self.dtype), result_as(0, self.dtype)
    total = chosen.sum()
    output = _weighted_reduce(terms, total, _SUM if reduction == _NONE else reduction)
    return result_as(output, self.dtype), result_as(total, self.dtype)


@kernel("nll_loss", "nll_loss_nd")
def nll_loss(self: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None,
             reduction: int = _MEAN, ignore_index: int = -100) -> np.ndarray:
    """Any rank with the class dim 1 (what F.nll_loss accepts through nll_loss_nd)."""
    terms, chosen = _nll_terms(opmath(self), target, weight, ignore_index)
    return result_as(_weighted_reduce(terms, chosen.sum(), reduction), self.dtype)


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    top = x.max(axis=axis, keepdims=True)
    shifted = x - np.where(np.isfinite(top), top, 0)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _per_class(weight: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    """A [C] weight viewed to broadcast along the class dim."""
    return opmath(weight).reshape([-1 if i == axis else 1 for i in range(ndim)])


@np.errstate(invalid="ignore")
def _soft_target_cross_entropy(logp: np.ndarray, target: np.ndarray, weight: np.ndarray | None,
                               reduction: int, smoothing: float) -> np.ndarray:
    """-sum(w_c p_c log q_c) with class probabilities p; the mean divides by the number of
    samples (numel / C), not by a weight total."""
    axis = _class_axis(logp)
    classes = logp.shape[axis]
    probs = opmath(target)
    if smoothing > 0:
        probs = probs * (1 - smoothing) + smoothing / classes
    terms = logp * probs
    if weight is not None:
        terms = terms * _per_class(weight, logp.ndim, axis)
    if reduction == _NONE:
        return -terms.sum(axis=axis)
    total = -terms.sum()
    if reduction == _MEAN:
        return total / (logp.size // classes) if logp.size else np.nan
    return total


@kernel("cross_entropy_loss")
def cross_entropy_loss(self: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None,
                       reduction: int = _MEAN, ignore_index: int = -100,
                       label_smoothing: float = 0.0) -> np.ndarray:
    """log_softmax over the class dim, then NLL (class indices) or a soft-target sum (a
    target of the input's shape holds class probabilities)."""
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    logp = _log_softmax(opmath(self), _class_axis(self))
    if self.shape == target.shape:
        if not is_floating(target.dtype):
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target.dtype.name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        loss = _soft_target_cross_entropy(logp, target, weight, reduction, label_smoothing)
        return result_as(loss, self.dtype)
    terms, chosen = _nll_terms(logp, target, weight, ignore_index)
    total_weight = chosen.sum()
    loss = _weighted_reduce(terms, total_weight, reduction)
    if label_smoothing > 0:
        classes = logp.shape[_class_axis(logp)]
        smooth = _smoothing_term(logp, target, weight, ignore_index, reduction, total_weight)
        loss = (1 - label_smoothing) * loss + smooth * (label_smoothing / classes)
    return result_as(loss, self.dtype)


def _smoothing_term(logp: np.ndarray, target: np.ndarray, weight: np.ndarray | None,
                    ignore_index: int, reduction: int, total_weight: np.ndarray) -> np.ndarray:
    """-sum_c w_c log q_c per target (0 where ignored), reduced like the NLL part: the mean
    divides by the same total weight of the kept targets."""
    axis = _class_axis(logp)
    terms = logp if weight is None else logp * _per_class(weight, logp.ndim, axis)
    smooth = np.where(target == ignore_index, 0, -terms.sum(axis=axis))
    return _weighted_reduce(smooth, total_weight, reduction)


@kernel("hinge_embedding_loss")
def hinge_embedding_loss(self: np.ndarray, target: np.ndarray, margin: float = 1.0,
                         reduction: int = _MEAN) -> np.ndarray:
    """x where y != -1, plus max(0, margin - x) where y != 1."""
    x, y = np.broadcast_arrays(opmath(self), target)
    loss = np.where(y != 1, np.maximum(margin - x, 0), 0) + np.where(y != -1, x, 0)
    return _reduce(loss, reduction, self.dtype)


_COSINE_EPS = np.float32(1e-12)  # torch's EPSILON, a float Scalar


@kernel("cosine_embedding_loss")
def cosine_embedding_loss(input1: np.ndarray, input2: np.ndarray, target: np.ndarray, margin: float = 0.0,
                          reduction: int = _MEAN) -> np.ndarray:
    """1 - cos where y == 1, max(0, cos - margin) where y == -1 (cos of the rows, each
    squared norm plus 1e-12)."""
    check_arguments("cosine_embedding_loss", input1, input2, target, margin, reduction)
    dtype = torch_result_dtype(input1, input2)
    a, b = opmath(input1.astype(dtype)), opmath(input2.astype(dtype))
    squares = ((a * a).sum(-1) + _COSINE_EPS) * ((b * b).sum(-1) + _COSINE_EPS)
    cos = (a * b).sum(-1) / np.sqrt(squares)
    loss = np.where(target == 1, 1 - cos, 0) + np.where(target == -1, np.maximum(cos - margin, 0), 0)
    return _reduce(loss, reduction, dtype)


def _pairwise_distance(x1: np.ndarray, x2: np.ndarray, p: float, eps: float) -> np.ndarray:
    """||x1 - x2 + eps||_p along the last dim."""
    diff = np.abs(x1 - x2 + eps)
    if p == np.inf:
        return diff.max(-1)
    if p == 0:
        return (diff != 0).sum(-1).astype(diff.dtype)
    return (diff ** p).sum(-1) ** (1 / p)


@kernel("triplet_margin_loss")
def triplet_margin_loss(anchor: np.ndarray, positive: np.ndarray, negative: np.ndarray, margin: float = 1.0,
                        p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                        reduction: int = _MEAN) -> np.ndarray:
    """max(0, margin + d(a, p) - d(a, n)); with swap, d(a, n) is min(d(a, n), d(p, n))."""
    check_arguments("triplet_margin_loss", anchor, positive, negative, margin, p, eps, swap, reduction)
    dtype = torch_result_dtype(anchor, positive, negative)
    a, pos, neg = (opmath(t.astype(dtype)) for t in (anchor, positive, negative))
    dist_neg = _pairwise_distance(a, neg, p, eps)
    if swap:
        dist_neg = np.minimum(dist_neg, _pairwise_distance(pos, neg, p, eps))
    loss = np.maximum(margin + _pairwise_distance(a, pos, p, eps) - dist_neg, 0)
    return _reduce(loss, reduction, dtype)


@kernel("multi_margin_loss")
def multi_margin_loss(self: np.ndarray, target: np.ndarray, p: int = 1, margin: float = 1,
                      weight: np.ndarray | None = None, reduction: int = _MEAN) -> np.ndarray:
    """Per frame: the sum over classes i != y of w[y] max(0, margin - x[y] + x[i])^p,
    divided by the number of classes."""
    check_arguments("multi_margin_loss", self, target, p, margin, weight, reduction)
    x = opmath(np.atleast_2d(self))
    y = np.atleast_1d(target).astype(np.int64)
    classes = x.shape[1]
    if ((y < 0) | (y >= classes)).any():
        raise IndexError(f"target out of range: expected class indices in [0, {classes}), got {y.tolist()}")
    z = np.maximum(margin - np.take_along_axis(x, y[:, None], 1) + x, 0)
    z = z if p == 1 else z * z
    if weight is not None:
        z = z * opmath(np.atleast_1d(weight))[y][:, None]
    z = np.where(np.arange(classes) != y[:, None], z, 0)
    per_frame = z.sum(1) / classes
    if reduction == _NONE:
        return result_as(per_frame if self.ndim == 2 else per_frame.reshape(()), self.dtype)
    return _reduce(per_frame, reduction, self.dtype)


@kernel("multilabel_margin_loss_forward")
def multilabel_margin_loss_forward(self: np.ndarray, target: np.ndarray,
                                   reduction: int) -> tuple[np.ndarray, np.ndarray]:
    """Per frame: the sum over labels j (those before the first -1) and non-label classes
    i of max(0, 1 - x[j] + x[i]), over C; and the 0/1 mask of the labels."""
    check_arguments("multilabel_margin_loss_forward", self, target, reduction)
    x = opmath(np.atleast_2d(self))
    y = np.atleast_2d(target).astype(np.int64)
    classes = x.shape[1]
    positions = np.arange(classes)
    ends = np.where(y == -1, positions, classes).min(-1, keepdims=True)
    labelled = positions < ends
    if (labelled & ((y < 0) | (y >= classes))).any():
        raise IndexError(f"multilabel_margin_loss: target labels must lie in [0, {classes}) or be -1")
    labels = np.where(labelled, y, 0)
    is_target = (labelled[:, :, None] & (labels[:, :, None] == positions)).any(1)
    hinge = np.maximum(1 - np.take_along_axis(x, labels, 1)[:, :, None] + x[:, None, :], 0) / classes
    hinge = np.where(labelled[:, :, None] & ~is_target[:, None, :], hinge, 0)
    per_frame = hinge.sum((1, 2))
    if reduction == _NONE:
        output = result_as(per_frame if self.ndim == 2 else per_frame.reshape(()), self.dtype)
    else:
        output = _reduce(per_frame, reduction, self.dtype)
    return output, is_target.astype(self.dtype).reshape(self.shape)


@kernel("multilabel_margin_loss")
def multilabel_margin_loss(self: np.ndarray, target: np.ndarray, reduction: int = _MEAN) -> np.ndarray:
    return multilabel_margin_loss_forward(self, target, reduction)[0]


def _padded_targets(targets: np.ndarray, target_lengths: np.ndarray, longest: int) -> np.ndarray:
    """[B, longest] labels from padded [B, S] targets or from their concatenation."""
    if targets.ndim == 2:
        if targets.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")
        return targets[:, :longest].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
    positions = np.minimum(starts[:, None] + np.arange(longest), max(targets.size - 1, 0))
    return targets.reshape(-1)[positions].astype(np.int64) if targets.size else np.zeros((len(starts), longest),
                                                                                          np.int64)


def _logaddexp3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.logaddexp(np.logaddexp(a, b), c)


@kernel("_ctc_loss", "_ctc_loss.Tensor")
@np.errstate(invalid="ignore", divide="ignore")
def ctc_loss_forward(log_probs: np.ndarray, targets: np.ndarray, input_lengths: object, target_lengths: object,
                     blank: int = 0, zero_infinity: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The CTC forward recursion over the blank-interleaved labels l' (length 2L + 1),
    all sequences and label positions at once, one time step after another:
    alpha[t, s] = lp[t, l'_s] + logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2]),
    the last term only where l'_s is a label unlike l'_{s-2}; the loss is
    -logsumexp(alpha[T-1, 2L], alpha[T-1, 2L - 1]). Positions past a sequence's end are -inf
    (torch leaves them unwritten). zero_infinity is the backward's business, as in ATen."""
    steps, batch, classes = log_probs.shape
    inputs = np.asarray(input_lengths, np.int64).reshape(-1)
    lengths = np.asarray(target_lengths, np.int64).reshape(-1)
    if len(inputs) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if (inputs > steps).any() or (inputs < 0).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {inputs.max()} "
                           "(while checking arguments for ctc_loss_allocate_outputs)")
    longest = int(lengths.max(initial=0))
    labels = _padded_targets(targets, lengths, longest)
    width = 2 * longest + 1
    extended = np.full((batch, width), blank, np.int64)
    extended[:, 1::2] = labels
    positions = np.arange(width)
    valid = positions < 2 * lengths[:, None] + 1
    skip = (positions >= 2) & (extended != blank)
    skip[:, 2:] &= extended[:, 2:] != extended[:, :-2]
    lp = log_probs.astype(np.float64)
    emit = np.take_along_axis(lp.transpose(1, 0, 2), np.broadcast_to(extended[:, None, :], (batch, steps, width)), 2)
    alpha = np.full((batch, steps, width), -np.inf)
    alpha[:, 0, :2] = np.where(valid[:, :2], emit[:, 0, :2], -np.inf)
    for t in range(1, steps):
        previous = alpha[:, t - 1]
        one_back = np.pad(previous, ((0, 0), (1, 0)), constant_values=-np.inf)[:, :-1]
        two_back = np.where(skip, np.pad(previous, ((0, 0), (2, 0)), constant_values=-np.inf)[:, :-2], -np.inf)
        current = emit[:, t] + _logaddexp3(previous, one_back, two_back)
        alpha[:, t] = np.where(valid & (t < inputs[:, None]), current, -np.inf)
    last = alpha[np.arange(batch), np.maximum(inputs - 1, 0)]
    end = np.take_along_axis(last, 2 * lengths[:, None], 1)[:, 0]
    before_end = np.where(lengths > 0, np.take_along_axis(last, np.maximum(2 * lengths - 1, 0)[:, None], 1)[:, 0],
                          -np.inf)
    nll = -np.logaddexp(end, before_end)
    nll = np.where(inputs > 0, nll, np.where(lengths == 0, 0.0, np.inf))
    return nll.astype(log_probs.dtype), alpha.astype(log_probs.dtype)


@kernel("ctc_loss.IntList", "ctc_loss.Tensor")
def ctc_loss(log_probs: np.ndarray, targets: np.ndarray, input_lengths: object, target_lengths: object,
             blank: int = 0, reduction: int = _MEAN, zero_infinity: bool = False) -> np.ndarray:
    """ATen's ctc_loss: _ctc_loss's likelihoods (inf -> 0 with zero_infinity), the mean
    dividing each by its target length (at least 1)."""
    batched = log_probs.ndim == 3
    nll = ctc_loss_forward(log_probs if batched else log_probs[:, None], targets, input_lengths, target_lengths,
                           blank, zero_infinity)[0]
    if zero_infinity:
        nll = np.where(nll == np.inf, 0, nll).astype(nll.dtype)
    if reduction == _MEAN:
        lengths = np.maximum(np.asarray(target_lengths, np.int64).reshape(-1), 1)
        return result_as((nll / lengths.astype(nll.dtype)).mean(), log_probs.dtype)
    if reduction == _SUM:
        return result_as(nll.sum(), log_probs.dtype)
    return nll if batched else nll[0]
