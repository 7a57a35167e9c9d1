"""``texport.Tensor``: a torch-compatible tensor whose every op goes through the dispatcher.

In eager mode ``_value`` is a numpy array; the tracing mode of export gives
tensors a symbolic value instead. Methods never look at which: they call op
handles, and the current mode decides what a call means.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from texport.dialects.dtypes import DType
from texport.dialects.registry import OPS
from texport.interpreter.prepacked import note_shared

from .dispatcher import TensorBase, call, current_mode, varargs_list
from .factories import full_like
from .factories import tensor as make_tensor
from .handles import op
from .indexing import getitem, setitem
from .printing import tensor_repr
from .results import minmax_result, sort_result, topk_result


class Size(tuple):
    """``texport.Size([2, 3])``: a tuple of sizes, as torch.Size."""

    def __repr__(self) -> str:
        return f"texport.Size({list(self)})"

    def numel(self) -> int:
        total = 1
        for size in self:
            total = total * size
        return total


class device:  # noqa: N801 - torch's spelling
    """``texport.device('cpu')``: texport runs on the CPU only."""

    def __init__(self, type: str = "cpu", index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type = type.type
        if type.split(":")[0] != "cpu":
            raise RuntimeError(f"texport runs on the CPU; device '{type}' is not available")
        self.type = "cpu"
        self.index = index

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (device, str)) and str(other).split(":")[0] == "cpu"

    def __hash__(self) -> int:
        return hash("cpu")

    def __str__(self) -> str:
        return "cpu"


_CPU = device("cpu")


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


class Tensor(TensorBase):
    """A tensor: a value (numpy array in eager mode), a dtype, a requires_grad flag."""

    __slots__ = ("_value", "_dtype", "requires_grad", "grad", "__weakref__")

    def __init__(self, data: Any = None, dtype: DType | None = None) -> None:
        made = make_tensor([] if data is None else data, dtype=dtype)
        self._value, self._dtype = made._value, made._dtype
        self.requires_grad = False
        self.grad = None

    @staticmethod
    def _make(value: Any, dtype: DType, requires_grad: bool = False) -> Tensor:
        return tensor_of(value, dtype, requires_grad)

    # ---- metadata -------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._value.shape)

    def size(self, dim: int | None = None) -> Any:
        shape = self._value.shape
        if dim is None:
            return Size(shape)
        return shape[dim if dim >= 0 else dim + len(shape)]

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def device(self) -> device:
        return _CPU

    @property
    def ndim(self) -> int:
        return len(self._value.shape)

    def dim(self) -> int:
        return len(self._value.shape)

    def ndimension(self) -> int:
        return self.dim()

    def numel(self) -> Any:
        return Size(self._value.shape).numel()

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    @property
    def is_cuda(self) -> bool:
        return False

    def stride(self, dim: int | None = None) -> Any:
        strides = tuple(call(op("sym_stride.int"), self, d) for d in range(self.dim()))
        return strides if dim is None else strides[dim]

    def is_contiguous(self, memory_format: Any = None) -> bool:
        if memory_format is None:
            return bool(call(op("sym_is_contiguous"), self))
        return bool(call(op("sym_is_contiguous"), self, memory_format))

    def storage_offset(self) -> Any:
        return call(op("sym_storage_offset"), self)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    @property
    def data(self) -> Tensor:
        return Tensor._make(self._value, self._dtype)

    @data.setter
    def data(self, other: Tensor) -> None:
        self._value, self._dtype = other._value, other._dtype

    # ---- Python protocol ------------------------------------------------

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __getitem__(self, index: Any) -> Tensor:
        return getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        setitem(self, index, value)

    # ---- conversions ----------------------------------------------------

    def item(self) -> Any:
        return call(op("item"), self)

    def tolist(self) -> Any:
        return self._concrete("tolist()").tolist()

    def numpy(self) -> Any:
        array = self._concrete("numpy()")
        note_shared(array)  # the caller may write it: no weight packed from its memory
        return array

    def _concrete(self, what: str) -> Any:
        concrete = getattr(current_mode(), "concrete", None)
        return self._value if concrete is None else concrete(self, what)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        dtype = kwargs.get("dtype")
        for arg in args:
            if isinstance(arg, DType):
                dtype = arg
            elif isinstance(arg, Tensor):
                dtype = arg.dtype
            elif not isinstance(arg, (str, device)):
                raise TypeError(f"to() received an invalid argument {arg!r}")
        if dtype is None or dtype is self._dtype:
            return self
        return call(op("to.dtype"), self, dtype)

    def type(self, dtype: DType | None = None) -> Any:
        return f"texport.{self._dtype.torch_name}" if dtype is None else self.to(dtype)

    def type_as(self, other: Tensor) -> Tensor:
        return call(op("type_as"), self, other)  # torch's IR keeps it, even when the dtype is the same

    def cpu(self) -> Tensor:
        return self

    def float(self) -> Tensor:
        return self.to(DType.float32)

    def double(self) -> Tensor:
        return self.to(DType.float64)

    def half(self) -> Tensor:
        return self.to(DType.float16)

    def bfloat16(self) -> Tensor:
        return self.to(DType.bfloat16)

    def long(self) -> Tensor:
        return self.to(DType.int64)

    def int(self) -> Tensor:
        return self.to(DType.int32)

    def short(self) -> Tensor:
        return self.to(DType.int16)

    def char(self) -> Tensor:
        return self.to(DType.int8)

    def byte(self) -> Tensor:
        return self.to(DType.uint8)

    def bool(self) -> Tensor:
        return self.to(DType.bool)

    # ---- views and shapes -----------------------------------------------

    def view(self, *shape: Any) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], DType):
            return call(op("view.dtype"), self, shape[0])
        return call(op("view"), self, varargs_list(shape))

    def reshape(self, *shape: Any) -> Tensor:
        return call(op("reshape"), self, varargs_list(shape))

    def resize_(self, *size: Any, memory_format: Any = None) -> Tensor:
        return call(op("resize_"), self, varargs_list(size), memory_format=memory_format)

    # torch's training IR keeps view_as, reshape_as and expand_as as they are
    # written; functionalization decomposes them (tag decomposed_by_functionalize)
    def view_as(self, other: Tensor) -> Tensor:
        return call(op("view_as"), self, other)

    def reshape_as(self, other: Tensor) -> Tensor:
        return call(op("reshape_as"), self, other)

    def permute(self, *dims: Any) -> Tensor:
        return call(op("permute"), self, varargs_list(dims))

    def expand(self, *sizes: Any) -> Tensor:
        return call(op("expand"), self, varargs_list(sizes))

    def expand_as(self, other: Tensor) -> Tensor:
        return call(op("expand_as"), self, other)

    def repeat(self, *sizes: Any) -> Tensor:
        return call(op("repeat"), self, varargs_list(sizes))

    def flip(self, *dims: Any) -> Tensor:
        return call(op("flip"), self, varargs_list(dims))

    def squeeze(self, dim: Any = None) -> Tensor:
        if dim is None:
            return call(op("squeeze"), self)
        if isinstance(dim, (list, tuple)):
            return call(op("squeeze.dims"), self, list(dim))
        return call(op("squeeze.dim"), self, dim)

    def squeeze_(self, dim: Any = None) -> Tensor:
        if dim is None:
            return call(op("squeeze_"), self)
        if isinstance(dim, (list, tuple)):
            return call(op("squeeze_.dims"), self, list(dim))
        return call(op("squeeze_.dim"), self, dim)

    def split(self, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
        if isinstance(split_size, (list, tuple)):
            return tuple(call(op("split_with_sizes"), self, list(split_size), dim))
        return tuple(call(op("split.Tensor"), self, split_size, dim))

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        return tuple(call(op("chunk"), self, chunks, dim))

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        return tuple(call(op("unbind.int"), self, dim))

    @property
    def T(self) -> Tensor:  # noqa: N802 - torch's spelling
        return self.permute(list(range(self.dim() - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:  # noqa: N802 - torch's spelling
        return self.transpose(-2, -1)

    def new_zeros(self, *size: Any, dtype: DType | None = None) -> Tensor:
        return call(op("new_zeros"), self, varargs_list(size), dtype=dtype)

    def new_ones(self, *size: Any, dtype: DType | None = None) -> Tensor:
        return call(op("new_ones"), self, varargs_list(size), dtype=dtype)

    def new_empty(self, *size: Any, dtype: DType | None = None) -> Tensor:
        return call(op("new_empty"), self, varargs_list(size), dtype=dtype)

    def new_full(self, size: Any, fill_value: Any, dtype: DType | None = None) -> Tensor:
        return call(op("new_full"), self, list(size), fill_value, dtype=dtype)

    def new_tensor(self, data: Any, dtype: DType | None = None) -> Tensor:
        return make_tensor(data, dtype=dtype or self.dtype)

    # ---- reductions with overloads chosen by the arguments ---------------

    def sum(self, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
        if dim is None:
            return call(op("sum"), self, dtype=dtype)
        return call(op("sum.dim_IntList"), self, _as_list(dim), keepdim, dtype=dtype)

    def mean(self, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
        if dim is None:
            return call(op("mean"), self, dtype=dtype)
        return call(op("mean.dim"), self, _as_list(dim), keepdim, dtype=dtype)

    def prod(self, dim: int | None = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
        if dim is None:
            return call(op("prod"), self, dtype=dtype)
        return call(op("prod.dim_int"), self, dim, keepdim, dtype=dtype)

    def max(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _extremum(self, "max", dim, keepdim)

    def min(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _extremum(self, "min", dim, keepdim)

    def var(self, dim: Any = None, unbiased: bool = True, keepdim: bool = False, *, correction: Any = None) -> Tensor:
        correction = (1 if unbiased else 0) if correction is None else correction
        return call(op("var.correction"), self, _as_list(dim), correction=correction, keepdim=keepdim)

    def std(self, dim: Any = None, unbiased: bool = True, keepdim: bool = False, *, correction: Any = None) -> Tensor:
        correction = (1 if unbiased else 0) if correction is None else correction
        return call(op("std.correction"), self, _as_list(dim), correction=correction, keepdim=keepdim)

    def any(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        if dim is None:
            return call(op("any"), self)
        if isinstance(dim, (list, tuple)):
            return call(op("any.dims"), self, list(dim), keepdim)
        return call(op("any.dim"), self, dim, keepdim)

    def all(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        if dim is None:
            return call(op("all"), self)
        if isinstance(dim, (list, tuple)):
            return call(op("all.dims"), self, list(dim), keepdim)
        return call(op("all.dim"), self, dim, keepdim)

    def sort(self, dim: int = -1, descending: bool = False) -> Any:
        return sort_result(*call(op("sort"), self, dim, descending))

    def topk(self, k: Any, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
        return topk_result(*call(op("topk"), self, k, dim, largest, sorted))

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> Tensor:
        order = 2 if p in ("fro", None) else p
        return call(op("linalg_vector_norm"), self, order, _as_list(dim), keepdim)

    # ---- elementwise with overloads chosen by the arguments -------------

    def div(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        if rounding_mode is None:
            return call(op("div.Tensor"), self, other)
        return call(op("div.Tensor_mode"), self, other, rounding_mode=rounding_mode)

    def div_(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        if rounding_mode is None:
            return call(op("div_.Tensor"), self, other)
        return call(op("div_.Tensor_mode"), self, other, rounding_mode=rounding_mode)

    divide = div

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        if _is_tensor(min) or _is_tensor(max):
            return call(op("clamp.Tensor"), self, min, max)
        return call(op("clamp"), self, min, max)

    clip = clamp

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        if _is_tensor(min) or _is_tensor(max):
            return call(op("clamp_.Tensor"), self, min, max)
        return call(op("clamp_"), self, min, max)

    clip_ = clamp_

    # torch binds a Python number weight to the Scalar overload
    def lerp(self, end: Tensor, weight: Any) -> Tensor:
        return call(op("lerp.Tensor" if _is_tensor(weight) else "lerp.Scalar"), self, end, weight)

    def lerp_(self, end: Tensor, weight: Any) -> Tensor:
        return call(op("lerp_.Tensor" if _is_tensor(weight) else "lerp_.Scalar"), self, end, weight)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Tensor:
        return call(op("bernoulli_.Tensor" if _is_tensor(p) else "bernoulli_.float"), self, p, generator=generator)

    def masked_fill(self, mask: Tensor, value: Any) -> Tensor:
        name = "masked_fill.Tensor" if _is_tensor(value) else "masked_fill.Scalar"
        return call(op(name), self, mask, value)

    def masked_fill_(self, mask: Tensor, value: Any) -> Tensor:
        name = "masked_fill_.Tensor" if _is_tensor(value) else "masked_fill_.Scalar"
        return call(op(name), self, mask, value)

    def fill_(self, value: Any) -> Tensor:
        return call(op("fill_.Tensor" if _is_tensor(value) else "fill_.Scalar"), self, value)

    def where(self, condition: Tensor, other: Any) -> Tensor:
        # texport.where's choice of overload, knowing that input (self) is a Tensor
        name = "where.self" if _is_tensor(other) else "where.ScalarOther"
        return call(op(name), condition, self, other)

    def scatter(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
                reduce: str | None = None) -> Tensor:
        return _scatter(self, "scatter", dim, index, value if src is None else src, reduce)

    def scatter_(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
                 reduce: str | None = None) -> Tensor:
        return _scatter(self, "scatter_", dim, index, value if src is None else src, reduce)

    def index_put_(self, indices: Sequence[Any], values: Tensor, accumulate: bool = False) -> Tensor:
        return call(op("index_put_"), self, list(indices), values, accumulate)

    def index_put(self, indices: Sequence[Any], values: Tensor, accumulate: bool = False) -> Tensor:
        return call(op("index_put"), self, list(indices), values, accumulate)

    def softmax(self, dim: int, dtype: DType | None = None) -> Tensor:
        return call(op("softmax.int"), self, dim, dtype)

    def log_softmax(self, dim: int, dtype: DType | None = None) -> Tensor:
        return call(op("log_softmax.int"), self, dim, dtype)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        return call(op("argmax"), self, dim, keepdim)

    def argmin(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        return call(op("argmin"), self, dim, keepdim)

    def amax(self, dim: Any = (), keepdim: bool = False) -> Tensor:
        return call(op("amax"), self, _as_list(dim) or [], keepdim)

    def amin(self, dim: Any = (), keepdim: bool = False) -> Tensor:
        return call(op("amin"), self, _as_list(dim) or [], keepdim)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return call(op("flatten.using_ints"), self, start_dim, end_dim)

    def unflatten(self, dim: int, sizes: Sequence[Any]) -> Tensor:
        return call(op("unflatten.int"), self, dim, list(sizes))

    def contiguous(self, memory_format: Any = None) -> Tensor:
        # ATen's TensorBase::contiguous returns self, calling no op, when the layout already is
        if self.is_contiguous(memory_format):
            return self
        if memory_format is None:
            return call(op("contiguous"), self)
        return call(op("contiguous"), self, memory_format=memory_format)

    def clone(self, *, memory_format: Any = None) -> Tensor:
        return call(op("clone"), self, memory_format=memory_format)

    def detach(self) -> Tensor:
        return call(op("detach"), self)

    def logsumexp(self, dim: Any, keepdim: bool = False) -> Tensor:
        return call(op("logsumexp"), self, _as_list(dim), keepdim)

    def cumsum(self, dim: int, dtype: DType | None = None) -> Tensor:
        return call(op("cumsum"), self, dim, dtype=dtype)

    def cumprod(self, dim: int, dtype: DType | None = None) -> Tensor:
        return call(op("cumprod"), self, dim, dtype=dtype)

    def tril(self, diagonal: int = 0) -> Tensor:
        return call(op("tril"), self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        return call(op("triu"), self, diagonal)

    def tril_(self, diagonal: int = 0) -> Tensor:
        return call(op("tril_"), self, diagonal)

    def triu_(self, diagonal: int = 0) -> Tensor:
        return call(op("triu_"), self, diagonal)

    def cumsum_(self, dim: int, dtype: DType | None = None) -> Tensor:
        return call(op("cumsum_"), self, dim, dtype=dtype)

    def cumprod_(self, dim: int, dtype: DType | None = None) -> Tensor:
        return call(op("cumprod_"), self, dim, dtype=dtype)


def _as_list(dim: Any) -> Any:
    if dim is None:
        return None
    return list(dim) if isinstance(dim, (list, tuple)) else [dim]


def _scatter(self: Tensor, name: str, dim: int, index: Tensor, src: Any, reduce: str | None) -> Tensor:
    """The overload torch's binding picks: a tensor or a number, with or without reduce."""
    if reduce is None:
        return call(op(f"{name}.src" if _is_tensor(src) else f"{name}.value"), self, dim, index, src)
    overload = "reduce" if _is_tensor(src) else "value_reduce"
    return call(op(f"{name}.{overload}"), self, dim, index, src, reduce=reduce)


