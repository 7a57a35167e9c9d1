"""Normalisation shape rules: outputs and saved statistics as torch's CPU meta functions."""

from __future__ import annotations

from shape_rule_checks import HintOracle, raises, t

import texport.dialects.op_table  # noqa: F401 - registers the schemas infer() binds against
from texport.dialects.dtypes import DType
from texport.dialects.shape_rules.guards import using_oracle
from texport.dialects.shape_rules.infer import infer
from texport.dialects.symbolic import symbol

D = DType
s0, s1 = symbol("s0"), symbol("s1")


# ---------------------------------------------------------------- batch norm


def test_native_batch_norm_training_saves_per_channel_stats() -> None:
    x, c = t(s0, 3, 8, 8), t(3)
    assert infer("native_batch_norm", x, c, c, c, c, True, 0.1, 1e-5) == (x, t(3), t(3))
    assert infer("_native_batch_norm_legit", x, None, None, c, c, True, 0.1, 1e-5) == (
        x, t(3), t(3)
    )
    assert infer("_native_batch_norm_legit.no_stats", x, c, c, True, 0.1, 1e-5) == (x, t(3), t(3))


def test_batch_norm_eval_saves_empty_stats() -> None:
    x, c = t(2, 3, 5, dtype=D.float16), t(3)
    empty = t(0, dtype=D.float16)
    assert infer("_native_batch_norm_legit_no_training", x, c, c, c, c, 0.1, 1e-5) == (
        x, empty, empty
    )
    assert infer("native_batch_norm", x, None, None, c, c, False, 0.1, 1e-5) == (x, empty, empty)


def test_batch_norm_functional_returns_new_running_stats() -> None:
    x, c = t(4, 3, 2), t(3)
    out = infer("_native_batch_norm_legit_functional", x, c, c, c, c, True, 0.1, 1e-5)
    assert out == (x, t(3), t(3), t(3), t(3))
    half = t(4, 3, dtype=D.float16)
    out = infer("_native_batch_norm_legit_functional", half, None, None, c, c, True, 0.1, 1e-5)
    assert out == (half, t(3, dtype=D.float16), t(3, dtype=D.float16), t(3), t(3))


def test_batch_norm_with_update_adds_an_empty_reserve() -> None:
    x, c = t(4, 3), t(3)
    reserve = t(0, dtype=D.uint8)
    assert infer("_batch_norm_with_update", x, c, c, c, c, 0.1, 1e-5) == (x, c, c, reserve)
    empty = t(0)
    assert infer("_batch_norm_no_update", x, c, c, c, c, 0.1, 1e-5) == (x, empty, empty, reserve)


def test_batch_norm_checks() -> None:
    x = t(2, 3, 4)
    assert infer("batch_norm", x, None, None, t(3), t(3), False, 0.1, 1e-5, False) == x
    with raises("running_mean should contain 3 elements not 4"):
        infer("batch_norm", x, None, None, t(4), t(3), True, 0.1, 1e-5, False)
    with raises("weight should contain 3 elements not 2"):
        infer("native_batch_norm", x, t(2), None, None, None, True, 0.1, 1e-5)
    with raises("running_mean must be defined in evaluation mode"):
        infer("_native_batch_norm_legit.no_stats", x, None, None, False, 0.1, 1e-5)
    # A symbolic channel count is compared through the oracle (here: hints, as the tracer).
    assert infer("native_batch_norm", t(2, s0), None, None, t(3), t(3), False, 0.1, 1e-5)
    with using_oracle(HintOracle(s0=4)), raises("running_mean should contain s0 elements not 3"):
        infer("native_batch_norm", t(2, s0), None, None, t(3), t(3), False, 0.1, 1e-5)


def test_batch_norm_backward_masks() -> None:
    x, w = t(2, 3, 4), t(3, dtype=D.float64)
    out = infer("native_batch_norm_backward", x, x, w, None, None, t(3), t(3), True, 1e-5,
                [True, False, True])
    assert out == (x, None, t(3, dtype=D.float64))


