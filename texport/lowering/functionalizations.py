"""Functional forms of the ops that write outside the in-place renamings:
batch norm updates its running statistics (hiddenly, in ``batch_norm``), the
``out=`` and legit variants write named arguments. Each returns the op's
results and ``write``s what the op writes."""

from __future__ import annotations

from typing import Any

from texport.tracer.handles import ops
from texport.tracer.subtrace import NOT_HANDLED
from texport.tracer.tensor import Tensor

from .decompositions.elementwise import dropout_impl
from .functionalize import register_functionalization, write

aten = ops.aten


# lift_fresh_copy(x) = clone(x): torch's functionalization kernel of lift_fresh_copy
@register_functionalization(aten.lift_fresh_copy.default)
def lift_fresh_copy(self: Tensor) -> Tensor:
    return aten.clone.default(self)


# batch_norm(train) = _native_batch_norm_legit_functional(...)[0], running stats <- [3], [4]
# batch_norm(eval)  = _native_batch_norm_legit_no_training(...)[0]
@register_functionalization(aten.batch_norm.default)
def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
               running_var: Tensor | None, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    return _native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


# native_batch_norm = the legit forms, running stats written in training mode
@register_functionalization(aten.native_batch_norm.default)
def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                      momentum: float, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    return _native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def _native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                       running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                       momentum: float, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    if running_mean is None or running_var is None:
        return aten._native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps)
    if not training:
        return aten._native_batch_norm_legit_no_training.default(
            input, weight, bias, running_mean, running_var, momentum, eps)
    out, mean, invstd, new_mean, new_var = aten._native_batch_norm_legit_functional.default(
        input, weight, bias, running_mean, running_var, True, momentum, eps)
    write(running_mean, new_mean)
    write(running_var, new_var)
    return out, mean, invstd


# _native_batch_norm_legit (writes running stats) = the functional form + writes
@register_functionalization(aten._native_batch_norm_legit.default)
def native_batch_norm_legit(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                            running_mean: Tensor, running_var: Tensor, training: bool, momentum: float,
                            eps: float) -> tuple[Tensor, Tensor, Tensor]:
    return _native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


# _batch_norm_with_update = _batch_norm_with_update_functional, running stats <- [4], [5]
@register_functionalization(aten._batch_norm_with_update.default)
def batch_norm_with_update(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                           running_mean: Tensor, running_var: Tensor, momentum: float,
                           eps: float) -> tuple[Any, ...]:
    out, mean, invstd, reserve, new_mean, new_var = aten._batch_norm_with_update_functional.default(
        input, weight, bias, running_mean, running_var, momentum, eps)
    write(running_mean, new_mean)
    write(running_var, new_var)
    return out, mean, invstd, reserve


# atan2(a, b, out=o) = atan2(a, b), o <- result
@register_functionalization(aten.atan2.out)
def atan2_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    write(out, aten.atan2.default(self, other))
    return out


# instance_norm(train, running stats) = torch's composite, traced: batch norm of x viewed as [1, N·C, ...]
# with the per-channel tensors repeated N times; each running stat <- the mean of its N updated copies,
# written through an alias as torch's composite does. Other calls write nothing: they stay as they are,
# as torch keeps them at the functional level.
@register_functionalization(aten.instance_norm.default)
def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Any:
    if not use_input_stats or running_mean is None or running_var is None:
        return NOT_HANDLED
    batch, channels = input.shape[0], input.shape[1]
    weight, bias, mean_copies, var_copies = (None if t is None else aten.repeat.default(t, [batch])
                                             for t in (weight, bias, running_mean, running_var))
    folded = aten.view.default(input.contiguous(), [1, batch * channels, *input.shape[2:]])
    out, _, _, new_means, new_vars = aten._native_batch_norm_legit_functional.default(
        folded, weight, bias, mean_copies, var_copies, True, momentum, eps)
    for running, copies in ((running_mean, new_means), (running_var, new_vars)):
        average = aten.mean.dim(aten.view.default(copies, [batch, channels]), [0])
        write(running, aten.alias.default(aten.copy.default(aten.alias.default(running), average)))
    return aten.view.default(out, list(input.shape))


# rrelu_(x, l, u, t) = x <- rrelu_with_noise_functional(x, empty_like(x), l, u, t)[0]: torch's
# rrelu_ is rrelu_with_noise_ underneath, which functionalization makes the functional form
@register_functionalization(aten.rrelu_.default)
def rrelu_(self: Tensor, lower: Any = 0.125, upper: Any = 1.0 / 3, training: bool = False,
           generator: Any = None) -> Tensor:
    out = aten.rrelu_with_noise_functional.default(
        self, aten.empty_like.default(self, memory_format="contiguous_format"), lower, upper, training)[0]
    write(self, out)
    return self


# rrelu_with_noise(x, noise, ...) = rrelu_with_noise_functional(x, noise, ...)[0], noise <- [1]
@register_functionalization(aten.rrelu_with_noise.default)
def rrelu_with_noise(self: Tensor, noise: Tensor, lower: Any = 0.125, upper: Any = 1.0 / 3,
                     training: bool = False, generator: Any = None) -> Tensor:
    out, slopes = aten.rrelu_with_noise_functional.default(self, noise, lower, upper, training)
    write(noise, slopes)
    return out


# rrelu_with_noise_(x, noise, ...): x <- [0] and noise <- [1] of rrelu_with_noise_functional
@register_functionalization(aten.rrelu_with_noise_.default)
def rrelu_with_noise_(self: Tensor, noise: Tensor, lower: Any = 0.125, upper: Any = 1.0 / 3,
                      training: bool = False, generator: Any = None) -> Tensor:
    out, slopes = aten.rrelu_with_noise_functional.default(self, noise, lower, upper, training)
    write(noise, slopes)
    write(self, out)
    return self


# feature_dropout_(x, p, train) = x when not training (no write), else x <- feature_dropout(x):
# ATen's _dropout_impl<inplace>, a CompositeImplicitAutograd kernel that functionalization
# decomposes (its last in-place op, mul_ or add_, writes x)
@register_functionalization(aten.feature_dropout_.default)
def feature_dropout_(self: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_in_place(self, p, train, feature=True, alpha=False)


# alpha_dropout_ = x <- alpha_dropout(x) in training (as feature_dropout_)
@register_functionalization(aten.alpha_dropout_.default)
def alpha_dropout_(self: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_in_place(self, p, train, feature=False, alpha=True)


# feature_alpha_dropout_ = x <- feature_alpha_dropout(x) in training (as feature_dropout_)
@register_functionalization(aten.feature_alpha_dropout_.default)
def feature_alpha_dropout_(self: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_in_place(self, p, train, feature=True, alpha=True)


def _dropout_in_place(self: Tensor, p: float, train: bool, feature: bool, alpha: bool) -> Tensor:
    out = dropout_impl(self, p, train, feature, alpha)
    if out is not self:
        write(self, out)
    return self
