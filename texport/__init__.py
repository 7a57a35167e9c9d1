"""texport: torch.export rebuilt as an MLIR-style multi-dialect compiler."""

from texport.dialects.dtypes import DType

__all__ = ["DType"]
