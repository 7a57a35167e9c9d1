"""DataParallel and SyncBatchNorm: torch's multi-device modules as they run
on the CPU, texport's one device (torch takes the same paths there).

DataParallel finds no accelerator: it keeps ``module`` (state-dict keys
``module.*``), no device ids, and calls the module. SyncBatchNorm has no
initialised process group: it is a BatchNorm of any rank >= 2."""

from __future__ import annotations

from typing import Any

from texport.dialects.dtypes import DType

from ..tensor import Tensor
from .module import Module
from .norms import _BatchNorm

__all__ = ["DataParallel", "SyncBatchNorm"]


class DataParallel(Module):
    """Calls ``module``: with no accelerator torch replicates nothing."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[Any] = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over every dim but 1; statistics are synchronised only
    across an initialised process group, which the CPU never has."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group: Any | None = None, device: Any = None,
                 dtype: DType | None = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any | None = None) -> Module:
        """``module`` with every BatchNorm*d in it replaced by a SyncBatchNorm
        sharing its parameters and running statistics."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                      module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
