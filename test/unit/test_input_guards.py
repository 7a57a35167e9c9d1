"""Runtime input guards compare exactly (issue 17): a tensor's dtype is its
declared one (bfloat16 is not float32, nor float16, nor its uint16 bits), and a
specialised scalar takes only its exported value of its exported type, as
torch's check does (``check_guards=False``: ``type(arg) is type(value)``) —
``2.0``, ``True`` and ``tensor(2)`` are not the int ``2``. Every error names
the input's path, what was expected and what was found.

torch 2.13's default ``ep.module()`` checks neither (its generated guard is
``n == 2``, and no dtype guard exists): texport's program computes at the
dtypes its IR declares, so another dtype would be silently computed wrongly.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

import texport
from texport.dialects.context import parse_module
from texport.export import Dim
from texport.interpreter.dtypes import to_numpy
from texport.interpreter.errors import GuardError
from texport.interpreter.executor import compile_function, find_function
from texport.interpreter.inputs import InputError, load_inputs

DTYPES = ["float32", "bfloat16", "float16", "float64", "int64", "int32", "uint8", "bool"]


class _Double(texport.nn.Module):
    def forward(self, x):  # noqa: ANN001, ANN201
        return x + x


class _Scale(texport.nn.Module):
    def forward(self, x, n):  # noqa: ANN001, ANN201
        return x * n


class _Flags(texport.nn.Module):
    def forward(self, x, inp):  # noqa: ANN001, ANN201
        return x * inp["f"] if inp["b"] else x


def _guard(text: str) -> Any:
    return pytest.raises(GuardError, match="^" + re.escape(text) + "$")


@pytest.mark.parametrize("declared", DTYPES)
def test_module_refuses_every_other_dtype(declared: str) -> None:
    dtype = getattr(texport, declared)
    module = texport.export.export(_Double(), (texport.ones(3, dtype=dtype),)).module()
    assert module(texport.ones(3, dtype=dtype)).dtype == dtype
    for given in DTYPES:
        if given != declared:
            with _guard(f"Guard failed: x.dtype == texport.{declared} (got {given})"):
                module(texport.ones(3, dtype=getattr(texport, given)))


PLAN = """
func.func @f(%x: !tx.tensor<[3], DTYPE>, %n: !tx.symint<s0>) -> !tx.tensor<[3], DTYPE> {
  %r = core.add.Tensor(%x, %x) : !tx.tensor<[3], DTYPE>
  func.return %r : !tx.tensor<[3], DTYPE>
}
"""
_IR_DTYPES = {"float32": "f32", "bfloat16": "bf16", "float16": "f16", "int64": "i64"}


@pytest.mark.parametrize("declared", _IR_DTYPES)
def test_plan_refuses_every_other_numpy_dtype(declared: str) -> None:
    """The interpreter's own check (texport-run's path): numpy dtypes compared
    exactly, bfloat16 being ml_dtypes' dtype, not any 2-byte one."""
    plan = compile_function(find_function(parse_module(PLAN.replace("DTYPE", _IR_DTYPES[declared]))))
    arrays = {name: np.ones(3, to_numpy(getattr(texport, name))) for name in _IR_DTYPES}
    arrays["uint16"] = np.ones(3, np.uint16)
    arrays["void16"] = arrays["bfloat16"].view("V2")
    assert plan(arrays[declared], 1)[0].dtype == arrays[declared].dtype
    for given, array in arrays.items():
        if given != declared:
            with _guard(f"Guard failed: x.dtype == texport.{declared} (got {array.dtype})"):
                plan(array, 1)


def test_plan_refuses_a_symint_that_is_not_an_int() -> None:
    plan = compile_function(find_function(parse_module(PLAN.replace("DTYPE", "f32"))))
    x = np.ones(3, np.float32)
    for value, shown in [(2.0, "float 2.0"), (True, "bool True"), (np.int64(2), "int64 np.int64(2)"),
                         (np.array(2), "ndarray array(2)")]:
        with _guard(f"Guard failed: n must be an int (got {shown})"):
            plan(x, value)
    with _guard("Guard failed: x must be a tensor (got float 1.0)"):
        plan(1.0, 2)


