"""``texport.fft`` (torch.fft's transforms): the names of texport.tracer.fft's ``__all__``."""

from texport.tracer.fft import *  # noqa: F403 - the public face of the same names
from texport.tracer.fft import __all__  # noqa: F401
