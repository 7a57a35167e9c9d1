"""Strides of the special functions and pointwise maths against real torch
(test_parity_strides.py's check): the torch.special aliases and the composites
torch does not tag pointwise still take the elementwise layout of a permuted
input; mvlgamma's sum over a new last dim is row-major."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

from test_parity_strides import test_every_value_has_torchs_strides as _check  # noqa: E402

PROGRAMS: dict[str, Callable[[Any], Callable[[Any], Any]]] = {
    "special_unary_of_a_permute": lambda m: lambda x: (
        m.special.ndtr(x.permute(2, 0, 1)) + m.special.sinc(x.permute(2, 0, 1)) + m.special.gammaln(x.permute(2, 0, 1))
        + m.special.round(x.permute(2, 0, 1)) + m.special.expit(x.permute(2, 0, 1))),
    "special_binary_of_a_transpose": lambda m: lambda x: (
        m.special.xlogy(x.transpose(1, 2), 2.0) + m.special.polygamma(1, x.transpose(1, 2).abs() + 1)),
    "isclose_isreal_fix": lambda m: lambda x: m.stack([
        m.isclose(x.transpose(0, 2), x.transpose(0, 2)), m.isreal(x.transpose(0, 2)),
        m.fix(x.transpose(0, 2)) > 0]),
    "pointwise_of_a_transpose": lambda m: lambda x: (
        m.erfc(x.transpose(1, 2)) + m.hypot(x.transpose(1, 2), x.transpose(1, 2)) + m.logit(x.transpose(1, 2))),
    "mvlgamma_of_a_transpose": lambda m: lambda x: m.mvlgamma(x.transpose(1, 2).abs() + 2, 2),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_value_has_torchs_strides(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import test_parity_strides

    monkeypatch.setitem(test_parity_strides.PROGRAMS, name, PROGRAMS[name])
    _check(name)
