"""The parity harness: each corpus model is written once, against a module-level
``torch``, and run twice — under real torch and under ``import texport as torch``
— with the same weights and inputs.

A corpus file (``corpus/*.py``) imports nothing of torch: the harness executes
its source with ``torch`` bound to one framework or the other, so every name
the model uses (``torch.nn.Linear``, ``torch.export.Dim``, ``F.gelu``) comes
from that framework. The file defines ``cases()``, a list of ``Case``s (the
harness injects ``torch``, ``nn``, ``F``, ``Case``, numpy as ``np`` and
``randn(rng, *shape)`` for float32 inputs).

For each case and each level — eager, training (``export``), functional
(``run_decompositions({})``) and core (``run_decompositions()``) — on the
example inputs and on a second input with other dynamic sizes, texport's
outputs, updated buffers and mutated inputs must equal torch's; at the export
levels the graph signature must equal torch's, and at the core level the
multiset of core ops must equal the one torch's ``run_decompositions()`` gives
(a case lists the exceptions, each with its reason).
"""

from __future__ import annotations

import collections
import copy
import re
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import texport

CORPUS = Path(__file__).parent / "corpus"
LEVELS = ("eager", "training", "functional", "core")
# Ops of the core graph that compute nothing: sizes read from inputs and runtime
# asserts. Both frameworks emit them where their tracers read a size, which is
# not a fact of the model, so the op multiset leaves them out.
NOT_COMPUTE = ("sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "_assert_scalar",
               "_assert_tensor_metadata", "sym_constrain_range", "sym_constrain_range_for_size",
               "_assert_async")


@dataclass
class Case:
    """One model with its inputs.

    ``inputs(rng)`` and ``second(rng)`` give the example and the second call's
    inputs as nested lists/tuples/dicts of numpy arrays and Python values (a
    dict's keys become keyword arguments); ``dynamic_shapes`` is built with the
    framework's ``torch.export.Dim``. ``core_op_exceptions`` maps an op key
    (``aten.hardswish.default``) to why its count may differ from torch's."""

    name: str
    build: Callable[[], Any]
    inputs: Callable[[np.random.Generator], Any]
    dynamic_shapes: Any = None
    second: Callable[[np.random.Generator], Any] | None = None
    train: bool = False
    rtol: float = 1e-4
    atol: float = 1e-5
    core_op_exceptions: dict[str, str] = field(default_factory=dict)
    strict: bool = False


@dataclass
class Pair:
    """A case as each framework sees it."""

    name: str
    torch_case: Case
    texport_case: Case


# --------------------------------------------------------------------------
# Loading the corpus under each framework
# --------------------------------------------------------------------------


def load_source(path: Path, framework: Any) -> types.ModuleType:
    """Run a corpus file with ``torch`` bound to ``framework``."""
    module = types.ModuleType(f"parity_{framework.__name__}_{path.stem}")
    module.__file__ = str(path)
    module.__dict__.update(torch=framework, nn=framework.nn, F=framework.nn.functional, np=np, Case=Case,
                           randn=randn, Fn=function_module(framework))
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)  # noqa: S102 - our own corpus
    return module


def function_module(framework: Any) -> type:
    """``Fn(fn)``: a module whose forward(*args) is ``fn(*args)``, for a layer file's
    one-function programs (a file whose programs need named inputs, for dynamic
    shapes by name, defines its own)."""

    class Fn(framework.nn.Module):
        def __init__(self, fn: Callable[..., Any]) -> None:
            super().__init__()
            self.fn = fn

        def forward(self, *args: Any) -> Any:
            return self.fn(*args)

    return Fn


def real_torch() -> Any:
    """torch, the oracle: the parity folder is where texport's tree imports it
    (benchmarks/parity.py reaches it here). Imported on call, as torch is an
    optional extra the test modules skip without."""
    import torch

    return torch


def corpus_pairs(real_torch: Any, files: list[Path] | None = None) -> list[Pair]:
    pairs = []
    for path in files or sorted(CORPUS.glob("*.py")):
        torch_cases = load_source(path, real_torch).cases()
        texport_cases = load_source(path, texport).cases()
        for t_case, x_case in zip(torch_cases, texport_cases, strict=True):
            pairs.append(Pair(f"{path.stem}.{t_case.name}", t_case, x_case))
    return pairs


