"""``texport.utils._pytree`` (torch.utils._pytree): the names of
texport.tracer.pytree's ``__all__``."""

from texport.tracer.pytree import *  # noqa: F403 - the public face of the same names
from texport.tracer.pytree import (  # noqa: F401
    __all__,
    _deregister_pytree_node,
)
