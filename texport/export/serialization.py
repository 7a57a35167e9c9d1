"""``save(ep, f)`` / ``load(f)``: an ExportedProgram as one zip archive.

Nothing in an archive is ever executed: the program is MLIR text (parsed and
verified), arrays are ``.npy`` members read without pickle, and everything
else is plain JSON. The .npy format has no bfloat16 (numpy reads ml_dtypes'
back as raw ``|V2``), so a bfloat16 array is stored as its bits, ``uint16``,
and the manifest's dtype says how to read them. Members are stored uncompressed, like torch's ``.pt2``::

    program.mlir                       the module, with op locations (print(ep) shows `# code:`)
    data/weights/weight_<i>.npy        state_dict: parameters and persistent buffers
    data/constants/constant_<i>.npy    non-persistent buffers and lifted constants
    data/example_inputs/input_<i>.npy  the tensors of ep.example_inputs
    extra/<i>                          extra_files, as torch.export.save's
    manifest.json                      written last; lists every other member with its sha256

The manifest (``FORMAT_VERSION`` 1)::

    {"format": "texport", "format_version": 1, "dialect": "TRAINING",
     "members": {"program.mlir": {"sha256": "…", "size": 1234}, …},
     "program": "program.mlir",
     "signature": {"inputs": [{"kind": "PARAMETER", "arg": {"tensor": "p_conv_weight"},
                               "target": "conv.weight", "persistent": null}, …],
                   "outputs": [{"kind": "USER_OUTPUT", "arg": {"tensor": "batch_norm"},
                                "target": null}]},
     "in_spec": <spec>, "out_spec": <spec>,
     "user_input_paths": ["x"], "input_constants": {"flag": 2},
     "forward_signature": [{"name": "x", "kind": "POSITIONAL_OR_KEYWORD"}],
     "range_constraints": {"s0": [2, 64], "2*s0": [4, 128]},
     "int_input_paths": ["n"],
     "runtime_guards": [{"lhs": "(s0 % 2)", "op": "==", "rhs": "0"}],
     "module_call_graph": [{"fqn": "", "signature": {"inputs": [<arg>…], "outputs": […],
                            "in_spec": <spec>, "out_spec": <spec>, "forward_arg_names": ["x"]}},
                           {"fqn": "conv", "signature": null}, …],
     "submodule_calls": [{"fqn": "conv", "signature": {…as above…}}, …],
     "state_dict": [{"name": "conv.weight", "member": "data/weights/weight_0.npy",
                     "dtype": "float32", "shape": [3, 1, 1, 1], "parameter": true,
                     "requires_grad": true}, …],
     "constants": [...as state_dict...],
     "example_inputs": {"spec": <spec>, "leaves": [{"tensor": {...array...}} | {"value": 3}]},
     "extra_files": {"note.txt": "extra/0"}}

A pytree ``<spec>`` is ``"*"`` for a leaf, else ``{"type": NAME, "context": …,
"children": [<spec>, …]}`` where NAME is the node's serialized type name
(``builtins.tuple``, ``builtins.list``, ``builtins.dict``,
``collections.namedtuple``, ``collections.OrderedDict``,
``collections.defaultdict``, ``collections.deque``) or, for a registered
dataclass or custom node, its ``serialized_type_name`` or else
``module.qualname``. Scalars that JSON cannot hold exactly are objects:
``{"float": "nan"}``, ``{"complex": [re, im]}``; infinite range bounds are
``"oo"`` / ``"-oo"``. Dims and guards are text in the IR's dim grammar, parsed by
``parse_dim`` (no eval). A reader accepts ``format_version`` up to its own and
refuses newer archives; add a field -> bump the version.

An archive is untrusted input. ``load`` checks the zip directory before reading
anything (one entry per name, every member stored and inside the file, no two
overlapping, sizes as the manifest says), bounds the manifest's size and nesting
before decoding it, checks every field's type and value (dims through the IR's bounded ``parse_dim``),
reads each member at
most once and an ``.npy`` member's data only after its header fits the member:
loading holds at most the archive's bytes plus the parsed program, and any
fault is a SerializationError naming the member and the manifest field.
``save`` to a path writes a fresh temporary file (``mkstemp``: exclusive, not
through links) next to the target, fsyncs it and renames it over the target.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import io
import json
import keyword
import math
import os
import re
import struct
import sys
import tempfile
import tokenize
import warnings
import zipfile
from collections import Counter, OrderedDict, defaultdict, deque, namedtuple
from pathlib import Path
from typing import IO, Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.printer import Printer

from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.context import parse_module, verify_module
from texport.dialects.dtypes import DType
from texport.dialects.symbolic import DimSyntaxError, dim_str, parse_dim, relation_name, relation_of
from texport.dialects.tx import PREDICATES, TensorType
from texport.interpreter.dtypes import from_numpy, to_numpy
from texport.tracer import pytree
from texport.tracer.export import TracedProgram
from texport.tracer.module_calls import ModuleCallEntry, ModuleCallSignature
from texport.tracer.nn.module import Parameter
from texport.tracer.shape_env import ValueRange
from texport.tracer.signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
)
from texport.tracer.tensor import Tensor

from . import _archive_bounds as _bounds
from .program import ExportedProgram
from .verifier import VERIFIERS

__all__ = ["FORMAT_VERSION", "SerializationError", "load", "save"]

FORMAT = "texport"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
PROGRAM = "program.mlir"
# A fixed timestamp: saving one program twice gives byte-identical archives.
_DATE_TIME = (1980, 1, 1, 0, 0, 0)
_NPY_MAGIC = b"\x93NUMPY"
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a zip local file header (APPNOTE 4.3.7)

Where = str | os.PathLike | IO[bytes]


class SerializationError(ValueError):
    """A program that cannot be saved, or an archive that cannot be loaded.

    The message names the file and the member (or manifest field) at fault."""


class _FieldError(Exception):
    """A manifest field that is missing or malformed; load() names the file."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"field '{field}' {problem}")


# ==========================================================================
# save
# ==========================================================================


def save(ep: ExportedProgram, f: Where, *, extra_files: dict[str, str | bytes] | None = None) -> None:
    """Write ``ep`` to ``f`` (a path or a binary file object) as one zip archive.

    Everything is converted before anything is written, so a program that cannot
    be saved raises SerializationError and leaves no file behind."""
    arrays: list[tuple[str, np.ndarray]] = []
    manifest = _manifest(ep, arrays)
    extras = {name: _extra_bytes(name, content) for name, content in (extra_files or {}).items()}
    text = _program_text(ep.graph_module.module).encode("utf-8")
    if not isinstance(f, (str, os.PathLike)):
        _write(f, manifest, text, arrays, extras)
        return
    replace_atomically(Path(f), lambda out: _write(out, manifest, text, arrays, extras))


def replace_atomically(path: Path, write: Any) -> None:
    """Write ``path`` through a temporary file that only this call can have made (an
    unpredictable name, created exclusively, links not followed: a planted link
    cannot redirect the write), synced before it replaces ``path``. Any failure,
    KeyboardInterrupt included, removes it and leaves the old ``path`` as it was."""
    folder = path.absolute().parent
    fd, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            if hasattr(os, "fchmod"):  # not on Windows, where mode bits mean little
                os.fchmod(out.fileno(), 0o666 & ~_umask())
            os.fsync(out.fileno())
        os.replace(partial, path)  # readers never see a half-written archive
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    _fsync_folder(folder)


