"""``texport.export.unflatten``: an exported program back as a module hierarchy
(torch.export.unflatten).

The UnflattenedModule has the exported module's submodules (an InterpreterModule
for every entry of ``ep.module_call_graph``) holding their parameters and
buffers under their original names; calling it runs the whole program. Each
submodule can be called alone: it runs the part of the program its (first)
call computed (the ops between the values it took and returned, and the writes
to its own buffers), sliced out of the program's function. One whose call
signature export preserved (``preserve_module_call_signature``) takes and returns
what the original did; any other, as torch's, takes its tensor inputs flat and
returns a flat list (or its one output).
"""

from __future__ import annotations

import abc
from typing import Any

from xdsl.dialects.builtin import FunctionType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue

from texport.interpreter.executor import Plan, compile_function
from texport.lowering.legality import writes_something
from texport.tracer import pytree
from texport.tracer.module_calls import ModuleCallSignature
from texport.tracer.nn.module import Module
from texport.tracer.signature import ConstantArgument, InputKind, OutputKind
from texport.tracer.tensor import Tensor

from .program import ExportedModule, ExportedProgram, _wrap, _write_back


class FlatArgsAdapter(abc.ABC):
    """Adapts the flat inputs of a call whose structure differs from the exported one."""

    @abc.abstractmethod
    def adapt(self, target_spec: Any, input_spec: Any, input_args: list[Any],
              metadata: dict[str, Any] | None = None, obj: Any = None) -> list[Any]:
        """The flat inputs, in the exported structure ``target_spec``."""

    def get_flat_arg_paths(self) -> list[str]:
        return []


class InterpreterModule(Module):
    """A submodule of an unflattened program: its parameters and buffers, and, when its
    call signature was preserved, the part of the program it computes."""

    def __init__(self, root: UnflattenedModule, fqn: str, signature: ModuleCallSignature | None) -> None:
        super().__init__()
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_fqn", fqn)
        object.__setattr__(self, "_signature", signature)
        object.__setattr__(self, "_plan", None)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """A preserved submodule is called as the original (its pytree in, its pytree out);
        any other as torch calls it: its tensor inputs flat, its outputs as a flat list
        (its one output alone)."""
        preserved = self._signature is not None
        signature = self._signature or self._root._program._traced.submodule_calls.get(self._fqn)
        if signature is None:
            raise RuntimeError(f"Submodule '{self._fqn}' of the unflattened program was not called by the "
                               "exported forward: it has no part of the program to run")
        if preserved:
            leaves = pytree.check_structure((args, kwargs), signature.in_spec, root=self._fqn)
            leaves = [leaf for leaf, arg in zip(leaves, signature.inputs) if not isinstance(arg, ConstantArgument)]
        else:
            leaves = [*args, *kwargs.values()]
            wanted = sum(not isinstance(arg, ConstantArgument) for arg in signature.inputs)
            if len(leaves) != wanted:
                raise TypeError(f"Submodule '{self._fqn}' takes its {wanted} tensor inputs flat, got {len(leaves)}")
        plan, reads, writes = self._compiled(signature)
        state = self._root._state()
        inputs = [leaf._value if isinstance(leaf, Tensor) else leaf for leaf in leaves]
        values = list(plan(*inputs, *(state[target]._value for target in reads)))
        for target, value in zip(writes, values[len(values) - len(writes):]):
            _write_back(state[target]._value, value)
        outputs = iter(values[:len(values) - len(writes)])
        results = [arg.value if isinstance(arg, ConstantArgument) else _wrap(next(outputs))
                   for arg in signature.outputs]
        if preserved:
            return pytree.tree_unflatten(results, signature.out_spec)
        return results[0] if len(results) == 1 else results

    def _compiled(self, signature: ModuleCallSignature) -> tuple[Plan, list[str], list[str]]:
        if self._plan is None:
            func, reads, writes = _slice(self._root._program, self._fqn, signature)
            object.__setattr__(self, "_plan", (compile_function(func), reads, writes))
        return self._plan


class UnflattenedModule(ExportedModule):
    """``texport.export.unflatten(ep)``: the program with its module hierarchy."""

    def __init__(self, program: ExportedProgram, flat_args_adapter: FlatArgsAdapter | None = None) -> None:
        super().__init__(program)
        object.__setattr__(self, "flat_args_adapter", flat_args_adapter)
        object.__setattr__(self, "adapted", False)

    def _build_hierarchy(self) -> None:
        """An InterpreterModule per call-graph entry, in its order, before the state lands."""
        for entry in self._program.module_call_graph[1:]:
            *path, leaf = entry.fqn.split(".")
            owner: Module = self
            for part in path:
                owner = owner._modules[part]
            if leaf not in owner._modules:
                owner.add_module(leaf, InterpreterModule(self, entry.fqn, entry.signature))

    @property
    def graph_signature(self) -> Any:
        return self._program.graph_signature

    @property
    def module_call_graph(self) -> list[Any]:
        return self._program.module_call_graph

    @property
    def range_constraints(self) -> dict[Any, Any]:
        return self._program.range_constraints

    def print_readable(self, print_output: bool = True) -> str:
        return self._program.graph_module.print_readable(print_output)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        in_spec = self._program.call_spec.in_spec
        try:
            return super().forward(*args, **kwargs)
        except (TypeError, ValueError):
            if self.flat_args_adapter is None:
                raise
        leaves, input_spec = pytree.tree_flatten((args, kwargs))
        adapted = self.flat_args_adapter.adapt(target_spec=in_spec, input_spec=input_spec, input_args=leaves)
        if len(adapted) != in_spec.num_leaves:
            raise ValueError(f"The adapted flat args must have {in_spec.num_leaves} leaves, got {len(adapted)}")
        object.__setattr__(self, "adapted", True)
        return super().forward(**pytree.tree_unflatten(adapted, in_spec))

    def _state(self) -> dict[str, Tensor]:
        state = dict(self.named_parameters(remove_duplicate=False))
        state.update(self.named_buffers(remove_duplicate=False))
        return state


