"""torch.finfo and torch.iinfo: the numeric limits of a dtype.

The limits are written out (no numpy, no ml_dtypes) so that reading one costs
nothing at start-up. ``finfo(dtype)`` returns the one shared object of that
dtype, as torch does; complex dtypes report their real part's limits.
"""

from __future__ import annotations

from .dtypes import DEFAULT_FLOAT, DType


class finfo:  # noqa: N801 - torch's name
    """Machine limits of a floating point dtype (torch.finfo)."""

    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    resolution: float
    dtype: str

    def __new__(cls, dtype: DType | None = None) -> finfo:
        return _FLOAT_INFO[_floating(DEFAULT_FLOAT if dtype is None else dtype)]

    def __init__(self, dtype: DType | None = None) -> None:
        """The shared object is already filled in (_make_finfo)."""

    @property
    def smallest_normal(self) -> float:
        return self.tiny

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801 - torch's name
    """Machine limits of an integer dtype (torch.iinfo)."""

    bits: int
    min: int
    max: int
    dtype: str

    def __new__(cls, dtype: DType) -> iinfo:
        if dtype not in _INT_INFO:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        return _INT_INFO[dtype]

    def __init__(self, dtype: DType) -> None:
        """The shared object is already filled in (_make_iinfo)."""

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def _floating(dtype: DType) -> DType:
    """The dtype whose limits ``dtype`` has: complex numbers have their parts'."""
    real = {DType.complex64: DType.float32, DType.complex128: DType.float64}.get(dtype, dtype)
    if real not in _FLOAT_INFO:
        raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                        "'torch.finfo'")
    return real


def _make_finfo(dtype: DType, mantissa_bits: int, max_value: float, min_exponent: int,
                resolution: float) -> finfo:
    """mantissa_bits: explicit mantissa bits; min_exponent: that of the smallest normal number."""
    info = object.__new__(finfo)
    info.bits = dtype.itemsize * 8
    info.eps = 2.0 ** -mantissa_bits
    info.max, info.min = max_value, -max_value
    info.tiny = 2.0 ** min_exponent
    info.resolution = resolution
    info.dtype = dtype.torch_name
    return info


def _make_iinfo(dtype: DType) -> iinfo:
    info = object.__new__(iinfo)
    info.bits = bits = dtype.itemsize * 8
    info.min, info.max = (0, 2 ** bits - 1) if dtype.kind == "u" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    info.dtype = dtype.torch_name
    return info


_FLOAT_INFO = {
    DType.float16: _make_finfo(DType.float16, 10, 65504.0, -14, 1e-3),
    DType.bfloat16: _make_finfo(DType.bfloat16, 7, 3.3895313892515355e38, -126, 1e-2),
    DType.float32: _make_finfo(DType.float32, 23, 3.4028234663852886e38, -126, 1e-6),
    DType.float64: _make_finfo(DType.float64, 52, 1.7976931348623157e308, -1022, 1e-15),
}
_INT_INFO = {dtype: _make_iinfo(dtype) for dtype in DType if dtype.is_integral}