def _umask() -> int:
    """The process's umask, so mkstemp's 0o600 becomes what open() gives. Linux shows
    it in /proc; elsewhere it can only be read by setting it (briefly, process-wide)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable; some systems cannot open or sync a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _program_text(module: ModuleOp) -> str:
    """The module with op locations, so a loaded program's listing keeps `# code:` lines."""
    stream = io.StringIO()
    Printer(stream=stream, print_debuginfo=True).print_op(module)
    return stream.getvalue()


def _extra_bytes(name: Any, content: str | bytes) -> bytes:
    if not isinstance(name, str):
        raise SerializationError(f"cannot save extra file {name!r}: its name is not a str")
    if isinstance(content, str):
        return content.encode("utf-8")
    if isinstance(content, (bytes, bytearray)):
        return bytes(content)
    raise SerializationError(f"cannot save extra file {name!r}: expected str or bytes, "
                             f"got {type(content).__name__}")


def _manifest(ep: ExportedProgram, arrays: list[tuple[str, np.ndarray]]) -> dict[str, Any]:
    traced = ep._traced
    in_spec, out_spec = ep.call_spec
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "dialect": ep.dialect,
        "program": PROGRAM,
        "signature": _signature_to_json(ep.graph_signature),
        "in_spec": _spec_to_json(in_spec, "in_spec"),
        "out_spec": _spec_to_json(out_spec, "out_spec"),
        "user_input_paths": list(traced.user_input_paths),
        "input_constants": {path: _scalar_to_json(value, f"input constant {path}")
                            for path, value in traced.input_constants.items()},
        "forward_signature": _forward_signature_to_json(traced.forward_signature),
        "range_constraints": _ranges_to_json(ep.range_constraints),
        "int_input_paths": sorted(traced.int_input_paths),
        "runtime_guards": [_guard_to_json(guard) for guard in traced.runtime_guards],
        "module_call_graph": [_call_entry_to_json(entry) for entry in traced.module_call_graph],
        "submodule_calls": [_call_entry_to_json(ModuleCallEntry(fqn, signature))
                            for fqn, signature in traced.submodule_calls.items()],
        "state_dict": _tensors_to_json(ep.state_dict, "data/weights/weight", "state_dict", arrays),
        "constants": _tensors_to_json(ep.constants, "data/constants/constant", "constant", arrays),
        "example_inputs": _example_inputs_to_json(ep.example_inputs, arrays),
    }


def _write(out: Path | IO[bytes], manifest: dict[str, Any], text: bytes,
           arrays: list[tuple[str, np.ndarray]], extras: dict[str, bytes]) -> None:
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        members: dict[str, dict[str, Any]] = {}
        members[PROGRAM] = _add_member(archive, PROGRAM, [text])
        for name, array in arrays:
            members[name] = _add_member(archive, name, _npy_chunks(array))
        manifest["extra_files"] = {}
        for index, (name, content) in enumerate(extras.items()):
            member = f"extra/{index}"
            members[member] = _add_member(archive, member, [content])
            manifest["extra_files"][name] = member
        manifest["members"] = members
        _add_member(archive, MANIFEST, [json.dumps(manifest, indent=1).encode("utf-8")])


def _add_member(archive: zipfile.ZipFile, name: str, chunks: list[Any]) -> dict[str, Any]:
    """Write one stored member from ``chunks`` (no joined copy of a large array)."""
    info = zipfile.ZipInfo(name, date_time=_DATE_TIME)
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = sum(len(chunk) for chunk in chunks)  # decides zip64 up front
    digest = hashlib.sha256()
    with archive.open(info, "w") as member:
        for chunk in chunks:
            member.write(chunk)
            digest.update(chunk)
    return {"sha256": digest.hexdigest(), "size": info.file_size}


# How .npy stores a dtype it has no name for: bfloat16 as its 16 bits.
_NPY_STORAGE = {DType.bfloat16: np.dtype(np.uint16)}


def _npy_chunks(array: np.ndarray) -> list[Any]:
    """An .npy file (format 1.0) as header bytes and a view of the array's bytes."""
    array = array if array.flags.c_contiguous else array.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)
    array = array.view(_NPY_STORAGE.get(from_numpy(array.dtype), array.dtype))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(array))
    return [header.getvalue(), memoryview(array.reshape(-1).view(np.uint8))]


# --------------------------------------------------------------------------
# To JSON
# --------------------------------------------------------------------------


