"""Fuzz the IR parser/verifier and the archive loader with mutated inputs (issue 17).

    python benchmarks/fuzz.py [--seed 0] [--ir 100000] [--archives 10000] [--workers 2]
                              [--timeout 2] [--memory-mb 2048] [--no-minimize]
                              [--save-findings DIR] [--json FILE]

Corpora: the IR texts of the lit tests (``test/**/*.mlir``, split at ``// -----``) and
of small instances of the zoo models (``examples/models.py``) exported and printed at
the training, functional and core level, custom and generic form; archives are those
programs saved with ``texport.export.save``.

Every input is a pure function of (seed, corpus, index): a run is reproducible and
its results do not depend on the number of workers (hang timing aside).

Each input runs in a long-lived worker process (forked from this one, address space
capped with RLIMIT_AS): a hang inside C code (a regular expression, a big-integer
operation) cannot be interrupted by a signal, so the parent enforces the per-input
deadline, kills the stuck worker and starts another. An input ends as

- clean: the documented error (IR: xDSL's ParseError or DiagnosticException family,
  which VerifyException belongs to; archives: SerializationError at load, the
  interpreter's guard/input errors at run time);
- accepted: parsed and verified (and printed → parsed → printed identically), or loaded
  and run on its example inputs;
- crash: any other exception, keyed by stage, type and the innermost texport/xDSL frame;
  a worker that dies (segfault, OOM kill) is a crash too;
- memory: MemoryError under the address-space cap;
- mismatch: the printed text does not parse back, or prints differently;
- hang: no result within --timeout seconds.

Each distinct crash, hang, memory and mismatch finding gets one repro, shrunk greedily
(lines, then tokens, then characters) while it still fails the same way.
The goal (issue 17): 0 crashes and 0 hangs over 100,000 IR inputs and 10,000 archives.
"""

from __future__ import annotations

import argparse
import dataclasses
import faulthandler
import hashlib
import io
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import random
import re
import resource
import struct
import sys
import tempfile
import time
import traceback
import warnings
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# ==========================================================================
# Outcomes
# ==========================================================================

CLEAN, ACCEPTED, CRASH, MEMORY, MISMATCH, HANG = "clean", "accepted", "crash", "memory", "mismatch", "hang"
FINDINGS = (CRASH, HANG, MEMORY, MISMATCH)


@dataclasses.dataclass(frozen=True)
class Result:
    outcome: str
    key: str = ""  # what the finding is: stage, exception type, innermost frame
    message: str = ""


class RoundTripMismatch(Exception):
    """The printed module does not parse back, or prints differently."""


@dataclasses.dataclass(frozen=True)
class Target:
    """An entry point under test: ``run(data, stage)`` raises or returns; ``stage(name)``
    records how far it got, so a finding names the stage that failed."""

    name: str
    run: Callable[[bytes, Callable[[str], None]], None]
    clean: Callable[[BaseException, str], bool]


def _innermost_frame(err: BaseException) -> str:
    """The deepest frame in texport or xDSL (line numbers left out: keys survive edits)."""
    frames = traceback.extract_tb(err.__traceback__)
    for frame in reversed(frames):
        path = frame.filename.replace(os.sep, "/")
        for package in ("/texport/", "/xdsl/"):
            if package in path:
                return f"{package.strip('/')}/{path.rsplit(package, 1)[1]}:{frame.name}"
    return f"{frames[-1].name}" if frames else "?"


def execute(target: Target, data: bytes) -> Result:
    """Run one input in this process and classify how it ended."""
    stage = ["start"]
    try:
        target.run(data, lambda name: stage.__setitem__(0, name))
    except MemoryError:
        return Result(MEMORY, f"{stage[0]}: MemoryError")
    except RoundTripMismatch as err:
        return Result(MISMATCH, f"{stage[0]}: {str(err).splitlines()[0][:120]}", str(err)[:2000])
    except Exception as err:  # noqa: BLE001 - classifying every exception is the point
        if target.clean(err, stage[0]):
            return Result(CLEAN, f"{stage[0]}: {type(err).__name__}")
        key = f"{stage[0]}: {type(err).__name__} at {_innermost_frame(err)}"
        return Result(CRASH, key, f"{type(err).__name__}: {str(err)[:500]}")
    return Result(ACCEPTED)


# ==========================================================================
# Targets: the IR entry point and the archive entry point
# ==========================================================================


def _ir_clean(err: BaseException, stage: str) -> bool:
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    # bytes that are not UTF-8 are the parser's to locate (a ParseError), as for the tools
    return isinstance(err, (ParseError, DiagnosticException))


_CONTEXT: list[Any] = []


def _context() -> Any:
    from texport.dialects.context import make_context

    if not _CONTEXT:
        _CONTEXT.append(make_context())
    return _CONTEXT[0]


def run_ir(data: bytes, stage: Callable[[str], None]) -> None:
    """parse → verify → print → parse → print; the two prints must be equal."""
    from xdsl.utils.exceptions import ParseError

    from texport.dialects.context import parse_module, print_module, verify_module

    stage("parse")
    module = parse_module(data, _context())
    stage("verify")
    verify_module(module)
    stage("print")
    printed = print_module(module)
    stage("reparse")
    try:
        again = parse_module(printed, _context())
    except ParseError as err:
        raise RoundTripMismatch(f"the printed module does not parse back: {str(err).splitlines()[0]}\n"
                                f"{err}\n--- printed:\n{printed[:1500]}") from err
    stage("reprint")
    if print_module(again) != printed:
        raise RoundTripMismatch("the module prints differently after print → parse")


def _archive_clean(err: BaseException, stage: str) -> bool:
    from texport.export.serialization import SerializationError
    from texport.interpreter.errors import ExecutionError, GuardError, RuntimeAssertError
    from texport.interpreter.inputs import InputError

    if stage == "load":
        return isinstance(err, SerializationError)
    if isinstance(err, TypeError):  # a call that does not bind the saved signature (as torch's)
        return _innermost_frame(err).startswith("texport/export/program.py:")
    return isinstance(err, (GuardError, RuntimeAssertError, ExecutionError, InputError))