def _extremum(self: Tensor, name: str, dim: Any, keepdim: bool) -> Any:
    if dim is None:
        return call(op(name), self)
    if _is_tensor(dim):
        return call(op(f"{name}.other"), self, dim)
    return minmax_result(*call(op(f"{name}.dim"), self, dim, keepdim))


_new_object = object.__new__


def tensor_of(value: Any, dtype: DType, requires_grad: bool = False) -> Tensor:
    """A Tensor over ``value`` (Tensor._make): eager mode makes one per op result, so
    it skips ``__init__`` (which builds from data) and sets the slots directly."""
    tensor = _new_object(Tensor)
    tensor._value = value
    tensor._dtype = dtype
    tensor.requires_grad = requires_grad
    tensor.grad = None
    return tensor


# --------------------------------------------------------------------------
# Methods that are one op each, installed from tables
# --------------------------------------------------------------------------

# method name -> op; the in-place `name_` is installed too when the op exists.
UNARY_METHODS = {
    name: name for name in (
        "abs", "neg", "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "rsqrt",
        "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
        "asinh", "acosh", "atanh", "sigmoid", "erf", "ceil", "floor", "round", "trunc", "frac",
        "sign", "relu", "logical_not", "bitwise_not", "isnan", "isinf", "isfinite", "zero",
        "nonzero", "t", "alias", "lift_fresh_copy",
    )
} | {"absolute": "abs", "negative": "neg", "arccos": "acos", "arcsin": "asin", "arctan": "atan"}

