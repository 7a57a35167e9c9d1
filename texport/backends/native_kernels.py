"""The interpreter's native kernels (``interpreter/native.py``), compiled by IREE.

Each kernel is a function of one flat float32 array (``tensor<?xf32>``), written
here as MLIR text: one ``linalg.generic`` whose body is the numpy kernel's formula,
operation for operation, so it keeps the numpy path's stated error against a
float64 reference (``test/unit/test_native_kernels.py``). iree-compile makes it one
vectorised loop; the flatbuffer is compiled once per machine (the backend's cache,
``iree.compile_vmfb``) and loaded once per process.

It runs on the calling thread (IREE's local-sync device). IREE's worker pool was
measured and dropped: 2 workers ran GPT4's GELU no faster than 1 (0.54 ms), and in
the model its workers and OpenBLAS's, which spin for a while after each product,
took turns on the 2 cores (a GELU 1.4 ms; on the calling thread 1.25 ms).

No IREE buffer is allocated: the input is read in place and the result is written
into a numpy array the kernel allocates (an ordinary writable array, counted as
numpy's). IREE needs both 64-byte aligned, which malloc's large blocks are not (they
start 16 bytes past one): the output is placed at the input's offset within 64 bytes,
and the first few elements (up to 15) run from an aligned copy of their own. For
GPT4's 262,144 elements: 0.52 ms, against 0.9 ms with IREE's own buffers (a copy in,
a copy out) and 2.0 ms for numpy's 27 passes.
IREE's compiled loop flushes subnormals to zero (the calling thread's own float
mode is left as it was): results below float32's smallest normal (x < -13.1) are 0,
where the numpy path gives subnormals (torch's own float32 GELU has no tail below
x = -3).
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np

from texport.backends import BackendError
from texport.backends.iree import (
    IreeUnavailable,
    LoadedProgram,
    calling_thread_device,
    compile_vmfb,
)
from texport.interpreter import native
from texport.interpreter.kernels.elementwise import GELU_HUGE, GELU_TAIL_COEFFS, GELU_TAIL_SCALE
from texport.interpreter.native import NativeKernel

# exp's argument shifted up where its result would be subnormal: 64 ln 2 in float32 (the
# shift's own rounding costs at most 4e-6 relative, in the far tail only)
FAR_CUT, SHIFT = -80.0, np.float32(64 * math.log(2))
ROUTE = "native-kernel"  # the cache key's route: a kernel's text, not a program's
_ALIGNMENT = 64  # bytes: IREE's buffers, and the imported numpy arrays


def install() -> None:
    """The "native kernels" start-up stage: this module answers the interpreter's requests."""
    native.install_provider(native_kernel)


