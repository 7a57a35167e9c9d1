"""``texport.nn.functional`` (``import texport.nn.functional as F``): the names of
texport.tracer.nn.functional's ``__all__``, and the private helpers that
torch-style attention code reaches for through ``F``."""

from texport.tracer.nn.functional import *  # noqa: F403 - the public face of the same names
from texport.tracer.nn.functional import (  # noqa: F401
    __all__,
    _canonical_mask,
    _in_projection,
    _in_projection_packed,
    _mha_shape_check,
    _none_or_dtype,
    _verify_batch_size,
)
