"""torch's operator schema grammar: ``name.overload(args) -> returns``.

One schema string per op is the single source of truth (DESIGN.md): argument
kinds, defaults, keyword-only markers and alias annotations all come from it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any


class SchemaError(ValueError):
    """A schema string that does not follow torch's grammar."""


class _Missing:
    def __repr__(self) -> str:
        return "<no default>"


NO_DEFAULT: Any = _Missing()

BASE_TYPES = frozenset({
    "Tensor", "int", "SymInt", "float", "SymFloat", "bool", "SymBool", "str", "Scalar",
    "ScalarType", "Layout", "Device", "MemoryFormat", "Generator", "Dimname", "Storage",
    "Stream", "Any", "complex", "t",
})


@dataclass(frozen=True)
class AliasInfo:
    """``(a)``, ``(a!)``, ``(a -> *)``: the alias set(s) and whether it is written."""

    before: frozenset[str]
    after: frozenset[str]
    is_write: bool

    def __str__(self) -> str:
        text = "|".join(sorted(self.before))
        if self.after != self.before:
            text += " -> " + "|".join(sorted(self.after))
        return text + ("!" if self.is_write else "")


@dataclass(frozen=True)
class ArgType:
    """A schema type: base name, ``?``, list-ness, fixed list size, ``Tensor?[]``."""

    base: str
    optional: bool = False
    is_list: bool = False
    list_size: int | None = None
    element_optional: bool = False

    @property
    def is_tensor_like(self) -> bool:
        """Tensor, Tensor?, Tensor[], Tensor?[]: values that become SSA operands."""
        return self.base == "Tensor"

    def render(self, alias: AliasInfo | None = None) -> str:
        text = self.base
        if alias is not None:
            text += f"({alias})"
        if self.element_optional:
            text += "?"
        if self.is_list:
            text += f"[{self.list_size if self.list_size is not None else ''}]"
        if self.optional:
            text += "?"
        return text


@dataclass(frozen=True)
class Argument:
    name: str
    type: ArgType
    default: Any = NO_DEFAULT
    kwarg_only: bool = False
    alias: AliasInfo | None = None
    default_text: str | None = None

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def is_write(self) -> bool:
        return self.alias is not None and self.alias.is_write

    def __str__(self) -> str:
        text = f"{self.type.render(self.alias)} {self.name}"
        return text if self.default_text is None else f"{text}={self.default_text}"


@dataclass(frozen=True)
class Return:
    name: str | None
    type: ArgType
    alias: AliasInfo | None = None

    def __str__(self) -> str:
        text = self.type.render(self.alias)
        return text if self.name is None else f"{text} {self.name}"


@dataclass(frozen=True)
class OpSchema:
    namespace: str
    name: str
    overload_name: str
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]
    returns_tuple: bool

    @property
    def qualified_name(self) -> str:
        """``add.Tensor``; ``.default`` is dropped as in the IR op names."""
        return self.name if self.overload_name in ("", "default") else f"{self.name}.{self.overload_name}"

    @property
    def overload(self) -> str:
        return self.overload_name or "default"

    @functools.cached_property
    def is_mutable(self) -> bool:
        """torch's FunctionSchema.is_mutable: some argument is written (asked for every op a
        pass visits: computed once)."""
        return any(arg.is_write for arg in self.arguments)

    @property
    def mutated_arguments(self) -> tuple[Argument, ...]:
        return tuple(arg for arg in self.arguments if arg.is_write)

    @property
    def is_view(self) -> bool:
        """Returns alias an input without writing it (view, transpose, ...)."""
        return not self.is_mutable and any(r.alias is not None for r in self.returns)

    @functools.cached_property
    def binding(self) -> Binding:
        """How a call's arguments bind to this schema (bind_arguments), worked out once."""
        return Binding(self)

    @property
    def positional(self) -> tuple[Argument, ...]:
        return tuple(arg for arg in self.arguments if not arg.kwarg_only)

    def argument(self, name: str) -> Argument:
        for arg in self.arguments:
            if arg.name == name:
                return arg
        raise KeyError(f"{self.namespace}::{self.qualified_name} has no argument {name!r}")

    def __str__(self) -> str:
        parts: list[str] = []
        star_done = False
        for arg in self.arguments:
            if arg.kwarg_only and not star_done:
                parts.append("*")
                star_done = True
            parts.append(str(arg))
        overload = f".{self.overload_name}" if self.overload_name else ""
        rets = ", ".join(str(r) for r in self.returns)
        if self.returns_tuple:
            rets = f"({rets})"
        return f"{self.namespace}::{self.name}{overload}({', '.join(parts)}) -> {rets}"


