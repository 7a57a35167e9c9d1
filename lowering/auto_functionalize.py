"""Functional forms of ops that write their arguments and have none of their own
(custom ops with ``mutates_args``), as torch's ``auto_functionalized``.

For ``mylib::add_one_(Tensor(a!) x) -> ()`` this registers, once,
``mylib::add_one_.auto_functionalized(Tensor x) -> (Tensor)``: it writes
nothing, returns the new value of each written argument (then the op's own
results), and its kernel runs the original kernel on copies.
"""

from __future__ import annotations

from typing import Any

from texport.dialects.handles import OpOverload, handle_for
from texport.dialects.meta import TensorMeta
from texport.dialects.registry import OPS, register_op
from texport.dialects.shape_rules import SHAPE_RULES
from texport.interpreter.kernels import KERNELS
from texport.interpreter.kernels.variants import copy_on_write

OVERLOAD = "auto_functionalized"


def functional_variant(op: OpOverload) -> tuple[OpOverload, list[int]]:
    """The functional op for ``op`` and the indices of the arguments it writes."""
    schema = op._schema
    written = [i for i, arg in enumerate(schema.arguments) if arg.is_write]
    key = f"{schema.namespace}.{schema.name}.{OVERLOAD}"
    if key not in OPS:
        _register(op, written, key)
    return handle_for(key), written


def _register(op: OpOverload, written: list[int], key: str) -> None:
    schema = op._schema
    args = ", ".join(_plain(str(arg)) for arg in schema.arguments)
    returns = ["Tensor"] * len(written) + [_plain(str(r)) for r in schema.returns]
    register_op(f"{schema.namespace}::{schema.name}.{OVERLOAD}({args}) -> ({', '.join(returns)})")
    rule, kernel = SHAPE_RULES[op.key], KERNELS[op.key]

    def shape_rule(*metas: Any) -> tuple[Any, ...]:
        outputs = rule(*metas)
        outputs = () if outputs == () else outputs if isinstance(outputs, tuple) else (outputs,)
        return (*(TensorMeta(metas[i].shape, metas[i].dtype) for i in written), *outputs)

    SHAPE_RULES.register(key, shape_rule)
    KERNELS.register(key, copy_on_write(kernel, written))


def _plain(text: str) -> str:
    """A schema type without its alias annotation: ``Tensor(a!) x`` → ``Tensor x``."""
    start = text.find("(")
    if start != -1 and text.startswith("Tensor("):
        text = "Tensor" + text[text.index(")") + 1:]
    return text