def _scalar_to_json(value: Any, where: str) -> Any:
    """A Python constant as JSON that reads back equal and of the same type."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if type(value) is complex:
        return {"complex": [repr(value.real), repr(value.imag)]}
    raise SerializationError(
        f"cannot save {where}: {type(value).__name__} {value!r} is not a plain constant "
        "(None, bool, int, float, complex or str)"
    )


def _tensor_meta(tensor: Tensor, member: str) -> dict[str, Any]:
    return {"member": member, "dtype": tensor._dtype.torch_name, "shape": list(tensor._value.shape),
            "requires_grad": bool(tensor.requires_grad)}


def _tensors_to_json(tensors: dict[str, Any], prefix: str, what: str,
                     arrays: list[tuple[str, np.ndarray]]) -> list[dict[str, Any]]:
    entries = []
    for index, (name, tensor) in enumerate(tensors.items()):
        if not isinstance(tensor, Tensor) or not isinstance(tensor._value, np.ndarray):
            raise SerializationError(f"cannot save {what} {name!r}: {type(tensor).__name__} is not a Tensor")
        member = f"{prefix}_{index}.npy"
        arrays.append((member, tensor._value))
        entries.append({"name": name, **_tensor_meta(tensor, member),
                        "parameter": isinstance(tensor, Parameter)})
    return entries


def _example_inputs_to_json(example: Any, arrays: list[tuple[str, np.ndarray]]) -> Any:
    if example is None:
        return None
    leaves, spec = pytree.tree_flatten(example)
    out = []
    for index, leaf in enumerate(leaves):
        if isinstance(leaf, Tensor):
            member = f"data/example_inputs/input_{index}.npy"
            arrays.append((member, leaf._value))
            out.append({"tensor": _tensor_meta(leaf, member)})
        else:
            out.append({"value": _scalar_to_json(leaf, f"example input leaf {index}")})
    return {"spec": _spec_to_json(spec, "example_inputs"), "leaves": out}


def _arg_to_json(arg: Any, where: str) -> dict[str, Any]:
    if isinstance(arg, ConstantArgument):
        return {"constant": {"name": arg.name, "value": _scalar_to_json(arg.value, where)}}
    if type(arg) is TensorArgument:
        return {"tensor": arg.name}
    if type(arg) is SymIntArgument:
        return {"symint": arg.name}
    raise SerializationError(f"cannot save {where}: argument type {type(arg).__name__} is not supported")


def _call_entry_to_json(entry: ModuleCallEntry) -> dict[str, Any]:
    sig = entry.signature
    if sig is None:
        return {"fqn": entry.fqn, "signature": None}
    where = f"module call signature of {entry.fqn!r}"
    return {"fqn": entry.fqn, "signature": {
        "inputs": [_arg_to_json(a, where) for a in sig.inputs],
        "outputs": [_arg_to_json(a, where) for a in sig.outputs],
        "in_spec": _spec_to_json(sig.in_spec, where), "out_spec": _spec_to_json(sig.out_spec, where),
        "forward_arg_names": sig.forward_arg_names}}


def _signature_to_json(signature: ExportGraphSignature) -> dict[str, Any]:
    inputs = [{"kind": s.kind.name, "arg": _arg_to_json(s.arg, f"input {s.arg.name!r}"),
               "target": s.target, "persistent": s.persistent} for s in signature.input_specs]
    outputs = [{"kind": s.kind.name, "arg": _arg_to_json(s.arg, f"output {s.arg.name!r}"),
                "target": s.target} for s in signature.output_specs]
    return {"inputs": inputs, "outputs": outputs}


def _forward_signature_to_json(signature: inspect.Signature | None) -> Any:
    """Names, kinds and defaults: what ep.module() needs to bind a call like forward."""
    if signature is None:
        return None
    entries = []
    for param in signature.parameters.values():
        entry: dict[str, Any] = {"name": param.name, "kind": param.kind.name}
        if param.default is not inspect.Parameter.empty:
            try:
                entry["default"] = {"value": _scalar_to_json(param.default, "")}
            except SerializationError:  # binding never reads a default: its text is enough
                entry["default"] = {"repr": repr(param.default)}
        entries.append(entry)
    return entries


def _bound_to_json(bound: Any) -> Any:
    if bound is None:
        return None
    if bound in (sympy.oo, math.inf):
        return "oo"
    if bound in (-sympy.oo, -math.inf):
        return "-oo"
    if not (isinstance(bound, (int, sympy.Integer)) or getattr(bound, "is_Integer", False)):
        raise SerializationError(f"cannot save range bound {bound!r}: not an integer")
    return int(bound)


def _ranges_to_json(ranges: dict[Any, Any]) -> dict[str, list[Any]]:
    """``{s0: VR[2, 64], 2*s0: VR[4, 128]}`` as ``{"s0": [2, 64], "2*s0": [4, 128]}``."""
    return {dim_str(key): [_bound_to_json(low), _bound_to_json(high)]
            for key, (low, high) in ranges.items()}


_PREDICATE_OF_TEXT = {text: name for name, text in PREDICATES.items()}  # "==" -> "eq"


def _guard_to_json(guard: Any) -> dict[str, str]:
    """A runtime guard (``Eq(Mod(s0, 2), 0)``) as ``{"lhs": "(s0 % 2)", "op": "==", "rhs": "0"}``."""
    name = relation_name(guard)
    if name is None:
        raise SerializationError(f"cannot save runtime guard {guard!r}: not a relation")
    return {"lhs": dim_str(guard.lhs), "op": PREDICATES[name], "rhs": dim_str(guard.rhs)}


# --------------------------------------------------------------------------
# Pytree specs <-> JSON
# --------------------------------------------------------------------------

_SAFE_FACTORIES: dict[str, Any] = {
    f"builtins.{t.__name__}": t for t in (list, dict, set, tuple, int, float, str, bool)
} | {"collections.OrderedDict": OrderedDict}
_FACTORY_NAMES = {factory: name for name, factory in _SAFE_FACTORIES.items()}


def _type_name(node_type: Any) -> str:
    node = pytree.SUPPORTED_NODES[node_type]
    return node.serialized_type_name or f"{node_type.__module__}.{node_type.__qualname__}"


def _spec_to_json(spec: pytree.TreeSpec, where: str) -> Any:
    if spec.is_leaf():
        return "*"
    return {"type": _type_name(spec.type),
            "context": _context_to_json(spec.type, spec.context, where),
            "children": [_spec_to_json(child, where) for child in spec.children_specs]}


def _context_to_json(node_type: Any, context: Any, where: str) -> Any:
    if node_type in (tuple, list):
        return None
    if node_type in (dict, OrderedDict):
        return [_scalar_to_json(key, f"{where}: dict key") for key in context]
    if node_type is defaultdict:
        factory, keys = context
        if factory is not None and factory not in _FACTORY_NAMES:
            raise SerializationError(f"cannot save {where}: defaultdict factory {factory!r} has no saved form")
        return {"default_factory": _FACTORY_NAMES.get(factory),
                "keys": _context_to_json(dict, keys, where)}
    if node_type is namedtuple:
        return {"name": context.__name__, "module": context.__module__,
                "qualname": context.__qualname__, "fields": list(context._fields)}
    if node_type is deque:
        return context
    return _custom_context_to_json(node_type, context, where)


def _custom_context_to_json(node_type: Any, context: Any, where: str) -> Any:
    """A registered node's context: its to_dumpable_context form, or plain JSON as is."""
    node = pytree.SUPPORTED_NODES[node_type]
    data = node.to_dumpable_context(context) if node.to_dumpable_context else context
    try:
        exact = json.loads(json.dumps(data)) == data
    except (TypeError, ValueError):
        exact = False
    if not exact:
        raise SerializationError(
            f"cannot save {where}: the context {data!r} of pytree node {_type_name(node_type)} is "
            "not plain JSON; register the type with to_dumpable_context/from_dumpable_context"
        )
    return data


def _spec_from_json(data: Any, field: str, depth: int = 0) -> pytree.TreeSpec:
    if data == "*":
        return pytree.treespec_leaf()
    if depth >= _bounds.MAX_SPEC_DEPTH:
        raise _FieldError(field, f"nests pytree nodes more than {_bounds.MAX_SPEC_DEPTH} deep")
    if not isinstance(data, dict) or set(data) != {"type", "context", "children"} \
            or not isinstance(data["type"], str) or not isinstance(data["children"], list):
        raise _FieldError(field, "is not a pytree spec (\"*\" or {type, context, children})")
    node_type = _node_type_named(data["type"], field)
    context = _context_from_json(node_type, data["context"], field)
    children = [_spec_from_json(child, field, depth + 1) for child in data["children"]]
    keys = _context_keys(node_type, context)
    if keys is not None and len(keys) != len(children):
        raise _FieldError(field, f"has a {data['type']} node with {len(keys)} keys but "
                          f"{len(children)} children")
    return pytree.TreeSpec(node_type, context, children)


def _context_keys(node_type: Any, context: Any) -> Any:
    """What a built-in node's children line up with (None: any number of children)."""
    if node_type in (dict, OrderedDict):
        return context
    if node_type is defaultdict:
        return context[1]
    if node_type is namedtuple:
        return context._fields
    return None


def _node_type_named(name: str, field: str) -> Any:
    """The registered node type saved as ``name``: looked up, never imported."""
    for node_type, node in pytree.SUPPORTED_NODES.items():
        if node.serialized_type_name == name:
            return node_type
    for node_type in pytree.SUPPORTED_NODES:
        if f"{getattr(node_type, '__module__', '')}.{getattr(node_type, '__qualname__', '')}" == name:
            return node_type
    raise _FieldError(field, f"uses pytree node type '{name}', which is not registered in this "
                      "process: register it (texport.utils._pytree.register_dataclass or "
                      "register_pytree_node) before load()")


