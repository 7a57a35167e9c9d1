"""Linalg lowerings: sizes. A size's ``!tx.symint`` type holds its expression
(``!tx.symint<2*s77>``), so every size op becomes the index value of that
expression, read from the function's arguments once (``sizes.SizeTable``):
``tensor.dim`` of the argument carrying each symbol, arith for the rest."""

from __future__ import annotations

from xdsl.ir import SSAValue

from texport.dialects.tx import SymIntType

from .builder import Lowering
from .registry import lowers
from .types import UnsupportedType

SIZE_OPS = ("tx.constant", "tx.add", "tx.sub", "tx.mul", "tx.floordiv", "tx.mod", "tx.max", "tx.min",
            "aten.sym_size.int", "aten.sym_numel.default")


@lowers("scalars", *SIZE_OPS)
def size_value(lw: Lowering) -> list[SSAValue]:
    result = lw.op.results[0].type
    if not isinstance(result, SymIntType) or result.value is None:
        raise UnsupportedType(f"only integer sizes of known expression lower to index values, "
                              f"found {result}")
    return [lw.index(result.value)]
