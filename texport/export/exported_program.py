"""``texport.export.exported_program``: the program classes (torch.export.exported_program)."""

from texport.lowering import default_decompositions
from texport.tracer.module_calls import ModuleCallEntry, ModuleCallSignature

from .program import CallSpec, ExportedModule, ExportedProgram, GraphModule

__all__ = ["CallSpec", "ExportedModule", "ExportedProgram", "GraphModule", "ModuleCallEntry",
           "ModuleCallSignature", "default_decompositions"]
