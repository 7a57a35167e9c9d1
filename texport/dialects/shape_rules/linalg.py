"""Shape rules: matrix products, einsum, attention, distances and FFTs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import symbolic as _symbolic
from ..dtypes import DType, result_type
from ..meta import TensorMeta
from ..symbolic import Dim, dim_str
from . import shape_rule, stride_rule
from .common import (
    broadcast_shapes,
    normalize_dim,
    product,
    scalar_type_name,
    shape_text,
)
from .guards import ShapeGuardError, check, sym_eq
from .strides import Strides, known_eq, preserved_strides, strides_of
from .views import exact_div, expand_shape, meta


def _same_dtype(a: TensorMeta, b: TensorMeta, names: str = "mat1 and mat2") -> DType:
    check(a.dtype is b.dtype,
          f"expected {names} to have the same dtype, but got: {a.dtype} != {b.dtype}")
    return a.dtype


def _check_inner(rows: Dim, inner: Dim, inner2: Dim, cols: Dim) -> None:
    if not sym_eq(inner, inner2):
        raise ShapeGuardError(
            f"mat1 and mat2 shapes cannot be multiplied ({dim_str(rows)}x{dim_str(inner)} and "
            f"{dim_str(inner2)}x{dim_str(cols)})"
        )


def _with_input(self: TensorMeta, result: TensorMeta) -> TensorMeta:
    """addmm & co: `self` must expand to the product's shape."""
    expand_shape(self.shape, result.shape)
    return meta(result.shape, _same_dtype(self, result, "self and the product"))


# ---------------------------------------------------------------------------- matrix products


@shape_rule("mm")
def _mm(self: TensorMeta, mat2: TensorMeta) -> TensorMeta:
    check(self.ndim == 2, f"self must be a matrix, but got a {self.ndim}-D tensor")
    check(mat2.ndim == 2, f"mat2 must be a matrix, but got a {mat2.ndim}-D tensor")
    dtype = _same_dtype(self, mat2)
    _check_inner(*self.shape, *mat2.shape)
    return meta([self.shape[0], mat2.shape[1]], dtype)


@shape_rule("bmm")
def _bmm(self: TensorMeta, mat2: TensorMeta) -> TensorMeta:
    check(self.ndim == 3, "batch1 must be a 3D tensor")
    check(mat2.ndim == 3, "batch2 must be a 3D tensor")
    dtype = _same_dtype(self, mat2)
    batch, rows, inner = self.shape
    if not (sym_eq(mat2.shape[0], batch) and sym_eq(mat2.shape[1], inner)):
        raise ShapeGuardError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"{shape_text([batch, inner])} but got: {shape_text(mat2.shape[:2])}."
        )
    return meta([batch, rows, mat2.shape[2]], dtype)


