"""``texport.library``: custom operators (torch.library's custom_op API)."""

from texport.tracer.library import (
    CustomOpDef,
    custom_decompositions,
    custom_op,
    define,
    get_ctx,
    infer_schema,
)

__all__ = ["CustomOpDef", "custom_decompositions", "custom_op", "define", "get_ctx", "infer_schema"]
