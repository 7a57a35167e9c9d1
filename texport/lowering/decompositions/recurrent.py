"""Recurrent networks: RNN, LSTM and GRU unrolled over time into linear,
elementwise gates and cat, as torch 2.13's decompositions do (so the sequence
length is fixed in the core program); the cells as ATen's composite kernels.

A sequence is run layer by layer: each layer's input projection is one linear
over all time steps (flipped for the reverse direction), then one step per
time slice; the step outputs are concatenated along time, the two directions
along features. torch's decomposition never applies the inter-layer dropout
(its condition ``num_layers < i - 1`` never holds), so neither does ours: the
core program must compute what torch's computes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ._common import Tensor, aten, register_decomposition

# A step of a whole-sequence layer: (projected input [B, G], state, w_hh, b_hh, w_hr) ->
# new state. A state is (h,) or, for an LSTM, (h, c), each [1, B, H]; its h is the step's output.
State = tuple[Tensor, ...]
Step = Callable[[Tensor, State, Tensor, "Tensor | None", "Tensor | None"], State]


def _linear(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    return aten.linear.default(x, weight, bias)


# ---------------------------------------------------------------- steps of a sequence layer


def _simple_step(nonlinearity: Callable[[Tensor], Tensor]) -> Step:
    def step(gates: Tensor, state: State, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None) -> State:
        return (nonlinearity(aten.add.Tensor(_linear(state[0], w_hh, b_hh), gates)),)

    return step


def _gru_update(x_gates: Sequence[Tensor], h_gates: Sequence[Tensor], h: Tensor) -> Tensor:
    """h' = (h - n) * z + n with reset r, update z and candidate n = tanh(x_n + r * h_n)."""
    reset = aten.sigmoid.default(aten.add.Tensor(h_gates[0], x_gates[0]))
    update = aten.sigmoid.default(aten.add.Tensor(h_gates[1], x_gates[1]))
    candidate = aten.tanh.default(aten.add.Tensor(x_gates[2], aten.mul.Tensor(h_gates[2], reset)))
    return aten.add.Tensor(aten.mul.Tensor(aten.sub.Tensor(h, candidate), update), candidate)


def _gru_step(gates: Tensor, state: State, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None) -> State:
    h = state[0]  # [1, B, H]: its gates chunk along dim 2, the input's [B, 3H] along dim 1
    return (_gru_update(gates.chunk(3, 1), _linear(h, w_hh, b_hh).chunk(3, 2), h),)


