"""What a torch.export.ExportedProgram holds beside its graph, from a texport
program: the graph signature (torch's InputSpec/OutputSpec classes, names
read off the FX nodes), the pytree specs of the call (texport binds the call
to ``forward``'s parameters by name, a dict; torch keeps ``(args, kwargs)``),
the module call graph, the weights and constants as torch tensors, the
example inputs, and from them the size hints of the program's symbols.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import torch
import torch.export.graph_signature as torch_signature
import torch.utils._pytree as torch_pytree
from torch.export.exported_program import ModuleCallEntry, ModuleCallSignature

from texport.export.program import _check_inputs
from texport.export.unflatten import (
    _lifted_specs,
    _ops_between,
    _own_buffer_mutations,
    _values_by_name,
)
from texport.interpreter.dtypes import is_bfloat16
from texport.tracer import pytree
from texport.tracer.signature import (
    ConstantArgument,
    InputKind,
    SymIntArgument,
    TensorArgument,
)
from texport.tracer.tensor import Tensor

from .torch_graph import ToTorchError

# ---- tensors --------------------------------------------------------------


def torch_tensor(tensor: Tensor) -> torch.Tensor:
    """A texport tensor as a torch tensor with the same dtype and bytes (a copy)."""
    array = np.array(tensor._value, copy=True, order="C")  # (ascontiguousarray makes a 0-d array 1-d)
    if is_bfloat16(array.dtype):  # numpy has no bfloat16: torch reads ml_dtypes' bytes as int16
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def state_tensors(ep: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(state_dict, constants) as torch holds them: parameters as nn.Parameter,
    tied names sharing one tensor as they share one in texport."""
    parameters = set(ep.graph_signature.parameters)
    made: dict[int, Any] = {}

    def convert(name: str, tensor: Any) -> Any:
        if not isinstance(tensor, Tensor):
            raise ToTorchError(f"state entry {name!r} is a {type(tensor).__name__}; to_torch "
                               "carries tensors only (no custom objects)")
        found = made.get(id(tensor))
        if found is None:
            found = torch_tensor(tensor)
            if name in parameters:
                found = torch.nn.Parameter(found, requires_grad=bool(tensor.requires_grad))
            made[id(tensor)] = found
        return found

    state_dict = {name: convert(name, t) for name, t in ep.state_dict.items()}
    constants = {name: convert(name, t) for name, t in ep.constants.items()}
    return state_dict, constants


def example_inputs(ep: Any) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    examples = ep.example_inputs
    if examples is None:
        return None
    return pytree.tree_map(lambda leaf: torch_tensor(leaf) if isinstance(leaf, Tensor) else leaf, examples)


# ---- hints ------------------------------------------------------------------


def example_hints(ep: Any) -> dict[str, int]:
    """Each input size symbol's value in the example inputs (torch's hints), where
    a dim is ``s`` or ``a*s + b`` of one symbol."""
    hints: dict[str, int] = {}
    leaves = _example_leaves(ep)
    if leaves is None:
        return hints
    block_args = iter(ep.graph.body.block.args)
    user = iter(leaves)
    for spec in ep.graph_signature.input_specs:
        if isinstance(spec.arg, ConstantArgument):
            if spec.kind is InputKind.USER_INPUT:
                next(user, None)
            continue
        arg = next(block_args)
        if spec.kind is not InputKind.USER_INPUT:
            continue
        leaf = next(user, None)
        shape = getattr(arg.type, "shape", None)
        if shape is not None and isinstance(leaf, Tensor) and len(shape) == leaf.dim():
            for dim, size in zip(shape, leaf.shape):
                _hint(dim, int(size), hints)
        elif isinstance(leaf, int) and getattr(arg.type, "value", None) is not None:
            _hint(arg.type.value, leaf, hints)
    return hints


def _example_leaves(ep: Any) -> list[Any] | None:
    """The example call's input leaves, flattened as ``ep.module()`` flattens a call."""
    if ep.example_inputs is None:
        return None
    args, kwargs = ep.example_inputs
    try:
        return _check_inputs(ep, tuple(args), dict(kwargs))
    except Exception:  # noqa: BLE001 - hints are a best guess; without them torch gets range-based ones
        return None


def _hint(dim: Any, size: int, hints: dict[str, int]) -> None:
    if type(dim) is int:
        return
    symbols = list(dim.free_symbols)
    if len(symbols) != 1 or symbols[0].name in hints:
        return
    symbol = symbols[0]
    if dim == symbol:
        hints[symbol.name] = size
        return
    slope = dim.coeff(symbol)
    offset = dim - slope * symbol
    if getattr(slope, "is_Integer", False) and getattr(offset, "is_Integer", False) and slope != 0:
        value, rest = divmod(size - int(offset), int(slope))
        if rest == 0:
            hints[symbol.name] = value


# ---- signature ----------------------------------------------------------------


def input_spec(spec: Any, node: Any) -> torch_signature.InputSpec:
    return torch_signature.InputSpec(
        kind=torch_signature.InputKind[spec.kind.name],
        arg=_argument(spec.arg, node),
        target=spec.target,
        persistent=spec.persistent,
    )


