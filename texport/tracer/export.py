"""export(): a module's forward, traced with example inputs under a dynamic-shapes
spec, into one training-dialect function. It runs in one direction, each step
handing data to the next:

    spec → input dims → trace → solve → finalize

- spec (dynamic_shapes.py): the user's spec, matched to the input leaves;
- input dims (input_dims.py): each input's dims, symbols where the spec is dynamic;
- trace: input lifting (lifting.py), the forward run under the tracing mode,
  and the output signature;
- solve (solver.py): the guards the trace recorded, checked against the spec;
- finalize: the module, built once, with its final types.

A static export is the same path with an empty spec: no symbol is created,
the solver has nothing to check and finalize nothing to retype (nor sympy to
load).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import Rewriter

from texport.dialects.names import set_name
from texport.dialects.symbolic import dim_str
from texport.dialects.tx import SymIntType, TensorType, symint

from . import pytree
from .dispatcher import using_mode
from .dynamic_shapes import as_spec, leaf_specs
from .errors import UserError
from .input_dims import InputDims, input_dims
from .lifting import (
    Arguments,
    UserInputs,
    UserLeaf,
    bind_inputs,
    lift_state,
    lift_user_inputs,
    user_leaves,
)
from .module_calls import (
    ModuleCallEntry,
    ModuleCallSignature,
    RecordedCall,
    call_signatures,
    module_call_graph,
    recording_calls,
)
from .nn.module import Module
from .signature import (
    ConstantArgument,
    ExportGraphSignature,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
)
from .solver import Solution, solve
from .sources import caller_location
from .symint import SymNode
from .tensor import Tensor
from .tracing import Tracer


@dataclass
class TracedProgram:
    """Everything export() learns: the IR, its signature, the module's state."""

    module: ModuleOp
    signature: ExportGraphSignature
    state_dict: dict[str, Tensor]
    constants: dict[str, Tensor]
    in_spec: Any
    out_spec: Any
    example_inputs: tuple[tuple[Any, ...], dict[str, Any]]
    user_input_paths: list[str] = field(default_factory=list)
    range_constraints: dict[Any, Any] = field(default_factory=dict)
    input_constants: dict[str, Any] = field(default_factory=dict)
    forward_signature: inspect.Signature | None = None
    int_input_paths: set[str] = field(default_factory=set)
    runtime_guards: list[Any] = field(default_factory=list)
    module_call_graph: list[ModuleCallEntry] = field(default_factory=list)
    submodule_calls: dict[str, ModuleCallSignature] = field(default_factory=dict)  # every submodule's first call

    @property
    def func(self) -> FuncOp:
        return next(op for op in self.module.ops if isinstance(op, FuncOp))


def export_program(mod: Module, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
           dynamic_shapes: Any = None, strict: bool = False,
           preserve_module_call_signature: tuple[str, ...] = (), draft: Any = None) -> TracedProgram:
    """Trace ``mod(*args, **kwargs)`` into a TracedProgram (see the module docstring)."""
    kwargs = dict(kwargs or {})
    named = bind_inputs(mod, args, kwargs)
    leaves = user_leaves(named, _var_keyword(mod))
    spec = leaf_specs(named, as_spec(dynamic_shapes, mod, args, kwargs))
    dims = input_dims([(leaf.path, leaf.value) for leaf in leaves], spec)
    body = trace(mod, named, leaves, dims, strict=strict, preserve=tuple(preserve_module_call_signature),
                 draft=draft)
    solution = solve(dims)
    module = finalize(body, solution)
    forward_signature = inspect.signature(mod.forward)
    signatures = call_signatures(body.recorded_calls)
    calls = module_call_graph(mod, body.in_spec, body.out_spec, list(forward_signature.parameters),
                              signatures, tuple(preserve_module_call_signature))
    return TracedProgram(
        module=module,
        signature=ExportGraphSignature(body.arguments.specs, body.output_specs),
        state_dict=body.state_dict, constants=body.constants,
        in_spec=body.in_spec, out_spec=body.out_spec, example_inputs=(args, kwargs),
        user_input_paths=body.user_inputs.paths, input_constants=body.user_inputs.constants,
        forward_signature=forward_signature, int_input_paths=body.user_inputs.int_paths,
        range_constraints=solution.range_constraints, runtime_guards=solution.runtime_guards,
        module_call_graph=calls, submodule_calls=signatures,
    )


