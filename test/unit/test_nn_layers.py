"""Layers against independent numpy references (formulas and naive loops on tiny inputs)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import texport
import texport.nn as nn

RNG = np.random.default_rng(7)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def t(array: np.ndarray) -> texport.Tensor:
    return texport.tensor(array)


def close(actual: texport.Tensor, expected: np.ndarray, tol: float = 1e-5) -> None:
    assert tuple(actual.shape) == expected.shape
    np.testing.assert_allclose(actual.numpy(), expected, rtol=tol, atol=tol)


def set_param(p: nn.Parameter, array: np.ndarray) -> None:
    p.copy_(t(array))


# ---------------------------------------------------------------- reference convolutions


def conv_reference(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, ...],
                   padding: tuple[int, ...], dilation: tuple[int, ...], groups: int) -> np.ndarray:
    """Direct N-d cross-correlation by loops over every output and kernel position."""
    rank = x.ndim - 2
    pads = [(0, 0), (0, 0)] + [(p, p) for p in padding]
    xp = np.pad(x.astype(np.float64), pads)
    n, c_in = x.shape[:2]
    c_out, c_per_group = w.shape[:2]
    kernel = w.shape[2:]
    out_spatial = [
        (xp.shape[2 + d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1 for d in range(rank)
    ]
    out = np.zeros((n, c_out, *out_spatial))
    out_per_group = c_out // groups
    for batch in range(n):
        for oc in range(c_out):
            g = oc // out_per_group
            for pos in np.ndindex(*out_spatial):
                total = 0.0 if b is None else float(b[oc])
                for ic in range(c_per_group):
                    for k in np.ndindex(*kernel):
                        src = tuple(pos[d] * stride[d] + k[d] * dilation[d] for d in range(rank))
                        total += xp[(batch, g * c_per_group + ic, *src)] * w[(oc, ic, *k)]
                out[(batch, oc, *pos)] = total
    return out


def conv_transpose2d_reference(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: int, padding: int,
                               output_padding: int, groups: int, dilation: int) -> np.ndarray:
    """Scatter each input pixel times the kernel into the output, then crop the padding."""
    n, c_in, h, wd = x.shape
    _, oc_per_group, kh, kw = w.shape
    ic_per_group = c_in // groups
    full_h = (h - 1) * stride + dilation * (kh - 1) + 1 + output_padding
    full_w = (wd - 1) * stride + dilation * (kw - 1) + 1 + output_padding
    full = np.zeros((n, oc_per_group * groups, full_h, full_w))
    for batch, ic, i, j, oc, a, c in np.ndindex(n, c_in, h, wd, oc_per_group, kh, kw):
        g = ic // ic_per_group
        full[batch, g * oc_per_group + oc, i * stride + a * dilation, j * stride + c * dilation] += (
            x[batch, ic, i, j] * w[ic, oc, a, c]
        )
    out = full[:, :, padding:full_h - padding, padding:full_w - padding]
    if b is not None:
        out = out + b[None, :, None, None]
    return out


# ---------------------------------------------------------------- Linear


def test_linear_is_x_times_w_transposed_plus_b() -> None:
    layer = nn.Linear(4, 3)
    x = rand(2, 5, 4)
    w, b = layer.weight.numpy(), layer.bias.numpy()
    close(layer(t(x)), x @ w.T + b)
    no_bias = nn.Linear(4, 2, bias=False)
    assert no_bias.bias is None and [n for n, _ in no_bias.named_parameters()] == ["weight"]
    close(no_bias(t(x[0])), x[0] @ no_bias.weight.numpy().T)
    assert repr(no_bias) == "Linear(in_features=4, out_features=2, bias=False)"


def test_identity_and_flatten() -> None:
    x = t(rand(2, 3, 4, 5))
    assert nn.Identity(54, unused=True)(x) is x
    close(nn.Flatten()(x), x.numpy().reshape(2, 60))
    close(nn.Flatten(0, 2)(x), x.numpy().reshape(24, 5))
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    y = rand(2, 6)
    close(nn.Unflatten(1, (3, 2))(t(y)), y.reshape(2, 3, 2))


# ---------------------------------------------------------------- convolutions


@pytest.mark.parametrize("stride, padding, dilation, groups, bias", [
    (1, 0, 1, 1, True),
    (2, 1, 1, 1, False),
    (1, 2, 2, 2, True),
    ((2, 1), (1, 0), (1, 2), 1, True),
])
def test_conv2d_matches_naive_loop(stride: Any, padding: Any, dilation: Any, groups: int, bias: bool) -> None:
    conv = nn.Conv2d(4, 6, (3, 2), stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)
    x = rand(2, 4, 7, 6)
    expected = conv_reference(
        x, conv.weight.numpy(), None if conv.bias is None else conv.bias.numpy(), conv.stride, conv.padding,
        conv.dilation, groups,
    )
    close(conv(t(x)), expected, 1e-4)


@pytest.mark.parametrize("kernel, dilation", [(3, 1), (3, 2), (4, 1)])
def test_conv2d_same_padding_puts_the_extra_element_on_the_right(kernel: int, dilation: int) -> None:
    conv = nn.Conv2d(2, 3, kernel, padding="same", dilation=dilation)
    x = rand(1, 2, 5, 6)
    total = dilation * (kernel - 1)
    padded = np.pad(x, [(0, 0), (0, 0), (total // 2, total - total // 2), (total // 2, total - total // 2)])
    expected = conv_reference(padded, conv.weight.numpy(), conv.bias.numpy(), (1, 1), (0, 0),
                              (dilation, dilation), 1)
    close(conv(t(x)), expected, 1e-4)
    valid = nn.Conv2d(2, 3, kernel, padding="valid", dilation=dilation)
    close(valid(t(x)), conv_reference(x, valid.weight.numpy(), valid.bias.numpy(), (1, 1), (0, 0),
                                      (dilation, dilation), 1), 1e-4)


def test_conv_padding_modes_pad_first() -> None:
    conv = nn.Conv2d(1, 2, 3, padding=1, padding_mode="reflect")
    x = rand(1, 1, 4, 5)
    padded = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], mode="reflect")
    close(conv(t(x)), conv_reference(padded, conv.weight.numpy(), conv.bias.numpy(), (1, 1), (0, 0), (1, 1), 1),
          1e-4)
    assert "padding_mode=reflect" in repr(conv)


def test_conv1d_and_conv3d_match_naive_loop() -> None:
    conv1 = nn.Conv1d(3, 4, 3, stride=2, padding=1)
    x1 = rand(2, 3, 9)
    close(conv1(t(x1)), conv_reference(x1, conv1.weight.numpy(), conv1.bias.numpy(), (2,), (1,), (1,), 1), 1e-4)
    conv3 = nn.Conv3d(2, 2, 2, padding=1, groups=2)
    x3 = rand(1, 2, 3, 3, 2)
    close(conv3(t(x3)), conv_reference(x3, conv3.weight.numpy(), conv3.bias.numpy(), (1, 1, 1), (1, 1, 1),
                                       (1, 1, 1), 2), 1e-4)


def test_conv_argument_checks_and_repr() -> None:
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 1, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 1, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(1, 1, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        nn.Conv2d(1, 1, 3, padding="full")
    assert repr(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)) == (
        "Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)"
    )
    assert repr(nn.Conv1d(2, 4, 3, dilation=2, groups=2)) == (
        "Conv1d(2, 4, kernel_size=(3,), stride=(1,), dilation=(2,), groups=2)"
    )


@pytest.mark.parametrize("stride, padding, output_padding, groups, dilation", [
    (1, 0, 0, 1, 1),
    (2, 1, 1, 1, 1),
    (2, 0, 0, 2, 2),
])
def test_conv_transpose2d_matches_scatter_loop(stride: int, padding: int, output_padding: int, groups: int,
                                               dilation: int) -> None:
    deconv = nn.ConvTranspose2d(4, 6, 3, stride=stride, padding=padding, output_padding=output_padding,
                                groups=groups, dilation=dilation)
    x = rand(2, 4, 3, 4)
    expected = conv_transpose2d_reference(x, deconv.weight.numpy(), deconv.bias.numpy(), stride, padding,
                                          output_padding, groups, dilation)
    close(deconv(t(x)), expected, 1e-4)


def test_conv_transpose2d_output_size_picks_output_padding() -> None:
    deconv = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    x = rand(1, 2, 4, 4)
    assert tuple(deconv(t(x)).shape) == (1, 3, 7, 7)
    out = deconv(t(x), output_size=[8, 8])
    expected = conv_transpose2d_reference(x, deconv.weight.numpy(), deconv.bias.numpy(), 2, 1, 1, 1, 1)
    close(out, expected, 1e-4)
    with pytest.raises(ValueError, match=r"requested an output size of \[10, 10\], but valid sizes range from "
                                         r"\[7, 7\] to \[8, 8\]"):
        deconv(t(x), output_size=[10, 10])


# ---------------------------------------------------------------- embedding, dropout


def test_embedding_looks_up_rows() -> None:
    emb = nn.Embedding(10, 3, padding_idx=2)
    idx = np.array([[1, 2, 9], [0, 0, 4]])
    table = emb.weight.numpy()
    close(emb(texport.tensor(idx)), table[idx])
    assert np.all(table[2] == 0)
    assert repr(emb) == "Embedding(10, 3, padding_idx=2)"
    pretrained = nn.Embedding.from_pretrained(t(rand(4, 2)))
    assert not pretrained.weight.requires_grad and tuple(pretrained.weight.shape) == (4, 2)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=3)


def test_dropout_train_and_eval() -> None:
    texport.manual_seed(0)
    layer = nn.Dropout(0.5)
    x = np.full((100, 100), 3.0, np.float32)
    out = layer(t(x)).numpy()
    assert set(np.unique(out)) <= {0.0, 6.0}  # kept elements scale by 1/(1-p)
    assert abs((out == 0).mean() - 0.5) < 0.03
    layer.eval()
    close(layer(t(x)), x)
    assert np.all(nn.Dropout(1.0)(t(x)).numpy() == 0)
    close(nn.Dropout(0.0)(t(x)), x)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


# ---------------------------------------------------------------- activations


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def gelu_erf(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


ACTIVATIONS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.GELU(), gelu_erf),
    (nn.GELU("tanh"), lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))),
    (nn.SiLU(), lambda x: x * sigmoid(x)),
    (nn.Tanh(), np.tanh),
    (nn.Sigmoid(), sigmoid),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    (nn.Hardtanh(-2.0, 1.5), lambda x: np.clip(x, -2, 1.5)),
    (nn.Softplus(beta=2.0), lambda x: np.log1p(np.exp(2 * x)) / 2),
    (nn.Softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    (nn.LogSoftmax(dim=-1), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
]


@pytest.mark.parametrize("layer, formula", ACTIVATIONS, ids=[type(a).__name__ for a, _ in ACTIVATIONS])
def test_activation_formulas(layer: nn.Module, formula: Callable[[np.ndarray], np.ndarray]) -> None:
    x = rand(3, 4, 5) * 4
    close(layer(t(x)), formula(x.astype(np.float64)).astype(np.float32), 1e-4)


def test_inplace_activation_writes_its_input() -> None:
    x = t(np.array([-1.0, 2.0], np.float32))
    assert nn.ReLU(inplace=True)(x) is x and x.tolist() == [0.0, 2.0]
    y = t(np.array([-1.0, 7.0], np.float32))
    assert nn.ReLU6(inplace=True)(y) is y and y.tolist() == [0.0, 6.0]
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    assert repr(nn.GELU("tanh")) == "GELU(approximate='tanh')"
    assert repr(nn.Softmax(1)) == "Softmax(dim=1)"


# ---------------------------------------------------------------- pooling


def pool_reference(x: np.ndarray, k: int, s: int, p: int, reduce: str) -> np.ndarray:
    n, c, h, w = x.shape
    fill = -np.inf if reduce == "max" else 0.0
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (p, p), (p, p)], constant_values=fill)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.zeros((n, c, oh, ow))
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        window = xp[b, ch, i * s:i * s + k, j * s:j * s + k]
        out[b, ch, i, j] = window.max() if reduce == "max" else window.sum() / (k * k)
    return out


@pytest.mark.parametrize("k, s, p", [(2, 2, 0), (3, 1, 1), (3, 2, 1)])
def test_max_and_avg_pool2d(k: int, s: int, p: int) -> None:
    x = rand(2, 3, 6, 7)
    close(nn.MaxPool2d(k, s, p)(t(x)), pool_reference(x, k, s, p, "max"))
    close(nn.AvgPool2d(k, s, p)(t(x)), pool_reference(x, k, s, p, "avg"))


def test_pool_stride_defaults_to_kernel() -> None:
    x = rand(1, 1, 4, 4)
    pool = nn.MaxPool2d(2)
    assert pool.stride == 2
    close(pool(t(x)), pool_reference(x, 2, 2, 0, "max"))
    assert repr(pool) == "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool2d(3)) == "AvgPool2d(kernel_size=3, stride=3, padding=0)"


def test_adaptive_avg_pool2d_uses_floor_ceil_windows() -> None:
    x = rand(2, 3, 5, 7)
    close(nn.AdaptiveAvgPool2d(1)(t(x)), x.mean(axis=(2, 3), keepdims=True))
    out_h, out_w = 2, 3
    expected = np.zeros((2, 3, out_h, out_w))
    for i, j in np.ndindex(out_h, out_w):
        h0, h1 = (i * 5) // out_h, math.ceil((i + 1) * 5 / out_h)
        w0, w1 = (j * 7) // out_w, math.ceil((j + 1) * 7 / out_w)
        expected[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    close(nn.AdaptiveAvgPool2d((out_h, out_w))(t(x)), expected)
    close(nn.AdaptiveAvgPool2d((None, 1))(t(x)), x.mean(axis=3, keepdims=True))
    assert repr(nn.AdaptiveAvgPool2d((2, 3))) == "AdaptiveAvgPool2d(output_size=(2, 3))"


# ---------------------------------------------------------------- embedding bags, padding, pixel shuffle


def test_embedding_bag_means_sums_and_maxima_of_bags() -> None:
    bag = nn.EmbeddingBag(6, 2, padding_idx=-1)
    table = bag.weight.numpy()
    assert np.all(table[5] == 0) and bag.padding_idx == 5
    assert repr(bag) == "EmbeddingBag(6, 2, mode='mean', padding_idx=5)"
    indices, offsets = np.array([1, 5, 2, 4, 0]), np.array([0, 3])
    expected = np.stack([table[[1, 2]].mean(0), table[[4, 0]].mean(0)])  # row 5 is padding: left out
    close(bag(texport.tensor(indices), texport.tensor(offsets)), expected)
    fixed = nn.EmbeddingBag.from_pretrained(t(table), mode="max")
    rows = np.array([[1, 2], [3, 4]])
    close(fixed(texport.tensor(rows)), table[rows].max(1))
    summed = nn.EmbeddingBag.from_pretrained(t(table), mode="sum")
    close(summed(texport.tensor(indices), texport.tensor(offsets), t(np.full(5, 2, np.float32))),
          2 * np.stack([table[[1, 5, 2]].sum(0), table[[4, 0]].sum(0)]))
    with pytest.raises(ValueError, match="offsets has to be None"):
        fixed(texport.tensor(rows), texport.tensor(offsets))


@pytest.mark.parametrize(("layer", "numpy_mode"), [
    (nn.ReflectionPad2d((1, 2, 2, 1)), "reflect"), (nn.ReplicationPad2d((1, 2, 2, 1)), "edge"),
    (nn.CircularPad2d((1, 2, 2, 1)), "wrap"), (nn.ZeroPad2d((1, 2, 2, 1)), "constant")])
def test_padding_layers_match_numpy_pad(layer: nn.Module, numpy_mode: str) -> None:
    x = rand(2, 3, 4, 5)
    close(layer(t(x)), np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 2)], mode=numpy_mode))
    assert layer.padding == (1, 2, 2, 1)


def test_constant_padding_layers_and_reprs() -> None:
    x = rand(2, 3, 4)
    close(nn.ConstantPad1d(2, 3.5)(t(x)), np.pad(x, [(0, 0), (0, 0), (2, 2)], constant_values=3.5))
    assert repr(nn.ConstantPad1d(2, 3.5)) == "ConstantPad1d(padding=(2, 2), value=3.5)"
    assert repr(nn.ZeroPad3d(1)) == "ZeroPad3d((1, 1, 1, 1, 1, 1))"
    assert repr(nn.ReflectionPad1d(3)) == "ReflectionPad1d((3, 3))"


def test_pixel_shuffle_moves_channel_blocks_to_space_and_back() -> None:
    x = rand(2, 8, 3, 4)
    shuffled = nn.PixelShuffle(2)(t(x))
    # out[n, c, h*r + i, w*r + j] = x[n, c*r*r + i*r + j, h, w]
    expected = x.reshape(2, 2, 2, 2, 3, 4).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 8)
    close(shuffled, expected)
    close(nn.PixelUnshuffle(2)(shuffled), x)
    assert repr(nn.PixelShuffle(2)) == "PixelShuffle(upscale_factor=2)"
    assert repr(nn.PixelUnshuffle(3)) == "PixelUnshuffle(downscale_factor=3)"
