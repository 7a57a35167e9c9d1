"""The IREE backend: a core program compiled by iree-compile for this CPU and run by
iree-runtime, behind ``ep.module()``'s calling convention.

    compiled = ep.compile(backend="iree", route="linalg")   # or route="torch"
    out = compiled(x)                                         # as ep.module()(x)

How it fits ``ep.module()``: ``IreeModule`` is an ``ExportedModule`` of the core
program whose plan is an ``IreeRunner`` instead of the interpreter's. The module
binds the inputs (``_check_inputs``), gathers parameters, buffers and constants,
and writes the buffers' new values back (``_finish``) exactly as ``ep.module()``
does; the runner checks the values with the interpreter's own entry checks (types,
dims, range constraints, runtime guards: the same GuardErrors), then calls the
compiled ``@forward``.

Weights are loaded once. By the linalg route, the parameters, constants and the
buffers the program never writes become IREE parameters (``hoist_weights``:
immutable globals read at the top of ``@forward``), so IREE packs each weight for
its matmuls and convolutions when the program is loaded, not at every call; a write
to one of them (noted by ``interpreter/prepacked.py``, below) or another array in
its place loads the program again. By the torch route, and for the buffers the
program writes, each is an argument uploaded once
(``asdevicearray``) and its device array kept while the host array is the same
array, unwritten: every write to it (the write-back of a buffer the program
mutates, an in-place op of the user's) is noted by ``interpreter/prepacked.py``,
which drops the device copy, so the array is uploaded again at its next use. An
array whose writes could go unseen (memory the user holds through
``Tensor.numpy()``, read-only memory) is uploaded at every call.

Compiling: ``compile_str`` for ``llvm-cpu`` with ``TARGET_FLAGS`` (this CPU, float64 kept,
convolutions as im2col + matmul).
The flatbuffer is cached under ``cache_dir()`` by the hash of (MLIR text, route,
input type, flags, IREE's version, the host CPU), written atomically; a hit skips
iree-compile.

Threads: IREE's local-task driver runs a pool of workers fixed when its device is
made. The device is made with ``--task_topology_max_group_count`` set to
``texport.get_num_threads()`` at the time of ``ep.compile`` (one device per count,
shared by the programs compiled with it), so ``texport.set_num_threads(2)`` before
compiling gives two workers.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from texport.backends import BackendError
from texport.backends.routes import route_text
from texport.dialects.symbolic import unbacked_symbols
from texport.dialects.tx import TensorType
from texport.export.program import ExportedModule, ExportedProgram
from texport.export.serialization import replace_atomically
from texport.interpreter.dtypes import to_numpy
from texport.interpreter.executor import compile_input_checks
from texport.interpreter.prepacked import note_copied
from texport.interpreter.threads import get_num_threads
from texport.lowering.ir import clone_module
from texport.lowering.legality import where
from texport.tracer.signature import ConstantArgument, InputKind, OutputKind

INSTALL_HINT = "pip install texport[iree]"
TARGET_BACKENDS = ("llvm-cpu",)
# IREE demotes f64 to f32 by default: a float64 program must stay float64, as the interpreter runs it.
# Convolutions as im2col + matmul: ResNet18 ran 2.7x faster than IREE's direct convolution here
# (164 -> 61 ms, iree-benchmark-module, 2 workers).
TARGET_FLAGS = ("--iree-llvmcpu-target-cpu=host", "--iree-input-demote-f64-to-f32=false",
                "--iree-global-opt-use-im2col-for-convs")
CACHE_VARIABLE = "TEXPORT_CACHE_DIR"


class IreeUnavailable(BackendError):
    """IREE's compiler or runtime is not installed."""


class IreeCompileError(BackendError):
    """iree-compile refused a route's text; names the route, the first diagnostic and the saved text."""

    def __init__(self, route: str, diagnostic: str, saved: Path | None) -> None:
        where = f"the MLIR text is saved at {saved}" if saved else "the MLIR text could not be saved"
        super().__init__(f"iree-compile failed on the {route!r} route's MLIR: {diagnostic} ({where})")
        self.route, self.diagnostic, self.saved = route, diagnostic, saved


