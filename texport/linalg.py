"""``texport.linalg`` (torch.linalg's functions): the names of texport.tracer.linalg's ``__all__``."""

from texport.tracer.linalg import *  # noqa: F403 - the public face of the same names
from texport.tracer.linalg import __all__  # noqa: F401