def output_spec(spec: Any, value: Any) -> torch_signature.OutputSpec:
    return torch_signature.OutputSpec(
        kind=torch_signature.OutputKind[spec.kind.name],
        arg=_argument(spec.arg, value),
        target=spec.target,
    )


def _argument(arg: Any, node: Any) -> Any:
    if isinstance(arg, ConstantArgument):
        return torch_signature.ConstantArgument(name=arg.name, value=arg.value)
    if not isinstance(node, torch.fx.Node):
        return torch_signature.ConstantArgument(name="", value=node)
    val = node.meta.get("val")
    if isinstance(val, torch.SymInt) or isinstance(arg, SymIntArgument):
        return torch_signature.SymIntArgument(name=node.name)
    if isinstance(val, torch.SymFloat):
        return torch_signature.SymFloatArgument(name=node.name)
    if isinstance(val, torch.SymBool):
        return torch_signature.SymBoolArgument(name=node.name)
    if isinstance(arg, TensorArgument) or isinstance(val, torch.Tensor):
        return torch_signature.TensorArgument(name=node.name)
    raise ToTorchError(f"signature argument {arg} has no torch form")


# ---- pytree specs and the module call graph -------------------------------------


def torch_spec(spec: Any) -> torch_pytree.TreeSpec:
    """A texport TreeSpec as torch's (same node types and contexts)."""
    if spec.is_leaf():
        return torch_pytree.treespec_leaf()
    node_type = spec.type
    if node_type not in torch_pytree.SUPPORTED_NODES and not _is_namedtuple(node_type):
        raise ToTorchError(f"the pytree node type {node_type.__qualname__} is registered with texport "
                           "but not with torch (register it with torch.utils._pytree too)")
    children = [torch_spec(child) for child in spec.children_specs]
    return torch_pytree.TreeSpec(node_type, spec.context, children)


def _is_namedtuple(node_type: Any) -> bool:
    return isinstance(node_type, type) and issubclass(node_type, tuple) and hasattr(node_type, "_fields")


def passed_parameters(ep: Any) -> set[str] | None:
    """The forward parameters the example call gave (the others took their defaults,
    which torch's call spec leaves out); None when the program keeps no example."""
    examples, signature = ep.example_inputs, ep._traced.forward_signature
    if examples is None or signature is None:
        return None
    try:
        bound = signature.bind(*examples[0], **examples[1])
    except TypeError:
        return None
    return set(bound.arguments)


def defaulted_inputs(ep: Any) -> set[int]:
    """Indexes (into the input specs) of the user inputs whose parameter the call
    left to its default: texport specialised them to constants, torch never saw them."""
    passed = passed_parameters(ep)
    spec = ep.call_spec.in_spec
    if passed is None or spec.type is not dict:
        return set()
    owners = [name for name, child in zip(spec.context, spec.children_specs) for _ in range(child.num_leaves)]
    user_specs = [i for i, s in enumerate(ep.graph_signature.input_specs) if s.kind is InputKind.USER_INPUT]
    dropped = set()
    for index, owner in zip(user_specs, owners):
        if owner not in passed:
            if not isinstance(ep.graph_signature.input_specs[index].arg, ConstantArgument):
                raise ToTorchError(f"input {owner!r} took its default in the example call but is a graph input")
            dropped.add(index)
    return dropped


def call_in_spec(ep: Any) -> torch_pytree.TreeSpec:
    """torch's ``(args, kwargs)`` spec of the call, from texport's spec of the bound
    parameters: the example's positional count decides which parameters were
    positional (all that may be, without an example)."""
    spec = ep.call_spec.in_spec
    signature = ep._traced.forward_signature
    if spec.type is not dict or signature is None:
        raise ToTorchError(f"the program's in_spec {spec} is not a dict of forward's parameters")
    positional_count = _positional_count(ep, signature)
    passed = passed_parameters(ep)
    args, kwargs = [], {}
    for index, (name, child) in enumerate(zip(spec.context, spec.children_specs)):
        if passed is not None and name not in passed:
            continue
        param = signature.parameters.get(name)
        kind = param.kind if param is not None else inspect.Parameter.KEYWORD_ONLY
        if kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(torch_spec(c) for c in child.children_specs)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            kwargs.update(zip(child.context, (torch_spec(c) for c in child.children_specs)))
        elif index < positional_count and kind is not inspect.Parameter.KEYWORD_ONLY:
            args.append(torch_spec(child))
        else:
            kwargs[name] = torch_spec(child)
    tuple_spec = torch_pytree.TreeSpec(tuple, None, args)
    dict_spec = torch_pytree.TreeSpec(dict, list(kwargs), list(kwargs.values()))
    return torch_pytree.TreeSpec(tuple, None, [tuple_spec, dict_spec])


def _positional_count(ep: Any, signature: inspect.Signature) -> int:
    examples = ep.example_inputs
    if examples is not None:
        return len(examples[0])
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in signature.parameters.values())