_HEAD = re.compile(r"^\s*(?:(\w+)::)?([\w]+)(?:\.(\w+))?\s*\((.*)\)\s*->\s*(.+?)\s*$", re.S)
_TYPE = re.compile(
    r"^(?P<base>[A-Za-z]+)(?:\((?P<alias>[^)]*)\))?(?P<eopt>\?)?"
    r"(?:\[(?P<size>\d*)\])?(?P<opt>\?)?$"
)


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _parse_alias(text: str | None) -> AliasInfo | None:
    if text is None:
        return None
    text = text.strip()
    is_write = text.endswith("!")
    text = text.rstrip("!").strip()
    before, _, after = text.partition("->")
    before_set = frozenset(s.strip() for s in before.split("|"))
    after_set = frozenset(s.strip() for s in after.split("|")) if after else before_set
    return AliasInfo(before_set, after_set, is_write)


def _parse_type(text: str) -> tuple[ArgType, AliasInfo | None]:
    match = _TYPE.match(text.strip())
    if match is None or match.group("base") not in BASE_TYPES:
        raise SchemaError(f"unknown schema type {text!r}")
    size = match.group("size")
    arg_type = ArgType(
        base=match.group("base"),
        optional=match.group("opt") is not None or (match.group("eopt") is not None and size is None),
        is_list=size is not None,
        list_size=int(size) if size else None,
        element_optional=match.group("eopt") is not None and size is not None,
    )
    return arg_type, _parse_alias(match.group("alias"))


def _parse_scalar(text: str) -> Any:
    if not text:
        raise SchemaError("empty default value")
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return None
    if text[0] in "\"'":
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text  # enum spellings such as contiguous_format


def _parse_default(text: str, arg_type: ArgType) -> Any:
    text = text.strip()
    if arg_type.is_list and text.startswith("["):
        inner = text[1:-1].strip()
        return [_parse_scalar(item.strip()) for item in inner.split(",")] if inner else []
    value = _parse_scalar(text)
    if arg_type.is_list and value is not None and not isinstance(value, list):
        return [value] * (arg_type.list_size or 1)  # `int[2] padding=0` means [0, 0]
    return value


def _parse_argument(text: str, kwarg_only: bool) -> Argument:
    default_text = None
    head = text
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "=" and depth == 0:
            head, default_text = text[:i].strip(), text[i + 1:].strip()
            break
    type_text, _, name = head.rpartition(" ")
    if not type_text or not name.isidentifier():
        raise SchemaError(f"expected '<type> <name>' in argument {text!r}")
    arg_type, alias = _parse_type(type_text)
    default = NO_DEFAULT if default_text is None else _parse_default(default_text, arg_type)
    return Argument(name, arg_type, default, kwarg_only, alias, default_text)


def _parse_returns(text: str) -> tuple[tuple[Return, ...], bool]:
    text = text.strip()
    is_tuple = text.startswith("(") and text.endswith(")") and _TYPE.match(text) is None
    items = _split_top_level(text[1:-1]) if is_tuple else [text]
    returns = []
    for item in items:
        type_text, _, name = item.rpartition(" ")
        if not type_text or "(" in name or "[" in name or not name.isidentifier():
            type_text, name = item, None
        arg_type, alias = _parse_type(type_text)
        returns.append(Return(name, arg_type, alias))
    return tuple(returns), is_tuple


@functools.cache
def parse_schema(text: str) -> OpSchema:
    """Parse one schema string, e.g.
    ``aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)``."""
    match = _HEAD.match(text)
    if match is None:
        raise SchemaError(f"expected 'name.overload(args) -> returns', found {text!r}")
    namespace, name, overload, args_text, returns_text = match.groups()
    arguments: list[Argument] = []
    kwarg_only = False
    for part in _split_top_level(args_text):
        if part == "*":
            kwarg_only = True
            continue
        try:
            arguments.append(_parse_argument(part, kwarg_only))
        except SchemaError as err:
            raise SchemaError(f"{err} in schema {text!r}") from None
    returns, is_tuple = _parse_returns(returns_text)
    return OpSchema(namespace or "aten", name, overload or "", tuple(arguments), returns, is_tuple)


