"""Shape rules: losses (reduction 0 none, 1 mean, 2 sum)."""

from __future__ import annotations

from ..dtypes import result_type
from ..meta import TensorMeta
from . import shape_rule
from .common import broadcast_shapes
from .guards import ShapeGuardError, check, sym_eq

REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduced(shape: tuple, dtype, reduction: int) -> TensorMeta:  # noqa: ANN001
    check(reduction in REDUCTIONS, f"{reduction} is not a valid value for reduction")
    return TensorMeta(shape if reduction == 0 else (), dtype)


# loss(x, y) elementwise, then reduced: mse, l1, smooth_l1, huber (x - y promotes)
@shape_rule("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss")
def pointwise_loss(self: TensorMeta, target: TensorMeta, reduction: int = 1, *_: object) -> TensorMeta:
    dtype = result_type(self, target)
    return _reduced(broadcast_shapes(self.shape, target.shape), dtype, reduction)


# xlogy(y, y) - y x, or exp(y) (y - x) for a log target
@shape_rule("kl_div")
def kl_div(self: TensorMeta, target: TensorMeta, reduction: int = 1, log_target: bool = False) -> TensorMeta:
    return _reduced(broadcast_shapes(self.shape, target.shape), result_type(self, target), reduction)


# exp(x) - y x (or x - y log(x + eps)), plus Stirling's term where y > 1 when full
@shape_rule("poisson_nll_loss")
def poisson_nll_loss(input: TensorMeta, target: TensorMeta, log_input: bool, full: bool, eps: float,  # noqa: A002
                     reduction: int) -> TensorMeta:
    return _reduced(broadcast_shapes(input.shape, target.shape), result_type(input, target), reduction)


# max(0, -y (x1 - x2) + margin), the three broadcast together
@shape_rule("margin_ranking_loss")
def margin_ranking_loss(input1: TensorMeta, input2: TensorMeta, target: TensorMeta, margin: float = 0.0,
                        reduction: int = 1) -> TensorMeta:
    shape = broadcast_shapes(broadcast_shapes(input1.shape, input2.shape), target.shape)
    return _reduced(shape, result_type(input1, input2, target), reduction)


@shape_rule("binary_cross_entropy")
def binary_cross_entropy(self: TensorMeta, target: TensorMeta, weight: TensorMeta | None = None,
                         reduction: int = 1) -> TensorMeta:
    check(tuple(self.shape) == tuple(target.shape) or all(map(sym_eq, self.shape, target.shape)),
          f"Using a target size ({list(target.shape)}) that is different to the input size "
          f"({list(self.shape)}) is deprecated. Please ensure they have the same size.")
    return _reduced(self.shape, self.dtype, reduction)


@shape_rule("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(self: TensorMeta, target: TensorMeta, weight: object = None,
                                     pos_weight: object = None, reduction: int = 1) -> TensorMeta:
    return _reduced(broadcast_shapes(self.shape, target.shape), self.dtype, reduction)


def _class_dim_removed(self: TensorMeta, target: TensorMeta) -> tuple:
    """nll/cross-entropy with class indices: input [N, C, d...] or [C], target [N, d...] or []."""
    if self.ndim == 1:
        check(target.ndim == 0, "0D or 1D target tensor expected, multi-target not supported")
        return ()
    expected = (self.shape[0], *self.shape[2:])
    if target.ndim != len(expected) or not all(map(sym_eq, expected, target.shape)):
        raise ShapeGuardError(
            f"Expected target size {list(expected)}, got {list(target.shape)}"
        )
    return expected


@shape_rule("nll_loss", "nll_loss_nd")
def nll_loss(self: TensorMeta, target: TensorMeta, weight: object = None, reduction: int = 1,
             ignore_index: object = -100) -> TensorMeta:
    check(self.ndim >= 1, "input tensor should be 1D or more")
    return _reduced(_class_dim_removed(self, target), self.dtype, reduction)


@shape_rule("nll_loss_forward", "nll_loss2d_forward")
def nll_loss_forward(self: TensorMeta, target: TensorMeta, weight: object, reduction: int,
                     ignore_index: object) -> tuple[TensorMeta, TensorMeta]:
    output = nll_loss(self, target, weight, reduction, ignore_index)
    return output, TensorMeta((), self.dtype)


