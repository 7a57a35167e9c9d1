"""``texport.export.custom_ops``: custom operators as export sees them (torch.export.custom_ops);
they are defined with ``texport.library``."""

from texport.library import CustomOpDef, custom_op, define

__all__ = ["CustomOpDef", "custom_op", "define"]