# method name -> op taking (self, other[, ...]); Tensors and wrapped numbers alike.
TENSOR_OTHER_METHODS = {
    "add": "add.Tensor", "sub": "sub.Tensor", "subtract": "sub.Tensor", "mul": "mul.Tensor",
    "multiply": "mul.Tensor", "add_": "add_.Tensor", "sub_": "sub_.Tensor",
    "mul_": "mul_.Tensor", "floor_divide": "floor_divide", "matmul": "matmul", "mm": "mm",
    "bmm": "bmm", "dot": "dot", "mv": "mv", "outer": "outer", "maximum": "maximum",
    "minimum": "minimum", "atan2": "atan2", "logical_and": "logical_and",
    "logical_or": "logical_or", "logical_xor": "logical_xor", "copy_": "copy_",
    "addcmul": "addcmul", "addcdiv": "addcdiv", "gather": "gather",
    "index_select": "index_select", "masked_select": "masked_select",
    "masked_scatter": "masked_scatter", "masked_scatter_": "masked_scatter_", "index_add": "index_add",
    "index_reduce": "index_reduce", "index_reduce_": "index_reduce_", "scatter_add": "scatter_add",
    "scatter_add_": "scatter_add_", "scatter_reduce": "scatter_reduce.two",
    "take_along_dim": "take_along_dim", "transpose": "transpose.int", "transpose_": "transpose_",
    "unsqueeze": "unsqueeze", "unsqueeze_": "unsqueeze_", "select": "select.int",
    "narrow": "narrow", "movedim": "movedim.int", "moveaxis": "movedim.int",
    "swapaxes": "swapaxes", "swapdims": "swapdims", "roll": "roll", "diagonal": "diagonal",
    "repeat_interleave": "repeat_interleave.self_int", "tensor_split": "tensor_split.sections",
    "expm1_": "expm1_", "relu_": "relu_", "t_": "t_", "addmm": "addmm", "baddbmm": "baddbmm",
    "cross_entropy": "cross_entropy_loss", "true_divide": "true_divide.Tensor",
    "true_divide_": "true_divide_.Tensor", "floor_divide_": "floor_divide_.Tensor",
    "addcmul_": "addcmul_", "addcdiv_": "addcdiv_", "addmm_": "addmm_", "addmv": "addmv",
    "addmv_": "addmv_", "baddbmm_": "baddbmm_", "index_add_": "index_add_", "index_copy": "index_copy",
    "index_copy_": "index_copy_", "scatter_reduce_": "scatter_reduce_.two", "swapaxes_": "swapaxes_",
    "swapdims_": "swapdims_", "nan_to_num": "nan_to_num", "nan_to_num_": "nan_to_num_",
    "square": "square", "uniform_": "uniform_", "normal_": "normal_", "detach_": "detach_",
    "as_strided_": "as_strided_", "atan2_": "atan2_", "new_empty_strided": "new_empty_strided",
    "dist": "dist", "renorm": "renorm", "renorm_": "renorm_", "conj_physical_": "conj_physical_", "resize_as_": "resize_as_", "logical_and_": "logical_and_", "logical_or_": "logical_or_",
    "logical_xor_": "logical_xor_", "diagonal_scatter": "diagonal_scatter",
    "as_strided_scatter": "as_strided_scatter", "diag_embed": "diag_embed",
}