def _context_from_json(node_type: Any, data: Any, field: str) -> Any:
    if node_type in (tuple, list):
        return None
    if node_type in (dict, OrderedDict):
        if not isinstance(data, list):
            raise _FieldError(field, "has a dict node whose context is not a list of keys")
        return [_scalar_from_json(key, field) for key in data]
    if node_type is defaultdict:
        if not isinstance(data, dict) or data.get("default_factory") not in (None, *_SAFE_FACTORIES):
            raise _FieldError(field, "has a defaultdict node with an unknown default_factory")
        factory = data["default_factory"]
        return [_SAFE_FACTORIES.get(factory), _context_from_json(dict, data.get("keys"), field)]
    if node_type is namedtuple:
        return _namedtuple_from_json(data, field)
    if node_type is deque:
        if data is not None and type(data) is not int:
            raise _FieldError(field, "has a deque node whose maxlen is not an integer")
        return data
    node = pytree.SUPPORTED_NODES[node_type]
    if node.from_dumpable_context is None:
        return data
    try:
        return node.from_dumpable_context(data)
    except Exception as err:  # noqa: BLE001 - the registering code decides what it accepts
        raise _FieldError(field, f"has a context {_shown(data)} that {_type_name(node_type)}'s "
                          f"from_dumpable_context refuses ({type(err).__name__}: {err})") from err


def _namedtuple_from_json(data: Any, field: str) -> type:
    keys = {"name", "module", "qualname", "fields"}
    if not isinstance(data, dict) or set(data) != keys or not isinstance(data["fields"], list) \
            or not all(isinstance(data[k], str) for k in keys - {"fields"}):
        raise _FieldError(field, "has a namedtuple node without name, module, qualname and fields")
    names = [data["name"], *data["fields"]]
    if not all(isinstance(n, str) and n.isidentifier() and not keyword.iskeyword(n) for n in names):
        raise _FieldError(field, f"has a namedtuple node with invalid names {names!r}")
    return _namedtuple_class(data["module"], data["qualname"], data["name"], tuple(data["fields"]))


@functools.cache
def _namedtuple_class(module: str, qualname: str, name: str, fields: tuple[str, ...]) -> type:
    """The original class if its module is already imported (so specs compare equal and
    callers' instances match); else one new class per saved type, shared by every load."""
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = vars(found).get(part) if found is not None and hasattr(found, "__dict__") else None
    if pytree.is_namedtuple_class(found) and found._fields == fields:
        return found
    return namedtuple(name, fields, module=module)


# ==========================================================================
# load
# ==========================================================================


def load(f: Where, *, extra_files: dict[str, Any] | None = None) -> ExportedProgram:
    """Read an archive written by save(). Every member is checked (sha256, size, array
    shape and dtype against the IR) before use; a bad archive raises SerializationError.

    Nothing is read before its size is checked against the zip directory, the
    manifest and the file itself: members are stored, never inflated, so loading
    takes at most the archive's size plus the parsed program."""
    where = str(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", "<stream>")
    try:
        archive = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, EOFError, ValueError, OverflowError, struct.error) as err:
        raise SerializationError(f"cannot load {where}: not a texport archive (truncated, or "
                                 f"not a zip file: {err})") from err
    except NotImplementedError as err:  # zipfile's word for a version it cannot read
        raise SerializationError(f"cannot load {where}: not a texport archive (its zip directory "
                                 f"asks for a zip feature texport never writes: {err})") from err
    with archive:
        reader = _Reader(archive, where)
        manifest = reader.manifest()
        try:
            return _rebuild(reader, manifest, extra_files)
        except _FieldError as err:
            raise reader.error(MANIFEST, str(err)) from err.__cause__


class _Reader:
    """Reads members of one archive, each checked against the manifest's sha256 and size.

    The zip directory is checked whole first: one entry per name, every member
    stored (not compressed, not encrypted), its bytes inside the file and apart
    from every other member's, so no member can be read twice or inflated."""

    def __init__(self, archive: zipfile.ZipFile, where: str) -> None:
        self.archive, self.where = archive, where
        self.members: dict[str, dict[str, Any]] = {}
        self.spans: dict[str, tuple[int, int]] = {}  # name -> (data offset, size)
        self.used: set[str] = set()  # members read: each once, so loading holds each once
        self._index()

    def error(self, member: str, problem: str) -> SerializationError:
        return SerializationError(f"cannot load {self.where}: member '{member}' {problem}")

    def _index(self) -> None:
        infos = self.archive.infolist()
        counts = Counter(info.filename for info in infos)
        for name, count in counts.items():
            if count > 1:
                raise self.error(name, f"appears {count} times in the zip directory (a modified "
                                 "archive: which copy is meant is ambiguous)")
        end = self._file_size()
        for info in infos:
            self.spans[info.filename] = self._span(info, end)
        previous_end, previous = 0, None
        for name, (offset, size) in sorted(self.spans.items(), key=lambda item: item[1]):
            if offset < previous_end:
                raise self.error(name, f"overlaps member '{previous}' in the file (a modified archive)")
            previous_end, previous = offset + size, name

    def _file_size(self) -> int:
        try:
            return self.archive.fp.seek(0, os.SEEK_END)
        except (OSError, ValueError) as err:
            raise SerializationError(f"cannot load {self.where}: the file cannot be read ({err})") from err

    def _span(self, info: zipfile.ZipInfo, end: int) -> tuple[int, int]:
        """Where a member's bytes are, checked against the directory and the file's size."""
        name = info.filename
        if info.compress_type != zipfile.ZIP_STORED:
            raise self.error(name, f"is compressed (zip method {info.compress_type}); texport "
                             "stores every member uncompressed (a modified archive): refused")
        if info.flag_bits & 0x1:
            raise self.error(name, "is encrypted: refused")
        if info.compress_size != info.file_size:
            raise self.error(name, f"is stored in {info.compress_size} bytes but says it holds "
                             f"{info.file_size} (a corrupt or modified archive)")
        fp = self.archive.fp
        try:
            fp.seek(info.header_offset)
            header = fp.read(_LOCAL_HEADER.size)
        except (OSError, ValueError) as err:
            raise self.error(name, f"cannot be read ({err})") from err
        if len(header) != _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
            raise self.error(name, "has no local file header where the zip directory says "
                             "(truncated or corrupt archive)")
        name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
        start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
        if start + info.file_size > end:
            raise self.error(name, f"says it holds {info.file_size} bytes at offset {start}, past "
                             f"the end of the {end}-byte file (truncated or modified archive)")
        return start, info.file_size

    def manifest(self) -> dict[str, Any]:
        if MANIFEST not in self.spans:
            raise SerializationError(f"cannot load {self.where}: not a texport archive (no {MANIFEST})")
        size = self.spans[MANIFEST][1]
        if size > _bounds.MAX_MANIFEST_BYTES:
            raise self.error(MANIFEST, f"is {size} bytes (at most {_bounds.MAX_MANIFEST_BYTES}): refused")
        manifest = self._json(self._bytes(MANIFEST))
        try:
            _check_format(manifest, self.where)
            self.members = _members_table(manifest)
        except _FieldError as err:
            raise self.error(MANIFEST, str(err)) from err.__cause__
        for name in sorted((set(self.spans) ^ set(self.members)) - {MANIFEST}):
            problem = "is missing (truncated or modified archive)" if name in self.members else \
                "is not listed in the manifest (modified archive)"
            raise self.error(name, problem)
        for name, entry in self.members.items():  # sizes are claims: compared before reading
            if self.spans[name][1] != entry["size"]:
                raise self.error(name, f"has {self.spans[name][1]} bytes where the manifest says "
                                 f"{entry['size']} (truncated or modified archive)")
        return manifest

    def _json(self, data: bytearray) -> Any:
        """The manifest's JSON, its nesting bounded before json's recursive decoder runs."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise self.error(MANIFEST, f"is not UTF-8 text ({err})") from err
        depth = _bounds.json_depth(text)
        if depth > _bounds.MAX_JSON_DEPTH:
            raise self.error(MANIFEST, f"nests arrays and objects {depth} deep (at most "
                             f"{_bounds.MAX_JSON_DEPTH}): not a texport manifest")
        try:
            return json.loads(text)
        except ValueError as err:  # JSONDecodeError, or an integer past Python's digit limit
            raise self.error(MANIFEST, f"is not valid JSON ({err})") from err

    def read(self, name: str) -> bytearray:
        if name in self.used:
            raise self.error(name, "is referenced twice by the manifest (save() writes one member "
                             "per array and file)")
        self.used.add(name)
        data = self._bytes(self._listed(name))
        if hashlib.sha256(data).hexdigest() != self.members[name]["sha256"]:
            raise self.error(name, "does not match its sha256 in the manifest (corrupt or modified archive)")
        return data

    def head(self, name: str, size: int) -> bytes:
        """The first ``size`` bytes of a listed member (an .npy header), unverified."""
        total = self.spans[self._listed(name)][1]
        return bytes(self._bytes(name, min(size, total)))

    def _listed(self, name: str) -> str:
        if name not in self.members:
            raise self.error(name, "is referenced by the manifest but not listed in its members")
        return name

    def _bytes(self, name: str, size: int | None = None) -> bytearray:
        """A member's bytes (or its first ``size``) in a writable buffer, read straight
        from the file: one copy; the sha256 check covers what zipfile's CRC would."""
        offset, total = self.spans[name]
        data = bytearray(total if size is None else size)
        fp = self.archive.fp
        try:
            fp.seek(offset)
            count = fp.readinto(data)
        except (OSError, ValueError) as err:
            raise self.error(name, f"cannot be read (truncated or corrupt archive: {err})") from err
        if count != len(data):
            raise self.error(name, "ends early (truncated archive)")
        return data


