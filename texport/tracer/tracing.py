"""The tracing mode: each op call appends one training-dialect op; no kernel runs.

Traced tensors hold a FakeValue (symbolic dims, the strides torch would give
the tensor, and the SSA value that defines them) instead of an array. Parameters, buffers and captured tensors stay the
real eager tensors; the tracer maps them to the function arguments they were
lifted to.
"""

from __future__ import annotations

import builtins
import keyword
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.ir import Block, SSAValue

from texport.dialects import tx
from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.aten import AtenOp, op_class, result_type_for
from texport.dialects.dtypes import DType
from texport.dialects.meta import ScalarMeta, TensorMeta
from texport.dialects.names import node_name as schema_node_name
from texport.dialects.names import set_name
from texport.dialects.shape_rules import SHAPE_RULES, STRIDE_RULES
from texport.dialects.shape_rules.guards import ShapeGuardError, SizeObliviousOracle, using_oracle
from texport.dialects.shape_rules.strides import Strides, apply_stride_rule
from texport.dialects.symbolic import symbol
from texport.dialects.tx import TensorType

from .eager import _plan
from .errors import GuardOnDataDependentSymNode, TracingError, UnsupportedError
from .handles import OpOverload
from .shape_env import INF
from .sources import caller_location
from .symbolic_ir import SymbolSource, materialize, materialize_condition, size_source
from .symint import SymBool, SymFloat, SymInt, SymNode
from .tensor import Tensor

_RESERVED = set(dir(builtins)) | set(keyword.kwlist) | {"torch", "texport"}


class FakeValue:
    """What a traced tensor holds: its dims (ints or sympy), its strides (None:
    row-major; shape_rules/strides.py) and its SSA value."""

    __slots__ = ("dims", "ssa", "strides", "tracer")

    def __init__(self, dims: tuple[Any, ...], ssa: SSAValue, tracer: Tracer,
                 strides: Strides | None = None) -> None:
        self.dims = dims
        self.ssa = ssa
        self.tracer = tracer
        self.strides = strides

    @property
    def shape(self) -> tuple[Any, ...]:
        return tuple(d if type(d) is int else SymInt(d, self.tracer) for d in self.dims)

    @property
    def ndim(self) -> int:
        return len(self.dims)


def layout_of(tensor: Tensor) -> tuple[tuple[Any, ...], Strides | None]:
    """A tensor's dims and strides as the tracer sees them (None: row-major;
    an eager tensor lifted into the program is a row-major argument)."""
    inner = tensor._value
    if isinstance(inner, FakeValue):
        return inner.dims, inner.strides
    return tuple(inner.shape), None


class NameTable:
    """torch.fx-style node names: the op's name, ``_1``, ``_2`` ... on reuse."""

    def __init__(self) -> None:
        self.used: dict[str, int] = {}

    def claim(self, base: str, *, placeholder: bool = False) -> str:
        """A fresh name from ``base``. A node may not take a Python builtin's name
        (fx's namespace gives ``max_1``); a placeholder may (torch's export names
        placeholders after the fact, avoiding only the names already taken)."""
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "v"
        if base[0].isdigit():
            base = f"_{base}"
        count = self.used.get(base)
        if count is None and (placeholder or base not in _RESERVED):
            self.used[base] = 0
            return base
        count = (count or 0) + 1
        while f"{base}_{count}" in self.used:
            count += 1
        self.used[base] = count
        self.used[f"{base}_{count}"] = 0
        return f"{base}_{count}"


def node_name(op: OpOverload) -> str:
    return schema_node_name(op._schema)


def _absent_type(op: OpOverload, index: int) -> Any:
    """A result the rule gives as None (a masked-out gradient): an empty tensor."""
    return TensorType.get((0,), DType.float32)


def _like(expected: Any, results: list[Any]) -> Any:
    """``results`` (a rule's results, unbacked sizes filled in) shaped as the rule returned them."""
    return type(expected)(results) if isinstance(expected, (tuple, list)) else results[0]


_MAX_SIZE = 9223372036854775806  # sys.maxsize - 1: torch's bound of a size from data


def _element_bound(values: list[Any]) -> Any:
    """The element count of the first tensor argument (the most elements a
    data-dependent output such as nonzero can have), or None without one."""
    for value in values:
        if isinstance(value, Tensor):
            inner = value._value
            dims = inner.dims if isinstance(inner, FakeValue) else tuple(inner.shape)
            total = 1
            for d in dims:
                total *= d
            return total
    return None


