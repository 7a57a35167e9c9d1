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


# sdpa(q, k, v) = safe_softmax(q·√s · (k·√s)ᵀ + mask) · v, torch's math backend (a bool mask
# becomes 0 / -inf; a row with every key masked gives 0s); the CPU flash path's layout on 4-D inputs
@register_decomposition(aten.scaled_dot_product_attention.default)
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    if attn_mask is not None and attn_mask.dtype is DType.bool:
        attn_mask = _additive_mask(attn_mask, query.dtype)
    if not _flash_cpu_applies(query, key, value, attn_mask, dropout_p, enable_gqa):
        return _attention_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    gqa = bool(query.shape[1] != key.shape[1])
    output = _attention_math(query, key, value, attn_mask, dropout_p, is_causal, scale, gqa)
    # flash attention's output is laid out [L, N, H, E]: torch's decomposition keeps that layout
    moved = aten.clone.default(aten.permute.default(output, [2, 0, 1, 3]), memory_format="contiguous_format")
    return aten.permute.default(moved, [1, 2, 0, 3])


def _attention_math(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                    is_causal: bool, scale: float | None, enable_gqa: bool) -> Tensor:
    """at::_scaled_dot_product_attention_math: q and k each scaled by √scale, in float32 for half types."""
    origin = query.dtype
    if origin in (DType.float16, DType.bfloat16):
        query, key, value = (aten._to_copy.default(x, dtype=DType.float32) for x in (query, key, value))
    factor = math.sqrt(abs(scale) if scale is not None else 1.0 / math.sqrt(query.shape[-1]))
    query = aten.mul.Scalar(query, -factor if scale is not None and scale < 0 else factor)
    if is_causal:
        ones = aten.full.default([query.shape[-2], key.shape[-2]], True, dtype=DType.bool)
        attn_mask = _additive_mask(aten.tril.default(ones), query.dtype)
    if enable_gqa and query.dim() >= 3 and bool(key.shape[-3] != query.shape[-3]):
        key = aten.repeat_interleave.self_int(key, query.shape[-3] // key.shape[-3], -3)
        value = aten.repeat_interleave.self_int(value, query.shape[-3] // value.shape[-3], -3)
    scores = aten.matmul.default(query, aten.mul.Scalar(aten.transpose.int(key, -2, -1), factor))
    if attn_mask is not None:
        scores = aten.add.Tensor(scores, attn_mask)
    weights = _safe_softmax(scores, -1)
    if dropout_p > 0:
        weights = aten.dropout.default(weights, dropout_p, True)
    output = aten.matmul.default(weights, value)
    return output if output.dtype is origin else aten._to_copy.default(output, dtype=origin)


def _additive_mask(mask: Tensor, dtype: DType) -> Tensor:
    """A bool mask as an additive one: 0 where True, -inf where False."""
    minus = aten.scalar_tensor.default(float("-inf"), dtype=dtype)
    zero = aten.scalar_tensor.default(0.0, dtype=dtype)
    return aten.where.self(mask, zero, minus)


def _safe_softmax(x: Tensor, dim: int) -> Tensor:
    """softmax, with 0s for a row that is all -inf (torch's _safe_softmax)."""
    out = aten._softmax.default(x, dim, False)
    kept = aten.logical_not.default(aten.eq.Scalar(x, float("-inf")))
    masked_rows = aten.logical_not.default(aten.any.dim(kept, dim, True))
    return aten.where.self(masked_rows, aten.full_like.default(out, 0), out)


def _flash_cpu_applies(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                       enable_gqa: bool) -> bool:
    """torch's choice of its CPU flash kernel (sdp_utils_cpp: use_flash_attention_cpp)."""
    if not query.dim() == key.dim() == value.dim() == 4 or dropout_p > 0:
        return False
    batch, heads, length, embed = query.shape
    if not bool(batch == key.shape[0]) or not bool(batch == value.shape[0]):
        return False
    if not bool(key.shape[1] == value.shape[1]):
        return False
    if not bool(heads == key.shape[1]) and not (enable_gqa and bool(heads % key.shape[1] == 0)):
        return False
    if not bool(embed == key.shape[3]) or not bool(embed == value.shape[3]):
        return False
    if any(_last_dim_strided(x) for x in (query, key, value)):
        return False
    return attn_mask is None or _flash_mask_shape(attn_mask, batch, heads, length, key.shape[2])


def _flash_mask_shape(mask: Tensor, batch: Any, heads: Any, length: Any, source: Any) -> bool:
    """A 2-D mask, or a 4-D one broadcasting over batch and heads, each dim full or 1."""
    sizes = list(mask.shape)
    if mask.dim() not in (2, 4):
        return False
    fits = [(sizes[-2], length), (sizes[-1], source)]
    if mask.dim() == 4:
        fits += [(sizes[0], batch), (sizes[1], heads)]
    return all(bool(size == 1) or bool(size == full) for size, full in fits)


def _last_dim_strided(x: Tensor) -> bool:
    """Whether the last dim's stride is not 1: x is a permutation or transpose that
    moved another dim last (read from the op that made x)."""
    owner = getattr(getattr(x._value, "ssa", None), "owner", None)
    op_def = getattr(owner, "op_def", None)
    if op_def is None or x.shape[-1] == 1:
        return False
    name, args = op_def.schema.name, owner.arguments()
    rank = x.dim()
    if name == "permute":
        return args[1][-1] % rank != rank - 1
    if name in ("transpose", "swapaxes", "swapdims"):
        return rank - 1 in (args[1] % rank, args[2] % rank) and args[1] % rank != args[2] % rank
    return name in ("t", "mT", "adjoint")


# ---------------------------------------------------------------- distances


# cosine_similarity(a, b, d) = sum(a/max(‖a‖, ε) · b/max(‖b‖, ε), d) (ATen's: the norms cloned, then clamped)
@register_decomposition(aten.cosine_similarity.default)
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    if list(x1.shape) != list(x2.shape):  # expand_outplace
        sizes = _broadcast_shape(list(x1.shape), list(x2.shape))
        x1, x2 = aten.expand.default(x1, sizes), aten.expand.default(x2, sizes)
    norm1 = aten.clone.default(aten.linalg_vector_norm.default(x1, 2, [dim], True))
    norm2 = aten.clone.default(aten.linalg_vector_norm.default(x2, 2, [dim], True))
    floor = aten.scalar_tensor.default(eps, dtype=norm1.dtype)
    scaled1 = aten.div.Tensor(x1, aten.clamp.Tensor(norm1, floor))
    scaled2 = aten.div.Tensor(x2, aten.clamp.Tensor(norm2, floor))
    return aten.sum.dim_IntList(aten.mul.Tensor(scaled1, scaled2), [dim])


# pairwise_distance(a, b, p) = ‖a - b + ε‖_p over the innermost dim
@register_decomposition(aten.pairwise_distance.default)
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    diff = aten.add.Scalar(aten.sub.Tensor(x1, x2), eps)
    return aten.linalg_vector_norm.default(diff, p, [max(x1.dim(), x2.dim()) - 1], keepdim)


# cdist(a, b, p) = _cdist_forward(a, b, p)
@register_decomposition(aten.cdist.default)
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: int | None = None) -> Tensor:
    return aten._cdist_forward.default(x1, x2, p, compute_mode)
