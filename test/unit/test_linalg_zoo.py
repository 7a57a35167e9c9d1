"""Every zoo model, in train and eval mode, lowered from core to upstream MLIR by
``lower-core-to-linalg``: no texport op is left (legalize-linalg), iree-opt
verifies the text, and IREE's native code gives the interpreter's numbers for
every result of the core function (the user's outputs and the updated buffers).

Tolerance: rtol 1e-4, atol 1e-4 — IREE reorders float sums (tiled matmuls and
convolutions, vectorised reductions) and uses its own polynomial tanh/erf/exp;
ResNet18's 20 convolutions accumulate the most (measured max abs difference:
see the closing note of issue 20)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from linalg_checks import check_lowered  # noqa: E402
from models import ZOO  # noqa: E402

RTOL = ATOL = 1e-4


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo_model_compiles_to_native_code_with_the_interpreters_numbers(name: str, train: bool) -> None:
    pytest.importorskip("iree.compiler")
    model, args = ZOO[name]()
    model.train(train)
    from texport.export import export

    program = export(model, args).run_decompositions()
    text = check_lowered(program, list(args), rtol=RTOL, atol=ATOL)
    assert "!tx." not in text and "core." not in text
