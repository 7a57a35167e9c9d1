"""Lazy modules: the in-size is read off the first input.

A lazy module holds UninitializedParameter/UninitializedBuffer placeholders
until its first call; a forward pre-hook then gives them their shapes,
initialises them as the ordinary module would, and turns the module into its
``cls_to_become`` (LazyLinear becomes Linear), as torch does. So a model is
called once eagerly, then exported as the ordinary module."""

from __future__ import annotations

import itertools
from typing import Any

from texport.dialects.dtypes import DType

from ..factories import empty, tensor
from ..tensor import Tensor
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .module import Module, Parameter
from .norms import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    _BatchNorm,
    _InstanceNorm,
    _NormBase,
)

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyLinear", "UninitializedBuffer",
           "UninitializedParameter"]


class _Uninitialized:
    """A tensor without a shape yet: ``materialize(shape)`` gives it storage
    and makes it its ``cls_to_become`` (Parameter or Tensor)."""

    __slots__ = ()
    cls_to_become: type

    def materialize(self, shape: Any, device: Any = None, dtype: DType | None = None) -> None:
        made = empty(shape, dtype=dtype if dtype is not None else self._dtype)  # type: ignore[attr-defined]
        self._value, self._dtype = made._value, made._dtype  # type: ignore[attr-defined]
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes."
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class UninitializedParameter(_Uninitialized, Parameter):
    """A Parameter whose shape the lazy module's first input decides."""

    __slots__ = ()
    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: DType | None = None) -> None:
        super().__init__(empty(0, dtype=dtype), requires_grad)


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer whose shape the lazy module's first input decides."""

    __slots__ = ()
    cls_to_become = Tensor

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: DType | None = None) -> None:
        made = empty(0, dtype=dtype)
        self._value, self._dtype = made._value, made._dtype
        self.requires_grad = requires_grad
        self.grad = None


def is_lazy(value: Any) -> bool:
    return isinstance(value, _Uninitialized)


class LazyModuleMixin:
    """Infers the placeholders' shapes on the first call (``initialize_parameters``),
    then removes its hook and becomes ``cls_to_become``; a state dict with real
    tensors materialises the placeholders as it loads."""

    cls_to_become: type[Module] | None = None
    _parameters: dict[str, Any]
    _buffers: dict[str, Any]
    _non_persistent_buffers_set: set[str]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters)  # type: ignore[attr-defined]

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
        # placeholders are saved as they are (they have no data to share)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.data
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.data

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any) -> None:
        for name, member in itertools.chain(self._parameters.items(), self._buffers.items()):
            value = state_dict.get(prefix + name)
            if value is not None and is_lazy(member) and not is_lazy(value):
                member.materialize(value.shape)
        super()._load_from_state_dict(state_dict, prefix, *args)  # type: ignore[misc]

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(v) for v in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module: Any, args: tuple[Any, ...]) -> None:
        module.initialize_parameters(*args)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")  # type: ignore[attr-defined]
        module._initialize_hook.remove()
        delattr(module, "_initialize_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self) -> None:
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                           "Run a dummy forward pass to correctly initialize the modules")


class LazyLinear(LazyModuleMixin, Linear):
    """Linear with ``in_features`` read off the first input's last dim."""

    cls_to_become = Linear
    weight: UninitializedParameter
    bias: UninitializedParameter

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: DType | None = None) -> None:
        # bias=False first: the placeholders replace Linear's parameters
        super().__init__(0, 0, False, dtype=dtype)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # noqa: A002
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels read off the first input (dim 1 batched, dim 0 unbatched)."""

    _SPATIAL_DIMS = 0

    def _make_placeholders(self, out_channels: int, bias: bool, dtype: DType | None) -> None:
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:  # noqa: A002
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
        else:
            self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:  # noqa: A002
        no_batch = self._SPATIAL_DIMS + 1  # + the channel dim
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]


def _lazy_conv(name: str, base: type, spatial_dims: int) -> type:
    """LazyConv{n}d: ``Conv{n}d(0, 0, ...)`` with placeholders, becoming ``base``."""

    def __init__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: DType | None = None) -> None:
        # bias=False first: the placeholders replace the convolution's parameters
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                                 dtype=dtype)
        self._make_placeholders(out_channels, bias, dtype)

    return type(name, (_LazyConvXdMixin, base), {
        "__init__": __init__, "cls_to_become": base, "_SPATIAL_DIMS": spatial_dims, "__module__": __name__,
        "__doc__": f"{base.__name__} with in_channels read off the first input.",
    })


def _lazy_conv_transpose(name: str, base: type, spatial_dims: int) -> type:
    """LazyConvTranspose{n}d: ``ConvTranspose{n}d(0, 0, ...)`` with placeholders."""

    def __init__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: DType | None = None) -> None:
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False,
                                 dilation, padding_mode, dtype=dtype)
        self._make_placeholders(out_channels, bias, dtype)

    return type(name, (_LazyConvXdMixin, base), {
        "__init__": __init__, "cls_to_become": base, "_SPATIAL_DIMS": spatial_dims, "__module__": __name__,
        "__doc__": f"{base.__name__} with in_channels read off the first input.",
    })


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, 1)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, 2)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d, 3)
LazyConvTranspose1d = _lazy_conv_transpose("LazyConvTranspose1d", ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv_transpose("LazyConvTranspose2d", ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv_transpose("LazyConvTranspose3d", ConvTranspose3d, 3)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features read off the first input's dim 1."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: DType | None = None, *,
                 bias: bool = True) -> None:
        # no affine parameters and no statistics first: placeholders replace them
        super().__init__(0, eps, momentum, False, False, dtype=dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=DType.int64)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # noqa: A002
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        if self.affine:
            self.weight.materialize((self.num_features,))
            if self.bias is not None:
                self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self.running_mean.materialize((self.num_features,))
            self.running_var.materialize((self.num_features,))
        self.reset_parameters()


def _lazy_norm(name: str, family: type, base: type) -> type:
    """Lazy{BatchNorm,InstanceNorm}{n}d: the family's forward, ``base``'s input checks."""
    members = {"cls_to_become": base, "__module__": __name__,
               "__doc__": f"{base.__name__} with num_features read off the first input."}
    if "_check_input_dim" in vars(base):
        members["_check_input_dim"] = vars(base)["_check_input_dim"]
    if "_NO_BATCH_RANK" in vars(base):
        members["_NO_BATCH_RANK"] = base._NO_BATCH_RANK
    return type(name, (_LazyNormBase, family), members)


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", _BatchNorm, BatchNorm1d)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", _BatchNorm, BatchNorm2d)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", _BatchNorm, BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", _InstanceNorm, InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", _InstanceNorm, InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", _InstanceNorm, InstanceNorm3d)