@shape_rule("cross_entropy_loss")
def cross_entropy_loss(self: TensorMeta, target: TensorMeta, weight: object = None,
                       reduction: int = 1, ignore_index: object = -100,
                       label_smoothing: float = 0.0) -> TensorMeta:
    if target.ndim == self.ndim and all(map(sym_eq, self.shape, target.shape)):
        # class probabilities: -(log_softmax(x) * p).sum(class dim)
        return _reduced((self.shape[0], *self.shape[2:]) if self.ndim > 1 else (), self.dtype, reduction)
    return _reduced(_class_dim_removed(self, target), self.dtype, reduction)


# where(y != 1, max(0, margin - x), 0) + where(y != -1, x, 0): x and y broadcast
@shape_rule("hinge_embedding_loss")
def hinge_embedding_loss(self: TensorMeta, target: TensorMeta, margin: float = 1.0,
                         reduction: int = 1) -> TensorMeta:
    return _reduced(broadcast_shapes(self.shape, target.shape), self.dtype, reduction)


# the cosine of each pair of rows (or of the two vectors, for a 0-d target), then a hinge on it
@shape_rule("cosine_embedding_loss")
def cosine_embedding_loss(input1: TensorMeta, input2: TensorMeta, target: TensorMeta, margin: float = 0.0,
                          reduction: int = 1) -> TensorMeta:
    check(target.ndim in (0, 1), "0D or 1D target tensor expected, multi-target not supported")
    rank = 2 if target.ndim == 1 else 1
    check(input1.ndim == rank and input2.ndim == rank,
          f"{target.ndim}D target tensor expects {rank}D input tensors, but found inputs with sizes "
          f"{list(input1.shape)} and {list(input2.shape)}.")
    shape = broadcast_shapes(input1.shape, input2.shape)[:-1]
    return _reduced(broadcast_shapes(shape, target.shape), result_type(input1, input2), reduction)


# max(0, margin + d(a, p) - d(a, n)), d the p-norm along the last dim
@shape_rule("triplet_margin_loss")
def triplet_margin_loss(anchor: TensorMeta, positive: TensorMeta, negative: TensorMeta, margin: float = 1.0,
                        p: float = 2.0, eps: float = 1e-6, swap: bool = False, reduction: int = 1) -> TensorMeta:
    check(anchor.ndim == positive.ndim == negative.ndim,
          f"The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
          f"but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs")
    shape = broadcast_shapes(broadcast_shapes(anchor.shape, positive.shape), negative.shape)
    return _reduced(shape[:-1], result_type(anchor, positive, negative), reduction)


def _margin_frames(self: TensorMeta, target: TensorMeta) -> object:
    """multi_margin / multilabel_margin: a vector or a [N, C] matrix with C > 0."""
    dim = self.shape[-1] if self.ndim else 1
    check(self.ndim <= 2 and not sym_eq(dim, 0),
          f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(self.shape)}")
    return self.shape[0] if self.ndim == 2 else 1


