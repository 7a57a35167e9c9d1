"""ExportedProgram: the IR of an exported model with its signature and state,
and ``ep.module()``, which runs it on the interpreter with the original
calling convention."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import SSAValue

from texport.dialects.context import print_module
from texport.dialects.tx import SymIntType
from texport.interpreter.dtypes import cast
from texport.interpreter.errors import GuardError
from texport.interpreter.executor import Plan, compile_function
from texport.interpreter.prepacked import note_written
from texport.lowering.ir import clone_module
from texport.lowering.passes import DecomposePass
from texport.lowering.pipeline import decomposition_pipeline, gc_paused
from texport.tracer import pytree
from texport.tracer.eager import wrap_array
from texport.tracer.export import TracedProgram
from texport.tracer.module_calls import ModuleCallEntry
from texport.tracer.nn.module import Module, Parameter
from texport.tracer.signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
)
from texport.tracer.tensor import Tensor

from .readable import print_readable
from .verifier import VERIFIERS, Verifier


class GraphModule:
    """``ep.graph_module``: the xDSL module, with torch's readable listing."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module

    @property
    def graph(self) -> FuncOp:
        return next(op for op in self.module.ops if isinstance(op, FuncOp))

    def print_readable(self, print_output: bool = True) -> str:
        text = print_readable(self.graph)
        if print_output:
            print(text)
        return text

    @property
    def code(self) -> str:
        return self.print_readable(print_output=False)

    def mlir(self, generic: bool = False) -> str:
        return print_module(self.module, generic=generic)

    def __str__(self) -> str:
        return self.print_readable(print_output=False)


class CallSpec(NamedTuple):
    """``ep.call_spec``: the pytree structure of the inputs and of the outputs."""

    in_spec: Any
    out_spec: Any


