"""Matrix products (linear, matmul and its family to mm / bmm / addmm), attention
and distances."""

from __future__ import annotations

import math
from typing import Any

from ._common import DType, Tensor, aten, is_contiguous, numel, register_decomposition, reshape_to


# linear(x, w, b) = addmm(b, x, wᵀ); an n-D x is viewed to 2-D and back
@register_decomposition(aten.linear.default)
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    if input.dim() == 2 and bias is not None:
        return aten.addmm.default(bias, input, aten.permute.default(weight, [1, 0]))
    if bias is not None and input.dim() > 2:
        sizes = list(input.shape)
        flat = reshape_to(input, [numel(sizes[:-1]), sizes[-1]])
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
    flat = reshape_to(self, [numel(sizes[:-1]), sizes[-1]])
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
    """expand, then torch's reshape: a view, after a contiguous copy when the
    expanded tensor's layout is not contiguous (it broadcasts, or x is a
    permuted or strided view)."""
    wide = aten.expand.default(x, expanded)
    if list(x.shape) != list(expanded) or not is_contiguous(x):
        wide = aten.clone.default(wide, memory_format="contiguous_format")
    return aten.view.default(wide, folded)



def _broadcast_shape(a: list[Any], b: list[Any]) -> list[Any]:
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + a
    b = [1] * (rank - len(b)) + b
    return [_broadcast_dim(x, y) for x, y in zip(a, b)]


def _broadcast_dim(x: Any, y: Any) -> Any:
    """1 broadcasts; a static size beats a symbolic one (which must equal it)."""
    if _is_one(x):
        return y
    if _is_one(y) or type(x) is int:
        return x
    return y if type(y) is int else x


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


# einsum(eq, xs): sum out single-use labels, then contract operands pairwise with bmm
# (batch labels kept, shared labels summed), then permute to the output order
@register_decomposition(aten.einsum.default)
def einsum(equation: str, tensors: list[Tensor], *, path: list[int] | None = None) -> Any:
    parsed = _parse_einsum(equation, tensors)
    if parsed is None:
        return NotImplemented
    inputs, output = parsed
    sizes: dict[str, Any] = {}
    for labels, x in zip(inputs, tensors):
        for label, size in zip(labels, x.shape):
            if label not in sizes or _is_one(sizes[label]):
                sizes[label] = size
    operands = []
    for index, (labels, x) in enumerate(zip(inputs, tensors)):
        others = set(output).union(*(set(o) for j, o in enumerate(inputs) if j != index))
        lonely = [i for i, label in enumerate(labels) if label not in others]
        if lonely:
            x = aten.sum.dim_IntList(x, lonely)
            labels = [label for label in labels if label in others]
        operands.append((list(labels), x))
    labels, acc = operands[0]
    for index in range(1, len(operands)):
        later = set(output).union(*(set(o[0]) for o in operands[index + 1:]))
        labels, acc = _contract(labels, acc, *operands[index], later, sizes)
    extra = [i for i, label in enumerate(labels) if label not in output]
    if extra:
        acc = aten.sum.dim_IntList(acc, extra)
        labels = [label for label in labels if label in output]
    order = [labels.index(label) for label in output]
    return acc if order == list(range(len(order))) else aten.permute.default(acc, order)