# --------------------------------------------------------------------------
# IREE's packages
# --------------------------------------------------------------------------


def iree_packages() -> tuple[ModuleType, ModuleType]:
    """(iree.compiler, iree.runtime), or IreeUnavailable saying how to install them."""
    try:
        import iree.compiler as compiler
        import iree.runtime as runtime
    except ImportError as err:
        raise IreeUnavailable(f"the IREE backend needs IREE's compiler and runtime, which are not "
                              f"installed ({err}): {INSTALL_HINT}") from err
    return compiler, runtime


def iree_version() -> str:
    try:
        return importlib.metadata.version("iree-base-compiler")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------
# Compiling, with the cache
# --------------------------------------------------------------------------


def cache_dir() -> Path:
    """``$TEXPORT_CACHE_DIR/iree``, else ``~/.cache/texport/iree`` (``$XDG_CACHE_HOME`` honoured)."""
    root = os.environ.get(CACHE_VARIABLE)
    if root:
        return Path(root) / "iree"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "texport" / "iree"


def cache_key(text: str, route: str, input_type: str, flags: Sequence[str]) -> str:
    """What the flatbuffer depends on; the host CPU too, as ``target-cpu=host`` means
    this machine's CPU (a cache folder may be shared by machines)."""
    identity = [text, route, input_type, list(TARGET_BACKENDS), list(flags), iree_version(), host_cpu()]
    return hashlib.sha256(json.dumps(identity).encode()).hexdigest()


@functools.cache
def host_cpu() -> str:
    """The machine and, where Linux tells, the CPU's model and feature flags."""
    described = [platform.machine()]
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            lines = [line for line in info if line.startswith(("model name", "flags", "Features"))]
        described += sorted(set(lines))
    except OSError:
        described.append(platform.processor())
    return "\n".join(described)


def compile_vmfb(text: str, route: str, input_type: str) -> bytes:
    """The IREE flatbuffer of ``text`` for this CPU, from the cache when it has it."""
    compiler, _ = iree_packages()
    flags = list(TARGET_FLAGS)
    key = cache_key(text, route, input_type, flags)
    cached = cache_dir() / f"{key}.vmfb"
    try:
        return cached.read_bytes()
    except OSError:
        pass  # not cached (or unreadable): compile
    try:
        vmfb = compiler.compile_str(text, target_backends=list(TARGET_BACKENDS), input_type=input_type,
                                    extra_args=flags)
    except compiler.CompilerToolError as err:
        saved = _save_text(text, key, route)
        diagnostic = first_diagnostic(str(err))
        if saved is not None:  # the text went in on stdin: its locations are the saved file's
            diagnostic = diagnostic.replace("<stdin>:", f"{saved}:")
        raise IreeCompileError(route, diagnostic, saved) from None
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(cached, lambda out: out.write(vmfb))
    except OSError:
        pass  # an unwritable cache only costs the next compile
    return vmfb


