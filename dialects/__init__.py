"""What an op IS: the tensor type, the op registry, shape rules, the dialects."""

from . import _lazy  # noqa: F401 - installs sympy as a lazily loaded module first
