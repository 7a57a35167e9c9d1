"""texport.nn.functional: which op each function records (what torch.export's
training IR holds), and the numbers against numpy references."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import texport
import texport.nn as nn
import texport.nn.functional as F
from texport.tracer.dispatcher import using_mode
from texport.tracer.eager import EagerMode
from texport.tracer.handles import OpOverload

RNG = np.random.default_rng(5)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def t(array: np.ndarray) -> texport.Tensor:
    return texport.tensor(array)


def close(actual: texport.Tensor, expected: np.ndarray, tol: float = 1e-5) -> None:
    assert tuple(actual.shape) == np.shape(expected)
    np.testing.assert_allclose(actual.numpy(), expected, rtol=tol, atol=tol)


class Recorder(EagerMode):
    """Eager execution that also records every op call: (key, bound arguments)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, list[Any]]] = []

    def call(self, op: OpOverload, values: list[Any]) -> Any:
        self.calls.append((str(op), list(values)))
        return super().call(op, values)

    def ops(self) -> list[str]:
        return [name.removeprefix("aten.") for name, _ in self.calls]



def record(fn: Callable[[], Any]) -> Recorder:
    recorder = Recorder()
    with using_mode(recorder):
        fn()
    return recorder


# ---------------------------------------------------------------- recorded ops


def test_linear_and_conv_record_torch_export_ops() -> None:
    x, w, b = t(rand(2, 3)), t(rand(4, 3)), t(rand(4))
    assert record(lambda: F.linear(x, w, b)).ops() == ["linear.default"]
    img, kernel = t(rand(1, 2, 5, 5)), t(rand(3, 2, 3, 3))
    plain = record(lambda: F.conv2d(img, kernel, None, 2, 1))
    assert plain.ops() == ["conv2d.default"]
    assert plain.calls[0][1][2:] == [None, [2, 2], [1, 1], [1, 1], 1]
    same = record(lambda: F.conv2d(img, kernel, padding="same"))
    assert same.ops() == ["conv2d.padding"] and same.calls[0][1][4] == "same"
    assert record(lambda: F.conv1d(t(rand(1, 2, 5)), t(rand(3, 2, 3)))).ops() == ["conv1d.default"]
    deconv = t(rand(2, 3, 3, 3))
    assert record(lambda: F.conv_transpose2d(img, deconv)).ops() == ["conv_transpose2d.input"]
    layers = nn.Sequential(nn.Linear(3, 3), nn.Flatten(0))
    assert record(lambda: layers(x)).ops() == ["linear.default", "flatten.using_ints"]


def test_batch_norm_training_records_add_then_batch_norm() -> None:
    model = nn.Sequential(nn.Conv2d(1, 3, 1), nn.BatchNorm2d(3))
    x = t(rand(1, 1, 3, 3))
    train = record(lambda: model(x))
    assert train.ops() == ["conv2d.default", "add_.Tensor", "batch_norm.default"]
    add = train.calls[1][1]
    assert add[0] is model[1].num_batches_tracked and add[1] == 1
    args = train.calls[2][1]
    assert args[1] is model[1].weight and args[3] is model[1].running_mean
    assert args[5:] == [True, 0.1, 1e-05, False]  # the seed's batch_norm.default(..., True, 0.1, 1e-05, False)
    model.eval()
    evaluation = record(lambda: model(x))
    assert evaluation.ops() == ["conv2d.default", "batch_norm.default"]
    assert evaluation.calls[1][1][5:] == [False, 0.1, 1e-05, False]


