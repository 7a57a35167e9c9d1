"""The ``texport.*`` functions (``texport.cat``, ``texport.where``, ``texport.sum`` ...).

Most are the Tensor method of the same name called on the first argument; the
rest pick their op from the arguments as torch's Python bindings do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import composites, maths
from .dispatcher import call
from .handles import op
from .tensor import Tensor

# texport.<name>(x, ...) == x.<name>(...)
METHOD_FUNCTIONS = (
    "abs", "neg", "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "rsqrt",
    "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "sigmoid", "erf", "ceil", "floor", "round", "trunc", "frac", "sign",
    "relu", "logical_not", "bitwise_not", "isnan", "isinf", "isfinite", "add", "sub", "subtract",
    "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "remainder", "fmod",
    "matmul", "mm", "bmm", "dot", "mv", "outer", "maximum", "minimum", "atan2", "eq", "ne",
    "lt", "le", "gt", "ge", "greater", "less", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "sum", "mean", "prod", "max", "min", "amax",
    "amin", "argmax", "argmin", "any", "all", "var", "std", "logsumexp", "cumsum", "cumprod",
    "softmax", "log_softmax", "sort", "argsort", "topk", "norm", "clamp", "clip", "masked_fill",
    "reshape", "transpose", "permute", "squeeze", "unsqueeze", "flatten", "unflatten", "chunk",
    "split", "unbind", "narrow", "select", "movedim", "moveaxis", "swapaxes", "flip", "roll",
    "diagonal", "repeat_interleave", "tril", "triu", "t", "gather", "index_select",
    "masked_select", "take_along_dim", "scatter", "scatter_add", "scatter_reduce", "index_add",
    "lerp", "addcmul", "addcdiv", "addmm", "baddbmm", "detach", "clone", "tensor_split",
    "clamp_min", "clamp_max", "square", "nan_to_num", "addmv", "index_copy", "swapdims", "dist", "renorm",
    "diagonal_scatter", "as_strided_scatter", "diag_embed", "bitwise_left_shift", "bitwise_right_shift",
)


def _function(name: str) -> Any:
    def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 - torch's name
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = name
    return function


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001, A002 - torch's names
    if isinstance(input, Tensor):
        return input.pow(exponent)
    return call(op("pow.Scalar"), input, exponent)


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    name = "rsub.Tensor" if isinstance(other, Tensor) else "rsub.Scalar"
    return call(op(name), input, other, alpha=alpha)


def block_diag(*tensors: Tensor) -> Tensor:
    return call(op("block_diag"), list(tensors))


FUNCTIONS = ({name: _function(name) for name in METHOD_FUNCTIONS} | {"pow": pow, "rsub": rsub, "block_diag": block_diag}
             | maths.FUNCTIONS | composites.FUNCTIONS)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    return call(op("cat"), list(tensors), dim)


concat = concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    return call(op("stack"), list(tensors), dim)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:  # noqa: A002
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return call(op("where.self"), condition, input, other)
    if isinstance(input, Tensor):
        return call(op("where.ScalarOther"), condition, input, other)
    if isinstance(other, Tensor):
        return call(op("where.ScalarSelf"), condition, input, other)
    return call(op("where.Scalar"), condition, input, other)


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:  # noqa: A002
    result = call(op("nonzero"), input)
    return tuple(result.unbind(1)) if as_tuple else result


def einsum(equation: str, *operands: Any) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return call(op("einsum"), equation, list(operands))


def broadcast_to(input: Tensor, size: Sequence[Any]) -> Tensor:  # noqa: A002
    return input.expand(list(size))


def numel(input: Tensor) -> Any:  # noqa: A002
    return input.numel()


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:  # noqa: A002
    return input.is_floating_point()


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
             equal_nan: bool = False) -> bool:
    """A Python bool in eager; traced, a data-dependent output error (torch's aten.allclose)."""
    return call(op("allclose"), input, other, rtol, atol, equal_nan)


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    return call(op("equal"), input, other)