# --------------------------------------------------------------------------
# Trace: lift the inputs, run the forward, record the outputs
# --------------------------------------------------------------------------


@dataclass
class TracedBody:
    """The function's body and signature as the trace leaves them: every type
    still names the symbols the input dims created."""

    block: Block
    arguments: Arguments
    user_inputs: UserInputs
    output_specs: list[OutputSpec]
    state_dict: dict[str, Tensor]
    constants: dict[str, Tensor]
    in_spec: Any
    out_spec: Any
    recorded_calls: dict[str, RecordedCall] = field(default_factory=dict)


def trace(mod: Module, named: dict[str, Any], leaves: list[UserLeaf], dims: InputDims, *,
          strict: bool = False, preserve: tuple[str, ...] = (), draft: Any = None) -> TracedBody:
    """The forward of ``mod`` on the ``named`` inputs, whose leaves have ``dims``."""
    block = Block()
    tracer = Tracer(block, strict=strict, shape_env=dims.shape_env)
    arguments = Arguments(tracer)
    state_dict, constants = lift_state(arguments, mod)
    user_inputs = lift_user_inputs(arguments, leaves, dims)
    if draft is not None:  # draft_export: the real values travel with the trace
        tracer.draft = draft
        draft.shape_env = dims.shape_env
        for leaf, fake in zip(leaves, user_inputs.fakes):
            if isinstance(fake, Tensor):
                draft.bind_input(tracer.ir_value(fake), leaf.value._value)
    in_spec = pytree.tree_structure(named)
    with recording_calls(mod, preserve, tracer) as recorded:
        output = _run(mod, tracer, pytree.tree_unflatten(user_inputs.fakes, in_spec), strict)
    output_specs, out_spec = _output_signature(tracer, output)
    arguments.add_constants()
    constants |= {name: tensor for name, tensor, _ in tracer.lifted_constants}
    return TracedBody(block, arguments, user_inputs, output_specs, state_dict, constants, in_spec, out_spec,
                      recorded)


def _run(mod: Module, tracer: Tracer, named: dict[str, Any], strict: bool) -> Any:
    """The forward, called as the user called it, every op appending one op to the block."""
    args, kwargs = split_arguments(inspect.signature(mod.forward), named)
    with using_mode(tracer), _strict_attributes(mod, strict):
        return mod(*args, **kwargs)


@contextlib.contextmanager
def _strict_attributes(mod: Module, strict: bool) -> Iterator[None]:
    """strict=True refuses mutation of a module's Python attributes during forward."""
    if not strict:
        yield
        return
    original = Module.__setattr__

    def guarded(self: Module, name: str, value: Any) -> None:
        location = caller_location(keep_nn=False)
        raise UserError(
            f"Mutating module attribute '{name}' of {type(self).__name__} during export is not "
            "supported in strict mode (use a buffer, or strict=False)"
            + (f"\n  {location}" if location else "")
        )

    Module.__setattr__ = guarded  # type: ignore[method-assign]
    try:
        yield
    finally:
        Module.__setattr__ = original  # type: ignore[method-assign]


def _var_keyword(mod: Module) -> str | None:
    """The name of the forward's ``**kwargs`` parameter, if it has one."""
    params = inspect.signature(mod.forward).parameters.values()
    return next((p.name for p in params if p.kind is inspect.Parameter.VAR_KEYWORD), None)


