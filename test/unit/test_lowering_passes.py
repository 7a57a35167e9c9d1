"""The lowering passes as xDSL ModulePasses: registered by name, documented
as source level → target level, leaving IR that verifies (on every zoo model),
and failing with errors that name the op and where it came from."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from models import ZOO  # noqa: E402

import texport as torch  # noqa: E402
from texport.dialects.context import make_context, parse_module, print_module  # noqa: E402
from texport.interpreter.executor import compile_function  # noqa: E402
from texport.lowering.errors import LegalityError  # noqa: E402
from texport.lowering.ir import clone_module, functions  # noqa: E402
from texport.lowering.passes import (  # noqa: E402
    PASSES,
    DecomposePass,
    FunctionalizePass,
    LegalizeCorePass,
    LegalizeFunctionalPass,
)
from texport.lowering.pipeline import decomposition_pipeline  # noqa: E402
from texport.universe import PASSES as UNIVERSE_PASSES  # noqa: E402


def test_passes_are_registered_by_name() -> None:
    from texport.lowering.linalg import LINALG_PASSES

    assert set(UNIVERSE_PASSES) == {p.name for p in (*PASSES, *LINALG_PASSES)}
    for name, factory in UNIVERSE_PASSES.items():
        cls = factory()
        assert cls.name == name and name == name.lower() and " " not in name
        assert "→" in (cls.__doc__ or ""), f"{name}: the docstring says source level → target level"


def test_pass_names_do_not_clash_with_xdsl() -> None:
    from xdsl.transforms import get_all_passes

    assert not set(UNIVERSE_PASSES) & set(get_all_passes())


def _training_module(name: str, train: bool = True) -> ModuleOp:
    model, args = ZOO[name]()
    model.train(train)
    return clone_module(torch.export.export(model, args).graph_module.module)


def _apply(module: ModuleOp, *passes) -> ModuleOp:  # noqa: ANN002
    ctx = make_context()
    for p in passes:
        p.apply(ctx, module)
        module.verify()
    return module


@pytest.mark.parametrize("name", sorted(ZOO))
def test_every_pass_leaves_verifying_ir(name: str) -> None:
    module = _apply(_training_module(name), FunctionalizePass(), LegalizeFunctionalPass(), DecomposePass(),
                    LegalizeCorePass(), CanonicalizePass(), DeadCodeElimination(),
                    CommonSubexpressionElimination())
    text = print_module(module)
    assert print_module(parse_module(text)) == text
    assert "training." not in text


def test_the_pipeline_computes_what_run_decompositions_computes() -> None:
    model, args = ZOO["ConvBN"]()
    model.eval()
    ep = torch.export.export(model, args)
    module = _apply(clone_module(ep.graph_module.module), FunctionalizePass(), DecomposePass(),
                    CanonicalizePass(), CommonSubexpressionElimination())
    func = next(functions(module))
    got = compile_function(func)(*[v.numpy() for v in (*ep.state_dict.values(), *args)])
    want = ep.run_decompositions().module()(*args)
    np.testing.assert_allclose(got[-1], want[0].numpy(), rtol=1e-6)


def test_legalize_functional_names_the_first_writer() -> None:
    module = _training_module("ConvBN")
    with pytest.raises(LegalityError, match=r"legalize-functional: 'training.add_.Tensor' at .*norms.py:\d+ writes"):
        LegalizeFunctionalPass().apply(Context(), module)


def test_legalize_core_names_the_first_non_core_op() -> None:
    module = _apply(_training_module("MLP50"), FunctionalizePass())
    with pytest.raises(LegalityError, match=r"legalize-core: 'functional.linear' at .*linear.py:\d+ is not a core"):
        LegalizeCorePass().apply(Context(), module)


def test_decompose_refuses_a_training_program() -> None:
    with pytest.raises(LegalityError, match="decompose: 'training.conv2d'"):
        DecomposePass().apply(Context(), _training_module("ConvBN"))


def test_decompose_with_an_unknown_table() -> None:
    with pytest.raises(ValueError, match="unknown table 'nope'"):
        DecomposePass(table="nope").apply(Context(), _training_module("ConvBN"))


def test_canonicalize_leaves_training_programs_alone() -> None:
    module = _training_module("GPT4")
    before = print_module(module)
    CanonicalizePass().apply(Context(), module)
    assert print_module(module) == before
    functional = _apply(module, FunctionalizePass())
    before = print_module(functional)
    CanonicalizePass().apply(Context(), functional)
    assert print_module(functional) != before, "the same program one level down is canonicalized"


PIPELINES = [(None, "functionalize{tidy=false},decompose{table=core}"), ({}, "functionalize")]


@pytest.mark.parametrize(("table", "spec"), PIPELINES)
def test_run_decompositions_runs_texport_opt_passes(table: dict | None, spec: str) -> None:
    assert decomposition_pipeline(table).passes == PassPipeline.parse_spec(UNIVERSE_PASSES, spec).passes


@pytest.mark.parametrize(("table", "spec"), [*PIPELINES, (None, "functionalize,decompose{table=core}")])
@pytest.mark.parametrize("name", sorted(ZOO))
def test_run_decompositions_is_the_texport_opt_pipeline(name: str, table: dict | None, spec: str) -> None:
    """On the printed IR, texport-opt's pipeline gives run_decompositions' program (whether
    functionalize tidies before decompose or not: that is only speed)."""
    model, args = ZOO[name]()
    ep = torch.export.export(model, args)
    module = parse_module(ep.mlir())
    PassPipeline.parse_spec(UNIVERSE_PASSES, spec).apply(Context(), module)
    assert print_module(module) == ep.run_decompositions(table).mlir()


def test_a_table_object_rides_on_the_decompose_pass() -> None:
    model, args = ZOO["MLP50"]()
    module = _apply(clone_module(torch.export.export(model, args).graph_module.module), FunctionalizePass())
    linear = torch.ops.aten.linear.default.key
    _apply(module, DecomposePass(decompositions={linear: lambda x, w, b=None: x}))
    text = print_module(module)
    assert "linear" not in text and "functional.relu" not in text and "core.relu" in text
