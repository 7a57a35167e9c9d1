"""Matrix products (linear, matmul and its family to mm / bmm / addmm), attention
and distances."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from texport.dialects.shape_rules.linalg import fft_dims_and_sizes, fft_dtype, irfft_last_size
from texport.dialects.shape_rules.strides import contiguous_strides, known_eq
from texport.tracer.tracing import layout_of

from ._common import (
    DType,
    Tensor,
    aten,
    canonical_dim,
    cast_to,
    contiguous,
    is_contiguous,
    numel,
    register_decomposition,
    reshape_to,
)


# linear(x, w, b) = addmm(b, x, wᵀ) for a matrix x, or a contiguous x viewed to 2-D and back;
# otherwise matmul(x, wᵀ) + b (ATen's linear)
@register_decomposition(aten.linear.default)
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    if input.dim() == 2 and bias is not None:
        return aten.addmm.default(bias, input, _t(weight))
    if bias is not None and is_contiguous(input) and (input.dim() == 3 or bias.dim() == 1):
        sizes = list(input.shape)
        flat = reshape_to(input, [numel(sizes[:-1]), sizes[-1]])
        product = aten.addmm.default(bias, flat, _t(weight))
        return aten.view.default(product, [*sizes[:-1], product.shape[1]])
    product = aten.matmul.default(input, _t(weight))
    return product if bias is None else aten.add.Tensor(product, bias)


def _t(x: Tensor) -> Tensor:
    return aten.permute.default(x, [1, 0]) if x.dim() == 2 else x


# matmul: 1-D·1-D = dot; 2-D·2-D = mm; a batch that folds into rows = one mm; else broadcast bmm
# (ATen's _matmul_impl: which it is depends on the operands' strides)
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
    if _should_fold(self, other):
        return _folded(self, other)
    return _batched(self, other)


def _should_fold(tensor1: Tensor, tensor2: Tensor) -> bool:
    """Fold the larger operand's batch into the rows of one mm when the other is a
    matrix or vector and the fold needs no copy: its batch dims are contiguous
    among themselves (or the small operand requires grad, as a parameter does)."""
    larger = tensor1.dim() >= tensor2.dim()
    big, small = (tensor1, tensor2) if larger else (tensor2, tensor1)
    dims, strides = layout_of(big)
    strides = strides if strides is not None else contiguous_strides(dims)
    if not larger:  # the mT of tensor2
        dims = (*dims[:-2], dims[-1], dims[-2])
        strides = (*strides[:-2], strides[-1], strides[-2])
    if not (len(dims) >= 3 and small.dim() <= 2):
        return False
    if small.requires_grad:
        return True
    if tensor1.dim() == 2:
        return False
    if known_eq(numel(dims), 0):
        return True
    return all(known_eq(strides[i], strides[i + 1] * dims[i + 1]) for i in range(len(dims) - 2))


def _folded(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """x[..., n, k] @ w[k, m] = _unsafe_view(mm(reshape(x, [-1, k]), w), [..., n, m]); a
    matrix or vector times a batch runs transposed."""
    transpose = tensor2.dim() > tensor1.dim()
    t1 = aten.transpose.int(tensor2, -2, -1) if transpose else tensor1
    t2 = (_t(tensor1) if tensor1.dim() == 2 else tensor1) if transpose else tensor2
    sizes = list(t1.shape)
    folded = reshape_to(t1, [numel(sizes[:-1]), sizes[-1]])
    if t2.dim() == 1:
        return aten.view.default(aten.mv.default(folded, t2), sizes[:-1])
    output = aten.view.default(aten.mm.default(folded, t2), [*sizes[:-1], t2.shape[1]])
    return contiguous(aten.transpose.int(output, -2, -1)) if transpose else output


def _batched(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """Broadcast the batch dims, fold them into one (reshape: a copy when the strides
    do not allow a view), bmm, unfold."""
    a, b = tensor1.dim(), tensor2.dim()
    if a == 3 and b == 3 and not _same(tensor1.shape[0], tensor2.shape[0]):
        # torch squeezes a batch of one off an operand that requires grad (a
        # parameter or a view of one), so the fold above can take it
        if _is_one(tensor1.shape[0]) and tensor1.requires_grad:
            return matmul(aten.squeeze.dims(tensor1, [0]), tensor2)
        if _is_one(tensor2.shape[0]) and tensor2.requires_grad:
            return matmul(tensor1, aten.squeeze.dims(tensor2, [0]))
    n = tensor1.shape[-2] if a > 1 else 1
    m1 = tensor1.shape[-1]
    m2 = tensor2.shape[-2] if b > 1 else tensor2.shape[0]
    p = tensor2.shape[-1] if b > 1 else 1
    batch = _broadcast_shape(list(tensor1.shape[:max(a - 2, 0)]), list(tensor2.shape[:max(b - 2, 0)]))
    count = numel(batch)
    left = reshape_to(aten.expand.default(tensor1, [*batch, n, m1]), [count, n, m1])
    if b == 1:
        right = aten.unsqueeze.default(reshape_to(aten.expand.default(tensor2, [*batch, m2]), [count, m2]), 2)
    else:
        right = reshape_to(aten.expand.default(tensor2, [*batch, m2, p]), [count, m2, p])
    product = aten.bmm.default(left, right)
    if b == 1:
        product = aten.squeeze.dims(product, [-1])
    out = [*batch, *([n] if a > 1 else []), *([p] if b > 1 else [])]
    return aten.view.default(product, out)


def _same(x: Any, y: Any) -> bool:
    return type(x) is int and type(y) is int and x == y or x is y or getattr(x, "expr", x) == getattr(y, "expr", y)


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


# mv(A, v) = sum(A * v, 1) (torch's decomposition)
@register_decomposition(aten.mv.default)
def mv(self: Tensor, vec: Tensor) -> Tensor:
    return aten.sum.dim_IntList(aten.mul.Tensor(self, vec), [1])


# dot(a, b) = sum(a * b)
@register_decomposition(aten.dot.default)
def dot(self: Tensor, tensor: Tensor) -> Tensor:
    return aten.sum.dim_IntList(aten.mul.Tensor(self, tensor), [0])


# outer(a, b) = reshape(a, [n, 1]) * b
@register_decomposition(aten.outer.default)
def outer(self: Tensor, vec2: Tensor) -> Tensor:
    # ATen's outer reshapes self to a column (a view), it does not unsqueeze it
    return aten.mul.Tensor(reshape_to(self, [self.shape[0], 1]), vec2)


# baddbmm(s, A, B) = beta * s + alpha * bmm(A, B)
@register_decomposition(aten.baddbmm.default)
def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return _scaled_sum(self, aten.bmm.default(batch1, batch2), beta, alpha)


def _scaled_sum(self: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        beta, alpha = int(beta), int(alpha)  # an integer product truncates its scalars, as torch's
    if alpha != 1:
        product = aten.mul.Tensor(product, alpha)
    if beta == 0:
        return product
    scaled = self if beta == 1 else aten.mul.Tensor(self, beta)
    return aten.add.Tensor(scaled, product)


# einsum(eq, xs): align every operand to the output dims then the summed dims (unsqueezing
# missing ones), then contract pairwise, left to right or along ``path``, with bmm (ATen's einsum)
@register_decomposition(aten.einsum.default)
def einsum(equation: str, tensors: list[Tensor], *, path: list[int] | None = None) -> Any:
    dims = _EinsumDims.of(equation, tensors)
    ops = [_aligned(x, labels, dims) for x, labels in zip(tensors, dims.operands)]
    steps = iter(path or [])
    while len(ops) > 1:
        i, j = (0, 1) if path is None else sorted((next(steps), next(steps)))
        a, b = ops[i], ops[j]
        del ops[j], ops[i]
        ops.insert(len(ops) if path is not None else 0, _contract(a, b, dims))
    result = ops[0]
    if dims.total == dims.out:
        return result
    if len(tensors) > 1:  # the summed dims are 1 by now
        return aten.view.default(result, list(result.shape)[:dims.out])
    return aten.sum.dim_IntList(result, list(range(dims.out, dims.total)))


@dataclass
class _EinsumDims:
    """Where each label goes in the aligned operands: the output's dims first
    (``out`` of them), then the summed ones (``total`` in all); ``counts`` of the
    operands where each dim is not 1, kept up to date as operands are contracted."""

    operands: list[list[str]]
    index: dict[str, int]
    ellipsis_at: int
    ellipsis_dims: int
    out: int
    total: int
    counts: list[int]

    @staticmethod
    def of(equation: str, tensors: list[Tensor]) -> _EinsumDims:
        lhs, arrow, rhs = equation.replace(" ", "").partition("->")
        operands = [_labels(spec) for spec in lhs.split(",")]
        if len(operands) != len(tensors):
            raise ValueError("einsum(): the equation names a different number of operands than given")
        ellipsis_dims = max((x.dim() - len(ls) + 1 for ls, x in zip(operands, tensors) if _ELLIPSIS in ls),
                            default=0)
        uses = {label: sum(ls.count(label) for ls in operands) for label in _ALPHABET}
        index: dict[str, int] = {}
        if arrow:
            ellipsis_at = _place_output(_labels(rhs), index, ellipsis_dims)
        else:  # implicit output: the ellipsis, then the labels used once, in alphabetical order
            once = [label for label in _ALPHABET if uses[label] == 1]
            index.update((label, ellipsis_dims + i) for i, label in enumerate(once))
            ellipsis_at = 0
        summed_ellipsis = bool(arrow) and _ELLIPSIS not in rhs
        out = len(index) + (0 if summed_ellipsis else ellipsis_dims)
        total = out + (ellipsis_dims if summed_ellipsis else 0)
        for label in _ALPHABET:  # the summed labels
            if uses[label] and label not in index:
                index[label] = total
                total += 1
        at = out if ellipsis_at is None else ellipsis_at
        return _EinsumDims(operands, index, at, ellipsis_dims, out, total, [0] * total)


_ELLIPSIS = "..."
_ALPHABET = [chr(c) for c in range(ord("A"), ord("Z") + 1)] + [chr(c) for c in range(ord("a"), ord("z") + 1)]


def _labels(spec: str) -> list[str]:
    """An operand's subscripts, ``...`` as one entry."""
    before, dots, after = spec.partition(_ELLIPSIS)
    return [*before, *([_ELLIPSIS] if dots else []), *after]


