"""Control-flow operators: ``cond``, ``map``, ``scan``, ``while_loop``.

Eagerly they run as their Python meaning. Under export each traces its
function(s) once into a region of a ``control`` op; tensors a branch reads
from outside (parameters, buffers, captured values) are lifted into the op's
operands, as torch lifts them, so every region only reads its own arguments.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, i32
from xdsl.ir import Block, Region, SSAValue

from texport.dialects._lazy import sympy
from texport.dialects.aten import op_class
from texport.dialects.control import CondOp, MapOp, ScanOp, WhileLoopOp, YieldOp
from texport.dialects.names import set_name
from texport.dialects.registry import lookup_op
from texport.dialects.tx import TensorType, symint

from . import pytree
from .dispatcher import current_mode
from .errors import UnsupportedError
from .functions import cat, stack
from .sources import caller_location
from .symint import SymNode
from .tensor import Tensor
from .tracing import FakeValue, Tracer


def _tracer() -> Tracer | None:
    mode = current_mode()
    return mode if isinstance(mode, Tracer) else None


# --------------------------------------------------------------------------
# Public operators
# --------------------------------------------------------------------------


def cond(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any],
         operands: Sequence[Any] = ()) -> Any:
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``; export keeps both."""
    operands = tuple(operands)
    tracer = _tracer()
    if tracer is None or isinstance(pred, (bool, int)):
        if tracer is not None:
            warnings.warn(
                "Pred is a Python constant. When used with torch.cond, it specializes on one of "
                "the branches. If you want torch.cond to preserve two branches, please make the "
                "predicate a boolean tensor or a SymBool.", UserWarning, stacklevel=2,
            )
        chosen = pred.item() if isinstance(pred, Tensor) else pred
        return (true_fn if chosen else false_fn)(*operands)
    return _trace_cond(tracer, pred, true_fn, false_fn, operands)


def map(f: Callable[..., Any], xs: Any, *args: Any) -> Any:  # noqa: A001 - torch's name
    """``stack([f(x, *args) for x in xs])`` along dim 0 (over every leaf of xs)."""
    tracer = _tracer()
    if tracer is None:
        leaves, spec = pytree.tree_flatten(xs)
        outputs = [f(pytree.tree_unflatten([leaf[i] for leaf in leaves], spec), *args)
                   for i in range(leaves[0].shape[0])]
        return _stack_outputs(outputs)
    return _trace_map(tracer, f, xs, args)


def scan(combine_fn: Callable[..., Any], init: Any, xs: Any, *, dim: int = 0,
         reverse: bool = False, additional_inputs: Sequence[Any] = ()) -> tuple[Any, Any]:
    """Thread ``init`` through ``combine_fn(carry, x) -> (carry, y)`` over xs; stack the ys."""
    if dim != 0:
        xs = pytree.tree_map(lambda t: t.movedim(dim, 0), xs)
    tracer = _tracer()
    if tracer is None:
        return _scan_eager(combine_fn, init, xs, reverse, tuple(additional_inputs))
    return _trace_scan(tracer, combine_fn, init, xs, reverse, tuple(additional_inputs))


def while_loop(cond_fn: Callable[..., Any], body_fn: Callable[..., Any],
               carried_inputs: Sequence[Any], additional_inputs: Sequence[Any] = ()) -> Any:
    """Run ``body_fn`` while ``cond_fn`` holds; returns the final carried values."""
    carried = tuple(carried_inputs)
    tracer = _tracer()
    if tracer is None:
        while bool(cond_fn(*carried, *additional_inputs)):
            carried = tuple(body_fn(*carried, *additional_inputs))
        return carried
    return _trace_while(tracer, cond_fn, body_fn, carried, tuple(additional_inputs))