# sum over classes i != y of max(0, margin - x[y] + x[i])^p (times weight[y]), over C
@shape_rule("multi_margin_loss")
def multi_margin_loss(self: TensorMeta, target: TensorMeta, p: object = 1, margin: object = 1,
                      weight: TensorMeta | None = None, reduction: int = 1) -> TensorMeta:
    check(p in (1, 2), "only p == 1 and p == 2 supported")
    frames = _margin_frames(self, target)
    check(target.ndim <= 1 and sym_eq(target.shape[0] if target.ndim else 1, frames),
          f"inconsistent target size, expected {frames} but got {list(target.shape)}")
    if weight is not None:
        dim = self.shape[-1] if self.ndim else 1
        check(weight.ndim <= 1 and sym_eq(weight.shape[0] if weight.ndim else 1, dim),
              f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    return _reduced(self.shape[:1] if self.ndim == 2 else (), self.dtype, reduction)


@shape_rule("multilabel_margin_loss")
def multilabel_margin_loss(self: TensorMeta, target: TensorMeta, reduction: int = 1) -> TensorMeta:
    return multilabel_margin_loss_forward(self, target, reduction)[0]


# sum over target labels j and non-target classes i of max(0, 1 - (x[j] - x[i])), over C;
# is_target marks the labels (those before the first -1) in self's shape
@shape_rule("multilabel_margin_loss_forward")
def multilabel_margin_loss_forward(self: TensorMeta, target: TensorMeta,
                                   reduction: int) -> tuple[TensorMeta, TensorMeta]:
    _margin_frames(self, target)
    check(target.ndim <= 2 and target.ndim == self.ndim and all(map(sym_eq, self.shape, target.shape)),
          f"inconsistent target size: {list(target.shape)} for input of size: {list(self.shape)}")
    output = _reduced(self.shape[:1] if self.ndim == 2 else (), self.dtype, reduction)
    return output, TensorMeta(self.shape, self.dtype)


def _ctc_batch(log_probs: TensorMeta, targets: TensorMeta, blank: int) -> object:
    """log_probs [T, B, C] (ATen's _ctc_loss takes batched inputs); targets [B, S] or concatenated."""
    check(log_probs.ndim == 3, f"ctc_loss: expected log_probs of 3 dims [T, B, C], got {list(log_probs.shape)}")
    check(targets.ndim in (1, 2), f"ctc_loss: expected targets of 1 or 2 dims, got {list(targets.shape)}")
    classes = log_probs.shape[2]
    check(type(classes) is not int or 0 <= blank < classes, "blank must be in label range")
    return log_probs.shape[1]


# (the negative log likelihood of each sequence [B], log alpha [B, T, 2 max(target length) + 1])
@shape_rule("_ctc_loss")
def ctc_loss_forward(log_probs: TensorMeta, targets: TensorMeta, input_lengths: list, target_lengths: list,
                     blank: int = 0, zero_infinity: bool = False) -> tuple[TensorMeta, TensorMeta]:
    batch = _ctc_batch(log_probs, targets, blank)
    check(sym_eq(len(input_lengths), batch), "input_lengths must be of size batch_size")
    check(sym_eq(len(target_lengths), batch), "target_lengths must be of size batch_size")
    longest = max(target_lengths, default=0)
    alpha = (batch, log_probs.shape[0], 2 * longest + 1)
    return TensorMeta((batch,), log_probs.dtype), TensorMeta(alpha, log_probs.dtype)


# as _ctc_loss; log alpha's last size is data-dependent (the longest target length)
@shape_rule("_ctc_loss.Tensor")
def ctc_loss_forward_tensor(log_probs: TensorMeta, targets: TensorMeta, input_lengths: TensorMeta,
                            target_lengths: TensorMeta, blank: int = 0,
                            zero_infinity: bool = False) -> tuple[TensorMeta, TensorMeta]:
    batch = _ctc_batch(log_probs, targets, blank)
    check(input_lengths.ndim == 1 and sym_eq(input_lengths.shape[0], batch), "input_lengths must be of size batch_size")
    check(target_lengths.ndim == 1 and sym_eq(target_lengths.shape[0], batch),
          "target_lengths must be of size batch_size")
    alpha = (batch, log_probs.shape[0], None)
    return TensorMeta((batch,), log_probs.dtype), TensorMeta(alpha, log_probs.dtype)


# _ctc_loss's likelihoods, zeroed where infinite (zero_infinity), then reduced: mean divides each by its
# target length (at least 1) first; a 2-d log_probs is one unbatched sequence
@shape_rule("ctc_loss.IntList", "ctc_loss.Tensor")
def ctc_loss(log_probs: TensorMeta, targets: TensorMeta, input_lengths: object, target_lengths: object,
             blank: int = 0, reduction: int = 1, zero_infinity: bool = False) -> TensorMeta:
    check(log_probs.ndim in (2, 3), f"ctc_loss: expected log_probs of 2 or 3 dims, got {list(log_probs.shape)}")
    shape = (log_probs.shape[1],) if log_probs.ndim == 3 else ()
    return _reduced(shape, log_probs.dtype, reduction)