def _place_output(labels: list[str], index: dict[str, int], ellipsis_dims: int) -> int | None:
    """Number the output's dims; where its ellipsis dims start (None: no ellipsis)."""
    ellipsis_at, position = None, 0
    for label in labels:
        if label == _ELLIPSIS:
            ellipsis_at = position
            position += ellipsis_dims
        else:
            index[label] = position
            position += 1
    return ellipsis_at


def _aligned(x: Tensor, labels: list[str], dims: _EinsumDims) -> Tensor:
    """x with a dim per label (its diagonal for a repeated one, size 1 for a missing one),
    permuted to the aligned order; counts the operands where each dim is not 1."""
    permutation = [-1] * dims.total
    dim = 0
    for label in labels:
        if label == _ELLIPSIS:
            covered = x.dim() - dim - (len(labels) - 1 - labels.index(label))
            for j in range(dims.ellipsis_dims - covered, dims.ellipsis_dims):
                if _not_one(x.shape[dim]):
                    dims.counts[dims.ellipsis_at + j] += 1
                permutation[dims.ellipsis_at + j] = dim
                dim += 1
        elif permutation[dims.index[label]] == -1:
            if _not_one(x.shape[dim]):
                dims.counts[dims.index[label]] += 1
            permutation[dims.index[label]] = dim
            dim += 1
        else:  # a repeated label: the diagonal, in the first one's place
            first = permutation[dims.index[label]]
            x = aten.movedim.int(aten.diagonal.default(x, 0, first, dim), -1, first)
    for position, source in enumerate(permutation):
        if source == -1:
            x = aten.unsqueeze.default(x, dim)
            permutation[position] = dim
            dim += 1
    return aten.permute.default(x, permutation)


