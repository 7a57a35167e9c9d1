"""The rule tables: training → functional renamings, legalizations and
canonicalizations, as data in the pattern language of ``patterns.py``.

Each table is one concern. Named side conditions and native functions are
defined first, then the tables that use them.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import SSAValue

from texport.dialects.registry import OPS, functional_twin
from texport.dialects.tx import TensorType

from .legality import writes_something
from .patterns import (
    Match,
    OpPat,
    Rest,
    Rule,
    RuleTable,
    condition,
    native,
    register_canonicalizations,
)

# --------------------------------------------------------------------------
# Side conditions
# --------------------------------------------------------------------------


@condition("same_type")
def _same_type(match: Match, value: Any) -> bool:
    """The value already has the type of the op's result (so it can replace it)."""
    op = match.op
    return op is not None and isinstance(value, SSAValue) and value.type == op.results[0].type


@condition("is_core")
def _is_core(match: Match) -> bool:
    return match.op is not None and match.op.op_def.is_core


@condition("writes_nothing")
def _writes_nothing(match: Match) -> bool:
    return match.op is not None and not writes_something(match.op)


@condition("is_identity")
def _is_identity(match: Match, perm: Any) -> bool:
    return isinstance(perm, list) and perm == list(range(len(perm)))


@condition("is_tensor")
def _is_tensor(match: Match, value: Any) -> bool:
    return isinstance(value, SSAValue) and isinstance(value.type, TensorType)


# --------------------------------------------------------------------------
# Native functions (computed result arguments)
# --------------------------------------------------------------------------


@native("compose")
def _compose(first: list[int], then: list[int]) -> list[int]:
    """permute(permute(x, p), q) == permute(x, [p[i] for i in q])."""
    return [first[i] for i in then]


@native("swap")
def _swap(value: SSAValue, dim0: int, dim1: int) -> list[int]:
    """The permutation transpose(x, dim0, dim1) applies."""
    rank = len(value.type.shape)
    perm = list(range(rank))
    a, b = dim0 % rank if rank else 0, dim1 % rank if rank else 0
    perm[a], perm[b] = perm[b], perm[a]
    return perm


@native("dtype_of")
def _dtype_of(value: Any) -> Any:
    """The element type of a tensor (an SSA value or a traced tensor)."""
    value_type = getattr(value, "type", None)
    return value_type.dtype if isinstance(value_type, TensorType) else value.dtype


@native("minus")
def _minus(a: Any, b: Any) -> Any:
    return a - b


# --------------------------------------------------------------------------
# Training → functional: in-place ops become their functional forms
# --------------------------------------------------------------------------

# Most in-place ops are ``name_.overload`` of ``name.overload`` with the same
# arguments: those renamings are derived from the schemas below. These are the
# exceptions, where the functional form has another name or other arguments.
_INPLACE_EXCEPTIONS = """
# x **= e is x = pow(x, e) (pow.Scalar is scalar ** tensor)
pow_scalar: pow_.Scalar($x, $e) -> pow.Tensor_Scalar($x, $e)
# x **= t is x = pow(x, t)
pow_tensor: pow_.Tensor($x, $e) -> pow.Tensor_Tensor($x, $e)
# x //= t is x = floor_divide(x, t)
floor_divide_tensor: floor_divide_.Tensor($x, $o) -> floor_divide($x, $o)
# x.zero_() is x = fill(x, 0)
zero: zero_($x) -> fill.Scalar($x, 0)
# x.bernoulli_(p) is x = bernoulli(x, p)
bernoulli_float: bernoulli_.float($x, $p, $g) -> bernoulli.p($x, $p, $g)
# x.uniform_(a, b) is x = rand_like(x) * (b - a) + a
uniform: uniform_($x, $a, $b, _) -> add.Tensor(mul.Tensor(rand_like($x), minus($b, $a)), $a)
# x.normal_(m, s) is x = randn_like(x) * s + m
normal: normal_($x, $m, $s, _) -> add.Tensor(mul.Tensor(randn_like($x), $s), $m)
# x.bernoulli_(p) is x = (rand_like(x) < p).to(dtype(x)) for a tensor of probabilities p
bernoulli_tensor: bernoulli_.Tensor($x, $p, _) -> _to_copy(lt.Tensor(rand_like($x), $p), dtype_of($x))
# x.detach_() changes nothing a program can see
detach: detach_($x) -> $x
# x.polygamma_(n) is x = polygamma(n, x)
polygamma: polygamma_($x, $n) -> polygamma($n, $x)
# x.float_power_(t) is x = pow(x, t): x is already double
float_power_tensor: float_power_.Tensor($x, $e) -> pow.Tensor_Tensor($x, $e)
# x.float_power_(s) is x = pow(x, s): x is already double
float_power_scalar: float_power_.Scalar($x, $e) -> pow.Tensor_Scalar($x, $e)
# x.ldexp_(e) is x = ldexp(x, e)
ldexp: ldexp_($x, $e) -> ldexp.Tensor($x, $e)
# x.selu_() is x = elu(x, α, scale) with selu's constants (torch's selu_ is elu_ underneath)
selu: selu_($x) -> elu($x, 1.6732632423543772, 1.0507009873554805)
"""