class ExportedProgram:
    """A program exported at one level: training, functional (inference) or core."""

    def __init__(self, traced: TracedProgram, dialect: str = "TRAINING") -> None:
        self._traced = traced
        self.graph_module = GraphModule(traced.module)
        self.graph_signature: ExportGraphSignature = traced.signature
        self.state_dict: dict[str, Tensor] = traced.state_dict
        self.constants: dict[str, Tensor] = traced.constants
        self.range_constraints: dict[Any, Any] = traced.range_constraints
        self.example_inputs = traced.example_inputs
        self.call_spec = CallSpec(traced.in_spec, traced.out_spec)
        self.dialect = dialect

    @property
    def graph(self) -> FuncOp:
        return self.graph_module.graph

    @property
    def tensor_constants(self) -> dict[str, Tensor]:
        """The lifted constant tensors (and non-persistent buffers) by name, as ``constants``."""
        return self.constants

    @property
    def module_call_graph(self) -> list[ModuleCallEntry]:
        """The root's call signature, then every submodule (signatures for the preserved ones)."""
        return self._traced.module_call_graph

    @property
    def verifiers(self) -> list[type[Verifier]]:
        return [VERIFIERS[self.dialect]]

    @property
    def verifier(self) -> type[Verifier]:
        return self.verifiers[0]

    def validate(self) -> None:
        """Check the program against its dialect's verifier; SpecViolationError if it breaks it."""
        for verifier in self.verifiers:
            verifier().check(self)

    def mlir(self, generic: bool = False) -> str:
        """The program as MLIR text (signature and ranges included)."""
        return self.graph_module.mlir(generic)

    def named_parameters(self) -> Iterator[tuple[str, Tensor]]:
        """Every parameter name of the signature (tied weights under each name)."""
        for name in self.graph_signature.parameters:
            yield name, self.state_dict[name]

    def parameters(self) -> Iterator[Tensor]:
        for _, param in self.named_parameters():
            yield param

    def named_buffers(self) -> Iterator[tuple[str, Tensor]]:
        non_persistent = set(self.graph_signature.non_persistent_buffers)
        for name in self.graph_signature.buffers:
            yield name, (self.constants if name in non_persistent else self.state_dict)[name]

    def buffers(self) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers():
            yield buffer

    def module(self) -> ExportedModule:
        """A callable with the original calling convention, run by the interpreter."""
        return ExportedModule(self)

    def compile(self, backend: str = "iree", **options: Any) -> Any:
        """A callable with ``module()``'s calling convention whose work runs on ``backend``
        (``"iree"``: native code for this CPU; ``route="linalg"|"torch"`` picks how the
        core program becomes upstream MLIR). A program not at the core level is lowered
        to it first."""
        from texport.backends import compile_program  # a backend's imports load only when asked for

        return compile_program(self, backend, **options)

    def run_decompositions(self, decomp_table: Any = None, *, decompose_custom_triton_ops: bool = False,
                           **kwargs: Any) -> ExportedProgram:
        """A new program at the functional (``{}``) or core level: this one's IR through the
        passes texport-opt runs (``lowering.pipeline``), its signature read back from the
        result. (``decompose_custom_triton_ops`` is torch's flag; there are no triton ops here.)"""
        if kwargs:
            raise TypeError(f"run_decompositions() got unexpected arguments: {', '.join(kwargs)}")
        pipeline = decomposition_pipeline(decomp_table)
        with gc_paused():
            module = clone_module(self.graph_module.module)
            pipeline.apply(Context(), module)  # texport's passes read no dialect from the context
        lowered = replace(self._traced, module=module, signature=self._signature_of(module))
        decomposed = any(isinstance(p, DecomposePass) for p in pipeline.passes)
        return ExportedProgram(lowered, dialect="ATEN" if decomposed else "INFERENCE")

    def _signature_of(self, module: ModuleOp) -> ExportGraphSignature:
        """The signature of a lowered ``module``: each input and output read from the
        function's arguments and results (names, and kinds and targets from their
        attributes); constants, which the IR does not hold, where they were."""
        func = next(op for op in module.ops if isinstance(op, FuncOp))
        old = self.graph_signature
        inputs = [_input_spec(arg, attrs.data) for arg, attrs in zip(func.body.block.args, _entries(func.arg_attrs))]
        returned = func.body.block.last_op.operands
        outputs = [_output_spec(value, attrs.data) for value, attrs in zip(returned, _entries(func.res_attrs))]
        added = len(outputs) - sum(not isinstance(s.arg, ConstantArgument) for s in old.output_specs)
        return ExportGraphSignature(_with_constants(old.input_specs, inputs),
                                    outputs[:added] + _with_constants(old.output_specs, outputs[added:]))

    def __str__(self) -> str:
        code = self.graph_module.print_readable(print_output=False)
        code = "\n".join("    " + line if line else line for line in code.splitlines())
        ranges = _ranges_text(self.range_constraints)
        return f"ExportedProgram:\n{code}\n\nGraph signature: {self.graph_signature}\nRange constraints: {ranges}\n"

    __repr__ = __str__


def _ranges_text(ranges: dict[Any, Any]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in ranges.items()) + "}"


def _entries(attrs: ArrayAttr | None) -> tuple[Any, ...]:
    return attrs.data if attrs is not None else ()


def _input_spec(arg: SSAValue, attrs: Mapping[str, Any]) -> InputSpec:
    persistent = attrs["tx.persistent"].value.data if "tx.persistent" in attrs else None
    return InputSpec(InputKind[attrs["tx.input"].data], _argument(arg), _text(attrs, "tx.target"),
                     None if persistent is None else bool(persistent))


def _output_spec(value: SSAValue, attrs: Mapping[str, Any]) -> OutputSpec:
    return OutputSpec(OutputKind[attrs["tx.output"].data], _argument(value), _text(attrs, "tx.target"))


def _text(attrs: Mapping[str, Any], key: str) -> str | None:
    return attrs[key].data if key in attrs else None  # (`in`, not get: a missing key would raise inside)


