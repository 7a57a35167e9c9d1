"""Shared test helper: a decomposition, traced on an op's symbolic operand
types and spliced in place, computes what the op's own kernel computes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region

from texport.dialects.registry import lookup_op
from texport.dialects.schema import bind_arguments
from texport.dialects.symbolic import symbol
from texport.dialects.tx import TensorType
from texport.interpreter.dtypes import from_numpy
from texport.interpreter.executor import compile_function
from texport.interpreter.kernels import KERNELS
from texport.lowering.decompose import decompose_function
from texport.lowering.default_table import default_decompositions
from texport.lowering.ir import clone_module
from texport.lowering.legality import is_core_legal
from texport.lowering.patterns import rule_walker
from texport.lowering.rules import LEGALIZE_CORE
from texport.tracer.dispatcher import using_mode
from texport.tracer.handles import handle_for
from texport.tracer.subtrace import symbol_sources
from texport.tracer.tensor import Tensor
from texport.tracer.tracing import Tracer


@dataclass
class Sample:
    """One call of an op: numpy arrays stand for tensors; ``symbolic`` maps an
    argument index to the axes whose sizes become symbols."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    symbolic: dict[int, tuple[int, ...]] = field(default_factory=dict)


def op_module(key: str, sample: Sample) -> tuple[ModuleOp, list[np.ndarray]]:
    """A functional-level function calling ``key`` once on ``sample``; and its inputs."""
    block = Block()
    tracer = Tracer(block, level="functional")
    inputs: list[np.ndarray] = []
    symbols: dict[int, Any] = {}  # one symbol per distinct size: equal sizes broadcast as one

    def dim(size: int) -> Any:
        if size not in symbols:
            symbols[size] = symbol(f"s{len(symbols)}")
        return symbols[size]

    def fake(value: Any, index: int) -> Any:
        if isinstance(value, np.ndarray):
            axes = sample.symbolic.get(index, ())
            dims = tuple(dim(d) if a in axes else d for a, d in enumerate(value.shape))
            arg = block.insert_arg(TensorType.get(dims, from_numpy(value.dtype)), len(block.args))
            inputs.append(value)
            return tracer.fake(dims, from_numpy(value.dtype), arg)
        if isinstance(value, list) and any(isinstance(v, np.ndarray) for v in value):
            return [fake(v, index) for v in value]
        return value

    args = [fake(v, i) for i, v in enumerate(sample.args)]
    kwargs = {k: fake(v, -1) for k, v in sample.kwargs.items()}
    tracer.symbol_sources = symbol_sources(block.args, "functional")
    with using_mode(tracer):
        out = handle_for(key)(*args, **kwargs)
    results = [tracer.ir_value(t) for t in _flat(out) if isinstance(t, Tensor)]
    block.add_op(ReturnOp(*results))
    func = FuncOp("forward", FunctionType.from_lists([a.type for a in block.args], [r.type for r in results]),
                  Region(block))
    return ModuleOp([func]), inputs


def _flat(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [item for v in value for item in _flat(v)]
    return [value]


def lower_to_core(module: ModuleOp) -> ModuleOp:
    """decompose with the default table, legalize-core; every op must be core."""
    lowered = clone_module(module)
    func = next(op for op in lowered.ops if isinstance(op, FuncOp))
    decompose_function(func, default_decompositions().by_key())
    rule_walker(LEGALIZE_CORE, revisit=False).rewrite_region(func.body)
    left = sorted({op.name for op in func.walk() if not is_core_legal(op)})
    assert not left, f"ops left outside core: {left}"
    lowered.verify()
    return lowered


def reference(key: str, sample: Sample) -> list[np.ndarray]:
    """The op's own kernel on the sample."""
    values = bind_arguments(lookup_op(key).schema, sample.args, sample.kwargs)
    return [np.asarray(o) for o in _flat(KERNELS[key](*values)) if o is not None]


def check_decomposition(key: str, sample: Sample, *, rtol: float = 1e-4, atol: float = 1e-5,
                        values: bool = True) -> ModuleOp:
    """Decompose ``key`` on ``sample`` to core and compare with its kernel
    (``values=False``: shapes and dtypes only, for random ops)."""
    module, inputs = op_module(key, sample)
    lowered = lower_to_core(module)
    func = next(op for op in lowered.ops if isinstance(op, FuncOp))
    got = [np.asarray(o) for o in compile_function(func)(*inputs)]
    want = reference(key, sample)
    assert len(got) == len(want), (key, len(got), len(want))
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, f"{key}: {g.shape} {g.dtype} vs {w.shape} {w.dtype}"
        if values:
            np.testing.assert_allclose(_widened(g), _widened(w), rtol=rtol, atol=atol, equal_nan=True, err_msg=key)
    return lowered


def _widened(values: np.ndarray) -> np.ndarray:
    """float64 (complex128 for complex values, so no imaginary part is dropped); bools as they are."""
    if values.dtype == bool:
        return values
    return values.astype(np.complex128 if np.iscomplexobj(values) else np.float64)


def random_array(rng: np.random.Generator, shape: Sequence[int], kind: str = "f") -> np.ndarray:
    if kind == "f":
        return rng.standard_normal(shape).astype(np.float32)
    if kind == "b":
        return rng.random(shape) < 0.5
    return rng.integers(0, 5, shape).astype(np.int64)
