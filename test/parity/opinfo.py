"""Every ATen overload torch's own operator tests reach, replayed on texport
(issue 16, item 6).

For each OpInfo of torch's ``op_db`` and each of ``DTYPES`` it supports on
CPU, the first ``max_samples`` sample inputs run (through the op and its
in-place variant) under a ``TorchDispatchMode``
that records every ATen overload the call reaches: its arguments (tensors
copied before the call), its outputs and, for an argument the schema says is
written (``Tensor(a!)``), that argument after the call. Each recorded call is
then replayed on texport eager, ``texport.ops.aten.<name>.<overload>(...)``, on
texport tensors of the same values, dtypes and strides, and the outputs (and
written arguments) are compared with torch's: same dtype and shape, values
within the dtype's tolerance, nan at the same places. Random ops (tagged
``nondeterministic_seeded``) and ops whose result holds undefined values
(``empty``...) compare dtype and shape only.

Each overload is then ``missing`` (texport has no handle), ``error`` (texport
raised on a call), ``wrong`` (a call gave other results) or ``match``.
benchmarks/opinfo_coverage.py prints the figures; test_opinfo.py holds a
fixed set of matching ops to them.

The recording takes under a minute; it is kept in a pickle under the system's
temporary folder, keyed by torch's version and the recording's parameters
(``record(refresh=True)`` redoes it).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import pickle
import signal
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import texport

DTYPES = ("float32", "int64", "bool", "float16", "complex64")
MAX_SAMPLES = 8
# Calls kept per (overload, OpInfo, dtype): enough for the samples' variety, few enough to replay fast.
MAX_CALLS = 6
# A sample whose tensors hold more elements than this is skipped (replay time, not coverage).
MAX_ELEMENTS = 100_000
CALL_TIMEOUT_S = 10
# Base names of ops whose results hold undefined values: dtype and shape only.
UNDEFINED_RESULT = frozenset({"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
                              "empty_permuted", "_empty_affine_quantized", "resize_", "resize_as_"})
# (rtol, atol) per dtype, torch.testing.assert_close's defaults
TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
              "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}
STATUSES = ("missing", "error", "wrong", "match")
# (values, indices) results whose index among equal values torch leaves unspecified
# (its CPU kernels select with introselect or sort unstably): texport's indices
# must pick torch's values from the input, not equal torch's.
TIES_UNSPECIFIED = frozenset({"aten.sort.default", "aten.sort.stable", "aten.topk.default",
                              "aten.kthvalue.default", "aten.median.dim", "aten.nanmedian.dim",
                              "aten.mode.default"})

# Results holding eigenvectors or singular vectors (overload -> their indices): each
# is unique up to a unit factor (a sign, a complex phase) LAPACK builds differ on;
# torch's own OpInfo samples (sample_inputs_linalg_eig, _eigh, _svd) compare them by
# modulus, so does this.
UP_TO_PHASE = {"aten.linalg_eig.default": (1,), "aten._linalg_eigh.default": (1,),
               "aten.linalg_eigh.default": (1,), "aten._linalg_svd.default": (0, 2),
               "aten.linalg_svd.default": (0, 2)}

# ctc_loss's log_alpha: torch's CPU kernel leaves [b, t, s] unwritten (uninitialised
# memory) past the sample's input length and, after t = 0, past 2 * target length + 1.
CTC_LOSS = frozenset({"aten._ctc_loss.default", "aten._ctc_loss.Tensor"})


@dataclass
class Call:
    """One ATen call torch made: ``overload`` is ``aten.add.Tensor``; ``op`` the
    OpInfo that reached it; ``written`` maps a written argument's position (int)
    or keyword (str) to its value after the call."""

    overload: str
    op: str
    dtype: str
    args: tuple
    kwargs: dict
    outputs: Any
    written: dict
    random: bool
    undefined: bool
    tolerance: tuple[float, float] | None = None


@dataclass
class Result:
    """What one overload's replays gave: its status, the calls replayed, and the
    first failure's one-line message."""

    overload: str
    status: str
    calls: int = 0
    message: str = ""
    ops: set[str] = field(default_factory=set)


# --------------------------------------------------------------------------
# Recording under torch
# --------------------------------------------------------------------------


