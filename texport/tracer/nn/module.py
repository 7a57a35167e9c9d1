"""``nn.Module`` and ``nn.Parameter``, with torch's semantics.

A Module keeps its parameters, buffers and children in three dicts; attribute
assignment routes values into them exactly as torch's ``__setattr__`` does, so
``named_parameters``/``state_dict`` see torch's names in torch's order (a
module's own members first, then each child's in registration order). This is
what export relies on: placeholder names and signature targets are these FQNs.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from texport.dialects.dtypes import DType

from ..factories import empty
from ..tensor import Tensor, device

__all__ = ["Module", "Parameter"]


def _typename(value: Any) -> str:
    """torch.typename: ``texport.FloatTensor`` style for tensors, else the class path."""
    if isinstance(value, Tensor):
        return f"texport.{type(value).__name__}"
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter when assigned to it.

    ``Parameter(t)`` shares ``t``'s storage (as torch's does) and requires grad
    by default."""

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {_typename(data)}")
        self._value = data._value
        self._dtype = data._dtype
        self.requires_grad = requires_grad
        self.grad = None

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class _IncompatibleKeys(NamedTuple):
    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"

    __str__ = __repr__


class RemovableHandle:
    """What ``register_forward_hook`` returns: ``handle.remove()`` unhooks."""

    _next_id = itertools.count()

    def __init__(self, hooks: dict[int, Callable[..., Any]]) -> None:
        self._hooks = hooks
        self.id = next(RemovableHandle._next_id)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * spaces + line for line in lines)


def _join(prefix: str, name: str) -> str:
    return prefix + ("." if prefix else "") + name


