"""How a program BECOMES IR: eager Tensor, nn, functional API, the dispatcher
and its modes, and (later) export()."""

from .dispatcher import push_base_mode
from .eager import EagerMode

push_base_mode(EagerMode())
