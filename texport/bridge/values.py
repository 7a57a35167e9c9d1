"""torch's values as texport holds them: symbolic dims (torch's symbol names
kept), IR types, literal arguments, tensors (same bytes) and source locations."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import torch
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.ir import Attribute

from texport.dialects.dtypes import DType
from texport.dialects.symbolic import parse_dim, parse_scalar_expr
from texport.dialects.tx import SymBoolType, SymExprAttr, SymFloatType, TensorType, symint
from texport.interpreter.dtypes import to_numpy
from texport.tracer.eager import wrap_array
from texport.tracer.nn.module import Parameter
from texport.tracer.shape_env import INF, ValueRange
from texport.tracer.tensor import Tensor


class TorchImportError(ValueError):
    """A torch program texport cannot hold; the message names the node, its target,
    what was expected and found, and the user's source line when torch recorded it."""


def dim_of(value: Any) -> Any:
    """A size (int, SymInt or sympy expression) as a texport dim: the same symbols
    (``s77``, ``u0``), parsed from torch's printed form, which texport's grammar shares."""
    if isinstance(value, torch.SymInt):
        value = value.node.expr
    if isinstance(value, int):
        return value
    try:
        return _parse(str(value), parse_dim)
    except ValueError as err:
        raise TorchImportError(f"the symbolic size {value} has no texport form: {err}") from None


def _parse(text: str, parse: Any) -> Any:
    # torch's PythonMod is Python's %: on sizes (never negative) it is sympy's Mod
    return parse(text.replace("PythonMod(", "Mod("))


def dtype_of(torch_dtype: torch.dtype) -> DType:
    name = str(torch_dtype).removeprefix("torch.")
    try:
        return DType[name]
    except KeyError:
        raise TorchImportError(f"texport has no dtype {torch_dtype}") from None


def type_of(val: Any) -> Attribute:
    """The IR type of one ``node.meta["val"]``: a FakeTensor or a symbolic scalar."""
    if isinstance(val, torch.Tensor):
        return TensorType.get(tuple(dim_of(d) for d in val.shape), dtype_of(val.dtype))
    if isinstance(val, (torch.SymBool, bool)):
        return SymBoolType(SymExprAttr(None))
    if isinstance(val, (torch.SymInt, int)):
        return symint(dim_of(val))
    if isinstance(val, (torch.SymFloat, float)):
        expr = val.node.expr if isinstance(val, torch.SymFloat) else val
        try:
            return SymFloatType(SymExprAttr(_parse(str(expr), parse_scalar_expr)))
        except ValueError:
            return SymFloatType(SymExprAttr(None))
    raise TorchImportError(f"a value of type {type(val).__name__} has no IR type")


_ABSENT = TensorType.get((0,), DType.float32)  # a result torch gives as None (texport's form)


def result_types(val: Any) -> list[Attribute]:
    """The IR result types of a node: one per element of a tuple or list value."""
    if val is None:
        return []
    if isinstance(val, (tuple, list)):
        return [_ABSENT if v is None else type_of(v) for v in val]
    return [type_of(val)]


_DROPPED_ENUMS = (torch.device, torch.layout)  # texport runs on the CPU, strided only: held as none


def literal(value: Any) -> Any:
    """A non-node argument as texport holds it (dtypes, memory formats by name)."""
    if isinstance(value, torch.dtype):
        return dtype_of(value)
    if isinstance(value, torch.memory_format):
        return str(value).removeprefix("torch.")
    if isinstance(value, _DROPPED_ENUMS):
        return None
    if isinstance(value, (list, tuple)):
        return [literal(v) for v in value]
    return value


def tensor_of(value: torch.Tensor, *, parameter: bool = False) -> Tensor:
    """A texport tensor with the same bytes (bfloat16 through ml_dtypes)."""
    data = value.detach().cpu().contiguous()
    if data.dtype == torch.bfloat16:
        array = data.view(torch.int16).numpy().view(to_numpy(DType.bfloat16))
    else:
        array = data.numpy()
    tensor = wrap_array(np.array(array, copy=True))
    return Parameter(tensor, requires_grad=value.requires_grad) if parameter else tensor


def range_of(value_range: Any) -> ValueRange:
    return ValueRange(_bound(value_range.lower), _bound(value_range.upper))


def _bound(value: Any) -> Any:
    text = str(value)
    if text in ("int_oo", "oo"):
        return INF
    if text in ("-int_oo", "-oo"):
        return -INF
    return int(value)


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def location_of(node: Any) -> Any:
    """The innermost frame of the node's ``stack_trace`` (the user's or nn's line,
    as texport's tracer records it), or None when torch recorded none."""
    trace = node.meta.get("stack_trace")
    if not trace:
        return None
    frames = _FRAME.findall(trace)
    if not frames:
        return None
    filename, line = frames[-1]
    return FileLineColLoc(StringAttr(filename), IntAttr(int(line)), IntAttr(0))


def source_line(node: Any) -> str:
    """The node's last source line, for error messages ('' when torch has none)."""
    trace = (node.meta.get("stack_trace") or "").strip().splitlines()
    return "\n  " + "\n  ".join(line.strip() for line in trace[-2:]) if trace else ""