def _argument(value: SSAValue) -> TensorArgument | SymIntArgument:
    name = value.name_hint or ""
    return SymIntArgument(name) if isinstance(value.type, SymIntType) else TensorArgument(name)


def _with_constants(old: list[Any], specs: list[Any]) -> list[Any]:
    """``specs`` (one per IR value) with ``old``'s constant specs back in their places."""
    values = iter(specs)
    return [spec if isinstance(spec.arg, ConstantArgument) else next(values) for spec in old]


# --------------------------------------------------------------------------
# ep.module()
# --------------------------------------------------------------------------


def _attach(root: Module, fqn: str, value: Tensor, *, parameter: bool, persistent: bool = True) -> None:
    """Register ``value`` at ``fqn`` (creating intermediate submodules)."""
    *path, leaf = fqn.split(".")
    owner = root
    for part in path:
        child = owner._modules.get(part)
        if child is None:
            child = Module()
            owner.add_module(part, child)
        owner = child
    if parameter:
        owner.register_parameter(leaf, value if isinstance(value, Parameter) else Parameter(value))
    else:
        owner.register_buffer(leaf, value, persistent=persistent)


class ExportedModule(Module):
    """``ep.module()``: takes the exported inputs, returns the exported outputs.

    Holds its own copies of the parameters and buffers (one copy per tensor: tied
    names share it, as in the exported model). At training level the program
    mutates buffers in place (as eager torch does); at functional and core levels
    it returns their new values, which are written back here."""

    def __init__(self, program: ExportedProgram) -> None:
        super().__init__()
        object.__setattr__(self, "_program", program)
        self._build_hierarchy()
        copies: dict[int, Tensor] = {}
        for spec in program.graph_signature.input_specs:
            if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
                source = program.state_dict.get(spec.target, program.constants.get(spec.target))
                copy = copies.get(id(source))
                if copy is None:
                    copy = copies[id(source)] = _copy(source, parameter=spec.kind is InputKind.PARAMETER)
                _attach(self, spec.target, copy, parameter=spec.kind is InputKind.PARAMETER,
                        persistent=spec.persistent is not False)
        object.__setattr__(self, "_plan", None)
        object.__setattr__(self, "_tensor_inputs", _positional_tensor_inputs(program))
        object.__setattr__(self, "_input_steps", _input_steps(program))
        object.__setattr__(self, "_output_steps", _output_steps(program))

    def _build_hierarchy(self) -> None:
        """Submodules to create before the state lands (none: ``_attach`` makes plain ones)."""

    def _compiled(self) -> Plan:
        if self._plan is None:
            object.__setattr__(self, "_plan", compile_function(self._program.graph, **self._entry_checks()))
        return self._plan

    def _entry_checks(self) -> dict[str, Any]:
        """What the inputs are checked against on entry: the labels messages give them,
        the range constraints, the guards export recorded."""
        program = self._program
        return {"input_names": _plan_input_names(program), "ranges": program.range_constraints,
                "guards": program._traced.runtime_guards}

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        program = self._program
        plan = self._compiled()
        tensors_only = self._tensor_inputs
        if tensors_only is not None and not kwargs and len(args) == tensors_only \
                and all(isinstance(a, Tensor) for a in args):
            leaves = list(args)  # what _check_inputs finds for such a call, without binding and flattening
        else:
            leaves = _check_inputs(program, args, kwargs)
        inputs = self._plan_inputs(leaves)
        outputs = list(plan(*inputs))
        return self._finish(outputs, self._user_inputs_by_name(leaves))

    def _member(self, target: str) -> Tensor:
        """The parameter or buffer at dotted ``target`` (_member_at)."""
        return self._member_at(*_member_path(target))

    def _member_at(self, path: tuple[str, ...], name: str) -> Tensor:
        """The parameter or buffer ``name`` of the submodule at ``path``, looked up at each
        call (the user may have assigned another), through the module dicts as
        ``named_parameters`` finds it."""
        module: Module = self
        for part in path:
            module = module._modules[part]
        found = module._parameters.get(name)
        return module._buffers[name] if found is None else found

    def _user_inputs_by_name(self, leaves: list[Any]) -> dict[str, Any] | None:
        """The user's inputs by name, for the outputs that write into them (None: no such output)."""
        names = self._output_steps[1]
        return None if names is None else dict(zip(names, leaves))

    def _plan_inputs(self, user_leaves: list[Any]) -> list[Any]:
        """The plan's arguments: parameters and buffers (_member), constants and the user's
        values, in the order of the input specs (_input_steps, read once from the signature)."""
        constants = self._program.constants
        values, user = [], iter(user_leaves)
        for step, path, name in self._input_steps:
            if step is _MEMBER:
                values.append(self._member_at(path, name)._value)
            elif step is _CONSTANT:
                values.append(constants[name]._value)
            elif step is _SPECIALISED:
                next(user)
            else:
                leaf = next(user)
                values.append(leaf._value if isinstance(leaf, Tensor) else leaf)
        return values

    def _finish(self, outputs: list[Any], user_inputs: dict[str, Any] | None = None) -> Any:
        user_inputs = user_inputs or {}
        results, position = [], 0
        for step, payload in self._output_steps[0]:
            if step is _SPECIALISED:
                results.append(payload)
                continue
            value = outputs[position]
            position += 1
            if step is _RESULT:
                results.append(_wrap(value))
            elif step is _BUFFER_WRITE:
                _write_back(self._member_at(*payload)._value, value)
            else:
                target = user_inputs.get(payload)
                if isinstance(target, Tensor):  # torch writes the new value into the caller's tensor
                    _write_back(target._value, value)
        return pytree.tree_unflatten(results, self._program.call_spec[1])