def _parse_einsum(equation: str, tensors: list[Tensor]) -> tuple[list[list[str]], list[str]] | None:
    """Labels per operand and of the output; "..." becomes labels "…0", "…1"
    (right-aligned); a label repeated within one operand (a diagonal) is not handled."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    specs = lhs.split(",")
    ellipsis_rank = max((x.dim() - len(s.replace("...", "")) for s, x in zip(specs, tensors) if "..." in s),
                        default=0)
    ellipsis = [f"…{i}" for i in range(ellipsis_rank)]

    def expand(spec: str, rank: int | None) -> list[str]:
        if "..." not in spec:
            return list(spec)
        before, after = spec.split("...")
        count = (rank - len(before) - len(after)) if rank is not None else ellipsis_rank
        return list(before) + ellipsis[ellipsis_rank - count:] + list(after)

    inputs = [expand(s, x.dim()) for s, x in zip(specs, tensors)]
    if any(len(set(labels)) != len(labels) for labels in inputs):
        return None
    if arrow:
        output = expand(rhs, None)
    else:
        counts: dict[str, int] = {}
        for labels in inputs:
            for label in labels:
                counts[label] = counts.get(label, 0) + 1
        output = ellipsis + sorted(label for label, n in counts.items() if n == 1 and not label.startswith("…"))
    return inputs, output


def _contract(left_labels: list[str], left: Tensor, right_labels: list[str], right: Tensor, later: set[str],
              sizes: dict[str, Any]) -> tuple[list[str], Tensor]:
    """left ⊗ right over their shared labels: batch (kept) and contracted (summed) by one bmm."""
    shared = [label for label in left_labels if label in right_labels]
    batch = [label for label in shared if label in later]
    summed = [label for label in shared if label not in later]
    left_only = [label for label in left_labels if label not in right_labels]
    right_only = [label for label in right_labels if label not in left_labels]
    a = _arrange(left, left_labels, batch + left_only + summed, sizes)
    b = _arrange(right, right_labels, batch + summed + right_only, sizes)
    size = [sizes[label] for label in batch], [sizes[label] for label in left_only]
    inner, outer = [sizes[label] for label in summed], [sizes[label] for label in right_only]
    a3 = aten.view.default(a, [numel(size[0]), numel(size[1]), numel(inner)])
    b3 = aten.view.default(b, [numel(size[0]), numel(inner), numel(outer)])
    product = aten.bmm.default(a3, b3)
    return batch + left_only + right_only, aten.view.default(product, [*size[0], *size[1], *outer])


def _arrange(x: Tensor, labels: list[str], order: list[str], sizes: dict[str, Any]) -> Tensor:
    """x permuted to ``order`` and broadcast to the full sizes (a contiguous copy)."""
    perm = [labels.index(label) for label in order]
    moved = x if perm == list(range(len(perm))) else aten.permute.default(x, perm)
    full = [sizes[label] for label in order]
    if list(moved.shape) != full:
        moved = aten.expand.default(moved, full)
    return aten.clone.default(moved, memory_format="contiguous_format") if moved is not x else x


# ---------------------------------------------------------------- attention


# sdpa(q, k, v) = softmax(q·kᵀ·scale + mask) · v (dropout on the weights when p > 0)
@register_decomposition(aten.scaled_dot_product_attention.default)
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    length, source = query.shape[-2], key.shape[-2]
    factor = scale if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        repeat = query.shape[-3] // key.shape[-3]
        key = _repeat_heads(key, repeat)
        value = _repeat_heads(value, repeat)
    scores = aten.mul.Tensor(aten.matmul.default(query, aten.transpose.int(key, -2, -1)), factor)
    if is_causal:
        ones = aten.full.default([length, source], True, dtype=DType.bool)
        causal = aten.logical_not.default(_tril_mask(ones, 0))
        scores = aten.where.self(causal, aten.scalar_tensor.default(float("-inf"), dtype=scores.dtype), scores)
    if attn_mask is not None:
        if attn_mask.dtype is DType.bool:
            minus = aten.scalar_tensor.default(float("-inf"), dtype=scores.dtype)
            scores = aten.where.self(aten.logical_not.default(attn_mask), minus, scores)
        else:
            scores = aten.add.Tensor(scores, attn_mask)
    weights = aten._softmax.default(scores, -1, False)
    if dropout_p > 0:
        weights = aten.native_dropout.default(weights, dropout_p, True)[0]
    return aten.matmul.default(weights, value)


def _repeat_heads(x: Tensor, repeat: int) -> Tensor:
    """repeat_interleave(x, repeat, dim=-3)."""
    sizes = list(x.shape)
    wide = aten.unsqueeze.default(x, -3)
    expanded = aten.expand.default(wide, [*sizes[:-3], sizes[-3], repeat, *sizes[-2:]])
    return aten.view.default(aten.clone.default(expanded), [*sizes[:-3], sizes[-3] * repeat, *sizes[-2:]])


def _tril_mask(x: Tensor, diagonal: int) -> Tensor:
    """x where col - row <= diagonal, else False/0 (a 2-D mask)."""
    rows = aten.unsqueeze.default(aten.arange.start_step(0, x.shape[-2], 1), -1)
    cols = aten.arange.start_step(0, x.shape[-1], 1)
    keep = aten.le.Scalar(aten.sub.Tensor(cols, rows), diagonal)
    return aten.logical_and.default(keep, x)


# ---------------------------------------------------------------- distances


# cosine_similarity(a, b, d) = sum(a/max(‖a‖, ε) · b/max(‖b‖, ε), d)
@register_decomposition(aten.cosine_similarity.default)
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    def normalized(x: Tensor) -> Tensor:
        norm = aten.sqrt.default(aten.sum.dim_IntList(aten.mul.Tensor(x, x), [dim], True))
        return aten.div.Tensor(x, aten.clamp.default(norm, eps, None))

    return aten.sum.dim_IntList(aten.mul.Tensor(normalized(x1), normalized(x2)), [dim])


# pairwise_distance(a, b, p) = ‖a - b + ε‖_p over the last dim
@register_decomposition(aten.pairwise_distance.default)
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    diff = aten.add.Tensor(aten.sub.Tensor(x1, x2), eps)
    if diff.dim() == 0:  # the norm over the one "dim" of a 0-d tensor is |x|, still 0-d
        return aten.view.default(_pnorm(aten.view.default(diff, [1]), p, False), [])
    return _pnorm(diff, p, keepdim)


def _pnorm(x: Tensor, p: float, keepdim: bool) -> Tensor:
    magnitude = aten.abs.default(x)
    if p == float("inf"):
        return aten.amax.default(magnitude, [-1], keepdim)
    if p == 0:
        return aten._to_copy.default(aten.sum.dim_IntList(aten.ne.Scalar(x, 0), [-1], keepdim), dtype=x.dtype)
    if p == 2:
        return aten.sqrt.default(aten.sum.dim_IntList(aten.mul.Tensor(x, x), [-1], keepdim))
    if p == 1:
        return aten.sum.dim_IntList(magnitude, [-1], keepdim)
    summed = aten.sum.dim_IntList(aten.pow.Tensor_Scalar(magnitude, p), [-1], keepdim)
    return aten.pow.Tensor_Scalar(summed, 1.0 / p)


# cdist(a, b, p) = _cdist_forward(a, b, p)
@register_decomposition(aten.cdist.default)
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: int | None = None) -> Tensor:
    return aten._cdist_forward.default(x1, x2, p, compute_mode)
