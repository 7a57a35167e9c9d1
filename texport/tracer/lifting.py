"""Input lifting: what becomes the traced function's arguments, in torch's order.

Parameters, buffers and lifted constants become function arguments named as
torch names placeholders (``p_conv_weight``, ``b_bn_running_mean``,
``c_lifted_tensor_0``), in torch's order: parameters, buffers, constants,
user inputs. Every argument gets its InputSpec and its attributes
(``tx.input``, ``tx.target``, ``tx.persistent``, ``tx.path``), so the printed
function is a complete signature. Constants are met only while the forward
runs: the tracer inserts their arguments before the user inputs, and
``Arguments.add_constants`` records their specs after the run.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, SSAValue

from texport.dialects.names import set_name
from texport.dialects.tx import TensorType, symint

from . import pytree
from .errors import UserError
from .input_dims import InputDims
from .nn.module import Module
from .signature import ConstantArgument, InputKind, InputSpec, SymIntArgument, TensorArgument
from .subtrace import symbol_sources
from .symint import SymInt, SymNode
from .tensor import Tensor
from .tracing import Tracer


def bind_inputs(mod: Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The forward's arguments by name (torch names placeholders after them)."""
    if not isinstance(mod, Module):
        raise UserError(f"export() expects a texport.nn.Module, got {type(mod).__name__}")
    if not isinstance(args, tuple):
        raise UserError(f"Expecting `args` to be a tuple of example positional inputs, got {type(args).__name__}")
    try:
        bound = inspect.signature(mod.forward).bind(*args, **kwargs)
    except TypeError as err:
        raise UserError(f"the example inputs do not fit {type(mod).__name__}.forward: {err}") from None
    return dict(bound.arguments)


@dataclass(frozen=True)
class UserLeaf:
    """One leaf of the user's inputs."""

    placeholder: str  # the argument's name, as torch names it: ``inp_others_0``
    path: str  # where the user put it: ``inp['others'][0]``
    value: Any


def user_leaves(named: dict[str, Any], var_keyword: str | None = None) -> list[UserLeaf]:
    """Every leaf of every argument, in the order the forward's inputs flatten.
    Entries of the ``**var_keyword`` argument are named by their own keys, as
    torch names them (``tgt``, not ``kwargs_tgt``)."""
    return [
        UserLeaf(_leaf_name(path, arg_name, arg_name == var_keyword), arg_name + pytree.keystr(path), leaf)
        for arg_name, value in named.items()
        for path, leaf in pytree.tree_flatten_with_path(value)[0]
    ]


def _leaf_name(path: Any, arg_name: str, is_var_keyword: bool) -> str:
    if is_var_keyword:
        return pytree.placeholder_name(path[1:], str(path[0].key))
    return pytree.placeholder_name(path, arg_name)


def _arg_attrs(kind: InputKind, target: str | None = None, persistent: bool | None = None,
               path: str | None = None) -> dict[str, Attribute]:
    attrs: dict[str, Attribute] = {"tx.input": StringAttr(kind.name)}
    if target is not None:
        attrs["tx.target"] = StringAttr(target)
    if persistent is not None:
        attrs["tx.persistent"] = IntegerAttr(int(persistent), 1)
    if path is not None:
        attrs["tx.path"] = StringAttr(path)
    return attrs


@dataclass
class Arguments:
    """The function's arguments, lifted one by one. ``specs`` runs parallel to
    the signature's inputs, ``attrs`` to the block's arguments (a specialised
    Python constant input has a spec but no argument)."""

    tracer: Tracer
    specs: list[InputSpec] = field(default_factory=list)
    attrs: list[dict[str, Attribute]] = field(default_factory=list)
    constants_at: int = 0  # where the lifted constants' specs go: after the buffers

    def add(self, name: str, arg_type: Attribute, kind: InputKind, target: str | None = None, *,
            persistent: bool | None = None, path: str | None = None,
            argument: type = TensorArgument) -> SSAValue:
        block = self.tracer.blocks[0]
        arg = block.insert_arg(arg_type, len(block.args))
        set_name(arg, self.tracer.names.claim(name, placeholder=True))
        self.specs.append(InputSpec(kind, argument(arg.name_hint), target, persistent))
        self.attrs.append(_arg_attrs(kind, target, persistent, path))
        return arg

    def add_constants(self) -> None:
        """Specs for the tensors the forward captured (the tracer lifted them
        to arguments before the user inputs while it ran)."""
        for offset, (name, _tensor, arg) in enumerate(self.tracer.lifted_constants):
            at = self.constants_at + offset
            self.specs.insert(at, InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(arg.name_hint), name))
            self.attrs.insert(at, _arg_attrs(InputKind.CONSTANT_TENSOR, name))

    def dictionaries(self) -> list[DictionaryAttr]:
        """The argument attributes of the function, one per block argument."""
        assert len(self.attrs) == len(self.tracer.blocks[0].args), "every function argument has its attributes"
        return [DictionaryAttr(a) for a in self.attrs]


