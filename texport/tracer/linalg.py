"""``texport.linalg`` (torch.linalg's functions) and the top-level functions and
Tensor methods of the same family: complex numbers (``view_as_real``, ``polar``,
``conj`` ...) and linear algebra (``det``, ``trace``, ``kron`` ...). Each records
the op torch's Python API records."""

from __future__ import annotations

import weakref
from typing import Any

from .dispatcher import call
from .handles import op
from .tensor import Tensor

__all__: list[str] = []


# ---------------------------------------------------------------- complex numbers


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002 - torch's name
    return call(op("view_as_real"), input)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("view_as_complex"), input)


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002
    return call(op("polar"), abs, angle)


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001
    return call(op("complex"), real, imag)


def angle(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("angle"), input)


def real(input: Tensor) -> Tensor:  # noqa: A002
    """A complex tensor's real parts (a view); a real tensor itself."""
    return call(op("real"), input) if input.is_complex() else input


def imag(input: Tensor) -> Tensor:  # noqa: A002
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return call(op("imag"), input)


# The tensors torch would mark with its conjugate bit (texport computes the
# conjugate; the mark only decides whether resolve_conj is recorded), by id.
_CONJUGATES: dict[int, weakref.ref[Tensor]] = {}


def mark_conjugate(tensor: Tensor) -> Tensor:
    key = id(tensor)
    _CONJUGATES[key] = weakref.ref(tensor, lambda _: _CONJUGATES.pop(key, None))
    return tensor


def conj(input: Tensor) -> Tensor:  # noqa: A002
    """torch.conj: the lazy conjugate of a complex tensor; a real tensor is its own."""
    return mark_conjugate(call(op("_conj"), input)) if input.is_complex() else input


def conj_physical(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("conj_physical"), input) if input.is_complex() else input


def is_conj(input: Tensor) -> bool:  # noqa: A002
    ref = _CONJUGATES.get(id(input))
    return ref is not None and ref() is input


def resolve_conj(input: Tensor) -> Tensor:  # noqa: A002
    """A conjugate's copy (texport computed its values already); any other tensor itself."""
    return call(op("resolve_conj"), input) if is_conj(input) else input


COMPLEX_FUNCTIONS = {
    "view_as_real": view_as_real, "view_as_complex": view_as_complex, "polar": polar, "complex": complex,
    "angle": angle, "real": real, "imag": imag, "conj": conj, "conj_physical": conj_physical,
    "resolve_conj": resolve_conj, "is_conj": is_conj,
}


def _install_complex_methods() -> None:
    for name in ("angle", "conj", "conj_physical", "resolve_conj", "is_conj"):
        setattr(Tensor, name, COMPLEX_FUNCTIONS[name])
    Tensor.real = property(real)
    Tensor.imag = property(imag)


_install_complex_methods()

FUNCTIONS: dict[str, Any] = dict(COMPLEX_FUNCTIONS)