def _check_format(manifest: Any, where: str) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _FieldError("format", f"is not {FORMAT!r}: not a texport archive")
    version = manifest.get("format_version")
    if type(version) is not int or version < 1:
        raise _FieldError("format_version", f"is {version!r}, not a positive integer")
    if version > FORMAT_VERSION:
        raise SerializationError(
            f"cannot load {where}: it was written by a newer texport (archive format version "
            f"{version}; this texport reads versions up to {FORMAT_VERSION}). Upgrade texport to load it."
        )


_SHA256 = re.compile(r"[0-9a-f]{64}")
# A member path as save() writes them: relative, '/'-separated, no '.', '..' or empty parts.
_MEMBER_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*")


def _members_table(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    members = _get(manifest, "members", dict)
    for name, entry in members.items():
        if not _MEMBER_NAME.fullmatch(name) or name == MANIFEST:
            raise _FieldError(f"members.{name}", "is not a member name save() writes (a relative "
                              "path of letters, digits, '_', '-' and '.', other than manifest.json)")
        if not isinstance(entry, dict) or set(entry) != {"sha256", "size"} \
                or not isinstance(entry["sha256"], str) or not _SHA256.fullmatch(entry["sha256"]) \
                or type(entry["size"]) is not int or entry["size"] < 0:
            raise _FieldError(f"members.{name}", "is not {sha256: 64 hex digits, size: int >= 0}")
    return members


def _get(data: dict[str, Any], key: str, kind: type | tuple[type, ...], field: str | None = None) -> Any:
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, kind) or (kind is int and type(value) is bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise _FieldError(field or key, f"is missing or not a {names}")
    return value


# --------------------------------------------------------------------------
# Rebuilding the ExportedProgram
# --------------------------------------------------------------------------


def _rebuild(reader: _Reader, manifest: dict[str, Any], extra_files: dict[str, Any] | None) -> ExportedProgram:
    dialect = _get(manifest, "dialect", str)
    if dialect not in VERIFIERS:
        raise _FieldError("dialect", f"is {_shown(dialect)}, not one of {', '.join(VERIFIERS)}")
    module, func = _parse_program(reader, _get(manifest, "program", str))
    signature = _signature_from_json(_get(manifest, "signature", dict))
    _check_signature(signature, func, reader)
    types = _state_types(signature, func)
    state_dict = _tensors_from_json(reader, _get(manifest, "state_dict", list), "state_dict", types)
    constants = _tensors_from_json(reader, _get(manifest, "constants", list), "constants", types)
    _check_state_complete(signature, state_dict, constants, reader)
    traced = TracedProgram(
        module=module, signature=signature, state_dict=state_dict, constants=constants,
        in_spec=_spec_from_json(manifest.get("in_spec"), "in_spec"),
        out_spec=_spec_from_json(manifest.get("out_spec"), "out_spec"),
        example_inputs=_example_inputs_from_json(reader, manifest.get("example_inputs")),
        user_input_paths=_string_list(manifest, "user_input_paths"),
        range_constraints=_ranges_from_json(_get(manifest, "range_constraints", dict)),
        int_input_paths=set(_string_list(manifest, "int_input_paths")),
        runtime_guards=[_guard_from_json(guard, f"runtime_guards[{index}]")
                        for index, guard in enumerate(_get(manifest, "runtime_guards", list))],
        input_constants={path: _scalar_from_json(v, f"input_constants.{path}")
                         for path, v in _get(manifest, "input_constants", dict).items()},
        forward_signature=_forward_signature_from_json(manifest.get("forward_signature")),
        module_call_graph=[_call_entry_from_json(entry, f"module_call_graph[{index}]")
                           for index, entry in enumerate(_optional_list(manifest, "module_call_graph"))],
        submodule_calls={entry.fqn: entry.signature for entry in (
            _call_entry_from_json(data, f"submodule_calls[{index}]")
            for index, data in enumerate(_optional_list(manifest, "submodule_calls")))},
    )
    _check_calling_convention(traced)
    _read_extra_files(reader, _get(manifest, "extra_files", dict), extra_files)
    return ExportedProgram(traced, dialect=dialect)


def _check_calling_convention(traced: TracedProgram) -> None:
    """The fields a call is bound, flattened and answered with must agree with each other."""
    _check_outputs(traced)
    user_inputs = sum(1 for spec in traced.signature.input_specs
                      if spec.kind is InputKind.USER_INPUT and not isinstance(spec.arg, ConstantArgument))
    if len(traced.user_input_paths) != user_inputs:
        raise _FieldError("user_input_paths", f"has {len(traced.user_input_paths)} paths for the "
                          f"{user_inputs} user inputs of signature.inputs")
    if traced.forward_signature is None:
        return
    if traced.in_spec.type is not dict:
        raise _FieldError("in_spec", "is not a builtins.dict node of forward's arguments")
    unknown = [key for key in traced.in_spec.context if key not in traced.forward_signature.parameters]
    if unknown:
        raise _FieldError("in_spec", f"names {_shown(unknown[0])}, which is not a parameter of "
                          f"forward_signature ({', '.join(traced.forward_signature.parameters) or 'none'})")


_WRITE_BACKS = (OutputKind.BUFFER_MUTATION, OutputKind.USER_INPUT_MUTATION)


def _check_outputs(traced: TracedProgram) -> None:
    """out_spec holds the user's outputs; a buffer mutation writes back into a buffer."""
    specs = traced.signature.output_specs
    returned = sum(1 for spec in specs if spec.kind not in _WRITE_BACKS)
    if traced.out_spec.num_leaves != returned:
        raise _FieldError("out_spec", f"holds {traced.out_spec.num_leaves} leaves for the {returned} "
                          "returned outputs of signature.outputs")
    buffers = {spec.target for spec in traced.signature.input_specs if spec.kind is InputKind.BUFFER}
    for index, spec in enumerate(specs):
        if spec.kind is OutputKind.BUFFER_MUTATION and spec.target not in buffers:
            raise _FieldError(f"signature.outputs[{index}].target", f"is {_shown(spec.target)}, "
                              "not a buffer among signature.inputs")


def _optional_list(manifest: dict[str, Any], key: str) -> list[Any]:
    return _get(manifest, key, list) if key in manifest else []


_CUSTOM_OP_HINT = ("\n(a custom op is defined by the code that registers it: import that "
                   "module before load())")


def _parse_program(reader: _Reader, member: str) -> tuple[ModuleOp, FuncOp]:
    size = reader.members.get(member, {}).get("size", 0)
    if size > _bounds.MAX_PROGRAM_BYTES:
        raise reader.error(member, f"is {size} bytes of IR text (at most {_bounds.MAX_PROGRAM_BYTES}): refused")
    try:
        text = reader.read(member).decode("utf-8")
    except UnicodeDecodeError as err:
        raise reader.error(member, f"is not UTF-8 text ({err})") from err
    try:
        module = parse_module(text, name=member)  # a fresh context knows the custom ops defined so far
    except Exception as err:  # noqa: BLE001 - any failure on untrusted text is "does not parse"
        hint = _CUSTOM_OP_HINT if "is not registered" in str(err) else ""
        raise reader.error(member, f"does not parse:\n{err}{hint}") from err
    try:
        verify_module(module)
    except Exception as err:  # noqa: BLE001 - xDSL raises several verifier exception types
        raise reader.error(member, f"does not verify:\n{err}") from err
    funcs = [op for op in module.ops if isinstance(op, FuncOp)]
    if len(funcs) != 1:
        raise reader.error(member, f"holds {len(funcs)} func.func ops; a program has exactly one")
    return module, funcs[0]


def _scalar_from_json(data: Any, field: str) -> Any:
    if data is None or type(data) in (bool, int, str, float):
        return data
    if isinstance(data, dict) and set(data) == {"float"} and data["float"] in ("nan", "inf", "-inf"):
        return float(data["float"])
    if isinstance(data, dict) and set(data) == {"complex"} and isinstance(data["complex"], list) \
            and len(data["complex"]) == 2 and all(isinstance(p, str) for p in data["complex"]):
        try:
            return complex(float(data["complex"][0]), float(data["complex"][1]))
        except ValueError:
            pass
    raise _FieldError(field, f"is {data!r}, not a saved constant")


def _string_list(manifest: dict[str, Any], key: str) -> list[str]:
    values = _get(manifest, key, list)
    if not all(isinstance(v, str) for v in values):
        raise _FieldError(key, "is not a list of strings")
    return list(values)


def _call_entry_from_json(data: Any, field: str) -> ModuleCallEntry:
    fqn = _get(data, "fqn", str, f"{field}.fqn")
    sig = data.get("signature")
    if sig is None:
        return ModuleCallEntry(fqn)
    names = sig.get("forward_arg_names") if isinstance(sig, dict) else None
    if names is not None and not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
        raise _FieldError(f"{field}.signature.forward_arg_names", "is not a list of strings or null")
    return ModuleCallEntry(fqn, ModuleCallSignature(
        [_arg_from_json(a, f"{field}.inputs[{i}]", unnamed=True)
         for i, a in enumerate(_get(sig, "inputs", list, f"{field}.inputs"))],
        [_arg_from_json(a, f"{field}.outputs[{i}]", unnamed=True)
         for i, a in enumerate(_get(sig, "outputs", list, f"{field}.outputs"))],
        _spec_from_json(sig.get("in_spec"), f"{field}.in_spec"),
        _spec_from_json(sig.get("out_spec"), f"{field}.out_spec"),
        names))


# An IR value name as xDSL accepts it: arguments name IR values, never paths or code.
_VALUE_NAME = re.compile(r"[A-Za-z_$.-][A-Za-z0-9_$.-]*")


def _arg_from_json(data: Any, field: str, *, unnamed: bool = False) -> Any:
    """An argument; ``unnamed`` allows an empty name (a module call's value that the
    program no longer holds)."""
    if isinstance(data, dict) and len(data) == 1:
        (key, value), = data.items()
        if key in ("tensor", "symint") and isinstance(value, str) and not _VALUE_NAME.fullmatch(value) \
                and not (unnamed and value == ""):
            raise _FieldError(f"{field}.{key}", f"is {_shown(value)}, not an IR value name")
        if key == "tensor" and isinstance(value, str):
            return TensorArgument(value)
        if key == "symint" and isinstance(value, str):
            return SymIntArgument(value)
        if key == "constant" and isinstance(value, dict) and set(value) == {"name", "value"} \
                and isinstance(value["name"], str) and len(value["name"]) <= _MAX_NAME:
            return ConstantArgument(value["name"], _scalar_from_json(value["value"], field))
    raise _FieldError(field, f"is {_shown(data)}, not a {{tensor|symint|constant: ...}} argument")


_MAX_NAME = 4096  # characters of any name in the manifest


def _shown(value: Any) -> str:
    """A manifest value in an error message, cut short (it may be huge)."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _keyed(field: str, key: str) -> str:
    """The field of a JSON object's key (``range_constraints.s0``), a long key cut short."""
    return f"{field}.{key if len(key) <= 80 else _shown(key)}"


def _kind(enum_type: Any, data: dict[str, Any], field: str) -> Any:
    name = data.get("kind") if isinstance(data, dict) else None
    if not isinstance(name, str) or name not in enum_type.__members__:
        raise _FieldError(f"{field}.kind", f"is {_shown(name)}, not one of {', '.join(enum_type.__members__)}")
    return enum_type[name]


def _optional(data: dict[str, Any], key: str, kind: type, field: str) -> Any:
    value = data.get(key)
    if value is not None and type(value) is not kind:
        raise _FieldError(f"{field}.{key}", f"is {_shown(value)}, not a {kind.__name__} or null")
    return value


def _target(data: dict[str, Any], field: str) -> str | None:
    """A state_dict key (``conv.weight``) or a submodule path: non-empty when given."""
    target = _optional(data, "target", str, field)
    if target is not None and not 0 < len(target) <= _MAX_NAME:
        raise _FieldError(f"{field}.target", f"is {_shown(target)}, not a non-empty name")
    return target


def _signature_from_json(data: dict[str, Any]) -> ExportGraphSignature:
    inputs, outputs = [], []
    for i, spec in enumerate(_get(data, "inputs", list, "signature.inputs")):
        field = f"signature.inputs[{i}]"
        inputs.append(InputSpec(_kind(InputKind, spec, field), _arg_from_json(spec.get("arg"), f"{field}.arg"),
                                _target(spec, field),
                                _optional(spec, "persistent", bool, field)))
    for i, spec in enumerate(_get(data, "outputs", list, "signature.outputs")):
        field = f"signature.outputs[{i}]"
        outputs.append(OutputSpec(_kind(OutputKind, spec, field), _arg_from_json(spec.get("arg"), f"{field}.arg"),
                                  _target(spec, field)))
    return ExportGraphSignature(inputs, outputs)


def _check_signature(signature: ExportGraphSignature, func: FuncOp, reader: _Reader) -> None:
    """The manifest's signature must describe program.mlir's arguments and results."""
    names = [arg.name_hint for arg in func.body.block.args]
    expected = [s.arg.name for s in signature.input_specs if not isinstance(s.arg, ConstantArgument)]
    if names != expected:
        index = next((i for i, pair in enumerate(zip(names, expected)) if pair[0] != pair[1]),
                     min(len(names), len(expected)))
        says = f"'{expected[index]}'" if index < len(expected) else "nothing"
        has = f"%{names[index]}" if index < len(names) else "no argument"
        raise reader.error(MANIFEST, f"field 'signature.inputs' names argument #{index} {says}, "
                           f"but in {PROGRAM} it is {has} ({len(expected)} vs {len(names)} arguments)")
    returned = func.body.block.last_op
    count = len(returned.operands) if isinstance(returned, ReturnOp) else 0
    outputs = sum(1 for s in signature.output_specs if not isinstance(s.arg, ConstantArgument))
    if count != outputs:
        raise reader.error(MANIFEST, f"field 'signature.outputs' has {outputs} non-constant "
                           f"outputs, but {PROGRAM} returns {count} values")


_STATE_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)


