"""``to_torch(ep)``: a texport ExportedProgram, at any level (training,
functional, core; exported, loaded, parsed from IR text, rewritten by
texport-opt), as a real ``torch.export.ExportedProgram`` that torch's own tools
take: ``module()``, ``run_decompositions()``, ``validate()``,
``torch.export.save``/``load``.

    torch_ep = texport.bridge.exporter.to_torch(ep)
    torch_ep.module()(x)                      # torch runs it
    torch_ep.run_decompositions()             # torch lowers it

What texport's IR does not hold, the result lacks: ``nn_module_stack`` names
only the root and the submodules whose call signature export preserved (enough
for ``torch.export.unflatten``), a ``stack_trace`` has the file, line and
source but not the function name, and programs without example inputs get
size hints from their ranges.

The pieces: ``torch_symbols`` (the ShapeEnv holding texport's symbols with
their names, hints and ranges), ``torch_graph`` (the IR as an FX graph with
fake values), ``torch_specs`` (signature, pytree specs, module call graph,
weights).
"""

from __future__ import annotations

from typing import Any

import torch
from torch._export.verifier import TrainingIRVerifier, Verifier

from texport.tracer.signature import ConstantArgument

from .torch_graph import GraphBuilder, ToTorchError
from .torch_specs import (
    defaulted_inputs,
    example_hints,
    example_inputs,
    input_spec,
    module_call_graph,
    output_spec,
    set_module_stacks,
    state_tensors,
)
from .torch_symbols import TorchSymbols

__all__ = ["ToTorchError", "to_torch"]


def to_torch(ep: Any) -> torch.export.ExportedProgram:
    """``ep`` as a torch.export.ExportedProgram (see the module docstring)."""
    symbols = TorchSymbols(ep.range_constraints, example_hints(ep))
    root = torch.nn.Module()  # holds the control ops' subgraph modules
    builder = GraphBuilder(symbols, root)
    input_specs, input_nodes = _inputs(ep, builder)
    outputs = _outputs(ep, builder)
    set_module_stacks(ep, builder.graph, builder.origin)
    state_dict, constants = state_tensors(ep)
    signature = torch.export.ExportGraphSignature(
        [input_spec(spec, node) for spec, node in zip(input_specs, input_nodes)],
        [output_spec(spec, value) for spec, value in zip(ep.graph_signature.output_specs, outputs)],
    )
    verifier = TrainingIRVerifier if ep.dialect == "TRAINING" else Verifier
    return torch.export.ExportedProgram(
        root=root,
        graph=builder.graph,
        graph_signature=signature,
        state_dict=state_dict,
        range_constraints=symbols.range_constraints(),
        module_call_graph=module_call_graph(ep, builder.node_names()),
        example_inputs=example_inputs(ep),
        constants=constants,
        verifiers=[verifier],
    )


def _inputs(ep: Any, builder: GraphBuilder) -> tuple[list[Any], list[Any]]:
    """The input specs torch keeps and one placeholder each: the function's arguments,
    and a placeholder for each input export specialised to a constant (the IR has
    none; torch keeps one), except the parameters the call left to their defaults."""
    args = iter(ep.graph.body.block.args)
    defaulted = defaulted_inputs(ep)
    specs = [s for i, s in enumerate(ep.graph_signature.input_specs) if i not in defaulted]
    nodes = []
    for spec in specs:
        if isinstance(spec.arg, ConstantArgument):
            nodes.append(builder.constant_placeholder(spec.arg.name, spec.arg.value))
        else:
            nodes.extend(builder.placeholders([next(args)], [spec.arg.name]))
    return specs, nodes


def _outputs(ep: Any, builder: GraphBuilder) -> list[Any]:
    """The body, and the output node: what the function returns, with each constant
    output in its place (torch's graph returns the constant)."""
    returned = iter(builder.body(ep.graph.body.block))
    outputs = [spec.arg.value if isinstance(spec.arg, ConstantArgument) else next(returned)
               for spec in ep.graph_signature.output_specs]
    builder.output(tuple(outputs))
    return outputs
