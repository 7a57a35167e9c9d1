"""Shape rules: matrix products, einsum, attention, distances and FFTs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use

from .. import symbolic as _symbolic
from ..dtypes import DType, result_type
from ..meta import TensorMeta
from ..symbolic import Dim, dim_str, to_dim
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
from .views import diagonal_meta, exact_div, expand_shape, meta


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


@shape_rule("_fft_c2c")
def _fft_c2c(self: TensorMeta, dim: Sequence[int], normalization: int, forward: bool) -> TensorMeta:
    check(self.dtype in _TO_REAL, f"expected a complex input tensor, but got {self.dtype}")
    return meta(self.shape, self.dtype)


@shape_rule("fft_fftfreq")
def _fftfreq(n: int, d: float = 1.0, dtype: DType | None = None, layout: Any = None,
             device: Any = None, pin_memory: bool | None = None) -> TensorMeta:
    return meta([n], dtype or DType.float32)


@shape_rule("fft_rfftfreq")
def _rfftfreq(n: int, d: float = 1.0, dtype: DType | None = None, layout: Any = None,
              device: Any = None, pin_memory: bool | None = None) -> TensorMeta:
    return meta([exact_div(n, 2) + 1], dtype or DType.float32)


def fft_dtype(dtype: DType, complex_result: bool) -> DType:
    """torch's promote_type_fft: integers and bools compute in float32; a real input
    of a complex transform becomes complex."""
    if dtype.is_complex:
        return dtype
    real = dtype if dtype.is_floating_point else DType.float32
    check(real in _TO_COMPLEX, f"Unsupported dtype {real}")
    return _TO_COMPLEX[real] if complex_result else real


def fft_dims_and_sizes(
    shape: Sequence[Dim], s: Sequence[Dim] | None, dim: Sequence[int] | int | None
) -> tuple[list[int], list[Dim]]:
    """torch's canonicalize_fft_shape_and_dim_args: the dims an n-d transform runs
    over and the signal size along each (s given: its last len(s) dims by default;
    -1 in s: the input's size)."""
    ndim = len(shape)
    dims = None
    if dim is not None:
        dims = [normalize_dim(d, ndim) for d in ([dim] if isinstance(dim, int) else dim)]
        check(len(set(dims)) == len(dims), "FFT dims must be unique")
    if s is not None:
        check(dims is None or len(dims) == len(s),
              "When given, dim and shape arguments must have the same length")
        check(len(s) <= ndim, f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        dims = dims if dims is not None else list(range(ndim - len(s), ndim))
        sizes = [shape[d] if n == -1 else n for n, d in zip(s, dims)]
    else:
        dims = dims if dims is not None else list(range(ndim))
        sizes = [shape[d] for d in dims]
    for n in sizes:
        check(not (type(n) is int and n < 1), f"Invalid number of data points ({n}) specified")
    return dims, sizes


def irfft_last_size(shape: Sequence[Dim], s: Sequence[Dim] | None, dims: Sequence[int],
                    sizes: Sequence[Dim]) -> Dim:
    """The output length of a c2r transform's last dim: s's, or 2 * (n - 1) of the input."""
    last = 2 * (shape[dims[-1]] - 1) if s is None or s[-1] == -1 else sizes[-1]
    check(not (type(last) is int and last < 1), f"Invalid number of data points ({last}) specified")
    return last


def _check_norm(norm: str | None) -> None:
    check(norm in (None, "forward", "backward", "ortho"), f"Invalid normalization mode: {norm}")


def _one_dim(self: TensorMeta, n: Dim | None, dim: int, default: Dim | None = None) -> tuple[int, Dim]:
    axis = normalize_dim(dim, self.ndim)
    size = n if n is not None else (self.shape[axis] if default is None else default)
    check(not (type(size) is int and size < 1), f"Invalid number of data points ({size}) specified")
    return axis, size


def _resized(shape: Sequence[Dim], dims: Sequence[int], sizes: Sequence[Dim]) -> list[Dim]:
    out = list(shape)
    for d, n in zip(dims, sizes):
        out[d] = n
    return out


@shape_rule("fft_fft", "fft_ifft")
def _fft(self: TensorMeta, n: Dim | None = None, dim: int = -1, norm: str | None = None) -> TensorMeta:
    _check_norm(norm)
    axis, size = _one_dim(self, n, dim)
    return meta(_resized(self.shape, [axis], [size]), fft_dtype(self.dtype, True))


@shape_rule("fft_rfft", "fft_ihfft")
def _rfft(self: TensorMeta, n: Dim | None = None, dim: int = -1, norm: str | None = None) -> TensorMeta:
    check(not self.dtype.is_complex, f"expects a real input tensor, but got {self.dtype}")
    _check_norm(norm)
    axis, size = _one_dim(self, n, dim)
    return meta(_resized(self.shape, [axis], [exact_div(size, 2) + 1]), fft_dtype(self.dtype, True))


@shape_rule("fft_irfft", "fft_hfft")
def _irfft(self: TensorMeta, n: Dim | None = None, dim: int = -1, norm: str | None = None) -> TensorMeta:
    _check_norm(norm)
    axis, size = _one_dim(self, n, dim, 2 * (self.shape[normalize_dim(dim, self.ndim)] - 1))
    dtype = fft_dtype(self.dtype, True)
    return meta(_resized(self.shape, [axis], [size]), _TO_REAL[dtype])


@shape_rule("fft_fftn", "fft_ifftn", "fft_fft2", "fft_ifft2")
def _fftn(self: TensorMeta, s: Sequence[Dim] | None = None, dim: Sequence[int] | None = None,
          norm: str | None = None) -> TensorMeta:
    _check_norm(norm)
    dims, sizes = fft_dims_and_sizes(self.shape, s, dim)
    return meta(_resized(self.shape, dims, sizes), fft_dtype(self.dtype, True))


@shape_rule("fft_rfftn", "fft_rfft2")
def _rfftn(self: TensorMeta, s: Sequence[Dim] | None = None, dim: Sequence[int] | None = None,
           norm: str | None = None) -> TensorMeta:
    check(not self.dtype.is_complex, f"rfftn expects a real-valued input tensor, but got {self.dtype}")
    _check_norm(norm)
    dims, sizes = fft_dims_and_sizes(self.shape, s, dim)
    check(bool(dims), "rfftn must transform at least one axis")
    sizes[-1] = exact_div(sizes[-1], 2) + 1
    return meta(_resized(self.shape, dims, sizes), fft_dtype(self.dtype, True))


@shape_rule("fft_irfftn", "fft_irfft2")
def _irfftn(self: TensorMeta, s: Sequence[Dim] | None = None, dim: Sequence[int] | None = None,
            norm: str | None = None) -> TensorMeta:
    _check_norm(norm)
    dims, sizes = fft_dims_and_sizes(self.shape, s, dim)
    check(bool(dims), "irfftn must transform at least one axis")
    sizes[-1] = irfft_last_size(self.shape, s, dims, sizes)
    return meta(_resized(self.shape, dims, sizes), _TO_REAL[fft_dtype(self.dtype, True)])


@shape_rule("fft_fftshift", "fft_ifftshift")
def _fftshift(self: TensorMeta, dim: Sequence[int] | None = None) -> TensorMeta:
    return meta(self.shape, self.dtype)


# ---------------------------------------------------------------------------- complex numbers


def _complex_only(self: TensorMeta, what: str) -> None:
    check(self.dtype.is_complex, f"{what} is only supported for complex tensors, but got {self.dtype}")


@shape_rule("_conj", "_conj_physical", "conj_physical", "resolve_conj")
def _conj(self: TensorMeta) -> TensorMeta:
    return meta(self.shape, self.dtype)


@stride_rule("_conj", "resolve_conj")
def _conj_strides(out: TensorMeta, self: TensorMeta) -> Strides:
    return strides_of(self)


@shape_rule("view_as_real")
def _view_as_real(self: TensorMeta) -> TensorMeta:
    _complex_only(self, "view_as_real")
    return meta([*self.shape, 2], _TO_REAL[self.dtype])


@stride_rule("view_as_real")
def _view_as_real_strides(out: TensorMeta, self: TensorMeta) -> Strides:
    """Each complex element is two reals side by side."""
    return (*(2 * s for s in strides_of(self)), 1)


@shape_rule("view_as_complex")
def _view_as_complex(self: TensorMeta) -> TensorMeta:
    check(self.dtype in _TO_COMPLEX,
          f"view_as_complex is only supported for float and double tensors, but got a tensor of "
          f"scalar type: {scalar_type_name(self.dtype)}")
    check(self.ndim > 0 and known_eq(self.shape[-1], 2), "Tensor must have a last dimension of size 2")
    return meta(self.shape[:-1], _TO_COMPLEX[self.dtype])


@stride_rule("view_as_complex")
def _view_as_complex_strides(out: TensorMeta, self: TensorMeta) -> Strides:
    return tuple(exact_div(s, 2) for s in strides_of(self)[:-1])


@shape_rule("real", "imag")
def _real(self: TensorMeta) -> TensorMeta:
    return meta(self.shape, _TO_REAL.get(self.dtype, self.dtype))


@stride_rule("real", "imag")
def _real_strides(out: TensorMeta, self: TensorMeta) -> Strides:
    strides = strides_of(self)
    return tuple(2 * s for s in strides) if self.dtype.is_complex else strides


def _complex_from_parts(a: TensorMeta, b: TensorMeta, names: str) -> TensorMeta:
    check(a.dtype is b.dtype, f"Expected object of scalar type {scalar_type_name(a.dtype)} but got "
          f"scalar type {scalar_type_name(b.dtype)} for second argument")
    check(a.dtype in (DType.float16, *_TO_COMPLEX),
          f"Expected both inputs to be Half, Float or Double tensors but got "
          f"{scalar_type_name(a.dtype)} and {scalar_type_name(b.dtype)}")
    check(a.dtype in _TO_COMPLEX, f"{names}: complex32 is not supported")
    return meta(broadcast_shapes(a.shape, b.shape), _TO_COMPLEX[a.dtype])


@shape_rule("complex")
def _complex(real: TensorMeta, imag: TensorMeta) -> TensorMeta:
    return _complex_from_parts(real, imag, "complex")


@shape_rule("polar")
def _polar(abs: TensorMeta, angle: TensorMeta) -> TensorMeta:  # noqa: A002 - torch's names
    return _complex_from_parts(abs, angle, "polar")


@shape_rule("angle")
def _angle(self: TensorMeta) -> TensorMeta:
    """A complex input's angle is real; integers and bools give float32."""
    if self.dtype.is_complex:
        return meta(self.shape, _TO_REAL[self.dtype])
    return meta(self.shape, self.dtype if self.dtype.is_floating_point else DType.float32)


# ---------------------------------------------------------------------------- torch.linalg


def _square_batch(A: TensorMeta, what: str) -> tuple[list[Dim], Dim]:
    """A batch of square float matrices: (batch sizes, n)."""
    check(A.ndim >= 2, f"{what}: The input tensor A must have at least 2 dimensions.")
    check(sym_eq(A.shape[-1], A.shape[-2]),
          f"{what}: A must be batches of square matrices, but they are {dim_str(A.shape[-2])} by "
          f"{dim_str(A.shape[-1])} matrices")
    _float_input(A, what)
    return list(A.shape[:-2]), A.shape[-1]


def _float_input(A: TensorMeta, what: str) -> None:
    check(A.dtype.is_floating_point or A.dtype.is_complex,
          f"{what}: Expected a floating point or complex tensor as input. Got {scalar_type_name(A.dtype)}")


def _real(dtype: DType) -> DType:
    return _TO_REAL.get(dtype, dtype)


@shape_rule("_linalg_det")
def _linalg_det(A: TensorMeta) -> tuple[TensorMeta, ...]:
    batch, n = _square_batch(A, "linalg.det")
    return meta(batch, A.dtype), meta([*batch, n, n], A.dtype), meta([*batch, n], DType.int32)


@shape_rule("linalg_det", "det")
def _det(A: TensorMeta) -> TensorMeta:
    return _linalg_det(A)[0]


@shape_rule("_linalg_slogdet")
def _linalg_slogdet(A: TensorMeta) -> tuple[TensorMeta, ...]:
    batch, n = _square_batch(A, "linalg.slogdet")
    return (meta(batch, A.dtype), meta(batch, _real(A.dtype)), meta([*batch, n, n], A.dtype),
            meta([*batch, n], DType.int32))


@shape_rule("linalg_slogdet")
def _slogdet(A: TensorMeta) -> tuple[TensorMeta, ...]:
    return _linalg_slogdet(A)[:2]


@shape_rule("_linalg_eigh")
def _linalg_eigh(A: TensorMeta, UPLO: str = "L", compute_v: bool = True) -> tuple[TensorMeta, ...]:  # noqa: N803
    check(UPLO in ("L", "U"), f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    batch, n = _square_batch(A, "linalg.eigh")
    vectors = meta([*batch, n, n], A.dtype) if compute_v else meta([0], A.dtype)
    return meta([*batch, n], _real(A.dtype)), vectors


@shape_rule("linalg_eigh")
def _eigh(self: TensorMeta, UPLO: str = "L") -> tuple[TensorMeta, ...]:  # noqa: N803
    return _linalg_eigh(self, UPLO)


@shape_rule("linalg_eigvalsh")
def _eigvalsh(self: TensorMeta, UPLO: str = "L") -> TensorMeta:  # noqa: N803
    return _linalg_eigh(self, UPLO)[0]


def _matrices(A: TensorMeta, what: str) -> tuple[list[Dim], Dim, Dim]:
    check(A.ndim >= 2, f"{what}: The input tensor A must have at least 2 dimensions.")
    _float_input(A, what)
    return list(A.shape[:-2]), A.shape[-2], A.shape[-1]


def _min_dim(m: Dim, n: Dim) -> Dim:
    if type(m) is int and type(n) is int:
        return min(m, n)
    return to_dim(sympy.Min(m, n))


@shape_rule("_linalg_svd")
def _linalg_svd(A: TensorMeta, full_matrices: bool = False, compute_uv: bool = True,
                driver: str | None = None) -> tuple[TensorMeta, ...]:
    batch, m, n = _matrices(A, "linalg.svd")
    k = _min_dim(m, n)
    values = meta([*batch, k], _real(A.dtype))
    if not compute_uv:
        return meta([0], A.dtype), values, meta([0], A.dtype)
    cols, rows = (m, n) if full_matrices else (k, k)
    return meta([*batch, m, cols], A.dtype), values, meta([*batch, rows, n], A.dtype)


@shape_rule("linalg_svd")
def _svd(A: TensorMeta, full_matrices: bool = True, driver: str | None = None) -> tuple[TensorMeta, ...]:
    return _linalg_svd(A, full_matrices, True, driver)


@shape_rule("linalg_svdvals")
def _svdvals(A: TensorMeta, driver: str | None = None) -> TensorMeta:
    return _linalg_svd(A)[1]


def _is_vector_rhs(A: TensorMeta, B: TensorMeta) -> bool:
    """linalg_solve_is_vector_rhs: B is one vector, or a batch of vectors A's batch."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and all(sym_eq(b, a) for b, a in zip(B.shape, A.shape[:-1])))


@shape_rule("_linalg_solve_ex")
def _linalg_solve_ex(A: TensorMeta, B: TensorMeta, left: bool = True,
                     check_errors: bool = False) -> tuple[TensorMeta, ...]:
    batch, n = _square_batch(A, "linalg.solve")
    check(A.dtype is B.dtype, f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
          f"{scalar_type_name(A.dtype)} and B of type {scalar_type_name(B.dtype)} instead")
    vector = _is_vector_rhs(A, B)
    rhs = [*B.shape, 1] if vector else list(B.shape)
    check(len(rhs) >= 2, "linalg.solve: Expected B to have at least 1 dimension")
    inner = rhs[-2] if left else rhs[-1]
    check(sym_eq(inner, n), f"linalg.solve: Incompatible shapes of A and B for the equation "
          f"{'AX = B' if left else 'XA = B'} ({dim_str(n)}x{dim_str(n)} and {shape_text(B.shape)})")
    batch = list(broadcast_shapes(batch, rhs[:-2]))
    result = [*batch, *rhs[-2:]][:-1] if vector else [*batch, *rhs[-2:]]
    return (meta(result, A.dtype), meta([*batch, n, n], A.dtype), meta([*batch, n], DType.int32),
            meta(batch, DType.int32))


@shape_rule("linalg_solve_ex")
def _solve_ex(A: TensorMeta, B: TensorMeta, left: bool = True, check_errors: bool = False) -> tuple[TensorMeta, ...]:
    result, _, _, info = _linalg_solve_ex(A, B, left, check_errors)
    return result, info


@shape_rule("linalg_solve")
def _solve(A: TensorMeta, B: TensorMeta, left: bool = True) -> TensorMeta:
    return _linalg_solve_ex(A, B, left)[0]


@shape_rule("linalg_inv_ex")
def _linalg_inv_ex(A: TensorMeta, check_errors: bool = False) -> tuple[TensorMeta, ...]:
    batch, n = _square_batch(A, "linalg.inv")
    return meta([*batch, n, n], A.dtype), meta(batch, DType.int32)


@shape_rule("linalg_inv", "inverse")
def _inv(A: TensorMeta) -> TensorMeta:
    return _linalg_inv_ex(A)[0]


@shape_rule("linalg_cholesky_ex")
def _linalg_cholesky_ex(self: TensorMeta, upper: bool = False, check_errors: bool = False) -> tuple[TensorMeta, ...]:
    batch, n = _square_batch(self, "linalg.cholesky")
    return meta([*batch, n, n], self.dtype), meta(batch, DType.int32)


@shape_rule("linalg_cholesky")
def _cholesky(self: TensorMeta, upper: bool = False) -> TensorMeta:
    return _linalg_cholesky_ex(self, upper)[0]


@shape_rule("linalg_qr")
def _linalg_qr(A: TensorMeta, mode: str = "reduced") -> tuple[TensorMeta, ...]:
    check(mode in ("reduced", "complete", "r"),
          f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    batch, m, n = _matrices(A, "linalg.qr")
    k = _min_dim(m, n)
    if mode == "r":
        return meta([0], A.dtype), meta([*batch, k, n], A.dtype)
    if mode == "complete":
        return meta([*batch, m, m], A.dtype), meta([*batch, m, n], A.dtype)
    return meta([*batch, m, k], A.dtype), meta([*batch, k, n], A.dtype)


@shape_rule("linalg_pinv.atol_rtol_tensor")
def _pinv(self: TensorMeta, atol: TensorMeta | None = None, rtol: TensorMeta | None = None,
          hermitian: bool = False) -> TensorMeta:
    batch, m, n = _matrices(self, "linalg.pinv")
    return meta([*batch, n, m], self.dtype)


@shape_rule("pinverse")
def _pinverse(self: TensorMeta, rcond: float = 1e-15) -> TensorMeta:
    return _pinv(self)


@shape_rule("addbmm")
def _addbmm(self: TensorMeta, batch1: TensorMeta, batch2: TensorMeta, *_: Any) -> TensorMeta:
    product = _bmm(batch1, batch2)
    return _with_input(self, meta(product.shape[1:], product.dtype))


def _norm_dtype(self: TensorMeta, dtype: DType | None) -> DType:
    _float_input(self, "linalg.norm")
    return _real(dtype or self.dtype)


def _matrix_norm_shape(self: TensorMeta, dim: Sequence[int], keepdim: bool) -> list[Dim]:
    check(self.ndim >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    check(len(dim) == 2, f"linalg.matrix_norm: dim must be a 2-tuple. Got {', '.join(map(str, dim))}")
    a, b = normalize_dim(dim[0], self.ndim), normalize_dim(dim[1], self.ndim)
    check(a != b, f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return [1 if i in (a, b) else s for i, s in enumerate(self.shape) if keepdim or i not in (a, b)]


@shape_rule("linalg_matrix_norm", "linalg_matrix_norm.str_ord")
def _matrix_norm(self: TensorMeta, ord: Any = "fro", dim: Sequence[int] = (-2, -1),  # noqa: A002
                 keepdim: bool = False, dtype: DType | None = None) -> TensorMeta:
    return meta(_matrix_norm_shape(self, dim, keepdim), _norm_dtype(self, dtype))


@shape_rule("linalg_norm", "linalg_norm.ord_str")
def _linalg_norm(self: TensorMeta, ord: Any = None, dim: Sequence[int] | None = None,  # noqa: A002
                 keepdim: bool = False, dtype: DType | None = None) -> TensorMeta:
    if dim is not None:
        check(len(dim) in (1, 2), f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None:
        check(self.ndim in (1, 2), f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
              f"Got {self.ndim}D.")
    dims = list(range(self.ndim)) if dim is None else [normalize_dim(d, self.ndim) for d in dim]
    shape = [1 if i in dims else s for i, s in enumerate(self.shape) if keepdim or i not in dims]
    return meta(shape, _norm_dtype(self, dtype))


@shape_rule("linalg_vecdot")
def _vecdot(x: TensorMeta, y: TensorMeta, dim: int = -1) -> TensorMeta:
    check(x.dtype is y.dtype, f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
          f"{scalar_type_name(x.dtype)} and y of type {scalar_type_name(y.dtype)} instead")
    shape = list(broadcast_shapes(x.shape, y.shape))
    del shape[normalize_dim(dim, len(shape))]
    return meta(shape, x.dtype)


@shape_rule("vdot")
def _vdot(self: TensorMeta, other: TensorMeta) -> TensorMeta:
    check(self.ndim == 1 and other.ndim == 1,
          f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors")
    check(self.dtype is other.dtype, f"dot : expected both vectors to have same dtype, but found "
          f"{scalar_type_name(self.dtype)} and {scalar_type_name(other.dtype)}")
    check(sym_eq(self.shape[0], other.shape[0]), "inconsistent tensor size, expected tensor "
          f"[{dim_str(self.shape[0])}] and src [{dim_str(other.shape[0])}] to have the same number of elements, "
          "but got different sizes")
    return meta([], self.dtype)


@shape_rule("trace")
def _trace(self: TensorMeta) -> TensorMeta:
    check(self.ndim == 2, f"trace: expected a matrix, but got tensor with dim {self.ndim}")
    dtype = DType.int64 if not (self.dtype.is_floating_point or self.dtype.is_complex) else self.dtype
    return meta([], dtype)


@shape_rule("linalg_diagonal")
def _linalg_diagonal(A: TensorMeta, offset: int = 0, dim1: int = -2, dim2: int = -1) -> TensorMeta:
    return diagonal_meta(A, offset, dim1, dim2)


@stride_rule("linalg_diagonal")
def _linalg_diagonal_strides(out: TensorMeta, A: TensorMeta, offset: int = 0, dim1: int = -2,
                             dim2: int = -1) -> Strides:
    a, b = normalize_dim(dim1, A.ndim), normalize_dim(dim2, A.ndim)
    strides = strides_of(A)
    return (*(s for i, s in enumerate(strides) if i not in (a, b)), strides[a] + strides[b])


@shape_rule("linalg_multi_dot", "chain_matmul")
def _multi_dot(tensors: Sequence[TensorMeta]) -> TensorMeta:
    check(len(tensors) >= 2 or (len(tensors) == 1 and tensors[0].ndim == 2),
          f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    rows = [first.shape[0]] if first.ndim == 2 else []
    cols = [last.shape[-1]] if last.ndim == 2 and len(tensors) > 1 else []
    if len(tensors) == 1:
        return meta(first.shape, first.dtype)
    return meta([*rows, *cols], first.dtype)


@shape_rule("tensordot")
def _tensordot(self: TensorMeta, other: TensorMeta, dims_self: Sequence[int],
               dims_other: Sequence[int]) -> TensorMeta:
    check(len(dims_self) == len(dims_other), "both dimension lists should have same length")
    check(self.dtype is other.dtype, "both inputs should have same dtype")
    mine = {normalize_dim(d, self.ndim) for d in dims_self}
    theirs = {normalize_dim(d, other.ndim) for d in dims_other}
    for a, b in zip(dims_self, dims_other):
        s1, s2 = self.shape[a], other.shape[b]
        check(sym_eq(s1, s2) or s1 == 1 or s2 == 1, f"contracted dimensions need to match, but first has size "
              f"{dim_str(s1)} in dim {a} and second has size {dim_str(s2)} in dim {b}")
    shape = [s for i, s in enumerate(self.shape) if i not in mine]
    shape += [s for i, s in enumerate(other.shape) if i not in theirs]
    return meta(shape, self.dtype)


@shape_rule("inner")
def _inner(self: TensorMeta, other: TensorMeta) -> TensorMeta:
    if self.ndim == 0 or other.ndim == 0:
        return meta(broadcast_shapes(self.shape, other.shape), result_type(self, other))
    check(sym_eq(self.shape[-1], other.shape[-1]),
          f"inner() the last dimension must match on both input tensors but got shapes "
          f"{shape_text(self.shape)} and {shape_text(other.shape)}")
    return meta([*self.shape[:-1], *other.shape[:-1]], self.dtype)


@shape_rule("kron")
def _kron(self: TensorMeta, other: TensorMeta) -> TensorMeta:
    ndim = max(self.ndim, other.ndim)
    a = [1] * (ndim - self.ndim) + list(self.shape)
    b = [1] * (ndim - other.ndim) + list(other.shape)
    return meta([x * y for x, y in zip(a, b)], result_type(self, other))


@shape_rule("addr")
def _addr(self: TensorMeta, vec1: TensorMeta, vec2: TensorMeta, *_: Any) -> TensorMeta:
    product = _outer(vec1, vec2)
    expand_shape(self.shape, product.shape)
    return meta(product.shape, result_type(self, vec1, vec2))


@shape_rule("linalg_pinv.atol_rtol_float")
def _pinv_float(self: TensorMeta, atol: float | None = None, rtol: float | None = None,
                hermitian: bool = False) -> TensorMeta:
    return _pinv(self)


@shape_rule("linalg_matrix_rank.atol_rtol_tensor", "linalg_matrix_rank.atol_rtol_float")
def _matrix_rank(input: TensorMeta, atol: Any = None, rtol: Any = None,  # noqa: A002 - torch's name
                 hermitian: bool = False) -> TensorMeta:
    batch, _, _ = _matrices(input, "linalg.matrix_rank")
    return meta(batch, DType.int64)


def cross_dim(self: TensorMeta, other: TensorMeta, dim: int | None) -> int:
    """The dim a cross product runs over: torch.cross without one takes the first of size 3."""
    check(self.ndim == other.ndim, "linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:
        sizes = broadcast_shapes(self.shape, other.shape)
        dims = [d for d, size in enumerate(sizes) if known_eq(size, 3)]
        check(bool(dims), "no dimension of size 3 in input")
        return dims[0]
    return normalize_dim(dim, self.ndim)


@shape_rule("linalg_cross", "cross")
def _cross(self: TensorMeta, other: TensorMeta, dim: int | None = -1) -> TensorMeta:
    axis = cross_dim(self, other, dim)
    check(known_eq(self.shape[axis], 3) and known_eq(other.shape[axis], 3),
          f"linalg.cross: inputs dimension {dim} must have length 3. Got {dim_str(self.shape[axis])} and "
          f"{dim_str(other.shape[axis])}")
    return meta(broadcast_shapes(self.shape, other.shape), result_type(self, other))


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@shape_rule("linalg_lstsq")
def _lstsq(self: TensorMeta, b: TensorMeta, rcond: float | None = None,
           driver: str | None = None) -> tuple[TensorMeta, ...]:
    """torch's CPU drivers: residuals for a tall full-rank A except with gelsy (the
    default; the rule assumes full rank), the rank except with gels, the singular
    values with gelsd and gelss."""
    driver = driver or "gelsy"
    check(driver in _LSTSQ_DRIVERS, f"parameter `driver` should be one of ({', '.join(_LSTSQ_DRIVERS)})")
    batch, m, n = _matrices(self, "torch.linalg.lstsq")
    check(self.dtype is b.dtype, f"torch.linalg.lstsq: Expected input and b to have the same dtype, but got "
          f"input with dtype {scalar_type_name(self.dtype)} and b with dtype {scalar_type_name(b.dtype)}")
    vector = b.ndim == self.ndim - 1
    rhs = [*b.shape, 1] if vector else list(b.shape)
    check(sym_eq(rhs[-2], m), "torch.linalg.lstsq: input.size(-2) should match b.size(-2)")
    batch = list(broadcast_shapes(batch, rhs[:-2]))
    columns = [] if vector else [rhs[-1]]
    tall = type(m) is int and type(n) is int and m > n
    residuals = [*batch, *columns] if tall and driver != "gelsy" else [0]
    rank = batch if driver != "gels" else [0]
    values = [*batch, _min_dim(m, n)] if driver in ("gelsd", "gelss") else [0]
    real = _real(self.dtype)
    return (meta([*batch, n, *columns], self.dtype), meta(residuals, real), meta(rank, DType.int64),
            meta(values, real))


@shape_rule("cholesky", "cholesky_inverse")
def _cholesky_old(self: TensorMeta, upper: bool = False) -> TensorMeta:
    batch, n = _square_batch(self, "cholesky")
    return meta([*batch, n, n], self.dtype)


@shape_rule("cholesky_solve")
def _cholesky_solve(self: TensorMeta, input2: TensorMeta, upper: bool = False) -> TensorMeta:
    """A X = self with A's Cholesky factor input2: the batch dims broadcast."""
    check(self.ndim >= 2, f"b should have at least 2 dimensions, but has {self.ndim} dimensions instead")
    batch, n = _square_batch(input2, "cholesky_solve")
    check(sym_eq(self.shape[-2], n), f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
          f"{dim_str(n)} by {dim_str(n)} but each b matrix is {dim_str(self.shape[-2])} by {dim_str(self.shape[-1])}")
    check(self.dtype is input2.dtype, f"Expected b and A to have the same dtype, but found b of type "
          f"{scalar_type_name(self.dtype)} and A of type {scalar_type_name(input2.dtype)} instead.")
    return meta([*broadcast_shapes(self.shape[:-2], batch), *self.shape[-2:]], self.dtype)


@shape_rule("logdet")
def _logdet(self: TensorMeta) -> TensorMeta:
    return _linalg_slogdet(self)[1]


@shape_rule("linalg_matrix_power", "matrix_power")
def _matrix_power(self: TensorMeta, n: int) -> TensorMeta:
    batch, size = _square_batch(self, "linalg.matrix_power") if n < 0 else (list(self.shape[:-2]), self.shape[-1])
    check(self.ndim >= 2 and sym_eq(self.shape[-1], self.shape[-2]),
          f"linalg.matrix_power: A must be batches of square matrices, but they are {shape_text(self.shape[-2:])} "
          "matrices")
    return meta([*batch, size, size], self.dtype)


# ---------------------------------------------------------------- LU, LDL, Householder QR, eig, exp


@shape_rule("linalg_lu_factor_ex")
def _lu_factor_ex(A: TensorMeta, pivot: bool = True, check_errors: bool = False) -> tuple[TensorMeta, ...]:
    batch, m, n = _matrices(A, "torch.lu_factor")
    check(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    return meta([*batch, m, n], A.dtype), meta([*batch, _min_dim(m, n)], DType.int32), meta(batch, DType.int32)


@shape_rule("linalg_lu_factor")
def _lu_factor(A: TensorMeta, pivot: bool = True) -> tuple[TensorMeta, ...]:  # noqa: N803
    return _lu_factor_ex(A, pivot)[:2]


@shape_rule("linalg_lu")
def _lu(A: TensorMeta, pivot: bool = True) -> tuple[TensorMeta, ...]:
    batch, m, n = _matrices(A, "linalg.lu")
    k = _min_dim(m, n)
    permutation = [*batch, m, m] if pivot else [0]
    return meta(permutation, A.dtype), meta([*batch, m, k], A.dtype), meta([*batch, k, n], A.dtype)


@shape_rule("lu_unpack")
def _lu_unpack(LU_data: TensorMeta, LU_pivots: TensorMeta, unpack_data: bool = True,  # noqa: N803 - torch's names
               unpack_pivots: bool = True) -> tuple[TensorMeta, ...]:
    check(LU_data.ndim >= 2, "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
          f"{shape_text(LU_data.shape)} instead")
    check(LU_pivots.dtype is DType.int32, "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
          "torch.int32 dtype. Note: this function is intended to be used with the output produced by "
          "torch.linalg.lu_factor")
    batch, m, n = list(LU_data.shape[:-2]), LU_data.shape[-2], LU_data.shape[-1]
    k = _min_dim(m, n)
    L = meta([*batch, m, k], LU_data.dtype) if unpack_data else meta([0], LU_data.dtype)  # noqa: N806
    U = meta([*batch, k, n], LU_data.dtype) if unpack_data else meta([0], LU_data.dtype)  # noqa: N806
    P = meta([*batch, m, m], LU_data.dtype) if unpack_pivots else meta([0], LU_data.dtype)  # noqa: N806
    return P, L, U


def _solve_shape(A: TensorMeta, B: TensorMeta, what: str) -> list[Dim]:
    """B's matrices with the batch dims of A and B broadcast."""
    check(B.ndim >= 2, f"{what}: The input tensor B must have at least 2 dimensions.")
    check(A.dtype is B.dtype, f"{what}: Expected A and B to have the same dtype, but found A of type "
          f"{scalar_type_name(A.dtype)} and B of type {scalar_type_name(B.dtype)} instead")
    return [*broadcast_shapes(A.shape[:-2], B.shape[:-2]), *B.shape[-2:]]


@shape_rule("linalg_lu_solve")
def _lu_solve(LU: TensorMeta, pivots: TensorMeta, B: TensorMeta, left: bool = True,  # noqa: N803
              adjoint: bool = False) -> TensorMeta:
    _, n = _square_batch(LU, "linalg.lu_solve")
    check(sym_eq(B.shape[-2] if left else B.shape[-1], n), "linalg.lu_solve: Incompatible shapes of A and B for "
          f"the equation {'AX = B' if left else 'XA = B'} ({dim_str(n)}x{dim_str(n)} and {shape_text(B.shape)})")
    return meta(_solve_shape(LU, B, "linalg.lu_solve"), LU.dtype)


@shape_rule("linalg_solve_triangular")
def _solve_triangular(self: TensorMeta, B: TensorMeta, upper: bool, left: bool = True,
                      unitriangular: bool = False) -> TensorMeta:
    _, n = _square_batch(self, "linalg.solve_triangular")
    check(sym_eq(B.shape[-2] if left else B.shape[-1], n), "linalg.solve_triangular: Incompatible shapes of A "
          f"and B for the equation {'AX = B' if left else 'XA = B'} ({dim_str(n)}x{dim_str(n)} and "
          f"{shape_text(B.shape)})")
    return meta(_solve_shape(self, B, "linalg.solve_triangular"), self.dtype)


@shape_rule("triangular_solve")
def _triangular_solve(self: TensorMeta, A: TensorMeta, upper: bool = True, transpose: bool = False,
                      unitriangular: bool = False) -> tuple[TensorMeta, ...]:
    _, n = _square_batch(A, "triangular_solve")
    check(sym_eq(self.shape[-2], n), f"Incompatible matrix sizes for triangular_solve: each A matrix is "
          f"{dim_str(n)} by {dim_str(n)} but each b matrix is {dim_str(self.shape[-2])} by {dim_str(self.shape[-1])}")
    shape = _solve_shape(A, self, "triangular_solve")
    return meta(shape, self.dtype), meta([*shape[:-2], n, n], A.dtype)


@shape_rule("linalg_ldl_factor_ex")
def _ldl_factor_ex(self: TensorMeta, hermitian: bool = False, check_errors: bool = False) -> tuple[TensorMeta, ...]:
    batch, n = _square_batch(self, "torch.linalg.ldl_factor_ex")
    return meta([*batch, n, n], self.dtype), meta([*batch, n], DType.int32), meta(batch, DType.int32)


@shape_rule("linalg_ldl_factor")
def _ldl_factor(self: TensorMeta, hermitian: bool = False) -> tuple[TensorMeta, ...]:
    return _ldl_factor_ex(self, hermitian)[:2]


@shape_rule("linalg_ldl_solve")
def _ldl_solve(LD: TensorMeta, pivots: TensorMeta, B: TensorMeta, hermitian: bool = False) -> TensorMeta:  # noqa: N803
    _, n = _square_batch(LD, "torch.linalg.ldl_solve")
    check(pivots.dtype is DType.int32, "torch.linalg.ldl_solve: Expected pivots to be integers. Got "
          f"{scalar_type_name(pivots.dtype)}")
    check(sym_eq(B.shape[-2], n), "torch.linalg.ldl_solve: Incompatible shapes of A and B for the equation "
          f"AX = B ({dim_str(n)}x{dim_str(n)} and {shape_text(B.shape)})")
    return meta(_solve_shape(LD, B, "torch.linalg.ldl_solve"), B.dtype)


@shape_rule("geqrf")
def _geqrf(self: TensorMeta) -> tuple[TensorMeta, ...]:
    batch, m, n = _matrices(self, "geqrf")
    return meta([*batch, m, n], self.dtype), meta([*batch, _min_dim(m, n)], self.dtype)


@shape_rule("ormqr")
def _ormqr(self: TensorMeta, input2: TensorMeta, input3: TensorMeta, left: bool = True,
           transpose: bool = False) -> TensorMeta:
    """Q (from self's reflectors and input2's scales) times input3."""
    check(self.ndim >= 2, "torch.ormqr: input must have at least 2 dimensions.")
    check(input3.ndim >= 2, "torch.ormqr: other must have at least 2 dimensions.")
    return meta(list(input3.shape), input3.dtype)


@shape_rule("linalg_householder_product")
def _householder_product(input: TensorMeta, tau: TensorMeta) -> TensorMeta:  # noqa: A002 - torch's name
    batch, m, n = _matrices(input, "torch.linalg.householder_product")
    check(input.dtype is tau.dtype, "torch.linalg.householder_product: tau dtype "
          f"{scalar_type_name(tau.dtype)} does not match input dtype {scalar_type_name(input.dtype)}")
    return meta([*batch, m, n], input.dtype)


@shape_rule("linalg_eig")
def _eig(self: TensorMeta) -> tuple[TensorMeta, ...]:
    batch, n = _square_batch(self, "linalg.eig")
    dtype = _TO_COMPLEX.get(self.dtype, self.dtype)
    return meta([*batch, n], dtype), meta([*batch, n, n], dtype)


@shape_rule("linalg_eigvals")
def _eigvals(self: TensorMeta) -> TensorMeta:
    return _eig(self)[0]


@shape_rule("linalg_matrix_exp", "matrix_exp")
def _matrix_exp(self: TensorMeta) -> TensorMeta:
    batch, n = _square_batch(self, "linalg.matrix_exp")
    return meta([*batch, n, n], self.dtype)


@shape_rule("_linalg_check_errors")
def _check_errors(info: TensorMeta, api_name: str, is_matrix: bool) -> tuple[()]:
    return ()
