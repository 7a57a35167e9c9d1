"""texport: torch.export rebuilt as an MLIR-style multi-dialect compiler.

``import texport as torch`` runs code written for torch's public API; this
module only re-exports what the layers below provide.
"""

import importlib

from texport.dialects.dtypes import DType
from texport.dialects.type_info import finfo, iinfo
from texport.tracer import factories as _factories
from texport.tracer import functions as _functions
from texport.tracer import linalg as _linalg
from texport.tracer.factories import (
    Generator,
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    scalar_tensor,
    tensor,
    zeros,
    zeros_like,
)
from texport.tracer.functions import (
    allclose,
    broadcast_to,
    cat,
    concat,
    concatenate,
    einsum,
    equal,
    is_floating_point,
    is_tensor,
    nonzero,
    numel,
    stack,
    where,
)
from texport.tracer.grad import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from texport.tracer.handles import ops
from texport.tracer.tensor import Size, Tensor, device

# dtypes, with torch's aliases
float32 = float = DType.float32
float64 = double = DType.float64
float16 = half = DType.float16
bfloat16 = DType.bfloat16
int64 = long = DType.int64
int32 = int = DType.int32
int16 = short = DType.int16
int8 = DType.int8
uint8 = DType.uint8
bool = DType.bool
complex64 = cfloat = DType.complex64
complex128 = cdouble = DType.complex128
dtype = DType

contiguous_format = "contiguous_format"
preserve_format = "preserve_format"
channels_last = "channels_last"
strided = "strided"

globals().update(_functions.FUNCTIONS)
globals().update(_linalg.FUNCTIONS)

_SYMBOLIC_FUNCTIONS = (
    "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite", "sym_sqrt", "sym_sum", "sym_constrain_range", "sym_constrain_range_for_size", "_check", "_check_with", "_check_index", "_check_value", "_check_type", "_check_not_implemented", "_check_tensor_all", "_check_is_size",
)

# Parts loaded on first use: each pulls in a layer (nn, export and lowering,
# tracing and xDSL) that a plain ``import texport`` does not need.
_ON_FIRST_USE = {
    "nn": "texport.nn", "fft": "texport.fft", "linalg": "texport.linalg", "export": "texport.export",
    "library": "texport.library", "utils": "texport.utils", "control_flow": "texport.tracer.control_flow",
    "special": "texport.special",
    "from_torch": "texport.bridge:from_torch", "to_torch": "texport.bridge:to_torch",  # torch only when called
    "save": "texport.export:save", "load": "texport.export:load",
    "cond": "texport.tracer.control_flow:cond", "scan": "texport.tracer.control_flow:scan",
    "while_loop": "texport.tracer.control_flow:while_loop",
    "map": "texport.tracer.control_flow:map", "compiler": "texport.compiler",
    "_higher_order_ops": "texport._higher_order_ops",
    "set_num_threads": "texport.interpreter.threads:set_num_threads",
    "get_num_threads": "texport.interpreter.threads:get_num_threads",
    "set_native_kernels": "texport.interpreter.native:set_native_kernels",
    **{name: f"texport.tracer.symbolic_functions:{name}" for name in _SYMBOLIC_FUNCTIONS},
}


def __getattr__(name: str) -> object:
    where = _ON_FIRST_USE.get(name)
    if where is None:
        raise AttributeError(f"module 'texport' has no attribute '{name}'")
    module_name, _, attribute = where.partition(":")
    module = importlib.import_module(module_name)
    value = getattr(module, attribute) if attribute else module
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ON_FIRST_USE))


__all__ = [
    "DType", "Generator", "Size", "Tensor", "allclose", "arange", "as_tensor", "broadcast_to",
    "cat", "concat", "concatenate", "device", "einsum", "empty", "empty_like", "equal", "eye",
    "finfo", "from_numpy", "full", "full_like", "iinfo", "is_floating_point", "is_tensor", "linspace", "logspace",
    "manual_seed", "nonzero", "numel", "ones", "ones_like", "ops", "rand", "rand_like",
    "randint", "randint_like", "randn", "randn_like", "randperm", "scalar_tensor", "stack",
    "tensor", "where", "zeros", "zeros_like", "nn", "export", "utils", "no_grad",
    "enable_grad", "inference_mode", "is_grad_enabled", "set_grad_enabled", "cond", "scan",
    "while_loop", "control_flow", "compiler", *_SYMBOLIC_FUNCTIONS, "library", "special", "save", "load",
    "set_num_threads", "get_num_threads", "set_native_kernels", *_functions.FUNCTIONS,
]
del _factories