@shape_rule("mv")
def _mv(self: TensorMeta, vec: TensorMeta) -> TensorMeta:
    check(self.ndim == 2 and vec.ndim == 1,
          f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
    dtype = _same_dtype(self, vec, "self and vec")
    check(sym_eq(self.shape[1], vec.shape[0]),
          f"size mismatch, got input ({dim_str(self.shape[0])}), mat "
          f"({dim_str(self.shape[0])}x{dim_str(self.shape[1])}), vec ({dim_str(vec.shape[0])})")
    return meta([self.shape[0]], dtype)


@shape_rule("dot")
def _dot(self: TensorMeta, tensor: TensorMeta) -> TensorMeta:
    check(self.ndim == 1 and tensor.ndim == 1,
          f"1D tensors expected, but got {self.ndim}D and {tensor.ndim}D tensors")
    check(self.dtype is tensor.dtype, "dot : expected both vectors to have same dtype, but "
          f"found {scalar_type_name(self.dtype)} and {scalar_type_name(tensor.dtype)}")
    n, m = self.shape[0], tensor.shape[0]
    check(sym_eq(n, m), f"inconsistent tensor size, expected tensor [{dim_str(n)}] and src "
          f"[{dim_str(m)}] to have the same number of elements, but got {dim_str(n)} and "
          f"{dim_str(m)} elements respectively")
    return meta([], self.dtype)


@shape_rule("outer")
def _outer(self: TensorMeta, vec2: TensorMeta) -> TensorMeta:
    """outer is self[:, None] * vec2: dtypes promote."""
    check(self.ndim == 1, f"outer: Expected 1-D argument self, but got {self.ndim}-D")
    check(vec2.ndim == 1, f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return meta([self.shape[0], vec2.shape[0]], result_type(self, vec2))


@shape_rule("addmm")
def _addmm(self: TensorMeta, mat1: TensorMeta, mat2: TensorMeta, *_: Any) -> TensorMeta:
    return _with_input(self, _mm(mat1, mat2))


@shape_rule("baddbmm")
def _baddbmm(self: TensorMeta, batch1: TensorMeta, batch2: TensorMeta, *_: Any) -> TensorMeta:
    return _with_input(self, _bmm(batch1, batch2))


@shape_rule("addmv")
def _addmv(self: TensorMeta, mat: TensorMeta, vec: TensorMeta, *_: Any) -> TensorMeta:
    return _with_input(self, _mv(mat, vec))


# ---------------------------------------------------------------------------- matmul, linear


@shape_rule("matmul")
def _matmul(self: TensorMeta, other: TensorMeta) -> TensorMeta:
    """torch.matmul: 1-D operands get a dim prepended (left) / appended (right) that is
    dropped again; batch dims broadcast."""
    check(self.ndim >= 1 and other.ndim >= 1, "both arguments to matmul need to be at least "
          f"1D, but they are {self.ndim}D and {other.ndim}D")
    if self.ndim == 1 and other.ndim == 1:
        return _dot(self, other)
    if self.ndim == 2 and other.ndim == 1:
        return _mv(self, other)
    dtype = _same_dtype(self, other)
    rows, inner = self.shape[-2:] if self.ndim >= 2 else (1, self.shape[0])
    inner2, cols = other.shape[-2:] if other.ndim >= 2 else (other.shape[0], 1)
    _check_inner(rows, inner, inner2, cols)
    batch = broadcast_shapes(self.shape[:-2], other.shape[:-2])
    left = [rows] if self.ndim >= 2 else []
    right = [cols] if other.ndim >= 2 else []
    return meta([*batch, *left, *right], dtype)


@shape_rule("linear")
def _linear(input: TensorMeta, weight: TensorMeta, bias: TensorMeta | None = None) -> TensorMeta:
    """input [*, in] @ weight[out, in]^T (+ bias) -> [*, out]; a 1-D weight drops `out`."""
    check(input.ndim >= 1 and weight.ndim in (1, 2), "both arguments to linear need to be at "
          f"least 1D, but they are {input.ndim}D and {weight.ndim}D")
    dtype = _same_dtype(input, weight, "input and weight")
    rows = product(input.shape[:-1])
    out = [weight.shape[0]] if weight.ndim == 2 else []
    _check_inner(rows, input.shape[-1], weight.shape[-1], out[0] if out else 1)
    result = meta([*input.shape[:-1], *out], dtype)
    if bias is None:
        return result
    _same_dtype(input, bias, "input and bias")
    expand_shape(bias.shape, result.shape)
    return result


# ---------------------------------------------------------------------------- einsum


@shape_rule("bilinear")
def _bilinear(input1: TensorMeta, input2: TensorMeta, weight: TensorMeta,
              bias: TensorMeta | None = None) -> TensorMeta:
    """x1ᵀ W[o] x2 for each output o: [*batch, in1], [*batch, in2] -> [*batch, out]."""
    check(input1.ndim == input2.ndim,
          f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for a, b in zip(input1.shape[:-1], input2.shape[:-1], strict=True):
        check(sym_eq(a, b), f"bilinear(): input batch dimensions do not match: got {dim_str(a)} and {dim_str(b)}")
    check(weight.ndim == 3, f"bilinear(): expected a 3-D weight [out, in1, in2], got {weight.ndim}-D")
    check(sym_eq(input1.shape[-1], weight.shape[1]), "bilinear(): input1 size does not match weight size: "
          f"got {dim_str(input1.shape[-1])} but expected {dim_str(weight.shape[1])}")
    check(sym_eq(input2.shape[-1], weight.shape[2]), "bilinear(): input2 size does not match weight size: "
          f"got {dim_str(input2.shape[-1])} but expected {dim_str(weight.shape[2])}")
    if bias is not None:
        check(sym_eq(bias.shape[0], weight.shape[0]), "bilinear(): bias size does not match weight size: "
              f"got {dim_str(bias.shape[0])} but expected {dim_str(weight.shape[0])}")
    return meta([*input1.shape[:-1], weight.shape[0]], _same_dtype(input1, weight, "input1 and weight"))


def _trilinear_expanded(t: TensorMeta, expand: Sequence[int]) -> list[Dim]:
    shape = list(t.shape)
    for d in sorted(expand):
        shape.insert(d, 1)
    return shape


@shape_rule("_trilinear")
def _trilinear(i1: TensorMeta, i2: TensorMeta, i3: TensorMeta, expand1: Sequence[int], expand2: Sequence[int],
               expand3: Sequence[int], sumdim: Sequence[int], unroll_dim: int = 1) -> TensorMeta:
    """Each input with size-1 dims inserted at its ``expand`` positions; the
    product of the three, broadcast, summed over ``sumdim``."""
    shapes = [_trilinear_expanded(t, e) for t, e in ((i1, expand1), (i2, expand2), (i3, expand3))]
    check(len(shapes[0]) == len(shapes[1]) == len(shapes[2]),
          f"_trilinear: the expanded inputs must have one rank, got {[len(s) for s in shapes]}")
    full = broadcast_shapes(*shapes)
    summed = {normalize_dim(d, len(full)) for d in sumdim}
    return meta([s for i, s in enumerate(full) if i not in summed], i1.dtype)


def _einsum_terms(equation: str, count: int) -> tuple[list[str], str | None]:
    """Split "ij,jk->ik" into input terms and the output term (None: implicit)."""
    text = equation.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    check(len(terms) >= count, "einsum(): more operands were provided than specified in the "
          "equation")
    check(len(terms) <= count, "einsum(): fewer operands were provided than specified in the "
          "equation")
    return terms, (rhs if arrow else None)


def _einsum_labels(term: str, ndim: int, index: int) -> list[str]:
    """One label per dim of the operand; '.' marks the dims the ellipsis covers."""
    has_ellipsis = "..." in term
    letters = [c for c in term.replace("...", "") if c.isalpha()]
    check(len(letters) + 3 * has_ellipsis == len(term),
          f"einsum(): invalid subscript given in the equation term {term!r}")
    if not has_ellipsis:
        check(len(letters) == ndim, "einsum(): the number of subscripts in the equation "
              f"({len(letters)}) does not match the number of dimensions ({ndim}) for operand "
              f"{index} and no ellipsis was given")
        return letters
    spread = ndim - len(letters)
    check(spread >= 0, "einsum(): the number of subscripts in the equation "
          f"({len(letters)}) is more than the number of dimensions ({ndim}) for operand {index}")
    head, _, _ = term.partition("...")
    at = len([c for c in head if c.isalpha()])
    return letters[:at] + ["."] * spread + letters[at:]


def _einsum_sizes(
    terms: Sequence[str], operands: Sequence[TensorMeta]
) -> tuple[dict[str, Dim], tuple[Dim, ...]]:
    """Size of each letter (size-1 dims broadcast) and the broadcast ellipsis shape."""
    sizes: dict[str, Dim] = {}
    ellipses: list[Sequence[Dim]] = []
    for i, (term, t) in enumerate(zip(terms, operands)):
        labels = _einsum_labels(term, t.ndim, i)
        ellipses.append([s for s, lab in zip(t.shape, labels) if lab == "."])
        for label, size in zip(labels, t.shape):
            if label == ".":
                continue
            seen = sizes.get(label, 1)
            if sym_eq(size, 1):
                sizes.setdefault(label, size)
            elif sym_eq(seen, 1) or sym_eq(seen, size):
                sizes[label] = size
            else:
                raise ShapeGuardError(
                    f"einsum(): subscript {label} has size {dim_str(size)} for operand {i} which "
                    f"does not broadcast with previously seen size {dim_str(seen)}"
                )
    return sizes, broadcast_shapes(*ellipses)


@shape_rule("einsum")
def _einsum(equation: str, tensors: Sequence[TensorMeta], path: Any = None) -> TensorMeta:
    terms, output = _einsum_terms(equation, len(tensors))
    for t in tensors[1:]:
        _same_dtype(tensors[0], t, "all einsum operands")
    sizes, ellipsis = _einsum_sizes(terms, tensors)
    if output is None:
        # Implicit output: the broadcast ellipsis, then the letters used once, sorted.
        counts = "".join(terms)
        output = "..." + "".join(sorted(c for c in sizes if counts.count(c) == 1))
    letters = [c for c in output.replace("...", "") if c.isalpha()]
    for c in letters:
        check(c in sizes, f"einsum(): output subscript {c} does not appear in the equation for "
              "any input operand")
        check(letters.count(c) == 1, f"einsum(): output subscript {c} appears more than once in "
              "the output")
    head, dots, tail = output.partition("...")
    shape = [sizes[c] for c in head]
    if dots:
        shape += [*ellipsis, *(sizes[c] for c in tail)]
    return meta(shape, tensors[0].dtype)


# ---------------------------------------------------------------------------- attention


@shape_rule("scaled_dot_product_attention")
def _sdpa(
    query: TensorMeta, key: TensorMeta, value: TensorMeta, attn_mask: TensorMeta | None = None,
    dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
    enable_gqa: bool = False,
) -> TensorMeta:
    """softmax(q k^T) v: [*, L, E] x [*, S, E] x [*, S, Ev] -> [*, L, Ev]."""
    same = query.dtype is key.dtype is value.dtype
    check(same, "Expected query, key, and value to have the same dtype, but got query.dtype: "
          f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead.")
    check(min(query.ndim, key.ndim, value.ndim) >= 2,
          "scaled_dot_product_attention: query, key and value must be at least 2-D")
    check(sym_eq(query.shape[-1], key.shape[-1]), "scaled_dot_product_attention: query and key "
          f"must have the same embedding size, got {dim_str(query.shape[-1])} and "
          f"{dim_str(key.shape[-1])}")
    check(sym_eq(key.shape[-2], value.shape[-2]), "scaled_dot_product_attention: key and value "
          f"must have the same sequence length, got {dim_str(key.shape[-2])} and "
          f"{dim_str(value.shape[-2])}")
    # With grouped-query attention key/value have fewer heads, repeated up to query's.
    batch = (query.shape[:-2] if enable_gqa
             else broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2]))
    if attn_mask is not None:
        check(not is_causal, "_scaled_dot_product_attention: Explicit attn_mask should not be set "
              "when is_causal=True")
        # The mask is added to the [*, L, S] scores.
        expand_shape(attn_mask.shape, [*batch, query.shape[-2], key.shape[-2]])
    return meta([*batch, query.shape[-2], value.shape[-1]], query.dtype)


@stride_rule("scaled_dot_product_attention")
def _sdpa_strides(out: TensorMeta, query: TensorMeta, key: TensorMeta, value: TensorMeta,
                  attn_mask: TensorMeta | None = None, dropout_p: float = 0.0, is_causal: bool = False,
                  scale: float | None = None, enable_gqa: bool = False) -> Strides | None:
    """torch's CPU flash attention writes into ``empty_like(query)``: the result
    is laid out as the query is. The math fallback's result is row-major."""
    return preserved_strides(query) if _flash_on_cpu(query, key, value, dropout_p, enable_gqa) else None


def _flash_on_cpu(query: TensorMeta, key: TensorMeta, value: TensorMeta, dropout_p: float,
                  enable_gqa: bool) -> bool:
    """Whether torch's CPU dispatch picks flash attention (sdp_utils_cpp's
    use_flash_attention_cpp): no dropout, 4-D inputs with the same batch and
    head size, the same heads (with grouped-query attention, key and value
    heads that divide the query's), non-empty sequences, unit last strides."""
    tensors = (query, key, value)
    if dropout_p > 0 or any(t.ndim != 4 for t in tensors):
        return False
    same = all(known_eq(t.shape[i], query.shape[i]) for t in tensors for i in (0, 3))
    nonempty = all(not known_eq(t.shape[2], 0) for t in tensors)
    unit = all(known_eq(strides_of(t)[-1], 1) for t in tensors)
    return same and nonempty and unit and _heads_fit(query.shape[1], key.shape[1], value.shape[1], enable_gqa)


def _heads_fit(query: Dim, key: Dim, value: Dim, enable_gqa: bool) -> bool:
    if known_eq(query, key) and known_eq(query, value):
        return True
    if not enable_gqa or not known_eq(key, value) or type(query) is not int or type(key) is not int:
        return False
    return key > 0 and query % key == 0


# ---------------------------------------------------------------------------- distances


def _check_float(t: TensorMeta, message: str) -> None:
    check(t.dtype.is_floating_point, message)


@shape_rule("_cdist_forward", "cdist")
def _cdist(x1: TensorMeta, x2: TensorMeta, p: float = 2.0, compute_mode: Any = None) -> TensorMeta:
    check(x1.ndim >= 2, f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    check(x2.ndim >= 2, f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    check(sym_eq(x1.shape[-1], x2.shape[-1]), "X1 and X2 must have the same number of columns. "
          f"X1: {dim_str(x1.shape[-1])} X2: {dim_str(x2.shape[-1])}")
    _check_float(x1, f"cdist only supports floating-point dtypes, X1 got: {x1.dtype}")
    _check_float(x2, f"cdist only supports floating-point dtypes, X2 got: {x2.dtype}")
    check(p >= 0, "cdist only supports non-negative p values")
    batch = broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    return meta([*batch, x1.shape[-2], x2.shape[-2]], x1.dtype)


@shape_rule("_pdist_forward", "pdist")
def _pdist(self: TensorMeta, p: float = 2.0) -> TensorMeta:
    """One distance per pair of rows: n * (n - 1) / 2."""
    check(self.ndim == 2, f"pdist only supports 2D tensors, got: {self.ndim}D")
    _check_float(self, "pdist only supports floating-point dtypes")
    check(p >= 0, "pdist only supports non-negative p values")
    n = self.shape[0]
    pairs = n * (n - 1) // 2 if type(n) is int else _symbolic.FloorDiv(n * (n - 1), 2)
    return meta([pairs], self.dtype)


@shape_rule("cosine_similarity")
def _cosine_similarity(
    x1: TensorMeta, x2: TensorMeta, dim: int = 1, eps: float = 1e-08
) -> TensorMeta:
    shape = broadcast_shapes(x1.shape, x2.shape)
    d = normalize_dim(dim, len(shape))
    return meta([s for i, s in enumerate(shape) if i != d], result_type(x1, x2))


@shape_rule("pairwise_distance")
def _pairwise_distance(
    x1: TensorMeta, x2: TensorMeta, p: float = 2.0, eps: float = 1e-06, keepdim: bool = False
) -> TensorMeta:
    """The norm of x1 - x2 + eps over the last dim of the broadcast shape."""
    shape = list(broadcast_shapes(x1.shape, x2.shape))
    if shape:
        shape = [*shape[:-1], 1] if keepdim else shape[:-1]
    return meta(shape, result_type(x1, x2, eps))  # + eps makes integer inputs float


# ---------------------------------------------------------------------------- FFT

_TO_COMPLEX = {DType.float32: DType.complex64, DType.float64: DType.complex128}
_TO_REAL = {c: r for r, c in _TO_COMPLEX.items()}


@shape_rule("_fft_r2c")
def _fft_r2c(
    self: TensorMeta, dim: Sequence[int], normalization: int, onesided: bool
) -> TensorMeta:
    """A real input gives a complex output; one-sided keeps n // 2 + 1 of the last dim."""
    check(self.dtype in _TO_COMPLEX, f"expected a real float32 or float64 input tensor, but got "
          f"{self.dtype}")
    shape = list(self.shape)
    if onesided and dim:
        last = normalize_dim(dim[-1], self.ndim)
        shape[last] = exact_div(shape[last], 2) + 1
    return meta(shape, _TO_COMPLEX[self.dtype])


@shape_rule("_fft_c2r")
def _fft_c2r(
    self: TensorMeta, dim: Sequence[int], normalization: int, last_dim_size: Dim
) -> TensorMeta:
    check(self.dtype in _TO_REAL, f"expected a complex input tensor, but got {self.dtype}")
    check(not (type(last_dim_size) is int and last_dim_size < 1),
          f"Invalid number of data points ({last_dim_size}) specified")
    shape = list(self.shape)
    shape[normalize_dim(dim[-1], self.ndim)] = last_dim_size
    return meta(shape, _TO_REAL[self.dtype])



# ---------------------------------------------------------------------------- grouped matmul

_GROUPED_MM_DTYPES = {DType.float32: "Float32", DType.bfloat16: "BFloat16", DType.float16: "Float16"}
_ATEN_DTYPE_NAMES = {DType.float64: "Double", DType.int64: "Long", DType.int32: "Int", DType.bool: "Bool",
                     DType.float32: "Float", DType.bfloat16: "BFloat16", DType.float16: "Half"}


def _grouped_operand(mat: TensorMeta, name: str) -> None:
    check(mat.dtype in _GROUPED_MM_DTYPES,
          f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got "
          f"{_ATEN_DTYPE_NAMES.get(mat.dtype, mat.dtype.torch_name)}")
    check(mat.ndim in (2, 3), f"{name} has to be 2 or 3d")
    # ATen's check_valid_strides: the leading stride of either layout a multiple of 16 bytes
    strides = strides_of(mat)
    leading = strides[-2] if known_eq(strides[-1], 1) else strides[-1]
    check(type(leading) is not int or leading * mat.dtype.itemsize % 16 == 0, "strides should be multiple of 16 bytes")


@shape_rule("_grouped_mm")
def _grouped_mm(self: TensorMeta, mat2: TensorMeta, offs: TensorMeta | None = None, bias: TensorMeta | None = None,
                out_dtype: Any = None) -> TensorMeta:
    """3d x 3d: [G, M, K] @ [G, K, N] -> [G, M, N]; 2d x 3d: rows grouped, [M, N];
    3d x 2d: columns grouped, [M, N]; 2d x 2d: the contraction grouped, [G, M, N]."""
    _grouped_operand(self, "mat_a")
    _grouped_operand(mat2, "mat_b")
    check(self.dtype == mat2.dtype, "Expected mat_a and mat_b to have the same dtype")
    check(out_dtype is None or out_dtype == self.dtype, "Grouped gemm output dtype must match `mat_a` dtype")
    check(bias is None, "Bias not supported yet")
    both_3d = self.ndim == 3 and mat2.ndim == 3
    check((offs is None) == both_3d,
          "Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d")
    if offs is not None:
        check(offs.ndim == 1 and offs.dtype == DType.int32, "Offsets have to be int32")
    check(sym_eq(self.shape[-1], mat2.shape[-2]), "contraction dimension of mat_a and mat_b must match")
    if both_3d:
        check(sym_eq(self.shape[0], mat2.shape[0]), "batched dimension has to match")
        shape: tuple[Dim, ...] = (self.shape[0], self.shape[1], mat2.shape[2])
    elif self.ndim == 2 and mat2.ndim == 2:
        shape = (offs.shape[0], self.shape[0], mat2.shape[1])
    else:
        shape = (self.shape[-2], mat2.shape[-1])
    return TensorMeta(shape, self.dtype)
