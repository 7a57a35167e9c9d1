"""``texport.fft``: torch.fft's transforms, each one op as torch's Python API
records it (``fft_fft``, ``fft_rfft2`` ...); lowering decomposes them into
``_fft_r2c`` / ``_fft_c2c`` / ``_fft_c2r`` as ATen does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .dispatcher import call
from .handles import op
from .linalg import mark_conjugate
from .tensor import Tensor

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]


def _one_dim(name: str) -> Any:
    def transform(input: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:  # noqa: A002
        out = call(op(f"fft_{name}"), input, n, dim, norm)
        # ATen's inverse real-to-complex transform returns the conjugate of a forward one
        conjugate = name == "ihfft" or (name == "ifft" and not input.is_complex())
        return mark_conjugate(out) if conjugate else out

    transform.__name__ = name
    return transform


def _as_list(value: Any) -> list[Any] | None:
    if value is None:
        return None
    return list(value) if isinstance(value, Sequence) else [value]


def _two_dim(name: str) -> Any:
    def transform(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:  # noqa: A002
        return call(op(f"fft_{name}"), input, _as_list(s), _as_list(dim), norm)

    transform.__name__ = name
    return transform


def _n_dim(name: str) -> Any:
    def transform(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:  # noqa: A002
        return call(op(f"fft_{name}"), input, _as_list(s), _as_list(dim), norm)

    transform.__name__ = name
    return transform


fft, ifft, rfft, irfft, hfft, ihfft = map(_one_dim, ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fft2, ifft2, rfft2, irfft2 = map(_two_dim, ("fft2", "ifft2", "rfft2", "irfft2"))
fftn, ifftn, rfftn, irfftn = map(_n_dim, ("fftn", "ifftn", "rfftn", "irfftn"))


def fftshift(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002 - torch's name
    return call(op("fft_fftshift"), input, _as_list(dim))


def ifftshift(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002 - torch's name
    return call(op("fft_ifftshift"), input, _as_list(dim))


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, **factory: Any) -> Tensor:
    return call(op("fft_fftfreq"), n, d, dtype=dtype)


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, **factory: Any) -> Tensor:
    return call(op("fft_rfftfreq"), n, d, dtype=dtype)
