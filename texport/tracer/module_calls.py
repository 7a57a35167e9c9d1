"""The module call graph of an exported program (torch's ``ep.module_call_graph``):
one entry per submodule of the exported module, and for each submodule named in
``preserve_module_call_signature`` the signature of its call, read off the trace
(the IR values it took and returned, and their pytree structure), which
``unflatten`` uses to call that submodule alone."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from xdsl.ir import SSAValue

from texport.dialects.tx import SymIntType

from . import pytree
from .nn.module import Module
from .signature import ConstantArgument, SymIntArgument, TensorArgument
from .symint import SymNode
from .tensor import Tensor


@dataclass
class ModuleCallSignature:
    inputs: list[Any]
    outputs: list[Any]
    in_spec: Any
    out_spec: Any
    forward_arg_names: list[str] | None = None


@dataclass
class ModuleCallEntry:
    fqn: str
    signature: ModuleCallSignature | None = None


@dataclass
class RecordedCall:
    """One preserved submodule's call, as traced: IR values (named at the end)."""

    inputs: list[Any] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)
    in_spec: Any = None
    out_spec: Any = None


def submodule(mod: Module, fqn: str) -> Module:
    """``mod``'s submodule at ``fqn``; a wrong name raises AttributeError as torch's export."""
    owner = mod
    for part in fqn.split("."):
        owner = getattr(owner, part)
    if not isinstance(owner, Module):
        raise AttributeError(f"{fqn} is not a submodule of {type(mod).__name__}")
    return owner


@contextlib.contextmanager
def recording_calls(mod: Module, preserved: tuple[str, ...], tracer: Any) -> Iterator[dict[str, RecordedCall]]:
    """While tracing, record the first call of every submodule (by each of its names):
    ``preserved`` ones give the module call graph its signatures, and every one can be
    called alone after ``unflatten``. A name in ``preserved`` that is no submodule
    raises AttributeError first, as torch's export."""
    for fqn in preserved:
        submodule(mod, fqn)
    by_instance: dict[int, RecordedCall] = {}
    patched: list[tuple[Module, Any]] = []
    for fqn, sub in mod.named_modules():
        if fqn:
            patched.append((sub, sub.__dict__.get("forward", _MISSING)))
            object.__setattr__(sub, "forward", _recording_forward(sub, by_instance, tracer))
    recorded: dict[str, RecordedCall] = {}
    try:
        yield recorded
    finally:
        for sub, own in patched:
            if own is _MISSING:
                sub.__dict__.pop("forward", None)
            else:
                object.__setattr__(sub, "forward", own)
        for fqn, sub in mod.named_modules(remove_duplicate=False):
            if fqn and id(sub) in by_instance:
                recorded[fqn] = by_instance[id(sub)]


_MISSING = object()


def _recording_forward(sub: Module, recorded: dict[int, RecordedCall], tracer: Any) -> Any:
    forward = sub.forward

    def record(*args: Any, **kwargs: Any) -> Any:
        output = forward(*args, **kwargs)
        if id(sub) not in recorded:
            in_leaves, in_spec = pytree.tree_flatten((args, kwargs))
            out_leaves, out_spec = pytree.tree_flatten(output)
            recorded[id(sub)] = RecordedCall([_argument_of(tracer, v) for v in in_leaves],
                                             [_argument_of(tracer, v) for v in out_leaves], in_spec, out_spec)
        return output

    return record


def _argument_of(tracer: Any, value: Any) -> Any:
    if isinstance(value, (Tensor, SymNode)):
        return tracer.ir_value(value)
    return ConstantArgument("", value)


def _named(value: Any) -> Any:
    if isinstance(value, SSAValue):
        name = value.name_hint or ""
        return SymIntArgument(name) if isinstance(value.type, SymIntType) else TensorArgument(name)
    return value


def call_signatures(recorded: dict[str, RecordedCall]) -> dict[str, ModuleCallSignature]:
    """Each recorded call's signature, its values named as the program names them."""
    return {fqn: ModuleCallSignature([_named(v) for v in call.inputs], [_named(v) for v in call.outputs],
                                     call.in_spec, call.out_spec)
            for fqn, call in recorded.items()}


def module_call_graph(mod: Module, in_spec: Any, out_spec: Any, forward_arg_names: list[str],
                      signatures: dict[str, ModuleCallSignature], preserved: tuple[str, ...]) -> list[ModuleCallEntry]:
    """torch's: the root's signature, then every submodule (duplicates included),
    signatures only for the preserved ones."""
    root = ModuleCallEntry("", ModuleCallSignature([], [], in_spec, out_spec, forward_arg_names))
    names = [fqn for fqn, _ in mod.named_modules(remove_duplicate=False) if fqn]
    return [root, *(ModuleCallEntry(fqn, signatures.get(fqn) if fqn in preserved else None) for fqn in names)]