def bind_arguments(schema: OpSchema, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """Bind a call to the schema: every argument in schema order, defaults filled.

    Raises TypeError naming the op and the argument, like a Python call would."""
    return schema.binding.bind(args, kwargs)


class Binding:
    """How calls bind to one schema, worked out once per schema: every op call binds
    its arguments, so the per-call work is a list built from the call's positional
    arguments and the remaining defaults. A call the fast paths do not accept (an
    error, a missing argument) goes through ``_bind_in_order``, whose errors are
    those of a Python call."""

    __slots__ = ("_schema", "_defaults", "_index", "_n_positional", "tails", "_required_after", "_list_defaults",
                 "list_arguments")

    def __init__(self, schema: OpSchema) -> None:
        arguments = schema.arguments
        self._schema = schema
        self._defaults = tuple(arg.default for arg in arguments)
        self._index = {arg.name: index for index, arg in enumerate(arguments)}
        self._n_positional = sum(1 for arg in arguments if not arg.kwarg_only)
        # arguments given positionally -> the defaults of the rest, when none is
        # required and none is a list (a list default is copied per call); the
        # dispatcher reads it too, for a call without keywords
        self.tails = {
            count: self._defaults[count:] for count in range(self._n_positional + 1)
            if all(arg.has_default and not isinstance(arg.default, list) for arg in arguments[count:])
        }
        # arguments given positionally -> the required ones after them (keywords must give them)
        self._required_after = {
            count: tuple(index for index in range(count, len(arguments)) if not arguments[index].has_default)
            for count in range(self._n_positional + 1)
        }
        self._list_defaults = tuple(index for index, arg in enumerate(arguments) if isinstance(arg.default, list))
        # (index, type) of each list argument: the dispatcher normalises their values
        self.list_arguments = tuple((index, arg.type) for index, arg in enumerate(arguments) if arg.type.is_list)

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        if not kwargs:
            tail = self.tails.get(len(args))
            if tail is not None:
                return [*args, *tail]
        return self.bind_keywords(args, kwargs)

    def bind_keywords(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """``bind`` past its first case: keywords, list defaults, missing arguments."""
        given = len(args)
        required = self._required_after.get(given)
        if required is None:  # too many positional arguments
            return self._bind_in_order(args, kwargs)
        defaults = self._defaults
        values = [*args, *defaults[given:]]
        index_of = self._index
        for name, value in kwargs.items():
            index = index_of.get(name, -1)
            if index < given:  # unknown, or given positionally too
                return self._bind_in_order(args, kwargs)
            values[index] = value
        for index in required:
            if values[index] is NO_DEFAULT:
                return self._bind_in_order(args, kwargs)
        for index in self._list_defaults:
            if values[index] is defaults[index]:
                values[index] = list(defaults[index])
        return values

    def _bind_in_order(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """Argument by argument in schema order, raising the error a Python call would."""
        schema = self._schema
        where = f"{schema.namespace}::{schema.qualified_name}"
        if len(args) > self._n_positional:
            raise TypeError(
                f"{where}() takes {self._n_positional} positional arguments but {len(args)} were given"
            )
        values: list[Any] = []
        remaining = dict(kwargs)
        for index, arg in enumerate(schema.arguments):
            if index < len(args) and not arg.kwarg_only:
                if arg.name in remaining:
                    raise TypeError(f"{where}() got multiple values for argument '{arg.name}'")
                values.append(args[index])
            elif arg.name in remaining:
                values.append(remaining.pop(arg.name))
            elif arg.has_default:
                default = arg.default
                values.append(list(default) if isinstance(default, list) else default)
            else:
                raise TypeError(f"{where}() missing required argument '{arg.name}'")
        if remaining:
            raise TypeError(f"{where}() got an unexpected keyword argument '{next(iter(remaining))}'")
        return values
