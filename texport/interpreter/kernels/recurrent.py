"""Kernels: recurrent networks over a sequence (RNN, LSTM, GRU) and their cells.

Each time step needs the state the previous one left, so time is a Python
loop; everything inside a step is whole-batch numpy. A layer's input
projection (x W_ih^T + b_ih) does not depend on the state, so it is one
product over all time steps, as ATen's CPU kernel computes it. Half and
bfloat16 run in float32 and are rounded once at the end.

A step takes the projected input of one time step, the state (h,) or (h, c)
and the hidden-to-hidden weights, and returns the new state; its first entry
is the step's output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from . import kernel
from .common import opmath, result_as
from .elementwise import _dropout_values

Array = np.ndarray
State = tuple[Array, ...]


class Hidden(NamedTuple):
    """The weights a step applies to the state: w_hh, b_hh, and the LSTM's w_hr."""

    w_hh: Array
    b_hh: Array | None
    w_hr: Array | None = None


Step = Callable[[Array, State, Hidden], State]


def _linear(x: Array, weight: Array, bias: Array | None) -> Array:
    # leading dims folded into rows: one BLAS product, not one per time step
    product = (x.reshape(-1, x.shape[-1]) @ weight.T).reshape(*x.shape[:-1], weight.shape[0])
    return product if bias is None else product + bias


def _hidden_product(gates: Array, h: Array, hidden: Hidden) -> Array:
    """gates + h W_hh^T + b_hh as a fresh array (the step works in it in place)."""
    out = np.matmul(h, hidden.w_hh.T)
    out += gates
    if hidden.b_hh is not None:
        out += hidden.b_hh
    return out


def _sigmoid_in_place(x: Array) -> Array:
    """1 / (1 + exp(-x)) in x: exp(-x) overflows to inf for x < -88 (float32), whose
    1 / inf is the exact 0 (the caller ignores the overflow warning)."""
    np.negative(x, out=x)
    np.exp(x, out=x)
    x += 1
    return np.divide(1, x, out=x)


# ---------------------------------------------------------------- one time step
# (a few numpy calls each: the corpus's recurrent layers are tiny, so a step's cost is
# its count of calls)


def _tanh_step(gates: Array, state: State, hidden: Hidden) -> State:
    out = _hidden_product(gates, state[0], hidden)
    return (np.tanh(out, out=out),)


def _relu_step(gates: Array, state: State, hidden: Hidden) -> State:
    out = _hidden_product(gates, state[0], hidden)
    return (np.maximum(out, 0, out=out),)


def _gru_step(gates: Array, state: State, hidden: Hidden) -> State:
    """reset r and update z gate the state; the candidate n sees h through r (b_hh's
    n part inside: r * (W_hn h + b_hn)); h' = (h - n) * z + n."""
    h = state[0]
    size = h.shape[-1]
    hh = np.matmul(h, hidden.w_hh.T)
    if hidden.b_hh is not None:
        hh += hidden.b_hh
    rz = np.add(gates[..., :2 * size], hh[..., :2 * size])
    _sigmoid_in_place(rz)
    candidate = np.multiply(hh[..., 2 * size:], rz[..., :size])
    candidate += gates[..., 2 * size:]
    np.tanh(candidate, out=candidate)
    out = np.subtract(h, candidate)
    out *= rz[..., size:]
    out += candidate
    return (out,)


def _lstm_step(gates: Array, state: State, hidden: Hidden) -> State:
    """Input, forget, cell and output gates (in that order in the weights);
    c' = f * c + i * g, h' = o * tanh(c'), projected by w_hr when there is one."""
    h, c = state
    size = c.shape[-1]
    act = _hidden_product(gates, h, hidden)
    cell = np.tanh(act[..., 2 * size:3 * size])
    _sigmoid_in_place(act)  # i, f and o (the cell gate's part is unused)
    cell *= act[..., :size]
    c = np.multiply(act[..., size:2 * size], c)
    c += cell
    h = np.tanh(c)
    h *= act[..., 3 * size:]
    return (h if hidden.w_hr is None else h @ hidden.w_hr.T), c


# ---------------------------------------------------------------- whole sequences


class Layer(NamedTuple):
    """One layer and direction's parameters."""

    w_ih: Array
    b_ih: Array | None
    hidden: Hidden


def _layers(params: Sequence[Array], has_biases: bool, has_projections: bool) -> list[Layer]:
    """params, grouped per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr]."""
    size = 2 + 2 * has_biases + has_projections
    layers = []
    for start in range(0, len(params), size):
        group = [opmath(p) for p in params[start:start + size]]
        b_ih, b_hh = (group[2], group[3]) if has_biases else (None, None)
        w_hr = group[-1] if has_projections else None
        layers.append(Layer(group[0], b_ih, Hidden(group[1], b_hh, w_hr)))
    return layers


