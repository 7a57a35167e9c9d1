"""Shared test helper: a kernel's output agrees with its op's shape rule."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from texport.dialects.meta import TensorMeta
from texport.dialects.registry import lookup_op
from texport.dialects.schema import bind_arguments
from texport.dialects.shape_rules import SHAPE_RULES
from texport.interpreter.dtypes import from_numpy, to_numpy
from texport.interpreter.kernels import KERNELS


def _meta(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return TensorMeta(tuple(value.shape), from_numpy(value.dtype))
    if isinstance(value, list):
        return [_meta(v) for v in value]
    return value


def run(op: str, *args: Any, **kwargs: Any) -> Any:
    """Run ``op``'s kernel on a Python-style call and check it against the
    shape rule: same structure, shapes and dtypes. Returns the kernel output."""
    values = bind_arguments(lookup_op(op).schema, args, kwargs)
    expected = SHAPE_RULES[op](*[_meta(v) for v in values])
    out = KERNELS[op](*values)
    _compare(op, out, expected)
    return out


def _compare(op: str, out: Any, expected: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert isinstance(out, (tuple, list)) and len(out) == len(expected), (op, out)
        for o, e in zip(out, expected):
            _compare(op, o, e)
        return
    if isinstance(expected, TensorMeta):
        assert isinstance(out, np.ndarray), f"{op}: kernel returned {type(out).__name__}"
        assert out.dtype == to_numpy(expected.dtype), f"{op}: dtype {out.dtype} vs rule {expected.dtype}"
        want = tuple(expected.shape)
        assert all(w is None or w == g for w, g in zip(want, out.shape)) and len(want) == out.ndim, (
            f"{op}: shape {out.shape} vs rule {want}"
        )


@pytest.fixture
def warnings_are_errors() -> Iterator[None]:
    """torch gives inf and nan silently: no numpy warning may escape a kernel (a test
    module takes it with ``pytestmark = pytest.mark.usefixtures("warnings_are_errors")``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def normal_sampler(rng: np.random.Generator) -> Callable[..., np.ndarray]:
    """rand(*shape, dtype, scale, shift): normal samples from ``rng``."""

    def rand(*shape: int, dtype: Any = np.float32, scale: float = 1.0, shift: float = 0.0) -> np.ndarray:
        return (rng.standard_normal(shape) * scale + shift).astype(dtype)

    return rand


def gelu_double(x: np.ndarray) -> np.ndarray:
    """x Phi(x) in double, Phi(x) = erfc(-x / sqrt 2) / 2 (no cancellation for x < 0): the
    reference of the float32 GELU kernels, numpy's passes and the native one alike."""
    flat = [0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.astype(np.float64).reshape(-1)]
    return np.array(flat).reshape(x.shape)