def split_arguments(signature: inspect.Signature, named: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Bound arguments back to a call: (*args, **kwargs) by each parameter's kind."""
    params = signature.parameters
    args, kwargs = [], {}
    positional = list(params)  # a parameter after one left out goes by keyword
    for name, value in named.items():
        kind = params[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            kwargs.update(value)
        elif kind is inspect.Parameter.KEYWORD_ONLY or positional.index(name) != len(args) or kwargs:
            kwargs[name] = value
        else:
            args.append(value)
    return tuple(args), kwargs


def _output_signature(tracer: Tracer, output: Any) -> tuple[list[OutputSpec], Any]:
    """The forward's result: tensors and symbolic ints are returned, Python
    constants are recorded in their spec only."""
    leaves, out_spec = pytree.tree_flatten(output)
    values, specs = [], []
    for leaf in leaves:
        if isinstance(leaf, Tensor):
            value = tracer.ir_value(leaf)
            values.append(value)
            specs.append(OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(_name(value)), None))
        elif isinstance(leaf, SymNode):
            value = tracer.materialize(leaf)
            values.append(value)
            specs.append(OutputSpec(OutputKind.USER_OUTPUT, SymIntArgument(_name(value)), None))
        else:
            specs.append(OutputSpec(OutputKind.USER_OUTPUT, ConstantArgument("", leaf), None))
    tracer.blocks[0].add_op(ReturnOp(*values))
    return specs, out_spec


def _name(value: SSAValue) -> str:
    return value.name_hint or "output"


# --------------------------------------------------------------------------
# Finalize: the module, with its final types
# --------------------------------------------------------------------------


def finalize(body: TracedBody, solution: Solution) -> ModuleOp:
    """The last step, and the only one that builds the module.

    The trace cannot emit final types: an equality guard met late in the
    forward (``x.shape[0] == y.shape[0]``) replaces a symbol in the types of
    the arguments and of every op emitted before it. So the values take the
    solver's replacements here, once, before the function type is computed
    from them; with no replacement (every static export) no type changes and
    nothing is walked."""
    if solution.replaces_symbols:
        for value in list(_values(body.block)):
            _retype(value, solution)
    returned = body.block.last_op
    assert isinstance(returned, ReturnOp)
    func = FuncOp("forward", FunctionType.from_lists([a.type for a in body.block.args],
                                                     [v.type for v in returned.operands]),
                  Region(body.block))
    func.arg_attrs = ArrayAttr(body.arguments.dictionaries())
    func.res_attrs = ArrayAttr(_result_attrs(body.output_specs))
    if solution.range_constraints:  # the printed module states the ranges its symbols take
        func.attributes["tx.range_constraints"] = DictionaryAttr({
            dim_str(k): StringAttr(repr(v)) for k, v in solution.range_constraints.items()
        })
    return ModuleOp([func])


def _values(block: Block) -> Iterator[SSAValue]:
    """Every value defined in ``block``: its arguments, then, op by op (nested
    regions included), block arguments and results."""
    yield from block.args
    for op in block.walk():
        for region in op.regions:
            for inner in region.blocks:
                yield from inner.args
        yield from op.results


def _retype(value: SSAValue, solution: Solution) -> None:
    old = value.type
    new = _final_type(old, solution)
    if new != old:
        name = value.name_hint
        replacement = Rewriter.replace_value_with_new_type(value, new)
        if name is not None:
            set_name(replacement, name)  # keep the exact torch name


def _final_type(attr: Attribute, solution: Solution) -> Attribute:
    if isinstance(attr, TensorType) and any(type(d) is not int for d in attr.shape):
        return TensorType.get(tuple(solution.final_dim(d) for d in attr.shape), attr.dtype)
    if isinstance(attr, SymIntType) and attr.value is not None and type(attr.value) is not int:
        return symint(solution.final_dim(attr.value))
    return attr


def _result_attrs(specs: list[OutputSpec]) -> list[DictionaryAttr]:
    return [
        DictionaryAttr({"tx.output": StringAttr(s.kind.name),
                        **({"tx.target": StringAttr(s.target)} if s.target else {})})
        for s in specs if not isinstance(s.arg, ConstantArgument)
    ]
