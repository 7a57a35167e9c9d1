"""export(): trace a module's forward with fake inputs into one training-dialect function.

Parameters, buffers and lifted constants become function arguments named as
torch names placeholders (``p_conv_weight``, ``b_bn_running_mean``,
``c_lifted_tensor_0``), in torch's order: parameters, buffers, constants,
user inputs. The signature is recorded both as data and as argument/result
attributes of the function, so the printed module is a complete program.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region, SSAValue

from texport.dialects.names import set_name
from texport.dialects.tx import TensorType, symint

from . import pytree
from .dispatcher import using_mode
from .errors import UserError
from .nn.module import Module
from .signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
)
from .symint import SymInt, SymNode
from .tensor import Tensor
from .tracing import FakeValue, Tracer


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

    @property
    def func(self) -> FuncOp:
        return next(op for op in self.module.ops if isinstance(op, FuncOp))


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def _bind_inputs(mod: Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The forward's arguments by name (torch names placeholders after them)."""
    try:
        bound = inspect.signature(mod.forward).bind(*args, **kwargs)
    except TypeError as err:
        raise UserError(f"the example inputs do not fit {type(mod).__name__}.forward: {err}") from None
    return dict(bound.arguments)


def _flat_inputs(named: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(placeholder name, user path, leaf) for every leaf of every argument."""
    leaves = []
    for arg_name, value in named.items():
        for path, leaf in pytree.tree_flatten_with_path(value)[0]:
            leaves.append((pytree.placeholder_name(path, arg_name), arg_name + pytree.keystr(path), leaf))
    return leaves


@contextlib.contextmanager
def _strict_attributes(mod: Module, strict: bool) -> Iterator[None]:
    """strict=True refuses mutation of a module's Python attributes during forward."""
    if not strict:
        yield
        return
    from .sources import caller_location

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


# --------------------------------------------------------------------------
# Tracing
# --------------------------------------------------------------------------


def trace(mod: Module, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
          strict: bool = False, shape_env: Any = None, dims_for: Any = None,
          int_for: Any = None) -> TracedProgram:
    """Trace ``mod(*args, **kwargs)`` into a TracedProgram.

    ``dims_for(path, tensor)`` gives the (possibly symbolic) dims of a user
    input (dynamic shapes); by default every dim is static."""
    if not isinstance(mod, Module):
        raise UserError(f"export() expects a texport.nn.Module, got {type(mod).__name__}")
    kwargs = dict(kwargs or {})
    if not isinstance(args, tuple):
        raise UserError(f"Expecting `args` to be a tuple of example positional inputs, got {type(args).__name__}")
    named = _bind_inputs(mod, args, kwargs)
    flat = _flat_inputs(named)
    params = list(mod.named_parameters())
    buffers = list(mod.named_buffers())
    persistent = set(mod.state_dict(keep_vars=True)) if hasattr(mod, "state_dict") else set()

    block = Block()
    func = FuncOp("forward", ((), ()), Region(block))
    if shape_env is None:
        from .shape_env import ShapeEnv

        shape_env = ShapeEnv()  # static inputs: only data-dependent (unbacked) symbols live here
    tracer = Tracer(block, strict=strict, shape_env=shape_env)
    tracer.symbol_sources = {}
    specs: list[InputSpec] = []
    attrs: list[dict[str, Any]] = []

    def add_arg(name: str, arg_type: Any, spec: InputSpec, extra: dict[str, Any]) -> SSAValue:
        arg = block.insert_arg(arg_type, len(block.args))
        set_name(arg, tracer.names.claim(name))
        specs.append(InputSpec(spec.kind, TensorArgument(arg.name_hint), spec.target, spec.persistent))
        attrs.append({"tx.input": StringAttr(spec.kind.name), **extra})
        return arg

    for fqn, param in params:
        arg = add_arg("p_" + fqn.replace(".", "_"), TensorType.get(param.shape, param.dtype),
                      InputSpec(InputKind.PARAMETER, None, fqn), {"tx.target": StringAttr(fqn)})
        tracer.register_input(param, arg)
    for fqn, buffer in buffers:
        is_persistent = fqn in persistent
        arg = add_arg("b_" + fqn.replace(".", "_"), TensorType.get(buffer.shape, buffer.dtype),
                      InputSpec(InputKind.BUFFER, None, fqn, is_persistent),
                      {"tx.target": StringAttr(fqn), "tx.persistent": IntegerAttr(int(is_persistent), 1)})
        tracer.register_input(buffer, arg)
    tracer.constant_insert_at = len(block.args)
    constant_specs_at = len(specs)

    fake_leaves, input_constants, paths, int_paths = [], {}, [], set()
    for name, path, leaf in flat:
        if isinstance(leaf, Tensor):
            dims = dims_for(path, leaf) if dims_for is not None else tuple(leaf.shape)
            arg = add_arg(name, TensorType.get(dims, leaf.dtype),
                          InputSpec(InputKind.USER_INPUT, None, None), {"tx.path": StringAttr(path)})
            fake = tracer.fake(dims, leaf.dtype, arg)
            _record_symbol_sources(tracer, dims, arg)
            fake_leaves.append(fake)
            paths.append(path)
        elif isinstance(leaf, SymNode):
            raise UserError(f"symbolic scalar inputs are not supported (at {path})")
        elif int_for is not None and (sym := int_for(path, leaf)) is not None:
            arg = add_arg(name, symint(sym), InputSpec(InputKind.USER_INPUT, None, None),
                          {"tx.path": StringAttr(path)})
            specs[-1] = InputSpec(InputKind.USER_INPUT, SymIntArgument(arg.name_hint), None)
            tracer.sym_values[sym] = arg
            fake_leaves.append(SymInt(sym, tracer))
            paths.append(path)
            int_paths.add(path)
        else:
            fake_leaves.append(leaf)  # a Python constant: specialised
            input_constants[path] = leaf
            specs.append(InputSpec(InputKind.USER_INPUT, ConstantArgument(name, leaf), None))

    flat_values, in_spec = pytree.tree_flatten(named)
    fake_named = pytree.tree_unflatten(fake_leaves, in_spec)
    fake_args, fake_kwargs = _split_arguments(mod, fake_named)
    with using_mode(tracer), _strict_attributes(mod, strict):
        output = mod(*fake_args, **fake_kwargs)

    out_leaves, out_spec = pytree.tree_flatten(output)
    results, out_specs = _outputs(tracer, out_leaves)
    block.add_op(ReturnOp(*results))
    _insert_constant_specs(tracer, specs, attrs, constant_specs_at)
    func.function_type = _function_type(block, results)
    func.arg_attrs = _arg_attrs(block, attrs)
    func.res_attrs = _res_attrs(out_specs)
    state_dict = {fqn: p for fqn, p in params} | {fqn: b for fqn, b in buffers if fqn in persistent}
    constants = {fqn: b for fqn, b in buffers if fqn not in persistent}
    constants |= {name: tensor for name, tensor, _ in tracer.lifted_constants}
    return TracedProgram(
        module=ModuleOp([func]),
        signature=ExportGraphSignature(specs, out_specs),
        state_dict=state_dict, constants=constants, in_spec=in_spec, out_spec=out_spec,
        example_inputs=(args, kwargs), user_input_paths=paths, input_constants=input_constants,
        forward_signature=inspect.signature(mod.forward), int_input_paths=int_paths,
        range_constraints=dict(shape_env.unbacked_ranges()),
    )


def _record_symbol_sources(tracer: Tracer, dims: tuple[Any, ...], arg: SSAValue) -> None:
    """A size symbol is read from the first input dim that is exactly it."""
    from texport.dialects.aten import op_class
    from texport.dialects.registry import lookup_op

    for axis, dim in enumerate(dims):
        if type(dim) is int or not dim.is_Symbol or dim.name in tracer.symbol_sources:
            continue

        def source(tracer: Tracer, axis: int = axis, dim: Any = dim) -> SSAValue:
            op = op_class(lookup_op("sym_size.int"), "training").build([arg, axis], [symint(dim)])
            tracer.blocks[-1].add_op(op)
            set_name(op.results[0], tracer.names.claim("sym_size_int"))
            return op.results[0]

        tracer.symbol_sources[dim.name] = source


def _split_arguments(mod: Module, named: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return split_arguments(inspect.signature(mod.forward), named)


def split_arguments(signature: inspect.Signature, named: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Bound arguments back to a call: (*args, **kwargs) by each parameter's kind."""
    params = signature.parameters
    args, kwargs = [], {}
    for name, value in named.items():
        kind = params[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            kwargs.update(value)
        elif kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[name] = value
        else:
            args.append(value)
    return tuple(args), kwargs


def _outputs(tracer: Tracer, leaves: list[Any]) -> tuple[list[SSAValue], list[OutputSpec]]:
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
    return values, specs


def _name(value: SSAValue) -> str:
    return value.name_hint or "output"


def _insert_constant_specs(tracer: Tracer, specs: list[InputSpec], attrs: list[dict[str, Any]],
                           at: int) -> None:
    for offset, (name, _tensor, arg) in enumerate(tracer.lifted_constants):
        specs.insert(at + offset, InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(arg.name_hint), name))
        attrs.insert(at + offset, {"tx.input": StringAttr("CONSTANT_TENSOR"), "tx.target": StringAttr(name)})


def _function_type(block: Block, results: list[SSAValue]) -> Any:
    from xdsl.dialects.builtin import FunctionType

    return FunctionType.from_lists([a.type for a in block.args], [r.type for r in results])


def _arg_attrs(block: Block, attrs: list[dict[str, Any]]) -> Any:
    """``attrs`` runs parallel to the block's arguments (constant inputs have none)."""
    from xdsl.dialects.builtin import ArrayAttr

    assert len(attrs) == len(block.args), "every function argument has its attributes"
    return ArrayAttr([DictionaryAttr(a) for a in attrs])


def _res_attrs(specs: list[OutputSpec]) -> Any:
    from xdsl.dialects.builtin import ArrayAttr

    return ArrayAttr([
        DictionaryAttr({"tx.output": StringAttr(s.kind.name),
                        **({"tx.target": StringAttr(s.target)} if s.target else {})})
        for s in specs if not isinstance(s.arg, ConstantArgument)
    ])


def is_traced(tensor: Tensor) -> bool:
    return isinstance(tensor._value, FakeValue)
