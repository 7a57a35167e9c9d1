"""Derived rules and kernels: an in-place op runs its functional twin and writes
the result into self; a view copy copies its view's result."""

from __future__ import annotations

import numpy as np
import pytest

from texport.dialects.registry import OPS, functional_twin
from texport.dialects.shape_rules import SHAPE_RULES
from texport.interpreter.kernels import KERNELS

TWINS = sorted((key, twin.key) for key in OPS.keys() if (twin := functional_twin(OPS[key])) is not None)
COPIES = sorted((key, OPS[key].copied_view) for key in OPS.keys() if OPS[key].copied_view is not None)
# torch accumulates cumsum_ in self's dtype; detach_ writes nothing: written by hand.
# add_/sub_/mul_/div_ and relu_/hardtanh_ compute into self when numpy can (the derived
# kernel otherwise).
HAND_WRITTEN = {"aten.cumsum_.default", "aten.cumprod_.default", "aten.detach_.default",
                "aten.relu_.default", "aten.hardtanh_.default",
                *(f"aten.{op}_.{overload}" for op in ("add", "sub", "mul", "div") for overload in ("Tensor", "Scalar"))}


def test_pairs_are_found_from_the_schemas() -> None:
    twins = dict(TWINS)
    assert twins["aten.add_.Tensor"] == "aten.add.Tensor"
    assert twins["aten.dropout_.default"] == "aten.dropout.default"  # argument names may differ
    assert "aten.pow_.Scalar" not in twins  # pow.Scalar is scalar ** tensor: other arguments
    assert "aten.squeeze_.dim" not in twins  # an in-place view changes metadata, not values
    assert len(TWINS) == 166 and len(COPIES) == 22


@pytest.mark.parametrize(("key", "twin"), TWINS, ids=[key for key, _ in TWINS])
def test_an_in_place_op_is_derived_from_its_twin(key: str, twin: str) -> None:
    if key in HAND_WRITTEN:
        assert getattr(KERNELS[key], "__wrapped__", None) is None
        return
    assert KERNELS[key].__wrapped__ is KERNELS[twin]
    assert SHAPE_RULES[key].__wrapped__ is SHAPE_RULES[twin]


@pytest.mark.parametrize(("key", "view"), COPIES, ids=[key for key, _ in COPIES])
def test_a_view_copy_is_derived_from_its_view(key: str, view: str) -> None:
    assert KERNELS[key].__wrapped__ is KERNELS[view]
    assert SHAPE_RULES[key] is SHAPE_RULES[view]


def test_in_place_comparisons_and_logic_write_ones_and_zeros_in_selfs_dtype() -> None:
    x = np.array([1.0, 2.0, 3.0], np.float32)
    assert KERNELS["lt_.Tensor"](x, np.array([2.0, 2.0, 2.0], np.float32)) is x
    assert x.tolist() == [1.0, 0.0, 0.0] and x.dtype == np.float32
    ints = np.array([1, 5, 2])
    KERNELS["ge_.Scalar"](ints, 2.5)
    assert ints.tolist() == [0, 1, 0]
    KERNELS["logical_xor_"](ints, np.array([0.0, 3.0, 1.0]))
    assert ints.tolist() == [0, 0, 1]
    KERNELS["logical_not_"](ints)
    assert ints.tolist() == [1, 1, 0]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        KERNELS["atan2_"](np.array([1, 2]), np.array([1, 1]))


def test_masked_scatter_in_place_fills_selfs_masked_places_in_order() -> None:
    x = np.zeros((2, 3))
    assert KERNELS["masked_scatter_"](x, np.array([True, False, True]), np.arange(1.0, 7.0).reshape(2, 3)) is x
    assert x.tolist() == [[1.0, 0.0, 2.0], [3.0, 0.0, 4.0]]


def test_a_derived_kernel_writes_into_self_and_returns_it() -> None:
    base = np.zeros((2, 3), np.int64)
    row = base[1]
    assert KERNELS["add_.Tensor"](row, np.arange(3), 2) is row
    assert base.tolist() == [[0, 0, 0], [0, 2, 4]]
    assert KERNELS["index_add_"](row, 0, np.array([0, 0]), np.array([5, 5]), 1) is row
    assert base[1].tolist() == [10, 2, 4]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        KERNELS["add_.Tensor"](row, np.ones(3, np.float32), 1)
    assert base[1].tolist() == [10, 2, 4]  # a refused write leaves self as it was


def test_a_derived_copy_owns_its_memory() -> None:
    x = np.arange(6.0).reshape(2, 3)
    out = KERNELS["permute_copy"](x, [1, 0])
    assert out.tolist() == x.T.tolist() and not np.shares_memory(out, x) and out.flags.c_contiguous


def test_hand_written_cumsum_keeps_torchs_dtype_rule() -> None:
    x = np.array([True, False, True])
    assert KERNELS["cumsum_"](x, 0, None) is x and x.dtype == np.bool_
