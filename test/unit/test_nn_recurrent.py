"""nn.RNN / LSTM / GRU and their cells: torch's parameter names, shapes and
initialisation, the op each records, unbatched inputs, torch's errors, and
export down to core computing what eager computes."""

from __future__ import annotations

import io
import math
from collections import Counter

import numpy as np
import pytest

import texport
import texport.nn as nn
from texport.export.serialization import load, save

RNG = np.random.default_rng(3)


def rand(*shape: int) -> texport.Tensor:
    return texport.tensor(RNG.standard_normal(shape).astype(np.float32))


def op_names(program: texport.export.ExportedProgram) -> Counter[str]:
    return Counter(op.name for op in program.graph.walk() if "." in op.name and not op.name.startswith("func."))


def test_lstm_parameters_are_torchs() -> None:
    lstm = nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)
    shapes = {name: tuple(p.shape) for name, p in lstm.named_parameters()}
    assert list(shapes)[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"]
    assert list(shapes)[5] == "weight_ih_l0_reverse"
    assert shapes["weight_ih_l0"] == (20, 3) and shapes["weight_hh_l0"] == (20, 2)
    assert shapes["weight_ih_l1"] == (20, 4) and shapes["weight_hr_l1_reverse"] == (2, 5)
    assert len(shapes) == 20 and list(lstm.state_dict()) == list(shapes)
    assert [len(layer) for layer in lstm.all_weights] == [5] * 4


def test_parameters_start_uniform_within_one_over_sqrt_hidden() -> None:
    texport.manual_seed(0)
    for module in (nn.GRU(4, 16, bias=False), nn.RNNCell(4, 16), nn.LSTMCell(2, 16)):
        values = np.concatenate([p.detach().numpy().ravel() for p in module.parameters()])
        assert np.abs(values).max() <= 1 / math.sqrt(16) and values.std() > 0.1


def test_cells_name_their_parameters_as_torch() -> None:
    assert [(n, tuple(p.shape)) for n, p in nn.GRUCell(3, 4).named_parameters()] == [
        ("weight_ih", (12, 3)), ("weight_hh", (12, 4)), ("bias_ih", (12,)), ("bias_hh", (12,))]
    cell = nn.LSTMCell(3, 4, bias=False)
    assert [n for n, _ in cell.named_parameters()] == ["weight_ih", "weight_hh"] and cell.bias_ih is None


def test_rnn_reads_its_nonlinearity_as_torch() -> None:
    assert nn.RNN(3, 4, 2, "relu").mode == "RNN_RELU" and nn.RNN(3, 4).mode == "RNN_TANH"
    assert nn.RNN(3, 4, 2, "relu").num_layers == 2
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.5)
    assert repr(nn.LSTM(3, 4, batch_first=True)) == "LSTM(3, 4, batch_first=True)"


def test_unbatched_inputs_drop_the_batch_dim() -> None:
    lstm = nn.LSTM(3, 4, batch_first=True)
    out, (h, c) = lstm(rand(5, 3))
    assert tuple(out.shape) == (5, 4) and tuple(h.shape) == tuple(c.shape) == (1, 4)
    assert tuple(nn.GRUCell(3, 4)(rand(3)).shape) == (4,)
    h, c = nn.LSTMCell(3, 4)(rand(3))
    assert tuple(h.shape) == tuple(c.shape) == (4,)


def test_unbatched_output_equals_the_batch_of_one() -> None:
    gru = nn.GRU(3, 4, num_layers=2)
    x = rand(5, 3)
    alone, h = gru(x)
    batched, hb = gru(texport.tensor(x.numpy()[:, None]))
    np.testing.assert_allclose(alone.numpy(), batched.numpy()[:, 0], rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), hb.numpy()[:, 0], rtol=1e-6)


def test_a_state_of_the_wrong_size_is_torchs_error() -> None:
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(2, 3, 4\), got \[1, 3, 4\]"):
        nn.GRU(2, 4, num_layers=2)(rand(5, 3, 2), rand(1, 3, 4))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 3, 4\), got \[1, 2, 4\]"):
        nn.LSTM(2, 4)(rand(5, 3, 2), (rand(1, 3, 4), rand(1, 2, 4)))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 2, got 3"):
        nn.RNN(2, 4)(rand(5, 3, 3))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        nn.LSTM(2, 4)(rand(1, 5, 3, 2))


