"""``texport.export``: export(), ExportedProgram and the dynamic-shape spec, as torch.export."""

from __future__ import annotations

from typing import Any, NamedTuple

from texport.library import register_decomposition
from texport.lowering import CustomDecompTable, default_decompositions
from texport.tracer import pytree
from texport.tracer.dynamic_shapes import (
    AdditionalInputs,
    Dim,
    ShapesCollection,
    dims,
    refine_dynamic_shapes_from_suggested_fixes,
)
from texport.tracer.errors import ConstraintViolationError, UserError
from texport.tracer.export import export_program
from texport.tracer.module_calls import ModuleCallEntry, ModuleCallSignature
from texport.tracer.nn.module import Module
from texport.tracer.signature import (
    ConstantArgument,
    ExportBackwardSignature,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
)

from . import custom_ops, decomp_utils, dynamic_shapes, exported_program, graph_signature
from .draft import draft_export
from .dynamic_shapes import Constraint
from .program import ExportedModule, ExportedProgram, GraphModule
from .serialization import SerializationError, load, save
from .unflatten import FlatArgsAdapter, UnflattenedModule, unflatten


def export(mod: Module, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
           dynamic_shapes: Any = None, strict: bool = False,
           preserve_module_call_signature: tuple[str, ...] = ()) -> ExportedProgram:
    """Trace ``mod(*args, **kwargs)`` into a training-level ExportedProgram. Each submodule
    named in ``preserve_module_call_signature`` keeps its call signature in
    ``ep.module_call_graph`` (so ``unflatten`` can call it alone)."""
    return ExportedProgram(export_program(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict,
                                          preserve_module_call_signature=preserve_module_call_signature))


def register_dataclass(cls: type, *, serialized_type_name: str | None = None) -> None:
    """Make dataclass ``cls`` a pytree node (its fields its children), so exported
    programs take and return it."""
    pytree.register_dataclass(cls, serialized_type_name=serialized_type_name)


class PassResult(NamedTuple):
    """What a pass over a program returns: the result and whether it changed."""

    graph_module: Any
    modified: bool


__all__ = [
    "AdditionalInputs", "ConstraintViolationError", "Dim", "ShapesCollection", "UserError",
    "dims", "refine_dynamic_shapes_from_suggested_fixes", "SerializationError", "load", "save",
    "default_decompositions", "register_decomposition",
    "ConstantArgument", "ExportGraphSignature", "ExportedModule", "ExportedProgram",
    "GraphModule", "InputKind", "InputSpec", "OutputKind", "OutputSpec", "SymIntArgument",
    "TensorArgument", "export", "Constraint", "CustomDecompTable", "ExportBackwardSignature",
    "FlatArgsAdapter", "ModuleCallEntry", "ModuleCallSignature", "PassResult", "UnflattenedModule",
    "custom_ops", "decomp_utils", "draft_export", "dynamic_shapes", "exported_program",
    "graph_signature", "register_dataclass", "unflatten",
]
