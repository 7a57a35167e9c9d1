"""Per-level legality: which ops a training, functional or core program may hold.

- functional: no training-dialect op, and no op that writes — through its
  schema (``add_``) or hiddenly (``batch_norm`` in training mode updates its
  running statistics although its schema marks nothing as written);
- core: every ATen op is in the core dialect, or is one of the few non-core
  ops torch keeps in core ATen programs (tagged ``kept_in_core``).

The checks name the first illegal op and its location.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from texport.dialects.aten import AtenOp

from .errors import LegalityError

# Ops whose schema writes nothing but whose kernel writes an argument, with
# the test of whether a given call writes: (argument values) -> bool.
HIDDEN_WRITES: dict[str, Callable[[list[Any]], bool]] = {
    # batch_norm(input, weight, bias, running_mean, running_var, training, ...)
    "aten.batch_norm.default": lambda args: bool(args[5]) and args[3] is not None,
    "aten.native_batch_norm.default": lambda args: bool(args[5]) and args[3] is not None,
    # instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, ...)
    "aten.instance_norm.default": lambda args: bool(args[5]) and args[3] is not None,
}

def writes_something(op: AtenOp) -> bool:
    return op.op_def.schema.is_mutable or _writes_hiddenly(op)


def _writes_hiddenly(op: AtenOp) -> bool:
    hidden = HIDDEN_WRITES.get(op.op_def.key)
    return hidden is not None and hidden(op.arguments())


def is_functional_legal(op: Operation) -> bool:
    if not isinstance(op, AtenOp):
        return True
    # below training, no op's schema writes (the levels exclude them): only hidden writes remain
    return op.level != "training" and not _writes_hiddenly(op)


def is_core_legal(op: Operation) -> bool:
    if not isinstance(op, AtenOp):
        return True
    return op.level == "core" or op.op_def.has_tag("kept_in_core") or is_custom(op)


def is_custom(op: Operation) -> bool:
    """An op of a user's namespace (``mylib.foo``): kept at every level, as torch keeps custom ops."""
    return isinstance(op, AtenOp) and op.op_def.schema.namespace != "aten"


def where(op: Operation) -> str:
    """``file:line`` of an op when it has a source location."""
    location = getattr(op, "location", None)
    if location is not None and type(location).__name__ == "FileLineColLoc":
        return f" at {location.filename.data}:{location.line.data}"
    return ""


def illegal_ops(module: Operation, legal: Callable[[Operation], bool]) -> Iterator[Operation]:
    for op in module.walk():
        if not legal(op):
            yield op


def check_functional(module: ModuleOp, pass_name: str = "legalize-functional") -> None:
    for op in illegal_ops(module, is_functional_legal):
        reason = "is a training-level op" if not writes_something(op) else "writes its operands"
        raise LegalityError(
            f"{pass_name}: '{op.name}'{where(op)} {reason}; it is not legal in a functional "
            "program (run functionalize first)"
        )


def check_core(module: ModuleOp, pass_name: str = "legalize-core") -> None:
    for op in illegal_ops(module, is_core_legal):
        raise LegalityError(
            f"{pass_name}: '{op.name}'{where(op)} is not a core ATen op (decompose it first, "
            "e.g. -p decompose{table=core})"
        )


def describe_left(ops: list[Operation], level: str) -> str:
    names = sorted({op.name for op in ops})
    first = "; first" + where(ops[0]) if where(ops[0]) else ""
    return (f"{len(ops)} op(s) are left outside the {level} level, with no decomposition: "
            f"{', '.join(names)}{first}")