def _state_types(signature: ExportGraphSignature, func: FuncOp) -> dict[str, tuple[str, Any]]:
    """target -> (IR argument name, its type), for parameters, buffers and constants."""
    args = iter(func.body.block.args)
    types = {}
    for spec in signature.input_specs:
        if isinstance(spec.arg, ConstantArgument):
            continue
        arg = next(args)
        if spec.kind in _STATE_KINDS and spec.target is not None:
            types[spec.target] = (arg.name_hint, arg.type)
    return types


def _tensors_from_json(reader: _Reader, entries: list[Any], what: str,
                       types: dict[str, tuple[str, Any]]) -> dict[str, Tensor]:
    tensors = {}
    for index, entry in enumerate(entries):
        field = f"{what}[{index}]"
        name = _get(entry, "name", str, f"{field}.name")
        if not 0 < len(name) <= _MAX_NAME or name in tensors:
            raise _FieldError(f"{field}.name", f"is {_shown(name)}: "
                              + ("a second entry of that name" if name in tensors else "not a name"))
        tensor = _read_tensor(reader, entry, field)
        if name in types:
            _check_ir_type(reader, entry["member"], tensor, *types[name], name)
        if _get(entry, "parameter", bool, f"{field}.parameter"):
            tensor = Parameter(tensor, requires_grad=tensor.requires_grad)
        tensors[name] = tensor
    return tensors