@functools.cache
def native_kernel(name: str) -> NativeKernel | None:
    """The kernel ``name`` (a key of TEXTS), or None where IREE is missing or refused it
    (compiled and loaded once: a refusal warns once)."""
    try:
        program = LoadedProgram(compile_vmfb(TEXTS[name](), ROUTE, "none"), calling_thread_device())
    except IreeUnavailable:
        return None
    except BackendError as err:
        warnings.warn(f"texport's native {name} kernel did not compile; the numpy kernel runs "
                      f"instead: {err}", RuntimeWarning, stacklevel=2)
        return None

    def call(source: np.ndarray, out: np.ndarray) -> None:  # both 64-byte aligned: IREE writes out
        program.forward(_host_view(program, source), _host_view(program, out))

    def run(flat: np.ndarray) -> np.ndarray:
        if flat.ctypes.data % 4 or not flat.flags.writeable:  # IREE cannot import it: a copy
            flat = _aligned_copy(flat)
        # the output shares the input's place within 64 bytes, so after the first few
        # elements (up to 15, run from an aligned copy) both are aligned and read in place
        phase = flat.ctypes.data % _ALIGNMENT
        out = _aligned_empty(flat.size, phase)
        head = min((_ALIGNMENT - phase) % _ALIGNMENT // 4, flat.size)
        if head:
            head_out = _aligned_empty(head)
            call(_aligned_copy(flat[:head]), head_out)
            out[:head] = head_out
        if flat.size > head:
            call(flat[head:], out[head:])
        return out

    return run


def _aligned_empty(size: int, phase: int = 0) -> np.ndarray:
    """A float32 numpy array whose data starts ``phase`` bytes past a 64-byte boundary
    (IREE's buffer alignment: its loops load whole vectors, and an unaligned import crashes)."""
    raw = np.empty(size + _ALIGNMENT // 4, np.float32)
    start = (phase - raw.ctypes.data) % _ALIGNMENT // 4
    return raw[start:start + size]


def _aligned_copy(flat: np.ndarray) -> np.ndarray:
    staged = _aligned_empty(flat.size)
    np.copyto(staged, flat)
    return staged


def _host_view(program: LoadedProgram, array: np.ndarray) -> Any:
    """The numpy array as an IREE buffer view of its own memory (no copy; the view keeps it alive)."""
    runtime = program.runtime
    memory = runtime.MemoryType.DEVICE_LOCAL | runtime.MemoryType.HOST_VISIBLE
    buffer = program.device.allocator.import_host_allocation(array, memory, runtime.BufferUsage.DEFAULT)
    return runtime.HalBufferView(buffer, array.shape, runtime.HalElementType.FLOAT_32)


def _f32(value: float) -> str:
    """A float32 constant exactly, as MLIR's hexadecimal form of its bits."""
    return f"0x{int(np.float32(value).view(np.uint32)):08X}"


def gelu_float32_text() -> str:
    """max(x, 0) - min(|x|, huge) t exp(P(t) - x^2 / 2), t = 1 / (1 + scale |x|): the
    steps of ``elementwise._gelu_tail_passes`` (Horner from the top coefficient down)."""
    coeffs = GELU_TAIL_COEFFS
    body = [
        f"%scale = arith.constant {_f32(GELU_TAIL_SCALE)} : f32",
        f"%one = arith.constant {_f32(1.0)} : f32",
        f"%half = arith.constant {_f32(0.5)} : f32",
        f"%zero = arith.constant {_f32(0.0)} : f32",
        f"%huge = arith.constant {_f32(GELU_HUGE)} : f32",
        f"%far_cut = arith.constant {_f32(FAR_CUT)} : f32",
        f"%shift = arith.constant {_f32(SHIFT)} : f32",
        f"%shift_back = arith.constant {_f32(math.exp(-float(SHIFT)))} : f32",
        *(f"%c{i} = arith.constant {_f32(c)} : f32" for i, c in enumerate(coeffs)),
        "%mag = math.absf %x : f32",
        "%scaled = arith.mulf %mag, %scale : f32",
        "%denominator = arith.addf %scaled, %one : f32",
        "%t = arith.divf %one, %denominator : f32",
        f"%q{len(coeffs) - 2} = arith.mulf %t, %c{len(coeffs) - 1} : f32",
    ]
    for i in range(len(coeffs) - 2, 0, -1):
        body += [f"%s{i} = arith.addf %q{i}, %c{i} : f32", f"%q{i - 1} = arith.mulf %s{i}, %t : f32"]
    body += [
        "%poly = arith.addf %q0, %c0 : f32",
        "%square = arith.mulf %x, %x : f32",
        "%halfsquare = arith.mulf %square, %half : f32",
        "%exponent = arith.subf %poly, %halfsquare : f32",
        # math.exp's polynomial gives 0 below float32's smallest normal (exponent < -87.3);
        # there (x < -12.4) exp(exponent + shift) is scaled back by exp(-shift) at the end
        "%far = arith.cmpf olt, %exponent, %far_cut : f32",
        "%shifted = arith.addf %exponent, %shift : f32",
        "%argument = arith.select %far, %shifted, %exponent : f32",
        "%e = math.exp %argument : f32",
        "%phi = arith.mulf %e, %t : f32",
        "%clamped = arith.minimumf %mag, %huge : f32",
        "%scaled_tail = arith.mulf %phi, %clamped : f32",
        "%unshift = arith.select %far, %shift_back, %one : f32",
        "%tail = arith.mulf %scaled_tail, %unshift : f32",
        "%relu = arith.maximumf %x, %zero : f32",
        "%y = arith.subf %relu, %tail : f32",
    ]
    return _elementwise_function(body, "%y")


def _elementwise_function(body: list[str], result: str) -> str:
    """``@forward(tensor<?xf32>, storage) -> tensor<?xf32>``: ``body`` computes ``result`` from
    ``%x``; the result is written into ``storage`` (IREE's ``iree.abi.output``: the caller's
    numpy array, so no IREE buffer is allocated or copied back)."""
    lines = "\n".join(f"      {line}" for line in body)
    return f"""#identity = affine_map<(d0) -> (d0)>
func.func @forward(%input: tensor<?xf32>, %storage: !hal.buffer_view {{iree.abi.output = 0 : index}})
    -> tensor<?xf32> {{
  %c0_index = arith.constant 0 : index
  %size = tensor.dim %input, %c0_index : tensor<?xf32>
  %empty = tensor.empty(%size) : tensor<?xf32>
  %result = linalg.generic {{indexing_maps = [#identity, #identity], iterator_types = ["parallel"]}}
      ins(%input : tensor<?xf32>) outs(%empty : tensor<?xf32>) {{
    ^bb0(%x: f32, %unused: f32):
{lines}
      linalg.yield {result} : f32
  }} -> tensor<?xf32>
  return %result : tensor<?xf32>
}}
"""


TEXTS = {"gelu_float32": gelu_float32_text}