# What ep.module() does with each input and output spec, decided once from the signature
# (per call, walking the specs' kinds cost more than small programs take to run)
_MEMBER, _CONSTANT, _SPECIALISED, _USER = "member", "constant", "specialised", "user"
_RESULT, _BUFFER_WRITE, _INPUT_WRITE = "result", "buffer write", "input write"


def _member_path(target: str) -> tuple[tuple[str, ...], str]:
    """A dotted parameter or buffer name as (submodule path, name)."""
    *path, name = target.split(".")
    return tuple(path), name


def _input_steps(program: ExportedProgram) -> list[tuple[str, tuple[str, ...], str]]:
    """(step, submodule path, name) per input spec."""
    steps = []
    for spec in program.graph_signature.input_specs:
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            steps.append((_MEMBER, *_member_path(spec.target)))
        elif spec.kind is InputKind.CONSTANT_TENSOR:
            steps.append((_CONSTANT, (), spec.target))
        elif isinstance(spec.arg, ConstantArgument):
            steps.append((_SPECIALISED, (), ""))
        else:
            steps.append((_USER, (), ""))
    return steps


def _output_steps(program: ExportedProgram) -> tuple[list[tuple[str, Any]], list[str] | None]:
    """((step, payload) per output spec, the user inputs' names if an output writes one)."""
    steps: list[tuple[str, Any]] = []
    for spec in program.graph_signature.output_specs:
        if isinstance(spec.arg, ConstantArgument):
            steps.append((_SPECIALISED, spec.arg.value))
        elif spec.kind is OutputKind.BUFFER_MUTATION:
            steps.append((_BUFFER_WRITE, _member_path(spec.target)))
        elif spec.kind is OutputKind.USER_INPUT_MUTATION:
            steps.append((_INPUT_WRITE, spec.target))
        else:
            steps.append((_RESULT, None))
    writes_inputs = any(step is _INPUT_WRITE for step, _ in steps)
    names = [s.arg.name for s in program.graph_signature.input_specs if s.kind is InputKind.USER_INPUT]
    return steps, names if writes_inputs else None


def _write_back(target: np.ndarray, value: Any) -> None:
    """``target.copy_(value)``: a buffer's new value may be the source of a
    ``copy_`` into it, of another shape (broadcast) or dtype (cast as torch casts)."""
    with np.errstate(all="ignore"):
        np.copyto(target, cast(value, target.dtype))
    note_written(target)


