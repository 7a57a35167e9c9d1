"""The channel and alpha dropouts: eval is the identity, training zeroes whole
channels (or keeps selu's statistics) with probability p, draws repeat under
the same seed, and bad p or ranks are refused as torch refuses them."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import texport
import texport.nn as nn
import texport.nn.functional as F

ALPHA_PRIME = 1.6732632423543772848170429916717 * 1.0507009873554804934193349852946


def ones(*shape: int) -> texport.Tensor:
    return texport.ones(*shape)


@pytest.mark.parametrize(("layer", "shape"), [(nn.Dropout1d, (8, 16, 5)), (nn.Dropout1d, (16, 5)),
                                              (nn.Dropout2d, (8, 16, 3, 3)), (nn.Dropout3d, (8, 16, 2, 2, 2)),
                                              (nn.Dropout3d, (16, 2, 2, 2))])
def test_channel_dropout_zeroes_whole_channels(layer: type, shape: tuple[int, ...]) -> None:
    out = layer(0.5)(ones(*shape)).numpy()
    batched = len(shape) == {nn.Dropout1d: 3, nn.Dropout2d: 4, nn.Dropout3d: 5}[layer]
    per_channel = out.reshape(shape[0] * shape[1] if batched else shape[0], -1)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # one draw per channel
    assert 0 < (per_channel[:, 0] == 0).mean() < 1


@pytest.mark.parametrize("layer", [nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout, nn.FeatureAlphaDropout])
def test_eval_is_the_identity(layer: type) -> None:
    x = texport.randn(2, 3, 4, 4) if layer is not nn.Dropout1d else texport.randn(2, 3, 4)
    module = layer(0.4).eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(module(x).numpy(), x.numpy())
    assert repr(module) == f"{layer.__name__}(p=0.4, inplace=False)"


def test_alpha_dropout_values() -> None:
    p = 0.3
    a = 1 / math.sqrt((ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    out = F.alpha_dropout(ones(1000), p, training=True).numpy()
    kept, dropped = a * 1 + a * ALPHA_PRIME * p, a * ALPHA_PRIME * (p - 1)
    assert np.allclose(np.unique(out), sorted([dropped, kept]), atol=1e-6)
    x = texport.randn(200000)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02  # selu's fixed point is kept


def test_feature_alpha_dropout_draws_per_channel() -> None:
    out = F.feature_alpha_dropout(ones(6, 10, 7), 0.5, training=True).numpy()
    assert (out.min(-1) == out.max(-1)).all()
    assert len(np.unique(out)) == 2


def test_draws_repeat_under_a_seed() -> None:
    texport.manual_seed(3)
    first = F.dropout2d(ones(4, 8, 2, 2), 0.5).numpy()
    texport.manual_seed(3)
    np.testing.assert_array_equal(F.dropout2d(ones(4, 8, 2, 2), 0.5).numpy(), first)


def test_in_place_writes_the_input() -> None:
    x = ones(3, 4, 5)
    out = F.dropout1d(x, 1.0, inplace=True)
    assert not x.numpy().any() and not out.numpy().any()
    y = ones(4, 5)
    F.dropout1d(y, 1.0, inplace=True)
    assert not y.numpy().any()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        nn.Dropout2d(1.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.alpha_dropout(ones(3), -0.1)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(ones(1, 2, 3, 4))
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        F.dropout2d(ones(3, 4), training=False)
