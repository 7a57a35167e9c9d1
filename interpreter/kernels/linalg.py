"""Kernels: matrix products, einsum, attention, distances, FFTs and losses.

Products go through np.matmul (BLAS for float32/float64). numpy has no BLAS
path for float16, so half operands are multiplied (and summed) in float32 and
rounded once at the end; torch's CPU kernels also accumulate half in float.
Losses take torch's Reduction enum: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from .. import rng
from . import kernel
from .common import torch_result_dtype

_HALF = np.dtype(np.float16)
_NONE, _MEAN, _SUM = 0, 1, 2

# caffe2::TypeMeta names, which torch prints in its dtype-mismatch messages.
_CPP_TYPE_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
    "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


# c10::ScalarType names (dot's message uses these).
_SCALAR_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
    "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


def _acc(x: np.ndarray) -> np.ndarray:
    """x in the dtype products and sums are computed in (half -> float32)."""
    return x.astype(np.float32) if x.dtype == _HALF else x


def _out(value: object, dtype: np.dtype) -> np.ndarray:
    """`value` as an ndarray of `dtype`; a 0-d result stays a 0-d ndarray."""
    return np.asarray(value).astype(dtype, copy=False)


def _same_dtype(a: np.ndarray, b: np.ndarray, names: str = "m1 and m2") -> None:
    if a.dtype != b.dtype:
        first, second = (_CPP_TYPE_NAMES.get(x.dtype.name, x.dtype.name) for x in (a, b))
        raise RuntimeError(f"expected {names} to have the same dtype, but got: {first} != {second}")


def _expect_ndim(x: np.ndarray, ndim: int, message: str) -> None:
    if x.ndim != ndim:
        raise RuntimeError(f"{message}, but got a {x.ndim}-D tensor")


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b (torch.matmul broadcasting) as a fresh array in the accumulation dtype."""
    a, b = _acc(a), _acc(b)
    if a.ndim > 2 and b.ndim == 2:
        # One GEMM over the folded batch instead of numpy's loop of one GEMM per matrix.
        folded = np.matmul(a.reshape(math.prod(a.shape[:-1]), a.shape[-1]), b)
        return folded.reshape(*a.shape[:-1], b.shape[-1])
    return np.asarray(np.matmul(a, b))


# ---------------------------------------------------------------------------- matrix products


def _check_mm(a: np.ndarray, b: np.ndarray) -> None:
    _expect_ndim(a, 2, "self must be a matrix")
    _expect_ndim(b, 2, "mat2 must be a matrix")
    _same_dtype(a, b)


def _check_bmm(a: np.ndarray, b: np.ndarray) -> None:
    _expect_ndim(a, 3, "batch1 must be a 3D tensor")
    _expect_ndim(b, 3, "batch2 must be a 3D tensor")
    _same_dtype(a, b, "batch1 and batch2")


def _check_mv(a: np.ndarray, b: np.ndarray) -> None:
    _expect_ndim(a, 2, "vector + matrix @ vector expected: mat must be a matrix")
    _expect_ndim(b, 1, "vector + matrix @ vector expected: vec must be a vector")
    _same_dtype(a, b, "mat and vec")


def _check_dot(a: np.ndarray, b: np.ndarray) -> None:
    _expect_ndim(a, 1, "1D tensors expected: self")
    _expect_ndim(b, 1, "1D tensors expected: tensor")
    if a.dtype != b.dtype:
        first, second = (_SCALAR_TYPE_NAMES.get(x.dtype.name, x.dtype.name) for x in (a, b))
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {first} and {second}"
        )


@kernel("mm")
def mm(self: np.ndarray, mat2: np.ndarray) -> np.ndarray:
    _check_mm(self, mat2)
    return _out(_product(self, mat2), self.dtype)


@kernel("bmm")
def bmm(self: np.ndarray, mat2: np.ndarray) -> np.ndarray:
    _check_bmm(self, mat2)
    return _out(_product(self, mat2), self.dtype)


@kernel("mv")
def mv(self: np.ndarray, vec: np.ndarray) -> np.ndarray:
    _check_mv(self, vec)
    return _out(_product(self, vec), self.dtype)


@kernel("dot")
def dot(self: np.ndarray, tensor: np.ndarray) -> np.ndarray:
    _check_dot(self, tensor)
    return _out(_product(self, tensor), self.dtype)