def run_archive(data: bytes, stage: Callable[[str], None]) -> None:
    """load, then call the program on its saved example inputs (if any)."""
    from texport.export.serialization import load

    stage("load")
    ep = load(io.BytesIO(data))
    example = ep.example_inputs
    if example is None:
        return
    stage("run")
    args, kwargs = example if isinstance(example, tuple) and len(example) == 2 else (example, {})
    ep.module()(*args, **kwargs)


IR_TARGET = Target("ir", run_ir, _ir_clean)
ARCHIVE_TARGET = Target("archive", run_archive, _archive_clean)

# ==========================================================================
# Workers
# ==========================================================================


def _limit_memory(budget: int) -> None:
    """Cap the address space at what the worker maps now plus ``budget`` bytes."""
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mapped + budget
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))


def _worker_main(conn: Any, targets: dict[str, Target], memory: int, stacks: str, timeout: float) -> None:
    warnings.simplefilter("ignore")
    _limit_memory(memory)
    with open(stacks, "w") as dump:
        while True:
            try:
                kind, data = conn.recv()
            except EOFError:
                return
            # A watchdog thread dumps the stack shortly before the parent gives up: a hang
            # inside C code (a regex) still shows which Python frame called it.
            dump.seek(0)
            dump.truncate()
            faulthandler.dump_traceback_later(timeout * 0.8, file=dump)
            result = execute(targets[kind], data)
            faulthandler.cancel_dump_traceback_later()
            conn.send(result)


def _hang_frame(dump: str) -> str:
    """The innermost texport/xDSL frame of a faulthandler dump (innermost first)."""
    frames = re.findall(r'File "([^"]*)", line \d+ in (\S+)', dump)
    for path, function in frames:
        match = re.search(r"/(texport|xdsl)/(.*)$", path)
        if match:
            return f"{match.group(1)}/{match.group(2)}:{function}"
    return f"{Path(frames[0][0]).name}:{frames[0][1]}" if frames else "?"


class _Worker:
    def __init__(self, targets: dict[str, Target], memory: int, timeout: float) -> None:
        ctx = multiprocessing.get_context("fork")  # a warm copy of this process: restarts are cheap
        self.conn, child = ctx.Pipe()
        handle, self.stacks = tempfile.mkstemp(prefix="fuzz-stacks-")
        os.close(handle)
        self.process = ctx.Process(target=_worker_main, args=(child, targets, memory, self.stacks, timeout),
                                   daemon=True)
        with warnings.catch_warnings():  # (3.12+ warns when numpy's BLAS threads exist: the child uses none)
            warnings.filterwarnings("ignore", r"This process .* is multi-threaded", DeprecationWarning)
            self.process.start()
        child.close()
        self.job: tuple[int, float] | None = None  # (input index, start time)

    def hang_frame(self) -> str:
        with open(self.stacks, errors="replace") as dump:
            return _hang_frame(dump.read())

    def stop(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()
        os.unlink(self.stacks)


class Pool:
    """Long-lived worker processes; the parent enforces the per-input deadline."""

    def __init__(self, targets: dict[str, Target], workers: int = 2, timeout: float = 2.0,
                 memory: int = 2 << 30) -> None:
        self.targets, self.timeout, self.memory = targets, timeout, memory
        self.workers = [_Worker(targets, memory, timeout) for _ in range(max(1, workers))]

    def close(self) -> None:
        for worker in self.workers:
            worker.stop()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, kind: str, data: bytes) -> Result:
        return next(iter(self.map(((0, kind, data),))))[1]

    def map(self, jobs: Iterable[tuple[int, str, bytes]]) -> Iterator[tuple[int, Result, float]]:
        """(index, result, seconds) for each (index, kind, data), in completion order."""
        pending = iter(jobs)
        exhausted = False
        while True:
            for worker in self.workers:
                if worker.job is None and not exhausted:
                    job = next(pending, None)
                    if job is None:
                        exhausted = True
                        break
                    worker.conn.send((job[1], job[2]))
                    worker.job = (job[0], time.monotonic())
            busy = [w for w in self.workers if w.job is not None]
            if not busy:
                return
            deadline = min(w.job[1] for w in busy) + self.timeout
            ready = multiprocessing.connection.wait([w.conn for w in busy],
                                                    timeout=max(0.0, deadline - time.monotonic()))
            for slot, worker in enumerate(self.workers):
                if worker.job is None:
                    continue
                index, started = worker.job
                if worker.conn in ready:
                    result = self._receive(slot)
                    yield index, result, time.monotonic() - started
                elif time.monotonic() - started >= self.timeout:
                    where = worker.hang_frame()
                    self._restart(slot)
                    yield index, Result(HANG, f"hang at {where}", f"no result within {self.timeout} s"), self.timeout

    def _receive(self, slot: int) -> Result:
        worker = self.workers[slot]
        try:
            result = worker.conn.recv()
        except (EOFError, OSError):
            worker.process.join()
            code = worker.process.exitcode
            self._restart(slot)
            return Result(CRASH, f"worker died (exit code {code})")
        worker.job = None
        return result

    def _restart(self, slot: int) -> None:
        self.workers[slot].stop()
        self.workers[slot] = _Worker(self.targets, self.memory, self.timeout)


# ==========================================================================
# Corpora
# ==========================================================================


def lit_texts(root: Path = ROOT / "test") -> list[tuple[str, str]]:
    """(name, text) of each split of each lit test (RUN/CHECK lines are comments: kept)."""
    texts = []
    for path in sorted(root.rglob("*.mlir")):
        if "Output" in path.relative_to(root).parts:  # lit's scratch files, not tests
            continue
        for index, part in enumerate(path.read_text(encoding="utf-8").split("// -----")):
            if part.strip():
                texts.append((f"{path.relative_to(ROOT)}#{index}", part))
    return texts


