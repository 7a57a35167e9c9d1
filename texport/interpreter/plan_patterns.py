"""Groups of a block's ops that a plan runs as one step.

After ``run_decompositions()`` a program runs many small ops where the training
program ran one: ``matmul`` becomes expand, clone, view, bmm, view; ``linear``
becomes permute, view, addmm, view; ``max_pool2d`` becomes
``max_pool2d_with_indices`` whose indices nobody reads. Each op costs a kernel
call whatever its size, so the plan compiler matches these groups before it
writes the code and runs each as one call of the kernel the group amounts to.

A group is matched only where that is safe by construction: its intermediate
values have one use, inside the group, in the same block; the shapes (symbolic
ones too) prove the group computes what the single kernel computes; no op
between its first and last op writes memory. At run time a fused step checks
the inputs' layout (the condition under which the group could not fail); when
it does not hold, the step runs the group's own kernels in order, so errors and
results stay those of the unfused plan.

Results equal the unfused plan's bit for bit, except for the matmul group, which
is one ``np.matmul`` of the original operands (broadcasting batch dims) where the
unfused plan ran one GEMM per batch on contiguous copies: BLAS may group the
accumulation differently, so float results agree to float rounding (the training
program's ``matmul`` kernel computes exactly what the fused step does).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import Block, Operation, SSAValue

from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.aten import AtenOp, dims_equal
from texport.dialects.tx import TensorType

from .errors import GuardError, RuntimeAssertError
from .kernels import KERNELS
from .kernels.linalg import linear as _linear_kernel
from .kernels.linalg import matmul as _matmul_kernel
from .kernels.views import _memory_format
from .kernels.views import _view as _view_kernel

_VIEW = "aten.view.default"
_RESHAPES = frozenset({_VIEW, "aten._unsafe_view.default", "aten.reshape.default"})
_EXPAND = "aten.expand.default"
_CLONE = "aten.clone.default"
_BMM = "aten.bmm.default"
_PERMUTE = "aten.permute.default"
_T = "aten.t.default"
_ADDMM = "aten.addmm.default"
_MM = "aten.mm.default"


@dataclass
class Group:
    """Ops run as one step: ``kernel(*arguments)`` defines ``results``.

    ``anchor`` is the op at whose place the step runs (the group's last op);
    ``principal`` the op a failure is reported against (bmm, addmm, the pool)."""

    name: str
    ops: list[Operation]
    kernel: Callable[..., Any]
    arguments: list[Any]
    results: list[SSAValue]
    principal: Operation

    @property
    def anchor(self) -> Operation:
        return self.ops[-1]

    def operands(self) -> list[SSAValue]:
        found: list[SSAValue] = []
        _collect(self.arguments, found)
        return found


def _collect(value: Any, into: list[SSAValue]) -> None:
    if isinstance(value, SSAValue):
        into.append(value)
    elif isinstance(value, list):
        for item in value:
            _collect(item, into)


# ---------------------------------------------------------------------------- block matching


def match_block(block: Block) -> dict[Operation, Group]:
    """Each matched op of ``block`` -> its group (ops of no group are absent)."""
    ops = list(block.ops)
    position = {op: i for i, op in enumerate(ops)}
    writes = [i for i, op in enumerate(ops) if _writes_memory(op)]
    grouped: dict[Operation, Group] = {}
    for op in ops:
        if op in grouped or not isinstance(op, AtenOp):
            continue
        for matcher in _MATCHERS:
            group = matcher(op)
            if group is None or any(member in grouped for member in group.ops):
                continue
            first, last = position[group.ops[0]], position[group.anchor]
            if any(first < i < last for i in writes):
                continue  # an operand might change between the group's ops: keep their order
            for member in group.ops:
                grouped[member] = group
            break
    return grouped


def _writes_memory(op: Operation) -> bool:
    if not isinstance(op, AtenOp):
        return bool(op.regions)  # control flow: whatever its body does
    return op.op_def.schema.is_mutable or op.op_def.has_tag("inplace_view")


def _key(op: Operation | None) -> str | None:
    return op.op_def.key if isinstance(op, AtenOp) else None


def _only_user(value: SSAValue) -> Operation | None:
    """The op using ``value``, if exactly one op uses it once, in ``value``'s block."""
    uses = list(value.uses)
    if len(uses) != 1:
        return None
    user = uses[0].operation
    owner_block = value.owner.parent_block() if isinstance(value.owner, Operation) else value.owner
    return user if user.parent_block() is owner_block else None


def _producer(value: Any, keys: Sequence[str] | frozenset[str]) -> Operation | None:
    """The op of kind ``keys`` that defines ``value`` for ``value``'s only use."""
    if not isinstance(value, SSAValue) or not isinstance(value.owner, AtenOp):
        return None
    op = value.owner
    if _key(op) not in keys or len(op.results) != 1 or _only_user(value) is None:
        return None
    return op


def _consumer(value: SSAValue, keys: Sequence[str] | frozenset[str]) -> Operation | None:
    """The op of kind ``keys`` that is ``value``'s only use, reading it as its first argument."""
    user = _only_user(value)
    if _key(user) not in keys or len(user.results) != 1 or user.arguments()[0] is not value:
        return None
    return user


def _shape(value: Any) -> tuple[Any, ...] | None:
    kind = getattr(value, "type", None)
    return tuple(kind.shape) if isinstance(kind, TensorType) else None


def _dtype(value: Any) -> Any:
    return value.type.dtype if isinstance(getattr(value, "type", None), TensorType) else None


def _same_dims(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(dims_equal(x, y) for x, y in zip(a, b))


def _product(dims: Sequence[Any]) -> Any:
    if all(type(d) is int for d in dims):
        return math.prod(dims)
    return sympy.Mul(*[sympy.sympify(d) for d in dims])


# ---------------------------------------------------------------------------- the fallback


class OpFailed(Exception):
    """An op of a fused step's fallback failed: the plan reports ``op`` as the one that
    failed, with ``cause``, as the unfused plan would."""

    def __init__(self, op: Operation, cause: Exception) -> None:
        super().__init__(op, cause)
        self.op, self.cause = op, cause


def _unfused(ops: Sequence[Operation], arguments: list[Any]) -> Callable[..., Any]:
    """The group's own kernels in order, called with the step's arguments (the values of
    ``arguments``, same structure): what a fused step runs when its fast-path
    condition does not hold, so that errors and layouts stay the unfused plan's."""
    program = [(KERNELS[op.op_def.key], op.arguments(), op.results) for op in ops]

    def run(*values: Any) -> Any:
        env: dict[SSAValue, Any] = {}
        _bind(arguments, list(values), env)
        out: Any = None
        for op, (kernel, args, results) in zip(ops, program):
            try:
                out = kernel(*[resolve(a, env) for a in args])
            except (GuardError, RuntimeAssertError):
                raise
            except Exception as err:  # noqa: BLE001 - the plan names the op
                raise OpFailed(op, err) from err
            if len(results) == 1:
                env[results[0]] = out
            else:
                env.update(zip(results, out))
        return out

    return run


def _with_outside(ops: Sequence[Operation], arguments: list[Any]) -> list[Any]:
    """``arguments`` and then every other value the group's ops read from outside the group
    (sizes of views and expands): the step passes them all, for its fallback."""
    inside = {result for op in ops for result in op.results}
    given: list[SSAValue] = []
    _collect(arguments, given)
    outside = [v for op in ops for v in op.operands if v not in inside and v not in given]
    return [*arguments, *dict.fromkeys(outside)]


def _bind(pattern: Any, value: Any, env: dict[SSAValue, Any]) -> None:
    if isinstance(pattern, SSAValue):
        env[pattern] = value
    elif isinstance(pattern, list):
        for p, v in zip(pattern, value):
            _bind(p, v, env)


def resolve(arg: Any, env: dict[SSAValue, Any]) -> Any:
    """An op's argument (an SSA value, a literal, a list of them) with each SSA value
    replaced by its value in ``env``."""
    if isinstance(arg, SSAValue):
        return env[arg]
    if isinstance(arg, list):
        return [resolve(a, env) for a in arg]
    return arg


# ---------------------------------------------------------------------------- matmul chains


@dataclass
class _Side:
    """One bmm operand traced back through view <- clone <- expand to its source."""

    source: Any
    ops: list[Operation]
    batch: tuple[Any, ...]  # the batch dims after the expand
    merges_strides: bool  # the view merges the source's own batch dims: legal per strides


def _bmm_side(value: SSAValue) -> _Side | None:
    ops: list[Operation] = []
    current: Any = value
    view = _producer(current, _RESHAPES)
    if view is not None:
        ops.insert(0, view)
        current = view.arguments()[0]
    clone = _producer(current, (_CLONE,))
    if clone is not None:
        ops.insert(0, clone)
        current = clone.arguments()[0]
    expand = _producer(current, (_EXPAND,))
    if expand is not None:
        ops.insert(0, expand)
        current = expand.arguments()[0]
    full = _shape(expand.results[0] if expand is not None else current)
    source = _shape(current)
    if full is None or source is None or len(full) < 2 or len(source) < 2:
        return None
    batch = full[:-2]
    folded = _shape(value)
    if folded is None or not _same_dims(folded, (_product(batch), *full[-2:])):
        return None  # the view does not fold exactly the batch dims
    # The view merges the batch dims of the expanded source: always legal after a clone
    # (contiguous), with one batch dim (nothing merged), or from a matrix (expanded batch
    # dims all have stride 0); else, where the expand broadcast nothing, legal as the
    # source's strides say (checked per call). Other sides are left unfused.
    if clone is not None or view is None or len(batch) <= 1 or len(source) == 2:
        return _Side(current, ops, batch, False)
    if not _same_dims(source, full):
        return None
    return _Side(current, ops, batch, True)


def _batch_merges(a: np.ndarray) -> bool:
    """The batch dims of ``a`` (all but the last two) merge into one as a view: each
    stride is the next one's times its size (size-1 dims aside), as torch's view needs."""
    if a.flags.c_contiguous:
        return True
    inner = None
    for size, stride in zip(reversed(a.shape[:-2]), reversed(a.strides[:-2])):
        if size == 1:
            continue
        if inner is not None and stride != inner[1] * inner[0]:
            return False
        inner = (size, stride)
    return True


def _broadcasts_to(a: Sequence[Any], b: Sequence[Any], batch: Sequence[Any]) -> bool:
    """np.matmul's batch broadcast of sources ``a`` and ``b`` is exactly ``batch``."""
    if max(len(a), len(b)) != len(batch):
        return False
    for k in range(1, len(batch) + 1):
        dims = [s[-k] for s in (a, b) if len(s) >= k]
        if not any(dims_equal(d, batch[-k]) for d in dims):
            return False
        if not all(dims_equal(d, batch[-k]) or (type(d) is int and d == 1) for d in dims):
            return False
    return True


def _match_matmul(bmm: Operation) -> Group | None:
    """expand -> clone -> view -> bmm -> view: torch's matmul of the expand sources."""
    if _key(bmm) != _BMM:
        return None
    left, right = (_bmm_side(v) for v in bmm.arguments()[:2])
    if left is None or right is None or not left.ops and not right.ops:
        return None
    if not _same_dims(left.batch, right.batch):
        return None
    a_shape, b_shape = _shape(left.source), _shape(right.source)
    if not _broadcasts_to(a_shape[:-2], b_shape[:-2], left.batch) or _dtype(left.source) != _dtype(right.source):
        return None
    ops = [*left.ops, *right.ops, bmm]
    result = bmm.results[0]
    back = _consumer(result, _RESHAPES)
    if back is not None:
        ops.append(back)
        result = back.results[0]
    expected = (*left.batch, a_shape[-2], b_shape[-1])
    if not _same_dims(_shape(result), expected):
        return None
    ops.sort(key=_block_index)
    arguments = _with_outside(ops, [left.source, right.source])
    slow = _unfused(ops, arguments)
    loose = (left.merges_strides, right.merges_strides)

    def run(a: Any, b: Any, *outside: Any) -> Any:
        # without a clone, the view of the expanded source must be legal: on a contiguous one it is
        if (type(a) is np.ndarray and type(b) is np.ndarray
                and (not loose[0] or _batch_merges(a)) and (not loose[1] or _batch_merges(b))):
            out = _matmul_kernel(a, b)
            return out if out.flags.c_contiguous else np.ascontiguousarray(out)  # as the view of bmm's result
        return slow(a, b, *outside)

    return Group("fused.matmul", ops, run, arguments, [result], bmm)


def _block_index(op: Operation) -> int:
    block = op.parent_block()
    return block.get_operation_index(op) if block is not None else 0


# ---------------------------------------------------------------------------- linear


def _transposed_weight(value: Any) -> Operation | None:
    op = _producer(value, (_PERMUTE, _T))
    if op is None:
        return None
    if _key(op) == _PERMUTE and list(op.arguments()[1]) != [1, 0]:
        return None
    return op if _shape(op.arguments()[0]) is not None and len(_shape(op.arguments()[0])) == 2 else None


def _match_linear(op: Operation) -> Group | None:
    """[clone ->] [view ->] addmm(bias, x, permute(w)) | mm(x, permute(w) | b) [-> view]:
    linear(x, w, bias), or matmul(x, b): both one GEMM of x's rows folded, as mm's."""
    key = _key(op)
    if key == _ADDMM:
        bias, x2, right, beta, alpha = op.arguments()
        if not (beta == 1 and alpha == 1 and isinstance(bias, SSAValue)):
            return None
    elif key == _MM:
        bias, (x2, right) = None, op.arguments()
    else:
        return None
    ops: list[Operation] = []
    transpose = _transposed_weight(right)
    if transpose is not None:
        weight = transpose.arguments()[0]
        ops.append(transpose)
        n_out = _shape(weight)[0]
    elif bias is None and _shape(right) is not None and len(_shape(right)) == 2:
        weight, n_out = right, _shape(right)[1]
    else:
        return None
    x, copied = x2, False
    flatten = _producer(x2, (_VIEW,))
    if flatten is not None:
        x = flatten.arguments()[0]
        ops.append(flatten)
        clone = _producer(x, (_CLONE,))
        if (clone is not None and _memory_format(clone.arguments()[1]) == "contiguous_format"
                and len(_shape(x)) > 2):
            # the GEMM folds x's rows by numpy's reshape, a row-major copy: the clone's
            # (a matrix would go to BLAS as it is, perhaps transposed: other rounding)
            x, copied = clone.arguments()[0], True
            ops.append(clone)
    x_shape = _shape(x)
    k_dim = _shape(x2)[-1]
    if x_shape is None or len(x_shape) < 2 or not dims_equal(x_shape[-1], k_dim):
        return None
    if flatten is not None and not _same_dims(_shape(x2), (_product(x_shape[:-1]), k_dim)):
        return None
    dtypes = {_dtype(x), _dtype(weight)} | ({_dtype(bias)} if bias is not None else set())
    if len(dtypes) != 1:
        return None  # the kernels' own dtype errors name different arguments
    if bias is not None and len(x_shape) > 2 and len(_shape(bias)) != 1:
        return None  # a [N, out] bias broadcasts against the flattened rows only
    ops.append(op)
    result = op.results[0]
    back = _consumer(result, (_VIEW,))
    if back is not None:
        ops.append(back)
        result = back.results[0]
    if len(ops) < 2 or not _same_dims(_shape(result), (*x_shape[:-1], n_out)):
        return None
    ops.sort(key=_block_index)
    arguments = _with_outside(ops, [x, weight, bias])
    slow = _unfused(ops, arguments)
    strict = flatten is not None and not copied
    product = _linear_kernel if transpose is not None else _matmul_without_bias

    def run(xv: Any, wv: Any, bv: Any, *outside: Any) -> Any:
        # the flattening view is legal on a contiguous input (the GEMM would copy instead)
        if type(xv) is np.ndarray and type(wv) is np.ndarray and (not strict or xv.flags.c_contiguous):
            return product(xv, wv, bv)
        return slow(xv, wv, bv, *outside)

    return Group("fused.linear" if transpose is not None else "fused.matmul", ops, run, arguments, [result], op)


def _matmul_without_bias(x: np.ndarray, b: np.ndarray, bias: None) -> np.ndarray:
    return _matmul_kernel(x, b)


# ---------------------------------------------------------------------------- view chains


def _match_views(op: Operation) -> Group | None:
    """view(view(...(x))): one view of x, when each intermediate has one use."""
    if _key(op) != _VIEW:
        return None
    first = op
    chain = [op]
    while True:
        inner = _producer(first.arguments()[0], (_VIEW,))
        if inner is None:
            break
        chain.insert(0, inner)
        first = inner
    # the outermost view of the chain: extend forward from op while the single user is a view
    last = op
    while True:
        user = _consumer(last.results[0], (_VIEW,))
        if user is None:
            break
        chain.append(user)
        last = user
    if len(chain) < 2:
        return None
    source = chain[0].arguments()[0]
    arguments = _with_outside(chain, [source, last.arguments()[1]])
    slow = _unfused(chain, arguments)

    def run(x: Any, size: Any, *outside: Any) -> Any:
        if type(x) is np.ndarray and x.flags.c_contiguous:  # then every view of the chain is legal
            return _view_kernel(x, size)
        return slow(x, size, *outside)

    return Group("fused.view", chain, run, arguments, [last.results[0]], last)


# ---------------------------------------------------------------------------- permute/clone chains


def _chain_link(op: Operation | None) -> bool:
    """A permute with literal dims, or a clone to row-major (contiguous_format)."""
    key = _key(op)
    if key == _PERMUTE:
        dims, rank = op.arguments()[1], len(_shape(op.results[0]))
        return (all(type(d) is int and -rank <= d < rank for d in dims)
                and sorted(d % rank for d in dims) == list(range(rank)))
    return key == _CLONE and _memory_format(op.arguments()[1]) == "contiguous_format"


def _match_permutes(op: Operation) -> Group | None:
    """permute -> clone -> permute -> permute ... (the layout dance around attention's
    heads): consecutive permutes composed into one np.transpose, each clone one
    row-major copy; the same numpy views and copies, fewer calls."""
    if not _chain_link(op):
        return None
    head = op.arguments()[0]
    if isinstance(head, SSAValue) and _chain_link(head.owner) and _only_user(head) is op:
        return None  # not the chain's first op: matched from there
    chain = [op]
    while (user := _consumer(chain[-1].results[0], (_PERMUTE, _CLONE))) is not None and _chain_link(user):
        chain.append(user)
    if len(chain) < 2:
        return None
    rank = len(_shape(head))
    steps: list[tuple[int, ...] | None] = []  # a composed permutation, or None for a copy
    for link in chain:
        if _key(link) == _CLONE:
            steps.append(None)
            continue
        dims = tuple(d % rank for d in link.arguments()[1])
        if steps and steps[-1] is not None:
            previous = steps.pop()
            dims = tuple(previous[d] for d in dims)
        steps.append(dims)
    arguments = _with_outside(chain, [head])
    slow = _unfused(chain, arguments)
    program = tuple(steps)

    def run(x: Any, *outside: Any) -> Any:
        if type(x) is not np.ndarray or x.ndim != rank:
            return slow(x, *outside)
        for dims in program:
            x = np.transpose(x, dims) if dims is not None else x.copy(order="C")
        return x

    return Group("fused.permutes", chain, run, arguments, list(chain[-1].results), chain[-1])


# ---------------------------------------------------------------------------- select


def _match_select(op: Operation) -> Group | None:
    """squeeze(slice(x, d, i, i + 1), [d]): select(x, d, i), the same view (unbind's
    decomposition, e.g. q, k, v of a packed projection)."""
    if _key(op) != "aten.slice.Tensor":
        return None
    x, dim, start, end, step = op.arguments()
    squeeze = _consumer(op.results[0], ("aten.squeeze.dims",))
    sliced = _shape(op.results[0])
    if squeeze is None or sliced is None or not all(type(v) is int for v in (dim, start, end, step)):
        return None
    dim = dim % len(sliced) if -len(sliced) <= dim < len(sliced) else None
    dims = squeeze.arguments()[1]
    if dim is None or step != 1 or start < 0 or end != start + 1 or sliced[dim] != 1:
        return None
    if not isinstance(dims, list) or len(dims) != 1 or type(dims[0]) is not int or dims[0] % len(sliced) != dim:
        return None
    return Group("fused.select", [op, squeeze], _SELECT, [x, dim, start], list(squeeze.results), op)


_SELECT = KERNELS["aten.select.int"]


# ---------------------------------------------------------------------------- softmax of masked rows


def _match_masked_softmax(where: Operation) -> Group | None:
    """sdpa's softmax that zeroes the rows masked entirely (all -inf), as decomposed:
    where(~any(~(x == -inf), d, keepdim), full_like(s, 0), s) with s = _softmax(x, d)."""
    if _key(where) != "aten.where.self":
        return None
    condition, zeros, soft = where.arguments()
    not_any = _producer(condition, ("aten.logical_not.default",))
    any_op = _producer(not_any.arguments()[0], ("aten.any.dim",)) if not_any else None
    not_eq = _producer(any_op.arguments()[0], ("aten.logical_not.default",)) if any_op else None
    eq = _producer(not_eq.arguments()[0], ("aten.eq.Scalar",)) if not_eq else None
    full = _producer(zeros, ("aten.full_like.default",))
    if eq is None or full is None or not isinstance(soft, SSAValue) or _key(soft.owner) != "aten._softmax.default":
        return None
    softmax = soft.owner
    x, soft_dim, half_to_float = softmax.arguments()
    rank = len(_shape(x))
    _, any_dim, keepdim = any_op.arguments()
    if not (eq.arguments()[0] is x and eq.arguments()[1] == -math.inf and keepdim is True
            and half_to_float is False and type(soft_dim) is int and type(any_dim) is int
            and soft_dim % rank == any_dim % rank and full.arguments()[0] is soft
            and full.arguments()[1] == 0 and all(a is None for a in full.arguments()[2:])):
        return None
    uses = [use.operation for use in soft.uses]
    if len(uses) != 2 or set(uses) != {full, where} or full.parent_block() is not where.parent_block():
        return None
    ops = sorted([softmax, eq, not_eq, any_op, not_any, full, where], key=_block_index)
    arguments = _with_outside(ops, [x])
    slow = _unfused(ops, arguments)
    axis = soft_dim % rank

    def run(xv: Any, *outside: Any) -> Any:
        if type(xv) is np.ndarray and xv.flags.c_contiguous and (xv.dtype == np.float32 or xv.dtype == np.float64):
            probabilities = _SOFTMAX(xv, axis, False)
            if probabilities.flags.c_contiguous:
                masked = ~np.any(xv != -math.inf, axis=axis, keepdims=True)
                return np.where(masked, probabilities.dtype.type(0), probabilities)
        return slow(xv, *outside)

    return Group("fused.masked_softmax", ops, run, arguments, list(where.results), softmax)


_SOFTMAX = KERNELS["aten._softmax.default"]


# ---------------------------------------------------------------------------- unused results


def _values_only(key: str) -> Callable[..., Any]:
    values = KERNELS[key]

    def run(*args: Any) -> tuple[Any, None]:
        return values(*args), None

    return run


# op key -> (the results a cheaper kernel computes, the kernel: the op's arguments -> all results)
VALUES_ONLY: dict[str, tuple[frozenset[int], Callable[[], Callable[..., Any]]]] = {
    f"aten.max_pool{n}d_with_indices.default": (frozenset({0}), lambda n=n: _values_only(f"aten.max_pool{n}d.default"))
    for n in (1, 2, 3)
}


def _match_unused_results(op: Operation) -> Group | None:
    entry = VALUES_ONLY.get(_key(op) or "")
    if entry is None:
        return None
    computed, make = entry
    if any(result.uses for i, result in enumerate(op.results) if i not in computed):
        return None
    arguments = op.arguments()
    return Group("values_only." + op.op_def.key, [op], make(), arguments, list(op.results), op)


_MATCHERS = (_match_unused_results, _match_matmul, _match_linear, _match_views, _match_select,
             _match_masked_softmax, _match_permutes)
