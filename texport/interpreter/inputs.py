"""Inputs for a function: from an .npz, or drawn at random for its declared types."""

from __future__ import annotations

import math
import zipfile
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.npyio import NpzFile
from xdsl.dialects.func import FuncOp

from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.dtypes import DType
from texport.dialects.symbolic import dim_str
from texport.dialects.tx import SymIntType, TensorType

from .dtypes import from_numpy, to_numpy


class InputError(ValueError):
    """Inputs that cannot be loaded or made for the function's arguments."""


def argument_names(func: FuncOp) -> list[str]:
    return [arg.name_hint or f"arg{i}" for i, arg in enumerate(func.body.block.args)]


def load_inputs(func: FuncOp, path: str) -> list[Any]:
    """One value per argument from an .npz, by argument name or as arg0, arg1, ..."""
    stored = read_npz(path)
    inputs, used = [], set()
    for index, (name, arg_type) in enumerate(zip(argument_names(func), func.function_type.inputs.data)):
        keys = [key for key in dict.fromkeys((name, f"arg{index}")) if key in stored]
        if not keys:
            raise InputError(
                f"{path} has no array for argument '{name}' (expected key '{name}' or 'arg{index}'; "
                f"found {', '.join(sorted(stored)) or 'none'})"
            )
        if len(keys) > 1:
            raise InputError(f"{path} gives argument '{name}' twice: as '{keys[0]}' and as '{keys[1]}'")
        used.add(keys[0])
        inputs.append(_argument_value(stored[keys[0]], arg_type, f"{path}: array '{keys[0]}' for argument '{name}'"))
    unused = sorted(set(stored) - used)
    if unused:
        raise InputError(f"{path} has arrays for no argument: {', '.join(unused)} "
                         f"(arguments: {', '.join(argument_names(func)) or 'none'})")
    return inputs


# What a damaged .npz raises from inside numpy (its zip reader, its .npy header parser).
_NPZ_ERRORS = (ValueError, SyntaxError, EOFError, OSError, KeyError, NotImplementedError,
               zipfile.BadZipFile, zlib.error)


def read_npz(path: str) -> dict[str, np.ndarray]:
    """The arrays of an .npz file; a file that is not one, or an array numpy could only
    unpickle (dtype object), is an InputError naming the file and the array."""
    _check_npz_magic(path)
    try:
        archive = np.load(path, allow_pickle=False)
    except _NPZ_ERRORS as err:  # a damaged zip
        raise InputError(f"{path} is not a readable .npz file: {type(err).__name__}: {err}") from err
    with archive:
        return {key: _read_member(archive, path, key) for key in archive.files}


def _check_npz_magic(path: str) -> None:
    """numpy takes a file that is neither a zip nor an .npy for a pickle (and, rightly,
    refuses it with a message about pickles): say what the file is not instead."""
    with open(path, "rb") as handle:
        magic = handle.read(6)
    if magic == b"\x93NUMPY":
        raise InputError(f"{path} holds a single .npy array, not an .npz of named arrays "
                         f"(write one with numpy.savez(path, x=...))")
    if not magic.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        found = f"it starts with {magic!r}" if magic else "it is empty"
        raise InputError(f"{path} is not an .npz file (a zip of .npy arrays, as numpy.savez writes): {found}")


def _read_member(archive: NpzFile, path: str, key: str) -> np.ndarray:
    try:
        return archive[key]
    except MemoryError as err:  # numpy allocates what the header declares before reading
        raise InputError(f"{path}: array '{key}' declares more data than fits in memory: {err}") from err
    except _NPZ_ERRORS as err:
        if "Object arrays" in str(err):
            raise InputError(f"{path}: array '{key}' holds Python objects (dtype object), which would "
                             f"need unpickling; texport reads only numeric arrays") from err
        raise InputError(f"{path}: array '{key}' cannot be read: {type(err).__name__}: {err}") from err


def _argument_value(value: np.ndarray, arg_type: Any, where: str) -> Any:
    """An int argument's 0-d integer array as an int; a bf16 argument's raw bits as bfloat16.
    Shapes and dtypes are left to the function's guards, which say what they expected."""
    if isinstance(arg_type, SymIntType):
        if value.ndim != 0 or value.dtype.kind not in "iu":
            raise InputError(f"{where} must be a 0-d integer array (the argument is an int); "
                             f"found {describe_input(value)}")
        return value.item()
    if _bfloat16_bits(value, arg_type):
        return value.view(to_numpy(DType.bfloat16))
    return value