def _contract(a: Tensor, b: Tensor, dims: _EinsumDims) -> Tensor:
    """a and b multiplied, summing the dims no other operand has: those only one of
    them has first, then those both have with one bmm."""
    summed, a_only, b_only = [], [], []
    for dim in range(dims.out, dims.total):
        if _not_one(a.shape[dim]) and _not_one(b.shape[dim]):
            dims.counts[dim] -= 1
            if dims.counts[dim] == 1:
                summed.append(dim)
                dims.counts[dim] = 0
        elif dims.counts[dim] == 1:
            if _not_one(a.shape[dim]):
                a_only.append(dim)
                dims.counts[dim] = 0
            elif _not_one(b.shape[dim]):
                b_only.append(dim)
                dims.counts[dim] = 0
    a = aten.sum.dim_IntList(a, a_only, True) if a_only else a
    b = aten.sum.dim_IntList(b, b_only, True) if b_only else b
    return _sumproduct_pair(a, b, summed)


def _sumproduct_pair(left: Tensor, right: Tensor, summed: list[int]) -> Tensor:
    """(left * right).sum(summed, keepdim=True) as one bmm: dims in both (kept), in one
    (kept), summed; permuted and reshaped to [both, left's, summed] @ [both, summed, right's]."""
    if not summed:
        return aten.mul.Tensor(left, right)
    both, left_only, right_only = [], [], []
    sizes = {"both": 1, "left": 1, "right": 1, "summed": 1}
    for i in range(left.dim()):
        in_left, in_right = _not_one(left.shape[i]), _not_one(right.shape[i])
        if i in summed:
            if in_left and in_right:
                sizes["summed"] = sizes["summed"] * left.shape[i]
            elif in_left:
                left = aten.sum.dim_IntList(left, [i], True)
            elif in_right:
                right = aten.sum.dim_IntList(right, [i], True)
        elif in_left and in_right:
            both.append(i)
            sizes["both"] = sizes["both"] * left.shape[i]
        elif in_left:
            left_only.append(i)
            sizes["left"] = sizes["left"] * left.shape[i]
        else:
            right_only.append(i)
            sizes["right"] = sizes["right"] * right.shape[i]
    out_size = [*(left.shape[d] for d in both + left_only), *([1] * len(summed)),
                *(right.shape[d] for d in right_only)]
    order = both + left_only + summed + right_only
    lhs = reshape_to(aten.permute.default(left, order),
                     [sizes["both"], sizes["left"], sizes["summed"]])
    rhs = reshape_to(aten.permute.default(right, both + summed + right_only + left_only),
                     [sizes["both"], sizes["summed"], sizes["right"]])
    product = aten.view.default(aten.bmm.default(lhs, rhs), out_size)
    return aten.permute.default(product, [order.index(d) for d in range(len(order))])


def _not_one(size: Any) -> bool:
    """size != 1, a symbolic size deciding size-obliviously (not 1)."""
    return bool(size != 1)


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
    if not _last_dims_unit_stride(query, key, value):
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


def _last_dims_unit_stride(query: Tensor, key: Tensor, value: Tensor) -> bool:
    """sdp_utils_cpp's check_last_dim_stride_equals_1_dense (singleton head dim
    ignored): each of q, k, v has stride 1 in its last dim, read from the
    strides torch's fake tensors would carry, or the head dim is 1."""
    if _is_one(query.shape[-1]):
        return True
    return all(_last_stride(x) == 1 for x in (query, key, value))


def _last_stride(x: Tensor) -> Any:
    strides = layout_of(x)[1]
    return 1 if strides is None else strides[-1]


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


# pdist(x, p) = _pdist_forward(x, p) (ATen's: of x made contiguous)
@register_decomposition(aten.pdist.default)
def pdist(self: Tensor, p: float = 2.0) -> Tensor:
    return aten._pdist_forward.default(contiguous(self), p)


# bilinear(x1, x2, W, b) = _trilinear(x1 as [n, in1], W, x2 as [n, in2]) viewed to [*batch, out], + b
@register_decomposition(aten.bilinear.default)
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    sizes = list(input1.shape)
    flat1 = reshape_to(input1, [numel(sizes[:-1]), sizes[-1]])
    flat2 = reshape_to(input2, [numel(list(input2.shape)[:-1]), input2.shape[-1]])
    product = aten._trilinear.default(flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3])
    output = reshape_to(product, [*sizes[:-1], weight.shape[0]])
    return output if bias is None else aten.add.Tensor(output, bias)


# cdist(a, b, p) = _cdist_forward(a, b, p)
@register_decomposition(aten.cdist.default)
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: int | None = None) -> Tensor:
    return aten._cdist_forward.default(x1, x2, p, compute_mode)


# ---------------------------------------------------------------- FFTs (ATen's SpectralOps.cpp)

# torch's fft_norm_mode: 0 no scale, 1 by 1/sqrt(n), 2 by 1/n
_NORM_MODES = {(None, True): 0, ("backward", True): 0, ("forward", True): 2, ("ortho", True): 1,
               (None, False): 2, ("backward", False): 2, ("forward", False): 0, ("ortho", False): 1}


def _norm_mode(norm: str | None, forward: bool) -> int:
    if (norm, forward) not in _NORM_MODES:
        raise ValueError(f"Invalid normalization mode: {norm}")
    return _NORM_MODES[norm, forward]


def _promoted(x: Tensor, complex_input: bool) -> Tensor:
    """promote_tensor_fft: an integer input as float32; a complex one wanted: its complex dtype."""
    return cast_to(x, fft_dtype(x.dtype, complex_input))