# method name -> (op when other is a Tensor, op when other is a Python number)
TENSOR_OR_SCALAR_METHODS = {
    name: (f"{name}.Tensor", f"{name}.Scalar")
    for name in ("eq", "ne", "lt", "le", "gt", "ge", "remainder", "fmod", "bitwise_and",
                 "bitwise_or", "bitwise_xor")
} | {
    "pow": ("pow.Tensor_Tensor", "pow.Tensor_Scalar"),
    "bitwise_left_shift": ("bitwise_left_shift.Tensor", "bitwise_left_shift.Tensor_Scalar"),
    "bitwise_right_shift": ("bitwise_right_shift.Tensor", "bitwise_right_shift.Tensor_Scalar"),
    "bitwise_left_shift_": ("bitwise_left_shift_.Tensor", "bitwise_left_shift_.Tensor_Scalar"),
    "bitwise_right_shift_": ("bitwise_right_shift_.Tensor", "bitwise_right_shift_.Tensor_Scalar"),
    "pow_": ("pow_.Tensor", "pow_.Scalar"),
    "greater": ("gt.Tensor", "gt.Scalar"), "less": ("lt.Tensor", "lt.Scalar"),
    "greater_equal": ("ge.Tensor", "ge.Scalar"), "less_equal": ("le.Tensor", "le.Scalar"),
    "not_equal": ("ne.Tensor", "ne.Scalar"),
    "clamp_min": ("clamp_min.Tensor", "clamp_min"), "clamp_max": ("clamp_max.Tensor", "clamp_max"),
    "clamp_min_": ("clamp_min_.Tensor", "clamp_min_"), "clamp_max_": ("clamp_max_.Tensor", "clamp_max_"),
} | {
    f"{name}_": (f"{name}_.Tensor", f"{name}_.Scalar")
    for name in ("remainder", "fmod", "bitwise_and", "bitwise_or", "bitwise_xor",
                 "eq", "ne", "lt", "le", "gt", "ge")
}