def _read_tensor(reader: _Reader, entry: Any, field: str) -> Tensor:
    member = _get(entry, "member", str, f"{field}.member")
    dtype_name = _get(entry, "dtype", str, f"{field}.dtype")
    if dtype_name not in DType.__members__:
        raise _FieldError(f"{field}.dtype", f"is {_shown(dtype_name)}, not a texport dtype")
    dtype = DType[dtype_name]
    shape = tuple(_get(entry, "shape", list, f"{field}.shape"))
    if len(shape) > _bounds.MAX_NPY_DIMS or not all(type(d) is int and d >= 0 for d in shape):
        raise _FieldError(f"{field}.shape", f"is {_shown(list(shape))}, not a list of at most "
                          f"{_bounds.MAX_NPY_DIMS} sizes >= 0")
    requires_grad = _get(entry, "requires_grad", bool, f"{field}.requires_grad")
    start, stored_shape, fortran, stored = _npy_layout(reader, member)
    expected = _NPY_STORAGE.get(dtype, to_numpy(dtype))
    if stored != expected or stored_shape != shape:  # checked before the data is read
        shown = dtype.torch_name if stored == expected else stored
        raise reader.error(member, f"holds {shown}{list(stored_shape)} where the manifest "
                           f"says {dtype.torch_name}{list(shape)}")
    array = np.frombuffer(reader.read(member), stored, math.prod(shape), start)
    array = array.reshape(shape[::-1]).T if fortran else array.reshape(shape)
    return Tensor._make(array.view(to_numpy(dtype)), dtype, requires_grad)


def _npy_layout(reader: _Reader, member: str) -> tuple[int, tuple[int, ...], bool, np.dtype]:
    """(data offset, shape, fortran order, dtype) of an .npy member, from its header
    alone (numpy's literal-only reader), checked against the member's size before any
    data is read; object arrays, which need pickle, are refused."""
    head = reader.head(member, 12 + _bounds.MAX_NPY_HEADER_BYTES)
    if head[:6] != _NPY_MAGIC or len(head) < 12 or head[6] not in (1, 2):
        raise reader.error(member, "is not a .npy array (format 1.0 or 2.0)")
    width = 2 if head[6] == 1 else 4
    start = 8 + width + int.from_bytes(head[8:8 + width], "little")
    if start > len(head):
        raise reader.error(member, f"has a .npy header of {start - 8 - width} bytes (at most "
                           f"{_bounds.MAX_NPY_HEADER_BYTES}, within the member)")
    read_header = np.lib.format.read_array_header_1_0 if head[6] == 1 else np.lib.format.read_array_header_2_0
    try:
        with warnings.catch_warnings(record=True) as warned:  # numpy warns on a Python 2 header
            warnings.simplefilter("always")
            shape, fortran, dtype = read_header(io.BytesIO(head[8:start]))
    except (ValueError, TypeError, SyntaxError, tokenize.TokenError) as err:  # numpy's literal reader
        raise reader.error(member, f"has a bad .npy header ({err})") from err
    if warned:
        raise reader.error(member, f"has a .npy header save() never writes ({warned[0].message})")
    if dtype.hasobject:
        raise reader.error(member, "holds Python objects (loading them needs pickle): refused")
    if len(shape) > _bounds.MAX_NPY_DIMS or not all(type(d) is int and d >= 0 for d in shape):
        raise reader.error(member, f"has .npy shape {_shown(shape)}: not at most "
                           f"{_bounds.MAX_NPY_DIMS} sizes >= 0")
    if dtype.itemsize * math.prod(max(d, 1) for d in shape) > sys.maxsize:  # numpy could not index it
        raise reader.error(member, f"has .npy shape {_shown(shape)}: too large to address")
    size = dtype.itemsize * math.prod(shape)
    payload = reader.members[member]["size"] - start
    if payload != size:
        raise reader.error(member, f"has {payload} data bytes for {dtype}{list(shape)} ({size} expected)")
    return start, tuple(shape), bool(fortran), dtype