def test_instance_norm() -> None:
    assert infer("instance_norm", t(2, 3, 4), None, None, None, None, True, 0.1, 1e-5,
                 False) == t(2, 3, 4)
    with raises("Expected running_mean and running_var to be defined when use_input_stats"):
        infer("instance_norm", t(2, 3, 4), None, None, None, None, False, 0.1, 1e-5, False)


# ---------------------------------------------------------------- layer norm


def test_native_layer_norm_stats_keep_normalised_dims_as_ones() -> None:
    x = t(s0, 5, 8)
    assert infer("native_layer_norm", x, [8], t(8), t(8), 1e-5) == (x, t(s0, 5, 1), t(s0, 5, 1))
    assert infer("native_layer_norm", x, [5, 8], None, None, 1e-5) == (x, t(s0, 1, 1), t(s0, 1, 1))
    half = t(2, s1, dtype=D.float16)
    stats = t(2, 1, dtype=D.float16)
    assert infer("native_layer_norm", half, [s1], None, None, 1e-5) == (half, stats, stats)
    assert infer("layer_norm", x, [8]) == x


def test_layer_norm_errors() -> None:
    with raises("Given normalized_shape=[4], expected input with shape [*, 4], but got input of "
                "size[2, 3]"):
        infer("native_layer_norm", t(2, 3), [4], None, None, 1e-5)
    with raises("Expected weight to be of same shape as normalized_shape, but got weight of "
                "shape [4] and normalized_shape = [3]"):
        infer("layer_norm", t(2, 3), [3], t(4))
    with raises("Expected normalized_shape to be at least 1-dimensional"):
        infer("native_layer_norm", t(2, 3), [], None, None, 1e-5)
    with raises("expected input with shape [*, 2, 3]"):
        infer("native_layer_norm", t(3), [2, 3], None, None, 1e-5)


def test_layer_norm_backward_masks() -> None:
    x = t(s0, 4, 6)
    out = infer("native_layer_norm_backward", x, x, [6], t(s0, 4, 1), t(s0, 4, 1), t(6), None,
                [True, True, True])
    assert out == (x, t(6), None)  # no bias, no bias grad
    out = infer("native_layer_norm_backward", x, x, [4, 6], t(s0, 1, 1), t(s0, 1, 1), t(4, 6),
                t(4, 6), [False, True, False])
    assert out == (None, t(4, 6), None)


# ---------------------------------------------------------------- group norm


def test_native_group_norm_stats_are_n_by_group() -> None:
    x = t(s0, 6, 4, 4)
    got = infer("native_group_norm", x, t(6), t(6), s0, 6, 16, 3, 1e-5)
    assert got == (x, t(s0, 3), t(s0, 3))
    assert infer("group_norm", x, 2, t(6)) == x


def test_group_norm_errors() -> None:
    with raises("Expected number of channels in input to be divisible by num_groups, but got "
                "input of shape [2, 6, 4] and num_groups=4"):
        infer("group_norm", t(2, 6, 4), 4)
    with raises("and num_groups = 4"):
        infer("native_group_norm", t(2, 6, 4), None, None, 2, 6, 4, 4, 1e-5)
    with raises("Expected weight to be a vector of size equal to the number of channels in "
                "input, but got weight of shape [3] and input of shape [2, 6, 4]"):
        infer("group_norm", t(2, 6, 4), 3, t(3))
    with raises("Expected at least 2 dimensions for input tensor but received 1"):
        infer("group_norm", t(6), 3)


def test_group_norm_backward_masks() -> None:
    x = t(2, 6, 5, dtype=D.float64)
    out = infer("native_group_norm_backward", x, x, t(2, 3), t(2, 3), None, 2, 6, 5, 3,
                [True, False, True])
    assert out == (x, None, t(6, dtype=D.float64))
    with raises("Expect number of channels 6 to be evenly-divisible by number of groups 4"):
        infer("native_group_norm_backward", x, x, t(2, 4), t(2, 4), None, 2, 6, 5, 4,
              [True, True, True])
