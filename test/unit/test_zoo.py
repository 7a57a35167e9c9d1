"""The model zoo runs eagerly with plausible outputs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from models import ZOO  # noqa: E402

import texport as torch  # noqa: E402

SHAPES = {
    "ConvBN": (1, 3, 3, 3), "MLP50": (32, 256), "GPT4": (2, 128, 256),
    "ResNet18": (1, 1000), "TinyLSTM": (4, 64), "LSTMScan": (4, 64), "EarlyExit": (8, 64),
}
PARAMS = {"MLP50": 3_289_600, "GPT4": 3_159_552, "ResNet18": 11_689_512}


@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo_model_runs_eagerly(name: str) -> None:
    model, args = ZOO[name]()
    model.eval()
    out = model(*args)
    out = out[0] if isinstance(out, tuple) else out
    assert tuple(out.shape) == SHAPES[name]
    values = out.numpy()
    assert values.dtype == np.float32 and np.isfinite(values).all()
    assert values.std() > 0  # not a constant
    if name in PARAMS:
        assert sum(p.numel() for p in model.parameters()) == PARAMS[name]


def test_batchnorm_statistics_move_in_train_mode() -> None:
    model, (x,) = ZOO["ConvBN"]()
    model.train()
    (out,) = model(x)
    conv_out = model.conv(x).numpy()
    mean = conv_out.mean(axis=(0, 2, 3))
    var = conv_out.var(axis=(0, 2, 3), ddof=1)
    np.testing.assert_allclose(model.bn.running_mean.numpy(), 0.1 * mean, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(model.bn.running_var.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
    assert model.bn.num_batches_tracked.item() == 1
    normalized = (conv_out - conv_out.mean(axis=(0, 2, 3), keepdims=True)) / np.sqrt(
        conv_out.var(axis=(0, 2, 3), keepdims=True) + 1e-5
    )
    np.testing.assert_allclose(out.numpy(), normalized, rtol=1e-4, atol=1e-5)


def test_gpt_causal_mask_hides_the_future() -> None:
    model, (x,) = ZOO["GPT4"]()
    model.eval()
    base = model(x).numpy()
    changed = x.clone()
    changed[:, 100:] = 0.0
    prefix = model(changed).numpy()[:, :100]
    np.testing.assert_allclose(prefix, base[:, :100], rtol=1e-4, atol=1e-4)
    torch.manual_seed(1)
