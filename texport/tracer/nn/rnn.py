"""Recurrent layers: RNN, LSTM, GRU over whole sequences, and their cells.

Each layer records the one op torch.export records for it (``aten.lstm.input``,
``aten.gru_cell``...), whose parameters are the flat list of every layer's and
direction's weights in torch's order. Parameter names, shapes and the
initialisation U(-1/sqrt(hidden), 1/sqrt(hidden)) are torch's, so state dicts
load either way.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from texport.dialects.dtypes import DType

from ..dispatcher import call
from ..factories import empty, zeros
from ..handles import op
from ..tensor import Tensor
from . import init
from .module import Module, Parameter

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_SEQUENCE_OPS = {"LSTM": "lstm.input", "GRU": "gru.input", "RNN_TANH": "rnn_tanh.input",
                 "RNN_RELU": "rnn_relu.input"}


def _reset_uniform(module: Module, hidden_size: int) -> None:
    """Every parameter ~ U(-1/sqrt(hidden), 1/sqrt(hidden)), in registration order."""
    bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


def _check_dropout(dropout: Any, num_layers: int) -> None:
    if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                         "element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                      f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                      stacklevel=3)


def _check_sizes(input_size: Any, hidden_size: Any, num_layers: int, proj_size: int) -> None:
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """The stacked, maybe bidirectional network of ``mode`` (LSTM, GRU, RNN_TANH, RNN_RELU).
    Layer k's parameters are weight_ih_l{k}, weight_hh_l{k}[, bias_ih_l{k}, bias_hh_l{k}]
    [, weight_hr_l{k}], with a ``_reverse`` suffix for the backward direction."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Any = None, dtype: DType | None = None) -> None:
        super().__init__()
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        _check_dropout(dropout, num_layers)
        for name, value in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
        _check_sizes(input_size, hidden_size, num_layers, proj_size)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(self._directions):
                self._add_layer(layer, direction, dtype)
        self.reset_parameters()

    @property
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def _state_size(self) -> int:
        """The size of h: proj_size when the LSTM projects, else hidden_size."""
        return self.proj_size if self.proj_size > 0 else self.hidden_size

    def _add_layer(self, layer: int, direction: int, dtype: DType | None) -> None:
        gates = _GATES[self.mode] * self.hidden_size
        inputs = self.input_size if layer == 0 else self._state_size * self._directions
        shapes = {"weight_ih": (gates, inputs), "weight_hh": (gates, self._state_size)}
        if self.bias:
            shapes.update(bias_ih=(gates,), bias_hh=(gates,))
        if self.proj_size > 0:
            shapes["weight_hr"] = (self.proj_size, self.hidden_size)
        suffix = "_reverse" if direction == 1 else ""
        names = []
        for kind, shape in shapes.items():
            name = f"{kind}_l{layer}{suffix}"
            setattr(self, name, Parameter(empty(*shape, dtype=dtype)))
            names.append(name)
        self._flat_weights_names.extend(names)
        self._all_weights.append(names)

    @property
    def _flat_weights(self) -> list[Tensor]:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A cuDNN memory layout in torch; nothing to do here."""

    def reset_parameters(self) -> None:
        _reset_uniform(self, self.hidden_size)

    # ---- checks (torch's messages) ------------------------------------------

    def check_input(self, input: Tensor) -> None:  # noqa: A002
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                             f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def _expected_state(self, input: Tensor, size: int) -> tuple[Any, ...]:  # noqa: A002
        batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * self._directions, batch, size)

    def check_hidden_size(self, hx: Tensor, expected: tuple[Any, ...],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    # ---- forward ------------------------------------------------------------

    def _batched(self, input: Tensor, what: str) -> tuple[Tensor, bool]:  # noqa: A002
        """A 2-D input is one unbatched sequence: given its batch dim."""
        if input.dim() not in (2, 3):
            noun = " tensor" if what == "RNN" else ""  # torch's RNN says "3D tensor instead", LSTM/GRU "3D instead"
            raise ValueError(f"{what}: Expected input to be 2D or 3D, got {input.dim()}D{noun} instead")
        batched = input.dim() == 3
        return (input if batched else input.unsqueeze(0 if self.batch_first else 1)), batched

    def _zeros(self, input: Tensor, size: int) -> Tensor:  # noqa: A002
        return zeros(*self._expected_state(input, size), dtype=input.dtype)

    def _unbatched(self, output: Tensor, batched: bool) -> Tensor:
        return output if batched else output.squeeze(0 if self.batch_first else 1)

    def _run(self, input: Tensor, state: Any) -> Any:  # noqa: A002
        # torch's fake kernel of the op unrolls the time loop, so export fixes the sequence
        # length (a Dim on it is a ConstraintViolation, Dim.AUTO specializes): read it as an int
        int(input.size(1 if self.batch_first else 0))
        return call(op(_SEQUENCE_OPS[self.mode]), input, state, self._flat_weights, self.bias, self.num_layers,
                    self.dropout, self.training, self.bidirectional, self.batch_first)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)


class _SingleStateRNN(RNNBase):
    """RNN and GRU: one state tensor h [L*D, B, H]."""

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
        what = "GRU" if self.mode == "GRU" else "RNN"
        input, batched = self._batched(input, what)  # noqa: A001
        if hx is not None:
            wanted = 3 if batched else 2
            if hx.dim() != wanted:
                raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx should also "
                                   f"be {wanted}-D but got {hx.dim()}-D tensor")
            hx = hx if batched else hx.unsqueeze(1)
        else:
            hx = self._zeros(input, self.hidden_size)
        self.check_input(input)
        self.check_hidden_size(hx, self._expected_state(input, self.hidden_size))
        output, hidden = self._run(input, hx)
        return self._unbatched(output, batched), (hidden if batched else hidden.squeeze(1))


class RNN(_SingleStateRNN):
    """Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:  # torch's positional order: input_size, hidden_size, num_layers, nonlinearity, ...
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(modes[self.nonlinearity], *args, **kwargs)