def _lstm_update(gates: Tensor, c: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    """(o * tanh(c'), c') with c' = f * c + i * g, the gates chunked along ``dim``."""
    i, f, g, o = gates.chunk(4, dim)
    c = aten.add.Tensor(aten.mul.Tensor(aten.sigmoid.default(f), c),
                        aten.mul.Tensor(aten.sigmoid.default(i), aten.tanh.default(g)))
    return aten.mul.Tensor(aten.sigmoid.default(o), aten.tanh.default(c)), c


def _lstm_step(gates: Tensor, state: State, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None) -> State:
    h, c = state
    h, c = _lstm_update(aten.add.Tensor(_linear(h, w_hh, b_hh), gates), c, 2)
    return (h if w_hr is None else _linear(h, w_hr, None)), c


# ---------------------------------------------------------------- layers


def _layer(step: Step, input: Tensor, state: State, params: Sequence[Tensor], has_biases: bool,  # noqa: A002
           reverse: bool) -> tuple[Tensor, State]:
    """One direction of one layer over input [T, B, I]: the outputs [T, B, H] and the
    final state (each [B, H])."""
    w_ih, w_hh = params[0], params[1]
    b_ih, b_hh = (params[2], params[3]) if has_biases else (None, None)
    w_hr = params[-1] if len(params) in (3, 5) else None  # a projecting LSTM's group ends with w_hr
    projected = _linear(input, w_ih, b_ih)
    if reverse:
        projected = aten.flip.default(projected, [0])
    state = tuple(aten.unsqueeze.default(s, 0) for s in state)
    outputs = []
    for gates in projected:  # unbinds time: the loop is unrolled into the program
        state = step(gates, state, w_hh, b_hh, w_hr)
        outputs.append(state[0])
    if reverse:
        outputs.reverse()
    return aten.cat.default(outputs, 0), tuple(aten.squeeze.dims(s, [0]) for s in state)


def _stacked(step: Step, input: Tensor, states: Sequence[State], params: Sequence[Tensor],  # noqa: A002
             has_biases: bool, num_layers: int, bidirectional: bool, batch_first: bool) -> tuple[Tensor, list[State]]:
    """The output and each layer and direction's final state; the layers feed one another."""
    group = len(params) // (num_layers * (2 if bidirectional else 1))
    groups = [params[i:i + group] for i in range(0, len(params), group)]
    x = aten.transpose.int(input, 0, 1) if batch_first else input
    finals = []
    for number in range(num_layers):
        index = 2 * number if bidirectional else number
        forward, final = _layer(step, x, states[index], groups[index], has_biases, reverse=False)
        finals.append(final)
        if bidirectional:
            backward, final = _layer(step, x, states[index + 1], groups[index + 1], has_biases, reverse=True)
            finals.append(final)
            x = aten.cat.default([forward, backward], forward.dim() - 1)
        else:
            x = forward
    return (aten.transpose.int(x, 0, 1) if batch_first else x), finals


def _single_state(step: Step, input: Tensor, hx: Tensor, params: list[Tensor], has_biases: bool,  # noqa: A002
                  num_layers: int, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """RNN and GRU: each layer and direction's h is one slice of hx; the finals are stacked back."""
    states = [(h,) for h in hx.unbind(0)]
    out, finals = _stacked(step, input, states, params, has_biases, num_layers, bidirectional, batch_first)
    return out, aten.stack.default([h for h, in finals], 0)


# rnn_tanh(x, h0) = the layers unrolled: h' = tanh(h W_hh^T + b_hh + x W_ih^T + b_ih) per time step
@register_decomposition(aten.rnn_tanh.input)
def rnn_tanh(input: Tensor, hx: Tensor, params: list[Tensor], has_biases: bool, num_layers: int,  # noqa: A002
             dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    return _single_state(_simple_step(aten.tanh.default), input, hx, params, has_biases, num_layers,
                         bidirectional, batch_first)


# rnn_relu(x, h0) = the layers unrolled: h' = relu(h W_hh^T + b_hh + x W_ih^T + b_ih) per time step
@register_decomposition(aten.rnn_relu.input)
def rnn_relu(input: Tensor, hx: Tensor, params: list[Tensor], has_biases: bool, num_layers: int,  # noqa: A002
             dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    return _single_state(_simple_step(aten.relu.default), input, hx, params, has_biases, num_layers,
                         bidirectional, batch_first)


# gru(x, h0) = the layers unrolled: h' = (h - n) * z + n per time step
@register_decomposition(aten.gru.input)
def gru(input: Tensor, hx: Tensor, params: list[Tensor], has_biases: bool, num_layers: int,  # noqa: A002
        dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    return _single_state(_gru_step, input, hx, params, has_biases, num_layers, bidirectional, batch_first)


# lstm(x, (h0, c0)) = the layers unrolled: c' = f * c + i * g, h' = o * tanh(c') per time step
@register_decomposition(aten.lstm.input)
def lstm(input: Tensor, hx: list[Tensor], params: list[Tensor], has_biases: bool,  # noqa: A002
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    states = list(zip(hx[0], hx[1]))  # iterating unbinds each along its first dim
    out, finals = _stacked(_lstm_step, input, states, params, has_biases, num_layers, bidirectional, batch_first)
    return (out, aten.stack.default([h for h, _ in finals], 0),
            aten.stack.default([c for _, c in finals], 0))


# ---------------------------------------------------------------- cells (ATen's composite kernels)


def _cell_gates(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,  # noqa: A002
                b_ih: Tensor | None, b_hh: Tensor | None) -> Tensor:
    """hx W_hh^T + b_hh + input W_ih^T + b_ih (ATen adds the input's into the state's)."""
    return aten.add.Tensor(_linear(hx, w_hh, b_hh), _linear(input, w_ih, b_ih))


# rnn_tanh_cell(x, h) = tanh(h W_hh^T + b_hh + x W_ih^T + b_ih)
@register_decomposition(aten.rnn_tanh_cell.default)
def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,  # noqa: A002
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    return aten.tanh.default(_cell_gates(input, hx, w_ih, w_hh, b_ih, b_hh))


# rnn_relu_cell(x, h) = relu(h W_hh^T + b_hh + x W_ih^T + b_ih)
@register_decomposition(aten.rnn_relu_cell.default)
def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,  # noqa: A002
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    return aten.relu.default(_cell_gates(input, hx, w_ih, w_hh, b_ih, b_hh))


# lstm_cell(x, (h, c)) = (o * tanh(c'), c') with c' = f * c + i * g
@register_decomposition(aten.lstm_cell.default)
def lstm_cell(input: Tensor, hx: list[Tensor], w_ih: Tensor, w_hh: Tensor,  # noqa: A002
              b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    return _lstm_update(_cell_gates(input, hx[0], w_ih, w_hh, b_ih, b_hh), hx[1], 1)


# gru_cell(x, h) = (h - n) * z + n
@register_decomposition(aten.gru_cell.default)
def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,  # noqa: A002
             b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """ATen's GRUCell: the input's gates are computed first, then the state's."""
    x_gates = aten.unsafe_chunk.default(_linear(input, w_ih, b_ih), 3, 1)
    return _gru_update(x_gates, aten.unsafe_chunk.default(_linear(hx, w_hh, b_hh), 3, 1), hx)