def _check_ir_type(reader: _Reader, member: str, tensor: Tensor, arg_name: str, arg_type: Any,
                   target: str) -> None:
    """An array must fit the IR argument that receives it (static dims compared)."""
    if not isinstance(arg_type, TensorType):
        raise reader.error(member, f"is a tensor but IR argument %{arg_name} ({target!r}) is {arg_type}")
    shape = tensor._value.shape
    fits = tensor._dtype is arg_type.dtype and len(shape) == len(arg_type.shape) and all(
        type(d) is not int or d == n for d, n in zip(arg_type.shape, shape))
    if not fits:
        raise reader.error(member, f"holds {tensor._dtype.ir_name}{list(shape)} but IR argument "
                           f"%{arg_name} ({target!r}) is {arg_type}")


def _check_state_complete(signature: ExportGraphSignature, state_dict: dict[str, Tensor],
                          constants: dict[str, Tensor], reader: _Reader) -> None:
    for spec in signature.input_specs:
        if spec.kind in _STATE_KINDS and spec.target not in state_dict and spec.target not in constants:
            raise reader.error(MANIFEST, f"lists no array for IR argument %{spec.arg.name} "
                               f"({spec.kind.name} {spec.target!r}) in state_dict or constants")


def _example_inputs_from_json(reader: _Reader, data: Any) -> Any:
    if data is None:
        return None
    spec = _spec_from_json(data.get("spec") if isinstance(data, dict) else None, "example_inputs.spec")
    leaves = []
    for index, leaf in enumerate(_get(data, "leaves", list, "example_inputs.leaves")):
        field = f"example_inputs.leaves[{index}]"
        if isinstance(leaf, dict) and "tensor" in leaf:
            leaves.append(_read_tensor(reader, leaf["tensor"], f"{field}.tensor"))
        elif isinstance(leaf, dict) and "value" in leaf:
            leaves.append(_scalar_from_json(leaf["value"], f"{field}.value"))
        else:
            raise _FieldError(field, "is neither {tensor: ...} nor {value: ...}")
    if len(leaves) != spec.num_leaves:
        raise _FieldError("example_inputs.leaves", f"has {len(leaves)} leaves; its spec holds {spec.num_leaves}")
    return pytree.tree_unflatten(leaves, spec)


_PARAMETER_KINDS = {kind.name: kind for kind in (
    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD)}


class _SavedDefault:
    """A default value kept as its text: binding a call never reads it."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _forward_signature_from_json(data: Any) -> inspect.Signature | None:
    if data is None:
        return None
    if not isinstance(data, list):
        raise _FieldError("forward_signature", "is not a list of parameters")
    params = []
    for index, entry in enumerate(data):
        field = f"forward_signature[{index}]"
        name = _get(entry, "name", str, f"{field}.name")
        if not name.isidentifier() or keyword.iskeyword(name):
            raise _FieldError(f"{field}.name", f"is {_shown(name)}, not a Python parameter name")
        kind = _PARAMETER_KINDS.get(entry["kind"]) if isinstance(entry.get("kind"), str) else None
        if kind is None:
            raise _FieldError(f"{field}.kind", f"is {_shown(entry.get('kind'))}, not a parameter kind")
        default = _default_from_json(entry.get("default", inspect.Parameter.empty), field)
        try:
            params.append(inspect.Parameter(name, kind, default=default))
        except ValueError as err:
            raise _FieldError(field, str(err)) from err
    try:
        return inspect.Signature(params)
    except ValueError as err:
        raise _FieldError("forward_signature", str(err)) from err


def _default_from_json(data: Any, field: str) -> Any:
    if data is inspect.Parameter.empty:
        return data
    if isinstance(data, dict) and set(data) == {"value"}:
        return _scalar_from_json(data["value"], f"{field}.default")
    if isinstance(data, dict) and set(data) == {"repr"} and isinstance(data["repr"], str):
        return _SavedDefault(data["repr"])
    raise _FieldError(f"{field}.default", "is neither {value: ...} nor {repr: ...}")


def _bound_from_json(data: Any, infinity: str, field: str) -> Any:
    """A range bound: an integer, null, or the infinity on its side ("-oo" low, "oo" high)."""
    if data is None or type(data) is int:
        return data
    if data == infinity:
        return sympy.oo if infinity == "oo" else -sympy.oo
    raise _FieldError(field, f"has bound {_shown(data)}, not an integer, \"{infinity}\" or null")


def _ranges_from_json(data: dict[str, Any]) -> dict[Any, ValueRange]:
    """``{"s0": [2, 64]}`` -> ``{s0: VR[2, 64]}``; keys parse as IR dims (one symbol factory)."""
    ranges = {}
    for text, bounds in data.items():
        field = _keyed("range_constraints", text)
        if not isinstance(bounds, list) or len(bounds) != 2:
            raise _FieldError(field, "is not [low, high]")
        low, high = _bound_from_json(bounds[0], "-oo", field), _bound_from_json(bounds[1], "oo", field)
        if type(low) is int and type(high) is int and low > high:
            raise _FieldError(field, f"has low bound {low} above high bound {high}")
        ranges[_dim_from_json(text, field)] = ValueRange(low, high)
    return ranges


def _dim_from_json(text: str, field: str) -> Any:
    """A dim in the IR's grammar, through the IR's own bounded parser (length, nesting,
    terms, degree, divisions and integers all checked before sympy builds it)."""
    try:
        return parse_dim(text)
    except DimSyntaxError as err:
        raise _FieldError(field, f"is not a dim expression: {_shown(text)} {err}") from err


def _guard_from_json(data: Any, field: str) -> Any:
    """Sides parse with the IR's dim grammar (names, integers, + - * // % **, Max/Min):
    the executor turns guards into checks, so nothing else may get in."""
    if not isinstance(data, dict) or set(data) != {"lhs", "op", "rhs"} \
            or not isinstance(data["op"], str) or data["op"] not in _PREDICATE_OF_TEXT \
            or not isinstance(data["lhs"], str) or not isinstance(data["rhs"], str):
        raise _FieldError(field, "is not {lhs, op, rhs} with op one of == != < <= > >=")
    lhs, rhs = _dim_from_json(data["lhs"], f"{field}.lhs"), _dim_from_json(data["rhs"], f"{field}.rhs")
    try:
        return relation_of(_PREDICATE_OF_TEXT[data["op"]])(lhs, rhs, evaluate=False)
    except (TypeError, ArithmeticError) as err:
        raise _FieldError(field, f"is not a relation between dims ({err})") from err


def _read_extra_files(reader: _Reader, stored: dict[str, Any], wanted: dict[str, Any] | None) -> None:
    """torch.export.load's extra_files: fill the caller's dict for the names it holds.
    Every listed member must be read by now or be an extra file: nothing rides along."""
    for name, member in stored.items():
        if not isinstance(member, str) or member not in reader.members or member in reader.used:
            raise _FieldError(_keyed("extra_files", name), f"is {_shown(member)}, not a member of "
                              "its own in members")
    for member in sorted(set(reader.members) - reader.used - set(stored.values())):
        raise reader.error(member, "is listed in the manifest's members but nothing refers to it "
                           "(a modified archive)")
    for name in wanted or {}:
        if name not in stored:
            raise SerializationError(f"cannot load {reader.where}: no extra file {name!r} "
                                     f"(it has {sorted(stored) or 'none'})")
        data = reader.read(_get(stored, name, str, f"extra_files.{name}"))
        try:
            wanted[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            wanted[name] = bytes(data)