def associative_scan(combine_fn: Callable[..., Any], xs: Any, dim: int, reverse: bool = False,
                     combine_mode: str = "pointwise") -> Any:
    """Inclusive prefix scan of ``xs`` along ``dim`` with an associative ``combine_fn``
    (``associative_scan(add, x, 0)`` is ``cumsum``). As torch's generic mode, traced
    as the recursive odd/even scan it runs: no control op, ``combine_fn`` called
    on every other element at once (so it must be pointwise: torch vmaps it)."""
    leaves, spec = pytree.tree_flatten(xs)
    _validate_associative_scan(combine_fn, leaves, dim, reverse, combine_mode)
    dim = dim + leaves[0].dim() if dim < 0 else dim
    leaves = [leaf.movedim(dim, 0) for leaf in leaves]
    if reverse:
        leaves = [leaf.flip([0]) for leaf in leaves]
    n = len(leaves)

    def combine(*flat: Any) -> list[Any]:
        lhs = pytree.tree_unflatten(list(flat[:n]), spec)
        rhs = pytree.tree_unflatten(list(flat[n:]), spec)
        return pytree.tree_leaves(combine_fn(lhs, rhs))

    out = _odd_even_scan(combine, leaves)
    if reverse:
        out = [leaf.flip([0]) for leaf in out]
    return pytree.tree_unflatten([leaf.movedim(0, dim) for leaf in out], spec)


def _validate_associative_scan(combine_fn: Any, leaves: list[Any], dim: Any, reverse: Any, mode: str) -> None:
    """torch's checks, with its messages (texport tensors are all on the CPU)."""
    if not callable(combine_fn):
        raise ValueError(f"Combine_fn must be a callable, but got {combine_fn}")
    if not isinstance(dim, int):
        raise ValueError("Dim must be an int, but got " + str(type(dim)))
    if not isinstance(reverse, bool):
        raise RuntimeError("Reverse must be a bool, but got " + str(type(reverse)))
    if mode not in ("pointwise", "generic"):
        raise ValueError(f"Combine_mode must either 'pointwise' or 'generic', but got {mode}")
    if mode == "pointwise":
        raise ValueError("For combine_mode='pointwise', all input tensors need to be on CUDA or XPU")
    if not leaves:
        raise ValueError("Expected at least 1 xs leaf")
    if any(not isinstance(x, Tensor) for x in leaves):
        raise ValueError("xs leaves must be a Tensor")
    axis = dim + leaves[0].dim() if dim < 0 else dim
    if any(x.dim() <= axis or x.shape[axis] == 0 for x in leaves):
        raise ValueError("All xs leaves must at least have 'dim' number of dimensions and scan dimension > 0")


def _slice(value: Tensor, start: int, end: int | None, step: int = 1) -> Tensor:
    from .handles import ops  # noqa: PLC0415 - the op handles load with the op table

    return ops.aten.slice.Tensor(value, 0, start, end, step)


def _odd_even_scan(combine: Callable[..., list[Any]], elems: list[Any]) -> list[Any]:
    """Combine neighbours pairwise, scan those recursively, then fill in the
    elements between (torch's generic_associative_scan, on dim 0)."""
    length = elems[0].shape[0]
    if length < 2:
        return elems
    reduced = combine(*[_slice(e, 0, -1, 2) for e in elems], *[_slice(e, 1, None, 2) for e in elems])
    odd = _odd_even_scan(combine, reduced)
    left = [_slice(e, 0, -1) for e in odd] if length % 2 == 0 else odd
    even = combine(*left, *[_slice(e, 2, None, 2) for e in elems])
    even = [_first_then(elem, result) for elem, result in zip(elems, even)]
    return [_interleave(a, b) for a, b in zip(even, odd)]


def _first_then(elem: Tensor, result: Tensor) -> Tensor:
    """The scan's first element is the input's; torch skips the cat when ``result`` is empty."""
    if result.numel() > 0:
        return cat([_slice(elem, 0, 1), result])
    return _slice(elem, 0, 1)


def _interleave(a: Tensor, b: Tensor) -> Tensor:
    """a0, b0, a1, b1, ... along dim 0 (``b`` one shorter when the length is odd)."""
    from .nn.functional import pad  # noqa: PLC0415 - nn loads on first use

    truncated = a.shape[0] == b.shape[0] + 1
    if truncated:
        b = pad(b, [0] * (2 * (b.dim() - 1)) + [0, 1])
    interleaved = stack([a, b], dim=1).flatten(0, 1)
    if truncated:
        interleaved = _slice(interleaved, 0, b.shape[0] + a.shape[0] - 1)
    return interleaved


# --------------------------------------------------------------------------
# Eager helpers
# --------------------------------------------------------------------------


def _stack_outputs(outputs: list[Any]) -> Any:
    leaves = [pytree.tree_flatten(out)[0] for out in outputs]
    spec = pytree.tree_flatten(outputs[0])[1]
    return pytree.tree_unflatten([stack([step[i] for step in leaves]) for i in range(len(leaves[0]))], spec)