class Module:
    """Base class of every layer and model (``texport.nn.Module``)."""

    _version: int = 1
    training: bool

    def __init__(self) -> None:
        # object.__setattr__: our __setattr__ routes values into these dicts.
        set_ = super().__setattr__
        set_("training", True)
        set_("_parameters", {})
        set_("_buffers", {})
        set_("_non_persistent_buffers_set", set())
        set_("_modules", {})
        set_("_forward_pre_hooks", {})
        set_("_forward_hooks", {})

    # ---- calling ---------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._forward_pre_hooks and not self._forward_hooks:  # no hooks: no copies of their dicts
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    def register_forward_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    # ---- registration ----------------------------------------------------

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        self.add_module(name, module)

    # ---- attribute routing (torch's rules) ---------------------------------

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: members live in the three dicts.
        state = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            members = state.get(table)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "_buffers", "_modules")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            self._set_module_or_buffer(name, value)

    def _set_module_or_buffer(self, name: str, value: Any) -> None:
        modules = self.__dict__.get("_modules")
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "_parameters", "_buffers")
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = value
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            buffers[name] = value
        else:
            super().__setattr__(name, value)

    def _forget(self, name: str, *tables: str) -> None:
        """Drop ``name`` from the instance dict and the given member tables."""
        self.__dict__.pop(name, None)
        for table in tables:
            self.__dict__[table].pop(name, None)
        if "_buffers" in tables:
            self._non_persistent_buffers_set.discard(name)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self) -> list[str]:
        keys = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers]
        return sorted({key for key in keys if not key[0].isdigit()})

    # ---- traversal --------------------------------------------------------

    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, _join(prefix, name), remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        memo: set[Module] = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, members: Callable[[Module], Any], prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo: set[int] = set()
        if recurse:
            modules: Any = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            modules = [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or id(value) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(value))
                yield _join(module_prefix, name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(module._get_name() + " has no attribute `" + item + "`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(module, name)

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- modes and gradients ---------------------------------------------

    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                param.grad.requires_grad_(False)
                param.grad.zero_()

    # ---- dtype conversion ---------------------------------------------------

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """Convert every parameter and buffer; parameters keep their object
        (``param.data = fn(param)``), as torch does by default."""
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is not None:
                converted = fn(param)
                if converted is not param:
                    param.data = converted
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        dtype = _parse_to(args, kwargs)
        if dtype is None:
            return self
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
            )
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() or t.is_complex() else t)

    def _cast_floating(self, dtype: DType) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> Module:
        return self._cast_floating(DType.float32)

    def double(self) -> Module:
        return self._cast_floating(DType.float64)

    def half(self) -> Module:
        return self._cast_floating(DType.float16)

    def bfloat16(self) -> Module:
        return self._cast_floating(DType.bfloat16)

    def cpu(self) -> Module:
        return self

    # ---- state dict ----------------------------------------------------------

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
        # ``.data`` shares storage without recording an op (torch uses detach()).
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.data
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.data

    def state_dict(self, *, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict[str, Tensor]:
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state = OrderedDict(state_dict)
        self._load_recursive(state, "", metadata, strict, assign, (missing, unexpected, errors))
        if strict:
            if unexpected:
                errors.insert(0, f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
            if missing:
                errors.insert(0, f"Missing key(s) in state_dict: {_quoted(missing)}. ")
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(errors))
            )
        return _IncompatibleKeys(missing, unexpected)

    def _load_recursive(self, state: dict[str, Any], prefix: str, metadata: Any, strict: bool,
                        assign: bool, report: tuple[list[str], list[str], list[str]]) -> None:
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        local_metadata["assign_to_params_buffers"] = assign
        self._load_from_state_dict(state, prefix, local_metadata, strict, *report)
        for name, child in self._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state = {k: v for k, v in state.items() if k.startswith(child_prefix)}
                child._load_recursive(child_state, child_prefix, metadata, strict, assign, report)

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, local_metadata: dict[str, Any],
                              strict: bool, missing_keys: list[str], unexpected_keys: list[str],
                              error_msgs: list[str]) -> None:
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        members = itertools.chain(self._parameters.items(), persistent.items())
        local_state = {k: v for k, v in members if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                self._load_one(name, key, param, state_dict[key], assign, error_msgs)
            elif strict:
                missing_keys.append(key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    local_name = key[len(prefix):].split(".", 1)
                    if len(local_name) > 1 and local_name[0] not in self._modules:
                        unexpected_keys.append(key)
                    elif len(local_name) == 1 and local_name[0] not in local_state:
                        unexpected_keys.append(key)

    def _load_one(self, name: str, key: str, param: Tensor, value: Any, assign: bool,
                  error_msgs: list[str]) -> None:
        """Copy one checkpoint value into ``param`` in place (or assign it)."""
        if not isinstance(value, Tensor):
            error_msgs.append(
                f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object '
                f"from checkpoint but received {type(value)}"
            )
            return
        if len(param.shape) == 0 and len(value.shape) == 1:
            value = value[0]  # checkpoints of torch 0.3 stored scalars as [1]
        if tuple(value.shape) != tuple(param.shape):
            error_msgs.append(
                f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                f"the shape in current model is {param.shape}."
            )
            return
        try:
            if assign:
                if isinstance(param, Parameter) and not isinstance(value, Parameter):
                    value = Parameter(value, requires_grad=param.requires_grad)
                setattr(self, name, value)
            else:
                param.copy_(value)
        except Exception as error:  # reported like torch, with the cause
            error_msgs.append(
                f'While copying the parameter named "{key}", whose dimensions in the model are {param.size()} '
                f"and whose dimensions in the checkpoint are {value.size()}, "
                f"an exception occurred : {error.args}."
            )

    # ---- printing --------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body = extra_lines[0]
            else:
                body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


def _quoted(keys: list[str]) -> str:
    return ", ".join(f'"{key}"' for key in keys)


def _check_member_name(kind: str, name: Any) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


def _parse_to(args: tuple[Any, ...], kwargs: dict[str, Any]) -> DType | None:
    """The dtype of ``module.to(...)``; devices must be the CPU."""
    dtype = kwargs.pop("dtype", None)
    target = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for arg in args:
        if isinstance(arg, DType):
            dtype = arg
        elif isinstance(arg, Tensor):
            dtype = arg.dtype
        elif isinstance(arg, (str, device)):
            target = arg
        elif not isinstance(arg, bool):
            raise TypeError(f"to() received an invalid combination of arguments: {arg!r}")
    if target is not None:
        device(target)  # raises for anything but the CPU
    return dtype

