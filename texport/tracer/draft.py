"""Real-value propagation for ``draft_export`` (torch's fake_tensor_propagate_real_tensors).

While a draft export traces, every op also runs its kernel on the real values of
its inputs (the example inputs, copies of the parameters and buffers), so each
traced value has its real value and each size from data (u0) its real value as
a hint. Where a normal export stops, a draft export goes on and records why:

- a guard on data (``if x.item() > 2``) takes the real answer, and a runtime
  assert of it goes into the program (DATA_DEPENDENT_ERROR);
- a custom op without a fake kernel takes its real outputs' shapes
  (MISSING_FAKE_KERNEL); one whose fake kernel disagrees with its real kernel
  is reported (MISMATCHED_FAKE_KERNEL).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import StringAttr

from texport.dialects import tx
from texport.dialects._lazy import sympy
from texport.dialects.meta import ScalarMeta, TensorMeta
from texport.interpreter.kernels import KERNELS

from .dispatcher import base_mode, using_mode
from .sources import caller_location


@dataclass
class Failure:
    """One issue found: its kind (torch's FailureType name) and what torch's report holds."""

    kind: str
    data: dict[str, Any]


@dataclass
class DraftRecorder:
    real: dict[Any, Any] = field(default_factory=dict)  # SSA value -> real array or scalar
    hints: dict[Any, Any] = field(default_factory=dict)  # unbacked symbol -> its real value
    copies: dict[int, np.ndarray] = field(default_factory=dict)  # eager tensor id -> private copy
    failures: list[Failure] = field(default_factory=list)
    shape_env: Any = None  # the trace's: its guards are what a contradicted spec reports

    # ---- real values -------------------------------------------------------

    def bind_input(self, ssa: Any, value: Any) -> None:
        self.real[ssa] = np.array(value, copy=True) if isinstance(value, np.ndarray) else value

    def real_of(self, tracer: Any, value: Any) -> Any:
        """The real value of an op argument, or raise KeyError when it has none."""
        from .symint import SymNode  # noqa: PLC0415 - symint imports this layer's tracer lazily
        from .tensor import Tensor  # noqa: PLC0415
        from .tracing import FakeValue  # noqa: PLC0415

        if isinstance(value, Tensor):
            inner = value._value
            if isinstance(inner, FakeValue):
                return self.real[inner.ssa]
            copy = self.copies.get(id(value))
            if copy is None:  # the forward may write a buffer: never the user's own array
                copy = self.copies[id(value)] = np.array(inner, copy=True)
            return copy
        if isinstance(value, SymNode):
            return self.evaluate(tracer, value.expr)
        if isinstance(value, list):
            return [self.real_of(tracer, v) for v in value]
        return value

    def evaluate(self, tracer: Any, expr: Any) -> Any:
        """``expr`` at the real values: input dims by their hints, sizes from data by theirs."""
        if not isinstance(expr, sympy.Basic):
            return expr
        values = dict(self.hints)
        if tracer.shape_env is not None:
            values.update({s: i.hint for s, i in tracer.shape_env.symbols.items() if i.hint is not None})
        missing = expr.free_symbols - set(values)
        if missing:
            raise KeyError(sorted(str(s) for s in missing))
        result = expr.xreplace({s: sympy.Integer(v) for s, v in values.items() if s in expr.free_symbols})
        if result in (sympy.true, sympy.false):
            return bool(result)
        return int(result) if result.is_Integer else float(result)

    def run(self, tracer: Any, op: Any, values: list[Any]) -> Any:
        """The op's real outputs, or None when an input has no real value."""
        kernel = KERNELS.get(op.key)
        if kernel is None:
            return None
        try:
            args = [self.real_of(tracer, v) for v in values]
        except KeyError:
            return None
        with np.errstate(all="ignore"), using_mode(base_mode()):  # a custom op's kernel runs eagerly
            return kernel(*args)

    def bind_outputs(self, ir_op: Any, results: list[Any], real: Any) -> None:
        """Each result's real value; each new size from data gets its real value as hint."""
        outputs = list(real) if len(ir_op.results) > 1 or isinstance(real, list) and len(ir_op.results) != 1 \
            else [real]
        for value, meta, out in zip(ir_op.results, results, outputs):
            self.real[value] = out
            if isinstance(meta, TensorMeta) and hasattr(out, "shape"):
                for dim, size in zip(meta.shape, np.shape(out)):
                    if isinstance(dim, sympy.Symbol) and dim not in self.hints:
                        self.hints[dim] = int(size)
            elif isinstance(meta, ScalarMeta) and isinstance(meta.value, sympy.Symbol):
                self.hints.setdefault(meta.value, out.item() if isinstance(out, np.generic) else out)

    # ---- issues ------------------------------------------------------------

    def data_dependent(self, tracer: Any, expr: Any) -> Any:
        """A guard on data: its real answer, asserted at run time; the issue recorded."""
        value = self.evaluate(tracer, expr)
        flag = tracer.sym_values.get(("bool", expr)) if isinstance(expr, sympy.Symbol) else None
        if flag is not None:  # bool(t.item()) of a bool tensor: torch's Eq(u0, 1)
            value, expr = bool(value), sympy.Eq(expr, 1)
        location = caller_location(keep_nn=False)
        for failure in self.failures:
            if failure.kind == "DATA_DEPENDENT_ERROR" and failure.data["expr"] == str(expr):
                failure.data["occurrences"] += 1
                break
        else:
            self.failures.append(Failure("DATA_DEPENDENT_ERROR", {
                "expr": str(expr), "result": str(value), "user_stack": _stack(location),
                "occurrences": 1}))
        if flag is not None:
            if value:  # the flag itself is the runtime check (there is no tx negation)
                tracer.blocks[-1].add_op(tx.AssertOp.create(operands=[flag], properties={
                    "message": StringAttr(f"Runtime assertion failed for expression {expr}")}))
            return value
        tracer.assert_condition(expr if value is True else sympy.Not(expr) if value is False else sympy.Eq(expr, value))
        return value

    def missing_fake(self, op: Any, real: Any) -> Any:
        """The metas of the real outputs, for an op without a fake kernel."""
        self.failures.append(Failure("MISSING_FAKE_KERNEL", {"op": op.key}))
        return _metas(real)

    def compare_fake(self, op: Any, metas: list[Any], real: Any) -> None:
        """A custom op's fake kernel against its real outputs (shapes and dtypes)."""
        if op._schema.namespace == "aten":
            return
        outputs = list(real) if isinstance(real, (tuple, list)) else [real]
        for meta, out in zip(metas, outputs):
            if not isinstance(meta, TensorMeta) or not hasattr(out, "shape"):
                continue
            static = tuple(d for d in meta.shape if type(d) is int)
            if len(static) == len(meta.shape) and static != tuple(np.shape(out)):
                self.failures.append(Failure("MISMATCHED_FAKE_KERNEL", {
                    "op": op.key,
                    "reason": f"Shapes {list(np.shape(out))} and {list(static)} are not equal"}))
                return


def guards_added(recorder: DraftRecorder) -> list[Failure]:
    """The guards a trace recorded (on input dims), as torch's GUARD_ADDED issues."""
    guards = getattr(recorder.shape_env, "guards", [])
    return [Failure("GUARD_ADDED", {"expr": str(g.expr), "user_stack": _stack(g.location)}) for g in guards]


def _stack(location: Any) -> list[dict[str, Any]]:
    if location is None:
        return []
    return [{"filename": str(getattr(location, "filename", "")), "line": getattr(location, "line", 0),
             "name": getattr(location, "function", ""), "loc": getattr(location, "code", "") or ""}]


def _metas(real: Any) -> Any:
    from texport.interpreter.dtypes import from_numpy  # noqa: PLC0415

    if isinstance(real, tuple):
        return tuple(_metas(r) for r in real)
    if isinstance(real, list):
        return [_metas(r) for r in real]
    if isinstance(real, np.ndarray):
        return TensorMeta(tuple(int(d) for d in real.shape), from_numpy(real.dtype))
    if real is None:
        return ()
    return ScalarMeta("int" if isinstance(real, (int, np.integer)) else "float", real)
