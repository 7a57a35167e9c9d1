"""torch.nn.functional's plain Python helpers: the ``__torch_function__`` protocol
checks (torch.overrides), ``boolean_dispatch`` (torch._jit_internal) and
``assert_int_or_pair``. A texport Tensor defines no ``__torch_function__``, so for
texport tensors the checks answer False; an argument of a type that defines
one is honoured as torch honours it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["assert_int_or_pair", "boolean_dispatch", "handle_torch_function", "has_torch_function",
           "has_torch_function_unary", "has_torch_function_variadic"]


def _overrides(value: Any) -> bool:
    return hasattr(type(value), "__torch_function__")


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether any argument's type overrides ``__torch_function__``."""
    return any(_overrides(arg) for arg in relevant_args)


def has_torch_function_unary(arg: Any) -> bool:
    return _overrides(arg)


def has_torch_function_variadic(*args: Any) -> bool:
    return has_torch_function(args)


def _overloaded_args(relevant_args: Iterable[Any]) -> list[Any]:
    """One argument per overriding type, subclasses before their bases, otherwise
    left to right (NEP-18's order, as torch's _get_overloaded_args)."""
    ordered: list[Any] = []
    for arg in relevant_args:
        kind = type(arg)
        if not _overrides(arg) or any(type(seen) is kind for seen in ordered):
            continue
        position = next((i for i, seen in enumerate(ordered) if issubclass(kind, type(seen))), len(ordered))
        ordered.insert(position, arg)
    return ordered


def handle_torch_function(public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any,
                          **kwargs: Any) -> Any:
    """Calls each overriding argument's ``__torch_function__`` in precedence order; the
    first result that is not NotImplemented is the answer."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(map(type, overloaded))
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{public_api.__module__}.{public_api.__name__}' on types that "
                    f"implement __torch_function__: {list(types)}")


def boolean_dispatch(arg_name: str, arg_index: int, default: bool, if_true: Callable[..., Any],
                     if_false: Callable[..., Any], module_name: str | None, func_name: str | None) -> Callable[..., Any]:
    """A function calling ``if_true`` or ``if_false`` by the boolean argument ``arg_name``
    (keyword, else position ``arg_index``, else ``default``); it takes the docstring
    of whichever of the two has one."""

    def fn(*args: Any, **kwargs: Any) -> Any:
        flag = kwargs[arg_name] if arg_name in kwargs else args[arg_index] if arg_index < len(args) else default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    docs = [f.__doc__ for f in (if_true, if_false) if f.__doc__ is not None]
    if len(docs) == 2:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = if_true.__doc__ = if_false.__doc__ = docs[0] if docs else None
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn


def assert_int_or_pair(arg: Any, arg_name: str, message: str) -> None:
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