def test_norms_dropout_activations_record_their_ops() -> None:
    x = t(rand(2, 4))
    ln = record(lambda: F.layer_norm(x, (4,)))
    assert ln.ops() == ["layer_norm.default"] and ln.calls[0][1][1] == [4]
    assert ln.calls[0][1][4:] == [1e-05, False]  # cudnn_enable recorded as batch_norm's (False)
    assert record(lambda: F.group_norm(t(rand(2, 4, 3)), 2)).ops() == ["group_norm.default"]
    drop = nn.Dropout(0.25).eval()
    recorded = record(lambda: drop(x))
    assert recorded.ops() == ["dropout.default"] and recorded.calls[0][1][1:] == [0.25, False]
    expectations = [
        (lambda: F.relu(x), "relu.default"),
        (lambda: nn.ReLU(inplace=True)(x.clone()), "relu_.default"),
        (lambda: F.gelu(x, approximate="tanh"), "gelu.default"),
        (lambda: nn.SiLU()(x), "silu.default"),
        (lambda: nn.Tanh()(x), "tanh.default"),
        (lambda: nn.Sigmoid()(x), "sigmoid.default"),
        (lambda: F.softmax(x, -1), "softmax.int"),
        (lambda: nn.LogSoftmax(1)(x), "log_softmax.int"),
        (lambda: nn.ReLU6()(x), "hardtanh.default"),  # nn.ReLU6 is a Hardtanh, as torch's
        (lambda: F.relu6(x), "relu6.default"),
        (lambda: F.embedding(texport.tensor([1, 0]), x), "embedding.default"),
        (lambda: F.one_hot(texport.tensor([1, 0])), "one_hot.default"),
        (lambda: F.pad(x, (1, 1)), "pad.default"),
    ]
    for fn, expected in expectations:
        assert record(fn).ops()[-1] == expected


def test_pooling_and_resampling_record_their_ops() -> None:
    img = t(rand(1, 2, 4, 4))
    pooled = record(lambda: F.max_pool2d(img, 2))
    assert pooled.ops() == ["max_pool2d.default"] and pooled.calls[0][1][2] == []  # absent stride
    assert record(lambda: nn.MaxPool2d(2)(img)).calls[0][1][2] == [2, 2]
    assert record(lambda: nn.AvgPool2d(2)(img)).ops() == ["avg_pool2d.default"]
    assert record(lambda: nn.AdaptiveAvgPool2d(1)(img)).ops() == ["adaptive_avg_pool2d.default"]
    nearest = record(lambda: F.interpolate(img, scale_factor=2))
    assert nearest.ops() == ["upsample_nearest2d.vec"] and nearest.calls[0][1][1:] == [None, [2.0, 2.0]]
    bilinear = record(lambda: F.interpolate(img, size=(6, 5), mode="bilinear", align_corners=True))
    assert bilinear.ops() == ["upsample_bilinear2d.vec"] and bilinear.calls[0][1][1:] == [[6, 5], True, None]


def test_losses_and_attention_record_their_ops() -> None:
    logits, target = t(rand(3, 4)), texport.tensor([0, 3, 1])
    ce = record(lambda: F.cross_entropy(logits, target, reduction="sum", label_smoothing=0.1))
    assert ce.ops() == ["cross_entropy_loss.default"] and ce.calls[0][1][2:] == [None, 2, -100, 0.1]
    mse = record(lambda: F.mse_loss(logits, logits, reduction="none"))
    # torch's F.mse_loss broadcasts input and target first, whatever their sizes
    assert mse.ops() == ["broadcast_tensors.default", "mse_loss.default"] and mse.calls[1][1][2] == 0
    q = t(rand(1, 2, 3, 4))
    sdpa = record(lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True, scale=0.5))
    assert sdpa.ops() == ["scaled_dot_product_attention.default"]
    assert sdpa.calls[0][1][3:] == [None, 0.0, True, 0.5, False]


def test_multihead_attention_records_torch_composite() -> None:
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    x = t(rand(2, 3, 4))
    mask = texport.tensor(np.triu(np.ones((3, 3), bool), 1))
    fast = record(lambda: mha(x, x, x, attn_mask=mask, is_causal=True, need_weights=False))
    ops = fast.ops()
    assert ops.count("linear.default") == 2  # one packed in-projection, one out_proj
    assert "scaled_dot_product_attention.default" in ops and "bmm.default" not in ops
    sdpa = next(values for name, values in fast.calls if name.endswith("scaled_dot_product_attention.default"))
    assert sdpa[3] is None and sdpa[5] is True  # the causal hint replaces the mask
    weighted = record(lambda: mha(x, x, x, attn_mask=mask)).ops()
    assert "baddbmm.default" in weighted and "softmax.int" in weighted and "mean.dim" in weighted
    assert "scaled_dot_product_attention.default" not in weighted


