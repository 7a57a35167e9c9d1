"""Shape rules: views, copies of views, and the ops that join, split or rearrange tensors.

The dim helpers at the top (exact and ceiling division over symbolic dims,
slice clamping, -1 inference, expand) are shared with indexing.py,
factories.py and linalg.py.

Each view has a stride rule beside its shape rule: a view shares its input's
memory, so its strides follow from the input's (strides.py). ``view`` fails as
torch's does when no strides can express the new shape; ``reshape`` is then a
row-major copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use

from .. import symbolic as _symbolic
from ..dtypes import BY_SCALAR_TYPE, DType, result_type
from ..meta import TensorMeta
from ..symbolic import Dim, dim_str, to_dim
from . import shape_rule, stride_rule
from .common import broadcast_shapes, normalize_dim, product, scalar_type_name, shape_text
from .guards import ShapeGuardError, check, guard_bool, sym_eq, sym_le
from .strides import (
    Strides,
    format_strides,
    is_contiguous,
    known_eq,
    preserved_strides,
    strides_of,
    view_strides,
)

# A static slice bound this large means "to the end": Python slices pass sys.maxsize.
_HUGE = 2**62

VIEW_ERROR = ("view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


# ---------------------------------------------------------------------------- dim helpers


def meta(shape: Sequence[Dim | None], dtype: DType) -> TensorMeta:
    """A TensorMeta whose integer-valued sympy dims are turned back into ints."""
    return TensorMeta(tuple(None if d is None else to_dim(d) for d in shape), dtype)


def to_dims(values: Sequence[Any]) -> list[Dim]:
    """Normalise a SymInt[] argument (sympy.Integer(-1) must compare like -1)."""
    return [to_dim(v) for v in values]


def scalar_type(value: Any) -> DType | None:
    """A ScalarType argument: a DType, None, or a schema default printed as a number
    (``dtype=4``) or as a C++ name (``dtype=long``)."""
    if value is None or isinstance(value, DType):
        return value
    if isinstance(value, int):
        return BY_SCALAR_TYPE[value]
    return _SCALAR_TYPE_NAMES.get(value) or DType[value]


_SCALAR_TYPE_NAMES = {
    "long": DType.int64, "int": DType.int32, "float": DType.float32,
    "double": DType.float64, "half": DType.float16,
}


def exact_div(a: Dim, b: Dim) -> Dim:
    """``a // b``, kept exact when sympy proves that b divides a (6*s0 // 3 -> 2*s0)."""
    if type(a) is int and type(b) is int:
        return a // b
    quotient = sympy.sympify(a) / b
    if quotient.is_integer:
        return to_dim(quotient)
    return to_dim(_symbolic.FloorDiv(a, b))


