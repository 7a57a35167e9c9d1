"""torch-style tensor reprs: ``tensor([1., 2.])``, ``tensor([1, 2], dtype=texport.int32)``.

``Tensor.__repr__`` calls here, so a tensor is named by its base, TensorBase."""

from __future__ import annotations

import numpy as np

from texport.dialects.dtypes import DType
from texport.interpreter.dtypes import is_floating

from .dispatcher import TensorBase

_DEFAULT_DTYPES = (DType.float32, DType.int64, DType.bool)


def _float_formatter(values: np.ndarray) -> object:
    finite = values[np.isfinite(values)]
    if finite.size and np.all(finite == np.round(finite)) and np.abs(finite).max() < 1e8:
        return lambda v: _special(v) or f"{v:.0f}."
    big = finite.size and (np.abs(finite).max() >= 1e8 or (np.abs(finite[finite != 0]).min(initial=1) < 1e-4))
    if big:
        return lambda v: _special(v) or f"{v:.4e}"
    return lambda v: _special(v) or f"{v:.4f}"


def _special(value: float) -> str:
    if np.isnan(value):
        return "nan"
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    return ""


def _padded(format_one: object, values: np.ndarray) -> object:
    """torch right-aligns every element to the widest one."""
    shown = values.ravel() if values.size <= 1000 else np.concatenate(
        [values.ravel()[:3], values.ravel()[-3:]]
    )
    width = max((len(format_one(v)) for v in shown), default=0)
    return lambda v: format_one(v).rjust(width)


def tensor_repr(tensor: TensorBase) -> str:
    value = tensor._value
    if not isinstance(value, np.ndarray):
        return f"FakeTensor(shape={list(tensor.shape)}, dtype={tensor.dtype})"
    if is_floating(value.dtype):  # bfloat16 too: printed from its exact float64 values
        value = value.astype(np.float64)
        formatter = {"float_kind": _padded(_float_formatter(value), value)}
    elif value.dtype.kind in "iu":
        formatter = {"int": _padded(str, value)}
    elif value.dtype.kind == "b":
        formatter = {"bool": lambda v: "True" if v else "False"}
    else:
        formatter = None
    body = np.array2string(
        value, separator=", ", prefix="tensor(", formatter=formatter, threshold=1000, edgeitems=3
    )
    suffix = ""
    if tensor.dtype not in _DEFAULT_DTYPES or value.size == 0 and tensor.dtype is not DType.float32:
        suffix = f", dtype={tensor.dtype}"
    if tensor.requires_grad:
        suffix += ", requires_grad=True"
    return f"tensor({body}{suffix})"