def test_npz_float_for_an_int_argument_is_refused(tmp_path: Any) -> None:
    func = find_function(parse_module(PLAN.replace("DTYPE", "f32")))
    path = tmp_path / "inputs.npz"
    np.savez(path, x=np.ones(3, np.float32), n=np.array(2.0))
    with pytest.raises(InputError, match=r"array 'n' for argument 'n' must be a 0-d integer array .*found f64\[\]"):
        load_inputs(func, str(path))
    np.savez(path, x=np.ones(3, np.float32), n=np.array(2))
    np.testing.assert_array_equal(compile_function(func)(*load_inputs(func, str(path)))[0], np.full(3, 2.0))


def test_specialised_int_takes_only_that_int() -> None:
    module = texport.export.export(_Scale(), (texport.ones(3), 2)).module()
    np.testing.assert_array_equal(module(texport.ones(3), 2).numpy(), np.full(3, 2.0))
    for value, shown in [(2.0, "float 2.0"), (True, "bool True"),
                         (texport.tensor(2), "Tensor of dtype texport.int64 and shape []"),
                         (np.int64(2), "int64 np.int64(2)")]:
        with _guard(f"Guard failed: n == 2 (got {shown}, not int)"):
            module(texport.ones(3), value)
    with _guard("Guard failed: n == 2 (got 3)"):
        module(texport.ones(3), 3)


def test_specialised_float_and_bool_take_only_their_type() -> None:
    module = texport.export.export(_Flags(), (texport.ones(3), {"f": 3.0, "b": True})).module()
    np.testing.assert_array_equal(module(texport.ones(3), {"f": 3.0, "b": True}).numpy(), np.full(3, 3.0))
    with _guard("Guard failed: inp['f'] == 3.0 (got int 3, not float)"):
        module(texport.ones(3), {"f": 3, "b": True})
    with _guard("Guard failed: inp['b'] == True (got int 1, not bool)"):
        module(texport.ones(3), {"f": 3.0, "b": 1})
    with _guard("Guard failed: inp['f'] == 3.0 (got 4.0)"):
        module(texport.ones(3), {"f": 4.0, "b": True})


def test_specialised_nan_matches_nan() -> None:
    module = texport.export.export(_Scale(), (texport.ones(3), math.nan)).module()
    assert np.isnan(module(texport.ones(3), math.nan).numpy()).all()
    with _guard("Guard failed: n == nan (got 1.0)"):
        module(texport.ones(3), 1.0)


def test_dynamic_int_takes_only_an_int() -> None:
    ep = texport.export.export(_Scale(), (texport.ones(3), 2), dynamic_shapes={"x": None, "n": Dim.DYNAMIC})
    module = ep.module()
    np.testing.assert_array_equal(module(texport.ones(3), 5).numpy(), np.full(3, 5.0))
    for value, shown in [(2.0, "float 2.0"), (True, "bool True"),
                         (texport.tensor(2), "Tensor of dtype texport.int64 and shape []")]:
        with _guard(f"Guard failed: n must be an int (got {shown})"):
            module(texport.ones(3), value)


def test_tensor_input_takes_only_a_tensor() -> None:
    module = texport.export.export(_Double(), (texport.ones(3),)).module()
    for value, shown in [(3, "int 3"), (np.ones(3), "ndarray array([1., 1., 1.])"), ("x" * 200, None)]:
        with pytest.raises(GuardError, match=r"^Guard failed: x must be a Tensor \(got ") as caught:
            module(value)
        if shown is not None:
            assert str(caught.value) == f"Guard failed: x must be a Tensor (got {shown})"
        else:  # a long value is cut short
            assert str(caught.value).endswith("...)") and len(str(caught.value)) < 150


def test_plan_refuses_a_non_int_for_a_symint_of_unknown_value() -> None:
    plan = compile_function(find_function(parse_module("""
    func.func @f(%n: !tx.symint) -> !tx.symint {
      func.return %n : !tx.symint
    }""")))
    assert plan(7) == (7,)
    with _guard("Guard failed: n must be an int (got float 7.0)"):
        plan(7.0)
