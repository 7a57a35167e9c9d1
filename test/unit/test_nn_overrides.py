"""torch.nn.functional's plain helpers on texport: the __torch_function__ checks
(False for texport tensors, honoured for a type that overrides), boolean_dispatch
and assert_int_or_pair, as torch's behave."""

from __future__ import annotations

import collections.abc
import typing
from typing import Any

import pytest

import texport
import texport.nn.functional as F


class Overriding:
    calls: typing.ClassVar[list[tuple[Any, ...]]] = []

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        cls.calls.append((func, types))
        return "overridden"


class Declining(Overriding):
    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        return NotImplemented


def test_typing_reexports() -> None:
    assert F.Callable is collections.abc.Callable
    assert F.Optional is typing.Optional


def test_texport_tensors_have_no_torch_function() -> None:
    x = texport.ones(2)
    assert not F.has_torch_function((x, x))
    assert not F.has_torch_function_unary(x)
    assert not F.has_torch_function_variadic(x, None, 3)
    assert F.has_torch_function_variadic(x, Overriding())


def test_handle_torch_function_calls_the_override() -> None:
    assert F.handle_torch_function(F.relu, (texport.ones(1), Overriding()), texport.ones(1)) == "overridden"
    assert Overriding.calls[-1] == (F.relu, (Overriding,))


def test_handle_torch_function_puts_subclasses_first_and_raises_when_all_decline() -> None:
    assert F.handle_torch_function(F.relu, (Overriding(), Declining()), 1) == "overridden"
    with pytest.raises(TypeError, match="no implementation found for '.*relu' on types that implement"):
        F.handle_torch_function(F.relu, (Declining(),), 1)


def test_boolean_dispatch() -> None:
    def with_flag(x: int, flag: bool = False) -> str:
        """Doc."""
        return f"true {x}"

    def without_flag(x: int, flag: bool = False) -> str:
        return f"false {x}"

    fn = F.boolean_dispatch("flag", 1, False, with_flag, without_flag, "mod", "picked")
    assert (fn(1), fn(1, True), fn(1, flag=True)) == ("false 1", "true 1", "true 1")
    assert (fn.__name__, fn.__module__, fn.__doc__, without_flag.__doc__) == ("picked", "mod", "Doc.", "Doc.")


def test_assert_int_or_pair() -> None:
    F.assert_int_or_pair(3, "kernel_size", "{} must be int or pair")
    F.assert_int_or_pair([1, 2], "kernel_size", "{} must be int or pair")
    with pytest.raises(AssertionError, match="kernel_size must be int or pair"):
        F.assert_int_or_pair([1, 2, 3], "kernel_size", "{} must be int or pair")
