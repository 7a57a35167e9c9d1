"""``texport.ops.aten.add_.Tensor``: op handles spelled exactly as torch's.

A handle names one registered op (an OpOverload) or all overloads of a name
(an OpOverloadPacket). Handles are unique per op, so they can key tables
(decompositions, kernels). Calling one goes through the dispatcher to the
current mode (eager or tracing); calling a packet first picks the overload.
"""

from __future__ import annotations

from typing import Any

from texport.dialects.registry import OPS, OpDef, op_key
from texport.dialects.schema import OpSchema

from .dispatcher import call, resolve_overload


class OpOverload:
    """One op: ``texport.ops.aten.add_.Tensor``; ``._schema`` is its OpSchema."""

    def __init__(self, op_def: OpDef, packet: OpOverloadPacket) -> None:
        self.op_def = op_def
        self.key = op_def.key  # the registry key kernels and rules are found by, read per call
        self._schema: OpSchema = op_def.schema
        self.overloadpacket = packet
        self._overloadname = op_def.schema.overload
        self.__name__ = f"{op_def.schema.name}.{self._overloadname}"

    def name(self) -> str:
        """torch's OpOverload.name(): ``aten::add_.Tensor``."""
        schema = self._schema
        suffix = f".{schema.overload_name}" if schema.overload_name else ""
        return f"{schema.namespace}::{schema.name}{suffix}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return call(self, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self._schema.namespace}.{self._schema.name}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return self.op_def.key


class OpOverloadPacket:
    """All overloads of one name: ``texport.ops.aten.add``; ``.Tensor`` picks one."""

    def __init__(self, namespace: str, name: str) -> None:
        self._namespace = namespace
        self._qualified_op_name = f"{namespace}::{name}"
        self.__name__ = name
        self._overloads: dict[str, OpOverload] = {}

    def overloads(self) -> list[str]:
        prefix = f"{self._namespace}.{self.__name__}."
        return [key[len(prefix):] for key in OPS.keys() if key.startswith(prefix)]

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__"):
            raise AttributeError(overload)
        handle = self._overloads.get(overload)
        if handle is None:
            op_def = OPS.get(f"{self._namespace}::{self.__name__}.{overload}")
            if op_def is None:
                raise AttributeError(
                    f"The underlying op of '{self._namespace}.{self.__name__}' has no overload "
                    f"name '{overload}' (overloads: {', '.join(self.overloads()) or 'none'})"
                )
            handle = self._overloads[overload] = OpOverload(op_def, self)
        return handle

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return call(resolve_overload(self, args, kwargs), *args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._namespace}.{self.__name__}')>"

    def __str__(self) -> str:
        return f"{self._namespace}.{self.__name__}"


# aten ops whose names are Python dunders (``x << n`` records ``__lshift__.Scalar``)
_DUNDER_OPS = frozenset({"__lshift__", "__rshift__"})


class OpNamespace:
    """``texport.ops.aten``: packets by name."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._packets: dict[str, OpOverloadPacket] = {}

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        if op_name.startswith("__") and op_name not in _DUNDER_OPS:  # Python's probes (__deepcopy__...)
            raise AttributeError(op_name)
        packet = self._packets.get(op_name)
        if packet is None:
            prefix = f"{self.name}.{op_name}."
            if not any(key.startswith(prefix) for key in OPS.keys()):
                raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
            packet = self._packets[op_name] = OpOverloadPacket(self.name, op_name)
        return packet

    def __dir__(self) -> list[str]:
        prefix = f"{self.name}."
        return sorted({key[len(prefix):].split(".")[0] for key in OPS.keys() if key.startswith(prefix)})


class Ops:
    """``texport.ops``: namespaces by name (``aten``, and custom ones like ``mylib``)."""

    def __init__(self) -> None:
        self._namespaces: dict[str, OpNamespace] = {}

    def __getattr__(self, namespace: str) -> OpNamespace:
        if namespace.startswith("__"):
            raise AttributeError(namespace)
        if namespace not in self._namespaces:
            self._namespaces[namespace] = OpNamespace(namespace)
        return self._namespaces[namespace]


ops = Ops()


def handle_for(name: str) -> OpOverload:
    """The handle of a registry key or ``name.overload`` (``aten.add.Tensor``)."""
    namespace, rest = op_key(name).split(".", 1)
    op_name, overload = rest.rsplit(".", 1)
    return getattr(getattr(getattr(ops, namespace), op_name), overload)


class _HandlesByName(dict[str, OpOverload]):
    """Handles by ``name`` (``add.Tensor``), each looked up once."""

    def __missing__(self, name: str) -> OpOverload:
        handle = self[name] = handle_for(name)
        return handle


# op(name): the handle of ``name`` (``add.Tensor``). Every Tensor method, factory and
# function names its op this way on each call: the dict's own lookup, no Python frame.
op = _HandlesByName().__getitem__
