"""``texport.nn``: torch-compatible Module, Parameter and layers.

Layers compute only through ``functional`` (op calls), so a model runs
eagerly and traces to the ops torch.export records.
"""

from . import functional, init
from .activations import (
    ELU,
    GELU,
    GLU,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSoftmax,
    Mish,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .attention import MultiheadAttention
from .containers import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .dropout import Dropout
from .embedding import Embedding
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear, NonDynamicallyQuantizableLinear
from .module import Module, Parameter
from .norms import BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, LayerNorm
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)

__all__ = [
    "ELU", "GELU", "GLU", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
    "ConvTranspose2d", "ConvTranspose3d", "Dropout", "Embedding", "Flatten", "GroupNorm",
    "Hardsigmoid", "Hardswish", "Hardtanh", "Identity", "LayerNorm", "LeakyReLU", "Linear",
    "LogSoftmax", "MaxPool1d", "MaxPool2d", "Mish", "Module", "ModuleDict", "ModuleList",
    "MultiheadAttention", "NonDynamicallyQuantizableLinear", "Parameter", "ReLU", "ReLU6",
    "Sequential", "SiLU", "Sigmoid", "Softmax", "Softplus", "Tanh", "Unflatten", "functional",
    "init",
]
