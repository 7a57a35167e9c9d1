"""The dispatcher: every op call becomes (handle, bound arguments) for the current mode.

Tensor methods, operators, ``texport.*`` functions, ``nn.functional`` and
modules all end in ``call``: it binds the arguments by schema and hands the
call to the current mode — eager (run the numpy kernel) or tracing (append an
op). Ops' code never knows which mode runs it. The eager mode is the bottom
of the stack; the start-up (dialects/bootstrap.py) installs it at the first
op call, so importing the tracer changes no global state.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from texport.dialects import bootstrap
from texport.dialects.dtypes import DType
from texport.dialects.schema import ArgType, OpSchema, bind_arguments


class Op(Protocol):
    """An op handle as the dispatcher sees it (tracer/handles.py: OpOverload)."""

    _schema: OpSchema


class Packet(Protocol):
    """All overloads of one name (tracer/handles.py: OpOverloadPacket)."""

    def overloads(self) -> list[str]: ...


class Mode(Protocol):
    """What runs an op: ``call(op, values)`` with values bound in schema order."""

    def call(self, op: Op, values: list[Any]) -> Any: ...


class TensorBase:
    """What the dispatcher knows of a tensor: that it is one (overload
    resolution tells a Tensor argument from a number). texport.Tensor derives
    from it; the modules tensor.py builds on (factories, indexing, printing)
    name tensors by it, so they need not import tensor.py."""

    __slots__ = ()


class BaseMode(Mode, Protocol):
    """The mode at the bottom of the stack (tracer/eager.py: EagerMode). It
    holds data, so it is also what makes a tensor of an array."""

    def tensor(self, array: Any, dtype: DType, requires_grad: bool = False) -> TensorBase: ...


_MODES: list[Mode] = []


def current_mode() -> Mode:
    if not _MODES:
        bootstrap.start("eager mode")
    return _MODES[-1]


def base_mode() -> BaseMode:
    """The eager mode, whichever modes run above it."""
    bootstrap.start("eager mode")
    return _MODES[0]


def install_base_mode(mode: BaseMode) -> None:
    """Put the eager mode at the bottom of the stack (start-up stage "eager mode")."""
    _MODES.insert(0, mode)


@contextlib.contextmanager
def using_mode(mode: Mode) -> Iterator[Mode]:
    _MODES.append(mode)
    try:
        yield mode
    finally:
        _MODES.pop()


def call(op: Op, *args: Any, **kwargs: Any) -> Any:
    """Call a known overload in the current mode."""
    binding = op._schema.binding
    tail = None if kwargs else binding.tails.get(len(args))
    values = [*args, *tail] if tail is not None else binding.bind_keywords(args, kwargs)  # Binding.bind, inline
    if binding.list_arguments:
        _normalize_lists(binding.list_arguments, values)
    return (_MODES[-1] if _MODES else current_mode()).call(op, values)


def varargs_list(args: Sequence[Any]) -> list[Any]:
    """A list argument that torch lets one spell as varargs: ``view(2, 3)``
    and ``view((2, 3))`` both mean [2, 3]."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


def normalize_values(schema: OpSchema, values: list[Any]) -> list[Any]:
    """Lists become lists (tuples, Size), ``int[2]`` given an int expands."""
    _normalize_lists(schema.binding.list_arguments, values)
    return values


def _normalize_lists(list_arguments: tuple[tuple[int, ArgType], ...], values: list[Any]) -> None:
    for index, arg_type in list_arguments:
        value = values[index]
        if type(value) is list:
            continue
        if isinstance(value, tuple):
            values[index] = list(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool) or (
            isinstance(value, bool) and arg_type.base == "bool"
        ):
            if arg_type.list_size is not None:
                values[index] = [value] * arg_type.list_size
            else:
                values[index] = [value]


# --------------------------------------------------------------------------
# Overload resolution for packet calls: texport.ops.aten.add(x, 1)
# --------------------------------------------------------------------------


def resolve_overload(packet: Packet, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Op:
    """The first overload whose schema accepts the call: first with exact kinds
    (a Tensor for each Tensor parameter), then letting Python numbers stand for
    Tensors (torch's wrapped numbers)."""
    overloads = [getattr(packet, name) for name in _ordered(packet.overloads())]
    for lenient in (False, True):
        for op in overloads:
            try:
                values = bind_arguments(op._schema, args, kwargs)
            except TypeError:
                continue
            if all(_accepts(a.type, v, lenient) for a, v in zip(op._schema.arguments, values)):
                return op
    raise TypeError(
        f"{packet}() received an invalid combination of arguments: no overload of "
        f"{', '.join(str(o) for o in overloads)} accepts ({_describe(args, kwargs)})"
    )


def _ordered(names: list[str]) -> list[str]:
    return sorted(names, key=lambda n: (n != "default", n != "Tensor", n))


def _accepts(arg_type: ArgType, value: Any, lenient: bool) -> bool:
    if value is None:
        return arg_type.optional or arg_type.element_optional or True
    if arg_type.is_list:
        if isinstance(value, (list, tuple)):
            return all(_accepts(ArgType(arg_type.base), v, lenient) for v in value if v is not None)
        return arg_type.base in ("int", "SymInt", "bool", "float")
    base = arg_type.base
    if base == "Tensor":
        return isinstance(value, TensorBase) or (lenient and _is_number(value))
    if isinstance(value, TensorBase):
        return False
    if base in ("int", "SymInt"):
        return isinstance(value, int) and not isinstance(value, bool) or _is_symbolic_int(value)
    if base in ("float", "SymFloat"):
        return _is_number(value) and not isinstance(value, bool)
    if base in ("Scalar",):
        return _is_number(value)
    if base in ("bool", "SymBool"):
        return isinstance(value, bool)
    if base == "str":
        return isinstance(value, str)
    return True


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, bool, complex)) or _is_symbolic_int(value)


def _is_symbolic_int(value: Any) -> bool:
    return getattr(value, "is_symbolic_scalar", False)


def _describe(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    return ", ".join(parts)