def ceil_div(a: Dim, b: Dim) -> Dim:
    """``ceil(a / b)`` for a positive b, as _symbolic.FloorDiv(a + b - 1, b) when not exact."""
    if type(a) is int and type(b) is int:
        return -(-a // b)
    quotient = sympy.sympify(a) / b
    if quotient.is_integer:
        return to_dim(quotient)
    return to_dim(_symbolic.FloorDiv(a + b - 1, b))


def nonneg(value: Dim) -> bool:
    """value >= 0, asked in this direction so that the size-oblivious default says yes."""
    if type(value) is int:
        return value >= 0
    return guard_bool(sympy.Ge(value, 0))


def sym_min(a: Dim, b: Dim) -> Dim:
    return a if sym_le(a, b) else b


def static_count(count: Dim, what: str, size: Dim) -> int:
    """A number of outputs must be static: a Tensor[] result has a fixed length."""
    count = to_dim(count)
    if type(count) is not int:
        raise ShapeGuardError(
            f"{what}: the number of pieces ({dim_str(count)}) depends on the symbolic size "
            f"{dim_str(size)}; a list of tensors needs a static length"
        )
    return count


def _clamp_bound(index: Dim | None, size: Dim, default: Dim) -> Dim:
    """torch's slice bound: None -> default, negative counts from the end, clamp to [0, size]."""
    if index is None:
        return default
    if type(index) is int and abs(index) >= _HUGE:
        return size if index > 0 else 0
    if not nonneg(index):
        index = index + size
        if not nonneg(index):
            return 0
    return index if sym_le(index, size) else size


def slice_length(size: Dim, start: Dim | None, end: Dim | None, step: Dim) -> Dim:
    check(nonneg(to_dim(step) - 1), "slice step must be positive")
    lo = _clamp_bound(to_dim(start) if start is not None else None, size, 0)
    hi = _clamp_bound(to_dim(end) if end is not None else None, size, size)
    if not sym_le(lo, hi):
        return 0
    return ceil_div(hi - lo, to_dim(step))


def infer_size(sizes: Sequence[Dim], numel: Dim, invalid: Callable[[], str]) -> list[Dim]:
    """Fill the one -1 of a view size list so that the list holds numel elements."""
    out = to_dims(sizes)
    holes = [i for i, s in enumerate(out) if type(s) is int and s == -1]
    check(len(holes) <= 1, "only one dimension can be inferred")
    for s in out:
        check(not (type(s) is int and s < -1), f"invalid shape dimension {s}")
    known = product([s for i, s in enumerate(out) if i not in holes])
    if not holes:
        if not sym_eq(known, numel):
            raise ShapeGuardError(invalid())
        return out
    if sym_eq(known, 0):
        check(not sym_eq(numel, 0),
              f"cannot reshape tensor of 0 elements into shape {shape_text(out)} because the "
              "unspecified dimension size -1 can be any value and is ambiguous")
        raise ShapeGuardError(invalid())
    quotient = exact_div(numel, known)
    # Divisibility is asked as an equation rather than Mod(numel, known) == 0: torch asks both,
    # and the size-oblivious default oracle answers every "== 0" with False.
    if not sym_eq(quotient * known, numel):
        raise ShapeGuardError(invalid())
    out[holes[0]] = quotient
    return out


def expand_shape(shape: Sequence[Dim], sizes: Sequence[Dim]) -> list[Dim]:
    """torch's inferExpandGeometry: -1 keeps a dim, size-1 dims stretch, new dims lead."""
    sizes = to_dims(sizes)
    check(len(sizes) >= len(shape),
          f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to "
          f"the number of dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    out: list[Dim] = []
    for i, target in enumerate(sizes):
        if i < lead:
            check(not (type(target) is int and target < 0),
                  f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                  f"non-existing dimension {i}")
            out.append(target)
            continue
        size = shape[i - lead]
        if type(target) is int and target == -1:
            out.append(size)
        elif sym_eq(size, target) or sym_eq(size, 1):
            out.append(target)
        else:
            raise ShapeGuardError(
                f"The expanded size of the tensor ({dim_str(target)}) must match the existing "
                f"size ({dim_str(size)}) at non-singleton dimension {i}.  Target sizes: "
                f"{shape_text(sizes)}.  Tensor sizes: {shape_text(shape)}"
            )
    return out


def _replace(shape: Sequence[Dim], dim: int, new: Sequence[Dim]) -> list[Dim]:
    """shape with dim `dim` replaced by the dims `new` (none: the dim is dropped)."""
    return [*shape[:dim], *new, *shape[dim + 1:]]


# ---------------------------------------------------------------------------- reshaping views


@shape_rule("view", "_unsafe_view", "reshape")
def _view(self: TensorMeta, size: Sequence[Dim]) -> TensorMeta:
    numel = self.numel()
    shape = infer_size(
        size, numel,
        lambda: f"shape '{shape_text(to_dims(size))}' is invalid for input of size "
        f"{dim_str(numel)}",
    )
    return meta(shape, self.dtype)


@stride_rule("view", "_unsafe_view")
def _view_strides(out: TensorMeta, self: TensorMeta, size: Sequence[Dim]) -> Strides | None:
    if self.strides is None:
        return None  # a view of a row-major tensor is row-major
    strides = view_strides(self.shape, self.strides, out.shape)
    check(strides is not None, VIEW_ERROR)
    return strides


@stride_rule("reshape", "reshape_as", "flatten.using_ints")
def _reshape_strides(out: TensorMeta, self: TensorMeta, *_: Any) -> Strides | None:
    """A view when the strides can express the new shape, else a row-major copy."""
    if self.strides is None:
        return None
    return view_strides(self.shape, self.strides, out.shape)


@shape_rule("view_as", "reshape_as")
def _view_as(self: TensorMeta, other: TensorMeta) -> TensorMeta:
    return _view(self, other.shape)


@stride_rule("view_as")
def _view_as_strides(out: TensorMeta, self: TensorMeta, other: TensorMeta) -> Strides | None:
    return _view_strides(out, self, other.shape)


@shape_rule("view.dtype")
def _view_dtype(self: TensorMeta, dtype: Any) -> TensorMeta:
    """Reinterpreting bytes: a size change of the element scales the last dim."""
    new = scalar_type(dtype)
    old_size, new_size = self.dtype.itemsize, new.itemsize
    if old_size == new_size:
        return meta(self.shape, new)
    what = (f"to view {scalar_type_name(self.dtype)} as {scalar_type_name(new)} (different "
            "element sizes)")
    check(self.ndim > 0, f"self.dim() cannot be 0 {what}")
    last = self.shape[-1]
    if old_size > new_size:
        return meta([*self.shape[:-1], last * (old_size // new_size)], new)
    ratio = new_size // old_size
    check(sym_eq(exact_div(last, ratio) * ratio, last),
          f"self.size(-1) must be divisible by {ratio} {what}, but got {dim_str(last)}")
    return meta([*self.shape[:-1], exact_div(last, ratio)], new)


@stride_rule("view.dtype")
def _view_dtype_strides(out: TensorMeta, self: TensorMeta, dtype: Any) -> Strides | None:
    """Items of another size rescale every stride but the last, which must be 1."""
    old_size, new_size = self.dtype.itemsize, out.dtype.itemsize
    if old_size == new_size or self.strides is None:
        return self.strides
    check(known_eq(self.strides[-1], 1), f"self.stride(-1) must be 1 to view {scalar_type_name(self.dtype)} "
          f"as {scalar_type_name(out.dtype)} (different element sizes)")
    if old_size > new_size:
        return (*(s * (old_size // new_size) for s in self.strides[:-1]), 1)
    return (*(exact_div(s, new_size // old_size) for s in self.strides[:-1]), 1)


@shape_rule("flatten.using_ints")
def _flatten(self: TensorMeta, start_dim: int = 0, end_dim: int = -1) -> TensorMeta:
    if self.ndim == 0:
        normalize_dim(start_dim, 0)
        normalize_dim(end_dim, 0)
        return meta([1], self.dtype)
    start, end = normalize_dim(start_dim, self.ndim), normalize_dim(end_dim, self.ndim)
    check(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim")
    merged = product(self.shape[start:end + 1])
    return meta([*self.shape[:start], merged, *self.shape[end + 1:]], self.dtype)


@shape_rule("unflatten.int")
def _unflatten(self: TensorMeta, dim: int, sizes: Sequence[Dim]) -> TensorMeta:
    d = normalize_dim(dim, self.ndim)
    check(len(sizes) > 0, "unflatten: sizes must be non-empty")
    size = self.shape[d]
    new = infer_size(
        sizes, size,
        lambda: f"unflatten: Provided sizes {shape_text(to_dims(sizes))} don't multiply up to the "
        f"size of dim {dim} ({dim_str(size)}) in the input tensor",
    )
    return meta(_replace(self.shape, d, new), self.dtype)


@stride_rule("unflatten.int")
def _unflatten_strides(out: TensorMeta, self: TensorMeta, dim: int, sizes: Sequence[Dim]) -> Strides | None:
    return _view_strides(out, self, out.shape)  # splitting one dim: always a view


@shape_rule("resize_")
def _resize(self: TensorMeta, size: Sequence[Dim], *_: Any) -> TensorMeta:
    sizes = to_dims(size)
    for s in sizes:
        check(not (type(s) is int and s < 0), f"Trying to create tensor with negative dimension "
              f"{s}: {shape_text(sizes)}")
    return meta(sizes, self.dtype)


# resize_ to the template's sizes
@shape_rule("resize_as_")
def _resize_as(self: TensorMeta, the_template: TensorMeta, *_: Any) -> TensorMeta:
    return meta(the_template.shape, self.dtype)


# ---------------------------------------------------------------------------- dim reordering


@shape_rule("permute")
def _permute(self: TensorMeta, dims: Sequence[int]) -> TensorMeta:
    check(len(dims) == self.ndim,
          "permute(): number of dimensions in the tensor input does not match the length of the "
          f"desired ordering of dimensions i.e. input.dim() = {self.ndim} is not equal to "
          f"len(dims) = {len(dims)}")
    order = [normalize_dim(d, self.ndim) for d in dims]
    check(len(set(order)) == len(order), "permute(): duplicate dims are not allowed.")
    return meta([self.shape[d] for d in order], self.dtype)


@stride_rule("permute")
def _permute_strides(out: TensorMeta, self: TensorMeta, dims: Sequence[int]) -> Strides:
    strides = strides_of(self)
    return tuple(strides[normalize_dim(d, self.ndim)] for d in dims)


@shape_rule("transpose.int", "transpose_", "swapaxes", "swapaxes_", "swapdims", "swapdims_")
def _transpose(self: TensorMeta, dim0: int, dim1: int) -> TensorMeta:
    a, b = normalize_dim(dim0, self.ndim), normalize_dim(dim1, self.ndim)
    if self.ndim == 0:
        return self
    shape = list(self.shape)
    shape[a], shape[b] = shape[b], shape[a]
    return meta(shape, self.dtype)


@stride_rule("transpose.int", "transpose_", "swapaxes", "swapaxes_", "swapdims", "swapdims_")
def _transpose_strides(out: TensorMeta, self: TensorMeta, dim0: int, dim1: int) -> Strides | None:
    if self.ndim == 0:
        return self.strides
    a, b = normalize_dim(dim0, self.ndim), normalize_dim(dim1, self.ndim)
    strides = list(strides_of(self))
    strides[a], strides[b] = strides[b], strides[a]
    return tuple(strides)


@shape_rule("t", "t_")
def _t(self: TensorMeta) -> TensorMeta:
    check(self.ndim <= 2, f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return meta(self.shape[::-1], self.dtype)


@stride_rule("t", "t_")
def _t_strides(out: TensorMeta, self: TensorMeta) -> Strides:
    return strides_of(self)[::-1]


@shape_rule("movedim.int", "moveaxis.int")
def _movedim(self: TensorMeta, source: int, destination: int) -> TensorMeta:
    return _movedim_list(self, [source], [destination])


@shape_rule("movedim.intlist", "moveaxis.intlist")
def _movedim_list(
    self: TensorMeta, source: Sequence[int], destination: Sequence[int]
) -> TensorMeta:
    order = _movedim_order(self.ndim, source, destination)
    return self if self.ndim == 0 else meta([self.shape[d] for d in order], self.dtype)


@stride_rule("movedim.int", "moveaxis.int")
def _movedim_strides(out: TensorMeta, self: TensorMeta, source: int, destination: int) -> Strides | None:
    return _movedim_list_strides(out, self, [source], [destination])


@stride_rule("movedim.intlist", "moveaxis.intlist")
def _movedim_list_strides(
    out: TensorMeta, self: TensorMeta, source: Sequence[int], destination: Sequence[int]
) -> Strides | None:
    if self.ndim == 0:
        return self.strides
    strides = strides_of(self)
    return tuple(strides[d] for d in _movedim_order(self.ndim, source, destination))


def _movedim_order(ndim: int, source: Sequence[int], destination: Sequence[int]) -> list[int]:
    """For each result dim, the input dim movedim puts there."""
    check(len(source) == len(destination),
          f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
          f"contain the same number of dims as destination ({list(destination)} dims)")
    src = [normalize_dim(d, ndim) for d in source]
    dst = [normalize_dim(d, ndim) for d in destination]
    check(len(set(src)) == len(src), f"movedim: repeated dim in `source` ({list(source)})")
    check(len(set(dst)) == len(dst),
          f"movedim: repeated dim in `destination` ({list(destination)})")
    if ndim == 0:
        return []
    order: list[int | None] = [None] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    # Dims not moved keep their relative order in the free slots.
    rest = iter(i for i in range(ndim) if i not in src)
    return [o if o is not None else next(rest) for o in order]


@shape_rule("rot90")
def _rot90(self: TensorMeta, k: int = 1, dims: Sequence[int] = (0, 1)) -> TensorMeta:
    check(len(dims) == 2, f"expected total rotation dims == 2, but got dims = {len(dims)}")
    check(self.ndim >= 2, f"expected total dims >= 2, but got total dims = {self.ndim}")
    a, b = normalize_dim(dims[0], self.ndim), normalize_dim(dims[1], self.ndim)
    check(a != b, f"expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}")
    if k % 2 == 0:
        return self
    return _transpose(self, a, b)


# ---------------------------------------------------------------------------- size-1 dims


@shape_rule("squeeze", "squeeze_")
def _squeeze(self: TensorMeta) -> TensorMeta:
    return meta([self.shape[i] for i in _kept_dims(self, None)], self.dtype)


@shape_rule("squeeze.dim", "squeeze_.dim")
def _squeeze_dim(self: TensorMeta, dim: int) -> TensorMeta:
    return _squeeze_dims(self, [dim])


@shape_rule("squeeze.dims", "squeeze_.dims")
def _squeeze_dims(self: TensorMeta, dim: Sequence[int]) -> TensorMeta:
    """Only listed dims of size 1 go; squeezing a dim of another size is a no-op."""
    kept = _kept_dims(self, dim)
    return self if self.ndim == 0 else meta([self.shape[i] for i in kept], self.dtype)


@stride_rule("squeeze", "squeeze_", "squeeze.dim", "squeeze_.dim", "squeeze.dims", "squeeze_.dims")
def _squeeze_strides(out: TensorMeta, self: TensorMeta, dim: Any = None) -> Strides | None:
    if self.strides is None or self.ndim == 0:
        return self.strides
    kept = _kept_dims(self, None if dim is None else [dim] if isinstance(dim, int) else dim)
    return tuple(self.strides[i] for i in kept)


def _kept_dims(self: TensorMeta, dims: Sequence[int] | None) -> list[int]:
    """The dims squeeze keeps: all but those of size 1 (among ``dims`` when given)."""
    if dims is None:
        return [i for i, d in enumerate(self.shape) if not sym_eq(d, 1)]
    wanted = [normalize_dim(d, self.ndim) for d in dims]
    check(len(set(wanted)) == len(wanted),
          f"dim {list(dims)} appears multiple times in the list of dims")
    drop = {d for d in wanted if self.ndim and sym_eq(self.shape[d], 1)}
    return [i for i in range(self.ndim) if i not in drop]


@shape_rule("unsqueeze", "unsqueeze_")
def _unsqueeze(self: TensorMeta, dim: int) -> TensorMeta:
    d = normalize_dim(dim, self.ndim + 1)
    return meta([*self.shape[:d], 1, *self.shape[d:]], self.dtype)


@stride_rule("unsqueeze", "unsqueeze_")
def _unsqueeze_strides(out: TensorMeta, self: TensorMeta, dim: int) -> Strides | None:
    """The new dim's stride spans the dim it goes before (1 at the end)."""
    if self.strides is None:
        return None
    d = normalize_dim(dim, self.ndim + 1)
    new = 1 if d >= self.ndim else self.shape[d] * self.strides[d]
    return (*self.strides[:d], new, *self.strides[d:])


@shape_rule("expand")
def _expand(self: TensorMeta, size: Sequence[Dim], implicit: bool = False) -> TensorMeta:
    return meta(expand_shape(self.shape, size), self.dtype)


@stride_rule("expand")
def _expand_strides(out: TensorMeta, self: TensorMeta, size: Any = None, implicit: bool = False) -> Strides:
    """A stretched or new dim has stride 0 (ATen's inferExpandGeometry)."""
    strides = strides_of(self)
    lead = out.ndim - self.ndim
    result: list[Dim] = [0] * out.ndim
    for i in range(out.ndim - 1, -1, -1):
        if i >= lead:
            size_i, stride = self.shape[i - lead], strides[i - lead]
        else:
            size_i, stride = 1, out.shape[i + 1] * result[i + 1] if i + 1 < out.ndim else 1
        result[i] = stride if known_eq(size_i, out.shape[i]) else 0
    return tuple(result)


@shape_rule("expand_as")
def _expand_as(self: TensorMeta, other: TensorMeta) -> TensorMeta:
    return _expand(self, other.shape)


@stride_rule("expand_as")
def _expand_as_strides(out: TensorMeta, self: TensorMeta, other: TensorMeta) -> Strides:
    return _expand_strides(out, self)


# ---------------------------------------------------------------------------- joining


def _cat_skipped(t: TensorMeta) -> bool:
    """torch.cat ignores 1-D empty tensors (a legacy of torch.Tensor() being [0])."""
    return t.ndim == 1 and sym_eq(t.shape[0], 0)


@shape_rule("block_diag")
def _block_diag(tensors: Sequence[TensorMeta]) -> TensorMeta:
    """Matrices along the diagonal (a 0-d or 1-d tensor is one row), in the promoted dtype."""
    rows: Dim = 0
    cols: Dim = 0
    for i, t in enumerate(tensors):
        check(t.ndim <= 2, f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} "
              f"has {t.ndim} dimensions")
        shape = t.shape if t.ndim == 2 else (1, t.numel())
        rows, cols = rows + shape[0], cols + shape[1]
    return meta([rows, cols], result_type(*tensors) if tensors else DType.float32)


@shape_rule("cat")
def cat_meta(tensors: Sequence[TensorMeta], dim: int = 0) -> TensorMeta:
    check(len(tensors) > 0, "torch.cat(): expected a non-empty list of Tensors")
    dtype = result_type(*tensors)
    for i, t in enumerate(tensors):
        check(t.ndim > 0, f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if not _cat_skipped(t)]
    if not kept:
        return meta([0], dtype)
    ref = kept[0][1]
    d = normalize_dim(dim, ref.ndim)
    total: Dim = 0
    for i, t in kept:
        check(t.ndim == ref.ndim,
              f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}")
        for k, (want, got) in enumerate(zip(ref.shape, t.shape)):
            if k != d and not sym_eq(want, got):
                raise ShapeGuardError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{dim_str(want)} but got size {dim_str(got)} for tensor number {i} in the "
                    "list."
                )
        total = total + t.shape[d]
    return meta(_replace(ref.shape, d, [total]), dtype)


def chunk_cat_dim(ndims: Sequence[int], dim: int) -> int:
    """_chunk_cat's dim: wrapped when the tensors agree on rank, else it must be non-negative."""
    if len(set(ndims)) == 1:
        return normalize_dim(dim, ndims[0])
    check(dim >= 0, "_chunk_cat expects non-negative dim when input tensors have different ndims")
    check(all(dim < n for n in ndims), "_chunk_cat expects dim < ndim for all input tensors")
    return dim


# each tensor padded along dim to a multiple of num_chunks, split into num_chunks rows, the rows concatenated
@shape_rule("_chunk_cat")
def _chunk_cat(tensors: Sequence[TensorMeta], dim: int, num_chunks: int) -> TensorMeta:
    check(num_chunks >= 1, "_chunk_cat expects positive num_chunks")
    check(len(tensors) > 0, "_chunk_cat expects a non-empty input tensor list")
    check(all(t.dtype == tensors[0].dtype for t in tensors), "_chunk_cat expects all input tensors with the same dtype")
    d = chunk_cat_dim([t.ndim for t in tensors], dim)
    lead = tensors[0].shape[:d]
    check(all(len(t.shape[:d]) == len(lead) and all(sym_eq(a, b) for a, b in zip(t.shape[:d], lead)) for t in tensors),
          "_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
    width: Dim = 0
    for t in tensors:
        width = width + ceil_div(t.shape[d], num_chunks) * product(t.shape[d + 1:])
    return meta([*lead, num_chunks, width], tensors[0].dtype)


@shape_rule("stack")
def _stack(tensors: Sequence[TensorMeta], dim: int = 0) -> TensorMeta:
    check(len(tensors) > 0, "stack expects a non-empty TensorList")
    ref = tensors[0]
    for i, t in enumerate(tensors):
        same = t.ndim == ref.ndim and all(sym_eq(a, b) for a, b in zip(ref.shape, t.shape))
        check(same, f"stack expects each tensor to be equal size, but got {shape_text(ref.shape)} "
              f"at entry 0 and {shape_text(t.shape)} at entry {i}")
    d = normalize_dim(dim, ref.ndim + 1)
    return meta([*ref.shape[:d], len(tensors), *ref.shape[d:]], result_type(*tensors))


# ---------------------------------------------------------------------------- splitting


def _pieces(self: TensorMeta, d: int, sizes: Sequence[Dim]) -> list[TensorMeta]:
    return [meta(_replace(self.shape, d, [s]), self.dtype) for s in sizes]


@stride_rule("split.Tensor", "unsafe_split.Tensor", "split.sizes", "split_with_sizes",
             "unsafe_split_with_sizes", "chunk", "unsafe_chunk", "tensor_split.sections",
             "tensor_split.indices")
def _pieces_strides(out: list[TensorMeta], self: TensorMeta, *_: Any) -> list[Strides]:
    """Each piece is a narrowed view: the input's strides."""
    return [strides_of(self)] * len(out)


@shape_rule("split.Tensor", "unsafe_split.Tensor")
def _split(self: TensorMeta, split_size: Dim, dim: int = 0) -> list[TensorMeta]:
    check(self.ndim > 0, "split expects at least a 1-dimensional tensor")
    d = normalize_dim(dim, self.ndim)
    size, step = self.shape[d], to_dim(split_size)
    check(not (type(step) is int and step < 0),
          f"split expects split_size be non-negative, but got split_size={step}")
    if type(step) is int and step == 0:
        check(sym_eq(size, 0), "split_size can only be 0 if dimension size is 0, but got "
              f"dimension size of {dim_str(size)}")
        return [self]
    count = max(static_count(ceil_div(size, step), "split", size), 1)
    last = size - step * (count - 1)
    return _pieces(self, d, [step] * (count - 1) + [last])


@shape_rule("split.sizes", "split_with_sizes", "unsafe_split_with_sizes")
def _split_with_sizes(
    self: TensorMeta, split_sizes: Sequence[Dim], dim: int = 0
) -> list[TensorMeta]:
    check(self.ndim > 0, "split expects at least a 1-dimensional tensor")
    d = normalize_dim(dim, self.ndim)
    sizes = to_dims(split_sizes)
    check(all(not (type(s) is int and s < 0) for s in sizes),
          "split_with_sizes expects split_sizes have only non-negative entries, but got "
          f"split_sizes={shape_text(sizes)}")
    size = self.shape[d]
    check(sym_eq(sum(sizes, 0), size),
          f"split_with_sizes expects split_sizes to sum exactly to {dim_str(size)} (input "
          f"tensor's size at dimension {d}), but got split_sizes={shape_text(sizes)}")
    return _pieces(self, d, sizes)


@shape_rule("chunk", "unsafe_chunk")
def _chunk(self: TensorMeta, chunks: int, dim: int = 0) -> list[TensorMeta]:
    check(self.ndim > 0, "chunk expects at least a 1-dimensional tensor")
    check(chunks > 0, f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = normalize_dim(dim, self.ndim)
    size = self.shape[d]
    step = ceil_div(size, chunks)
    count = to_dim(ceil_div(size, step)) if not sym_eq(step, 0) else 1
    # A symbolic size usually gives `chunks` pieces; the guard records that it does.
    if type(count) is not int and sym_eq(count, chunks):
        count = chunks
    count = static_count(count, "chunk", size)
    return _pieces(self, d, [step] * (count - 1) + [size - step * (count - 1)])


@shape_rule("unbind.int")
def _unbind(self: TensorMeta, dim: int = 0) -> list[TensorMeta]:
    check(self.ndim > 0, "Dimension specified as 0 but tensor has no dimensions")
    d = normalize_dim(dim, self.ndim)
    count = static_count(self.shape[d], "unbind", self.shape[d])
    piece = meta(_replace(self.shape, d, []), self.dtype)
    return [piece] * count


@stride_rule("unbind.int")
def _unbind_strides(out: list[TensorMeta], self: TensorMeta, dim: int = 0) -> list[Strides]:
    return [_select_strides(piece, self, dim, i) for i, piece in enumerate(out)]


@shape_rule("tensor_split.sections")
def _tensor_split_sections(self: TensorMeta, sections: Dim, dim: int = 0) -> list[TensorMeta]:
    check(self.ndim > 0, "tensor_split expected at least a 1-dimensional tensor, but got a "
          "tensor with 0 dims")
    count = static_count(sections, "tensor_split", sections)
    check(count > 0, f"number of sections must be larger than 0, got {count}")
    d = normalize_dim(dim, self.ndim)
    size = self.shape[d]
    # The first size % n pieces get one extra element: piece i has (size + n - 1 - i) // n.
    return _pieces(self, d, [exact_div(size + count - 1 - i, count) for i in range(count)])


@shape_rule("tensor_split.indices")
def _tensor_split_indices(
    self: TensorMeta, indices: Sequence[Dim], dim: int = 0
) -> list[TensorMeta]:
    check(self.ndim > 0, "tensor_split expected at least a 1-dimensional tensor, but got a "
          "tensor with 0 dims")
    d = normalize_dim(dim, self.ndim)
    bounds: list[Dim | None] = [0, *to_dims(indices), None]
    size = self.shape[d]
    return _pieces(self, d, [slice_length(size, a, b, 1) for a, b in pairwise(bounds)])


# ---------------------------------------------------------------------------- sub-tensor views


@shape_rule("slice.Tensor")
def slice_meta(
    self: TensorMeta, dim: int = 0, start: Dim | None = None, end: Dim | None = None,
    step: Dim = 1,
) -> TensorMeta:
    check(self.ndim > 0, "slice() cannot be applied to a 0-dim tensor.")
    d = normalize_dim(dim, self.ndim)
    return meta(_replace(self.shape, d, [slice_length(self.shape[d], start, end, step)]),
                self.dtype)


@stride_rule("slice.Tensor")
def _slice_strides(
    out: TensorMeta, self: TensorMeta, dim: int = 0, start: Any = None, end: Any = None, step: Dim = 1,
) -> Strides:
    """Every ``step``-th element: the dim's stride times the step."""
    strides = list(strides_of(self))
    d = normalize_dim(dim, self.ndim)
    strides[d] = strides[d] * to_dim(step)
    return tuple(strides)


@shape_rule("select.int")
def select_meta(self: TensorMeta, dim: int, index: Dim) -> TensorMeta:
    check(self.ndim > 0, "select() cannot be applied to a 0-dim tensor.")
    d = normalize_dim(dim, self.ndim)
    size, index = self.shape[d], to_dim(index)
    inside = sym_le(-size, index) and sym_le(index + 1, size)
    check(inside, f"select(): index {dim_str(index)} out of range for tensor of size "
          f"{shape_text(self.shape)} at dimension {d}")
    return meta(_replace(self.shape, d, []), self.dtype)


@stride_rule("select.int")
def _select_strides(out: TensorMeta, self: TensorMeta, dim: int, index: Any) -> Strides:
    return tuple(_replace(strides_of(self), normalize_dim(dim, self.ndim), []))


@shape_rule("narrow")
def _narrow(self: TensorMeta, dim: int, start: Dim, length: Dim) -> TensorMeta:
    check(self.ndim > 0, "narrow() cannot be applied to a 0-dim tensor.")
    d = normalize_dim(dim, self.ndim)
    size, start, length = self.shape[d], to_dim(start), to_dim(length)
    check(nonneg(length), "narrow(): length must be non-negative.")
    if type(start) is int and start < 0:
        start = start + size
    check(sym_le(start + length, size),
          f"start ({dim_str(start)}) + length ({dim_str(length)}) exceeds dimension size "
          f"({dim_str(size)}).")
    return meta(_replace(self.shape, d, [length]), self.dtype)


@stride_rule("narrow")
def _narrow_strides(out: TensorMeta, self: TensorMeta, *_: Any) -> Strides:
    return strides_of(self)


@shape_rule("diagonal")
def diagonal_meta(
    self: TensorMeta, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> TensorMeta:
    a, b = normalize_dim(dim1, self.ndim), normalize_dim(dim2, self.ndim)
    check(a != b, f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rows, cols = self.shape[a], self.shape[b]
    length = sym_min(rows, cols - offset) if offset >= 0 else sym_min(rows + offset, cols)
    length = length if nonneg(length) else 0
    rest = [s for i, s in enumerate(self.shape) if i not in (a, b)]
    return meta([*rest, length], self.dtype)


@stride_rule("diagonal")
def _diagonal_strides(out: TensorMeta, self: TensorMeta, offset: int = 0, dim1: int = 0,
                      dim2: int = 1) -> Strides:
    """One step along the diagonal is one step along each of its dims."""
    a, b = normalize_dim(dim1, self.ndim), normalize_dim(dim2, self.ndim)
    strides = strides_of(self)
    rest = [s for i, s in enumerate(strides) if i not in (a, b)]
    return (*rest, strides[a] + strides[b])


@shape_rule("as_strided", "as_strided_")
def _as_strided(
    self: TensorMeta, size: Sequence[Dim], stride: Sequence[Dim], storage_offset: Any = None
) -> TensorMeta:
    check(len(size) == len(stride), "mismatch in length of strides and shape")
    return meta(to_dims(size), self.dtype)


@stride_rule("as_strided", "as_strided_")
def _as_strided_strides(out: TensorMeta, self: TensorMeta, size: Any, stride: Sequence[Dim],
                        storage_offset: Any = None) -> Strides:
    return tuple(to_dims(stride))


@shape_rule("unfold")
def _unfold(self: TensorMeta, dimension: int, size: Dim, step: Dim) -> TensorMeta:
    d = normalize_dim(dimension, self.ndim)
    length = self.shape[d] if self.ndim > 0 else 1
    check(sym_le(size, length),
          f"maximum size for tensor at dimension {d} is {dim_str(length)} but size is "
          f"{dim_str(size)}")
    check(nonneg(to_dim(step) - 1), f"step is {step} but must be > 0")
    windows = exact_div(length - size, step) + 1
    if self.ndim == 0:
        return meta([size], self.dtype)
    return meta([*_replace(self.shape, d, [windows]), size], self.dtype)


@stride_rule("unfold")
def _unfold_strides(out: TensorMeta, self: TensorMeta, dimension: int, size: Dim, step: Dim) -> Strides:
    """Windows start every ``step`` elements; a window steps along the dim."""
    if self.ndim == 0:
        return (1,)
    d = normalize_dim(dimension, self.ndim)
    strides = strides_of(self)
    return (*_replace(strides, d, [strides[d] * to_dim(step)]), strides[d])


# the gradient of unfold: each window's values summed back into a zero input
@shape_rule("unfold_backward")
def _unfold_backward(grad_in: TensorMeta, input_sizes: Sequence[Dim], dim: int, size: int, step: int) -> TensorMeta:
    check(step > 0, f"step is {step} but must be > 0")
    if input_sizes:
        normalize_dim(dim, len(input_sizes))
    return meta(list(input_sizes), grad_in.dtype)


# ---------------------------------------------------------------------------- same shape


@shape_rule("alias", "clone", "contiguous", "detach", "lift_fresh", "lift_fresh_copy")
def _identity(self: TensorMeta, *_: Any) -> TensorMeta:
    return self


@stride_rule("alias", "detach", "lift_fresh")
def _alias_strides(out: TensorMeta, self: TensorMeta) -> Strides | None:
    return self.strides


@stride_rule("contiguous")
def _contiguous_strides(out: TensorMeta, self: TensorMeta, memory_format: Any = 0) -> Strides | None:
    """self when already laid out so, else a copy in the format."""
    if is_contiguous(self, memory_format):
        return self.strides
    return format_strides(self.shape, memory_format)


@stride_rule("clone")
def _clone_strides(out: TensorMeta, self: TensorMeta, memory_format: Any = None) -> Strides | None:
    return preserved_strides(self, memory_format)


@shape_rule("flip")
def _flip(self: TensorMeta, dims: Sequence[int]) -> TensorMeta:
    wanted = [normalize_dim(d, self.ndim) for d in dims]
    check(len(set(wanted)) == len(wanted),
          f"dims has duplicates, original flip dims size={len(wanted)}, but unique flip dims "
          f"size={len(set(wanted))}")
    return self


@shape_rule("roll")
def _roll(self: TensorMeta, shifts: Sequence[Dim], dims: Sequence[int] = ()) -> TensorMeta:
    check(len(shifts) > 0, "`shifts` required")
    flat = len(dims) == 0 and len(shifts) == 1
    check(flat or len(shifts) == len(dims),
          f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    for d in dims:
        normalize_dim(d, self.ndim)
    return self


@shape_rule("tril", "triu")
def _triangle(self: TensorMeta, diagonal: int = 0) -> TensorMeta:
    check(self.ndim >= 2, "tril/triu: input tensor must have at least 2 dimensions")
    return self


@shape_rule("repeat")
def _repeat(self: TensorMeta, repeats: Sequence[Dim]) -> TensorMeta:
    times = to_dims(repeats)
    check(len(times) >= self.ndim, "Number of dimensions of repeat dims can not be smaller than "
          "number of dimensions of tensor")
    padded = [1] * (len(times) - self.ndim) + list(self.shape)
    shape = [s * r for s, r in zip(padded, times)]
    for s in shape:
        check(not (type(s) is int and s < 0),
              f"Trying to create tensor with negative dimension {s}: {shape_text(shape)}")
    return meta(shape, self.dtype)


# ---------------------------------------------------------------------------- composites torch keeps whole


@shape_rule("tile")
def _tile(self: TensorMeta, dims: Sequence[Dim]) -> TensorMeta:
    """repeat, with ones before ``dims`` when the tensor has more dims than it."""
    return _repeat(self, [1] * (self.ndim - len(dims)) + list(dims))


@shape_rule("fliplr")
def _fliplr(self: TensorMeta) -> TensorMeta:
    check(self.ndim >= 2, "Input must be >= 2-d.")
    return self


@shape_rule("flipud")
def _flipud(self: TensorMeta) -> TensorMeta:
    check(self.ndim >= 1, "Input must be >= 1-d.")
    return self


def at_least(t: TensorMeta, rank: int) -> TensorMeta:
    """atleast_{rank}d: a 0-d tensor becomes all ones; a 1-d one gains a leading 1,
    and (rank 3) a 2-d one a trailing 1."""
    shape = list(t.shape)
    if not shape:
        shape = [1] * rank
    elif len(shape) == 1 and rank >= 2:
        shape = [1, *shape, *([1] if rank == 3 else [])]
    elif len(shape) == 2 and rank == 3:
        shape = [*shape, 1]
    return t if len(shape) == t.ndim else meta(shape, t.dtype)


@shape_rule("atleast_1d")
def _atleast_1d(self: TensorMeta) -> TensorMeta:
    return at_least(self, 1)


@shape_rule("atleast_2d")
def _atleast_2d(self: TensorMeta) -> TensorMeta:
    return at_least(self, 2)


@shape_rule("atleast_3d")
def _atleast_3d(self: TensorMeta) -> TensorMeta:
    return at_least(self, 3)


@shape_rule("atleast_1d.Sequence")
def _atleast_1d_all(tensors: Sequence[TensorMeta]) -> list[TensorMeta]:
    return [at_least(t, 1) for t in tensors]


@shape_rule("atleast_2d.Sequence")
def _atleast_2d_all(tensors: Sequence[TensorMeta]) -> list[TensorMeta]:
    return [at_least(t, 2) for t in tensors]


@shape_rule("atleast_3d.Sequence")
def _atleast_3d_all(tensors: Sequence[TensorMeta]) -> list[TensorMeta]:
    return [at_least(t, 3) for t in tensors]


@shape_rule("hstack")
def _hstack(tensors: Sequence[TensorMeta]) -> TensorMeta:
    """cat of the atleast_1d tensors: along dim 0 when the first is 1-d, else dim 1."""
    check(len(tensors) > 0, "hstack expects a non-empty TensorList")
    joined = [at_least(t, 1) for t in tensors]
    return cat_meta(joined, 0 if joined[0].ndim == 1 else 1)


@shape_rule("vstack", "row_stack")
def _vstack(tensors: Sequence[TensorMeta]) -> TensorMeta:
    check(len(tensors) > 0, "vstack expects a non-empty TensorList")
    return cat_meta([at_least(t, 2) for t in tensors], 0)


@shape_rule("dstack")
def _dstack(tensors: Sequence[TensorMeta]) -> TensorMeta:
    check(len(tensors) > 0, "dstack expects a non-empty TensorList")
    return cat_meta([at_least(t, 3) for t in tensors], 2)


@shape_rule("column_stack")
def _column_stack(tensors: Sequence[TensorMeta]) -> TensorMeta:
    """hstack, with each 0-/1-d tensor made a column first."""
    check(len(tensors) > 0, "column_stack expects a non-empty TensorList")
    columns = [meta([product(t.shape), 1], t.dtype) if t.ndim <= 1 else t for t in tensors]
    return _hstack(columns)


@shape_rule("cartesian_prod")
def _cartesian_prod(tensors: Sequence[TensorMeta]) -> TensorMeta:
    """[n1 * n2 * ..., count] rows of the 1-d inputs; one input is itself."""
    check(len(tensors) > 0, "cartesian_prod expects a non-empty TensorList")
    for t in tensors:
        check(t.ndim == 1, f"Expect a 1D vector, but got shape {shape_text(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return meta([product([t.shape[0] for t in tensors]), len(tensors)], result_type(*tensors))


@shape_rule("meshgrid")
def _meshgrid(tensors: Sequence[TensorMeta]) -> list[TensorMeta]:
    return _meshgrid_indexing(tensors, "ij")


@shape_rule("meshgrid.indexing")
def _meshgrid_indexing(tensors: Sequence[TensorMeta], indexing: str) -> list[TensorMeta]:
    """Every 0-/1-d input expanded to [n0, n1, ...] ('xy': [n1, n0, ...])."""
    check(len(tensors) > 0, "torch.meshgrid: Expected at least one tensor")
    check(indexing in ("ij", "xy"), f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        check(t.ndim <= 1, f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.ndim}-d")
        check(t.dtype is tensors[0].dtype, "torch.meshgrid: Expected all tensors in the tensor list to have the same dtype")
    sizes = [product(t.shape) for t in tensors]
    if indexing == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    return [meta(sizes, t.dtype) for t in tensors]


@stride_rule("meshgrid")
def _meshgrid_strides(out: list[TensorMeta], tensors: Sequence[TensorMeta]) -> list[Strides]:
    return _meshgrid_indexing_strides(out, tensors, "ij")


@stride_rule("meshgrid.indexing")
def _meshgrid_indexing_strides(out: list[TensorMeta], tensors: Sequence[TensorMeta], indexing: str) -> list[Strides]:
    """Each input viewed along its own dim (the first two swapped for 'xy'), then expanded."""
    dims = list(range(len(tensors)))
    if indexing == "xy" and len(dims) >= 2:
        dims[0], dims[1] = 1, 0
    strides = []
    for t, d, grid in zip(tensors, dims, out, strict=True):
        shape = [grid.shape[d] if i == d else 1 for i in range(grid.ndim)]
        viewed = view_strides(t.shape, strides_of(t), shape)
        strides.append(_expand_strides(grid, TensorMeta(tuple(shape), t.dtype, viewed)))
    return strides


@shape_rule("broadcast_tensors")
def _broadcast_tensors(tensors: Sequence[TensorMeta]) -> list[TensorMeta]:
    check(len(tensors) > 0, "broadcast_tensors expects a non-empty TensorList")
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return [meta(shape, t.dtype) for t in tensors]


@stride_rule("broadcast_tensors")
def _broadcast_tensors_strides(out: list[TensorMeta], tensors: Sequence[TensorMeta]) -> list[Strides]:
    """An input of the common shape is itself; the others are expanded (ATen's expand_outplace)."""
    return [_expand_strides(result, t) for result, t in zip(out, tensors, strict=True)]


@shape_rule("diag")
def _diag(self: TensorMeta, diagonal: int = 0) -> TensorMeta:
    """A vector's diagonal matrix (diag_embed), or a matrix's diagonal (a copy of diagonal)."""
    check(self.ndim in (1, 2), f"diag(): Supports 1D or 2D tensors. Got {self.ndim}D")
    if self.ndim == 1:
        return _diag_embed(self, diagonal)
    return diagonal_meta(self, diagonal)


@shape_rule("diagflat")
def _diagflat(self: TensorMeta, offset: int = 0) -> TensorMeta:
    return _diag(meta([product(self.shape)], self.dtype), offset)


@shape_rule("repeat_interleave.self_int")
def _repeat_interleave_int(
    self: TensorMeta, repeats: Dim, dim: int | None = None, output_size: Dim | None = None
) -> TensorMeta:
    check(nonneg(to_dim(repeats)), "repeats can not be negative")
    if dim is None:
        return meta([output_size if output_size is not None else self.numel() * repeats],
                    self.dtype)
    d = normalize_dim(dim, self.ndim)
    if self.ndim == 0:
        return meta([output_size if output_size is not None else repeats], self.dtype)
    new = output_size if output_size is not None else self.shape[d] * repeats
    return meta(_replace(self.shape, d, [new]), self.dtype)


@shape_rule("repeat_interleave.self_Tensor")
def _repeat_interleave_tensor(
    self: TensorMeta, repeats: TensorMeta, dim: int | None = None, output_size: Dim | None = None
) -> TensorMeta:
    """The output length is the sum of the repeat values: data-dependent unless given."""
    if dim is None or self.ndim == 0:
        return meta([output_size], self.dtype)
    d = normalize_dim(dim, self.ndim)
    return meta(_replace(self.shape, d, [output_size]), self.dtype)


@shape_rule("repeat_interleave.Tensor")
def _repeat_interleave_counts(repeats: TensorMeta, output_size: Dim | None = None) -> TensorMeta:
    check(repeats.ndim == 1, "repeat_interleave only accept 1D vector as repeat")
    return meta([output_size], repeats.dtype)


# ---------------------------------------------------------------------------- dtype changes


@shape_rule("_to_copy")
def _to_copy(self: TensorMeta, dtype: Any = None, *_: Any) -> TensorMeta:
    return meta(self.shape, scalar_type(dtype) or self.dtype)


@stride_rule("_to_copy")
def _to_copy_strides(out: TensorMeta, self: TensorMeta, *args: Any) -> Strides | None:
    return preserved_strides(self, args[-1] if args else None)


@stride_rule("to.dtype", "to.dtype_layout", "to.device", "to.other")
def _to_strides(out: TensorMeta, self: TensorMeta, *args: Any) -> Strides | None:
    """self itself when nothing changes and no copy is asked for (the last two
    arguments of every ``to``: copy, memory_format), else a _to_copy."""
    copy, memory_format = args[-2:]
    if out.dtype is self.dtype and not copy:
        return self.strides
    return preserved_strides(self, memory_format)


@shape_rule("to.dtype", "to.dtype_layout")
def _to_dtype(self: TensorMeta, dtype: Any = None, *_: Any) -> TensorMeta:
    return _to_copy(self, dtype)


@shape_rule("to.device")
def _to_device(self: TensorMeta, device: Any, dtype: Any, *_: Any) -> TensorMeta:
    return _to_copy(self, dtype)


@shape_rule("to.other", "type_as")
def _to_other(self: TensorMeta, other: TensorMeta, *_: Any) -> TensorMeta:
    return meta(self.shape, other.dtype)


@stride_rule("type_as")
def _type_as_strides(out: TensorMeta, self: TensorMeta, other: TensorMeta) -> Strides | None:
    return self.strides if out.dtype is self.dtype else preserved_strides(self)


@shape_rule("diag_embed")
def _diag_embed(self: TensorMeta, offset: int = 0, dim1: int = -2, dim2: int = -1) -> TensorMeta:
    """The last dim becomes the diagonal of a (n + |offset|)-square in dims dim1, dim2 of the result."""
    rank = self.ndim + 1
    a, b = normalize_dim(dim1, rank), normalize_dim(dim2, rank)
    check(a != b, f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = (self.shape[-1] if self.ndim else 1) + abs(offset)
    rest = iter(self.shape[:-1])
    return meta([size if i in (a, b) else next(rest) for i in range(rank)], self.dtype)