def _small_zoo() -> dict[str, Callable[[], tuple[Any, tuple[Any, ...], Any]]]:
    """The zoo's models at a size that keeps each input fast: (model, args, dynamic_shapes)."""
    sys.path.insert(0, str(ROOT / "examples"))
    import models

    import texport as torch

    def seeded(build: Callable[[], tuple[Any, tuple[Any, ...], Any]]) -> Callable[[], Any]:
        def make() -> Any:
            torch.manual_seed(0)
            return build()
        return make

    batch = {"x": {0: torch.export.Dim("batch", min=2, max=64)}}
    return {
        "ConvBN": seeded(lambda: (models.ConvBN(), (torch.randn(1, 1, 3, 3),), None)),
        "MLP": seeded(lambda: (models.MLP50(width=8, depth=2), (torch.randn(4, 8),), batch)),
        "GPT": seeded(lambda: (models.GPT4(d_model=8, n_heads=2, hidden=16, n_layers=1, max_len=16),
                               (torch.randn(2, 4, 8),), batch)),
        "ResNetBlock": seeded(lambda: (models.BasicBlock(2, 4, stride=2), (torch.randn(1, 2, 4, 4),), None)),
        "TinyLSTM": seeded(lambda: (models.TinyLSTM(input_size=4, hidden=4, steps=2),
                                    (torch.randn(2, 2, 4),), None)),
        "LSTMScan": seeded(lambda: (models.LSTMScan(input_size=4, hidden=4), (torch.randn(2, 3, 4),), None)),
        "EarlyExit": seeded(lambda: (models.EarlyExit(width=4), (torch.randn(2, 4),), None)),
    }


def exported_programs(names: Iterable[str] | None = None) -> list[tuple[str, Any]]:
    """(name, program) for each small zoo model at the training, functional and core level."""
    import texport as torch

    programs = []
    for name, make in _small_zoo().items():
        if names is not None and name not in names:
            continue
        model, args, shapes = make()
        model.eval()
        ep = torch.export.export(model, args, dynamic_shapes=shapes)
        programs.append((f"{name}/training", ep))
        for level, lower in (("functional", lambda p: p.run_decompositions({})),
                             ("core", lambda p: p.run_decompositions())):
            try:
                programs.append((f"{name}/{level}", lower(ep)))
            except Exception as err:  # noqa: BLE001 - a model that does not lower is still a corpus
                print(f"fuzz: {name} does not lower to {level}: {type(err).__name__}: {err}", file=sys.stderr)
    return programs


def program_texts(programs: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    from texport.dialects.context import print_module

    return [(f"{name}/{form}", print_module(ep.graph_module.module, generic=form == "generic"))
            for name, ep in programs for form in ("custom", "generic")]


def program_archives(programs: list[tuple[str, Any]]) -> list[tuple[str, bytes]]:
    from texport.export.serialization import save

    archives = []
    for name, ep in programs:
        buffer = io.BytesIO()
        save(ep, buffer)
        archives.append((name, buffer.getvalue()))
    return archives


# ==========================================================================
# IR mutators: each takes (rng, text) and returns the mutated text or bytes
# ==========================================================================

class Mutation(random.Random):
    """The random source of one mutation; a mutator notes what it did (an archive's
    repro is the archive, so the report says what was changed in it)."""

    def __init__(self, seed: str) -> None:
        super().__init__(seed)
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)


TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[%^@#!]?[A-Za-z_][\w.$]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\s+|.', re.S)
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
IDENT = re.compile(r"[%^@#!]?[A-Za-z_][\w.$]*")
BOUNDARY_NUMBERS = ["0", "-1", str(2**63), "1" + "0" * 5000, "1e400", "nan", "inf", "-inf", "-0.0", "²",
                    "1.5", "2**99999999"]
HOSTILE_NAMES = ["lambda", "v1", "__import__", "ß", "x", "s0", "None", "0a", "é"]
HOSTILE_DIMS = ["3//0", "s0 % 0", "Mod(s0, 0)", "Mod(s0)", "FloorDiv(s0)", "(s0+s1+s2+1)**30",
                "s0**999999999", "-s0", "1.5", "²", "(" * 250 + "s0" + ")" * 250, "-" * 1000 + "s0",
                "2**99999999", "1" * 5000, "s0//0", "0", "-1", "lambda", "v1", "__import__", "s0*"]
NESTING = [10, 50, 150, 200, 1000]


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def _solid(pieces: list[str]) -> list[int]:
    return [i for i, piece in enumerate(pieces) if not piece.isspace()]


def _bytes_flip(rng: Mutation, text: str) -> bytes:
    data = bytearray(text.encode("utf-8"))
    for _ in range(rng.randint(1, 4)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return bytes(data)


def _bytes_insert(rng: Mutation, text: str) -> bytes:
    data = bytearray(text.encode("utf-8"))
    at = rng.randint(0, len(data))
    if rng.random() < 0.5:
        piece = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))  # often invalid UTF-8
    else:
        piece = chr(rng.choice([rng.randrange(32, 127), rng.randrange(0xA0, 0x3000),
                                rng.randrange(0x10000, 0x10FFFF)])).encode("utf-8", "surrogatepass")
    return bytes(data[:at] + piece + data[at:])


def _bytes_delete(rng: Mutation, text: str) -> bytes:
    data = text.encode("utf-8")
    at = rng.randrange(max(1, len(data)))
    return data[:at] + data[at + rng.randint(1, 16):]


def _bytes_duplicate(rng: Mutation, text: str) -> bytes:
    data = text.encode("utf-8")
    at = rng.randrange(max(1, len(data)))
    return data[:at] + data[at:at + rng.randint(1, 64)] * rng.randint(2, 5) + data[at:]


def _tokens_delete(rng: Mutation, text: str) -> str:
    pieces = tokens(text)
    solid = _solid(pieces)
    for _ in range(rng.randint(1, 3)):
        if solid:
            pieces[rng.choice(solid)] = ""
    return "".join(pieces)