# --------------------------------------------------------------------------
# Models, weights and inputs
# --------------------------------------------------------------------------


def randn(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """A float32 input drawn from the standard normal."""
    return rng.standard_normal(shape, dtype=np.float32)


def build_pair(pair: Pair, real_torch: Any) -> tuple[Any, Any]:
    """Torch's model (seeded), and texport's with torch's weights and buffers."""
    real_torch.manual_seed(0)
    torch_model = pair.torch_case.build()
    texport_model = pair.texport_case.build()
    state = {k: _to_texport(v.detach().numpy()) for k, v in torch_model.state_dict(keep_vars=True).items()}
    texport_model.load_state_dict(state)
    for model in (torch_model, texport_model):
        model.train(pair.torch_case.train)
    return torch_model, texport_model


def _to_texport(array: np.ndarray) -> Any:
    return texport.from_numpy(np.array(array, copy=True))


def convert(value: Any, framework: Any) -> Any:
    """numpy leaves become the framework's tensors (fresh copies)."""
    if isinstance(value, np.ndarray):
        return framework.from_numpy(np.array(value, copy=True))
    if isinstance(value, dict):
        return {k: convert(v, framework) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(convert(v, framework) for v in value)
    return value


def call_args(inputs: Any, framework: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """(args, kwargs) of a call: a dict's entries are keywords, anything else positional."""
    converted = convert(inputs, framework)
    if isinstance(converted, dict):
        return (), converted
    return tuple(converted) if isinstance(converted, tuple) else (converted,), {}


def to_numpy(value: Any) -> Any:
    """Outputs of either framework as numpy arrays, in the same nesting."""
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "numpy") and callable(value.numpy):
        return np.asarray(value.numpy())
    if isinstance(value, dict):
        return {k: to_numpy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_numpy(v) for v in value]
    return value


# --------------------------------------------------------------------------
# Comparisons
# --------------------------------------------------------------------------


class Mismatch(AssertionError):
    pass


def assert_close(want: Any, got: Any, rtol: float, atol: float, where: str) -> float:
    """Equal nesting and values; returns the largest absolute difference."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or set(want) != set(got):
            raise Mismatch(f"{where}: keys {sorted(want)} != {sorted(got) if isinstance(got, dict) else got!r}")
        return max((assert_close(want[k], got[k], rtol, atol, f"{where}[{k!r}]") for k in want), default=0.0)
    if isinstance(want, list):
        if not isinstance(got, list) or len(want) != len(got):
            raise Mismatch(f"{where}: {len(want)} items, got {got!r:.200}")
        return max((assert_close(w, g, rtol, atol, f"{where}[{i}]") for i, (w, g) in enumerate(zip(want, got))),
                   default=0.0)
    if isinstance(want, np.ndarray):
        got = np.asarray(got)
        if want.shape != got.shape:
            raise Mismatch(f"{where}: shape {want.shape} != {got.shape}")
        if want.dtype != got.dtype:
            raise Mismatch(f"{where}: dtype {want.dtype} != {got.dtype}")
        if want.dtype.kind in "fc":
            close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
            if not close.all():
                raise Mismatch(f"{where}: {close.size - close.sum()} of {close.size} values differ, "
                               f"max |difference| {largest_difference(want, got):.3g}{_nan_note(want, got)}")
            return largest_difference(want, got)
        if not np.array_equal(got, want):
            raise Mismatch(f"{where}: {np.sum(got != want)} of {want.size} values differ")
        return 0.0
    if want != got:
        raise Mismatch(f"{where}: {want!r} != {got!r}")
    return 0.0


def signature_text(signature: Any, level: str = "training") -> list[str]:
    """A graph signature as comparable lines (kind, name, target, persistent).

    After ``run_decompositions`` an output's node name is compared without its
    counter (``add_77`` as ``add``): torch's retrace names every node it makes,
    the Python size arithmetic of dynamic shapes too (sym nodes that dead-code
    elimination drops afterwards), so the counter depends on how often torch's
    fake tensors computed a size, not on the program. The op the name comes
    from, every input name, kind, target and flag are compared exactly, and at
    the training level the names are compared whole."""
    lines = []
    for spec in signature.input_specs:
        persistent = getattr(spec, "persistent", None)
        lines.append(f"in {spec.kind.name} {_arg_name(spec.arg)} {spec.target} {persistent}")
    for spec in signature.output_specs:
        name = _arg_name(spec.arg)
        if level != "training":
            name = _WITHOUT_COUNTER.sub("", name)
        lines.append(f"out {spec.kind.name} {name} {spec.target}")
    return lines


_WITHOUT_COUNTER = re.compile(r"_\d+$")


def largest_difference(want: np.ndarray, got: np.ndarray) -> float:
    """The largest |got - want| where both are finite."""
    finite = np.isfinite(want) & np.isfinite(got)
    return float(np.max(np.abs(got[finite] - want[finite]), initial=0.0))


def _nan_note(want: np.ndarray, got: np.ndarray) -> str:
    extra = int(np.sum(np.isnan(got) & ~np.isnan(want)))
    return f"; texport has NaN at {extra} places where torch is finite" if extra else ""


def signature_difference(want: list[str], got: list[str]) -> str:
    """The first lines where two signatures differ, torch's then texport's."""
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            return f"spec {i}: torch {w!r}, texport {g!r}"
    return f"torch has {len(want)} specs, texport {len(got)}: {want[len(got):] or got[len(want):]}"


def _arg_name(arg: Any) -> str:
    name = getattr(arg, "name", None)
    return name if name is not None else f"const={getattr(arg, 'value', arg)!r}"


def torch_core_ops(ep: Any) -> collections.Counter[str]:
    counts: collections.Counter[str] = collections.Counter()
    for module in ep.graph_module.modules():
        graph = getattr(module, "graph", None)
        for node in graph.nodes if graph is not None else ():
            # Python functions (getitem, operator.mul on sizes, sym_float) are not ops
            if node.op == "call_function" and not str(node.target).startswith("<"):
                counts[_op_name(str(node.target))] += 1
    return _compute_only(counts)


def texport_core_ops(ep: Any) -> collections.Counter[str]:
    counts: collections.Counter[str] = collections.Counter()
    for op in ep.graph_module.module.walk():
        op_def = getattr(op, "op_def", None)
        if op_def is not None:
            counts[op_def.key] += 1
        elif op.name.startswith("control."):
            counts[op.name] += 1
    return _compute_only(counts)


def _op_name(target: str) -> str:
    """torch's node targets as texport's keys (``higher_order.cond`` as ``control.cond``)."""
    if target.startswith("higher_order."):
        return "control." + target.split(".", 1)[1].replace("map_impl", "map")
    return target


def _compute_only(counts: collections.Counter[str]) -> collections.Counter[str]:
    return collections.Counter({k: v for k, v in counts.items()
                                if not any(f".{name}." in k for name in NOT_COMPUTE)})


def core_op_difference(want: collections.Counter[str], got: collections.Counter[str],
                       exceptions: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Ops whose counts differ and that the case does not list as exceptions,
    and listed exceptions whose counts agree (stale: the list must shrink)."""
    differ = {op: (want[op], got[op]) for op in sorted(set(want) | set(got))
              if want[op] != got[op] and op not in exceptions}
    stale = {f"{op} (listed as an exception, counts agree)": (want[op], got[op])
             for op in exceptions if want[op] == got[op]}
    return differ | stale


# --------------------------------------------------------------------------
# Running one case at one level
# --------------------------------------------------------------------------


class OracleError(RuntimeError):
    """Real torch rejected a corpus model: the corpus is wrong, not texport."""


class Runner:
    """Exports a pair once per framework and runs it at each level. A program
    that fails to export or lower is remembered as its error, so each test of
    the level re-raises it instead of exporting again."""

    def __init__(self, pair: Pair, real_torch: Any) -> None:
        self.pair = pair
        self.torch = real_torch
        self.torch_model, self.texport_model = build_pair(pair, real_torch)
        self.inputs = pair.torch_case.inputs(np.random.default_rng(0))
        self.second = pair.torch_case.second(np.random.default_rng(1)) if pair.torch_case.second else None
        self._programs: dict[tuple[str, str], Any] = {}
        self._eager: dict[bool, tuple[Any, Any, Any]] = {}

    # ---- references ----------------------------------------------------

    def torch_eager(self, second: bool) -> tuple[Any, Any, Any]:
        """torch's outputs, buffers after the call, and the inputs after the call
        (computed once per input: they are numpy arrays, only read)."""
        if second not in self._eager:
            model = copy.deepcopy(self.torch_model)
            args, kwargs = call_args(self.second if second else self.inputs, self.torch)
            try:
                out = model(*args, **kwargs)
            except Exception as error:
                raise OracleError(f"torch's eager model fails: {error}") from error
            self._eager[second] = to_numpy(out), _buffers(model), to_numpy([args, kwargs])
        return self._eager[second]

    # ---- programs ------------------------------------------------------

    def programs(self, level: str) -> tuple[Any, Any]:
        """(torch's program, texport's program) at an export level."""
        return self.program("torch", level), self.program("texport", level)

    def program(self, side: str, level: str) -> Any:
        if (side, level) not in self._programs:
            try:
                self._programs[side, level] = self._lower(side, level)
            except Exception as error:  # remembered: every test of the level reports it
                self._programs[side, level] = error
        program = self._programs[side, level]
        if isinstance(program, Exception):
            raise program
        return program

    def _lower(self, side: str, level: str) -> Any:
        if level != "training":
            return self.program(side, "training").run_decompositions({} if level == "functional" else None)
        if side == "texport":
            return self._export(texport, self.texport_model, self.pair.texport_case)
        try:
            return self._export(self.torch, self.torch_model, self.pair.torch_case)
        except Exception as error:
            raise OracleError(f"torch's export fails: {error}") from error

    def _export(self, framework: Any, model: Any, case: Case) -> Any:
        args, kwargs = call_args(self.inputs, framework)
        return framework.export.export(copy.deepcopy(model), args, kwargs, dynamic_shapes=case.dynamic_shapes,
                                       strict=case.strict)

    # ---- one level -----------------------------------------------------

    def run(self, level: str, second: bool = False) -> float:
        """Outputs, buffers and inputs after the call equal torch's eager ones;
        returns the largest absolute difference."""
        inputs = self.second if second else self.inputs
        case = self.pair.torch_case
        want_out, want_buffers, want_inputs = self.torch_eager(second)
        if level == "eager":
            module = copy.deepcopy(self.texport_model)
        else:
            module = self.programs(level)[1].module()
        got_out, got_buffers, got_inputs = self._run_module(module, inputs)
        where = f"{self.pair.name} [{level}{', second input' if second else ''}]"
        return max(
            assert_close(want_out, got_out, case.rtol, case.atol, f"{where} outputs"),
            assert_close(want_buffers, got_buffers, case.rtol, case.atol, f"{where} buffers"),
            assert_close(want_inputs, got_inputs, case.rtol, case.atol, f"{where} inputs after the call"),
        )

    def _run_module(self, module: Any, inputs: Any) -> tuple[Any, Any, Any]:
        args, kwargs = call_args(inputs, texport)
        out = module(*args, **kwargs)
        return to_numpy(out), _buffers(module), to_numpy([args, kwargs])

    def signatures(self, level: str) -> tuple[list[str], list[str]]:
        torch_ep, texport_ep = self.programs(level)
        return signature_text(torch_ep.graph_signature, level), signature_text(texport_ep.graph_signature, level)

    def core_ops(self) -> dict[str, tuple[int, int]]:
        """Core ops whose counts (torch's, texport's) differ, the case's exceptions aside."""
        torch_ep, texport_ep = self.programs("core")
        return core_op_difference(torch_core_ops(torch_ep), texport_core_ops(texport_ep),
                                  self.pair.texport_case.core_op_exceptions)


def _buffers(model: Any) -> dict[str, Any]:
    return {name: to_numpy(buffer) for name, buffer in model.named_buffers()}
