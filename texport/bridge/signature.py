"""torch's graph signature and calling convention as texport's: input and output
specs (kinds, targets, persistence), the argument and result attributes of the
function, pytree specs (torch's ``(args, kwargs)`` in_spec becomes texport's
dict of forward's named arguments), user input paths and the forward signature."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.utils._pytree as torch_pytree
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr

from texport.tracer import pytree
from texport.tracer.signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
    TokenArgument,
)

from .values import TorchImportError, literal


def argument_of(arg: Any, where: str) -> Any:
    """A torch graph-signature argument as texport's (the same name and kind)."""
    kind = type(arg).__name__
    if kind == "TensorArgument":
        return TensorArgument(arg.name)
    if kind in ("SymIntArgument", "SymFloatArgument", "SymBoolArgument"):
        return SymIntArgument(arg.name)  # texport's one argument kind for every symbolic scalar
    if kind == "ConstantArgument":
        return ConstantArgument(arg.name, literal(arg.value))
    if kind == "TokenArgument":
        return TokenArgument(arg.name)
    raise TorchImportError(f"{where}: texport has no {kind} (found {arg})")


def signature_of(torch_signature: Any) -> ExportGraphSignature:
    """The same specs, in the same order, with texport's argument types; without torch's
    effect tokens (texport orders effectful ops by the block, as its own export does)."""
    inputs = [InputSpec(InputKind[spec.kind.name], argument_of(spec.arg, f"input {spec.arg}"), spec.target,
                        spec.persistent) for spec in torch_signature.input_specs if spec.kind.name != "TOKEN"]
    outputs = [OutputSpec(OutputKind[spec.kind.name], argument_of(spec.arg, f"output {spec.arg}"), spec.target)
               for spec in torch_signature.output_specs if spec.kind.name != "TOKEN"]
    return ExportGraphSignature(inputs, outputs)


def token_names(torch_signature: Any) -> set[str]:
    """The placeholders of torch's effect tokens (no argument in texport)."""
    return {spec.arg.name for spec in torch_signature.input_specs if spec.kind.name == "TOKEN"}


def input_attrs(spec: InputSpec, path: str | None) -> DictionaryAttr:
    """An argument's attributes, as texport's lifting writes them (``tx.input``...)."""
    attrs: dict[str, Any] = {"tx.input": StringAttr(spec.kind.name)}
    if spec.target is not None:
        attrs["tx.target"] = StringAttr(spec.target)
    if spec.persistent is not None:
        attrs["tx.persistent"] = IntegerAttr(int(spec.persistent), 1)
    if path is not None:
        attrs["tx.path"] = StringAttr(path)
    return DictionaryAttr(attrs)


def output_attrs(spec: OutputSpec) -> DictionaryAttr:
    return DictionaryAttr({"tx.output": StringAttr(spec.kind.name),
                           **({"tx.target": StringAttr(spec.target)} if spec.target else {})})


# --------------------------------------------------------------------------
# The calling convention
# --------------------------------------------------------------------------


def tree_spec(spec: Any) -> pytree.TreeSpec:
    """A torch TreeSpec as texport's: the same node types and contexts; a node type
    only torch knows (a registered dataclass, a model output class) is registered
    with texport's pytree by torch's own flatten and unflatten functions."""
    if spec.is_leaf():
        return pytree.LeafSpec()
    node_type = spec.type
    if node_type not in pytree.SUPPORTED_NODES:
        _register_like_torch(node_type)
    return pytree.TreeSpec(node_type, spec.context, [tree_spec(child) for child in spec.children()])


def _register_like_torch(node_type: Any) -> None:
    node = torch_pytree.SUPPORTED_NODES.get(node_type)
    if node is None:
        raise TorchImportError(f"the program's inputs or outputs hold a {node_type}, which torch's pytree "
                           "does not know either")
    pytree.register_pytree_node(node_type, node.flatten_fn, node.unflatten_fn,
                                flatten_with_keys_fn=node.flatten_with_keys_fn)


@dataclass
class CallingConvention:
    """What ``ep.module()`` needs to take torch's arguments and give torch's results."""

    in_spec: pytree.TreeSpec
    out_spec: pytree.TreeSpec
    forward_signature: inspect.Signature
    user_input_paths: list[str] = field(default_factory=list)  # one per non-constant user input
    input_constants: dict[str, Any] = field(default_factory=dict)
    int_input_paths: set[str] = field(default_factory=set)


def calling_convention(torch_ep: Any, signature: ExportGraphSignature, placeholders: dict[str, Any]
                       ) -> CallingConvention:
    """texport's calling convention for torch's: forward's arguments by name, from
    ``module_call_graph[0]``'s ``forward_arg_names``."""
    torch_in = torch_ep.call_spec.in_spec
    names = _forward_arg_names(torch_ep, torch_in)
    args_spec, kwargs_spec = torch_in.children()
    named = dict(zip(names, args_spec.children()))
    named.update(zip(kwargs_spec.context, kwargs_spec.children()))
    in_spec = pytree.TreeSpec(dict, list(named), [tree_spec(child) for child in named.values()])
    parameters = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in named]
    convention = CallingConvention(in_spec, tree_spec(torch_ep.call_spec.out_spec), inspect.Signature(parameters))
    sample = pytree.tree_unflatten([_Leaf() for _ in range(in_spec.num_leaves)], in_spec)
    paths = [name + pytree.keystr(path) for name, value in sample.items()
             for path, _ in pytree.tree_flatten_with_path(value)[0]]
    user_specs = [spec for spec in signature.input_specs if spec.kind is InputKind.USER_INPUT]
    if len(paths) != len(user_specs):
        raise TorchImportError(f"the program's in_spec holds {len(paths)} leaves for its {len(user_specs)} user inputs")
    for path, spec in zip(paths, user_specs):
        if isinstance(spec.arg, ConstantArgument):
            convention.input_constants[path] = spec.arg.value
            continue
        convention.user_input_paths.append(path)
        if isinstance(placeholders.get(spec.arg.name), (torch.SymInt, int)):
            convention.int_input_paths.add(path)
    return convention


class _Leaf:
    """A stand-in leaf: the structure alone gives the paths."""


def _forward_arg_names(torch_ep: Any, torch_in: Any) -> list[str]:
    entry = torch_ep.module_call_graph[0] if torch_ep.module_call_graph else None
    names = entry.signature.forward_arg_names if entry is not None and entry.signature is not None else None
    positional = torch_in.child(0).num_children
    if names is None:
        names = [f"arg{i}" for i in range(positional)]
    return list(names)[:positional]