def _tokens_duplicate(rng: Mutation, text: str) -> str:
    pieces = tokens(text)
    solid = _solid(pieces)
    if solid:
        at = rng.choice(solid)
        pieces[at] = pieces[at] * rng.randint(2, 3)
    return "".join(pieces)


def _tokens_swap(rng: Mutation, text: str) -> str:
    pieces = tokens(text)
    solid = _solid(pieces)
    if len(solid) >= 2:
        a, b = rng.sample(solid, 2)
        pieces[a], pieces[b] = pieces[b], pieces[a]
    return "".join(pieces)


def _replace_matching(rng: Mutation, text: str, pattern: re.Pattern[str], values: list[str]) -> str:
    pieces = tokens(text)
    where = [i for i, piece in enumerate(pieces) if pattern.fullmatch(piece)]
    for _ in range(rng.randint(1, 2)):
        if where:
            at = rng.choice(where)
            sigil = pieces[at][0] if pieces[at][0] in "%^@#!" else ""
            pieces[at] = sigil + rng.choice(values)
    return "".join(pieces)


def _tokens_number(rng: Mutation, text: str) -> str:
    return _replace_matching(rng, text, NUMBER, BOUNDARY_NUMBERS)


def _tokens_identifier(rng: Mutation, text: str) -> str:
    plain = re.compile(r"[%^]?[A-Za-z_]\w*")  # SSA names, block labels and dim symbols, not op names
    return _replace_matching(rng, text, plain, HOSTILE_NAMES)


def _nest_modules(rng: Mutation, text: str) -> str:
    depth = rng.choice(NESTING)
    return "builtin.module {\n" * depth + text + "\n}" * depth


def _nest_brackets(rng: Mutation, text: str) -> str:
    opens = [m.start() for m in re.finditer(r"\[", text)]
    if not opens:
        return "[" * rng.choice(NESTING) + text
    at = rng.choice(opens)
    close = text.find("]", at)
    depth = rng.choice(NESTING)
    return text[:at] + "[" * depth + text[at:close + 1] + "]" * depth + text[close + 1:]


DIMS = re.compile(r"(!tx\.tensor<\[)([^\]]*)(\])|(!tx\.symint<)([^>]*)(>)")


def _hostile_dim(rng: Mutation, text: str) -> str:
    matches = list(DIMS.finditer(text))
    if not matches:
        return "func.func @f(%x: !tx.tensor<[" + rng.choice(HOSTILE_DIMS) + "], f32>) {\n  func.return\n}\n"
    match = rng.choice(matches)
    if match.group(1):
        dims = match.group(2).split(", ") if match.group(2) else [""]
        dims[rng.randrange(len(dims))] = rng.choice(HOSTILE_DIMS)
        new = match.group(1) + ", ".join(dims) + match.group(3)
    else:
        new = match.group(4) + rng.choice(HOSTILE_DIMS) + match.group(6)
    return text[:match.start()] + new + text[match.end():]


