"""xDSL's own Interpreter runs texport IR too: interpreter functions per dialect
(``@register_impls``) that call the very kernels the plan executor calls.

This path walks the IR op by op (xDSL's design); the executor compiles a plan.
A test runs both on the same programs and compares."""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.func import FuncFunctions

from texport.dialects import tx
from texport.dialects.aten import AtenOp, level_dialect
from texport.dialects.registry import LEVELS

from .errors import RuntimeAssertError
from .kernels import KERNELS
from .plan_patterns import resolve


def _run_aten(functions: InterpreterFunctions, interpreter: Interpreter, op: AtenOp,
              args: tuple[Any, ...]) -> tuple[Any, ...]:
    values = dict(zip(op.operands, args))
    out = KERNELS[op.op_def.key](*[resolve(v, values) for v in op.arguments()])
    if not op.results:
        return ()
    if len(op.results) == 1 and not isinstance(out, (tuple, list)):
        return (out,)
    return tuple(out)


def _aten_functions() -> type[InterpreterFunctions]:
    """One InterpreterFunctions class with an @impl for every generated op class."""
    namespace: dict[str, Any] = {}
    for level in LEVELS:
        for index, op_class in enumerate(level_dialect(level).operations):
            namespace[f"run_{level}_{index}"] = impl(op_class)(_run_aten)
    return register_impls(type("AtenFunctions", (InterpreterFunctions,), namespace))


@register_impls
class TxFunctions(InterpreterFunctions):
    """The ``tx`` dialect: symbolic-int arithmetic, comparisons, asserts."""

    @impl(tx.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: tx.ConstantOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (op.value.value.data,)

    @impl(tx.AddOp)
    def run_add(self, interpreter: Interpreter, op: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (tx.evaluate(tx.PYTHON_OPERATORS[op.name], *args),)

    run_sub = impl(tx.SubOp)(run_add)
    run_mul = impl(tx.MulOp)(run_add)
    run_floordiv = impl(tx.FloorDivOp)(run_add)
    run_mod = impl(tx.ModOp)(run_add)

    @impl(tx.MaxOp)
    def run_max(self, interpreter: Interpreter, op: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (tx.evaluate(tx.PYTHON_FUNCTIONS[op.name][0], *args),)

    run_min = impl(tx.MinOp)(run_max)

    @impl(tx.ToFloatOp)
    def run_to_float(self, interpreter: Interpreter, op: tx.ToFloatOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (float(args[0]),)

    @impl(tx.CmpOp)
    def run_cmp(self, interpreter: Interpreter, op: tx.CmpOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (tx.evaluate(tx.PREDICATES[op.predicate.data], *args),)

    @impl(tx.AssertOp)
    def run_assert(self, interpreter: Interpreter, op: tx.AssertOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        if not args[0]:
            raise RuntimeAssertError(op.message.data)
        return ()


_ATEN: list[type[InterpreterFunctions]] = []


def make_interpreter(module: ModuleOp) -> Interpreter:
    """An xDSL Interpreter over ``module`` with func, tx and every ATen level."""
    if not _ATEN:
        _ATEN.append(_aten_functions())
    interpreter = Interpreter(module)
    interpreter.register_implementations(FuncFunctions())
    interpreter.register_implementations(TxFunctions())
    interpreter.register_implementations(_ATEN[0]())
    return interpreter
