"""Recurrent shape rules: outputs and final states of whole sequences and cells,
a batch_first output's strides, and torch's errors."""

from __future__ import annotations

from shape_rule_checks import HintOracle, raises, t

import texport.dialects.op_table  # noqa: F401 - registers the schemas infer() binds against
from texport.dialects.dtypes import DType
from texport.dialects.shape_rules import STRIDE_RULES
from texport.dialects.shape_rules.guards import using_oracle
from texport.dialects.shape_rules.infer import infer
from texport.dialects.symbolic import symbol

s0 = symbol("s0")


def params(count: int) -> list:
    return [t(4, 4)] * count


def test_sequence_output_has_both_directions_features() -> None:
    x, h = t(7, s0, 3), t(4, s0, 5)
    with using_oracle(HintOracle(s0=2)):
        out, hy = infer("gru.input", x, h, params(16), True, 2, 0.0, False, True, False)
    assert out == t(7, s0, 10) and hy == h


def test_lstm_with_projections_keeps_h_and_c_sizes() -> None:
    x, h, c = t(s0, 7, 3), t(1, s0, 2), t(1, s0, 5)
    with using_oracle(HintOracle(s0=2)):
        out, hy, cy = infer("lstm.input", x, [h, c], params(5), True, 1, 0.0, False, False, True)
    assert (out, hy, cy) == (t(s0, 7, 2), h, c)


def test_batch_first_output_is_laid_out_time_major() -> None:
    out = infer("rnn_tanh.input", t(2, 7, 3), t(1, 2, 5), params(2), False, 1, 0.0, False, False, True)
    strides = STRIDE_RULES["rnn_tanh.input"](out, t(2, 7, 3), t(1, 2, 5), params(2), False, 1, 0.0, False, False,
                                             True)
    assert strides == [(5, 10, 1), None]
    seq_first = STRIDE_RULES["rnn_tanh.input"](out, t(7, 2, 3), t(1, 2, 5), params(2), False, 1, 0.0, False,
                                               False, False)
    assert seq_first == [None, None]


def test_sequence_errors_name_the_mismatch() -> None:
    x = t(7, 2, 3)
    with raises("expected 4 parameters for 1 layers, got 2"):
        infer("rnn_relu.input", x, t(1, 2, 5), params(2), True, 1, 0.0, False, False, False)
    with raises("Expected hidden size[0] 2, got 1"):
        infer("rnn_relu.input", x, t(1, 2, 5), params(4), False, 2, 0.0, False, False, False)
    with raises("Expected hidden batch size 2, got 3"):
        infer("gru.input", x, t(1, 3, 5), params(4), True, 1, 0.0, False, False, False)
    with raises("input must have 3 dimensions, got 2"):
        infer("lstm.input", t(7, 3), [t(1, 2, 5), t(1, 2, 5)], params(4), True, 1, 0.0, False, False, False)


def test_cells_keep_the_state_shape() -> None:
    x, h = t(s0, 3, dtype=DType.float64), t(s0, 5, dtype=DType.float64)
    with using_oracle(HintOracle(s0=2)):
        assert infer("gru_cell", x, h, t(15, 3), t(15, 5)) == h
        assert infer("lstm_cell", x, [h, h], t(20, 3), t(20, 5), t(20), t(20)) == (h, h)


def test_cell_errors_are_atens() -> None:
    with raises("input has inconsistent input_size: got 4 expected 3"):
        infer("rnn_tanh_cell", t(2, 4), t(2, 5), t(5, 3), t(5, 5))
    with raises("Input batch size 2 doesn't match hidden1 batch size 3"):
        infer("lstm_cell", t(2, 3), [t(2, 5), t(3, 5)], t(20, 3), t(20, 5))
    with raises("hidden0 has inconsistent hidden_size: got 4, expected 5"):
        infer("gru_cell", t(2, 3), t(2, 4), t(15, 3), t(15, 5))
