"""How a write through a view reaches its base: for each view op, the
functional op that puts a new view value back into the base (its "scatter").

``scatter(base, src, args, index, op)``: ``base`` the current base, ``src``
the new value of result ``index`` of the view op, ``args`` the view op's
arguments (traced). Functionalization replays a chain of views this way, from
the written view up to the root.
"""

from __future__ import annotations

from typing import Any

from texport.dialects.aten import AtenOp
from texport.tracer.dispatcher import current_mode
from texport.tracer.handles import ops
from texport.tracer.symint import SymInt
from texport.tracer.tensor import Tensor

from .functionalize import SCATTERS

aten = ops.aten


def _register(*names: str) -> Any:
    return SCATTERS.decorator(*names)


# alias(x) = x: the new view is the new base
@_register("alias", "detach", "lift_fresh", "contiguous")
def _same(base: Tensor, src: Tensor, args: list[Any], index: int, op: AtenOp) -> Tensor:
    return src


# view(x, s) = x with another shape: the base is the new value viewed back
@_register("view", "reshape", "_unsafe_view", "view_as", "reshape_as", "flatten.using_ints",
           "unflatten.int", "squeeze", "squeeze.dim", "squeeze.dims", "unsqueeze")
def _reshape_back(base: Tensor, src: Tensor, args: list[Any], index: int, op: AtenOp) -> Tensor:
    return aten.view.default(src, list(base.shape))


def _permutation(op: AtenOp, rank: int, args: list[Any]) -> list[int]:
    """The permutation ``op`` applies to the dims of its input."""
    name = op.op_def.schema.name
    if name == "permute":
        return [d % rank for d in args[1]]
    perm = list(range(rank))
    if name == "t":
        return perm[::-1] if rank == 2 else perm
    a, b = args[1] % rank, args[2] % rank
    perm[a], perm[b] = perm[b], perm[a]
    return perm


# permute(x, p) = y: x = permute(y, inverse(p))
@_register("permute", "transpose.int", "t", "swapaxes", "swapdims")
def _permute_back(base: Tensor, src: Tensor, args: list[Any], index: int, op: AtenOp) -> Tensor:
    perm = _permutation(op, base.dim(), args)
    inverse = [perm.index(d) for d in range(len(perm))]
    return aten.permute.default(src, inverse)


# slice(x, d, a, b, s) = y: x = slice_scatter(x, y, d, a, b, s)
@_register("slice.Tensor")
def _slice_back(base: Tensor, src: Tensor, args: list[Any], index: int, op: AtenOp) -> Tensor:
    return aten.slice_scatter.default(base, src, *args[1:])


# narrow(x, d, a, n) = slice(x, d, a, a + n)
@_register("narrow")
def _narrow_back(base: Tensor, src: Tensor, args: list[Any], index: int, op: AtenOp) -> Tensor:
    _, dim, start, length = args
    return aten.slice_scatter.default(base, src, dim, start, start + length)


# select(x, d, i) = y: x = select_scatter(x, y, d, i)
@_register("select.int")
def _select_back(base: Tensor, src: Tensor, args: list[Any], index: int, op: AtenOp) -> Tensor:
    return aten.select_scatter.default(base, src, args[1], args[2])


# unbind(x, d)[i] = select(x, d, i)
@_register("unbind.int")
def _unbind_back(base: Tensor, src: Tensor, args: list[Any], index: int, op: AtenOp) -> Tensor:
    return aten.select_scatter.default(base, src, args[1] if len(args) > 1 else 0, index)


# split(x, ...)[i] = slice(x, d, offset_i, offset_i + size_i), sizes read from the results
@_register("split.Tensor", "split.sizes", "split_with_sizes", "chunk", "tensor_split.sections",
           "tensor_split.indices", "unsafe_split.Tensor", "unsafe_split_with_sizes", "unsafe_chunk")
def _split_back(base: Tensor, src: Tensor, args: list[Any], index: int, op: AtenOp) -> Tensor:
    dim = args[2] % base.dim()
    start = sum(r.type.shape[dim] for r in op.results[:index])
    end = start + op.results[index].type.shape[dim]
    return aten.slice_scatter.default(base, src, dim, _size(start), _size(end))


def _size(expr: Any) -> Any:
    """A size expression as an argument: an int, or a SymInt of the tracer."""
    if type(expr) is int or getattr(expr, "is_Integer", False):
        return int(expr)
    return SymInt(expr, current_mode())
