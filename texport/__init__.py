"""texport: torch.export rebuilt as an MLIR-style multi-dialect compiler.

``import texport as torch`` is the goal; this package is the public face and
re-exports what the layers below provide.
"""

from texport.dialects.dtypes import DType
from texport.dialects.handles import ops

__all__ = ["DType", "ops"]
