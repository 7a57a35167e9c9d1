"""sympy, loaded on first use.

Importing sympy takes ~0.2 s, more than the rest of texport, and a program
with static shapes never needs it: texport installs sympy as a lazily loaded
module, executed the first time one of its names is used (a symbolic dim).
"""

from __future__ import annotations

import importlib.util
import sys


def install_lazy_sympy() -> None:
    if "sympy" in sys.modules:
        return
    spec = importlib.util.find_spec("sympy")
    if spec is None or spec.loader is None:
        return
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["sympy"] = module
    loader.exec_module(module)


install_lazy_sympy()
# texport modules take sympy from here: an `import sympy` statement would touch
# the module's __spec__ and so load it at once (Python 3.11's import machinery).
sympy = sys.modules["sympy"]


def loaded() -> bool:
    """True once sympy has run; until then no sympy object can exist."""
    return not isinstance(sympy, importlib.util._LazyModule)  # noqa: SLF001


def is_expr(value: object) -> bool:
    """``isinstance(value, sympy.Expr)`` without loading sympy for plain values."""
    return loaded() and isinstance(value, sympy.Expr)
