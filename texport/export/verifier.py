"""``ep.verifier``: what ``ep.validate()`` checks, per dialect, as torch's verifiers.

Every program: the IR verifies (xDSL's own checks: types, regions, each op's
verifier) and the graph signature matches the function (one argument per
non-constant input spec, one result per non-constant output spec, kinds
consistent). A functional (``run_decompositions``) program also holds only
functional ops."""

from __future__ import annotations

from typing import Any

from texport.lowering.legality import check_functional
from texport.tracer.signature import ConstantArgument, InputKind, OutputKind


class SpecViolationError(Exception):
    """torch._export.verifier.SpecViolationError: the program breaks its dialect's rules."""


class Verifier:
    """The ATEN dialect (a functional program, after run_decompositions)."""

    dialect = "ATEN"

    def check(self, ep: Any) -> None:
        ep.graph_module.module.verify()
        _check_signature(ep)
        self.check_ops(ep)

    def check_ops(self, ep: Any) -> None:
        try:
            check_functional(ep.graph_module.module, pass_name=f"{self.dialect} verifier")
        except Exception as err:
            raise SpecViolationError(str(err)) from None


class TrainingIRVerifier(Verifier):
    """The TRAINING dialect (export's result): any ATEN op, in-place ones included."""

    dialect = "TRAINING"

    def check_ops(self, ep: Any) -> None:
        return


def _check_signature(ep: Any) -> None:
    signature = ep.graph_signature
    block = ep.graph.body.block
    inputs = [s for s in signature.input_specs if not isinstance(s.arg, ConstantArgument)]
    if len(inputs) != len(block.args):
        raise SpecViolationError(f"the graph signature lists {len(inputs)} inputs, the graph takes {len(block.args)}")
    outputs = [s for s in signature.output_specs if not isinstance(s.arg, ConstantArgument)]
    returned = block.last_op.operands
    if len(outputs) != len(returned):
        raise SpecViolationError(f"the graph signature lists {len(outputs)} outputs, the graph returns {len(returned)}")
    for spec in signature.input_specs:
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER) and not (
                spec.target in ep.state_dict or spec.target in ep.constants):
            raise SpecViolationError(f"{spec.kind.name.lower()} {spec.target!r} is not in the state dict")
        if spec.kind is InputKind.CONSTANT_TENSOR and spec.target not in ep.constants:
            raise SpecViolationError(f"constant {spec.target!r} is not in the program's constants")
    buffers = set(signature.buffers)
    for spec in signature.output_specs:
        if spec.kind is OutputKind.BUFFER_MUTATION and spec.target not in buffers:
            raise SpecViolationError(f"buffer mutation target {spec.target!r} is not a buffer input")


VERIFIERS = {"TRAINING": TrainingIRVerifier, "ATEN": Verifier, "INFERENCE": Verifier}
