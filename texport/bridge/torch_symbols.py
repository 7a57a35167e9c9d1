"""texport's size symbols as torch's: one ShapeEnv and FakeTensorMode per
``to_torch`` call, a torch symbol for each symbol of a program's inputs with
texport's name (``s77``), hint and range, and texport's dim expressions
(``4*s39 + 1``, ``(s77//2)``) computed as torch SymInts.

This follows torch's own deserializer (``torch/_export/serde/serialize.py``,
``GraphModuleDeserializer._parse_sym_expr``): a backed symbol is a sympy
Symbol named as serialized, its hint registered with ``add_backed_var_to_val``
and its range with ``constrain_symbol_range``; a SymInt is made by
``create_symintnode``. Unbacked symbols (``u0``) are made by torch's own fake
kernels while the graph is propagated; ``bind`` records which torch symbol each
texport symbol became, so ranges are keyed by torch's symbols.
"""

from __future__ import annotations

import math
import operator
from functools import reduce
from typing import Any

import sympy
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.value_ranges import ValueRanges

from texport.dialects.symbolic import dim_str


class SymbolError(ValueError):
    """A texport dim that torch cannot hold (a function it has no SymInt form of)."""


class TorchSymbols:
    """The ShapeEnv, the fake mode and the texport-name -> torch-symbol map of one program."""

    def __init__(self, ranges: dict[Any, Any], hints: dict[str, int]) -> None:
        self.shape_env = ShapeEnv(assume_static_by_default=True)
        self.fake_mode = FakeTensorMode(allow_non_fake_inputs=True, shape_env=self.shape_env)
        self.range_entries = list(ranges.items())  # (texport dim, its range)
        self.ranges = {_key_text(key): value for key, value in ranges.items()}
        self.hints = hints
        self.by_name: dict[str, sympy.Expr] = {}  # texport symbol name -> torch's expression

    # ---- texport dims -> torch values ---------------------------------------

    def value(self, dim: Any) -> int | torch.SymInt:
        """A texport dim (int or sympy expression) as an int or a torch SymInt."""
        if type(dim) is int:
            return dim
        return self._evaluate(dim)

    def _evaluate(self, expr: Any, create: bool = True) -> Any:
        if type(expr) is int or expr.is_Integer:
            return int(expr)
        if expr.is_Symbol:
            return self._symbol(expr.name, create)
        args = [self._evaluate(a, create) for a in expr.args]
        kind = type(expr).__name__
        if kind == "Add":
            return reduce(operator.add, args)
        if kind == "Mul":
            return reduce(operator.mul, args)
        if kind == "Pow" and isinstance(args[1], int) and args[1] >= 0:
            return reduce(operator.mul, [args[0]] * args[1], 1)
        if kind == "FloorDiv":
            return args[0] // args[1]
        if kind == "Mod":
            return args[0] % args[1]
        if kind in ("Max", "Min"):
            combine = torch.sym_max if kind == "Max" else torch.sym_min
            return reduce(combine, args)
        raise SymbolError(f"texport dim {dim_str(expr)} uses {kind}, which has no torch SymInt form here")

    def _symbol(self, name: str, create: bool = True) -> torch.SymInt:
        expr = self.by_name.get(name)
        if expr is None:
            if not create:
                raise SymbolError(f"symbol {name} is not in the graph")
            expr = self._new_backed(name)
        hint = self.shape_env.backed_var_to_val.get(expr) if isinstance(expr, sympy.Symbol) else None
        return self.shape_env.create_symintnode(expr, hint=None if hint is None else int(hint))

    def _new_backed(self, name: str) -> sympy.Symbol:
        """A backed size symbol as torch's deserializer makes it: its name, a hint, its range."""
        symbol = sympy.Symbol(name, integer=True, positive=True)
        lower, upper = self._range_of(name)
        hint = self.hints.get(name)
        if hint is None:  # no example input says: a size inside the range, away from torch's 0/1
            hint = max(lower, min(upper, 8)) if upper != int_oo else max(lower, 8)
        self.shape_env.add_backed_var_to_val(symbol, hint)
        self.shape_env.constrain_symbol_range(symbol, compiler_min=lower, compiler_max=upper)
        self.by_name[name] = symbol
        return symbol

    def _range_of(self, name: str) -> tuple[Any, Any]:
        found = self.ranges.get(name)
        if found is None:
            return 0, int_oo
        return _bound(found.lower, -int_oo), _bound(found.upper, int_oo)

    # ---- symbols torch made -------------------------------------------------

    def bind(self, texport_dim: Any, torch_value: Any) -> None:
        """Record that texport's symbol ``texport_dim`` is torch's ``torch_value``
        (an unbacked symbol a fake kernel just made), and give it texport's range."""
        if type(texport_dim) is int or not getattr(texport_dim, "is_Symbol", False):
            return
        if not isinstance(torch_value, torch.SymInt):
            return
        expr = torch_value.node.expr
        if texport_dim.name in self.by_name or not isinstance(expr, sympy.Symbol):
            return
        self.by_name[texport_dim.name] = expr
        if texport_dim.name in self.ranges:
            lower, upper = self._range_of(texport_dim.name)
            self.shape_env.constrain_symbol_range(expr, compiler_min=lower, compiler_max=upper)

    def range_constraints(self) -> dict[sympy.Expr, ValueRanges]:
        """texport's ranges keyed by torch's expressions (symbols the graph never
        bound are left out, as torch's deserializer leaves them out)."""
        out: dict[sympy.Expr, ValueRanges] = {}
        for key, value_range in self.range_entries:
            try:
                torch_value = self._evaluate(key, create=False)
            except SymbolError:
                continue
            expr = torch_value.node.expr if isinstance(torch_value, torch.SymInt) else sympy.Integer(torch_value)
            out[expr] = ValueRanges(_bound(value_range.lower, -int_oo), _bound(value_range.upper, int_oo))
        return out


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) else dim_str(key)


def _bound(value: Any, infinity: Any) -> Any:
    """A texport range bound (int, or float/sympy infinity) as torch's."""
    if isinstance(value, float) and math.isinf(value) or value in (sympy.oo, -sympy.oo):
        return infinity
    return int(value)