def _exists(name: str) -> bool:
    return name in OPS


def _unary(name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return call(op(name), self, *args, **kwargs)

    method.__name__ = name
    return method


def _tensor_or_scalar(tensor_op: str, scalar_op: str) -> Any:
    def method(self: Tensor, other: Any, *args: Any, **kwargs: Any) -> Any:
        return call(op(tensor_op if _is_tensor(other) else scalar_op), self, other, *args, **kwargs)

    return method


def install_methods(unary: dict[str, str], tensor_other: dict[str, str],
                    tensor_or_scalar: dict[str, tuple[str, str]]) -> None:
    """Install the methods of tables shaped as UNARY_METHODS, TENSOR_OTHER_METHODS
    and TENSOR_OR_SCALAR_METHODS (tracer/maths.py has its own)."""
    for method, name in unary.items():
        if _exists(name) and not hasattr(Tensor, method):
            setattr(Tensor, method, _unary(name))
        if _exists(f"{name}_") and not hasattr(Tensor, f"{method}_"):
            setattr(Tensor, f"{method}_", _unary(f"{name}_"))
    for method, name in tensor_other.items():
        if _exists(name) and not hasattr(Tensor, method):
            setattr(Tensor, method, _unary(name))
    for method, (tensor_op, scalar_op) in tensor_or_scalar.items():
        if _exists(tensor_op) and _exists(scalar_op):
            setattr(Tensor, method, _tensor_or_scalar(tensor_op, scalar_op))


install_methods(UNARY_METHODS, TENSOR_OTHER_METHODS, TENSOR_OR_SCALAR_METHODS)


# --------------------------------------------------------------------------
# Operators, as torch records them: `x + 1` is add.Tensor(x, 1)
# --------------------------------------------------------------------------


def _binary(name: str, reflected: bool = False) -> Any:
    def operator(self: Tensor, other: Any) -> Any:
        if reflected:
            return call(op(name), other if _is_tensor(other) else _scalar_tensor(other, self), self)
        return call(op(name), self, other)

    return operator


def _scalar_tensor(value: Any, like: Tensor) -> Any:
    return value  # a wrapped number: kernels and rules take Python scalars for Tensor args


def _rsub(self: Tensor, other: Any) -> Tensor:
    return call(op("rsub.Scalar"), self, other)


def _rpow(self: Tensor, other: Any) -> Tensor:
    return call(op("pow.Scalar"), other, self)


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    return call(op("mul.Tensor"), call(op("reciprocal"), self), other)


def _rfloordiv(self: Tensor, other: Any) -> Tensor:
    return call(op("floor_divide"), other, self)  # the number as a wrapped tensor, as torch records it


def _rmod(self: Tensor, other: Any) -> Tensor:
    return call(op("remainder.Tensor"), full_like(self, other), self)


def _rmatmul(self: Tensor, other: Any) -> Tensor:
    return call(op("matmul"), other, self)


def _compare(tensor_op: str, scalar_op: str) -> Any:
    def operator(self: Tensor, other: Any) -> Any:
        if other is None:
            return NotImplemented
        return call(op(tensor_op if _is_tensor(other) else scalar_op), self, other)

    return operator


def _inplace(name: str) -> Any:
    def operator(self: Tensor, other: Any) -> Tensor:
        call(op(name), self, other)
        return self

    return operator


def _install_operators() -> None:
    table = {
        "__add__": _binary("add.Tensor"), "__radd__": _binary("add.Tensor"),
        "__sub__": _binary("sub.Tensor"), "__rsub__": _rsub,
        "__mul__": _binary("mul.Tensor"), "__rmul__": _binary("mul.Tensor"),
        "__truediv__": _binary("div.Tensor"), "__rtruediv__": _rtruediv,
        "__floordiv__": _binary("floor_divide"), "__rfloordiv__": _rfloordiv,
        "__mod__": _compare("remainder.Tensor", "remainder.Scalar"), "__rmod__": _rmod,
        "__pow__": _compare("pow.Tensor_Tensor", "pow.Tensor_Scalar"), "__rpow__": _rpow,
        "__matmul__": _binary("matmul"), "__rmatmul__": _rmatmul,
        "__and__": _compare("bitwise_and.Tensor", "bitwise_and.Scalar"),
        "__or__": _compare("bitwise_or.Tensor", "bitwise_or.Scalar"),
        "__xor__": _compare("bitwise_xor.Tensor", "bitwise_xor.Scalar"),
        "__lshift__": _compare("__lshift__.Tensor", "__lshift__.Scalar"),
        "__rshift__": _compare("__rshift__.Tensor", "__rshift__.Scalar"),
        "__rand__": _compare("bitwise_and.Tensor", "bitwise_and.Scalar"),
        "__ror__": _compare("bitwise_or.Tensor", "bitwise_or.Scalar"),
        "__rxor__": _compare("bitwise_xor.Tensor", "bitwise_xor.Scalar"),
        "__eq__": _compare("eq.Tensor", "eq.Scalar"), "__ne__": _compare("ne.Tensor", "ne.Scalar"),
        "__lt__": _compare("lt.Tensor", "lt.Scalar"), "__le__": _compare("le.Tensor", "le.Scalar"),
        "__gt__": _compare("gt.Tensor", "gt.Scalar"), "__ge__": _compare("ge.Tensor", "ge.Scalar"),
        "__iadd__": _inplace("add_.Tensor"), "__isub__": _inplace("sub_.Tensor"),
        "__imul__": _inplace("mul_.Tensor"), "__itruediv__": _inplace("div_.Tensor"),
    }
    for name, function in table.items():
        setattr(Tensor, name, function)
    Tensor.__neg__ = lambda self: call(op("neg"), self)
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = lambda self: call(op("abs"), self)
    Tensor.__invert__ = lambda self: call(op("bitwise_not"), self)


_install_operators()
