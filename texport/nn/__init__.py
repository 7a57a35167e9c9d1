"""``texport.nn`` (``import texport.nn as nn``): the layers of texport.tracer.nn,
under the names its ``__all__`` gives."""

from texport.nn import functional, init  # noqa: E402, F401 - the public submodules
from texport.tracer.nn import *  # noqa: F403 - the public face of the same names
from texport.tracer.nn import __all__  # noqa: F401