def _scan_eager(fn: Callable[..., Any], init: Any, xs: Any, reverse: bool, extra: tuple[Any, ...]) -> Any:
    leaves, spec = pytree.tree_flatten(xs)
    length = leaves[0].shape[0]
    order = range(length - 1, -1, -1) if reverse else range(length)
    carry, ys = init, []
    for i in order:
        carry, y = fn(carry, pytree.tree_unflatten([leaf[i] for leaf in leaves], spec), *extra)
        ys.append(y)
    if reverse:
        ys.reverse()
    return carry, _stack_outputs(ys)


# --------------------------------------------------------------------------
# Tracing a function into a region
# --------------------------------------------------------------------------


class _Subgraph:
    """One traced region: its block, its outputs (flat) and their pytree spec."""

    def __init__(self, block: Block, outputs: list[Any], spec: Any) -> None:
        self.block, self.outputs, self.spec = block, outputs, spec


def _arg_type(value: Any) -> Any:
    inner = value._value
    dims = inner.dims if isinstance(inner, FakeValue) else tuple(inner.shape)
    return TensorType.get(dims, value.dtype)


def _trace_region(tracer: Tracer, fn: Callable[..., Any], inputs: list[Any],
                  input_types: list[Any], what: str) -> _Subgraph:
    block = Block(arg_types=input_types)
    fakes = []
    for arg, value, arg_type in zip(block.args, inputs, input_types):
        if isinstance(value, Tensor):
            fakes.append(tracer.fake(arg_type.shape, arg_type.dtype, arg))
        else:
            fakes.append(value)
    tracer.blocks.append(block)
    try:
        out = fn(*fakes)
    finally:
        tracer.blocks.pop()
    _refuse_input_mutation(block, what)
    leaves, spec = pytree.tree_flatten(out)
    values = [tracer.ir_value(leaf) if isinstance(leaf, (Tensor, SymNode)) else leaf for leaf in leaves]
    if any(not isinstance(v, SSAValue) for v in values):
        raise UnsupportedError(f"{what} must return tensors (or symbolic sizes), got {leaves}")
    block.add_op(YieldOp.create(operands=values))
    return _Subgraph(block, leaves, spec)


def _refuse_input_mutation(block: Block, what: str) -> None:
    for op in block.ops:
        schema = getattr(getattr(op, "op_def", None), "schema", None)
        if schema is None or not schema.is_mutable:
            continue
        values = op.arguments()
        for arg, value in zip(schema.arguments, values):
            if arg.is_write and isinstance(value, SSAValue) and value in block.args:
                location = caller_location(keep_nn=False)
                raise UnsupportedError(
                    "Encountered input mutation during higher order op tracing\n"
                    f"Higher Order Operator: {what}\n"
                    "Explanation: Higher order ops do not support input mutation. "
                    f"'{op.name}' writes an input of the region."
                    + (f"\n  {location}" if location else "")
                )


def _free_values(block: Block) -> list[SSAValue]:
    """Values a region reads from outside itself, in first-use order."""
    inside: set[SSAValue] = set(block.args)
    free: list[SSAValue] = []
    for op in block.walk():
        for region in op.regions:
            for inner in region.blocks:
                inside.update(inner.args)
        for value in op.operands:
            if value not in inside and value not in free:
                free.append(value)
        inside.update(op.results)
    return free


def _lift(subgraphs: list[_Subgraph], n_fixed: int) -> list[SSAValue]:
    """Make every region take the union of their free values as extra arguments."""
    union: list[SSAValue] = []
    for sub in subgraphs:
        for value in _free_values(sub.block):
            if value not in union:
                union.append(value)
    for sub in subgraphs:
        for value in union:
            arg = sub.block.insert_arg(value.type, len(sub.block.args))
            for op in sub.block.walk():
                op.operands = [arg if operand is value else operand for operand in op.operands]
    return union


def _outputs(tracer: Tracer, op: Any, template: _Subgraph, result_types: list[Any]) -> Any:
    tracer.blocks[-1].add_op(op)
    tracer.names.claim(op.name.split(".")[1])
    wrapped = []
    for result, leaf in zip(op.results, template.outputs):
        set_name(result, tracer.names.claim("getitem"))
        if isinstance(result.type, TensorType):
            wrapped.append(tracer.fake(result.type.shape, result.type.dtype, result))
        else:
            wrapped.append(leaf)
    return pytree.tree_unflatten(wrapped, template.spec)


