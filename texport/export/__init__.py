"""``texport.export``: export(), ExportedProgram and the dynamic-shape spec, as torch.export."""

from __future__ import annotations

from typing import Any

from texport.library import register_decomposition
from texport.lowering import default_decompositions
from texport.tracer.dynamic_shapes import (
    AdditionalInputs,
    Dim,
    ShapesCollection,
    dims,
    refine_dynamic_shapes_from_suggested_fixes,
)
from texport.tracer.errors import ConstraintViolationError, UserError
from texport.tracer.export import export_program
from texport.tracer.nn.module import Module
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

from .program import ExportedModule, ExportedProgram, GraphModule
from .serialization import SerializationError, load, save


def export(mod: Module, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
           dynamic_shapes: Any = None, strict: bool = False,
           preserve_module_call_signature: tuple[str, ...] = ()) -> ExportedProgram:
    """Trace ``mod(*args, **kwargs)`` into a training-level ExportedProgram."""
    return ExportedProgram(export_program(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict))


__all__ = [
    "AdditionalInputs", "ConstraintViolationError", "Dim", "ShapesCollection", "UserError",
    "dims", "refine_dynamic_shapes_from_suggested_fixes", "SerializationError", "load", "save",
    "default_decompositions", "register_decomposition",
    "ConstantArgument", "ExportGraphSignature", "ExportedModule", "ExportedProgram",
    "GraphModule", "InputKind", "InputSpec", "OutputKind", "OutputSpec", "SymIntArgument",
    "TensorArgument", "export",
]
