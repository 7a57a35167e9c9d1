"""sympy (and ml_dtypes), loaded on first use.

Importing sympy takes ~0.2 s, more than the rest of texport, and a program
with static shapes never needs it. texport's modules take ``sympy`` from here:
a stand-in module that imports the real sympy the first time one of its names
is read, then holds sympy's names itself, so later reads cost what a module
attribute costs. Nothing else changes: ``sys.modules["sympy"]`` is sympy's own
business (set only when sympy really loads), and user code is unaffected.
``LazyModule`` makes such a stand-in for any module (interpreter/dtypes.py
takes ml_dtypes, ~0.5 s to import, so: only a bfloat16 program needs it).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


class LazyModule(types.ModuleType):
    """``LazyModule("sympy")``: the module ``sympy``, imported when a name is first read."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        real = importlib.import_module(self.__name__)
        self.__dict__.update({k: v for k, v in vars(real).items() if not k.startswith("__")})
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'") from None


sympy: Any = LazyModule("sympy", "sympy, imported on first use")


def loaded() -> bool:
    """True once sympy has been imported (by texport or anyone): until then no
    sympy object can exist."""
    return "sympy" in sys.modules


def is_expr(value: object) -> bool:
    """``isinstance(value, sympy.Expr)`` without loading sympy for plain values."""
    return loaded() and isinstance(value, sympy.Expr)
