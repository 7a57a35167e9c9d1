"""``texport.export.graph_signature``: the graph signature's classes (torch.export.graph_signature)."""

from texport.tracer.signature import (
    ConstantArgument,
    CustomObjArgument,
    ExportBackwardSignature,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
    TokenArgument,
)

__all__ = ["ConstantArgument", "CustomObjArgument", "ExportBackwardSignature", "ExportGraphSignature",
           "InputKind", "InputSpec", "OutputKind", "OutputSpec", "SymIntArgument", "TensorArgument",
           "TokenArgument"]
