"""Declarative rewrite rules, in the spirit of MLIR's DRR and tinygrad's UPat.

A rule is one line of data, with a one-line algebra comment above it::

    # x * 1 -> x
    mul_one: mul.Tensor($x, 1) -> $x  if same_type($x)

``name: source -> result [if condition, ...]`` where

- source: ``op(arg, ...)``: an op as the IR names it without its level
  (``add.Tensor``, ``view``), or level-qualified (``functional.view``); ``*``
  is any op, and then the result is ``*`` too (the same op at another level);
- a source argument: ``$x`` captures it (an SSA operand or a literal; a name
  used twice must see the same value), ``_`` is anything, ``...`` all the
  remaining arguments, a literal (``1``, ``2.0``, ``true``, ``none``,
  ``[1, 0]``, ``"tanh"``) must be equal, ``op(...)`` means the operand is the
  single result of that op;
- result: ``$x`` (the captured value replaces the op), or ``op(arg, ...)``,
  new ops whose arguments are captures, literals, nested ops, ``...`` (the
  remaining source arguments) or ``fn($a, ...)``, a named native function;
- condition: ``name($a, ...)``, a named check.

Conditions and native functions are registered by name (``@condition``,
``@native``): predicates are Python functions, never strings of code.

One rule language, two emitters. In IR, a table compiles to xDSL rewrite
patterns (``RuleTable.patterns``: one ``RulePattern`` per root op name) that
xDSL's ``PatternRewriteWalker`` applies, each rewrite going through the
``PatternRewriter`` (an ``IREmitter`` inserts the result ops); a table of
canonicalizations attaches to its ops (``register_canonicalizations``) for
stock ``canonicalize``. On a call being traced, ``match_values`` and ``build``
with a ``TracedEmitter`` make the result by calling ops, so the same table of
in-place → functional renamings serves functionalization and in-place calls
inside decompositions.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from texport.dialects.aten import AtenOp, op_class, result_type_for
from texport.dialects.canonicalization import CANONICALIZATIONS
from texport.dialects.names import set_name
from texport.dialects.registry import OPS, OpDef
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.tx import TensorType
from texport.tracer.handles import handle_for

# --------------------------------------------------------------------------
# Pattern trees
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Capture:
    name: str


@dataclass(frozen=True)
class Wild:
    pass


@dataclass(frozen=True)
class Rest:
    pass


@dataclass(frozen=True)
class Lit:
    value: Any


@dataclass(frozen=True)
class Native:
    name: str
    args: tuple[Any, ...]


@dataclass(frozen=True)
class OpPat:
    level: str | None
    name: str  # IR name without level (``add.Tensor``) or ``*``
    args: tuple[Any, ...]

    @functools.cached_property
    def checks_args(self) -> bool:
        """Whether the arguments are matched (not just ``...``); asked for every op visited."""
        return not (len(self.args) == 1 and isinstance(self.args[0], Rest))


class Match(dict[str, Any]):
    """Captured values by name; ``op`` is the matched root op (None when a
    traced call is matched)."""

    op: AtenOp | None = None


ConditionFn = Callable[..., bool]
NativeFn = Callable[..., Any]
CONDITIONS: dict[str, ConditionFn] = {}
NATIVES: dict[str, NativeFn] = {}


def condition(name: str) -> Callable[[ConditionFn], ConditionFn]:
    """Register a named side condition: ``fn(match, *argument values) -> bool``."""
    def wrap(fn: ConditionFn) -> ConditionFn:
        if name in CONDITIONS:
            raise ValueError(f"duplicate registrations of condition {name!r}")
        CONDITIONS[name] = fn
        return fn

    return wrap


def native(name: str) -> Callable[[NativeFn], NativeFn]:
    """Register a named native function computing a result argument."""
    def wrap(fn: NativeFn) -> NativeFn:
        if name in NATIVES:
            raise ValueError(f"duplicate registrations of native function {name!r}")
        NATIVES[name] = fn
        return fn

    return wrap


# --------------------------------------------------------------------------
# Parsing rule text
# --------------------------------------------------------------------------

_TOKEN = re.compile(r"""\s*(?:
    (?P<capture>\$[A-Za-z_][A-Za-z0-9_]*)
  | (?P<rest>\.\.\.)
  | (?P<float>-?\d+\.\d*(?:[eE][-+]?\d+)?|-?inf\b)
  | (?P<int>-?\d+)
  | (?P<str>"[^"]*")
  | (?P<name>[A-Za-z_*][A-Za-z0-9_.*]*)
  | (?P<punct>[(),\[\]])
  )""", re.X)
_WORDS = {"true": True, "false": False, "none": None}


class RuleSyntaxError(ValueError):
    pass


class _Tokens:
    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text.rstrip()):
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                raise RuleSyntaxError(f"unexpected {text[pos:].strip()[:10]!r} in rule pattern {text!r}")
            self.items.append((match.lastgroup or "", match.group(match.lastgroup or 0)))
            pos = match.end()
        self.index = 0

    def peek(self) -> tuple[str, str] | None:
        return self.items[self.index] if self.index < len(self.items) else None

    def next(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise RuleSyntaxError(f"rule pattern {self.text!r} ends too early")
        self.index += 1
        return token

    def take(self, punct: str) -> bool:
        token = self.peek()
        if token == ("punct", punct):
            self.index += 1
            return True
        return False

    def expect(self, punct: str) -> None:
        if not self.take(punct):
            raise RuleSyntaxError(f"expected {punct!r} in rule pattern {self.text!r}")


def _parse_term(tokens: _Tokens) -> Any:
    kind, text = tokens.next()
    if kind == "capture":
        return Capture(text[1:])
    if kind == "rest":
        return Rest()
    if kind == "int":
        return Lit(int(text))
    if kind == "float":
        return Lit(float(text))
    if kind == "str":
        return Lit(text[1:-1])
    if kind == "punct" and text == "[":
        items = []
        while not tokens.take("]"):
            items.append(_parse_term(tokens))
            if not tokens.take(","):
                tokens.expect("]")
                break
        if all(isinstance(i, Lit) for i in items):
            return Lit([i.value for i in items])
        return Native("list", tuple(items))
    if kind == "name":
        if text == "_":
            return Wild()
        if text in _WORDS and tokens.peek() != ("punct", "("):
            return Lit(_WORDS[text])
        tokens.expect("(")
        args = []
        while not tokens.take(")"):
            args.append(_parse_term(tokens))
            if not tokens.take(","):
                tokens.expect(")")
                break
        return _op_or_native(text, tuple(args))
    raise RuleSyntaxError(f"unexpected {text!r} in rule pattern {tokens.text!r}")


def _op_or_native(name: str, args: tuple[Any, ...]) -> Any:
    if name in NATIVES:
        return Native(name, args)
    level, _, rest = name.partition(".")
    if level in ("training", "functional", "core") and rest:
        return OpPat(level, rest, args)
    return OpPat(None, name, args)


def _parse_pattern(text: str) -> Any:
    tokens = _Tokens(text)
    term = _parse_term(tokens)
    if tokens.peek() is not None:
        raise RuleSyntaxError(f"unexpected {tokens.peek()[1]!r} after rule pattern {text!r}")
    return term


_RULE_LINE = re.compile(r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*:\s*(?P<source>.+?)\s*->\s*(?P<result>.+?)"
                        r"(?:\s+if\s+(?P<conditions>.+))?\s*$")


def _parse_conditions(text: str | None) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    if not text:
        return ()
    tokens = _Tokens(text)
    conditions = []
    while tokens.peek() is not None:
        kind, name = tokens.next()
        if kind != "name":
            raise RuleSyntaxError(f"expected a condition name in {text!r}")
        args: list[Any] = []
        if tokens.take("("):
            while not tokens.take(")"):
                args.append(_parse_term(tokens))
                if not tokens.take(","):
                    tokens.expect(")")
                    break
        if name not in CONDITIONS:
            raise RuleSyntaxError(f"unknown condition {name!r} (known: {', '.join(sorted(CONDITIONS))})")
        conditions.append((name, tuple(args)))
        tokens.take(",")
    return tuple(conditions)


_OP_NAME_CACHE: dict[str, OpDef] = {}


def _OP_NAMES() -> dict[str, OpDef]:  # noqa: N802 - a lazily built constant
    if not _OP_NAME_CACHE:
        for key in OPS.keys():
            op_def = OPS[key]
            _OP_NAME_CACHE[op_def.ir_name] = op_def
    return _OP_NAME_CACHE


def op_def_named(name: str) -> OpDef:
    op_def = _OP_NAMES().get(name)
    if op_def is None:
        raise RuleSyntaxError(f"unknown op {name!r} in a rule")
    return op_def


# --------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------


class Emitter(Protocol):
    def emit(self, level: str | None, op_def: OpDef, values: list[Any], same_as: AtenOp | None) -> Any:
        """Make the op ``op_def`` on ``values``; return its result (or results)."""
        ...


@dataclass(frozen=True)
class Rule:
    name: str
    source: OpPat
    result: Any
    conditions: tuple[tuple[str, tuple[Any, ...]], ...]
    comment: str = ""

    # ---- matching -----------------------------------------------------------

    def match_op(self, op: AtenOp) -> Match | None:
        source = self.source
        if not _head_matches(source, op):
            return None
        match = Match()
        match.op = op
        if not source.checks_args:
            match["..."] = None  # forwarded lazily from the op
        elif not _match_args(source.args, op.arguments(), match):
            return None
        return match if self._conditions_hold(match) else None

    def match_values(self, values: list[Any]) -> Match | None:
        """Match a call being traced (its bound argument values)."""
        match = Match()
        if not _match_args(self.source.args, values, match):
            return None
        return match if self._conditions_hold(match) else None

    def _conditions_hold(self, match: Match) -> bool:
        for name, args in self.conditions:
            if not CONDITIONS[name](match, *[_value(a, match, None, None) for a in args]):
                return False
        return True

    # ---- building -----------------------------------------------------------

    def build(self, match: Match, emitter: Emitter) -> Any:
        return _value(self.result, match, emitter, match.op)

    @functools.cached_property
    def is_retag(self) -> bool:
        """The result is the same op at another level, on the same arguments (``*(...)``)."""
        result = self.result
        return (isinstance(result, OpPat) and result.name == "*" and len(result.args) == 1
                and isinstance(result.args[0], Rest))

    def __str__(self) -> str:
        return self.name


def _head_matches(pattern: OpPat, op: AtenOp) -> bool:
    if pattern.level is not None and op.level != pattern.level:
        return False
    return pattern.name == "*" or op.op_def.ir_name == pattern.name


def _match_args(patterns: Sequence[Any], values: Sequence[Any], match: Match) -> bool:
    for index, pattern in enumerate(patterns):
        if isinstance(pattern, Rest):
            match["..."] = list(values[index:])
            return True
        if index >= len(values) or not _match_one(pattern, values[index], match):
            return False
    return len(patterns) == len(values)


def _match_one(pattern: Any, value: Any, match: Match) -> bool:
    if isinstance(pattern, Wild):
        return True
    if isinstance(pattern, Capture):
        if pattern.name in match:
            return _same(match[pattern.name], value)
        match[pattern.name] = value
        return True
    if isinstance(pattern, Lit):
        return not isinstance(value, SSAValue) and _literal_equal(pattern.value, value)
    if isinstance(pattern, OpPat):
        owner = getattr(value, "owner", None)
        if not isinstance(owner, AtenOp) or len(owner.results) != 1 or not _head_matches(pattern, owner):
            return False
        return _match_args(pattern.args, owner.arguments(), match) if pattern.checks_args else True
    return False


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, SSAValue) or isinstance(b, SSAValue):
        return a is b
    return _literal_equal(a, b)


def _literal_equal(expected: Any, value: Any) -> bool:
    if isinstance(expected, bool) or isinstance(value, bool):
        return type(expected) is type(value) and expected == value
    if isinstance(expected, list):
        return isinstance(value, list) and len(expected) == len(value) and all(
            _literal_equal(e, v) for e, v in zip(expected, value))
    if expected is None or value is None:
        return expected is value
    try:
        return bool(expected == value)
    except TypeError:
        return False


def _value(term: Any, match: Match, emitter: Emitter | None, root: AtenOp | None) -> Any:
    if isinstance(term, Capture):
        if term.name not in match:
            raise RuleSyntaxError(f"the capture ${term.name} is not bound by the source pattern")
        return match[term.name]
    if isinstance(term, Lit):
        return list(term.value) if isinstance(term.value, list) else term.value
    if isinstance(term, Native):
        args = [_value(a, match, emitter, root) for a in term.args]
        return args if term.name == "list" else NATIVES[term.name](*args)
    if isinstance(term, OpPat):
        if emitter is None:
            raise RuleSyntaxError("an op pattern cannot be a condition argument")
        values: list[Any] = []
        for arg in term.args:
            if isinstance(arg, Rest):
                rest = match.get("...")
                values.extend(rest if rest is not None else root.arguments())
            else:
                values.append(_value(arg, match, emitter, root))
        if term.name == "*":
            assert root is not None
            return emitter.emit(term.level, root.op_def, values, root)
        op_def = op_def_named(term.name)
        return emitter.emit(term.level, op_def, _with_defaults(op_def, values), None)
    raise RuleSyntaxError(f"cannot build {term!r}")


def _with_defaults(op_def: OpDef, values: list[Any]) -> list[Any]:
    """Trailing arguments a result pattern leaves out take their defaults."""
    arguments = op_def.schema.arguments
    for arg in arguments[len(values):]:
        if not arg.has_default:
            raise RuleSyntaxError(f"a rule gives {len(values)} arguments to {op_def.key}; '{arg.name}' has no default")
        values.append(list(arg.default) if isinstance(arg.default, list) else arg.default)
    return values


def parse_rule(line: str, comment: str = "") -> Rule:
    match = _RULE_LINE.match(line)
    if match is None:
        raise RuleSyntaxError(f"a rule reads 'name: source -> result [if condition, ...]', got {line!r}")
    source = _parse_pattern(match["source"])
    if not isinstance(source, OpPat):
        raise RuleSyntaxError(f"the source of rule {match['name']!r} must be an op pattern")
    result = _parse_pattern(match["result"])
    for pattern in (source, result):
        _check_op_names(pattern)
    return Rule(match["name"], source, result, _parse_conditions(match["conditions"]), comment)


def _check_op_names(term: Any) -> None:
    if isinstance(term, OpPat):
        if term.name != "*":
            op_def_named(term.name)
        for arg in term.args:
            _check_op_names(arg)
    elif isinstance(term, Native):
        for arg in term.args:
            _check_op_names(arg)


class RuleTable:
    """A named table of rules, from text: one rule per line, ``#`` comments
    above a rule are its algebra comment. Rules are indexed by root op name;
    ``levels`` are the levels whose ops they rewrite in IR (None: any)."""

    def __init__(self, name: str, text: str = "", rules: Iterable[Rule] = (), *,
                 levels: tuple[str, ...] | None = None) -> None:
        self.name = name
        self.levels = levels
        self.rules: list[Rule] = []
        self.by_root: dict[str, list[Rule]] = {}
        self.wildcards: list[Rule] = []
        comment: list[str] = []
        for raw in text.splitlines():
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#"):
                comment.append(line[1:].strip())
                continue
            self.add(parse_rule(line, " ".join(comment)))
            comment = []
        for rule in rules:
            self.add(rule)

    def add(self, rule: Rule) -> None:
        if any(r.name == rule.name for r in self.rules):
            raise ValueError(f"duplicate rule {rule.name!r} in {self.name}")
        self.rules.append(rule)
        if rule.source.name == "*":
            self.wildcards.append(rule)
        else:
            self.by_root.setdefault(rule.source.name, []).append(rule)

    def rules_for(self, ir_name: str) -> list[Rule]:
        specific = self.by_root.get(ir_name)
        if specific is None:
            return self.wildcards
        return specific + self.wildcards

    def patterns(self) -> list[RewritePattern]:
        """The table as xDSL rewrite patterns: one per root op name, trying its
        rules in order, then one for the rules of any op."""
        patterns: list[RewritePattern] = [RulePattern(root, rules, self.levels)
                                          for root, rules in self.by_root.items()]
        if self.wildcards:
            patterns.append(RulePattern(None, self.wildcards, self.levels))
        return patterns

    def rule_named(self, name: str) -> Rule:
        return next(r for r in self.rules if r.name == name)

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)


# --------------------------------------------------------------------------
# Rewriting IR: rules as xDSL rewrite patterns
# --------------------------------------------------------------------------


class RulePattern(RewritePattern):
    """Rewrites an op with the first of its rules that matches."""

    def __init__(self, root: str | None, rules: Sequence[Rule], levels: tuple[str, ...] | None = None) -> None:
        self.root = root  # the IR name the rules' source names (None: any op)
        self.rules = tuple(rules)
        self.levels = levels

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, AtenOp) or (self.root is not None and op.op_def.ir_name != self.root):
            return
        if self.levels is not None and op.level not in self.levels:
            return
        for rule in self.rules:
            match = rule.match_op(op)
            if match is not None:
                rewrite_op(rule, match, op, rewriter)
                return


@dataclass
class IREmitter:
    """Inserts a rule's result ops before ``root`` through the rewriter, at the
    root's level (or the level a result pattern names); result types come from
    shape rules, or from the root op for ``*`` results."""

    rewriter: PatternRewriter
    root: AtenOp
    made: list[Operation] = field(default_factory=list)

    def emit(self, level: str | None, op_def: OpDef, values: list[Any], same_as: AtenOp | None) -> Any:
        root = self.root
        cls = op_class(op_def, level or root.level)
        if same_as is not None:
            new = cls.create(operands=same_as.operands, result_types=same_as.result_types,
                             properties=dict(same_as.properties), attributes=dict(same_as.attributes),
                             location=same_as.location)
        else:
            new = cls.build(values, _result_types(op_def, values), location=root.location)
        self.rewriter.insert(new, InsertPoint.before(root))
        self.made.append(new)
        if len(new.results) == 1 and same_as is None:
            return new.results[0]
        return list(new.results)


def _result_types(op_def: OpDef, values: list[Any]) -> list[Any]:
    rule = SHAPE_RULES[op_def.key]
    expected = rule(*[_meta(v) for v in values])
    if isinstance(expected, (tuple, list)):
        return [result_type_for(e) for e in expected]
    return [result_type_for(expected)]


def _meta(value: Any) -> Any:
    if isinstance(value, SSAValue):
        if isinstance(value.type, TensorType):
            return value.type.meta
        return value.type.value
    if isinstance(value, list):
        return [_meta(v) for v in value]
    return value


def rewrite_op(rule: Rule, match: Match, op: AtenOp, rewriter: PatternRewriter) -> None:
    """Replace ``op`` by the rule's result, through ``rewriter``; the values
    made keep the names of the results they replace (torch's names)."""
    if rule.is_retag:  # the same op at another level: no rebuild
        op.move_to(rule.result.level or op.level)
        rewriter.notify_op_modified(op)
        return
    emitter = IREmitter(rewriter, op)
    result = rule.build(match, emitter)
    results = result if isinstance(result, list) else [result]
    if len(results) != len(op.results):
        raise RuleSyntaxError(f"rule {rule.name} makes {len(results)} values for {len(op.results)} results of {op.name}")
    for old, new in zip(op.results, results):
        if isinstance(new, SSAValue) and new.owner in emitter.made and old.name_hint:
            set_name(new, old.name_hint)
    rewriter.replace(op, [], results)


def rule_walker(table: RuleTable, *, revisit: bool = True) -> PatternRewriteWalker:
    """xDSL's walker applying ``table``'s patterns until none applies
    (``revisit=False``: one forward walk, for rules whose results no rule of
    the table rewrites again)."""
    patterns = table.patterns()
    # one pattern needs no applier in between (the legalizations: a call less per op)
    if len(patterns) == 1:
        return PatternRewriteWalker(patterns[0], apply_recursively=revisit)
    return PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False), apply_recursively=revisit)


def register_canonicalizations(table: RuleTable) -> None:
    """Attach ``table``'s rules to their root ops as canonicalization patterns
    (one per op), so that stock ``canonicalize`` applies them."""
    if table.wildcards:
        raise RuleSyntaxError(f"a canonicalization names its root op; {table.wildcards[0].name} matches any op")
    for root, rules in table.by_root.items():
        CANONICALIZATIONS.register(op_def_named(root).key, RulePattern(root, rules, table.levels))


# --------------------------------------------------------------------------
# Rewriting a call being traced
# --------------------------------------------------------------------------


@dataclass
class TracedEmitter:
    """Builds a rule's result by calling ops on traced values (the tracer of a
    decomposition or functionalization rule)."""

    tracer: Any

    def emit(self, level: str | None, op_def: OpDef, values: list[Any], same_as: AtenOp | None) -> Any:
        return self.tracer.call(handle_for(op_def.key), values)
