"""numpy kernels for RNN, LSTM and GRU (sequences and cells) against a reference
written out separately: one sample and one gate at a time, in float64, with
the gate formulas of torch's documentation.

Every call goes through kernel_checks.run, which also checks the op's shape rule."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from kernel_checks import run

RNG = np.random.default_rng(7)


def rand(*shape: int, dtype: Any = np.float64) -> np.ndarray:
    return (RNG.standard_normal(shape) * 0.5).astype(dtype)


def sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v))


def row(w: np.ndarray, gate: int, size: int) -> np.ndarray:
    """Gate ``gate``'s rows of a stacked weight (torch stacks the gates along dim 0)."""
    return w[gate * size:(gate + 1) * size]


def affine(w: np.ndarray, b: np.ndarray | None, v: np.ndarray, gate: int, size: int) -> np.ndarray:
    out = row(w, gate, size) @ v
    return out if b is None else out + row(b, gate, size)


# ---------------------------------------------------------------- the reference, one sample at a time


def ref_cell(kind: str, x: np.ndarray, state: tuple[np.ndarray, ...], p: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """One step for one sample x [I] (torch's documented equations)."""
    h = state[0]
    size = p["w_hh"].shape[1] if kind != "lstm" else len(state[1])
    w_ih, w_hh, b_ih, b_hh = p["w_ih"], p["w_hh"], p.get("b_ih"), p.get("b_hh")
    if kind in ("tanh", "relu"):
        pre = affine(w_ih, b_ih, x, 0, size) + affine(w_hh, b_hh, h, 0, size)
        return (np.tanh(pre) if kind == "tanh" else np.maximum(pre, 0.0),)
    if kind == "gru":
        r = np.vectorize(sigmoid)(affine(w_ih, b_ih, x, 0, size) + affine(w_hh, b_hh, h, 0, size))
        z = np.vectorize(sigmoid)(affine(w_ih, b_ih, x, 1, size) + affine(w_hh, b_hh, h, 1, size))
        n = np.tanh(affine(w_ih, b_ih, x, 2, size) + r * affine(w_hh, b_hh, h, 2, size))
        return ((1 - z) * n + z * h,)
    c = state[1]
    i, f, g, o = (affine(w_ih, b_ih, x, k, size) + affine(w_hh, b_hh, h, k, size) for k in range(4))
    c_new = np.vectorize(sigmoid)(f) * c + np.vectorize(sigmoid)(i) * np.tanh(g)
    h_new = np.vectorize(sigmoid)(o) * np.tanh(c_new)
    if p.get("w_hr") is not None:
        h_new = p["w_hr"] @ h_new
    return h_new, c_new


def ref_sequence(kind: str, x: np.ndarray, states: list[np.ndarray], groups: list[dict[str, Any]],
                 layers: int, bidirectional: bool) -> tuple[np.ndarray, list[np.ndarray]]:
    """x [T, B, I] (time-major); states each [L*D, B, H]: outputs [T, B, D*H], final states."""
    directions = 2 if bidirectional else 1
    finals = [np.empty_like(s) for s in states]
    layer_input = x
    for layer in range(layers):
        per_direction = []
        for d in range(directions):
            index = layer * directions + d
            times = range(len(x))[::-1] if d else range(len(x))
            out = np.empty((len(x), x.shape[1], states[0].shape[2]))
            for b in range(x.shape[1]):
                state = tuple(s[index, b] for s in states)
                for t in times:
                    state = ref_cell(kind, layer_input[t, b], state, groups[index])
                    out[t, b] = state[0]
                for final, value in zip(finals, state):
                    final[index, b] = value
            per_direction.append(out)
        layer_input = np.concatenate(per_direction, axis=-1)
    return layer_input, finals


# ---------------------------------------------------------------- parameters


def make_groups(kind: str, input_size: int, hidden: int, layers: int, bidirectional: bool, bias: bool,
                proj: int = 0) -> list[dict[str, Any]]:
    gates = {"tanh": 1, "relu": 1, "gru": 3, "lstm": 4}[kind] * hidden
    out = proj or hidden
    directions = 2 if bidirectional else 1
    groups = []
    for layer in range(layers):
        for _ in range(directions):
            inputs = input_size if layer == 0 else out * directions
            group = {"w_ih": rand(gates, inputs), "w_hh": rand(gates, out)}
            if bias:
                group.update(b_ih=rand(gates), b_hh=rand(gates))
            if proj:
                group["w_hr"] = rand(proj, hidden)
            groups.append(group)
    return groups


def flat(groups: list[dict[str, Any]]) -> list[np.ndarray]:
    order = ("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")
    return [g[k] for g in groups for k in order if k in g]


SEQUENCE_OPS = {"tanh": "rnn_tanh.input", "relu": "rnn_relu.input", "gru": "gru.input"}
VARIANTS = [  # (layers, bidirectional, bias, batch_first)
    (1, False, True, False), (2, True, True, True), (3, False, False, False), (2, True, False, True)]


@pytest.mark.parametrize("kind", ["tanh", "relu", "gru"])
@pytest.mark.parametrize(("layers", "bidirectional", "bias", "batch_first"), VARIANTS)
def test_single_state_sequences_match_the_reference(kind: str, layers: int, bidirectional: bool, bias: bool,
                                                    batch_first: bool) -> None:
    t, b, i, h = 4, 3, 5, 6
    groups = make_groups(kind, i, h, layers, bidirectional, bias)
    x = rand(t, b, i)
    h0 = rand(layers * (2 if bidirectional else 1), b, h)
    given = x.swapaxes(0, 1).copy() if batch_first else x
    out, hy = run(SEQUENCE_OPS[kind], given, h0, flat(groups), bias, layers, 0.0, False, bidirectional,
                  batch_first)
    want_out, (want_h,) = ref_sequence(kind, x, [h0], groups, layers, bidirectional)
    np.testing.assert_allclose(out, want_out.swapaxes(0, 1) if batch_first else want_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hy, want_h, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("layers", "bidirectional", "bias", "batch_first"), VARIANTS)
@pytest.mark.parametrize("proj", [0, 2])
def test_lstm_matches_the_reference(layers: int, bidirectional: bool, bias: bool, batch_first: bool,
                                    proj: int) -> None:
    t, b, i, h = 3, 2, 4, 5
    groups = make_groups("lstm", i, h, layers, bidirectional, bias, proj)
    x = rand(t, b, i)
    count = layers * (2 if bidirectional else 1)
    h0, c0 = rand(count, b, proj or h), rand(count, b, h)
    given = x.swapaxes(0, 1).copy() if batch_first else x
    out, hy, cy = run("lstm.input", given, [h0, c0], flat(groups), bias, layers, 0.0, False, bidirectional,
                      batch_first)
    want_out, (want_h, want_c) = ref_sequence("lstm", x, [h0, c0], groups, layers, bidirectional)
    np.testing.assert_allclose(out, want_out.swapaxes(0, 1) if batch_first else want_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hy, want_h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cy, want_c, rtol=1e-10, atol=1e-12)


def test_batch_first_output_is_a_transposed_time_major_array() -> None:
    """torch computes time-major and hands [B, T, F] back transposed: strides (F, B*F, 1)."""
    groups = make_groups("gru", 3, 4, 1, True, True)
    x = rand(2, 5, 3, dtype=np.float32)
    out, _ = run("gru.input", x, np.zeros((2, 2, 4), np.float32), [p.astype(np.float32) for p in flat(groups)],
                 True, 1, 0.0, False, True, True)
    assert out.shape == (2, 5, 8) and out.dtype == np.float32
    assert tuple(s // out.itemsize for s in out.strides) == (8, 16, 1)


def test_dropout_between_layers_only_in_training() -> None:
    groups = make_groups("tanh", 3, 4, 2, False, True)
    x, h0 = rand(5, 2, 3), np.zeros((2, 2, 4))
    args = (x, h0, flat(groups), True, 2)
    evaluated = run("rnn_tanh.input", *args, 0.5, False, False, False)[0]
    reference = run("rnn_tanh.input", *args, 0.0, True, False, False)[0]
    np.testing.assert_allclose(evaluated, reference)
    trained = run("rnn_tanh.input", *args, 0.999, True, False, False)[0]
    assert not np.allclose(trained, reference)  # the first layer's outputs were (almost all) dropped


# ---------------------------------------------------------------- cells


def ref_cells(kind: str, x: np.ndarray, state: tuple[np.ndarray, ...], p: dict[str, Any]) -> tuple[np.ndarray, ...]:
    rows = [ref_cell(kind, x[b], tuple(s[b] for s in state), p) for b in range(len(x))]
    return tuple(np.stack(values) for values in zip(*rows))


@pytest.mark.parametrize("kind", ["tanh", "relu", "gru"])
@pytest.mark.parametrize("bias", [True, False])
def test_single_state_cells_match_the_reference(kind: str, bias: bool) -> None:
    (p,) = make_groups(kind, 5, 4, 1, False, bias)
    x, h = rand(3, 5), rand(3, 4)
    out = run(f"rnn_{kind}_cell" if kind != "gru" else "gru_cell", x, h, p["w_ih"], p["w_hh"], p.get("b_ih"),
              p.get("b_hh"))
    np.testing.assert_allclose(out, ref_cells(kind, x, (h,), p)[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("bias", [True, False])
def test_lstm_cell_matches_the_reference(bias: bool) -> None:
    (p,) = make_groups("lstm", 5, 4, 1, False, bias)
    x, h, c = rand(3, 5), rand(3, 4), rand(3, 4)
    hy, cy = run("lstm_cell", x, [h, c], p["w_ih"], p["w_hh"], p.get("b_ih"), p.get("b_hh"))
    want_h, want_c = ref_cells("lstm", x, (h, c), p)
    np.testing.assert_allclose(hy, want_h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cy, want_c, rtol=1e-10, atol=1e-12)


def test_reduced_floats_compute_in_float32() -> None:
    (p,) = make_groups("gru", 5, 4, 1, False, True)
    x, h = rand(3, 5), rand(3, 4)
    half = run("gru_cell", *(a.astype(np.float16) for a in (x, h, p["w_ih"], p["w_hh"], p["b_ih"], p["b_hh"])))
    assert half.dtype == np.float16
    np.testing.assert_allclose(half, ref_cells("gru", x, (h,), p)[0], rtol=2e-2, atol=2e-3)
