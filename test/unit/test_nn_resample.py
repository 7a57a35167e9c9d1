"""Pooling and resampling modules and functions beyond the basics: constructor
arguments, reprs, seeded fractional pooling and input errors as torch gives them."""

from __future__ import annotations

import numpy as np
import pytest

import texport as torch

F = torch.nn.functional


def test_reprs_follow_torch() -> None:
    assert repr(torch.nn.MaxUnpool2d(2, (1, 2))) == "MaxUnpool2d(kernel_size=(2, 2), stride=(1, 2), padding=(0, 0))"
    assert repr(torch.nn.LPPool2d(2, 3)) == "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    assert repr(torch.nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"
    assert repr(torch.nn.UpsamplingBilinear2d((4, 5))) == "UpsamplingBilinear2d(size=(4, 5), mode='bilinear')"
    assert repr(torch.nn.AdaptiveMaxPool3d(2, return_indices=True)) == "AdaptiveMaxPool3d(output_size=2)"


def test_fractional_max_pool_draws_seeded_samples() -> None:
    x = torch.randn(2, 3, 8, 8)
    torch.manual_seed(3)
    first = F.fractional_max_pool2d(x, 2, output_size=4)
    torch.manual_seed(3)
    second = F.fractional_max_pool2d(x, 2, output_size=4)
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    module = torch.nn.FractionalMaxPool2d(2, output_ratio=0.5, return_indices=True)
    values, indices = module(x)
    assert tuple(values.shape) == (2, 3, 4, 4) and indices.dtype == torch.int64
    assert list(module.state_dict()) == []


def test_fractional_max_pool_argument_errors() -> None:
    with pytest.raises(ValueError, match="requires specifying either an output size, or a pooling ratio"):
        torch.nn.FractionalMaxPool3d(2)
    with pytest.raises(ValueError, match="output_ratio must be between 0 and 1"):
        torch.nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(Exception, match="pool height 2 too large relative to input height 5"):
        F.fractional_max_pool2d(torch.randn(1, 2, 5, 5), 2, output_size=(5, 3))


def test_unpool_output_size_is_checked() -> None:
    values, indices = F.max_pool2d(torch.randn(1, 1, 4, 4), 2, return_indices=True)
    with pytest.raises(ValueError, match="dim 0 must be between 2 and 6"):
        F.max_unpool2d(values, indices, 2, output_size=[7, 4])
    assert tuple(F.max_unpool2d(values, indices, 2, output_size=[5, 5]).shape) == (1, 1, 5, 5)


def test_grid_sample_and_interpolate_errors() -> None:
    x = torch.randn(1, 1, 3, 3)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic'"):
        F.grid_sample(x, torch.zeros(1, 2, 2, 2), mode="area", align_corners=False)
    with pytest.raises(ValueError, match="Anti-alias option is restricted"):
        F.interpolate(torch.randn(1, 1, 3), size=5, mode="linear", antialias=True)
    with pytest.raises(NotImplementedError, match="trilinear mode needs 5D input"):
        F.interpolate(x, size=(5, 5), mode="trilinear")