# --------------------------------------------------------------------------
# The four operators under tracing
# --------------------------------------------------------------------------


def _merge_types(a: Any, b: Any) -> Any:
    """Branch outputs of different shapes get a fresh unbacked dim (as torch)."""
    if a == b or not (isinstance(a, TensorType) and isinstance(b, TensorType)):
        return a
    if a.dtype != b.dtype or len(a.shape) != len(b.shape):
        raise UnsupportedError(
            f"cond branches must return the same dtypes and ranks: true branch gives {a}, "
            f"false branch gives {b}"
        )
    return a  # placeholder, replaced by _unbacked_merge


def _trace_cond(tracer: Tracer, pred: Any, true_fn: Any, false_fn: Any, operands: tuple[Any, ...]) -> Any:
    pred_value = tracer.ir_value(pred)
    types = [_arg_type(v) for v in operands]
    true = _trace_region(tracer, true_fn, list(operands), types, "torch.cond")
    false = _trace_region(tracer, false_fn, list(operands), types, "torch.cond")
    if true.spec != false.spec:
        raise UnsupportedError(
            f"cond branches must return the same pytree structure: true branch gives {true.spec}, "
            f"false branch gives {false.spec}"
        )
    lifted = _lift([true, false], len(operands))
    true_types = [v.type for v in true.block.last_op.operands]
    false_types = [v.type for v in false.block.last_op.operands]
    bounds: list[tuple[int, int, Any]] = []  # (result, dim, (unbacked symbol, low, high))
    result_types = [_unbacked_merge(tracer, a, b, i, bounds)
                    for i, (a, b) in enumerate(zip(true_types, false_types))]
    inputs = [tracer.ir_value(v) for v in operands] + lifted
    op = CondOp.create(
        operands=[pred_value, *inputs], result_types=result_types,
        regions=[Region(true.block), Region(false.block)],
        properties={"operandSegmentSizes": _segments(1, len(inputs))},
    )
    outputs = _outputs(tracer, op, true, result_types)
    _assert_branch_sizes(tracer, op, bounds)
    return outputs


def _assert_branch_sizes(tracer: Tracer, op: Any, bounds: list[tuple[int, int, Any]]) -> None:
    """An unbacked dim from branches of different sizes is read back with
    sym_size.int and asserted within the branches' sizes (as torch does)."""
    for index, dim, (sym, low, high) in bounds:
        size = op_class(lookup_op("sym_size.int"), tracer.level).build([op.results[index], dim], [symint(sym)])
        tracer.blocks[-1].add_op(size)
        set_name(size.results[0], tracer.names.claim("sym_size_int"))
        tracer.sym_values[sym] = size.results[0]
        tracer.assert_condition(sympy.Ge(sym, low))
        tracer.assert_condition(sympy.Le(sym, high))


def _unbacked_merge(tracer: Tracer, a: Any, b: Any, index: int, bounds: list[Any]) -> Any:
    """Branch outputs of different sizes get a fresh unbacked dim; static sizes
    bound it (torch asserts u0 >= 2 and u0 <= 3 for sizes 3 and 2)."""
    _merge_types(a, b)
    if a == b:
        return a
    dims = []
    for axis, (x, y) in enumerate(zip(a.shape, b.shape)):
        if x == y:
            dims.append(x)
            continue
        sym = tracer.new_unbacked()
        if type(x) is int and type(y) is int:
            bounds.append((index, axis, (sym, min(x, y), max(x, y))))
        dims.append(sym)
    return TensorType.get(tuple(dims), a.dtype)


def _segments(*sizes: int) -> Any:
    return DenseArrayBase.from_list(i32, sizes)


def _slice_type(value: Tensor) -> Any:
    full = _arg_type(value)
    return TensorType.get(full.shape[1:], full.dtype)