def describe_input(value: Any) -> str:
    """``f32[4, 3]`` for an array, ``int 5`` for a scalar: what a function was given."""
    if not isinstance(value, np.ndarray):
        return f"{type(value).__name__} {value!r}"
    try:
        dtype = from_numpy(value.dtype).short_name
    except TypeError:
        dtype = str(value.dtype)
    return f"{dtype}[{', '.join(map(str, value.shape))}]"


def _bfloat16_bits(value: np.ndarray, arg_type: Any) -> bool:
    """A bf16 argument's array as .npz keeps it: numpy reads ml_dtypes' bfloat16 back
    as raw ``|V2`` (or it was saved as its uint16 bits)."""
    return (isinstance(arg_type, TensorType) and arg_type.dtype is DType.bfloat16
            and value.dtype.itemsize == 2 and value.dtype.kind in "Vu")


def parse_bindings(bindings: Sequence[str]) -> dict[str, int]:
    """``--bind s0=8`` options as {symbol: size}; a malformed or repeated one is an InputError."""
    values: dict[str, int] = {}
    for binding in bindings:
        name, sep, text = (part.strip() for part in binding.partition("="))
        if not sep or not name.isidentifier() or not (text.isascii() and text.lstrip("+-").isdigit()):
            raise InputError(f"--bind expects SYMBOL=INTEGER (e.g. --bind s0=8), found '{binding}'")
        if int(text) < 0:
            raise InputError(f"--bind '{binding}': a size is a non-negative integer, found {int(text)}")
        if name in values:
            raise InputError(f"--bind gives {name} twice: {name}={values[name]} and '{binding}'")
        values[name] = int(text)
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
    _check_symbols_known(func, values)
    generator = np.random.default_rng(seed)
    inputs: list[Any] = []
    for name, arg_type in zip(argument_names(func), func.function_type.inputs.data):
        if isinstance(arg_type, TensorType):
            shape = tuple(_size(d, values, f"argument '{name}' dim {i}") for i, d in enumerate(arg_type.shape))
            inputs.append(_random_array(generator, shape, to_numpy(arg_type.dtype), f"argument '{name}'"))
        elif isinstance(arg_type, SymIntType) and arg_type.value is not None:
            inputs.append(_evaluate(arg_type.value, values, f"argument '{name}'"))
        else:
            raise InputError(f"cannot make a random value for argument '{name}' of type {arg_type}")
    return inputs


def _check_symbols_known(func: FuncOp, values: dict[str, int]) -> None:
    known = set()
    for arg_type in func.function_type.inputs.data:
        dims = arg_type.shape if isinstance(arg_type, TensorType) else \
            (arg_type.value,) if isinstance(arg_type, SymIntType) and arg_type.value is not None else ()
        known.update(s.name for d in dims if type(d) is not int for s in d.free_symbols)
    unknown = sorted(set(values) - known)
    if unknown:
        raise InputError(f"--bind {', '.join(unknown)}: the arguments of @{func.sym_name.data} have no such "
                         f"size symbol (theirs: {', '.join(sorted(known)) or 'none'})")


def _size(dim: Any, values: dict[str, int], where: str) -> int:
    size = _evaluate(dim, values, where)
    if size < 0:
        bound = ", ".join(f"{s.name}={values[s.name]}" for s in sorted(dim.free_symbols, key=str))
        raise InputError(f"{where} has size {dim_str(dim)} = {size} with {bound}: a size cannot be negative")
    return size


# Random inputs are for trying a program out: a size typo must not fill the machine's memory.
MAX_RANDOM_BYTES = 1 << 31


def _random_array(generator: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype,
                  where: str) -> np.ndarray:
    nbytes = math.prod(shape) * max(dtype.itemsize, 8)  # drawn in float64 or int64, then cast
    if nbytes > MAX_RANDOM_BYTES:
        raise InputError(f"{where} would be {from_numpy(dtype).short_name}[{', '.join(map(str, shape))}], "
                         f"{nbytes:,} bytes to draw: more than the {MAX_RANDOM_BYTES:,} random inputs "
                         f"may take (give smaller --bind values, or the inputs with --inputs)")
    if dtype.kind == "b":
        return generator.random(shape) < 0.5
    if dtype.kind in "iu":
        return generator.integers(0, 10, shape).astype(dtype)
    if dtype.kind == "c":
        return (generator.standard_normal(shape) + 1j * generator.standard_normal(shape)).astype(dtype)
    return generator.standard_normal(shape).astype(dtype)