def unflatten(module: ExportedProgram, flat_args_adapter: FlatArgsAdapter | None = None) -> UnflattenedModule:
    """The exported program as a module hierarchy like the one exported."""
    return UnflattenedModule(module, flat_args_adapter)


# --------------------------------------------------------------------------
# A preserved submodule's part of the program
# --------------------------------------------------------------------------


def _slice(program: ExportedProgram, fqn: str,
           signature: ModuleCallSignature) -> tuple[FuncOp, list[str], list[str]]:
    """A function of the submodule's inputs and of the state it reads (parameters, buffers,
    constants by target), with the ops of the program between them and its outputs; then
    the new values of its own buffers that a functional program returns (their targets
    last, for the caller to write back)."""
    block = program.graph.body.block
    by_name = _values_by_name(block)
    inputs = [by_name[arg.name] for arg in signature.inputs if not isinstance(arg, ConstantArgument)]
    outputs = [by_name[arg.name] for arg in signature.outputs if not isinstance(arg, ConstantArgument)]
    state = {arg: spec.target for arg, spec in zip(block.args, _lifted_specs(program))
             if spec.kind is not InputKind.USER_INPUT}
    mutations = _own_buffer_mutations(program, fqn)
    ops, written = _ops_between(block, set(inputs), state, outputs, mutations, fqn)
    returned = outputs + [value for value, _ in written]
    used_state = [arg for arg in block.args if arg in state and arg not in inputs and _used_by(arg, ops)]
    new_block = Block(arg_types=[v.type for v in inputs + used_state])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs + used_state, new_block.args))
    for new_arg, old in zip(new_block.args, inputs + used_state):
        new_arg.name_hint = old.name_hint
    for op in ops:
        new_block.add_op(op.clone(value_mapper=mapping))
    new_block.add_op(ReturnOp(*(mapping.get(v, v) for v in returned)))
    func = FuncOp(fqn.replace(".", "_") or "forward", FunctionType.from_lists(
        [a.type for a in new_block.args], [v.type for v in returned]), Region(new_block))
    return func, [state[arg] for arg in used_state], [target for _, target in written]


def _own_buffer_mutations(program: ExportedProgram, fqn: str) -> list[tuple[SSAValue, str]]:
    """(returned value, buffer) for each BUFFER_MUTATION output of a buffer under ``fqn``."""
    returned = iter(program.graph.body.block.last_op.operands)
    pairs = [(next(returned), spec) for spec in program.graph_signature.output_specs
             if not isinstance(spec.arg, ConstantArgument)]
    return [(value, spec.target) for value, spec in pairs
            if spec.kind is OutputKind.BUFFER_MUTATION and spec.target.startswith(fqn + ".")]


def _lifted_specs(program: ExportedProgram) -> list[Any]:
    return [s for s in program.graph_signature.input_specs if not isinstance(s.arg, ConstantArgument)]


def _values_by_name(block: Block) -> dict[str, SSAValue]:
    values: dict[str, SSAValue] = {arg.name_hint: arg for arg in block.args if arg.name_hint}
    for op in block.ops:
        values.update({r.name_hint: r for r in op.results if r.name_hint})
    return values


def _ops_between(block: Block, inputs: set[SSAValue], state: dict[SSAValue, str], outputs: list[SSAValue],
                 mutations: list[tuple[SSAValue, str]], fqn: str,
                 ) -> tuple[list[Operation], list[tuple[SSAValue, str]]]:
    """The ops computable from ``inputs`` and the state that the outputs need, plus the
    writes to the submodule's own buffers (in place, or as the new values ``mutations``
    a functional program returns, those computable here), in program order."""
    available = set(inputs) | set(state)
    computable: list[Operation] = []
    for op in block.ops:
        if op is block.last_op:
            break
        if all(v in available for v in op.operands):
            computable.append(op)
            available.update(op.results)
    prefix = fqn + "."
    own = {arg for arg, target in state.items() if target.startswith(prefix)}
    written = [(value, target) for value, target in mutations if value in available and value not in state]
    work = [v.owner for v in outputs + [value for value, _ in written] if isinstance(v.owner, Operation)]
    work += [op for op in computable if _writes_own_state(op, own)]
    chosen, needed = set(computable), set()
    while work:
        op = work.pop()
        if op in needed:
            continue
        if op not in chosen:
            missing = next(v for v in op.operands if v not in available)
            raise RuntimeError(f"Submodule '{fqn}' reads '{missing.name_hint}', which its call did not take")
        needed.add(op)
        work.extend(v.owner for v in op.operands if isinstance(v.owner, Operation) and v not in inputs)
    return [op for op in computable if op in needed], written


def _writes_own_state(op: Operation, own: set[SSAValue]) -> bool:
    return hasattr(op, "op_def") and writes_something(op) and any(v in own for v in op.operands)


def _used_by(value: SSAValue, ops: list[Operation]) -> bool:
    chosen = set(ops)
    return any(use.operation in chosen or use.operation.parent_op() in chosen for use in value.uses)
