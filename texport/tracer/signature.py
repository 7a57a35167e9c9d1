"""The graph signature of an exported program, as torch.export's dataclasses.

Example, the seed's conv + batch norm in train mode at training level::

    # inputs
    p_conv_weight: PARAMETER target='conv.weight'
    b_bn_running_mean: BUFFER target='bn.running_mean' persistent=True
    x: USER_INPUT
    # outputs
    batch_norm: USER_OUTPUT
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class InputKind(enum.Enum):
    USER_INPUT = enum.auto()
    PARAMETER = enum.auto()
    BUFFER = enum.auto()
    CONSTANT_TENSOR = enum.auto()
    CUSTOM_OBJ = enum.auto()
    TOKEN = enum.auto()


class OutputKind(enum.Enum):
    USER_OUTPUT = enum.auto()
    LOSS_OUTPUT = enum.auto()
    BUFFER_MUTATION = enum.auto()
    GRADIENT_TO_PARAMETER = enum.auto()
    GRADIENT_TO_USER_INPUT = enum.auto()
    USER_INPUT_MUTATION = enum.auto()
    TOKEN = enum.auto()


@dataclass(frozen=True)
class TensorArgument:
    name: str


@dataclass(frozen=True)
class SymIntArgument:
    name: str


@dataclass(frozen=True)
class ConstantArgument:
    name: str
    value: Any


@dataclass(frozen=True)
class InputSpec:
    kind: InputKind
    arg: Any
    target: str | None
    persistent: bool | None = None

    def __str__(self) -> str:
        text = f"{self.arg.name}: {self.kind.name}"
        if self.target is not None:
            text += f" target={self.target!r}"
        if self.persistent is not None:
            text += f" persistent={self.persistent}"
        return text


@dataclass(frozen=True)
class OutputSpec:
    kind: OutputKind
    arg: Any
    target: str | None

    def __str__(self) -> str:
        text = f"{self.arg.name}: {self.kind.name}"
        return text if self.target is None else f"{text} target={self.target!r}"


@dataclass
class ExportGraphSignature:
    """Input and output specs, with torch's convenience views."""

    input_specs: list[InputSpec] = field(default_factory=list)
    output_specs: list[OutputSpec] = field(default_factory=list)

    def _targets(self, kind: InputKind) -> tuple[str, ...]:
        return tuple(s.target for s in self.input_specs if s.kind is kind and s.target is not None)

    @property
    def parameters(self) -> tuple[str, ...]:
        return self._targets(InputKind.PARAMETER)

    @property
    def buffers(self) -> tuple[str, ...]:
        return self._targets(InputKind.BUFFER)

    @property
    def non_persistent_buffers(self) -> tuple[str, ...]:
        return tuple(s.target for s in self.input_specs
                     if s.kind is InputKind.BUFFER and s.persistent is False)

    @property
    def lifted_tensor_constants(self) -> tuple[str, ...]:
        return self._targets(InputKind.CONSTANT_TENSOR)

    @property
    def user_inputs(self) -> tuple[Any, ...]:
        return tuple(s.arg.name if not isinstance(s.arg, ConstantArgument) else s.arg.value
                     for s in self.input_specs if s.kind is InputKind.USER_INPUT)

    @property
    def user_outputs(self) -> tuple[Any, ...]:
        return tuple(s.arg.name if not isinstance(s.arg, ConstantArgument) else s.arg.value
                     for s in self.output_specs if s.kind is OutputKind.USER_OUTPUT)

    @property
    def inputs_to_parameters(self) -> dict[str, str]:
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.PARAMETER}

    @property
    def inputs_to_buffers(self) -> dict[str, str]:
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.BUFFER}

    @property
    def inputs_to_lifted_tensor_constants(self) -> dict[str, str]:
        return {s.arg.name: s.target for s in self.input_specs
                if s.kind is InputKind.CONSTANT_TENSOR}

    @property
    def buffers_to_mutate(self) -> dict[str, str]:
        return {s.arg.name: s.target for s in self.output_specs
                if s.kind is OutputKind.BUFFER_MUTATION}

    @property
    def user_inputs_to_mutate(self) -> dict[str, str]:
        return {s.arg.name: s.target for s in self.output_specs
                if s.kind is OutputKind.USER_INPUT_MUTATION}

    def __str__(self) -> str:
        inputs = "\n".join(f"    {spec}" for spec in self.input_specs)
        outputs = "\n".join(f"    {spec}" for spec in self.output_specs)
        return f"\n    # inputs\n{inputs}\n\n    # outputs\n{outputs}\n"