def _unterminated_string(rng: Mutation, text: str) -> str:
    strings = [m for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"', text)]
    if strings and rng.random() < 0.5:
        match = rng.choice(strings)
        return text[:match.end() - 1] + text[match.end():]  # drop the closing quote
    lines = text.split("\n")
    at = rng.randrange(len(lines))
    lines[at] += ' "' + "".join(rng.choice("abcdefghij") for _ in range(rng.choice([5, 24, 30, 40])))
    return "\n".join(lines)


TYPE = re.compile(r"!tx\.(?:tensor|symint)<(?:[^<>]|<[^<>]*>)*>|\b[if](?:1|8|16|32|64)\b")


def _swap_types(rng: Mutation, text: str) -> str:
    matches = list(TYPE.finditer(text))
    if len(matches) < 2:
        return text
    a, b = sorted(rng.sample(matches, 2), key=lambda m: m.start())
    return text[:a.start()] + b.group() + text[a.end():b.start()] + a.group() + text[b.end():]


_OP_NAMES: dict[str, list[str]] = {}


def op_names() -> dict[str, list[str]]:
    """The registered op names of each dialect (training, functional, core, tx, control)."""
    if not _OP_NAMES:
        from texport.dialects.context import texport_dialects

        for prefix, dialect in texport_dialects().items():
            _OP_NAMES[prefix] = sorted(op.name for op in dialect.operations)
    return _OP_NAMES


def _rename_op(rng: Mutation, text: str) -> str:
    names = op_names()
    pattern = re.compile(r"\b(" + "|".join(names) + r")\.[\w.]+")
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    match = rng.choice(matches)
    other = rng.choice(names[match.group(1)])
    return text[:match.start()] + other + text[match.end():]


OPERAND = re.compile(r"%[\w.$-]+")


def _operands(rng: Mutation, text: str) -> str:
    lines = text.split("\n")
    uses = [i for i, line in enumerate(lines) if "=" in line and OPERAND.search(line.split("=", 1)[1])]
    if not uses:
        return text
    at = rng.choice(uses)
    result, rest = lines[at].split("=", 1)
    operands = list(OPERAND.finditer(rest))
    chosen = rng.choice(operands)
    if rng.random() < 0.5:  # drop it (with a neighbouring comma)
        tail = rest[chosen.end():]
        tail = tail[2:] if tail.startswith(", ") else tail
        rest = rest[:chosen.start()] + tail
    else:
        rest = rest[:chosen.end()] + ", " + chosen.group() + rest[chosen.end():]
    lines[at] = result + "=" + rest
    return "\n".join(lines)


IR_MUTATORS: dict[str, Callable[[Mutation, str], str | bytes]] = {
    "bytes.flip": _bytes_flip,
    "bytes.insert": _bytes_insert,
    "bytes.delete": _bytes_delete,
    "bytes.duplicate": _bytes_duplicate,
    "tokens.delete": _tokens_delete,
    "tokens.duplicate": _tokens_duplicate,
    "tokens.swap": _tokens_swap,
    "tokens.number": _tokens_number,
    "tokens.identifier": _tokens_identifier,
    "grammar.nest_modules": _nest_modules,
    "grammar.nest_brackets": _nest_brackets,
    "grammar.dim": _hostile_dim,
    "grammar.unterminated_string": _unterminated_string,
    "grammar.swap_types": _swap_types,
    "grammar.rename_op": _rename_op,
    "grammar.operands": _operands,
}

# ==========================================================================
# Archive mutators: each takes (rng, archive bytes) and returns the mutated bytes
# ==========================================================================

MANIFEST = "manifest.json"


def _unzip(data: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def _zip(members: list[tuple[str, bytes]], deflated: Iterable[str] = ()) -> bytes:
    buffer = io.BytesIO()
    deflated = set(deflated)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are the point
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, content in members:
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED if name in deflated else zipfile.ZIP_STORED
                archive.writestr(info, content)
    return buffer.getvalue()


def _manifest_of(members: list[tuple[str, bytes]]) -> dict[str, Any]:
    return json.loads(dict(members)[MANIFEST])


def _with_manifest(members: list[tuple[str, bytes]], manifest: dict[str, Any] | bytes,
                   refresh: bool = True) -> list[tuple[str, bytes]]:
    """The members with this manifest; ``refresh`` rewrites its member table to match the
    members' bytes, so that the mutation reaches past the sha256 checks."""
    if refresh and isinstance(manifest, dict) and isinstance(manifest.get("members"), dict):
        table = manifest["members"]
        for name, content in members:
            if name in table:
                table[name] = {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content)}
    text = manifest if isinstance(manifest, bytes) else json.dumps(manifest, indent=1).encode("utf-8")
    return [(name, text if name == MANIFEST else content) for name, content in members]


def _data_members(members: list[tuple[str, bytes]]) -> list[str]:
    return [name for name, _ in members if name != MANIFEST]


def _member_drop(rng: Mutation, data: bytes) -> bytes:
    members = _unzip(data)
    name, _ = members.pop(rng.randrange(len(members)))
    rng.note(f"dropped member {name}")
    return _zip(members)


def _member_duplicate(rng: Mutation, data: bytes) -> bytes:
    members = _unzip(data)
    name, content = rng.choice(members)
    other = bytes(rng.randrange(256) for _ in range(16)) if rng.random() < 0.5 else content
    members.insert(rng.randint(0, len(members)), (name, other))
    rng.note(f"member {name} twice ({'other' if other != content else 'same'} bytes)")
    return _zip(members)


def _member_rename(rng: Mutation, data: bytes) -> bytes:
    members = _unzip(data)
    at = rng.randrange(len(members))
    new = rng.choice(["../../evil", "/abs", "", "data/weights/weight_0", "program.mlir", "x" * 300, "é"])
    rng.note(f"renamed member {members[at][0]} to {new!r}")
    members[at] = (new, members[at][1])
    return _zip(members)


def _member_unlisted(rng: Mutation, data: bytes) -> bytes:
    members = _unzip(data)
    members.append((rng.choice(["extra/9", "evil.py", "../x", "data/weights/weight_99"]), b"print('hi')"))
    rng.note(f"added unlisted member {members[-1][0]}")
    return _zip(members)


def _member_bytes(rng: Mutation, data: bytes) -> bytes:
    members = _unzip(data)
    name = rng.choice(_data_members(members))
    content = bytearray(dict(members)[name])
    choice = rng.randrange(3)
    if choice == 0 and content:
        content = content[:rng.randrange(len(content))]
    elif choice == 1:
        for _ in range(rng.randint(1, 8)):
            if content:
                content[rng.randrange(len(content))] = rng.randrange(256)
    else:
        content += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    members = [(n, bytes(content) if n == name else c) for n, c in members]
    refresh = rng.random() < 0.8
    rng.note(f"member {name}: {('truncated', 'bytes replaced', 'bytes appended')[choice]}"
             f"{', member table refreshed' if refresh else ''}")
    return _zip(_with_manifest(members, _manifest_of(members), refresh=refresh))


_BOMBS: dict[int, bytes] = {}


def _deflated_bomb(size: int, fill: bytes = b" ") -> bytes:
    """A raw deflate stream that inflates to ``size`` bytes of ``fill`` (cached). After a
    full flush the compressor starts afresh, so one compressed MiB repeats verbatim."""
    if size not in _BOMBS:
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        mebibyte = compressor.compress(fill * (1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
        _BOMBS[size] = mebibyte * (size >> 20) + compressor.flush()
    return _BOMBS[size]


def _replace_member_raw(data: bytes, name: str, raw: bytes, size: int, method: int = 8) -> bytes:
    """Rebuild the archive by hand with member ``name``'s data replaced by ``raw``
    (already compressed by ``method``) declaring ``size`` uncompressed bytes."""
    members = _unzip(data)
    out, central = io.BytesIO(), io.BytesIO()
    for member, content in members:
        encoded = member.encode("utf-8")
        body, declared, crc, how = (raw, size, 0, method) if member == name else \
            (content, len(content), zlib.crc32(content), 0)
        header = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, how, 0, 0x21, crc,
                             len(body), declared & 0xFFFFFFFF, len(encoded), 0)
        offset = out.tell()
        out.write(header + encoded + body)
        central.write(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, how, 0, 0x21, crc, len(body),
                                  declared & 0xFFFFFFFF, len(encoded), 0, 0, 0, 0, 0, offset) + encoded)
    start = out.tell()
    out.write(central.getvalue())
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members),
                          len(central.getvalue()), start, 0))
    return out.getvalue()


def _member_deflate_bomb(rng: Mutation, data: bytes) -> bytes:
    """A member (often the manifest) that inflates to far more than the archive holds;
    the sizes are told truthfully or as a lie."""
    members = _unzip(data)
    name = MANIFEST if rng.random() < 0.5 else rng.choice(_data_members(members))
    size = rng.choice([64 << 20, 256 << 20, 1 << 30])
    declared = size if rng.random() < 0.5 else rng.choice([10, len(dict(members)[name])])
    rng.note(f"member {name} deflated to inflate to {size} bytes, declaring {declared}")
    return _replace_member_raw(data, name, _deflated_bomb(size), declared)


