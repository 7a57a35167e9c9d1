"""How a program BECOMES IR: eager Tensor, nn, functional API, the dispatcher
and its modes, export()."""
