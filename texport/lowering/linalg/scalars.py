"""Linalg lowerings: sizes. A size's ``!tx.symint`` type holds its expression
(``!tx.symint<2*s77>``), so every size op becomes the index value of that
expression, read from the function's arguments once (``sizes.SizeTable``):
``tensor.dim`` of the argument carrying each symbol, arith for the rest.
Size comparisons are ``arith.cmpi`` on them, torch's runtime asserts
``cf.assert``; the program's range constraints become ``cf.assert``s at the
function's entry (IREE checks them when the function is called)."""

from __future__ import annotations

import re

from xdsl.dialects import arith, cf, tensor
from xdsl.dialects.builtin import IntegerType, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import SSAValue

from texport.dialects import symbolic
from texport.dialects.tx import SymIntType

from .builder import Lowering, conversion_ops
from .registry import lowers
from .sizes import SizeError, SizeTable, index_constant
from .types import UnsupportedType

SIZE_OPS = ("tx.constant", "tx.add", "tx.sub", "tx.mul", "tx.floordiv", "tx.mod", "tx.max", "tx.min",
            "aten.sym_size.int", "aten.sym_numel.default")

# tx.cmp's predicates as arith.cmpi's, on signed index values
_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}


@lowers("scalars", *SIZE_OPS)
def size_value(lw: Lowering) -> list[SSAValue]:
    result = lw.op.results[0].type
    if not isinstance(result, SymIntType) or result.value is None:
        raise UnsupportedType(f"only integer sizes of known expression lower to index values, "
                              f"found {result}")
    return [lw.index(result.value)]


@lowers("scalars", "tx.cmp")
def compare(lw: Lowering) -> list[SSAValue]:
    op = lw.op
    predicate = _PREDICATES[op.predicate.data]
    return [lw.insert(arith.CmpiOp(lw.value(op.lhs), lw.value(op.rhs), predicate)).result]


@lowers("scalars", "tx.assert")
def assert_(lw: Lowering) -> list[SSAValue]:
    lw.insert(cf.AssertOp(lw.value(lw.op.condition), lw.op.message))
    return []


@lowers("scalars", "aten._assert_async.msg", "aten._assert_async.default")
def assert_tensor(lw: Lowering) -> list[SSAValue]:
    """torch's assert on a one-element tensor (``torch._assert_async``): its element,
    nonzero, is a ``cf.assert`` (IREE fails the call with the message)."""
    condition, *message = lw.op.arguments()
    value = lw.value(condition)
    element = lw.insert(tensor.ExtractOp(value, [lw.index(0) for _ in value.type.get_shape()],
                                         value.type.element_type)).results[0]
    truth = element
    for op in conversion_ops(element, IntegerType(1)):
        truth = lw.insert(op).results[0]
    text = message[0] if message else "Expected Tensor with single nonzero value, but got zero"
    lw.insert(cf.AssertOp(truth, StringAttr(text)))
    return []


_RANGE = re.compile(r"VR\[(-?\d+|-?int_oo|-?oo), (-?\d+|int_oo|oo)\]")


def assert_ranges(func: FuncOp) -> None:
    """A ``cf.assert`` at the entry for each bound of the function's range
    constraints (``tx.range_constraints``) that a size of its inputs can break."""
    ranges = func.attributes.get("tx.range_constraints")
    if ranges is None:
        return
    sizes = SizeTable(func)
    for key, text in ranges.data.items():
        match = _RANGE.fullmatch(text.data)
        if match is None:
            continue
        try:
            value = sizes.size(symbolic.parse_dim(key))
        except SizeError:  # an unbacked size: its own asserts follow the op that makes it
            continue
        low, high = (int(b) if b.lstrip("-").isdigit() else None for b in match.groups())
        for bound, predicate, words in ((low, "sge", "at least"), (high, "sle", "at most")):
            if bound is None or (predicate == "sge" and bound <= 0):
                continue
            limit = sizes.at_entry(index_constant(bound)).result
            ok = sizes.at_entry(arith.CmpiOp(value, limit, predicate)).result
            sizes.at_entry(cf.AssertOp(ok, StringAttr(f"the size {key} must be {words} {bound}")))