def _member_deflated_lie(rng: Mutation, data: bytes) -> bytes:
    """A member deflated honestly but declaring a different uncompressed size."""
    members = _unzip(data)
    name, content = rng.choice(members)
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    raw = compressor.compress(content) + compressor.flush()
    declared = rng.choice([0, 1, len(content) + 1, 2**32 - 1])
    rng.note(f"member {name} deflated ({len(content)} bytes), declaring {declared}")
    return _replace_member_raw(data, name, raw, declared)


_HEADER_NAMES = {b"PK\x03\x04": "local", b"PK\x01\x02": "central"}


def _patch_headers(data: bytes, rng: Mutation, signature: bytes, field: int, fmt: str,
                   values: list[int]) -> bytes:
    out = bytearray(data)
    spots = [m.start() for m in re.finditer(re.escape(signature), data)]
    for at in rng.sample(spots, rng.randint(1, len(spots))) if spots else ():
        value = rng.choice(values)
        struct.pack_into(fmt, out, at + field, value)
        rng.note(f"{_HEADER_NAMES[signature]} header at byte {at}: field +{field} = {value}")
    return bytes(out)


def _zip_method(rng: Mutation, data: bytes) -> bytes:
    """Flip the compression-method field of some local and/or central headers."""
    methods = [1, 6, 8, 9, 12, 14, 93, 98, 99, 0xFFFF]
    if rng.random() < 0.5:
        data = _patch_headers(data, rng, b"PK\x03\x04", 8, "<H", methods)
    return _patch_headers(data, rng, b"PK\x01\x02", 10, "<H", methods)


def _zip_sizes(rng: Mutation, data: bytes) -> bytes:
    """Lie about compressed / uncompressed sizes in the central directory."""
    values = [0, 1, 2**31 - 1, 2**32 - 1, 1 << 30]
    return _patch_headers(data, rng, b"PK\x01\x02", rng.choice([20, 24]), "<L", values)


NPY_HEADERS = [
    "{'descr': '<f4', 'fortran_order': False, 'shape': (-1, -3), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 0), }",
    "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
    "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1" + "0" * 40 + ",), }",
    "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (__import__('os').getpid(),), }",
    "{'descr': '<f4', 'fortran_order': 1, 'shape': [2], }",
    "{'descr': '<U99999999', 'fortran_order': False, 'shape': (1,), }",
    "not a dict",
]


def _npy_header(rng: Mutation, data: bytes) -> bytes:
    """Replace the header of one .npy member (the member table kept consistent)."""
    members = _unzip(data)
    arrays = [name for name, content in members if content.startswith(b"\x93NUMPY")]
    if not arrays:
        return data
    name = rng.choice(arrays)
    content = dict(members)[name]
    header_length = struct.unpack("<H", content[8:10])[0] if content[6] == 1 else struct.unpack("<I", content[8:12])[0]
    body = content[(10 if content[6] == 1 else 12) + header_length:]
    header = rng.choice(NPY_HEADERS).encode("latin1")
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    rng.note(f"member {name}: .npy header {header.strip().decode('latin1')}")
    new = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + body
    members = [(n, new if n == name else c) for n, c in members]
    return _zip(_with_manifest(members, _manifest_of(members)))


def _json_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _json_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _json_paths(item, (*path, index))


_RAW = "\x00raw:{}\x00"  # a placeholder replaced by raw JSON text after dumping


def _hostile_json(rng: Mutation) -> Any:
    """A hostile manifest value: another type, an odd string, or raw JSON text."""
    choices: list[Any] = [
        0, -1, 1.5, True, None, "", [], {}, "3//0", "1.5", "../../evil", "s0**999999999",
        "(s0+s1+s2+s3+1)**60", "2**99999999", "-s0", "²", "lambda", "x" * 1_000_000,
        [[[[[]]]]], {"": {}}, "*", ["*"], {"type": "builtins.dict", "context": [], "children": []},
        _RAW.format("[" * 800 + "]" * 800), _RAW.format("[" * 100_000), _RAW.format("1" + "0" * 5000),
        _RAW.format("1e400"), _RAW.format("NaN"), _RAW.format("-Infinity"), _RAW.format("-0.0"),
    ]
    return rng.choice(choices)


def _dump_manifest(manifest: Any, raw: dict[str, str]) -> bytes:
    text = json.dumps(manifest, indent=1)
    for placeholder, fragment in raw.items():
        text = text.replace(json.dumps(placeholder), fragment)
    return text.encode("utf-8")