@kernel("outer")
def outer(self: np.ndarray, vec2: np.ndarray) -> np.ndarray:
    """self[:, None] * vec2: an elementwise product, so dtypes promote."""
    dtype = torch_result_dtype(self, vec2)
    return np.multiply.outer(self.astype(dtype, copy=False), vec2.astype(dtype, copy=False))


def _add_product(
    check: Callable[[np.ndarray, np.ndarray], None], name: str
) -> Callable[..., np.ndarray]:
    """addmm & co: beta * self + alpha * (a @ b). beta == 0 ignores self, so NaN/inf in
    self do not propagate, as in torch."""

    def add_product(self: np.ndarray, a: np.ndarray, b: np.ndarray, beta: complex = 1,
                    alpha: complex = 1) -> np.ndarray:
        check(a, b)
        _same_dtype(self, a, f"self and {name}")
        product = _product(a, b)  # fresh: scaled and summed in place
        if alpha != 1:
            product *= alpha
        if beta != 0:
            product += _acc(self) if beta == 1 else beta * _acc(self)
        return _out(product, self.dtype)

    return add_product


addmm = kernel("addmm")(_add_product(_check_mm, "mat1"))
baddbmm = kernel("baddbmm")(_add_product(_check_bmm, "batch1"))
addmv = kernel("addmv")(_add_product(_check_mv, "mat"))


# ---------------------------------------------------------------------------- matmul, linear, einsum