def _direction(x: Array, state: State, layer: Layer, step: Step, reverse: bool) -> tuple[Array, State]:
    """Run one direction of one layer over x [T, B, I]: the outputs [T, B, H] and the final state."""
    gates, hidden = _linear(x, layer.w_ih, layer.b_ih), layer.hidden
    if step is not _gru_step and hidden.b_hh is not None:  # added once, not once per step
        gates += hidden.b_hh
        hidden = hidden._replace(b_hh=None)
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    outputs = None
    for t in steps:
        state = step(gates[t], state, hidden)
        if outputs is None:
            outputs = np.empty((x.shape[0], *state[0].shape), state[0].dtype)
        outputs[t] = state[0]
    if outputs is None:  # an empty sequence: no output, the state unchanged
        outputs = np.empty((0, *state[0].shape), state[0].dtype)
    return outputs, state


def _sequence(step: Step, input: Array, states: Sequence[Array], params: Sequence[Array],  # noqa: A002
              has_biases: bool, num_layers: int, dropout: float, train: bool, bidirectional: bool,
              batch_first: bool) -> tuple[Array, ...]:
    """The output and the final states (each [L*D, B, H]) of a stacked, maybe
    bidirectional network; its layers are fed one another's outputs, with
    dropout between them in training (as ATen's _rnn_impl)."""
    has_projections = len(states) == 2 and states[0].shape[-1] != states[1].shape[-1]
    layers = _layers(params, has_biases, has_projections)
    directions = 2 if bidirectional else 1
    x = opmath(input.swapaxes(0, 1) if batch_first else input)
    finals: list[list[Array]] = [[] for _ in states]
    for number in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = number * directions + direction
            initial = tuple(opmath(s[index]) for s in states)
            with np.errstate(over="ignore"):  # the gates' sigmoid: exp(-x) overflows to inf
                out, final = _direction(x, initial, layers[index], step, reverse=direction == 1)
            outputs.append(out)
            for kept, value in zip(finals, final):
                kept.append(value)
        x = np.concatenate(outputs, axis=-1) if bidirectional else outputs[0]
        if dropout and train and number < num_layers - 1:
            x = _dropout_values(x, dropout, True, False, False)
    # time-major, handed back transposed for batch_first (torch's strides: [B, T, F] as (F, B*F, 1))
    out = result_as(x, input.dtype)
    return (out.swapaxes(0, 1) if batch_first else out,
            *(result_as(np.stack(kept), input.dtype) for kept in finals))


def _sequence_kernel(step: Step) -> Callable[..., tuple[Array, Array]]:
    def run(input: Array, hx: Array, params: Sequence[Array], has_biases: bool,  # noqa: A002
            num_layers: int, dropout: float, train: bool, bidirectional: bool,
            batch_first: bool) -> tuple[Array, Array]:
        out, final = _sequence(step, input, [hx], params, has_biases, num_layers, dropout, train,
                               bidirectional, batch_first)
        return out, final

    run.__name__ = run.__qualname__ = step.__name__.strip("_").replace("step", "sequence")
    return run


kernel("rnn_tanh.input")(_sequence_kernel(_tanh_step))
kernel("rnn_relu.input")(_sequence_kernel(_relu_step))
kernel("gru.input")(_sequence_kernel(_gru_step))


@kernel("lstm.input")
def lstm(input: Array, hx: Sequence[Array], params: Sequence[Array], has_biases: bool,  # noqa: A002
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple[Array, Array, Array]:
    out, h, c = _sequence(_lstm_step, input, hx, params, has_biases, num_layers, dropout, train,
                          bidirectional, batch_first)
    return out, h, c


# ---------------------------------------------------------------- cells


def _cell(step: Step, input: Array, state: Sequence[Array], w_ih: Array, w_hh: Array,  # noqa: A002
          b_ih: Array | None, b_hh: Array | None) -> tuple[Array, ...]:
    weights = [None if w is None else opmath(w) for w in (w_ih, w_hh, b_ih, b_hh)]
    gates = _linear(opmath(input), weights[0], weights[2])
    with np.errstate(over="ignore"):  # the gates' sigmoid: exp(-x) overflows to inf
        new = step(gates, tuple(opmath(s) for s in state), Hidden(weights[1], weights[3]))
    return tuple(result_as(value, input.dtype) for value in new)


def _cell_kernel(step: Step) -> Callable[..., Array]:
    def run(input: Array, hx: Array, w_ih: Array, w_hh: Array,  # noqa: A002
            b_ih: Array | None = None, b_hh: Array | None = None) -> Array:
        return _cell(step, input, [hx], w_ih, w_hh, b_ih, b_hh)[0]

    run.__name__ = run.__qualname__ = step.__name__.strip("_").replace("step", "cell")
    return run


kernel("rnn_tanh_cell")(_cell_kernel(_tanh_step))
kernel("rnn_relu_cell")(_cell_kernel(_relu_step))
kernel("gru_cell")(_cell_kernel(_gru_step))


@kernel("lstm_cell")
def lstm_cell(input: Array, hx: Sequence[Array], w_ih: Array, w_hh: Array,  # noqa: A002
              b_ih: Array | None = None, b_hh: Array | None = None) -> tuple[Array, Array]:
    h, c = _cell(_lstm_step, input, hx, w_ih, w_hh, b_ih, b_hh)
    return h, c