def _trace_map(tracer: Tracer, f: Any, xs: Any, args: tuple[Any, ...]) -> Any:
    xs_leaves, xs_spec = pytree.tree_flatten(xs)
    n = len(xs_leaves)

    def body(*values: Any) -> Any:
        return f(pytree.tree_unflatten(list(values[:n]), xs_spec), *values[n:])

    types = [_slice_type(x) for x in xs_leaves] + [_arg_type(a) for a in args]
    sub = _trace_region(tracer, body, [*xs_leaves, *args], types, "map")
    lifted = _lift([sub], len(types))
    length = _arg_type(xs_leaves[0]).shape[0]
    result_types = [TensorType.get((length, *v.type.shape), v.type.dtype) for v in sub.block.last_op.operands]
    extra = [tracer.ir_value(a) for a in args] + lifted
    op = MapOp.create(
        operands=[*(tracer.ir_value(x) for x in xs_leaves), *extra], result_types=result_types,
        regions=[Region(sub.block)], properties={"operandSegmentSizes": _segments(n, len(extra))},
    )
    return _outputs(tracer, op, sub, result_types)


def _trace_scan(tracer: Tracer, fn: Any, init: Any, xs: Any, reverse: bool, extra: tuple[Any, ...]) -> Any:
    init_leaves, init_spec = pytree.tree_flatten(init)
    xs_leaves, xs_spec = pytree.tree_flatten(xs)
    n_init, n_xs = len(init_leaves), len(xs_leaves)
    ys_spec: list[Any] = []

    def body(*values: Any) -> Any:
        carry = pytree.tree_unflatten(list(values[:n_init]), init_spec)
        x = pytree.tree_unflatten(list(values[n_init:n_init + n_xs]), xs_spec)
        new_carry, y = fn(carry, x, *values[n_init + n_xs:])
        y_leaves, spec = pytree.tree_flatten(y)
        ys_spec.append(spec)
        return (*pytree.tree_flatten(new_carry)[0], *y_leaves)

    types = [_arg_type(v) for v in init_leaves] + [_slice_type(x) for x in xs_leaves] + [_arg_type(e) for e in extra]
    sub = _trace_region(tracer, body, [*init_leaves, *xs_leaves, *extra], types, "scan")
    lifted = _lift([sub], len(types))
    length = _arg_type(xs_leaves[0]).shape[0]
    yielded = [v.type for v in sub.block.last_op.operands]
    result_types = yielded[:n_init] + [TensorType.get((length, *t.shape), t.dtype) for t in yielded[n_init:]]
    extra_values = [tracer.ir_value(e) for e in extra] + lifted
    properties = {"operandSegmentSizes": _segments(n_init, n_xs, len(extra_values))}
    if reverse:
        properties["reverse"] = BoolAttr.from_bool(True)
    op = ScanOp.create(
        operands=[*(tracer.ir_value(v) for v in init_leaves), *(tracer.ir_value(x) for x in xs_leaves), *extra_values],
        result_types=result_types, regions=[Region(sub.block)], properties=properties,
    )
    tracer.blocks[-1].add_op(op)
    results = []
    for result in op.results:
        set_name(result, tracer.names.claim("getitem"))
        results.append(tracer.fake(result.type.shape, result.type.dtype, result))
    carry = pytree.tree_unflatten(results[:n_init], init_spec)
    return carry, pytree.tree_unflatten(results[n_init:], ys_spec[0])


def _trace_while(tracer: Tracer, cond_fn: Any, body_fn: Any, carried: tuple[Any, ...], extra: tuple[Any, ...]) -> Any:
    types = [_arg_type(v) for v in carried] + [_arg_type(e) for e in extra]
    inputs = [*carried, *extra]
    cond_sub = _trace_region(tracer, cond_fn, inputs, types, "torch.while_loop")
    body_sub = _trace_region(tracer, lambda *v: tuple(body_fn(*v)), inputs, types, "torch.while_loop")
    lifted = _lift([cond_sub, body_sub], len(types))
    extra_values = [tracer.ir_value(e) for e in extra] + lifted
    result_types = types[: len(carried)]
    op = WhileLoopOp.create(
        operands=[*(tracer.ir_value(v) for v in carried), *extra_values], result_types=result_types,
        regions=[Region(cond_sub.block), Region(body_sub.block)],
        properties={"operandSegmentSizes": _segments(len(carried), len(extra_values))},
    )
    tracer.blocks[-1].add_op(op)
    out = []
    for result in op.results:
        set_name(result, tracer.names.claim("getitem"))
        out.append(tracer.fake(result.type.shape, result.type.dtype, result))
    return tuple(out)
