"""Lazy modules: placeholders until the first call, then torch's ordinary
module (class, shapes, init); a state dict materialises them too."""

from __future__ import annotations

import math

import numpy as np
import pytest

import texport
import texport.nn as nn


def test_lazy_linear_becomes_linear_on_the_first_call() -> None:
    layer = nn.LazyLinear(40)
    assert isinstance(layer.weight, nn.UninitializedParameter) and layer.has_uninitialized_params()
    assert repr(layer.weight) == "<UninitializedParameter>"
    assert repr(layer) == "LazyLinear(in_features=0, out_features=40, bias=True)"
    out = layer(texport.ones(3, 50))
    assert type(layer) is nn.Linear and type(layer.weight) is nn.Parameter
    assert tuple(out.shape) == (3, 40) and tuple(layer.weight.shape) == (40, 50)
    bound = 1 / math.sqrt(50)  # Linear's init: U(-1/sqrt(in), 1/sqrt(in))
    assert 0.8 * bound < np.abs(layer.weight.numpy()).max() <= bound
    assert not layer._forward_pre_hooks and not hasattr(layer, "_initialize_hook")


def test_lazy_conv_reads_channels_batched_or_not() -> None:
    conv = nn.LazyConv2d(4, 3, groups=2)
    conv(texport.ones(6, 5, 5))  # unbatched: channels are dim 0
    assert type(conv) is nn.Conv2d and tuple(conv.weight.shape) == (4, 3, 3, 3) and conv.in_channels == 6
    transpose = nn.LazyConvTranspose3d(2, 2, bias=False)
    transpose(texport.ones(1, 3, 2, 2, 2))
    assert type(transpose) is nn.ConvTranspose3d and tuple(transpose.weight.shape) == (3, 2, 2, 2, 2)
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
        nn.LazyConv2d(4, 3)(texport.ones(2, 3))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv1d(4, 3, groups=2)(texport.ones(1, 3, 8))


def test_lazy_norms_size_their_statistics() -> None:
    norm = nn.LazyBatchNorm1d(affine=False)
    assert isinstance(norm.running_mean, nn.UninitializedBuffer) and norm.weight is None
    norm(texport.ones(4, 7))
    assert type(norm) is nn.BatchNorm1d and norm.num_features == 7
    # a constant batch has variance 0: running_var = 0.9 * 1 + 0.1 * 0
    np.testing.assert_allclose(norm.running_var.numpy(), np.full(7, 0.9, dtype=np.float32))
    instance = nn.LazyInstanceNorm2d()  # torch's lazy instance norms default to affine and running stats
    instance(texport.ones(2, 3, 4, 4))
    assert type(instance) is nn.InstanceNorm2d and instance.affine and tuple(instance.weight.shape) == (3,)


def test_a_state_dict_materialises_the_placeholders() -> None:
    source = nn.Linear(6, 2)
    lazy = nn.LazyLinear(2)
    assert list(lazy.state_dict()) == ["weight", "bias"]
    lazy.load_state_dict(source.state_dict())
    assert not lazy.has_uninitialized_params()
    np.testing.assert_array_equal(lazy.weight.numpy(), source.weight.numpy())
    lazy(texport.ones(1, 6))
    assert type(lazy) is nn.Linear
