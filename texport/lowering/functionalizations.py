"""Functional forms of the ops that write outside the in-place renamings:
batch norm updates its running statistics (hiddenly, in ``batch_norm``), the
``out=`` and legit variants write named arguments. Each returns the op's
results and ``write``s what the op writes."""

from __future__ import annotations

from typing import Any

from texport.tracer.handles import ops
from texport.tracer.tensor import Tensor

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