def test_export_fixes_the_sequence_length_as_torch() -> None:
    """torch's fake kernel unrolls time: a named Dim on it is violated, Dim.AUTO specializes."""
    lstm, x = nn.LSTM(3, 4).eval(), rand(5, 2, 3)
    with pytest.raises(texport.export.ConstraintViolationError,
                       match=r"You marked T as dynamic but your code specialized it to be a constant \(5\)"):
        texport.export.export(lstm, (x,), dynamic_shapes=({0: texport.export.Dim("T", max=10)},))
    auto = texport.export.export(lstm, (x,), dynamic_shapes=({0: texport.export.Dim.AUTO, 1: texport.export.Dim.AUTO},))
    assert [str(v) for v in auto.range_constraints.values()] == ["VR[2, int_oo]"]  # the batch only


def test_each_layer_records_torchs_op() -> None:
    x = rand(2, 4, 3)
    cases = [(nn.LSTM(3, 4, batch_first=True), "training.lstm.input"), (nn.GRU(3, 4), "training.gru.input"),
             (nn.RNN(3, 4, nonlinearity="relu"), "training.rnn_relu.input"),
             (nn.RNN(3, 4), "training.rnn_tanh.input")]
    for module, name in cases:
        ops = op_names(texport.export.export(module.eval(), (x,)))
        assert ops[name] == 1 and ops["training.zeros"] == (2 if name.startswith("training.lstm") else 1)
    cells = [(nn.LSTMCell(3, 4), "training.lstm_cell"), (nn.GRUCell(3, 4), "training.gru_cell"),
             (nn.RNNCell(3, 4, nonlinearity="relu"), "training.rnn_relu_cell")]
    for module, name in cells:
        assert op_names(texport.export.export(module, (rand(2, 3),)))[name] == 1


@pytest.mark.parametrize("make", [lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True),
                                  lambda: nn.LSTM(3, 4, proj_size=2),
                                  lambda: nn.GRU(3, 4, bidirectional=True),
                                  lambda: nn.RNN(3, 4, num_layers=2, bias=False, batch_first=True)])
def test_core_program_computes_what_eager_computes(make: object) -> None:
    module = make().eval()
    x = rand(2, 5, 3)
    batch = texport.export.Dim("batch", min=1, max=8)
    axis = 0 if module.batch_first else 1
    ep = texport.export.export(module, (x,), dynamic_shapes={"input": {axis: batch}})
    core = ep.run_decompositions()
    assert not any(name.startswith("core.lstm") or name.startswith("core.gru") for name in op_names(core))
    other = rand(4, 5, 3) if axis == 0 else rand(2, 7, 3)  # another batch size
    for inputs in (x, other):
        want = module(inputs)
        got = core.module()(inputs)
        for w, g in zip(_leaves(want), _leaves(got)):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def _leaves(value: object) -> list[texport.Tensor]:
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


class CarriedState(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(3, 4)
        self.cell = nn.LSTMCell(4, 4)

    def forward(self, x: texport.Tensor, h: texport.Tensor, c: texport.Tensor) -> object:
        out, (h, c) = self.lstm(x, (h, c))
        return self.cell(out[-1], (h[0], c[0]))


@pytest.mark.parametrize("level", ["training", "core"])
def test_programs_with_state_lists_print_parse_and_save(level: str) -> None:
    """lstm.input and lstm_cell take two tensor lists / one: the IR's operand segments survive text and files."""
    args = (rand(5, 2, 3), rand(1, 2, 4), rand(1, 2, 4))
    ep = texport.export.export(CarriedState().eval(), args)
    ep = ep if level == "training" else ep.run_decompositions()
    buffer = io.BytesIO()
    save(ep, buffer)
    loaded = load(io.BytesIO(buffer.getvalue()))
    assert loaded.mlir() == ep.mlir() and loaded.mlir(generic=True) == ep.mlir(generic=True)
    for want, got in zip(_leaves(ep.module()(*args)), _leaves(loaded.module()(*args))):
        np.testing.assert_array_equal(want.numpy(), got.numpy())