def _get_path(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def _manifest_field(rng: Mutation, data: bytes) -> bytes:
    """Replace, delete or add one field anywhere in the manifest (or rename a dict key)."""
    members = _unzip(data)
    manifest = _manifest_of(members)
    path = rng.choice([p for p in _json_paths(manifest) if p and p[0] != "members"] or [()])
    parent, key = _get_path(manifest, path[:-1]), path[-1]
    value = _hostile_json(rng)
    action = rng.randrange(4)
    where = "manifest" + "".join(f"[{k!r}]" for k in path)
    rng.note(f"{('set', 'deleted', 'added a key beside', 'renamed the key of')[action]} {where} "
             f"({_show(repr(value).encode(), 80)})")
    if action == 0 or not isinstance(parent, dict):
        parent[key] = value
    elif action == 1:
        del parent[key]
    elif action == 2:
        parent[rng.choice(["extra", "__class__", key + "_", "format_version"])] = value
    else:
        parent[value if isinstance(value, str) else str(value)] = parent.pop(key)
    raw = {}
    for candidate in (value, *(k for k in parent if isinstance(parent, dict))):
        if isinstance(candidate, str) and candidate.startswith("\x00raw:"):
            raw[candidate] = candidate[5:-1]
    return _zip(_with_manifest(members, _dump_manifest(manifest, raw)))


ARCHIVE_MUTATORS: dict[str, Callable[[Mutation, bytes], bytes]] = {
    "member.drop": _member_drop,
    "member.duplicate_name": _member_duplicate,
    "member.rename": _member_rename,
    "member.unlisted": _member_unlisted,
    "member.bytes": _member_bytes,
    "member.deflate_bomb": _member_deflate_bomb,
    "member.deflated_size_lie": _member_deflated_lie,
    "zip.method": _zip_method,
    "zip.sizes": _zip_sizes,
    "npy.header": _npy_header,
    "manifest.field": _manifest_field,
}

# ==========================================================================
# Campaign
# ==========================================================================


@dataclasses.dataclass
class Input:
    kind: str  # "ir" or "archive"
    corpus: str
    mutator: str
    data: bytes
    note: str = ""


def generate(seed: int, kind: str, count: int, corpus: list[tuple[str, Any]],
             mutators: dict[str, Callable[[Mutation, Any], Any]]) -> Iterator[Input]:
    """``count`` inputs, each a function of (seed, kind, its index) alone."""
    names = sorted(mutators)
    for index in range(count):
        rng = Mutation(f"{seed}:{kind}:{index}")
        corpus_name, original = rng.choice(corpus)
        mutator = rng.choice(names)
        mutated = mutators[mutator](rng, original)
        data = mutated.encode("utf-8", "surrogatepass") if isinstance(mutated, str) else mutated
        yield Input(kind, corpus_name, mutator, data, "; ".join(rng.notes))


@dataclasses.dataclass
class Finding:
    outcome: str
    key: str
    message: str
    corpus: str
    mutator: str
    data: bytes
    note: str = ""
    count: int = 1
    repro: bytes | None = None


@dataclasses.dataclass
class Report:
    tried: Counter = dataclasses.field(default_factory=Counter)  # (kind, corpus-group, mutator)
    outcomes: Counter = dataclasses.field(default_factory=Counter)  # (kind, outcome)
    clean_kinds: Counter = dataclasses.field(default_factory=Counter)  # (kind, key)
    findings: dict[tuple[str, str, str], Finding] = dataclasses.field(default_factory=dict)
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)
    busy: Counter = dataclasses.field(default_factory=Counter)  # (kind, mutator): worker seconds

    def add(self, item: Input, result: Result, seconds: float = 0.0) -> None:
        group = "lit" if item.corpus.startswith("test/") else "/".join(item.corpus.split("/")[:2])
        self.tried[item.kind, group, item.mutator] += 1
        self.busy[item.kind, item.mutator] += seconds
        self.outcomes[item.kind, result.outcome] += 1
        if result.outcome == CLEAN:
            self.clean_kinds[item.kind, result.key] += 1
        if result.outcome in FINDINGS:
            key = (item.kind, result.outcome, result.key)
            if key in self.findings:
                found = self.findings[key]
                found.count += 1
                if len(item.data) < len(found.data):  # keep the smallest witness
                    found.data, found.corpus, found.mutator, found.message, found.note = \
                        item.data, item.corpus, item.mutator, result.message, item.note
            else:
                self.findings[key] = Finding(result.outcome, result.key, result.message,
                                             item.corpus, item.mutator, item.data, item.note)

    def count(self, kind: str, outcome: str) -> int:
        return self.outcomes[kind, outcome]