class Tracer:
    """The tracing mode (see module docstring)."""

    records_fresh_constants = True  # texport.tensor() in the forward: lift_fresh_copy + detach_, as torch
    draft: Any = None  # draft_export's DraftRecorder (tracer/draft.py): real values alongside the trace

    def __init__(self, block: Block, *, strict: bool = False, shape_env: Any = None,
                 level: str = "training") -> None:
        self.level = level  # the dialect traced ops belong to
        self.blocks = [block]
        self.names = NameTable()
        self.lifted: dict[int, tuple[Tensor, SSAValue]] = {}
        self.lifted_constants: list[tuple[str, Tensor, SSAValue]] = []
        self.constant_insert_at = 0  # block-arg index where the next lifted constant goes
        self.strict = strict
        self.shape_env = shape_env
        self.unbacked = 0
        self.sym_values: dict[Any, SSAValue] = {}
        self.symbol_sources: dict[Any, SymbolSource] = {}  # dim -> how to read it (symbolic_ir)
        self.size_asserted: set[Any] = set()

    # ---- values -------------------------------------------------------------

    def register_input(self, tensor: Tensor, value: SSAValue) -> None:
        self.lifted[id(tensor)] = (tensor, value)

    def fake(self, dims: tuple[Any, ...], dtype: DType, value: SSAValue, strides: Strides | None = None) -> Tensor:
        return Tensor._make(FakeValue(dims, value, self, strides), dtype)

    def meta_of(self, value: Any) -> Any:
        if isinstance(value, Tensor):
            inner = value._value
            if not isinstance(inner, FakeValue):  # a lifted tensor: a row-major function argument
                return TensorMeta(tuple(inner.shape), value._dtype)
            dims, strides = inner.dims, inner.strides
            if self.shape_env is not None:
                dims = tuple(self.shape_env.simplify(d) for d in dims)
                if strides is not None:
                    strides = tuple(self.shape_env.simplify(s) for s in strides)
            return TensorMeta(dims, value._dtype, strides)
        if isinstance(value, SymNode):
            return value.expr if self.shape_env is None else self.shape_env.simplify(value.expr)
        if isinstance(value, list):
            return [self.meta_of(v) for v in value]
        return value

    def ir_value(self, value: Any) -> Any:
        """The IR form of an argument: SSA values for tensors and symbols."""
        if isinstance(value, Tensor):
            inner = value._value
            if isinstance(inner, FakeValue):
                return inner.ssa
            return self._lifted_value(value)
        if isinstance(value, SymNode):
            return self.materialize(value)
        if isinstance(value, list):
            return [self.ir_value(v) for v in value]
        if isinstance(value, tuple):
            return [self.ir_value(v) for v in value]
        return value

    def _lifted_value(self, tensor: Tensor) -> SSAValue:
        known = self.lifted.get(id(tensor))
        if known is not None:
            return known[1]
        if self.strict:
            location = caller_location(keep_nn=False)
            raise UnsupportedError(
                "strict mode: the forward reads a tensor that is neither an input, a parameter "
                "nor a buffer (register it with register_buffer, or pass it as an input)"
                + (f"\n  {location}" if location else "")
            )
        return self.lift_constant(tensor)

    def lift_constant(self, tensor: Tensor) -> SSAValue:
        """A tensor captured by the forward becomes a CONSTANT_TENSOR input."""
        name = f"lifted_tensor_{len(self.lifted_constants)}"
        arg_name = self.names.claim(f"c_{name}")
        block = self.blocks[0]
        arg = block.insert_arg(TensorType.get(tensor._value.shape, tensor._dtype), self.constant_insert_at)
        set_name(arg, arg_name)
        self.constant_insert_at += 1
        self.lifted[id(tensor)] = (tensor, arg)
        self.lifted_constants.append((name, tensor, arg))
        return arg

    def constant(self, array: np.ndarray, dtype: DType) -> Tensor:
        """``texport.tensor(...)`` inside the forward: an eager constant, lifted on use."""
        return Tensor._make(array, dtype)

    # ---- ops ----------------------------------------------------------------

    def call(self, op: OpOverload, values: list[Any]) -> Any:
        key = op.key
        rule = SHAPE_RULES.get(key)
        if rule is None:
            raise TracingError(f"{op} has no shape rule: it cannot be traced")
        metas = [self.meta_of(v) for v in values]
        stride_rule = STRIDE_RULES.get(key)
        strides = None
        real = self.draft.run(self, op, values) if self.draft is not None else None
        try:
            with using_oracle(self.oracle()):
                expected = self._draft_rule(op, rule, metas, real) if real is not None else rule(*metas)
                results = expected if isinstance(expected, (tuple, list)) else (expected,)
                if expected == ():
                    results = ()
                if results and all(type(r) is ScalarMeta and r.value is not None for r in results):
                    return self._known_scalars(op, results)
                results = [self._fill_unbacked(r, values) for r in results]
                if stride_rule is not None and results:
                    strides = apply_stride_rule(stride_rule, metas, _like(expected, results))
        except ShapeGuardError as err:
            location = caller_location(keep_nn=False)
            raise TracingError(f"{op}: {err}" + (f"\n  {location}" if location else "")) from None
        types = [result_type_for(r) if r is not None else _absent_type(op, i) for i, r in enumerate(results)]
        self._assert_sizes(op, values)
        ir_op = op_class(op.op_def, self.level).build(
            [self.ir_value(v) for v in values], types, location=self._location(),
        )
        self.blocks[-1].add_op(ir_op)
        self._name_results(op, ir_op)
        if real is not None:
            self.draft.bind_outputs(ir_op, results, real)
        self._define_unbacked(ir_op, results)
        return self._wrap(op, values, ir_op, results, expected, strides)

    def _draft_rule(self, op: OpOverload, rule: Any, metas: list[Any], real: Any) -> Any:
        """A draft export's shape rule: a custom op without a fake kernel takes its real
        outputs' shapes; one with a fake kernel is checked against them."""
        try:
            expected = rule(*metas)
        except RuntimeError as err:
            if "no fake impl registered" not in str(err):
                raise
            return self.draft.missing_fake(op, real)
        self.draft.compare_fake(op, list(expected) if isinstance(expected, (tuple, list)) else [expected], real)
        return expected

    def _define_unbacked(self, ir_op: Any, results: list[Any]) -> None:
        """A size from data (nonzero's u0) is read from the result the op made.
        Export binds it there as torch does: sym_size.int, then asserts of its
        range (u0 >= 0, and u0 <= numel when the numel is bounded)."""
        for meta, value in zip(results, ir_op.results):
            if not isinstance(meta, TensorMeta):
                continue
            for axis, dim in enumerate(meta.shape):
                if type(dim) is not int and dim.is_Symbol and dim.name.startswith("u") \
                        and dim not in self.symbol_sources:
                    self.symbol_sources[dim] = size_source(value, axis, dim, self.level)
                    if self.shape_env is not None:
                        self._bind_unbacked(dim)

    def _bind_unbacked(self, sym: Any) -> None:
        materialize(self, sym)
        self.size_asserted.add(sym)
        high = self.shape_env.symbols[sym].high
        self._emit_assert(sympy.Ge(sym, 0))
        if high not in (INF, _MAX_SIZE):
            self._emit_assert(sympy.Le(sym, high))

    def oracle(self) -> Any:
        return self.shape_env if self.shape_env is not None else SizeObliviousOracle()

    def _fill_unbacked(self, meta: Any, values: list[Any]) -> Any:
        if isinstance(meta, TensorMeta) and any(d is None for d in meta.shape):
            dims = []
            for d in meta.shape:
                if d is None:
                    d = self.new_unbacked()
                    if self.shape_env is not None:  # a size from data: 0 ..= the input's numel
                        info = self.shape_env.symbols[d]
                        info.low, info.high = 0, self._size_bound(_element_bound(values), info.high)
                dims.append(d)
            return TensorMeta(tuple(dims), meta.dtype)
        if isinstance(meta, ScalarMeta) and meta.value is None:
            return ScalarMeta(meta.kind, self.new_unbacked())
        return meta

    def _size_bound(self, numel: Any, default: Any) -> Any:
        """The upper end of a numel's range; torch's sys.maxsize - 1 when unbounded."""
        if numel is None:
            return default
        if type(numel) is int:
            return numel
        high = self.shape_env.bounds(numel)[1]
        return _MAX_SIZE if high == INF else high

    def new_unbacked(self) -> sympy.Symbol:
        name = f"u{self.unbacked}"
        self.unbacked += 1
        sym = symbol(name)
        if self.shape_env is not None:
            self.shape_env.add_unbacked(sym)
        return sym

    def assert_condition(self, condition: Any) -> None:
        """A runtime assert in the IR (torch's _assert_scalar); narrows ranges."""
        if self.shape_env is not None:
            condition = self.shape_env.simplify(condition)
            if self.shape_env._static(condition) is True:  # noqa: SLF001 - already implied by ranges
                return
        if condition is sympy.true:
            return
        self._emit_assert(condition)
        if self.shape_env is not None:
            self.shape_env.narrow(condition)

    def _emit_assert(self, condition: Any) -> None:
        value = materialize_condition(self, condition)
        message = f"Runtime assertion failed for expression {condition} on node '{value.name_hint}'"
        self.blocks[-1].add_op(tx.AssertOp.create(operands=[value], properties={"message": StringAttr(message)}))

    def _assert_sizes(self, op: OpOverload, values: list[Any]) -> None:
        """An unbacked int used as a size is asserted >= 0 first (as torch)."""
        for arg, value in zip(op._schema.arguments, values):
            if arg.type.base != "SymInt":
                continue
            for item in (value if isinstance(value, list) else [value]):
                if isinstance(item, SymNode) and isinstance(item.expr, sympy.Symbol) \
                        and item.expr.name.startswith("u") and item.expr not in self.size_asserted:
                    self.size_asserted.add(item.expr)
                    self.assert_condition(sympy.Ge(item.expr, 0))

    def _location(self) -> Any:
        location = caller_location(keep_nn=True)
        if location is None:
            return None
        return FileLineColLoc(StringAttr(location.filename), IntAttr(location.line), IntAttr(0))

    def _name_results(self, op: OpOverload, ir_op: AtenOp) -> None:
        if len(ir_op.results) == 1 and not op._schema.returns_tuple and not op._schema.returns[0].type.is_list:
            set_name(ir_op.results[0], self.names.claim(node_name(op)))
            return
        self.names.claim(node_name(op))
        for result in ir_op.results:
            set_name(result, self.names.claim("getitem"))

    def _wrap(self, op: OpOverload, values: list[Any], ir_op: AtenOp, results: list[Any], expected: Any,
              strides: list[Strides | None] | None) -> Any:
        plan = _plan(op)
        wrapped = []
        for index, (meta, result) in enumerate(zip(results, ir_op.results)):
            written = plan.written_arg[index] if index < len(plan.written_arg) else None
            if written is not None:
                target = values[written]
                if op.op_def.has_tag("inplace_view"):  # t_, squeeze_...: self takes the new shape
                    target._value = FakeValue(meta.shape, result, self, strides and strides[index])
                else:
                    self._rebind_written(target, result)
                wrapped.append(target)
            elif isinstance(meta, TensorMeta):
                wrapped.append(self.fake(meta.shape, meta.dtype, result, strides and strides[index]))
            elif isinstance(meta, ScalarMeta):
                wrapped.append(self.sym_node(meta, result))
            else:
                wrapped.append(None)
        if not plan.kinds:
            return None
        if isinstance(expected, list):
            return wrapped
        if plan.is_tuple or len(plan.kinds) > 1:
            return tuple(wrapped)
        return wrapped[0]

    def _rebind_written(self, target: Tensor, result: SSAValue) -> None:
        """Later reads of a tensor written in place read the writing op's result,
        as torch's proxies do (``x.add_(1); x * 2`` multiplies ``add_``)."""
        inner = target._value
        if isinstance(inner, FakeValue):
            target._value = FakeValue(inner.dims, result, self, inner.strides)
        elif id(target) in self.lifted:  # a parameter, buffer or constant: an eager tensor
            self.lifted[id(target)] = (target, result)

    def _known_scalars(self, op: OpOverload, results: list[ScalarMeta]) -> Any:
        """A metadata query (sym_size, sym_stride, sym_is_contiguous...) the fake
        tensor answers, as torch's does: no op; a symbolic answer that an op uses
        later is traced from the input sizes then."""
        values = []
        for meta in results:
            value = meta.value
            if isinstance(value, sympy.Basic) and not value.free_symbols:
                value = bool(value) if meta.kind == "bool" else int(value) if meta.kind == "int" else float(value)
            elif isinstance(value, sympy.Basic):
                value = {"int": SymInt, "float": SymFloat, "bool": SymBool}[meta.kind](value, self)
            values.append(value)
        return values[0] if len(values) == 1 and not _plan(op).is_tuple else tuple(values)

    def sym_node(self, meta: ScalarMeta, value: SSAValue) -> Any:
        expr = meta.value
        if type(expr) in (int, bool):
            return expr
        node = {"int": SymInt, "float": SymFloat, "bool": SymBool}[meta.kind](expr, self)
        key = ("float", expr) if meta.kind == "float" else ("bool", expr) if meta.kind == "bool" else expr
        self.sym_values.setdefault(key, value)  # the key materialize() looks up
        return node

    # ---- symbolic scalars ---------------------------------------------------

    def materialize(self, node: SymNode) -> SSAValue:
        """The SSA value of a symbolic scalar (traced with tx ops on first use)."""
        expr = node.expr if self.shape_env is None else self.shape_env.simplify(node.expr)
        return materialize(self, expr, node.kind)

    def guard_value(self, node: SymNode) -> Any:
        """Python code needs the concrete value of ``node``."""
        expr = node.expr
        unbacked = sorted(s.name for s in expr.free_symbols if s.name.startswith("u"))
        if unbacked or self.shape_env is None:
            if self.draft is not None and unbacked:
                try:
                    return self.draft.data_dependent(self, expr)
                except KeyError:  # a size from data the draft has no real value for
                    pass
            raise GuardOnDataDependentSymNode.create(expr)
        return self.shape_env.guard(expr, caller_location(keep_nn=False))

    def concrete(self, tensor: Tensor, what: str) -> Any:
        inner = tensor._value
        if isinstance(inner, FakeValue):
            raise GuardOnDataDependentSymNode.for_tensor(what)
        return inner
