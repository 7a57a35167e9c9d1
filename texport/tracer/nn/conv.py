"""Convolutions: Conv1d/2d/3d and ConvTranspose1d/2d/3d."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from texport.dialects.dtypes import DType

from ..factories import empty
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module, Parameter
from .utils import _pair, _reverse_repeat_tuple, _single, _triple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """What every convolution shares: argument checks, weight shape, init, repr."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple[int, ...],
                 stride: tuple[int, ...], padding: Any, dilation: tuple[int, ...], transposed: bool,
                 output_padding: tuple[int, ...], groups: int, bias: bool, padding_mode: str,
                 dtype: DType | None = None) -> None:
        super().__init__()
        _check_conv_args(in_channels, out_channels, groups, stride, padding, padding_mode)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _padding_for_pad(padding, kernel_size, dilation)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


def _check_conv_args(in_channels: int, out_channels: int, groups: int, stride: tuple[int, ...],
                     padding: Any, padding_mode: str) -> None:
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")
    if isinstance(padding, str):
        if padding not in _PADDING_STRINGS:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")


def _padding_for_pad(padding: Any, kernel_size: tuple[int, ...], dilation: tuple[int, ...]) -> list[int]:
    """Conv padding as F.pad's list (last dim first, left then right); 'same'
    puts the odd extra element on the right, as torch does."""
    if not isinstance(padding, str):
        return list(_reverse_repeat_tuple(padding, 2))
    result = [0, 0] * len(kernel_size)
    if padding == "same":
        for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
            total = d * (k - 1)
            result[2 * i] = total // 2
            result[2 * i + 1] = total - total // 2
    return result


class _Conv(_ConvNd):
    """Conv{1,2,3}d: the rank picks the tuple helper and the functional."""

    _ntuple: Callable[[Any], tuple[Any, ...]]
    _functional: Callable[..., Tensor]

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: DType | None = None) -> None:
        tup = type(self)._ntuple
        super().__init__(in_channels, out_channels, tup(kernel_size), tup(stride),
                         padding if isinstance(padding, str) else tup(padding), tup(dilation), False, tup(0),
                         groups, bias, padding_mode, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:  # noqa: A002
        conv = type(self)._functional
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, type(self)._ntuple(0), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    _ntuple = staticmethod(_single)
    _functional = staticmethod(F.conv1d)


class Conv2d(_Conv):
    _ntuple = staticmethod(_pair)
    _functional = staticmethod(F.conv2d)


class Conv3d(_Conv):
    _ntuple = staticmethod(_triple)
    _functional = staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    """ConvTranspose{1,2,3}d; weight [in, out/groups, k...]."""

    _ntuple: Callable[[Any], tuple[Any, ...]]
    _functional: Callable[..., Tensor]

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: DType | None = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        tup = type(self)._ntuple
        super().__init__(in_channels, out_channels, tup(kernel_size), tup(stride), tup(padding), tup(dilation),
                         True, tup(output_padding), groups, bias, padding_mode, dtype)

    def _output_padding(self, input: Tensor, output_size: Any) -> list[Any]:  # noqa: A002
        """output_padding, or the one that reaches ``output_size`` (torch's rule)."""
        if output_size is None:
            return list(self.output_padding)
        rank = len(self.kernel_size)
        non_spatial = 2 if input.dim() == rank + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + rank:
            output_size = output_size[non_spatial:]
        if len(output_size) != rank:
            raise ValueError(
                f"ConvTranspose{rank}D: for {input.dim()}D input, output_size must have {rank} or "
                f"{non_spatial + rank} elements (got {len(output_size)})"
            )
        min_sizes = [
            (input.size(d + non_spatial) - 1) * self.stride[d] - 2 * self.padding[d]
            + self.dilation[d] * (self.kernel_size[d] - 1) + 1
            for d in range(rank)
        ]
        max_sizes = [low + stride - 1 for low, stride in zip(min_sizes, self.stride)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from {min_sizes} to "
                    f"{max_sizes} (for an input of {input.size()[2:]})"
                )
        return [size - low for size, low in zip(output_size, min_sizes)]

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        output_padding = self._output_padding(input, output_size)
        return type(self)._functional(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                      self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    _ntuple = staticmethod(_single)
    _functional = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    _ntuple = staticmethod(_pair)
    _functional = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTranspose):
    _ntuple = staticmethod(_triple)
    _functional = staticmethod(F.conv_transpose3d)