def _derived_renamings() -> list[Rule]:
    """``name_.overload(...) -> name.overload(...)`` for each in-place op whose
    functional twin exists with the same arguments."""
    rules = []
    for key in OPS.keys():
        op_def = OPS[key]
        twin = functional_twin(op_def)
        if twin is None:
            continue
        name = op_def.ir_name.replace(".", "_").rstrip("_") or "inplace"
        rules.append(Rule(name, OpPat(None, op_def.ir_name, (Rest(),)), OpPat(None, twin.ir_name, (Rest(),)), (),
                          f"x.{op_def.name}(...) is x = {twin.name}(x, ...)"))
    return rules


def _inplace_table() -> RuleTable:
    table = RuleTable("inplace", _INPLACE_EXCEPTIONS)
    taken = {r.source.name for r in table.rules}
    for rule in _derived_renamings():
        if rule.source.name not in taken:
            table.add(rule)
    return table


INPLACE = _inplace_table()


# --------------------------------------------------------------------------
# Legalizations: an op moves to the next level unchanged
# --------------------------------------------------------------------------

LEGALIZE_FUNCTIONAL = RuleTable("legalize-functional", """
# an op that writes nothing is the same op one level down
to_functional: training.*(...) -> functional.*(...) if writes_nothing
""")

LEGALIZE_CORE = RuleTable("legalize-core", """
# an op of the core set is the same op in the core dialect
to_core: functional.*(...) -> core.*(...) if is_core
""")


# --------------------------------------------------------------------------
# Canonicalizations of functional and core ops: nothing is written there, so
# a value and a copy of it are interchangeable (a training-level clone may be
# written later: training ops are left alone). Each rule is a canonicalization
# pattern of its root op, which stock ``canonicalize`` applies.
# --------------------------------------------------------------------------

CANONICALIZE = RuleTable("canonicalize", levels=("functional", "core"), text="""
# x * 1 -> x
mul_one: mul.Tensor($x, 1) -> $x if same_type($x)
# 1 * x -> x
one_mul: mul.Tensor(1, $x) -> $x if same_type($x)
# x + 0 -> x (alpha does not matter)
add_zero: add.Tensor($x, 0, _) -> $x if same_type($x)
# 0 + x -> x
zero_add: add.Tensor(0, $x, 1) -> $x if same_type($x)
# x - 0 -> x
sub_zero: sub.Tensor($x, 0, _) -> $x if same_type($x)
# x / 1 -> x
div_one: div.Tensor($x, 1) -> $x if same_type($x)
# view(view(x, a), b) -> view(x, b)
view_of_view: view(view($x, _), $shape) -> view($x, $shape)
# view(x, shape(x)) -> x
view_noop: view($x, _) -> $x if same_type($x)
# permute(permute(x, p), q) -> permute(x, p[q])
permute_of_permute: permute(permute($x, $p), $q) -> permute($x, compose($p, $q))
# permute(x, identity) -> x
permute_identity: permute($x, $p) -> $x if is_identity($p)
# transpose(transpose(x, a, b), c, d) -> permute(x, swap(a, b)[swap(c, d)]), the identity when equal
transpose_of_transpose: transpose.int(transpose.int($x, $a, $b), $c, $d) -> permute($x, compose(swap($x, $a, $b), swap($x, $c, $d)))
# expand(x, shape(x)) -> x
expand_noop: expand($x, _, _) -> $x if same_type($x)
# clone(x) -> x when nothing writes either
clone_noop: clone($x, _) -> $x if same_type($x)
# alias(x) -> x
alias_noop: alias($x) -> $x
# x.to(dtype(x)) -> x
to_copy_noop: _to_copy($x, none, none, none, none, false, none) -> $x if same_type($x)
# slice(x, d, 0, end >= size) -> x
slice_noop: slice.Tensor($x, _, 0, _, 1) -> $x if same_type($x)
# neg(neg(x)) -> x
neg_neg: neg(neg($x)) -> $x
""")



def register_canonicalization_patterns() -> None:
    """Start-up stage "canonicalizations" (dialects/bootstrap.py): CANONICALIZE's
    rules become the canonicalization patterns of their root ops."""
    register_canonicalizations(CANONICALIZE)
