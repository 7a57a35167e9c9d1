"""Sizes as ``index`` values: a symbol is read once per function, at its entry,
from the first argument whose dim it is (``tensor.dim``); an expression of
symbols (``2*s0``, ``(s0//2)``) becomes arith on those reads, also at the entry
and once per expression, so every op of the body can use it."""

from __future__ import annotations

from typing import Any

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, UnrealizedConversionCastOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from texport.dialects import symbolic
from texport.dialects.tx import TensorType as TxTensorType

from .types import tensor_type


class SizeError(ValueError):
    """A size the lowering cannot compute from the function's arguments."""


def index_constant(value: int) -> arith.ConstantOp:
    return arith.ConstantOp.from_int_and_width(value, IndexType())


class SizeTable:
    """The ``index`` value of each dim of one function, made at its entry on first use."""

    def __init__(self, func: FuncOp) -> None:
        self.func = func
        self._values: dict[Any, SSAValue] = {}
        self._last: Operation | None = None  # the entry op made last: the next goes after it

    def size(self, dim: Any) -> SSAValue:
        if isinstance(dim, int):
            return self._value_of(dim, lambda: self._insert(index_constant(dim)).result)
        return self._value_of(dim, lambda: self._expression(dim))

    def _value_of(self, key: Any, make: Any) -> SSAValue:
        found = self._values.get(key)
        if found is None:
            found = self._values[key] = make()
        return found

    def at_entry(self, op: Operation) -> Operation:
        """Insert ``op`` at the function's entry, after the sizes read so far."""
        return self._insert(op)

    def _insert(self, op: Operation) -> Operation:
        block = self.func.body.block
        point = InsertPoint.after(self._last) if self._last is not None else InsertPoint.at_start(block)
        Rewriter.insert_op(op, point)
        self._last = op
        return op

    def _expression(self, expr: Any) -> SSAValue:
        sympy = symbolic.sympy
        if expr.is_Symbol:
            return self._read(expr)
        if expr.is_Integer:
            return self.size(int(expr))
        folds = {sympy.Add: arith.AddiOp, sympy.Mul: arith.MuliOp, sympy.Max: arith.MaxSIOp,
                 sympy.Min: arith.MinSIOp}
        for kind, op_class in folds.items():
            if isinstance(expr, kind):
                values = [self.size(_as_dim(a)) for a in expr.args]
                result = values[0]
                for value in values[1:]:
                    result = self._insert(op_class(result, value)).result
                return result
        binary = {"FloorDiv": arith.FloorDivSIOp, "Mod": arith.RemSIOp}
        op_class = binary.get(type(expr).__name__)
        if op_class is not None:
            lhs, rhs = (self.size(_as_dim(a)) for a in expr.args)
            return self._insert(op_class(lhs, rhs)).result
        if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and expr.exp > 0:
            base = self.size(_as_dim(expr.base))
            result = base
            for _ in range(int(expr.exp) - 1):
                result = self._insert(arith.MuliOp(result, base)).result
            return result
        raise SizeError(f"no index arithmetic for the size {symbolic.dim_str(expr)}")

    def _read(self, symbol: Any) -> SSAValue:
        """The symbol's value: the dim of the first argument that is the symbol itself,
        else solved from the first linear one (``4*s0 + 2``: ``(dim - 2) / 4``)."""
        dims = list(self._argument_dims())
        for arg, axis, dim in dims:
            if dim == symbol:
                return self._dim(arg, axis)
        for arg, axis, dim in dims:
            solved = _linear_in(dim, symbol)
            if solved is not None:
                scale, offset = solved
                value = self._dim(arg, axis)
                if offset:
                    value = self._insert(arith.SubiOp(value, self.size(offset))).result
                if scale != 1:
                    value = self._insert(arith.DivSIOp(value, self.size(scale))).result
                return value
        raise SizeError(f"the size {symbol} is no dim of an argument of @{self.func.sym_name.data}: "
                        f"only sizes the inputs carry can be computed (data-dependent sizes cannot)")

    def _argument_dims(self) -> Any:
        for arg in self.func.body.block.args:
            if isinstance(arg.type, TxTensorType):
                for axis, dim in enumerate(arg.type.shape):
                    if not isinstance(dim, int):
                        yield arg, axis, dim

    def _dim(self, arg: SSAValue, axis: int) -> SSAValue:
        cast = self._insert(UnrealizedConversionCastOp.get([arg], [tensor_type(arg.type)]))
        index = self.size(axis)
        return self._insert(tensor.DimOp(cast.results[0], index)).result


def _linear_in(dim: Any, symbol: Any) -> tuple[int, int] | None:
    """(a, b) when ``dim`` is ``a*symbol + b`` with integers a != 0 and b, else None."""
    if dim.free_symbols != {symbol}:
        return None
    polynomial = symbolic.sympy.Poly(dim, symbol) if dim.is_polynomial(symbol) else None
    if polynomial is None or polynomial.degree() != 1:
        return None
    scale, offset = (polynomial.coeff_monomial(symbol), polynomial.coeff_monomial(1))
    if not (scale.is_Integer and offset.is_Integer):
        return None
    return int(scale), int(offset)


def _as_dim(value: Any) -> Any:
    return int(value) if getattr(value, "is_Integer", False) else value
