"""Shape rules: recurrent networks (RNN, LSTM, GRU) over a sequence and their cells.

A sequence op reads ``input`` [T, B, I] ([B, T, I] with batch_first) and its
initial state [L*D, B, H] (D = 2 when bidirectional); the output is
[T, B, D*H] ([B, T, D*H]) and each final state has its initial state's shape.
An LSTM with projections carries h of size proj_size, c of size hidden_size.
Results are in the input's dtype. A cell maps input [B, I] and state [B, H] to
a state of the same shape.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..meta import TensorMeta
from ..symbolic import dim_str
from . import shape_rule, stride_rule
from .guards import check, sym_eq
from .strides import Strides


# The number of parameter tensors per layer and direction: w_ih, w_hh, then b_ih,
# b_hh with biases, then w_hr with projections.
def group_size(has_biases: bool, has_projections: bool) -> int:
    return 2 + 2 * has_biases + has_projections


def _check_sequence(input: TensorMeta, params: Sequence[TensorMeta], group: int,  # noqa: A002
                    num_layers: int, bidirectional: bool) -> None:
    check(input.ndim == 3, f"input must have 3 dimensions, got {input.ndim}")
    expected = group * num_layers * (2 if bidirectional else 1)
    check(len(params) == expected, f"expected {expected} parameters for {num_layers} layers, got {len(params)}")


def _check_state(input: TensorMeta, state: TensorMeta, num_layers: int, bidirectional: bool,  # noqa: A002
                 batch_first: bool) -> None:
    check(state.ndim == 3, f"hx must have 3 dimensions, got {state.ndim}")
    layers = num_layers * (2 if bidirectional else 1)
    check(sym_eq(state.shape[0], layers), f"Expected hidden size[0] {layers}, got {dim_str(state.shape[0])}")
    batch = input.shape[0 if batch_first else 1]
    check(sym_eq(state.shape[1], batch),
          f"Expected hidden batch size {dim_str(batch)}, got {dim_str(state.shape[1])}")


def _output(input: TensorMeta, state: TensorMeta, bidirectional: bool) -> TensorMeta:  # noqa: A002
    """[T, B, D*H] (or [B, T, D*H]): the input's first two dims, both directions' features."""
    return TensorMeta((*input.shape[:2], (2 if bidirectional else 1) * state.shape[2]), input.dtype)


@shape_rule("rnn_tanh.input", "rnn_relu.input", "gru.input")
def _rnn(input: TensorMeta, hx: TensorMeta, params: Sequence[TensorMeta], has_biases: bool,  # noqa: A002
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple[TensorMeta, TensorMeta]:
    _check_sequence(input, params, group_size(has_biases, False), num_layers, bidirectional)
    _check_state(input, hx, num_layers, bidirectional, batch_first)
    return _output(input, hx, bidirectional), TensorMeta(hx.shape, input.dtype)


@shape_rule("lstm.input")
def _lstm(input: TensorMeta, hx: Sequence[TensorMeta], params: Sequence[TensorMeta],  # noqa: A002
          has_biases: bool, num_layers: int, dropout: float, train: bool, bidirectional: bool,
          batch_first: bool) -> tuple[TensorMeta, TensorMeta, TensorMeta]:
    check(len(hx) == 2, f"lstm expects two hidden states, got {len(hx)}")
    h, c = hx
    projected = not sym_eq(h.shape[-1], c.shape[-1])  # h has proj_size features, c hidden_size
    _check_sequence(input, params, group_size(has_biases, projected), num_layers, bidirectional)
    for state in hx:
        _check_state(input, state, num_layers, bidirectional, batch_first)
    return _output(input, h, bidirectional), TensorMeta(h.shape, input.dtype), TensorMeta(c.shape, input.dtype)


@stride_rule("rnn_tanh.input", "rnn_relu.input", "gru.input", "lstm.input")
def _sequence_strides(out: tuple[TensorMeta, ...], input: TensorMeta, *args: object) -> list[Strides | None]:  # noqa: A002
    """The output is computed time-major and, with batch_first, handed back
    transposed (torch's decomposition ends with transpose(0, 1)): [B, T, F] with
    strides (F, B*F, 1). The final states are fresh stacks: row-major."""
    batch_first = args[-1]
    output = out[0]
    strides = None
    if batch_first:
        batch, _, features = output.shape
        strides = (features, batch * features, 1)
    return [strides] + [None] * (len(out) - 1)


def _check_cell(input: TensorMeta, hidden: TensorMeta, w_ih: TensorMeta, w_hh: TensorMeta,  # noqa: A002
                index: int) -> None:
    """ATen's check_rnn_cell_forward_input / _hidden."""
    check(input.ndim == 2 and sym_eq(input.shape[1], w_ih.shape[1]),
          f"input has inconsistent input_size: got {dim_str(input.shape[-1])} expected {dim_str(w_ih.shape[1])}")
    check(sym_eq(hidden.shape[0], input.shape[0]),
          f"Input batch size {dim_str(input.shape[0])} doesn't match hidden{index} batch size "
          f"{dim_str(hidden.shape[0])}")
    check(sym_eq(hidden.shape[1], w_hh.shape[1]),
          f"hidden{index} has inconsistent hidden_size: got {dim_str(hidden.shape[1])}, expected "
          f"{dim_str(w_hh.shape[1])}")


@shape_rule("rnn_tanh_cell", "rnn_relu_cell", "gru_cell")
def _cell(input: TensorMeta, hx: TensorMeta, w_ih: TensorMeta, w_hh: TensorMeta,  # noqa: A002
          b_ih: TensorMeta | None = None, b_hh: TensorMeta | None = None) -> TensorMeta:
    _check_cell(input, hx, w_ih, w_hh, 0)
    return TensorMeta(hx.shape, input.dtype)


@shape_rule("lstm_cell")
def _lstm_cell(input: TensorMeta, hx: Sequence[TensorMeta], w_ih: TensorMeta, w_hh: TensorMeta,  # noqa: A002
               b_ih: TensorMeta | None = None, b_hh: TensorMeta | None = None) -> tuple[TensorMeta, TensorMeta]:
    check(len(hx) == 2, "lstm_cell expects two hidden states")
    for index, state in enumerate(hx):
        _check_cell(input, state, w_ih, w_hh, index)
    return TensorMeta(hx[0].shape, input.dtype), TensorMeta(hx[1].shape, input.dtype)