def _resized_input(x: Tensor, dims: list[int], sizes: list[Any]) -> Tensor:
    """resize_fft_input: each of dims sliced or zero-padded at its end to its size."""
    pad = [0] * (2 * x.dim())
    padded = False
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if known_eq(have, n):
            continue
        if _known_less(have, n):
            pad[len(pad) - 2 * d - 1] = n - have
            padded = True
        else:
            x = aten.slice.Tensor(x, d, 0, n)
    return aten.constant_pad_nd.default(x, pad) if padded else x


def _known_less(a: Any, b: Any) -> bool:
    return bool(getattr(a, "expr", a) < getattr(b, "expr", b))


def _fft_r2c(x: Tensor, n: Any, dim: int, norm: str | None, forward: bool, onesided: bool) -> Tensor:
    x = _promoted(x, complex_input=False)
    axis = canonical_dim(dim, x.dim())
    if n is not None:
        x = _resized_input(x, [axis], [n])
    out = aten._fft_r2c.default(x, [axis], _norm_mode(norm, forward), onesided)
    return out if forward else aten._conj.default(out)


def _fft_c2r(x: Tensor, n: Any, dim: int, norm: str | None, forward: bool) -> Tensor:
    x = _promoted(x, complex_input=True)
    axis = canonical_dim(dim, x.dim())
    size = n if n is not None else 2 * (x.shape[axis] - 1)
    if n is not None:
        x = _resized_input(x, [axis], [size // 2 + 1])
    if forward:  # the conjugate, materialised before c2r reads it (as torch's functionalization does)
        x = aten.clone.default(aten._conj.default(x))
    return aten._fft_c2r.default(x, [axis], _norm_mode(norm, forward), size)


def _fft_c2c(x: Tensor, n: Any, dim: int, norm: str | None, forward: bool) -> Tensor:
    axis = canonical_dim(dim, x.dim())
    if n is not None:
        x = _resized_input(x, [axis], [n])
    return aten._fft_c2c.default(x, [axis], _norm_mode(norm, forward), forward)


# fft(x) = _fft_c2c(x) of a complex x, _fft_r2c(x, onesided=False) of a real one
@register_decomposition(aten.fft_fft.default)
def fft_fft(self: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:
    if self.dtype.is_complex:
        return _fft_c2c(self, n, dim, norm, True)
    return _fft_r2c(self, n, dim, norm, True, False)


# ifft(x) = _fft_c2c(x, forward=False), or the conjugate of a real x's _fft_r2c
@register_decomposition(aten.fft_ifft.default)
def fft_ifft(self: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:
    if self.dtype.is_complex:
        return _fft_c2c(self, n, dim, norm, False)
    return _fft_r2c(self, n, dim, norm, False, False)


# rfft(x) = _fft_r2c(x, onesided=True)
@register_decomposition(aten.fft_rfft.default)
def fft_rfft(self: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return _fft_r2c(self, n, dim, norm, True, True)


# ihfft(x) = conj(_fft_r2c(x, onesided=True)), normalised as an inverse
@register_decomposition(aten.fft_ihfft.default)
def fft_ihfft(self: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return _fft_r2c(self, n, dim, norm, False, True)


# irfft(z) = _fft_c2r(z) to n = 2 (len - 1) points unless given
@register_decomposition(aten.fft_irfft.default)
def fft_irfft(self: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return _fft_c2r(self, n, dim, norm, False)


# hfft(z) = _fft_c2r(conj(z)), normalised as a forward transform
@register_decomposition(aten.fft_hfft.default)
def fft_hfft(self: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return _fft_c2r(self, n, dim, norm, True)


def _fftn_c2c(self: Tensor, s: Any, dim: Any, norm: str | None, forward: bool) -> Tensor:
    dims, sizes = fft_dims_and_sizes(list(self.shape), s, dim)
    x = _resized_input(_promoted(self, complex_input=True), dims, sizes)
    return aten._fft_c2c.default(x, dims, _norm_mode(norm, forward), forward)


# fftn(x) = _fft_c2c over torch's canonical dims of x promoted to complex, resized to s
@register_decomposition(aten.fft_fftn.default)
def fft_fftn(self: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    return _fftn_c2c(self, s, dim, norm, True)


# ifftn(x) = _fft_c2c(forward=False) over the same dims
@register_decomposition(aten.fft_ifftn.default)
def fft_ifftn(self: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    return _fftn_c2c(self, s, dim, norm, False)


# fft2(x) = fftn(x) over the last two dims
@register_decomposition(aten.fft_fft2.default)
def fft_fft2(self: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    return _fftn_c2c(self, s, dim, norm, True)


# ifft2(x) = ifftn(x) over the last two dims
@register_decomposition(aten.fft_ifft2.default)
def fft_ifft2(self: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    return _fftn_c2c(self, s, dim, norm, False)


# rfft2(x) = rfftn(x) over the last two dims
@register_decomposition(aten.fft_rfft2.default)
def fft_rfft2(self: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    return fft_rfftn(self, s, dim, norm)


# irfft2(z) = irfftn(z) over the last two dims
@register_decomposition(aten.fft_irfft2.default)
def fft_irfft2(self: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    return fft_irfftn(self, s, dim, norm)


# rfftn(x) = _fft_r2c(onesided=True) over the canonical dims, resized to s
@register_decomposition(aten.fft_rfftn.default)
def fft_rfftn(self: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    dims, sizes = fft_dims_and_sizes(list(self.shape), s, dim)
    x = _resized_input(_promoted(self, complex_input=False), dims, sizes)
    return aten._fft_r2c.default(x, dims, _norm_mode(norm, True), True)


# irfftn(z) = _fft_c2r over the canonical dims, the last one's input cut to n // 2 + 1
@register_decomposition(aten.fft_irfftn.default)
def fft_irfftn(self: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    dims, sizes = fft_dims_and_sizes(list(self.shape), s, dim)
    last = irfft_last_size(list(self.shape), s, dims, sizes)
    sizes[-1] = last // 2 + 1
    x = _resized_input(_promoted(self, complex_input=True), dims, sizes)
    return aten._fft_c2r.default(x, dims, _norm_mode(norm, False), last)


# fftshift rolls each dim by half its size (ifftshift: by half rounded up)
@register_decomposition(aten.fft_fftshift.default)
def fft_fftshift(self: Tensor, dim: Any = None) -> Tensor:
    dims = list(range(self.dim())) if dim is None else list(dim)
    return aten.roll.default(self, [self.shape[d] // 2 for d in dims], dims)


# ifftshift(x) = roll(x, ceil(size / 2)) over each dim
@register_decomposition(aten.fft_ifftshift.default)
def fft_ifftshift(self: Tensor, dim: Any = None) -> Tensor:
    dims = list(range(self.dim())) if dim is None else list(dim)
    return aten.roll.default(self, [(self.shape[d] + 1) // 2 for d in dims], dims)


# ---------------------------------------------------------------- complex numbers


# real(z) = view_as_real(z)[..., 0], imag(z) = view_as_real(z)[..., 1]
@register_decomposition(aten.real.default)
def real(self: Tensor) -> Tensor:
    return aten.select.int(aten.view_as_real.default(self), -1, 0) if self.dtype.is_complex else self


# imag(z) = view_as_real(z)[..., 1]
@register_decomposition(aten.imag.default)
def imag(self: Tensor) -> Tensor:
    return aten.select.int(aten.view_as_real.default(self), -1, 1)


# a conjugate's resolution is its copy (only recorded for a conjugate: tracer/linalg.py)
@register_decomposition(aten.resolve_conj.default)
def resolve_conj(self: Tensor) -> Tensor:
    return aten.clone.default(self)


# conj_physical(z) = _conj_physical(z)
@register_decomposition(aten.conj_physical.default)
def conj_physical(self: Tensor) -> Tensor:
    return aten._conj_physical.default(self)


# ---------------------------------------------------------------- torch.linalg (ATen's BatchLinearAlgebra.cpp,
# LinearAlgebra.cpp): each function onto the factorisation torch keeps in core programs


# linalg_det(A) = _linalg_det(A).result
@register_decomposition(aten.linalg_det.default)
def linalg_det(A: Tensor) -> Tensor:
    return aten._linalg_det.default(A)[0]


# det(A) = linalg_det(A)
@register_decomposition(aten.det.default)
def det(self: Tensor) -> Tensor:
    return aten.linalg_det.default(self)


# linalg_slogdet(A) = _linalg_slogdet(A)[:2]
@register_decomposition(aten.linalg_slogdet.default)
def linalg_slogdet(A: Tensor) -> tuple[Tensor, Tensor]:
    sign, logabsdet, _, _ = aten._linalg_slogdet.default(A)
    return sign, logabsdet


# inv, solve and cholesky: torch also checks the info output through an effectful
# _linalg_check_errors (a token in its signature); texport's kernels raise instead
@register_decomposition(aten.linalg_inv.default)
def linalg_inv(A: Tensor) -> Tensor:
    return aten.linalg_inv_ex.default(A)[0]


# inverse(A) = linalg_inv(A)
@register_decomposition(aten.inverse.default)
def inverse(self: Tensor) -> Tensor:
    return aten.linalg_inv.default(self)


# linalg_solve(A, B) = _linalg_solve_ex(A, B).result
@register_decomposition(aten.linalg_solve.default)
def linalg_solve(A: Tensor, B: Tensor, left: bool = True) -> Tensor:
    return aten._linalg_solve_ex.default(A, B, left=left)[0]


# linalg_solve_ex(A, B) = _linalg_solve_ex(A, B)'s result and info
@register_decomposition(aten.linalg_solve_ex.default)
def linalg_solve_ex(A: Tensor, B: Tensor, left: bool = True, check_errors: bool = False) -> tuple[Tensor, Tensor]:
    result, _, _, info = aten._linalg_solve_ex.default(A, B, left=left, check_errors=check_errors)
    return result, info


# linalg_cholesky(A) = linalg_cholesky_ex(A).L
@register_decomposition(aten.linalg_cholesky.default)
def linalg_cholesky(self: Tensor, upper: bool = False) -> Tensor:
    return aten.linalg_cholesky_ex.default(self, upper=upper)[0]


# linalg_svd(A) = _linalg_svd(A, full_matrices, compute_uv=True)
@register_decomposition(aten.linalg_svd.default)
def linalg_svd(A: Tensor, full_matrices: bool = True, driver: str | None = None) -> tuple[Tensor, ...]:
    return tuple(aten._linalg_svd.default(A, full_matrices, True, driver=driver))


# the singular values alone: torch's export still asks for the vectors (compute_uv is
# whether A may need a gradient, which tracing assumes)
@register_decomposition(aten.linalg_svdvals.default)
def linalg_svdvals(A: Tensor, driver: str | None = None) -> Tensor:
    return aten._linalg_svd.default(A, driver=driver)[1]


# linalg_eigh(A) = _linalg_eigh(A, UPLO, compute_v=True)
@register_decomposition(aten.linalg_eigh.default)
def linalg_eigh(self: Tensor, UPLO: str = "L") -> tuple[Tensor, Tensor]:  # noqa: N803
    values, vectors = aten._linalg_eigh.default(self, UPLO)
    return values, vectors


# linalg_eigvalsh(A) = _linalg_eigh(A, UPLO).eigenvalues
@register_decomposition(aten.linalg_eigvalsh.default)
def linalg_eigvalsh(self: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    return aten._linalg_eigh.default(self, UPLO)[0]


# pinverse(A, rcond) = linalg_pinv(A, atol=0, rtol=rcond), the tolerances as float64 0-d tensors
@register_decomposition(aten.pinverse.default)
def pinverse(self: Tensor, rcond: float = 1e-15) -> Tensor:
    atol = aten.full.default([], 0.0, dtype=DType.float64)
    rtol = aten.full.default([], rcond, dtype=DType.float64)
    return aten.linalg_pinv.atol_rtol_tensor(self, atol=atol, rtol=rtol)


# linalg_norm(A, ord, dim) = matrix_norm over two dims given an ord, else vector_norm
@register_decomposition(aten.linalg_norm.default)
def linalg_norm(self: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False,  # noqa: A002
                dtype: Any = None) -> Tensor:
    """A matrix norm when an ord is given over two dims (or a whole matrix), else a vector norm."""
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and self.dim() == 2)):
        return aten.linalg_matrix_norm.default(self, ord, list(dim or [0, 1]), keepdim, dtype=dtype)
    return aten.linalg_vector_norm.default(self, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


# linalg_norm(A, 'fro' | 'nuc', dim) = matrix_norm(A, ord, dim or (0, 1))
@register_decomposition(aten.linalg_norm.ord_str)
def linalg_norm_ord_str(self: Tensor, ord: str, dim: Any = None, keepdim: bool = False,  # noqa: A002
                        dtype: Any = None) -> Tensor:
    return aten.linalg_matrix_norm.str_ord(self, ord, list(dim or [0, 1]), keepdim, dtype=dtype)


def _backshift(dim0: int, dim1: int, ndim: int) -> list[int]:
    """create_dim_backshift_permutation: every other dim, then dim0 and dim1."""
    return [d for d in range(ndim) if d not in (dim0, dim1)] + [dim0, dim1]


def _svdvals_reduced(A: Tensor, dims: list[int], keepdim: bool, dtype: Any, reduce: Any) -> Tensor:
    """The singular values over `dims` (moved to the end), reduced over their last dim."""
    A = cast_to(A, dtype)
    perm = _backshift(canonical_dim(dims[0], A.dim()), canonical_dim(dims[1], A.dim()), A.dim())
    out = reduce(aten.linalg_svdvals.default(aten.permute.default(A, perm)))
    if keepdim:
        back = [perm.index(i) for i in range(len(perm))]
        out = aten.permute.default(aten.unsqueeze.default(out, -1), back)
    return out


# matrix_norm(A, ±2) = max / min singular value; ±1, ±inf: max / min of column / row |sums|
@register_decomposition(aten.linalg_matrix_norm.default)
def linalg_matrix_norm(self: Tensor, ord: Any, dim: Any = (-2, -1), keepdim: bool = False,  # noqa: A002
                       dtype: Any = None) -> Tensor:
    """2: the largest singular value (-2 the smallest); 1 / inf: the largest column / row
    sum of |a| (-1 / -inf the smallest)."""
    dims = list(dim)
    if abs(ord) == 2:
        pick = aten.amax.default if ord > 0 else aten.amin.default
        return _svdvals_reduced(self, dims, keepdim, dtype, lambda s: pick(s, [-1], keepdim))
    if abs(ord) != 1 and abs(ord) != math.inf:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if abs(ord) == math.inf:
        dims = [dims[1], dims[0]]
    first, second = canonical_dim(dims[0], self.dim()), canonical_dim(dims[1], self.dim())
    if not keepdim and first < second:
        second -= 1
    sums = aten.linalg_vector_norm.default(self, 1.0, [first], keepdim, dtype=dtype)
    pick = aten.amax.default if ord > 0 else aten.amin.default
    return pick(sums, [second], keepdim)


# matrix_norm(A, 'fro') = vector_norm(A, 2, dim); 'nuc': the singular values' sum
@register_decomposition(aten.linalg_matrix_norm.str_ord)
def linalg_matrix_norm_str_ord(self: Tensor, ord: str = "fro", dim: Any = (-2, -1),  # noqa: A002
                               keepdim: bool = False, dtype: Any = None) -> Tensor:
    if ord == "fro":
        return aten.linalg_vector_norm.default(self, 2, list(dim), keepdim, dtype=dtype)
    if ord != "nuc":
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return _svdvals_reduced(self, list(dim), keepdim, dtype, lambda s: aten.sum.dim_IntList(s, [-1], keepdim))


# vecdot(x, y) = sum(conj(x) * y, dim); vdot the same of two vectors
@register_decomposition(aten.linalg_vecdot.default)
def linalg_vecdot(x: Tensor, y: Tensor, dim: int = -1) -> Tensor:
    x = aten._conj.default(x) if x.dtype.is_complex else x
    return aten.sum.dim_IntList(aten.mul.Tensor(x, y), [dim])


# vdot(a, b) = sum(conj(a) * b)
@register_decomposition(aten.vdot.default)
def vdot(self: Tensor, other: Tensor) -> Tensor:
    self = aten._conj_physical.default(self) if self.dtype.is_complex else self
    return aten.sum.dim_IntList(aten.mul.Tensor(self, other), [])


# trace(a) = sum(diag(a)) (torch's ref: the diagonal copied, then summed)
@register_decomposition(aten.trace.default)
def trace(self: Tensor) -> Tensor:
    diagonal = aten.clone.default(aten.diagonal.default(self), memory_format="contiguous_format")
    return aten.sum.dim_IntList(diagonal, [])


# linalg_diagonal(A) = diagonal(A, offset, -2, -1)
@register_decomposition(aten.linalg_diagonal.default)
def linalg_diagonal(A: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return aten.diagonal.default(A, offset, dim1, dim2)


def _chain_order(sizes: list[Any]) -> Any:
    """The bracketing of a matrix chain with the fewest multiplications (ATen's
    multi_dot: the classic dynamic programme; a pair as (i, j) nests)."""
    n = len(sizes) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(tensors: list[Tensor], split: Any, i: int, j: int) -> Tensor:
    if i == j:
        return tensors[i]
    k = split[i][j]
    return aten.mm.default(_chain(tensors, split, i, k), _chain(tensors, split, k + 1, j))


# multi_dot(A, B, ...) = mm chain in the cheapest order (chain_matmul the same)
@register_decomposition([aten.linalg_multi_dot.default, aten.chain_matmul.default])
def linalg_multi_dot(tensors: list[Tensor]) -> Tensor:
    """The chain multiplied in its cheapest order (a 1-D first / last operand as a
    row / column), viewed to the result's shape."""
    if len(tensors) == 1:
        return aten.clone.default(tensors[0])
    first, last = tensors[0], tensors[-1]
    matrices = list(tensors)
    if first.dim() == 1:
        matrices[0] = aten.unsqueeze.default(first, 0)
    if last.dim() == 1:
        matrices[-1] = aten.unsqueeze.default(last, 1)
    if len(matrices) == 2:
        product = aten.mm.default(*matrices)
    elif len(matrices) == 3:
        a, b, c = matrices[0].shape[0], matrices[1].shape[0], matrices[2].shape[0]
        d = matrices[2].shape[1]
        cost_first, cost_last = a * c * (b + d), b * d * (a + c)
        product = (aten.mm.default(matrices[0], aten.mm.default(matrices[1], matrices[2]))
                   if cost_first > cost_last else
                   aten.mm.default(aten.mm.default(matrices[0], matrices[1]), matrices[2]))
    else:
        sizes = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
        product = _chain(matrices, _chain_order(sizes), 0, len(matrices) - 1)
    shape = ([first.shape[0]] if first.dim() == 2 else []) + ([last.shape[1]] if last.dim() == 2 else [])
    return aten.view.default(product, shape)


# tensordot: the contracted dims of each operand permuted together and folded, one mm
@register_decomposition(aten.tensordot.default)
def tensordot(self: Tensor, other: Tensor, dims_self: list[int], dims_other: list[int]) -> Tensor:
    t1, t2 = self, other
    contracted: Any = 1
    for a, b in zip(dims_self, dims_other):
        s1, s2 = self.shape[a], other.shape[b]
        if known_eq(s2, 1):  # a broadcast dim sums right away
            t1 = aten.sum.dim_IntList(t1, [a], True)
        elif known_eq(s1, 1):
            t2 = aten.sum.dim_IntList(t2, [b], True)
        else:
            contracted = contracted * s1
    mine = {canonical_dim(d, self.dim()) for d in dims_self}
    theirs = {canonical_dim(d, other.dim()) for d in dims_other}
    kept1 = [i for i in range(self.dim()) if i not in mine]
    kept2 = [i for i in range(other.dim()) if i not in theirs]
    sizes = [t1.shape[i] for i in kept1] + [t2.shape[i] for i in kept2]
    left = reshape_to(aten.permute.default(t1, kept1 + list(dims_self)),
                      [numel([t1.shape[i] for i in kept1]), contracted])
    right = reshape_to(aten.permute.default(t2, list(dims_other) + kept2),
                       [contracted, numel([t2.shape[i] for i in kept2])])
    return reshape_to(aten.mm.default(left, right), sizes)


# inner(a, b) = tensordot(a, b, [-1], [-1]) (a 0-d operand: a * b)
@register_decomposition(aten.inner.default)
def inner(self: Tensor, other: Tensor) -> Tensor:
    if self.dim() == 0 or other.dim() == 0:
        return aten.mul.Tensor(self, other)
    return aten.tensordot.default(self, other, [-1], [-1])


# kron(a, b): a's dims interleaved with ones, b's the other way, multiplied, folded
@register_decomposition(aten.kron.default)
def kron(self: Tensor, other: Tensor) -> Tensor:
    ndim = max(self.dim(), other.dim())
    a = [1] * (ndim - self.dim()) + list(self.shape)
    b = [1] * (ndim - other.dim()) + list(other.shape)
    a_shape = [size for s in a for size in (s, 1)]
    b_shape = [size for s in b for size in (1, s)]
    product = aten.mul.Tensor(reshape_to(self, a_shape), reshape_to(other, b_shape))
    return aten.view.default(product, [x * y for x, y in zip(a, b)])


# addr(s, u, v) = beta * s + alpha * outer(u, v) (s dropped when beta is 0)
@register_decomposition(aten.addr.default)
def addr(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    expanded = aten.expand.default(self, [vec1.shape[0], vec2.shape[0]])
    product = aten.mul.Tensor(aten.outer.default(vec1, vec2), alpha)
    if beta == 0:
        return product
    return aten.add.Tensor(aten.mul.Tensor(expanded, beta), product)


# pinv(A, atol=a, rtol=r) of floats = pinv(A, atol=full(a), rtol=full(r)), the tolerances as float64
@register_decomposition(aten.linalg_pinv.atol_rtol_float)
def linalg_pinv_float(self: Tensor, atol: float | None = None, rtol: float | None = None,
                      hermitian: bool = False) -> Tensor:
    tolerances = _float_tolerances(self, atol, rtol)
    return aten.linalg_pinv.atol_rtol_tensor(self, atol=tolerances[0], rtol=tolerances[1], hermitian=hermitian)


def _default_rtol(A: Tensor) -> float:
    real = {DType.complex64: DType.float32, DType.complex128: DType.float64}.get(A.dtype, A.dtype)
    eps = {DType.float64: 2.220446049250313e-16, DType.float32: 1.1920928955078125e-07}.get(real, 1.1920928955078125e-07)
    return eps * max(A.shape[-1], A.shape[-2])


def _float_tolerances(A: Tensor, atol: float | None, rtol: float | None) -> tuple[Tensor, Tensor]:
    """get_atol_rtol: atol 0 by default; rtol eps * max(m, n), or 0 given a positive atol."""
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else _default_rtol(A)
    atol = 0.0 if atol is None else atol
    return (aten.full.default([], atol, dtype=DType.float64), aten.full.default([], rtol, dtype=DType.float64))


# matrix_rank(A) = sum(S > max(atol, rtol * S_max)), S the singular values (|eigenvalues| if hermitian)
@register_decomposition(aten.linalg_matrix_rank.atol_rtol_tensor)
def linalg_matrix_rank(input: Tensor, atol: Tensor | None = None, rtol: Tensor | None = None,  # noqa: A002
                       hermitian: bool = False) -> Tensor:
    if rtol is None:
        rtol = aten.full.default([], _default_rtol(input), dtype=DType.float64)
        if atol is not None:  # a positive atol alone means rtol = 0
            rtol = aten.where.self(aten.gt.Scalar(atol, 0), aten.full.default([], 0, dtype=DType.float64), rtol)
    if atol is None:
        atol = aten.full.default([], 0, dtype=DType.float64)
    return _rank(input, atol, rtol, hermitian)


# matrix_rank of float tolerances: as of the tensor ones, each a 0-d float64 full
@register_decomposition(aten.linalg_matrix_rank.atol_rtol_float)
def linalg_matrix_rank_float(self: Tensor, atol: float | None = None, rtol: float | None = None,
                             hermitian: bool = False) -> Tensor:
    return _rank(self, *_float_tolerances(self, atol, rtol), hermitian)


def _rank(A: Tensor, atol: Tensor, rtol: Tensor, hermitian: bool) -> Tensor:
    if hermitian:
        values = aten.abs.default(aten.linalg_eigvalsh.default(A))
        largest = aten.amax.default(values, [-1], True)
    else:
        values = aten.linalg_svdvals.default(A)
        largest = aten.slice.Tensor(values, -1, 0, 1)
    cutoff = aten.maximum.default(aten.unsqueeze.default(atol, -1),
                                  aten.mul.Tensor(aten.unsqueeze.default(rtol, -1), largest))
    return aten.sum.dim_IntList(aten.gt.Tensor(values, cutoff), [-1], dtype=DType.int64)


# cross(a, b) = a[i+1] b[i+2] - a[i+2] b[i+1] over dim, the rolled indices from one arange
@register_decomposition(aten.linalg_cross.default)
def linalg_cross(self: Tensor, other: Tensor, dim: int = -1) -> Tensor:
    if list(self.shape) != list(other.shape):
        sizes = _broadcast_shape(list(self.shape), list(other.shape))
        self, other = aten.expand.default(self, sizes), aten.expand.default(other, sizes)
    dim = canonical_dim(dim, self.dim())
    index = aten.arange.start_step(0, 3, dtype=DType.int64)

    def rolled(shift: int) -> Tensor:
        return aten.remainder.Scalar(aten.add.Tensor(index, shift), 3)

    first = aten.mul.Tensor(aten.index_select.default(self, dim, rolled(1)),
                            aten.index_select.default(other, dim, rolled(2)))
    second = aten.mul.Tensor(aten.index_select.default(self, dim, rolled(2)),
                             aten.index_select.default(other, dim, rolled(1)))
    return aten.sub.Tensor(first, second)


# cross(a, b) = linalg_cross(a, b, dim), dim by default the first of size 3
@register_decomposition(aten.cross.default)
def cross(self: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        dim = next(d for d, size in enumerate(self.shape) if known_eq(size, 3))
    return aten.linalg_cross.default(self, other, dim=dim)


# logdet(A) = log|det A| where the sign is not -1, else NaN
@register_decomposition(aten.logdet.default)
def logdet(self: Tensor) -> Tensor:
    sign, logabsdet, _, _ = aten._linalg_slogdet.default(self)
    nan = aten.scalar_tensor.default(math.nan, dtype=logabsdet.dtype)
    return aten.where.self(aten.eq.Scalar(sign, -1), nan, logabsdet)


# matrix_power(A, n) = A·A·…·A by binary powering (A⁻¹ for n < 0; n = 0: the identity in a copy of A)
@register_decomposition(aten.linalg_matrix_power.default)
def linalg_matrix_power(self: Tensor, n: int) -> Tensor:
    if n == 0:
        eye = aten.eye.default(self.shape[-1], dtype=self.dtype)
        return aten.copy.default(aten.clone.default(self, memory_format="contiguous_format"), eye)
    if n == 1:
        return aten.clone.default(self, memory_format="contiguous_format")
    if n == -1:
        return aten.linalg_inv.default(self)
    a = aten.linalg_inv.default(self) if n < 0 else self
    n = abs(n)
    if n == 2:
        return aten.matmul.default(a, a)
    if n == 3:
        return aten.matmul.default(aten.matmul.default(a, a), a)
    square, result = None, None
    while n > 0:  # the bits of n from the least significant: square a once per bit
        bit, n = n % 2, n // 2
        square = a if square is None else aten.matmul.default(square, square)
        if bit:
            result = square if result is None else aten.matmul.default(result, square)
    return result


# matrix_power(A, n) = linalg_matrix_power(A, n)
@register_decomposition(aten.matrix_power.default)
def matrix_power(self: Tensor, n: int) -> Tensor:
    return aten.linalg_matrix_power.default(self, n)


# lu_factor(A) = lu_factor_ex(A)'s LU and pivots (torch also checks info through an
# effectful _linalg_check_errors, a token in its signature; texport's kernels raise)
@register_decomposition(aten.linalg_lu_factor.default)
def linalg_lu_factor(A: Tensor, pivot: bool = True) -> tuple[Tensor, Tensor]:
    LU, pivots, _ = aten.linalg_lu_factor_ex.default(A, pivot=pivot)  # noqa: N806
    return LU, pivots


# ldl_factor(A) = ldl_factor_ex(A)'s LD and pivots (info checked as lu_factor's)
@register_decomposition(aten.linalg_ldl_factor.default)
def linalg_ldl_factor(self: Tensor, hermitian: bool = False) -> tuple[Tensor, Tensor]:
    LD, pivots, _ = aten.linalg_ldl_factor_ex.default(self, hermitian=hermitian)  # noqa: N806
    return LD, pivots


# eigvals(A) = eig(A).eigenvalues
@register_decomposition(aten.linalg_eigvals.default)
def linalg_eigvals(self: Tensor) -> Tensor:
    return aten.linalg_eig.default(self)[0]


# matrix_exp(A) = linalg_matrix_exp(A)
@register_decomposition(aten.matrix_exp.default)
def matrix_exp(self: Tensor) -> Tensor:
    return aten.linalg_matrix_exp.default(self)