def _recorder(torch: Any, calls: list[Call], context: dict[str, str]) -> Any:
    from torch.utils._python_dispatch import TorchDispatchMode

    def copy(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return Stored.of(torch, value)
        if isinstance(value, (list, tuple)):
            return type(value)(copy(v) for v in value)
        if isinstance(value, dict):  # the kwargs
            return {k: copy(v) for k, v in value.items()}
        if isinstance(value, torch.Generator):
            return None
        return value

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            kwargs = kwargs or {}
            before_args, before_kwargs = copy(args), copy(kwargs)
            out = func(*args, **kwargs)
            if func.namespace == "aten":
                written = {}
                for index, argument in enumerate(func._schema.arguments):
                    if argument.alias_info is None or not argument.alias_info.is_write:
                        continue
                    if argument.kwarg_only or index >= len(args):
                        if argument.name in kwargs:
                            written[argument.name] = copy(kwargs[argument.name])
                    else:
                        written[index] = copy(args[index])
                name = func._schema.name.split("::")[1]
                calls.append(Call(f"aten.{name}.{func._overloadname}", context["op"], context["dtype"],
                                  before_args, before_kwargs, copy(out), written,
                                  random=torch.Tag.nondeterministic_seeded in func.tags,
                                  undefined=name in UNDEFINED_RESULT, tolerance=context["tolerance"]))
            return out

    return Recorder()


@dataclass
class Stored:
    """A tensor as recorded, in numpy (it pickles fast; torch tensors do not): its
    whole storage and its view of it (shape, strides, offset), as as_strided and
    friends reach past the elements a view shows. ``dtype`` is torch's name; a
    dtype numpy lacks is kept as raw bits (bfloat16: ml_dtypes' reads them)."""

    dtype: str
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    storage: np.ndarray

    @classmethod
    def of(cls, torch: Any, tensor: Any) -> Stored:
        tensor = tensor.detach().resolve_conj().resolve_neg()
        if tensor.layout != torch.strided:
            tensor = tensor.to_dense()
        length = tensor.untyped_storage().nbytes() // tensor.element_size()
        flat = tensor.as_strided((length,), (1,), 0).clone()
        try:
            storage = flat.numpy()
        except TypeError:  # bfloat16, complex32...: the bits
            storage = flat.view(torch.uint8).numpy()
        return cls(_dtype_name(tensor.dtype), tuple(tensor.shape), tuple(tensor.stride()),
                   tensor.storage_offset(), storage)

    def array(self) -> np.ndarray:
        """A fresh numpy array of the recorded values, dtype and strides."""
        storage = self.storage.copy()
        if self.dtype == "bfloat16":
            import ml_dtypes

            storage = storage.view(ml_dtypes.bfloat16)
        elif storage.dtype == np.uint8 and self.dtype != "uint8":
            raise TypeError(f"texport has no dtype {self.dtype}")
        return np.lib.stride_tricks.as_strided(
            storage[self.offset:], self.shape, tuple(s * storage.itemsize for s in self.stride))

    def values(self) -> np.ndarray:
        array = self.array()
        return array.astype(np.float32) if self.dtype == "bfloat16" else array


def _sample_size(torch: Any, sample: Any) -> int:
    values = [sample.input, *sample.args, *sample.kwargs.values()]
    leaves = torch.utils._pytree.tree_leaves(values)
    return sum(v.numel() for v in leaves if isinstance(v, torch.Tensor))


def _samples(torch: Any, op: Any, dtype: Any, max_samples: int) -> list[Any]:
    try:
        samples = list(itertools.islice(op.sample_inputs("cpu", dtype), max_samples))
    except Exception:  # noqa: BLE001 - an OpInfo whose samples fail on CPU reaches nothing
        return []
    return [s for s in samples if _sample_size(torch, s) <= MAX_ELEMENTS]


def _record(ops: Iterable[str] | None, dtypes: Iterable[str], max_samples: int) -> list[Call]:
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    wanted = None if ops is None else set(ops)
    calls: list[Call] = []
    context: dict[str, str] = {}
    recorder = _recorder(torch, calls, context)
    for op in op_db:
        if wanted is not None and op.name not in wanted:
            continue
        for dtype_name in dtypes:
            dtype = getattr(torch, dtype_name)
            if dtype not in op.supported_dtypes("cpu"):
                continue
            context.update(op=op.name, dtype=dtype_name, tolerance=_tolerance_override(op, dtype))
            variants = [v for v in (op.op, op.inplace_variant) if v is not None]
            for sample in _samples(torch, op, dtype, max_samples):
                for variant in variants:  # the in-place one last: it writes the sample
                    torch.manual_seed(0)
                    with contextlib.suppress(Exception), recorder:
                        variant(sample.input, *sample.args, **sample.kwargs)
    return _thin(calls)


# torch's own tests that compare an op with another implementation of it: their
# tolerance overrides (an OpInfo's toleranceOverride decorators) hold here too.
REFERENCE_TESTS = ("TestCommon", "TestDecomp", "TestMathBits")


def _tolerance_override(op: Any, dtype: Any) -> tuple[float, float] | None:
    """The loosest (rtol, atol) torch's reference tests allow ``op`` in ``dtype``, if any."""
    found = None
    for info in op.decorators:
        if getattr(info, "cls_name", None) not in REFERENCE_TESTS or "mps" in (getattr(info, "test_name", "") or ""):
            continue
        for decorator in getattr(info, "decorators", ()):
            tol = getattr(decorator, "d", {}).get(dtype)
            if tol is not None:
                rtol, atol = (tol.rtol, tol.atol) if found is None else map(max, found, (tol.rtol, tol.atol))
                found = (rtol, atol)
    return found


def _thin(calls: list[Call]) -> list[Call]:
    kept: dict[tuple[str, str, str], int] = {}
    thinned = []
    for call in calls:
        key = (call.overload, call.op, call.dtype)
        if kept.get(key, 0) < MAX_CALLS:
            kept[key] = kept.get(key, 0) + 1
            thinned.append(call)
    return thinned


def record(ops: Iterable[str] | None = None, dtypes: Iterable[str] = DTYPES,
           max_samples: int = MAX_SAMPLES, refresh: bool = False) -> list[Call]:
    """torch's calls on the OpInfo samples of ``ops`` (all of op_db: None),
    cached for the whole op_db."""
    import torch

    dtypes = tuple(dtypes)
    if ops is not None:
        with warnings.catch_warnings():  # torch warns about its own samples (degrees of freedom...)
            warnings.simplefilter("ignore")
            return _record(ops, dtypes, max_samples)
    tag = f"{torch.__version__}-{'-'.join(dtypes)}-{max_samples}-{MAX_CALLS}-{MAX_ELEMENTS}-v5"
    cache = Path(tempfile.gettempdir()) / f"texport-opinfo-{tag}.pkl"
    if cache.exists() and not refresh:
        with contextlib.suppress(Exception), cache.open("rb") as f:
            return pickle.load(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        calls = _record(None, dtypes, max_samples)
    partial = cache.with_suffix(f".{os.getpid()}")
    with partial.open("wb") as f:
        pickle.dump(calls, f)
    partial.replace(cache)
    return calls


# --------------------------------------------------------------------------
# Replay on texport
# --------------------------------------------------------------------------


def _dtype_name(dtype: Any) -> str:
    return str(dtype).split(".")[-1]


def to_texport(value: Any) -> Any:
    """A recorded value as texport takes it: a tensor of the same values, dtype
    and strides (a fresh copy each time: the replay may write it)."""
    import torch

    if isinstance(value, Stored):
        return texport.from_numpy(value.array())
    if isinstance(value, torch.Tensor):  # a keyword tensor of a recording made before kwargs were copied
        return to_texport(Stored.of(torch, value))
    if isinstance(value, (list, tuple)):  # torch.Size too
        return (list if isinstance(value, list) else tuple)(to_texport(v) for v in value)
    if isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
        return getattr(texport, str(value).split(".")[-1])
    if isinstance(value, torch.device):
        return texport.device(value.type)
    if isinstance(value, torch.Tensor):  # a keyword argument the recording kept as torch's tensor (weight=)
        return to_texport(Stored.of(torch, value))
    return value


def _as_numpy(value: Any) -> np.ndarray:
    if isinstance(value, Stored):
        return value.values()
    array = np.asarray(value.numpy())
    return array.astype(np.float32) if array.dtype.name == "bfloat16" else array


def _close(expected: np.ndarray, actual: np.ndarray, dtype: str,
           override: tuple[float, float] | None = None) -> bool:
    """torch.testing.assert_close's rule: nan where torch has nan, equal
    infinities, else ``|actual - expected| <= atol + rtol * |expected|`` (complex
    values by their modulus)."""
    if dtype not in TOLERANCES:
        return bool(np.array_equal(expected, actual))
    rtol, atol = TOLERANCES[dtype]
    if override is not None:  # the OpInfo's own, from torch's reference tests
        rtol, atol = max(rtol, override[0]), max(atol, override[1])
    wide = np.complex128 if expected.dtype.kind == "c" else np.float64
    want, got = expected.astype(wide), actual.astype(wide)
    nan = np.isnan(want)
    if not np.array_equal(nan, np.isnan(got)):
        return False
    infinite = np.isinf(want)
    if not np.array_equal(want[infinite], got[infinite]):
        return False
    finite = ~nan & ~infinite
    return bool(np.all(np.abs(want[finite] - got[finite]) <= atol + rtol * np.abs(want[finite])))


def compare(expected: Any, actual: Any, values: bool = True, where: str = "result",
            tolerance: tuple[float, float] | None = None) -> str | None:
    """Why texport's ``actual`` differs from torch's ``expected`` (None: it does not);
    ``tolerance`` (rtol, atol) loosens the dtype's."""
    if isinstance(expected, Stored):
        if not isinstance(actual, texport.Tensor):
            return f"{where}: expected a tensor, got {type(actual).__name__}"
        want_dtype, got_dtype = expected.dtype, _dtype_name(actual.dtype)
        if want_dtype != got_dtype:
            return f"{where}: dtype {got_dtype}, torch {want_dtype}"
        if tuple(expected.shape) != tuple(actual.shape):
            return f"{where}: shape {tuple(actual.shape)}, torch {tuple(expected.shape)}"
        if values and not _close(_as_numpy(expected), _as_numpy(actual), want_dtype, tolerance):
            return f"{where}: values differ ({want_dtype}{list(expected.shape)})"
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return f"{where}: expected {len(expected)} results, got {actual!r:.60}"
        for index, (want, got) in enumerate(zip(expected, actual)):
            difference = compare(want, got, values, f"{where}[{index}]", tolerance)
            if difference:
                return difference
        return None
    if expected is None or isinstance(expected, (bool, int, float, complex)):
        if isinstance(actual, texport.Tensor) and actual.dim() == 0:
            actual = actual.item()
        same = (expected == actual or (isinstance(expected, float) and math.isnan(expected)
                                       and isinstance(actual, float) and math.isnan(actual)))
        if values and not same and not (isinstance(expected, float) and isinstance(actual, (int, float))
                                        and math.isclose(expected, actual, rel_tol=1e-5, abs_tol=1e-6)):
            return f"{where}: {actual!r:.40}, torch {expected!r:.40}"
        return None
    return None  # dtypes, devices, symbolic values: nothing to compare


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise _Timeout(f"no result in {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def handle(overload: str) -> Any:
    """texport's handle of ``aten.<name>.<overload>`` (None: there is none)."""
    _, name, overload_name = overload.split(".")
    packet = getattr(texport.ops.aten, name, None)
    return None if packet is None else getattr(packet, overload_name, None)


def replay(call: Call) -> tuple[str, str]:
    """``(status, message)`` of one recorded call on texport eager."""
    function = handle(call.overload)
    if function is None:
        return "missing", ""
    try:
        args, kwargs = to_texport(call.args), {k: to_texport(v) for k, v in call.kwargs.items()}
        with _deadline(CALL_TIMEOUT_S), np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = function(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - any failure of texport is the finding
        first_line = (str(error).strip().splitlines() or [""])[0]
        return "error", f"{type(error).__name__}: {first_line}"[:200]
    try:
        difference = _difference(call, out, args, kwargs)
    except Exception as error:  # noqa: BLE001 - a result texport cannot hand over is a wrong one
        difference = f"result: {type(error).__name__}: {error}"[:200]
    return ("wrong", difference) if difference else ("match", "")


def _difference(call: Call, out: Any, args: Any, kwargs: dict) -> str | None:
    values = not (call.random or call.undefined)
    if call.overload in CTC_LOSS:
        difference = (compare(call.outputs[0], out[0], where="result[0]", tolerance=call.tolerance)
                      or compare(call.outputs[1], out[1], values=False, where="result[1]")
                      or _log_alpha_difference(call, out[1]))
    elif _ties_unspecified(call):
        difference = (compare(call.outputs[0], out[0], where="result[0]", tolerance=call.tolerance)
                      or compare(call.outputs[1], out[1], values=False, where="result[1]")
                      or _pick_difference(call, out[1]))
    elif call.overload in UP_TO_PHASE:
        difference = _phase_free_difference(call, out, values)
    else:
        difference = compare(call.outputs, out, values, tolerance=call.tolerance)
    for where, after in call.written.items():
        if difference:
            break
        written = args[where] if isinstance(where, int) else kwargs[where]
        difference = compare(after, written, values, f"argument {where}", call.tolerance)
    return difference


def _phase_free_difference(call: Call, out: Any, values: bool) -> str | None:
    """The results compared as usual, but the vectors' by their moduli."""
    vectors = UP_TO_PHASE[call.overload]
    if not isinstance(out, (list, tuple)) or len(out) != len(call.outputs):
        return f"result: expected {len(call.outputs)} results, got {out!r:.60}"
    for index, (want, got) in enumerate(zip(call.outputs, out)):
        where = f"result[{index}]"
        phase_free = index in vectors and values
        difference = compare(want, got, values and not phase_free, where, call.tolerance)
        if difference:
            return difference
        if phase_free and want.shape and not _close(np.abs(_as_numpy(want)), np.abs(_as_numpy(got)),
                                                    _dtype_name(np.abs(_as_numpy(want)).dtype), call.tolerance):
            return f"{where}: moduli differ ({want.dtype}{list(want.shape)})"
    return None


def _argument(call: Call, name: str, default: Any) -> Any:
    """The value of the argument ``name`` in a recorded call: as given, else the
    schema's default; ``default`` when the schema has no such argument."""
    import torch

    _, op_name, overload = call.overload.split(".")
    schema = getattr(getattr(torch.ops.aten, op_name), overload)._schema
    for index, argument in enumerate(schema.arguments):
        if argument.name == name:
            if not argument.kwarg_only and index < len(call.args):
                return call.args[index]
            return call.kwargs.get(name, argument.default_value if argument.has_default_value() else default)
    return default


def _ties_unspecified(call: Call) -> bool:
    return call.overload in TIES_UNSPECIFIED and not (
        call.overload == "aten.sort.stable" and _argument(call, "stable", False))


def _pick_difference(call: Call, indices: Any) -> str | None:
    """Whether texport's indices pick torch's values out of the input along the op's dim."""
    source, values = _as_numpy(call.args[0]), _as_numpy(call.outputs[0])
    chosen = _as_numpy(indices)
    if source.ndim == 0:
        return None if np.all(chosen == 0) else "result[1]: index of a 0-d input is not 0"
    dim = _argument(call, "dim", -1) % source.ndim
    if not _argument(call, "keepdim", True):  # the reducing ones drop dim
        chosen, values = np.expand_dims(chosen, dim), np.expand_dims(values, dim)
    if chosen.size and (chosen.min() < 0 or chosen.max() >= source.shape[dim]):
        return "result[1]: indices out of range"
    picked = np.take_along_axis(source, chosen, dim)
    same = (picked == values) | (np.isnan(picked) & np.isnan(values)) if values.dtype.kind in "fc" \
        else picked == values
    return None if np.all(same) else "result[1]: indices pick other values than torch's"


def _log_alpha_difference(call: Call, log_alpha: Any) -> str | None:
    """Whether ctc_loss's log_alpha differs from torch's where torch writes it."""
    def lengths(name: str) -> np.ndarray:
        value = _argument(call, name, None)
        return np.asarray(value.values() if isinstance(value, Stored) else value)[:, None, None]

    want, got = _as_numpy(call.outputs[1]), _as_numpy(log_alpha).copy()
    t, s = np.ogrid[:want.shape[1], :want.shape[2]]
    written = (t < lengths("input_lengths")) & ((t == 0) | (s < 2 * lengths("target_lengths") + 1))
    got[~written] = want[~written]
    if _close(want, got, call.outputs[1].dtype, call.tolerance):
        return None
    return f"result[1]: values differ where torch writes them ({call.outputs[1].dtype}{list(want.shape)})"


def _describe(call: Call) -> str:
    return f"{call.op} {call.dtype}"


def run(calls: list[Call]) -> dict[str, Result]:
    """Each overload's result over its recorded calls (the worst status wins)."""
    results: dict[str, Result] = {}
    for call in calls:
        result = results.setdefault(call.overload, Result(call.overload, "match"))
        result.ops.add(call.op)
        if result.status == "missing":
            continue
        status, message = replay(call)
        result.calls += 1
        if STATUSES.index(status) < STATUSES.index(result.status):
            result.status = status
            result.message = f"{message} [{_describe(call)}]" if message else ""
    return results


def family(overload: str, ops: set[str]) -> str:
    """Where an overload belongs: its texport family, else the namespace of the
    OpInfo that reached it (``special``, ``linalg``, ``nn.functional``...)."""
    from texport.dialects.registry import OPS

    if overload in OPS:
        return OPS[overload].family or "custom"
    prefixes = sorted({op.rsplit(".", 1)[0] for op in ops if "." in op})
    return prefixes[0] if prefixes else "aten"