def first_diagnostic(message: str) -> str:
    """The first ``error:`` line of iree-compile's output (its location kept), else its first line."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return next((line for line in lines if re.search(r"\berror:", line)), lines[0] if lines else message)


def _save_text(text: str, key: str, route: str) -> Path | None:
    """Where the refused text is kept for the user: beside the cache, else in the temp folder."""
    for folder in (cache_dir(), Path(tempfile.gettempdir())):
        path = folder / f"{key[:16]}.{re.sub(r'[^A-Za-z0-9_.-]', '_', route)}.mlir"  # a route name is any string
        try:
            folder.mkdir(parents=True, exist_ok=True)
            replace_atomically(path, lambda out: out.write(text.encode()))
            return path
        except OSError:
            continue
    return None


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

_DEVICES: dict[int, Any] = {}  # worker count -> the local-task device made with it


def host_device(threads: int) -> Any:
    """The local-task device with ``threads`` workers (made once per count: the flag
    is read when a device is made)."""
    device = _DEVICES.get(threads)
    if device is None:
        _, runtime = iree_packages()
        runtime.flags.parse_flags(f"--task_topology_max_group_count={threads}")
        device = _DEVICES[threads] = runtime.get_driver("local-task").create_default_device()
    return device


@functools.cache
def calling_thread_device() -> Any:
    """The local-sync device: a call runs on the calling thread, with no workers of its own."""
    _, runtime = iree_packages()
    return runtime.get_driver("local-sync").create_default_device()


class LoadedProgram:
    """A flatbuffer loaded on a device (``host_device(threads)``, ``calling_thread_device()``):
    ``forward(*values)`` calls its ``@forward``."""

    def __init__(self, vmfb: bytes, device: Any, weights: Sequence[tuple[str, np.ndarray]] = ()) -> None:
        _, runtime = iree_packages()
        self.runtime = runtime
        self.device = device
        config = runtime.Config(device=self.device)
        context = runtime.SystemContext(config=config)
        if weights:  # the hoisted weights, as the parameters of scope texport
            index = runtime.ParameterIndex()
            for name, array in weights:
                index.add_buffer(name, np.ascontiguousarray(array).tobytes())
            provider = index.create_provider(scope=PARAMETER_SCOPE)
            context.add_vm_module(runtime.create_io_parameters_module(config.vm_instance, provider))
        module = runtime.VmModule.copy_buffer(config.vm_instance, vmfb)
        context.add_vm_module(module)
        self.context = context  # the function lives as long as its context
        self.forward = context.modules[module.name]["forward"]

    def upload(self, array: np.ndarray) -> Any:
        return self.runtime.asdevicearray(self.device, array)


class IreeRunner:
    """The compiled program as a plan: one value per function argument in, one per result
    out. ``state``: the argument positions of parameters, buffers and constants, whose
    device copies are kept while their host arrays are unwritten. ``hoisted``: the
    positions compiled as IREE parameters (``hoist_weights``): not passed at the call,
    but loaded with the program, which is loaded again when one of them is written or
    replaced (``load(weights)`` makes a LoadedProgram)."""

    def __init__(self, load: Any, check: Any, state: Sequence[int], results: Sequence[ResultForm],
                 route: str, hoisted: Sequence[int] = ()) -> None:
        self.load, self.check, self.route = load, check, route
        self.hoisted = list(hoisted)
        self._hoisted = frozenset(self.hoisted)
        self.state = frozenset(state) - self._hoisted  # passed at the call, kept on the device
        self.results = list(results)
        self._device: dict[int, tuple[np.ndarray, Any]] = {}  # position -> (host array, its device copy)
        self._loaded: LoadedProgram | None = None
        self._weights: list[np.ndarray] = []  # the hoisted arrays the loaded program holds
        self._stale = False  # one of them was written since

    def __call__(self, *inputs: Any) -> list[Any]:
        self.check(*inputs)
        loaded = self.program(inputs.__getitem__)
        values = [self._on_device(i, v, loaded) if i in self.state else v
                  for i, v in enumerate(inputs) if i not in self._hoisted]
        results = loaded.forward(*values)
        results = () if results is None else results if isinstance(results, tuple) else (results,)
        return self._checked([_to_host(value) for value in results])

    def program(self, value_at: Any) -> LoadedProgram:
        """The loaded program, loaded again when the hoisted weights (``value_at(position)``)
        changed since."""
        weights = [value_at(p) for p in self.hoisted]
        if self._loaded is not None and not self._stale and \
                all(w is k for w, k in zip(weights, self._weights, strict=True)):
            return self._loaded
        self._loaded = self.load([(f"weight{p}", w) for p, w in zip(self.hoisted, weights, strict=True)])
        self._weights, self._stale = weights, False

        def stale() -> None:
            self._stale = True

        # a weight whose writes could go unseen (memory the user holds) is read again at every call
        self._stale = not all([note_copied(w, stale) for w in weights])
        return self._loaded

    def _checked(self, results: list[Any]) -> list[Any]:
        """The results, each of the core program's form (a route's text could declare another)."""
        if len(results) != len(self.results):
            raise BackendError(f"the {self.route!r} route's @forward returned {len(results)} results; "
                               f"the core program returns {len(self.results)}")
        for index, (value, form) in enumerate(zip(results, self.results)):
            if not form.fits(value):
                raise BackendError(f"result #{index} of the {self.route!r} route's @forward is "
                                   f"{_form_of(value)}; the core program returns {form}")
        return results

    def _on_device(self, position: int, host: np.ndarray, loaded: LoadedProgram) -> Any:
        kept = self._device.get(position)
        if kept is not None and kept[0] is host:
            return kept[1]
        device = loaded.upload(host)
        self._device.pop(position, None)

        def forget() -> None:  # the host array was written (a buffer's write-back, the user)
            now = self._device.get(position)
            if now is not None and now[1] is device:
                del self._device[position]

        if note_copied(host, forget):
            self._device[position] = (host, device)
        return device


class ResultForm(NamedTuple):
    """What a result of the core program is: an int (a symbolic size), or a tensor of a dtype and rank."""

    dtype: np.dtype | None  # None: an int
    rank: int = 0

    @classmethod
    def of(cls, result_type: Any) -> ResultForm:
        if isinstance(result_type, TensorType):
            return cls(to_numpy(result_type.dtype), len(result_type.shape))
        return cls(None)

    def fits(self, value: Any) -> bool:
        if self.dtype is None:
            return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        return isinstance(value, np.ndarray) and value.dtype == self.dtype and value.ndim == self.rank

    def __str__(self) -> str:
        return "an int" if self.dtype is None else f"a {self.dtype} array of rank {self.rank}"


def _form_of(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"a {value.dtype} array of rank {value.ndim}"
    return f"a {type(value).__name__}"


def _to_host(value: Any) -> Any:
    """A result as numpy memory of its own (a view of IREE's buffer could alias a kept device copy)."""
    if hasattr(value, "to_host"):
        return np.array(value.to_host(), copy=True)
    return value


class IreeModule(ExportedModule):
    """``ep.module()`` of the core program, run by IREE: ``forward`` is ExportedModule's
    (binding, state, write-back), ``_compiled()`` the IreeRunner made at construction."""

    def __init__(self, program: ExportedProgram, route: str, vmfb: bytes, threads: int,
                 hoisted: Sequence[int] = ()) -> None:
        super().__init__(program)
        object.__setattr__(self, "route", route)
        object.__setattr__(self, "vmfb", vmfb)
        load = functools.partial(LoadedProgram, vmfb, host_device(threads))
        runner = self._runner(load, hoisted)
        object.__setattr__(self, "_plan", runner)
        runner.program(self._state_values().__getitem__)  # loaded now: a bad flatbuffer fails here

    def _state_values(self) -> dict[int, np.ndarray]:
        """The parameters, buffers and constants by argument position, as ``forward`` passes them."""
        values = {}
        specs = [s for s in self._program.graph_signature.input_specs if not isinstance(s.arg, ConstantArgument)]
        for position, spec in enumerate(specs):
            if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
                values[position] = self._member(spec.target)._value
            elif spec.kind is InputKind.CONSTANT_TENSOR:
                values[position] = self._program.constants[spec.target]._value
        return values

    def _runner(self, load: Any, hoisted: Sequence[int]) -> IreeRunner:
        program = self._program
        check = compile_input_checks(program.graph, **self._entry_checks())
        specs = [s for s in program.graph_signature.input_specs if not isinstance(s.arg, ConstantArgument)]
        state = [i for i, s in enumerate(specs) if s.kind is not InputKind.USER_INPUT]
        results = [ResultForm.of(t) for t in program.graph.function_type.outputs.data]
        return IreeRunner(load, check, state, results, self.route, hoisted)


# --------------------------------------------------------------------------
# Weights as IREE parameters
# --------------------------------------------------------------------------

PARAMETER_SCOPE = "texport"


def hoist_weights(text: str, positions: Sequence[int]) -> str:
    """The linalg route's text with the ``@forward`` arguments at ``positions`` made
    immutable globals backed by IREE parameters (``weight<position>``), read at the top
    of the body: IREE then packs a weight for its matmuls and convolutions once, when
    the program is loaded, instead of at every call (benchmarks/native.py, block timing:
    MLP50 2.52 -> 1.87 ms, GPT4 14.0 -> 12.0 ms)."""
    if not positions:
        return text
    head = text.index("func.func @forward(") + len("func.func @forward(")
    close = _closing_paren(text, head)
    arguments = _top_level_split(text[head:close])
    hoisted = set(positions)
    kept = [a for i, a in enumerate(arguments) if i not in hoisted]
    globals_, loads = [], []
    for position in sorted(hoisted):
        name, type_text = (part.strip() for part in arguments[position].split(":", 1))
        globals_.append(f'  util.global private @weight{position} = '
                        f'#stream.parameter.named<"{PARAMETER_SCOPE}"::"weight{position}"> : {type_text}\n')
        loads.append(f"    {name} = util.global.load @weight{position} : {type_text}\n")
    body = text.index("\n", close) + 1
    module = text.index("\n") + 1  # after ``builtin.module {``
    return (text[:module] + "".join(globals_) + text[module:head] + ", ".join(kept) + text[close:body]
            + "".join(loads) + text[body:])


def _closing_paren(text: str, start: int) -> int:
    depth = 1
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    raise BackendError("the linalg route's @forward has no closing parenthesis")


def _top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside brackets (a type's ``<2x3xf32>`` has none, an attribute may)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"<": 1, "(": 1, "[": 1, "{": 1, ">": -1, ")": -1, "]": -1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    return [p.strip() for p in [*parts, text[start:]] if p.strip()]


def hoistable_positions(program: ExportedProgram, route: str) -> list[int]:
    """The ``@forward`` arguments the program never writes: parameters, constants and
    buffers it does not mutate (bool ones stay arguments: IREE stores i1 its own way).
    Only the linalg route's text is texport's own to rewrite."""
    if route != "linalg":
        return []
    mutated = {s.target for s in program.graph_signature.output_specs if s.kind is OutputKind.BUFFER_MUTATION}
    specs = [s for s in program.graph_signature.input_specs if not isinstance(s.arg, ConstantArgument)]
    arguments = program.graph.function_type.inputs.data
    return [i for i, (spec, arg) in enumerate(zip(specs, arguments, strict=True))
            if spec.kind is not InputKind.USER_INPUT and spec.target not in mutated
            and isinstance(arg, TensorType) and arg.dtype.name != "bool"]


def refuse_data_dependent_sizes(module: Any) -> None:
    """IREE 3.13 cannot compile an op whose result size depends on the data (``nonzero``,
    boolean-mask indexing: iree-compile runs out of memory on torch-mlir's form): such a
    program is refused, naming the op, before either route hands it over."""
    for op in module.walk():
        for result in op.results:
            unbacked = sorted(s.name for s in unbacked_symbols(getattr(result.type, "shape", ())))
            if unbacked:
                raise BackendError(f"'{op.name}'{where(op)} makes a tensor whose size depends on the data "
                                   f"({', '.join(unbacked)}); IREE cannot compile such ops")


def core_program(program: ExportedProgram) -> ExportedProgram:
    """``program`` at the core level (lowered with the default table unless it is there)."""
    return program if program.dialect == "ATEN" else program.run_decompositions()


def compile_program(program: ExportedProgram, route: str = "linalg", threads: int | None = None) -> IreeModule:
    """``ep.compile(backend="iree", route=...)``: the core program by ``route`` to MLIR text,
    compiled for this CPU (or taken from the cache), loaded with ``threads`` workers
    (default: ``texport.get_num_threads()``)."""
    iree_packages()  # a missing IREE is said before any lowering work
    core = core_program(program)
    refuse_data_dependent_sizes(core.graph_module.module)
    lowered = route_text(route, clone_module(core.graph_module.module))
    hoisted = hoistable_positions(core, route)
    vmfb = compile_vmfb(hoist_weights(lowered.text, hoisted), route, lowered.input_type)
    return IreeModule(core, route, vmfb, threads if threads is not None else get_num_threads(), hoisted)
