"""``ep.run_decompositions(decomp_table)``: the lowering pipeline on an exported program.

- ``{}``: functionalize only → the functional (inference) level;
- ``None``: functionalize, the default table, legalize-core → core ATen; an op
  left outside core is an error that lists them;
- a table: functionalize, that table (ops without an entry are kept),
  legalize-core for the core ops.

The result is a new ExportedProgram (the original is untouched) whose
signature lists the mutations first, as torch's does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
from collections.abc import Iterator
from typing import Any

from xdsl.dialects.func import FuncOp

from texport.tracer.signature import (
    ConstantArgument,
    ExportGraphSignature,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
)

from .decompose import decompose_function
from .default_table import default_decompositions
from .functionalize import functionalize_function
from .ir import blocks, clone_module, dce, dedupe_symbols, functions, rename
from .legality import LegalityError, describe_left, is_core_legal, is_custom
from .patterns import apply_rules
from .rules import LEGALIZE_CORE
from .table import as_key_table


def lower_function(func: FuncOp, table: dict[str, Any] | None, *, strict: bool) -> int:
    """functionalize, decompose with ``table``, legalize-core, dce, rename.
    Returns the number of mutation outputs functionalize added."""
    mutations = functionalize_function(func)
    block = func.body.block
    if table:
        decompose_function(func, table)
        for inner in blocks(block):
            apply_rules(inner, LEGALIZE_CORE)
        if strict:
            left = [op for op in func.walk() if not is_core_legal(op) and not is_custom(op)]
            if left:
                raise LegalityError(f"run_decompositions: {describe_left(left, 'core')}")
    dedupe_symbols(block)
    dce(block)
    rename(block)
    return len(mutations)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Lowering allocates many small, long-lived IR objects: the cyclic
    collector would rescan the growing heap again and again (a superlinear
    cost on large programs). It runs once, after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run_decompositions(ep: Any, decomp_table: Any = None, *, decompose_custom_triton_ops: bool = False,
                       **kwargs: Any) -> Any:
    """A new ExportedProgram at the functional (``{}``) or core level.
    (``decompose_custom_triton_ops`` is torch's flag; there are no triton ops here.)"""
    if kwargs:
        raise TypeError(f"run_decompositions() got unexpected arguments: {', '.join(kwargs)}")
    with _gc_paused():
        return _run(ep, decomp_table)


def _run(ep: Any, decomp_table: Any) -> Any:
    if decomp_table is None:
        table, strict = default_decompositions().by_key(), True
    else:
        table, strict = as_key_table(decomp_table), False
    module = clone_module(ep.graph_module.module)
    func = next(functions(module))
    mutations = lower_function(func, table, strict=strict)
    signature = _signature(ep.graph_signature, func, mutations)
    traced = dataclasses.replace(ep._traced, module=module, signature=signature)
    return type(ep)(traced, dialect="ATEN" if table else "INFERENCE")


def _signature(old: ExportGraphSignature, func: FuncOp, mutations: int) -> ExportGraphSignature:
    """Mutation outputs first (kinds and targets from the function's result
    attributes), then the user outputs under their new names."""
    returned = list(func.body.block.last_op.operands)
    attrs = func.res_attrs.data if func.res_attrs else []
    specs = []
    for value, attr in zip(returned[:mutations], attrs):
        kind = OutputKind[attr.data["tx.output"].data]
        specs.append(OutputSpec(kind, TensorArgument(value.name_hint or ""), attr.data["tx.target"].data))
    users = iter(returned[mutations:])
    for spec in old.output_specs:
        if isinstance(spec.arg, ConstantArgument):
            specs.append(spec)
            continue
        name = next(users).name_hint or ""
        arg = SymIntArgument(name) if isinstance(spec.arg, SymIntArgument) else TensorArgument(name)
        specs.append(OutputSpec(spec.kind, arg, spec.target))
    return ExportGraphSignature(list(old.input_specs), specs)
