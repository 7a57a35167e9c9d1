"""MultiheadAttention and scaled_dot_product_attention against the textbook
formula softmax(Q K^T / sqrt(d) + mask) V, computed in numpy from the layer's own weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

import texport
import texport.nn as nn
import texport.nn.functional as F

RNG = np.random.default_rng(3)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def t(array: np.ndarray) -> texport.Tensor:
    return texport.tensor(array)


def close(actual: texport.Tensor, expected: np.ndarray, tol: float = 1e-5) -> None:
    assert tuple(actual.shape) == expected.shape
    np.testing.assert_allclose(actual.numpy(), expected, rtol=tol, atol=tol)


def softmax(x: np.ndarray) -> np.ndarray:
    shifted = np.exp(x - x.max(-1, keepdims=True))
    return shifted / shifted.sum(-1, keepdims=True)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, masked: np.ndarray | None = None,
              scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """softmax(q k^T * scale, masked -> -inf) v over the last two dims."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q.astype(np.float64) @ np.swapaxes(k, -1, -2) * scale
    if masked is not None:
        scores = np.where(masked, -np.inf, scores)
    weights = softmax(scores)
    return weights @ v, weights


def mha_reference(mha: nn.MultiheadAttention, query: np.ndarray, key: np.ndarray, value: np.ndarray,
                  masked: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Batch-first [N, L, E] inputs; returns the output and per-head weights [N, H, L, S]."""
    e, h = mha.embed_dim, mha.num_heads
    if mha._qkv_same_embed_dim:
        w = mha.in_proj_weight.numpy()
        wq, wk, wv = w[:e], w[e:2 * e], w[2 * e:]
    else:
        wq, wk, wv = (mha.q_proj_weight.numpy(), mha.k_proj_weight.numpy(), mha.v_proj_weight.numpy())
    b = mha.in_proj_bias.numpy()
    heads = []
    for x, weight, bias in ((query, wq, b[:e]), (key, wk, b[e:2 * e]), (value, wv, b[2 * e:])):
        projected = x @ weight.T + bias
        n, length, _ = projected.shape
        heads.append(projected.reshape(n, length, h, e // h).transpose(0, 2, 1, 3))
    out, weights = attention(*heads, masked=masked)
    n, _, length, _ = out.shape
    out = out.transpose(0, 2, 1, 3).reshape(n, length, e)
    return out @ mha.out_proj.weight.numpy().T + mha.out_proj.bias.numpy(), weights


def randomise_biases(mha: nn.MultiheadAttention) -> None:
    """Default init zeroes the biases; random ones make the check see them."""
    mha.in_proj_bias.copy_(t(rand(3 * mha.embed_dim)))
    mha.out_proj.bias.copy_(t(rand(mha.embed_dim)))


# ---------------------------------------------------------------- MultiheadAttention


def test_batch_first_self_attention_with_causal_mask() -> None:
    texport.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    randomise_biases(mha)
    x = rand(3, 5, 8)
    causal = np.triu(np.ones((5, 5), bool), 1)  # True = may not attend
    expected, per_head = mha_reference(mha, x, x, x, causal)
    xt = t(x)
    out, weights = mha(xt, xt, xt, attn_mask=texport.tensor(causal), is_causal=True)
    close(out, expected, 1e-4)
    close(weights, per_head.mean(1), 1e-5)  # averaged over heads
    assert np.all(weights.numpy()[:, causal] == 0)
    out_sdpa, none = mha(xt, xt, xt, attn_mask=texport.tensor(causal), is_causal=True, need_weights=False)
    assert none is None
    close(out_sdpa, expected, 1e-4)
    _, each = mha(xt, xt, xt, attn_mask=texport.tensor(causal), average_attn_weights=False)
    close(each, per_head, 1e-5)


def test_sequence_first_is_the_transposed_problem() -> None:
    mha = nn.MultiheadAttention(6, 3)
    randomise_biases(mha)
    q, kv = rand(4, 2, 6), rand(7, 2, 6)  # [L, N, E]
    expected, per_head = mha_reference(mha, q.transpose(1, 0, 2), kv.transpose(1, 0, 2), kv.transpose(1, 0, 2))
    kvt = t(kv)
    out, weights = mha(t(q), kvt, kvt)
    close(out, expected.transpose(1, 0, 2), 1e-4)
    close(weights, per_head.mean(1), 1e-5)


def test_float_mask_and_key_padding_mask() -> None:
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    randomise_biases(mha)
    q, k, v = rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 4)
    padding = np.array([[False, False, False, True, True], [False, False, False, False, True]])
    expected, _ = mha_reference(mha, q, k, v, padding[:, None, None, :])
    out, weights = mha(t(q), t(k), t(v), key_padding_mask=texport.tensor(padding))
    close(out, expected, 1e-4)
    assert np.all(weights.numpy()[0, :, 3:] == 0)
    additive = np.where(padding[:1].repeat(3, 0), -np.inf, 0).astype(np.float32)  # [L, S] from batch 0
    masked = np.broadcast_to(padding[0], (2, 1, 3, 5))
    expected_float, _ = mha_reference(mha, q, k, v, masked)
    out_float, _ = mha(t(q), t(k), t(v), attn_mask=t(additive), need_weights=False)
    close(out_float, expected_float, 1e-4)


def test_separate_projection_weights_when_kdim_vdim_differ() -> None:
    mha = nn.MultiheadAttention(4, 1, kdim=3, vdim=5, batch_first=True)
    assert mha.in_proj_weight is None
    assert [n for n, _ in mha.named_parameters()] == [
        "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias",
    ]
    randomise_biases(mha)
    q, k, v = rand(2, 3, 4), rand(2, 6, 3), rand(2, 6, 5)
    expected, _ = mha_reference(mha, q, k, v)
    close(mha(t(q), t(k), t(v))[0], expected, 1e-4)


def test_packed_parameters_and_repr() -> None:
    mha = nn.MultiheadAttention(4, 2, bias=False)
    assert [n for n, _ in mha.named_parameters()] == ["in_proj_weight", "out_proj.weight"]
    assert tuple(mha.in_proj_weight.shape) == (12, 4)
    assert isinstance(mha.out_proj, nn.Linear)
    assert repr(nn.MultiheadAttention(4, 2)) == (
        "MultiheadAttention(\n"
        "  (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, bias=True)\n"
        ")"
    )


def test_unbatched_input_and_errors() -> None:
    mha = nn.MultiheadAttention(4, 2)
    randomise_biases(mha)
    x = rand(3, 4)
    expected, _ = mha_reference(mha, x[None], x[None], x[None])
    out, weights = mha(t(x), t(x), t(x))
    close(out, expected[0], 1e-4)
    assert tuple(weights.shape) == (3, 3)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha(t(x), t(x), t(x), is_causal=True)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(5, 2)
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D tensor"):
        mha(t(rand(4)), t(rand(4)), t(rand(4)))


# ---------------------------------------------------------------- scaled_dot_product_attention


def test_sdpa_matches_formula() -> None:
    q, k, v = rand(2, 3, 4, 8), rand(2, 3, 6, 8), rand(2, 3, 6, 5)
    expected, _ = attention(q, k, v)
    close(F.scaled_dot_product_attention(t(q), t(k), t(v)), expected, 1e-5)
    expected_scaled, _ = attention(q, k, v, scale=0.3)
    close(F.scaled_dot_product_attention(t(q), t(k), t(v), scale=0.3), expected_scaled, 1e-5)
    causal = np.triu(np.ones((4, 6), bool), 1)  # top-left aligned, as torch's is_causal
    expected_causal, _ = attention(q, k, v, masked=causal)
    close(F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True), expected_causal, 1e-5)
    bias = rand(4, 6)
    scores = q.astype(np.float64) @ np.swapaxes(k, -1, -2) / math.sqrt(8) + bias
    close(F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(bias)), softmax(scores) @ v, 1e-5)
    keep = ~causal  # a bool mask says which positions may be attended
    close(F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=texport.tensor(keep)), expected_causal, 1e-5)