def module_call_graph(ep: Any, node_names: dict[str, str]) -> list[ModuleCallEntry]:
    """torch's module call graph: the root's call specs in torch's ``(args, kwargs)``
    form; a preserved submodule's inputs and outputs by their FX node names
    (``node_names``: texport value name -> node name)."""
    entries = [_call_entry(ep, entry, node_names, root=index == 0) for index, entry in enumerate(ep.module_call_graph)]
    if not entries or entries[0].signature is None:
        raise ToTorchError("the program has no root entry in its module call graph (it carries the call's specs)")
    return entries


def _call_entry(ep: Any, entry: Any, node_names: dict[str, str], root: bool) -> ModuleCallEntry:
    """One entry; a submodule whose values a rewrite of the program removed keeps
    its entry without a signature (torch's verifier refuses names not in the graph)."""
    sig = entry.signature
    if sig is None or any(_is_missing(a, node_names) for a in [*sig.inputs, *sig.outputs]):
        return ModuleCallEntry(fqn=entry.fqn, signature=None)
    if root:
        in_spec, out_spec = call_in_spec(ep), torch_spec(ep.call_spec.out_spec)
        names = _forward_arg_names(ep, in_spec) if sig.forward_arg_names is not None else None
    else:
        in_spec, out_spec, names = torch_spec(sig.in_spec), torch_spec(sig.out_spec), sig.forward_arg_names
    return ModuleCallEntry(fqn=entry.fqn, signature=ModuleCallSignature(
        inputs=[_call_argument(a, node_names) for a in sig.inputs],
        outputs=[_call_argument(a, node_names) for a in sig.outputs],
        in_spec=in_spec, out_spec=out_spec, forward_arg_names=names))


def _is_missing(arg: Any, node_names: dict[str, str]) -> bool:
    return not isinstance(arg, ConstantArgument) and arg.name not in node_names


def set_module_stacks(ep: Any, graph: Any, origin: dict[Any, Any]) -> None:
    """``meta["nn_module_stack"]`` of every node, which torch's ``unflatten`` outlines
    submodules by: the root, then each submodule whose call export preserved and
    whose part of the program (found as texport's own unflatten finds it) holds the
    node's op. texport's IR keeps no other module scopes: other nodes sit in the root."""
    parts = {fqn: set(ops) for fqn, ops in _preserved_parts(ep)}
    root = {"L__self__": ("", "texport.export.ExportedProgram")}
    for node in graph.nodes:
        op = origin.get(node)
        if op is None and node.op not in ("call_function", "get_attr"):
            continue
        stack = dict(root)
        for fqn in sorted((f for f, ops in parts.items() if op in ops), key=lambda f: f.count(".")):
            stack[f"L__self__{fqn}"] = (fqn, fqn)
        node.meta["nn_module_stack"] = stack


def _preserved_parts(ep: Any) -> list[tuple[str, list[Any]]]:
    """(fqn, its ops) of each submodule whose call signature export preserved."""
    block = ep.graph.body.block
    by_name = _values_by_name(block)
    state = {arg: spec.target for arg, spec in zip(block.args, _lifted_specs(ep))
             if spec.kind is not InputKind.USER_INPUT}
    parts = []
    for entry in ep.module_call_graph[1:]:
        signature = entry.signature
        if signature is None:
            continue
        try:
            inputs = [by_name[a.name] for a in signature.inputs if not isinstance(a, ConstantArgument)]
            outputs = [by_name[a.name] for a in signature.outputs if not isinstance(a, ConstantArgument)]
            ops, _ = _ops_between(block, set(inputs), state, outputs, _own_buffer_mutations(ep, entry.fqn),
                                  entry.fqn)
        except (KeyError, RuntimeError):  # a rewritten program may have lost the call's values
            continue
        parts.append((entry.fqn, ops))
    return parts


def _forward_arg_names(ep: Any, in_spec: Any) -> list[str]:
    """torch's names of the call's inputs: the positional parameters given (``args_0``,
    ``args_1`` for ``*args``), then the keywords in the call spec's order."""
    signature = ep._traced.forward_signature
    names = []
    positional = [p for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    count = in_spec.child(0).num_children
    for param in positional[:count]:
        names.append(param.name)
    var = next((p for p in signature.parameters.values() if p.kind is p.VAR_POSITIONAL), None)
    if var is not None and count > len(positional):
        names.extend(f"{var.name}_{i}" for i in range(count - len(positional)))
    names.extend(in_spec.child(1).context)
    return names


def _call_argument(arg: Any, node_names: dict[str, str]) -> Any:
    if isinstance(arg, ConstantArgument):
        return torch_signature.ConstantArgument(name=arg.name, value=arg.value)
    if isinstance(arg, SymIntArgument):
        return torch_signature.SymIntArgument(name=node_names[arg.name])
    return torch_signature.TensorArgument(name=node_names[arg.name])


__all__ = ["set_module_stacks", "defaulted_inputs", "example_hints", "example_inputs", "input_spec", "module_call_graph",
           "output_spec", "state_tensors", "torch_spec", "torch_tensor"]
