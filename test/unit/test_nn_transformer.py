"""Transformer layers: torch's attributes, state-dict keys and masks, and an
encoder layer against the textbook post-norm formula computed in numpy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import texport
import texport.nn as nn
import texport.nn.functional as F

RNG = np.random.default_rng(16)


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def self_attention(x: np.ndarray, attn: nn.MultiheadAttention, masked: np.ndarray | None) -> np.ndarray:
    """[N, L, E] -> [N, L, E]: per-head softmax(q kᵀ / sqrt(d), masked keys -inf) v, projected out."""
    e, h = attn.embed_dim, attn.num_heads
    w, b = attn.in_proj_weight.numpy(), attn.in_proj_bias.numpy()
    q, k, v = (x @ w[i * e:(i + 1) * e].T + b[i * e:(i + 1) * e] for i in range(3))
    n, length, _ = x.shape
    q, k, v = (t.reshape(n, length, h, e // h).transpose(0, 2, 1, 3) for t in (q, k, v))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(e // h)
    if masked is not None:
        scores = np.where(masked[:, None, None, :], -np.inf, scores)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    heads = (weights @ v).transpose(0, 2, 1, 3).reshape(n, length, e)
    return heads @ attn.out_proj.weight.numpy().T + attn.out_proj.bias.numpy()


def test_encoder_layer_is_the_post_norm_formula() -> None:
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).eval()
    x = RNG.standard_normal((3, 5, 8)).astype(np.float32)
    padding = np.zeros((3, 5), dtype=bool)
    padding[1:, 3:] = True
    out = layer(texport.tensor(x), src_key_padding_mask=texport.tensor(padding)).numpy()

    def linear(t: np.ndarray, lin: nn.Linear) -> np.ndarray:
        return t @ lin.weight.numpy().T + lin.bias.numpy()

    h = layer_norm(x + self_attention(x, layer.self_attn, padding), layer.norm1.weight.numpy(),
                   layer.norm1.bias.numpy())
    ff = linear(np.maximum(linear(h, layer.linear1), 0), layer.linear2)
    expected = layer_norm(h + ff, layer.norm2.weight.numpy(), layer.norm2.bias.numpy())
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_state_dict_keys_and_attributes_are_torchs() -> None:
    layer = nn.TransformerDecoderLayer(8, 2, 16, bias=False)
    assert list(layer.state_dict()) == [
        "self_attn.in_proj_weight", "self_attn.out_proj.weight", "multihead_attn.in_proj_weight",
        "multihead_attn.out_proj.weight", "linear1.weight", "linear2.weight", "norm1.weight", "norm2.weight",
        "norm3.weight"]
    with pytest.warns(UserWarning, match="enable_nested_tensor is True"):  # as torch warns (batch_first=False)
        model = nn.Transformer(8, 2, 1, 2, 16)
    keys = list(model.state_dict())
    assert keys[0] == "encoder.layers.0.self_attn.in_proj_weight"
    assert "encoder.norm.weight" in keys and "decoder.layers.1.multihead_attn.in_proj_bias" in keys
    assert (model.d_model, model.nhead, model.batch_first) == (8, 2, False)
    assert nn.TransformerEncoderLayer(8, 2, activation="gelu").activation is F.gelu
    assert nn.TransformerEncoderLayer(8, 2).activation_relu_or_gelu == 1
    assert nn.TransformerEncoderLayer(8, 2, activation=F.silu).activation_relu_or_gelu == 0
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")


def test_encoder_warns_about_nested_tensors_as_torch_does() -> None:
    with pytest.warns(UserWarning, match="because encoder_layer.norm_first was True"):
        encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, norm_first=True), 3)
    assert (encoder.num_layers, encoder.use_nested_tensor, encoder.enable_nested_tensor) == (3, False, True)
    assert encoder.layers[0] is not encoder.layers[1]  # deep copies
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True), 1)
    assert encoder.use_nested_tensor


def test_square_subsequent_mask() -> None:
    mask = nn.Transformer.generate_square_subsequent_mask(3).numpy()
    np.testing.assert_array_equal(mask, [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]])


def test_causal_mask_is_detected_and_batch_sizes_checked() -> None:
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1,
                                    enable_nested_tensor=False).eval()
    x = texport.randn(2, 4, 8)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_allclose(encoder(x, mask=mask).numpy(), encoder(x, mask=mask, is_causal=True).numpy(),
                               rtol=1e-5, atol=1e-6)
    with pytest.warns(UserWarning, match="enable_nested_tensor is True"):
        model = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(texport.randn(3, 2, 8), texport.randn(3, 4, 8))