# ---------------------------------------------------------------- numbers


def test_activation_functionals() -> None:
    x = rand(4, 5) * 4
    close(F.relu6(t(x)), np.clip(x, 0, 6))
    close(F.leaky_relu(t(x), 0.3), np.where(x > 0, x, 0.3 * x))
    close(F.elu(t(x), 2.0), np.where(x > 0, x, 2.0 * np.expm1(x)), 1e-4)
    close(F.softplus(t(x), beta=0.5, threshold=3.0),
          np.where(0.5 * x > 3.0, x, np.log1p(np.exp(0.5 * x)) / 0.5), 1e-4)
    close(F.hardtanh(t(x), -0.5, 0.5), np.clip(x, -0.5, 0.5))
    inplace = t(x.copy())
    assert F.leaky_relu(inplace, 0.1, inplace=True) is inplace
    close(inplace, np.where(x > 0, x, 0.1 * x))
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(t(x), 1.0, -1.0)


def test_softmax_without_dim_warns_and_picks_torch_default() -> None:
    x = rand(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        out = F.softmax(t(x))
    close(out, np.exp(x) / np.exp(x).sum(1, keepdims=True))


def test_normalize_divides_by_clamped_norm() -> None:
    x = rand(3, 4)
    x[1] = 0  # a zero row stays zero: its norm is clamped to eps
    norms = np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    close(F.normalize(t(x)), x / norms)
    l1 = np.maximum(np.abs(x).sum(0, keepdims=True), 1e-12)
    close(F.normalize(t(x), p=1, dim=0), x / l1)


def test_pad_modes() -> None:
    x = rand(1, 2, 3, 4)
    close(F.pad(t(x), (1, 2)), np.pad(x, [(0, 0), (0, 0), (0, 0), (1, 2)]))
    close(F.pad(t(x), (1, 0, 0, 2), value=5.0),
          np.pad(x, [(0, 0), (0, 0), (0, 2), (1, 0)], constant_values=5.0))
    close(F.pad(t(x), (2, 1, 1, 1), mode="reflect"), np.pad(x, [(0, 0), (0, 0), (1, 1), (2, 1)], mode="reflect"))
    close(F.pad(t(x), (1, 1), mode="replicate"), np.pad(x, [(0, 0), (0, 0), (0, 0), (1, 1)], mode="edge"))


def nearest_reference(x: np.ndarray, out_h: int, out_w: int, scale_h: float, scale_w: float) -> np.ndarray:
    rows = np.minimum(np.floor(np.arange(out_h) * scale_h).astype(int), x.shape[2] - 1)
    cols = np.minimum(np.floor(np.arange(out_w) * scale_w).astype(int), x.shape[3] - 1)
    return x[:, :, rows][:, :, :, cols]


def bilinear_reference(x: np.ndarray, out_h: int, out_w: int, align_corners: bool) -> np.ndarray:
    def source(out_size: int, in_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        i = np.arange(out_size, dtype=np.float64)
        if align_corners:
            src = i * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
        else:
            src = np.maximum((i + 0.5) * (in_size / out_size) - 0.5, 0.0)
        low = np.floor(src).astype(int)
        high = np.minimum(low + 1, in_size - 1)
        return low, high, src - low

    r0, r1, fr = source(out_h, x.shape[2])
    c0, c1, fc = source(out_w, x.shape[3])
    top = x[:, :, r0][:, :, :, c0] * (1 - fc) + x[:, :, r0][:, :, :, c1] * fc
    bottom = x[:, :, r1][:, :, :, c0] * (1 - fc) + x[:, :, r1][:, :, :, c1] * fc
    return top * (1 - fr)[:, None] + bottom * fr[:, None]


def test_interpolate_nearest_and_bilinear() -> None:
    x = rand(2, 3, 4, 5)
    close(F.interpolate(t(x), scale_factor=2), x.repeat(2, axis=2).repeat(2, axis=3))
    close(F.interpolate(t(x), size=(6, 3)), nearest_reference(x, 6, 3, 4 / 6, 5 / 3))
    for align_corners in (False, True):
        close(F.interpolate(t(x), size=(7, 8), mode="bilinear", align_corners=align_corners),
              bilinear_reference(x, 7, 8, align_corners), 1e-5)
    close(F.interpolate(t(x), size=4, mode="area"), _area(x, 4, 4))


def _area(x: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    out = np.zeros((*x.shape[:2], out_h, out_w), np.float64)
    for i, j in np.ndindex(out_h, out_w):
        h0, h1 = (i * x.shape[2]) // out_h, math.ceil((i + 1) * x.shape[2] / out_h)
        w0, w1 = (j * x.shape[3]) // out_w, math.ceil((j + 1) * x.shape[3] / out_w)
        out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


def test_interpolate_argument_errors() -> None:
    x = t(rand(1, 1, 2, 2))
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        F.interpolate(x, size=4, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="align_corners option can only be set with the interpolating modes"):
        F.interpolate(x, size=4, align_corners=True)
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode needs 3D input"):
        F.interpolate(x, size=4, mode="linear")
    with pytest.raises(ValueError, match="Input and output must have the same number of spatial dimensions"):
        F.interpolate(x, size=(4, 4, 4))


def test_one_hot() -> None:
    labels = np.array([[0, 2], [1, 3]])
    out = F.one_hot(texport.tensor(labels))
    assert out.dtype is texport.int64
    close(out, np.eye(4, dtype=np.int64)[labels])
    close(F.one_hot(texport.tensor(labels), 6), np.eye(6, dtype=np.int64)[labels])


def log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


def test_cross_entropy_reductions_and_ignore_index() -> None:
    logits, labels = rand(5, 4).astype(np.float64), np.array([0, 3, 1, 1, 2])
    nll = -log_softmax(logits)[np.arange(5), labels]
    lt, yt = texport.tensor(logits), texport.tensor(labels)
    close(F.cross_entropy(lt, yt), np.float64(nll.mean()))
    close(F.cross_entropy(lt, yt, reduction="sum"), np.float64(nll.sum()))
    close(F.cross_entropy(lt, yt, reduction="none"), nll)
    ignored = texport.tensor(np.array([0, 3, -100, 1, 2]))
    keep = np.array([True, True, False, True, True])
    close(F.cross_entropy(lt, ignored), np.float64(nll[keep].mean()))
    smooth = 0.2
    smoothed = (1 - smooth) * nll + smooth * (-log_softmax(logits)).mean(1)
    close(F.cross_entropy(lt, yt, label_smoothing=smooth), np.float64(smoothed.mean()))
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.cross_entropy(lt, yt, reduction="avg")


def test_mse_and_l1_losses() -> None:
    a, b = rand(3, 4), rand(3, 4)
    close(F.mse_loss(t(a), t(b)), np.float32(((a - b) ** 2).mean()))
    close(F.mse_loss(t(a), t(b), reduction="sum"), np.float32(((a - b) ** 2).sum()), 1e-4)
    close(F.mse_loss(t(a), t(b), reduction="none"), (a - b) ** 2)
    close(F.l1_loss(t(a), t(b)), np.float32(np.abs(a - b).mean()))
    row = rand(4)
    with pytest.warns(UserWarning, match="Using a target size"):
        broadcast = F.mse_loss(t(a), t(row), reduction="none")
    close(broadcast, (a - row) ** 2)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        legacy = F.mse_loss(t(a), t(b), size_average=False)
    close(legacy, np.float32(((a - b) ** 2).sum()), 1e-4)


def test_dropout_functional() -> None:
    x = np.ones((50, 50), np.float32)
    close(F.dropout(t(x), 0.3, training=False), x)
    out = F.dropout(t(x), 0.2).numpy()
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.8)}
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        F.dropout(t(x), -0.1)
