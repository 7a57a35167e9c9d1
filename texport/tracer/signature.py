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
from dataclasses import dataclass, field, replace
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
    PARAMETER_MUTATION = enum.auto()
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
class TokenArgument:
    name: str


@dataclass(frozen=True)
class CustomObjArgument:
    name: str
    class_fqn: str
    fake_val: Any = None


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
class ExportBackwardSignature:
    gradients_to_parameters: dict[str, str]
    gradients_to_user_inputs: dict[str, str]
    loss_output: str


_NAMED_ARGUMENTS = (TensorArgument, SymIntArgument, TokenArgument, CustomObjArgument)


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

    @property
    def parameters_to_mutate(self) -> dict[str, str]:
        return {s.arg.name: s.target for s in self.output_specs
                if s.kind is OutputKind.PARAMETER_MUTATION}

    @property
    def lifted_custom_objs(self) -> tuple[str, ...]:
        return self._targets(InputKind.CUSTOM_OBJ)

    @property
    def inputs_to_lifted_custom_objs(self) -> dict[str, str]:
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.CUSTOM_OBJ}

    @property
    def input_tokens(self) -> tuple[str, ...]:
        return tuple(s.arg.name for s in self.input_specs if s.kind is InputKind.TOKEN)

    @property
    def output_tokens(self) -> tuple[str, ...]:
        return tuple(s.arg.name for s in self.output_specs if s.kind is OutputKind.TOKEN)

    @property
    def assertion_dep_token(self) -> dict[int, str] | None:
        """None, as torch's: runtime asserts depend on no token."""
        return None

    @property
    def backward_signature(self) -> ExportBackwardSignature | None:
        """The loss and gradient outputs of a joint program; None without a LOSS_OUTPUT
        (every program export makes)."""
        losses = [s.arg.name for s in self.output_specs if s.kind is OutputKind.LOSS_OUTPUT]
        if len(losses) > 1:
            raise AssertionError("multiple LOSS_OUTPUT specs found")
        if not losses:
            return None

        def gradients(kind: OutputKind) -> dict[str, str]:
            return {s.arg.name: s.target for s in self.output_specs if s.kind is kind}

        return ExportBackwardSignature(gradients(OutputKind.GRADIENT_TO_PARAMETER),
                                       gradients(OutputKind.GRADIENT_TO_USER_INPUT), losses[0])

    def replace_all_uses(self, old: str, new: str) -> None:
        """Rename the graph value ``old`` to ``new`` in every spec that names it."""
        if not isinstance(old, str):
            raise AssertionError(f"expected old to be str, got {type(old)}")
        if not isinstance(new, str):
            raise AssertionError(f"expected new to be str, got {type(new)}")

        def renamed(spec: Any) -> Any:
            if isinstance(spec.arg, _NAMED_ARGUMENTS) and spec.arg.name == old:
                return replace(spec, arg=replace(spec.arg, name=new))
            return spec

        self.input_specs[:] = [renamed(s) for s in self.input_specs]
        self.output_specs[:] = [renamed(s) for s in self.output_specs]

    def get_replace_hook(self, replace_inputs: bool = False) -> Any:
        """torch's hook for node renames, ``hook(old, new, user)`` (FX nodes: ``.name``
        and ``.op``): a use in the output, or with ``replace_inputs`` a renamed input
        (placeholder), is renamed in the signature."""

        def hook(old: Any, new: str, user: Any) -> None:
            if user.op == "output" or (replace_inputs and old.op == "placeholder"):
                self.replace_all_uses(old.name, new)

        return hook

    def __str__(self) -> str:
        inputs = "\n".join(f"    {spec}" for spec in self.input_specs)
        outputs = "\n".join(f"    {spec}" for spec in self.output_specs)
        return f"\n    # inputs\n{inputs}\n\n    # outputs\n{outputs}\n"
