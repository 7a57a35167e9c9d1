"""Inputs for a function: from an .npz, or drawn at random for its declared types."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.func import FuncOp

from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.dtypes import DType
from texport.dialects.symbolic import dim_str
from texport.dialects.tx import SymIntType, TensorType

from .dtypes import to_numpy


class InputError(ValueError):
    """Inputs that cannot be loaded or made for the function's arguments."""


def argument_names(func: FuncOp) -> list[str]:
    return [arg.name_hint or f"arg{i}" for i, arg in enumerate(func.body.block.args)]


def load_inputs(func: FuncOp, path: str) -> list[np.ndarray]:
    """One array per argument from an .npz, by argument name or as arg0, arg1, ..."""
    with np.load(path, allow_pickle=False) as archive:
        stored = {key: archive[key] for key in archive.files}
    inputs = []
    for index, name in enumerate(argument_names(func)):
        arg_type = func.function_type.inputs.data[index]
        for key in (name, f"arg{index}"):
            if key in stored:
                value = stored[key]
                if value.ndim == 0 and value.dtype.kind in "iu" and isinstance(arg_type, SymIntType):
                    value = value.item()
                elif _bfloat16_bits(value, arg_type):
                    value = value.view(to_numpy(DType.bfloat16))
                inputs.append(value)
                break
        else:
            raise InputError(
                f"{path} has no array for argument '{name}' (expected key '{name}' or 'arg{index}'; "
                f"found {', '.join(sorted(stored)) or 'none'})"
            )
    return inputs


def _bfloat16_bits(value: np.ndarray, arg_type: Any) -> bool:
    """A bf16 argument's array as .npz keeps it: numpy reads ml_dtypes' bfloat16 back
    as raw ``|V2`` (or it was saved as its uint16 bits)."""
    return (isinstance(arg_type, TensorType) and arg_type.dtype is DType.bfloat16
            and value.dtype.itemsize == 2 and value.dtype.kind in "Vu")


def parse_bindings(bindings: Sequence[str]) -> dict[str, int]:
    values = {}
    for binding in bindings:
        name, sep, value = binding.partition("=")
        if not sep or not value.strip().lstrip("-").isdigit():
            raise InputError(f"--bind expects SYMBOL=INTEGER, found '{binding}'")
        values[name.strip()] = int(value)
    return values


def _evaluate(dim: Any, values: dict[str, int], where: str) -> int:
    if type(dim) is int:
        return dim
    missing = sorted(s.name for s in dim.free_symbols if s.name not in values)
    if missing:
        raise InputError(
            f"{where} has size {dim_str(dim)}: give {', '.join(missing)} with --bind "
            f"({' '.join(f'--bind {m}=N' for m in missing)})"
        )
    return int(dim.xreplace({s: sympy.Integer(values[s.name]) for s in dim.free_symbols}))


def random_inputs(func: FuncOp, bindings: Sequence[str], seed: int) -> list[Any]:
    """Random arrays of each argument's declared shape and dtype."""
    values = parse_bindings(bindings)
    generator = np.random.default_rng(seed)
    inputs: list[Any] = []
    for name, arg_type in zip(argument_names(func), func.function_type.inputs.data):
        if isinstance(arg_type, TensorType):
            shape = tuple(_evaluate(d, values, f"argument '{name}' dim {i}")
                          for i, d in enumerate(arg_type.shape))
            inputs.append(_random_array(generator, shape, to_numpy(arg_type.dtype)))
        elif isinstance(arg_type, SymIntType) and arg_type.value is not None:
            inputs.append(_evaluate(arg_type.value, values, f"argument '{name}'"))
        else:
            raise InputError(f"cannot make a random value for argument '{name}' of type {arg_type}")
    return inputs


def _random_array(generator: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "b":
        return generator.random(shape) < 0.5
    if dtype.kind in "iu":
        return generator.integers(0, 10, shape).astype(dtype)
    if dtype.kind == "c":
        return (generator.standard_normal(shape) + 1j * generator.standard_normal(shape)).astype(dtype)
    return generator.standard_normal(shape).astype(dtype)
