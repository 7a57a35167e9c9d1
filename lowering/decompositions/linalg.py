"""Matrix products: linear, matmul and its family to mm / bmm / addmm."""

from __future__ import annotations

from typing import Any

from ._common import Tensor, aten, numel, register_decomposition


# linear(x, w, b) = addmm(b, x, wᵀ); an n-D x is viewed to 2-D and back
@register_decomposition(aten.linear.default)
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    if input.dim() == 2 and bias is not None:
        return aten.addmm.default(bias, input, aten.permute.default(weight, [1, 0]))
    if bias is not None and input.dim() > 2:
        sizes = list(input.shape)
        flat = aten.view.default(input, [numel(sizes[:-1]), sizes[-1]])
        product = aten.addmm.default(bias, flat, aten.permute.default(weight, [1, 0]))
        return aten.view.default(product, [*sizes[:-1], weight.shape[0]])
    product = aten.matmul.default(input, _t(weight))
    return product if bias is None else aten.add.Tensor(product, bias)


def _t(x: Tensor) -> Tensor:
    return aten.permute.default(x, [1, 0]) if x.dim() == 2 else x


# matmul: 1-D·1-D = dot; 2-D·2-D = mm; n-D·2-D folds the batch into mm; else broadcast bmm
@register_decomposition(aten.matmul.default)
def matmul(self: Tensor, other: Tensor) -> Tensor:
    a, b = self.dim(), other.dim()
    if a == 1 and b == 1:
        return aten.dot.default(self, other)
    if a == 2 and b == 1:
        return aten.mv.default(self, other)
    if a == 1 and b == 2:
        return aten.squeeze.dims(aten.mm.default(aten.unsqueeze.default(self, 0), other), [0])
    if a == 2 and b == 2:
        return aten.mm.default(self, other)
    if a >= 3 and b in (1, 2):
        return _folded(self, other)
    return _batched(self, other)


def _folded(self: Tensor, other: Tensor) -> Tensor:
    """x[..., n, k] @ w[k, m] = view(mm(view(x, [-1, k]), w), [..., n, m])."""
    sizes = list(self.shape)
    flat = aten.view.default(self, [numel(sizes[:-1]), sizes[-1]])
    if other.dim() == 1:
        return aten.view.default(aten.mv.default(flat, other), sizes[:-1])
    return aten.view.default(aten.mm.default(flat, other), [*sizes[:-1], other.shape[1]])


def _batched(self: Tensor, other: Tensor) -> Tensor:
    """Broadcast the batch dims, fold them into one, bmm, unfold."""
    left = aten.unsqueeze.default(self, 0) if self.dim() == 1 else self
    right = aten.unsqueeze.default(other, 1) if other.dim() == 1 else other
    n, k = left.shape[-2], left.shape[-1]
    m = right.shape[-1]
    batch = _broadcast_shape(list(left.shape[:-2]), list(right.shape[:-2]))
    count = numel(batch)
    left3 = _expand_fold(left, [*batch, n, k], [count, n, k])
    right3 = _expand_fold(right, [*batch, k, m], [count, k, m])
    product = aten.bmm.default(left3, right3)
    out = [*batch]
    if self.dim() > 1:
        out.append(n)
    if other.dim() > 1:
        out.append(m)
    return aten.view.default(product, out)


def _expand_fold(x: Tensor, expanded: list[Any], folded: list[Any]) -> Tensor:
    """expand, a contiguous copy, then a view (torch's reshape of an expanded tensor)."""
    wide = aten.expand.default(x, expanded)
    dense = aten.clone.default(wide, memory_format="contiguous_format")
    return aten.view.default(dense, folded)


def _broadcast_shape(a: list[Any], b: list[Any]) -> list[Any]:
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + a
    b = [1] * (rank - len(b)) + b
    return [y if _is_one(x) else x for x, y in zip(a, b)]


def _is_one(size: Any) -> bool:
    return type(size) is int and size == 1


# mv(A, v) = mm(A, v[:, None])[:, 0]
@register_decomposition(aten.mv.default)
def mv(self: Tensor, vec: Tensor) -> Tensor:
    return aten.squeeze.dims(aten.mm.default(self, aten.unsqueeze.default(vec, 1)), [1])


# dot(a, b) = sum(a * b)
@register_decomposition(aten.dot.default)
def dot(self: Tensor, tensor: Tensor) -> Tensor:
    return aten.sum.dim_IntList(aten.mul.Tensor(self, tensor), [0])


# outer(a, b) = a[:, None] * b[None, :]
@register_decomposition(aten.outer.default)
def outer(self: Tensor, vec2: Tensor) -> Tensor:
    return aten.mul.Tensor(aten.unsqueeze.default(self, 1), vec2)


# addmv(s, A, v) = beta * s + alpha * (A @ v)
@register_decomposition(aten.addmv.default)
def addmv(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return _scaled_sum(self, mv(mat, vec), beta, alpha)


# baddbmm(s, A, B) = beta * s + alpha * bmm(A, B)
@register_decomposition(aten.baddbmm.default)
def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return _scaled_sum(self, aten.bmm.default(batch1, batch2), beta, alpha)


def _scaled_sum(self: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    if alpha != 1:
        product = aten.mul.Tensor(product, alpha)
    if beta == 0:
        return product
    scaled = self if beta == 1 else aten.mul.Tensor(self, beta)
    return aten.add.Tensor(scaled, product)
