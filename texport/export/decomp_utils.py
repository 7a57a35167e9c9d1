"""``texport.export.decomp_utils``: the editable default table (torch.export.decomp_utils)."""

from texport.lowering.default_table import CustomDecompTable

__all__ = ["CustomDecompTable"]
