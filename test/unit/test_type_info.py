"""finfo and iinfo against numpy's limits (bfloat16: its bit layout, 8 exponent and 7 mantissa bits)."""

from __future__ import annotations

import numpy as np
import pytest

import texport


@pytest.mark.parametrize(("dtype", "numpy_dtype"), [
    (texport.float16, np.float16), (texport.float32, np.float32), (texport.float64, np.float64),
    (texport.complex64, np.float32), (texport.complex128, np.float64)])
def test_finfo_matches_numpy(dtype: texport.dtype, numpy_dtype: type) -> None:
    info, reference = texport.finfo(dtype), np.finfo(numpy_dtype)
    assert (info.bits, info.eps, info.max, info.min) == (reference.bits, reference.eps, reference.max, reference.min)
    assert info.tiny == info.smallest_normal == reference.tiny
    assert info.resolution == reference.resolution
    assert info.dtype == np.dtype(numpy_dtype).name


def test_finfo_of_bfloat16_and_the_default_dtype() -> None:
    info = texport.finfo(texport.bfloat16)
    assert info.eps == 2.0 ** -7 and info.tiny == 2.0 ** -126
    assert info.max == (2 - 2.0 ** -7) * 2.0 ** 127 and info.bits == 16
    assert texport.finfo() is texport.finfo(texport.float32)
    assert repr(texport.finfo()) == ("finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, "
                                     "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)")
    with pytest.raises(TypeError, match="requires a floating point input type"):
        texport.finfo(texport.int32)


@pytest.mark.parametrize("dtype", [texport.uint8, texport.int8, texport.int16, texport.int32, texport.int64])
def test_iinfo_matches_numpy(dtype: texport.dtype) -> None:
    info, reference = texport.iinfo(dtype), np.iinfo(dtype.torch_name)
    assert (info.bits, info.min, info.max, info.dtype) == (reference.bits, reference.min, reference.max, dtype.torch_name)


def test_iinfo_rejects_bool_and_floats() -> None:
    for dtype in (texport.bool, texport.float32):
        with pytest.raises(TypeError, match="requires an integer input type"):
            texport.iinfo(dtype)