def campaign(pool: Pool, inputs: Iterable[Input], report: Report, progress: int = 0) -> None:
    """Run every input; every ``progress`` inputs, a line on stderr."""
    staged: dict[int, Input] = {}

    def jobs() -> Iterator[tuple[int, str, bytes]]:
        for index, item in enumerate(inputs):
            staged[index] = item
            yield index, item.kind, item.data

    for done, (index, result, seconds) in enumerate(pool.map(jobs()), 1):
        item = staged.pop(index)
        report.add(item, result, seconds)
        if progress and done % progress == 0:
            found = sum(report.count(item.kind, outcome) for outcome in FINDINGS)
            print(f"fuzz: {item.kind} {done} inputs, {found} findings", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Minimizing
# --------------------------------------------------------------------------


def _split_units(data: bytes, level: str) -> list[bytes]:
    if level == "lines":
        return data.splitlines(keepends=True)
    if level == "tokens":
        try:
            return [piece.encode("utf-8") for piece in tokens(data.decode("utf-8"))]
        except UnicodeDecodeError:
            return [data[i:i + 1] for i in range(len(data))]
    return [data[i:i + 1] for i in range(len(data))]


def minimize(pool: Pool, kind: str, data: bytes, expected: Result, budget: float) -> bytes:
    """Greedily delete chunks of lines, then tokens, then bytes while the input still
    ends the same way (same outcome and key), within ``budget`` seconds."""
    deadline = time.monotonic() + budget

    def same(candidate: bytes) -> bool:
        result = pool.run(kind, candidate)
        return result.outcome == expected.outcome and result.key == expected.key

    for level in ("lines", "tokens", "bytes"):
        units = _split_units(data, level)
        chunk = max(1, len(units) // 2)
        while time.monotonic() < deadline:
            at = 0
            while at < len(units) and time.monotonic() < deadline:
                candidate = units[:at] + units[at + chunk:]
                if candidate and same(b"".join(candidate)):
                    units = candidate
                else:
                    at += chunk
            if chunk == 1:
                break
            chunk //= 2
        data = b"".join(units)
    return data


def minimize_findings(pool: Pool, report: Report, budget: float) -> None:
    for (kind, outcome, key), finding in sorted(report.findings.items()):
        if kind != "ir":  # an archive's repro is its mutation (corpus + mutator), kept whole
            finding.repro = finding.data
            continue
        finding.repro = minimize(pool, kind, finding.data, Result(outcome, key), budget)


# ==========================================================================
# Report
# ==========================================================================


def _show(data: bytes, limit: int = 400) -> str:
    text = data.decode("utf-8", "backslashreplace")
    if len(text) > limit:
        text = f"{text[:limit // 2]} …[{len(text) - limit} more]… {text[-limit // 2:]}"
    return text


def format_report(report: Report) -> str:
    lines = []
    for kind in ("ir", "archive"):
        tried = sum(n for (k, _, _), n in report.tried.items() if k == kind)
        if not tried:
            continue
        seconds = report.seconds.get(kind, 0.0)
        rate = tried / seconds if seconds else math.nan
        counts = ", ".join(f"{o} {report.count(kind, o)}" for o in (CLEAN, ACCEPTED, *FINDINGS))
        lines += [f"== {kind}: {tried} inputs in {seconds:.1f} s ({rate:.0f}/s; "
                  f"{1000 / rate if rate else math.nan:.1f} s per 1,000): {counts}"]
        by_mutator = Counter()
        by_corpus = Counter()
        for (k, corpus, mutator), n in report.tried.items():
            if k == kind:
                by_mutator[mutator] += n
                by_corpus[corpus] += n
        lines.append("  per mutator (inputs, mean ms): " + ", ".join(
            f"{m} {n} {1000 * report.busy[kind, m] / n:.0f}" for m, n in sorted(by_mutator.items())))
        lines.append("  per corpus:  " + ", ".join(f"{c} {n}" for c, n in sorted(by_corpus.items())))
        lines.append("  clean errors: " + ", ".join(
            f"{key} {n}" for (k, key), n in sorted(report.clean_kinds.items()) if k == kind))
        for (k, outcome, key), finding in sorted(report.findings.items()):
            if k != kind:
                continue
            repro = finding.repro if finding.repro is not None else finding.data
            lines.append(f"  {outcome.upper()} x{finding.count}: {key}")
            lines.append(f"    from {finding.corpus} by {finding.mutator}; {finding.message[:300]}")
            if kind == "ir":
                lines.append(f"    repro ({len(repro)} bytes): {_show(repro)!r}")
            else:
                lines.append(f"    mutation: {finding.note}")
    return "\n".join(lines)


def report_json(report: Report) -> dict[str, Any]:
    return {
        "tried": [{"kind": k, "corpus": c, "mutator": m, "count": n} for (k, c, m), n in sorted(report.tried.items())],
        "outcomes": {f"{k}.{o}": n for (k, o), n in sorted(report.outcomes.items())},
        "clean": {f"{k}: {key}": n for (k, key), n in sorted(report.clean_kinds.items())},
        "seconds": report.seconds,
        "busy_seconds": {f"{k}.{m}": round(s, 3) for (k, m), s in sorted(report.busy.items())},
        "findings": [{"kind": k, "outcome": o, "key": key, "count": f.count, "message": f.message,
                      "corpus": f.corpus, "mutator": f.mutator, "mutation": f.note,
                      "repro": _show(f.repro if f.repro is not None else f.data, 4000) if k == "ir" else None}
                     for (k, o, key), f in sorted(report.findings.items())],
    }


def save_findings(report: Report, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for index, ((kind, outcome, key), finding) in enumerate(sorted(report.findings.items())):
        suffix = "mlir" if kind == "ir" else "texport"
        stem = re.sub(r"[^\w.-]+", "_", f"{index:03d}-{kind}-{outcome}-{key}")[:120]
        (folder / f"{stem}.{suffix}").write_bytes(finding.repro if finding.repro is not None else finding.data)


# ==========================================================================
# Entry point
# ==========================================================================


def run(seed: int = 0, ir: int = 1000, archives: int = 100, workers: int = 2, timeout: float = 2.0,
        memory: int = 2 << 30, minimize_budget: float = 0.0, models: Iterable[str] | None = None,
        targets: dict[str, Target] | None = None, progress: int = 0) -> Report:
    """Build the corpora, run the campaign, minimize the findings; the Report."""
    programs = exported_programs(models)
    ir_corpus = lit_texts() + program_texts(programs)
    archive_corpus = program_archives(programs) if archives else []
    op_names()  # before forking: the workers need none, the mutators do
    report = Report()
    with Pool(targets or {"ir": IR_TARGET, "archive": ARCHIVE_TARGET}, workers, timeout, memory) as pool:
        for kind, count, corpus, mutators in (("ir", ir, ir_corpus, IR_MUTATORS),
                                              ("archive", archives, archive_corpus, ARCHIVE_MUTATORS)):
            start = time.monotonic()
            campaign(pool, generate(seed, kind, count, corpus, mutators), report, progress)
            report.seconds[kind] = time.monotonic() - start
        if minimize_budget:
            minimize_findings(pool, report, minimize_budget)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ir", type=int, default=100_000, help="IR inputs (default: the issue's goal)")
    parser.add_argument("--archives", type=int, default=10_000, help="archives (default: the issue's goal)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds per input before it is a hang")
    parser.add_argument("--memory-mb", type=int, default=2048, help="address space each worker may add")
    parser.add_argument("--minimize", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--minimize-budget", type=float, default=20.0, help="seconds per finding")
    parser.add_argument("--models", nargs="*", help="zoo models for the corpora (default: all)")
    parser.add_argument("--save-findings", type=Path, help="write each finding's repro here")
    parser.add_argument("--json", type=Path, help="write the report as JSON here")
    parser.add_argument("--progress", type=int, default=1000, help="a stderr line every N inputs (0: none)")
    args = parser.parse_args(argv)
    report = run(args.seed, args.ir, args.archives, args.workers, args.timeout, args.memory_mb << 20,
                 args.minimize_budget if args.minimize else 0.0, args.models, progress=args.progress)
    print(format_report(report))
    if args.json:
        args.json.write_text(json.dumps(report_json(report), indent=1), encoding="utf-8")
    if args.save_findings:
        save_findings(report, args.save_findings)
    crashes = sum(report.count(kind, o) for kind in ("ir", "archive") for o in FINDINGS)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