def state_placeholder_name(prefix: str, fqn: str) -> str:
    """torch.export's name for a parameter or buffer: lower case, a leading
    ``self_`` dropped (torch strips the root's ``self`` from the traced name,
    so ``self_attn.w`` is ``p_attn_w``), other characters as ``_``."""
    name = fqn.removeprefix("self_")
    return prefix + re.sub(r"[^a-zA-Z0-9]", "_", name).lower()


def lift_state(arguments: Arguments, mod: Module) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """Parameters, then buffers, as arguments: (state_dict, non-persistent buffers).
    A tensor registered under several names (tied weights) is an argument under
    each, as in torch; the forward reads it through the last name."""
    tracer = arguments.tracer
    persistent = set(mod.state_dict(keep_vars=True)) if hasattr(mod, "state_dict") else set()
    state_dict: dict[str, Tensor] = {}
    constants: dict[str, Tensor] = {}
    for fqn, param in mod.named_parameters(remove_duplicate=False):
        arg = arguments.add(state_placeholder_name("p_", fqn), TensorType.get(param.shape, param.dtype),
                            InputKind.PARAMETER, fqn)
        tracer.register_input(param, arg)
        state_dict[fqn] = param
    for fqn, buffer in mod.named_buffers(remove_duplicate=False):
        is_persistent = fqn in persistent
        arg = arguments.add(state_placeholder_name("b_", fqn), TensorType.get(buffer.shape, buffer.dtype),
                            InputKind.BUFFER, fqn, persistent=is_persistent)
        tracer.register_input(buffer, arg)
        (state_dict if is_persistent else constants)[fqn] = buffer
    tracer.constant_insert_at = len(tracer.blocks[0].args)
    arguments.constants_at = len(arguments.specs)
    return state_dict, constants


@dataclass
class UserInputs:
    """The user inputs as the forward sees them, and what export() records of them."""

    fakes: list[Any] = field(default_factory=list)  # one per leaf, in leaf order
    paths: list[str] = field(default_factory=list)  # of the leaves that became arguments
    int_paths: set[str] = field(default_factory=set)  # of the ints that became symbols
    constants: dict[str, Any] = field(default_factory=dict)  # specialised Python values, by path


def lift_user_inputs(arguments: Arguments, leaves: list[UserLeaf], dims: InputDims) -> UserInputs:
    """Tensors and dynamic ints become arguments with the dims ``dims`` gives
    them; any other Python value is specialised into the program."""
    inputs = UserInputs()
    for leaf in leaves:
        if isinstance(leaf.value, Tensor):
            fake = _lift_tensor(arguments, leaf, dims.tensors[leaf.path])
        elif isinstance(leaf.value, SymNode):
            raise UserError(f"symbolic scalar inputs are not supported (at {leaf.path})")
        elif leaf.path in dims.ints:
            fake = _lift_int(arguments, leaf, dims.ints[leaf.path])
            inputs.int_paths.add(leaf.path)
        else:
            inputs.fakes.append(leaf.value)
            inputs.constants[leaf.path] = leaf.value
            arguments.specs.append(InputSpec(InputKind.USER_INPUT, ConstantArgument(leaf.placeholder, leaf.value), None))
            continue
        inputs.fakes.append(fake)
        inputs.paths.append(leaf.path)
    tracer = arguments.tracer
    tracer.symbol_sources.update(symbol_sources(tracer.blocks[0].args, tracer.level))
    return inputs


def _lift_tensor(arguments: Arguments, leaf: UserLeaf, dims: tuple[Any, ...]) -> Tensor:
    dtype = leaf.value.dtype
    arg = arguments.add(leaf.placeholder, TensorType.get(dims, dtype), InputKind.USER_INPUT, path=leaf.path)
    return arguments.tracer.fake(dims, dtype, arg)


def _lift_int(arguments: Arguments, leaf: UserLeaf, sym: Any) -> SymInt:
    arg = arguments.add(leaf.placeholder, symint(sym), InputKind.USER_INPUT, path=leaf.path,
                        argument=SymIntArgument)
    arguments.tracer.sym_values[sym] = arg
    return SymInt(sym, arguments.tracer)
