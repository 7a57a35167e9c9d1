"""lower-core-to-linalg: the machinery (sizes, casts, signatures, legality)
and its output run by IREE against texport's interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from linalg_checks import check_lowered, core_program
from xdsl.context import Context

import texport as torch
from texport.export import Dim
from texport.lowering.errors import LegalityError
from texport.lowering.linalg import LINALG_PASSES, lower_to_linalg, lower_to_linalg_text
from texport.lowering.linalg.passes import LegalizeLinalgPass, LowerCoreToLinalgPass
from texport.universe import LINALG_PASS_NAMES


class Elementwise(torch.nn.Module):
    def forward(self, x, y):
        return x.relu() + y * 2, x * 3


def test_broadcast_and_dynamic_batch_run_with_the_interpreters_numbers():
    program = core_program(Elementwise(), (torch.randn(3, 4), torch.randn(4)),
                           dynamic_shapes={"x": {0: Dim("b", max=64)}, "y": None})
    for batch in (1, 5):
        text = check_lowered(program, [torch.randn(batch, 4), torch.randn(4)])
    assert "tensor<?x4xf32>" in text and "tx." not in text


class ViewOfTwiceTheBatch(torch.nn.Module):
    def forward(self, x):
        return (x.relu().view(x.shape[0] * 2, 2),)


def test_a_size_expression_becomes_index_arithmetic_at_the_entry():
    program = core_program(ViewOfTwiceTheBatch(), (torch.randn(3, 4),),
                           dynamic_shapes={"x": {0: Dim("b", max=64)}})
    module = program.graph_module.module.clone()
    LowerCoreToLinalgPass().apply(Context(), module)
    text = str(module)
    # the view's 2*s77 is the batch read once (tensor.dim of x) times 2, at the entry
    assert text.count("tensor.dim") == 1 and "arith.muli" in text
    assert "core." not in text and "tx." not in text
    check_lowered(program, [torch.randn(5, 4)])


def test_legalize_linalg_names_the_op_left_and_keeps_the_rest_lowered():
    class NonZeroOfRelu(torch.nn.Module):
        def forward(self, x):
            return (x.relu().nonzero(),)

    module = core_program(NonZeroOfRelu(), (torch.randn(3, 4),)).graph_module.module.clone()
    LowerCoreToLinalgPass().apply(Context(), module)
    assert "linalg.generic" in str(module)  # the relu was lowered around the op left
    with pytest.raises(LegalityError, match=r"legalize-linalg: 'core.nonzero'.*core.sym_size.int"):
        LegalizeLinalgPass().apply(Context(), module)


def test_the_universe_names_every_linalg_pass():
    assert set(LINALG_PASS_NAMES) == {p.name for p in LINALG_PASSES}


def test_integer_results_keep_their_dtype():
    class Count(torch.nn.Module):
        def forward(self, x):
            return (x * 2 + 1,)

    program = core_program(Count(), (torch.from_numpy(np.arange(6, dtype=np.int64).reshape(2, 3)),))
    text = check_lowered(program, [torch.from_numpy(np.arange(6, dtype=np.int64).reshape(2, 3) - 3)])
    assert "arith.muli" in text and "i64" in text


def test_range_constraints_become_asserts_that_iree_checks_at_the_call():
    from linalg_checks import compile_and_run

    program = core_program(Elementwise(), (torch.randn(3, 4), torch.randn(4)),
                           dynamic_shapes={"x": {0: Dim("b", min=2, max=64)}, "y": None})
    text = lower_to_linalg_text(program.graph_module.module)
    assert text.count("cf.assert") == 2
    y = np.ones(4, np.float32)
    got = compile_and_run(text, [np.ones((64, 4), np.float32), y])
    np.testing.assert_array_equal(got[0], np.full((64, 4), 3.0, np.float32))
    for bad in (65, 1):
        with pytest.raises(Exception, match=r"the size s\d+ must be at (most 64|least 2)"):
            compile_and_run(text, [np.ones((bad, 4), np.float32), y])


def test_a_size_known_only_at_run_time_leaves_its_op_and_says_why():
    class NonZero(torch.nn.Module):
        def forward(self, x):
            return (x.nonzero(),)

    module = core_program(NonZero(), (torch.randn(3, 4),)).graph_module.module.clone()
    with pytest.raises(LegalityError, match="core.nonzero"):
        lower_to_linalg(module)


def test_torchs_assert_on_a_tensor_is_a_cf_assert_iree_checks():
    from linalg_checks import compile_and_run

    class OneHot(torch.nn.Module):  # one_hot asserts its classes are in range (_assert_async)
        def forward(self, classes):
            return (torch.nn.functional.one_hot(classes, 4),)

    classes = torch.from_numpy(np.array([0, 3, 1], np.int64))
    program = core_program(OneHot(), (classes,))
    text = check_lowered(program, [classes])
    assert "cf.assert" in text
    with pytest.raises(Exception, match="FAILED_PRECONDITION"):
        compile_and_run(text, [np.array([0, 4, 1], np.int64)])