@kernel("matmul")
def matmul(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    """torch.matmul: 1-D @ 1-D is dot; a 1-D operand gets a dim prepended (left) or appended
    (right) that is dropped again; batch dims broadcast. np.matmul has the same rules."""
    if self.ndim == 0 or other.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{self.ndim}D and {other.ndim}D")
    if self.ndim == 1 and other.ndim == 1:
        return dot(self, other)
    _same_dtype(self, other)
    return _out(_product(self, other), self.dtype)


@kernel("linear")
def linear(input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """input @ weight.T + bias; a 1-D weight (whose .T is itself) drops the out dim."""
    _same_dtype(input, weight)
    out = _product(input, weight.T)
    if bias is not None:
        _same_dtype(input, bias, "self and bias")
        if np.broadcast_shapes(out.shape, bias.shape) == out.shape:
            out += _acc(bias)  # the usual [out] bias: no second output-sized array
        else:
            out = out + _acc(bias)
    return _out(out, input.dtype)


@kernel("einsum")
def einsum(equation: str, tensors: Sequence[np.ndarray], path: list[int] | None = None) -> np.ndarray:
    """np.einsum with its own contraction order: `path` is only torch's order hint, and
    the order does not change the value beyond rounding."""
    for t in tensors[1:]:
        _same_dtype(tensors[0], t, "all einsum operands")
    operands = [_acc(t) for t in tensors]
    out = np.asarray(np.einsum(equation.replace(" ", ""), *operands, optimize=True))
    if any(np.may_share_memory(out, t) for t in operands):
        out = out.copy()  # "ij->ji" is a numpy view; the op's result never aliases
    return _out(out, tensors[0].dtype)


# ---------------------------------------------------------------------------- attention


def _attention_bias(
    attn_mask: np.ndarray | None, is_causal: bool, length: int, source: int, dtype: np.dtype
) -> np.ndarray | None:
    """The additive bias: -inf where a bool mask is False / above the causal diagonal."""
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
        attn_mask = np.tril(np.ones((length, source), dtype=bool))
    if attn_mask is None:
        return None
    if attn_mask.dtype == bool:
        return np.where(attn_mask, dtype.type(0), dtype.type(-np.inf))
    return attn_mask.astype(dtype, copy=False)


@np.errstate(invalid="ignore")
def _safe_softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last dim; a row that is all -inf gives 0s, not NaN (torch's
    _safe_softmax, which its math attention uses)."""
    if x.shape[-1] == 0:
        return x.copy()
    top = x.max(axis=-1, keepdims=True)
    masked = np.isneginf(top)
    e = np.exp(x - np.where(masked, 0, top))
    e /= e.sum(axis=-1, keepdims=True)
    return np.where(masked, 0, e).astype(x.dtype, copy=False)


def _dropout(x: np.ndarray, p: float) -> np.ndarray:
    """Zero each element with probability p and scale the kept ones by 1 / (1 - p)."""
    if p >= 1:
        return np.zeros_like(x)
    keep = rng.generator().random(x.shape, dtype=np.float32) >= p
    return x * keep * x.dtype.type(1 / (1 - p))


@kernel("scaled_dot_product_attention")
def scaled_dot_product_attention(
    query: np.ndarray, key: np.ndarray, value: np.ndarray, attn_mask: np.ndarray | None = None,
    dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
    enable_gqa: bool = False,
) -> np.ndarray:
    """softmax(q k^T * scale + bias) v, torch's math backend (half computed in float32)."""
    q, k, v = _acc(query), _acc(key), _acc(value)
    if enable_gqa:  # grouped-query: each key/value head serves query.size(-3) / its heads
        k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = np.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    embed = q.shape[-1]
    factor = scale if scale is not None else (1 / math.sqrt(embed) if embed else math.inf)
    scores = np.matmul(q, np.swapaxes(k, -1, -2))
    scores *= q.dtype.type(factor)
    bias = _attention_bias(attn_mask, is_causal, q.shape[-2], k.shape[-2], scores.dtype)
    if bias is not None:
        scores = scores + bias
    weights = _safe_softmax(scores)
    if dropout_p > 0:
        weights = _dropout(weights, dropout_p)
    return _out(np.matmul(weights, v), query.dtype)


# ---------------------------------------------------------------------------- distances

# Elements of one broadcast difference block in the direct distance kernels.
_BLOCK = 1 << 22


def _pnorm(d: np.ndarray, p: float, axis: int = -1) -> np.ndarray:
    """The p-norm over `axis` as torch.norm: p=0 counts non-zeros, +-inf max / min |d|."""
    if p == 0:
        return np.count_nonzero(d, axis=axis).astype(d.dtype)
    z = np.abs(d)
    if p == 1:
        return z.sum(axis=axis)
    if p == 2:
        return np.sqrt((z * z).sum(axis=axis))
    if p == math.inf:
        return z.max(axis=axis, initial=0)
    if p == -math.inf:
        return z.min(axis=axis, initial=math.inf)
    return (z**p).sum(axis=axis) ** (1 / p)


def _direct_cdist(a: np.ndarray, b: np.ndarray, p: float) -> np.ndarray:
    """||a_i - b_j||_p by broadcasting, in blocks of rows of a to bound the memory."""
    batch = math.prod(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    rows = max(1, _BLOCK // max(1, batch * b.shape[-2] * b.shape[-1]))
    blocks = [
        _pnorm(a[..., i:i + rows, None, :] - b[..., None, :, :], p)
        for i in range(0, max(a.shape[-2], 1), rows)
    ]
    return np.concatenate(blocks, axis=-2) if len(blocks) > 1 else blocks[0]


def _euclidean_cdist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's _euclidean_dist: sqrt(|a|^2 - 2 a.b + |b|^2), one GEMM. Cancellation can
    make the square slightly negative: it is clamped at 0 before the sqrt."""
    square = _product(a, np.swapaxes(b, -1, -2))
    square *= -2
    square += (a * a).sum(axis=-1)[..., :, None]
    square += (b * b).sum(axis=-1)[..., None, :]
    np.maximum(square, 0, out=square)
    return np.sqrt(square, out=square)


@kernel("cdist", "_cdist_forward")
def cdist(x1: np.ndarray, x2: np.ndarray, p: float = 2.0, compute_mode: int | None = None) -> np.ndarray:
    """torch's choice: p=2 uses the GEMM formula when compute_mode is 1
    (use_mm_for_euclid_dist), or None/0 and either side has more than 25 rows; otherwise
    the exact direct differences (so cdist(x, x) has an exact-zero diagonal)."""
    a, b = _acc(x1), _acc(x2)
    mode = compute_mode or 0
    big = a.shape[-2] > 25 or b.shape[-2] > 25
    if p == 2 and (mode == 1 or (mode == 0 and big)):
        return _out(_euclidean_cdist(a, b), x1.dtype)
    return _out(_direct_cdist(a, b, p), x1.dtype)


@kernel("_pdist_forward")
def _pdist_forward(self: np.ndarray, p: float = 2.0) -> np.ndarray:
    """Distances of row pairs i < j, in torch's order (0,1), (0,2), ..., (1,2), ..."""
    x = _acc(self)
    first, second = np.triu_indices(x.shape[0], k=1)
    step = max(1, _BLOCK // max(1, x.shape[1]))
    out = np.empty(first.size, dtype=x.dtype)
    for start in range(0, first.size, step):
        pairs = slice(start, start + step)
        out[pairs] = _pnorm(x[first[pairs]] - x[second[pairs]], p)
    return _out(out, self.dtype)


@kernel("cosine_similarity")
def cosine_similarity(x1: np.ndarray, x2: np.ndarray, dim: int = 1, eps: float = 1e-08) -> np.ndarray:
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) over dim: torch normalises each
    side first, which keeps the result within [-1, 1]."""
    dtype = torch_result_dtype(x1, x2)
    if dtype.kind != "f":
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{dtype.name}")
    a, b = np.broadcast_arrays(_acc(x1.astype(dtype, copy=False)), _acc(x2.astype(dtype, copy=False)))
    norm_a = np.maximum(np.sqrt((a * a).sum(axis=dim, keepdims=True)), eps)
    norm_b = np.maximum(np.sqrt((b * b).sum(axis=dim, keepdims=True)), eps)
    return _out(((a / norm_a) * (b / norm_b)).sum(axis=dim), dtype)


@kernel("pairwise_distance")
def pairwise_distance(x1: np.ndarray, x2: np.ndarray, p: float = 2.0, eps: float = 1e-06,
                      keepdim: bool = False) -> np.ndarray:
    """torch.norm(x1 - x2 + eps, p, dim=-1, keepdim): integer inputs become float32 at + eps."""
    dtype = torch_result_dtype(x1, x2, eps)
    diff = _acc(np.subtract(x1, x2).astype(dtype, copy=False)) + eps
    if diff.ndim == 0:  # norm over the one "dim" of a 0-d tensor is |x|, still 0-d
        return _out(_pnorm(diff.reshape(1), p), dtype)
    norm = _pnorm(diff, p)
    return _out(np.expand_dims(norm, -1) if keepdim else norm, dtype)


# ---------------------------------------------------------------------------- FFT

# torch's fft_norm_mode (0 none, 1 by 1/sqrt(n), 2 by 1/n) as numpy's norm names: for a
# forward transform "backward" applies no scale, for an inverse one "forward" applies none.
_FORWARD_NORM = {0: "backward", 1: "ortho", 2: "forward"}
_INVERSE_NORM = {0: "forward", 1: "ortho", 2: "backward"}
_TO_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_TO_REAL = {c: r for r, c in _TO_COMPLEX.items()}


@kernel("_fft_r2c")
def _fft_r2c(self: np.ndarray, dim: Sequence[int], normalization: int, onesided: bool) -> np.ndarray:
    """Real -> complex FFT over `dim`; one-sided keeps n // 2 + 1 bins of the last dim."""
    transform = np.fft.rfftn if onesided else np.fft.fftn
    out = transform(self, axes=list(dim), norm=_FORWARD_NORM[normalization])
    return _out(out, _TO_COMPLEX[self.dtype])


@kernel("_fft_c2r")
def _fft_c2r(self: np.ndarray, dim: Sequence[int], normalization: int, last_dim_size: int) -> np.ndarray:
    """Inverse of a one-sided FFT: the last dim of `dim` grows to last_dim_size."""
    sizes = [self.shape[d] for d in dim[:-1]] + [last_dim_size]
    out = np.fft.irfftn(self, s=sizes, axes=list(dim), norm=_INVERSE_NORM[normalization])
    return _out(out, _TO_REAL[self.dtype])


# ---------------------------------------------------------------------------- losses


@np.errstate(invalid="ignore")
def _reduce(loss: np.ndarray, reduction: int, dtype: np.dtype) -> np.ndarray:
    """torch's apply_loss_reduction (the mean of nothing is NaN)."""
    if reduction == _MEAN:
        loss = loss.mean() if loss.size else np.nan
    elif reduction == _SUM:
        loss = loss.sum()
    return _out(loss, dtype)


def _difference(self: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.dtype]:
    """self - target in the accumulation dtype, and the promoted result dtype."""
    dtype = torch_result_dtype(self, target)
    return _acc(np.subtract(self, target).astype(dtype, copy=False)), dtype


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
    """0.5 z^2 below delta, delta (z - delta / 2) above (z = |self - target|)."""
    diff, dtype = _difference(self, target)
    z = np.abs(diff)
    loss = np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    return _reduce(loss, reduction, dtype)


@kernel("binary_cross_entropy")
@np.errstate(divide="ignore")
def binary_cross_entropy(self: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None,
                         reduction: int = _MEAN) -> np.ndarray:
    """-w (y log x + (1 - y) log(1 - x)), each log clamped at -100 as torch (so x = 0 or 1
    gives a finite loss)."""
    x, y = _acc(self), _acc(target)
    if not np.all((x >= 0) & (x <= 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not np.all((y >= 0) & (y <= 1)):
        raise RuntimeError("all elements of target should be between 0 and 1")
    loss = (y - 1) * np.maximum(np.log1p(-x), -100) - y * np.maximum(np.log(x), -100)
    if weight is not None:
        loss = loss * _acc(weight)
    return _reduce(loss, reduction, self.dtype)


@kernel("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(
    self: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None,
    pos_weight: np.ndarray | None = None, reduction: int = _MEAN,
) -> np.ndarray:
    """(1 - y) x - log_sigmoid(x) * (1 + (pos_weight - 1) y), times weight. torch builds
    the loss in place on (1 - target), so a floating target's dtype is the result's."""
    x, y = _acc(self), _acc(target)
    dtype = target.dtype if target.dtype.kind == "f" else torch_result_dtype(self, target)
    log_sigmoid = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((_acc(pos_weight) - 1) * y + 1)
    loss = (1 - y) * x - log_sigmoid
    if weight is not None:
        loss = loss * _acc(weight)
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
    weights = np.ones(classes, logp.dtype) if weight is None else _acc(weight)
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
    terms, chosen = _nll_terms(_acc(self), target, weight, ignore_index)
    if reduction == _NONE and self.ndim != 1:
        return _out(terms, self.dtype), _out(0, self.dtype)
    total = chosen.sum()
    output = _weighted_reduce(terms, total, _SUM if reduction == _NONE else reduction)
    return _out(output, self.dtype), _out(total, self.dtype)


@kernel("nll_loss")
def nll_loss(self: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None,
             reduction: int = _MEAN, ignore_index: int = -100) -> np.ndarray:
    """Any rank with the class dim 1 (what F.nll_loss accepts through nll_loss_nd)."""
    terms, chosen = _nll_terms(_acc(self), target, weight, ignore_index)
    return _out(_weighted_reduce(terms, chosen.sum(), reduction), self.dtype)


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    top = x.max(axis=axis, keepdims=True)
    shifted = x - np.where(np.isfinite(top), top, 0)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _per_class(weight: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    """A [C] weight viewed to broadcast along the class dim."""
    return _acc(weight).reshape([-1 if i == axis else 1 for i in range(ndim)])


@np.errstate(invalid="ignore")
def _soft_target_cross_entropy(logp: np.ndarray, target: np.ndarray, weight: np.ndarray | None,
                               reduction: int, smoothing: float) -> np.ndarray:
    """-sum(w_c p_c log q_c) with class probabilities p; the mean divides by the number of
    samples (numel / C), not by a weight total."""
    axis = _class_axis(logp)
    classes = logp.shape[axis]
    probs = _acc(target)
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
    logp = _log_softmax(_acc(self), _class_axis(self))
    if self.shape == target.shape:
        if target.dtype.kind != "f":
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target.dtype.name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        loss = _soft_target_cross_entropy(logp, target, weight, reduction, label_smoothing)
        return _out(loss, self.dtype)
    terms, chosen = _nll_terms(logp, target, weight, ignore_index)
    total_weight = chosen.sum()
    loss = _weighted_reduce(terms, total_weight, reduction)
    if label_smoothing > 0:
        classes = logp.shape[_class_axis(logp)]
        smooth = _smoothing_term(logp, target, weight, ignore_index, reduction, total_weight)
        loss = (1 - label_smoothing) * loss + smooth * (label_smoothing / classes)
    return _out(loss, self.dtype)


def _smoothing_term(logp: np.ndarray, target: np.ndarray, weight: np.ndarray | None,
                    ignore_index: int, reduction: int, total_weight: np.ndarray) -> np.ndarray:
    """-sum_c w_c log q_c per target (0 where ignored), reduced like the NLL part: the mean
    divides by the same total weight of the kept targets."""
    axis = _class_axis(logp)
    terms = logp if weight is None else logp * _per_class(weight, logp.ndim, axis)
    smooth = np.where(target == ignore_index, 0, -terms.sum(axis=axis))
    return _weighted_reduce(smooth, total_weight, reduction)