class GRU(_SingleStateRNN):
    """Gated recurrent unit: reset, update and new gates (W_ir|W_iz|W_in stacked)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory: input, forget, cell and output gates; state (h, c),
    h projected to proj_size when proj_size > 0."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> Any:  # noqa: A002
        input, batched = self._batched(input, "LSTM")  # noqa: A001
        if hx is None:
            hx = (self._zeros(input, self._state_size), self._zeros(input, self.hidden_size))
        else:
            wanted = 3 if batched else 2
            if hx[0].dim() != wanted or hx[1].dim() != wanted:
                kind = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(f"For {kind} input, hx and cx should also be {wanted}-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_input(input)
        self.check_hidden_size(hx[0], self._expected_state(input, self._state_size),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hx[1], self._expected_state(input, self.hidden_size),
                               "Expected hidden[1] size {}, got {}")
        output, h, c = self._run(input, list(hx))
        output = self._unbatched(output, batched)  # before the states, as torch (node names follow)
        if not batched:
            h, c = h.squeeze(1), c.squeeze(1)
        return output, (h, c)


# ---------------------------------------------------------------- cells


class RNNCellBase(Module):
    """One time step: weight_ih [gates*H, I], weight_hh [gates*H, H], bias_ih, bias_hh [gates*H]."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: DType | None = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_uniform(self, self.hidden_size)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.bias is not True:
            s += ", bias={bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def _batched(self, input: Tensor, states: list[Tensor | None], what: str) -> tuple[Tensor, bool]:  # noqa: A002
        """Checks torch's ranks; a 1-D input is one unbatched sample."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{what}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for index, state in enumerate(states):
            if state is not None and state.dim() not in (1, 2):
                name = "hidden" if len(states) == 1 else f"hx[{index}]"
                raise ValueError(f"{what}: Expected {name} to be 1D or 2D, got {state.dim()}D instead")
        batched = input.dim() == 2
        return (input if batched else input.unsqueeze(0)), batched

    def _state(self, input: Tensor, hx: Tensor | None, batched: bool) -> Tensor:  # noqa: A002
        if hx is None:
            return zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        return hx if batched else hx.unsqueeze(0)

    def _step(self, name: str, input: Tensor, hx: Any) -> Any:  # noqa: A002
        return call(op(name), input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: DType | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        input, batched = self._batched(input, [hx], "RNNCell")  # noqa: A001
        hx = self._state(input, hx, batched)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = self._step(f"rnn_{self.nonlinearity}_cell", input, hx)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: (h, c) -> (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: DType | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
        input, batched = self._batched(input, list(hx) if hx is not None else [None], "LSTMCell")  # noqa: A001
        if hx is None:
            state = self._state(input, None, batched)
            hx = (state, state)
        else:
            hx = (self._state(input, hx[0], batched), self._state(input, hx[1], batched))
        h, c = self._step("lstm_cell", input, list(hx))
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: h -> h'."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: DType | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        input, batched = self._batched(input, [hx], "GRUCell")  # noqa: A001
        out = self._step("gru_cell", input, self._state(input, hx, batched))
        return out if batched else out.squeeze(0)