def _copy(tensor: Tensor, parameter: bool = False) -> Tensor:
    copy = Tensor._make(np.array(tensor._value, copy=True), tensor._dtype, tensor.requires_grad)
    return Parameter(copy, tensor.requires_grad) if parameter else copy


def _wrap(value: Any) -> Any:
    return wrap_array(value) if isinstance(value, np.ndarray) else value


def _plan_input_names(program: ExportedProgram) -> list[str]:
    paths = iter(program._traced.user_input_paths)
    names = []
    for spec in program.graph_signature.input_specs:
        if isinstance(spec.arg, ConstantArgument):
            continue
        names.append(next(paths) if spec.kind is InputKind.USER_INPUT else spec.arg.name)
    return names


def _positional_tensor_inputs(program: ExportedProgram) -> int | None:
    """n when the exported call is n Tensors, one per parameter of ``forward`` (no
    defaults, no *args/**kwargs, no specialised constants or int inputs): then a call of
    n positional Tensors flattens to themselves, and needs no binding or pytree walk."""
    traced = program._traced
    count = None
    signature, spec = traced.forward_signature, traced.in_spec
    if signature is not None and spec.type is dict and not traced.input_constants and not traced.int_input_paths:
        parameters = list(signature.parameters.values())
        simple = all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in parameters)
        if simple and list(spec.context) == [p.name for p in parameters] \
                and all(child.type is None for child in spec.children_specs):
            count = len(parameters)
    return count


def _check_inputs(program: ExportedProgram, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """Flatten the call like the exported one; a different structure or a
    different specialised constant is a clear error naming the path."""
    traced = program._traced
    signature = _forward_signature(program)
    try:
        named = dict(signature.bind(*args, **kwargs).arguments) if signature else None
    except TypeError as err:
        raise TypeError(str(err)) from None
    if named is None:
        named = {f"arg{i}": a for i, a in enumerate(args)} | kwargs
    pytree.check_structure(named, traced.in_spec, named_args=True)
    leaves_with_paths = []
    for name, value in named.items():
        for path, leaf in pytree.tree_flatten_with_path(value)[0]:
            leaves_with_paths.append((name + pytree.keystr(path), leaf))
    for path, leaf in leaves_with_paths:
        if path in traced.input_constants:
            _check_constant(path, leaf, traced.input_constants[path])
        elif path in traced.int_input_paths:
            if type(leaf) is not int:  # bool is an int subclass, but not an int input
                raise GuardError(f"Guard failed: {path} must be an int (got {_describe(leaf)})")
        elif not isinstance(leaf, Tensor):
            raise GuardError(f"Guard failed: {path} must be a Tensor (got {_describe(leaf)})")
    return [leaf for _, leaf in leaves_with_paths]


def _check_constant(path: str, leaf: Any, expected: Any) -> None:
    """A specialised input takes only its exported value, of its exported type
    (torch's check: ``2.0``, ``True`` and ``tensor(2)`` are not the int ``2``);
    nan matches nan."""
    if type(leaf) is not type(expected):
        raise GuardError(f"Guard failed: {path} == {expected!r} "
                         f"(got {_describe(leaf)}, not {type(expected).__name__})")
    if leaf != expected and not (isinstance(leaf, float) and math.isnan(leaf) and math.isnan(expected)):
        raise GuardError(f"Guard failed: {path} == {expected!r} (got {leaf!r})")


def _describe(leaf: Any) -> str:
    """Type and value of a wrong input, short even for a tensor."""
    if isinstance(leaf, Tensor):
        return f"Tensor of dtype {leaf.dtype} and shape {list(leaf.shape)}"
    text = repr(leaf)
    return f"{type(leaf).__name__} {text if len(text) <= 80 else text[:77] + '...'}"


def _forward_signature(program: ExportedProgram) -> Any:
    return program._traced.forward_signature
