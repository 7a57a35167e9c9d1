"""save/load: exact round trips (text, arrays, calling convention, outputs) for the
zoo at every level that exists, pytree and dynamic-shape programs, and a clear
SerializationError for each kind of bad archive."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import sys
import zipfile
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from models import ZOO  # noqa: E402

import texport as torch  # noqa: E402
from texport.export.serialization import (  # noqa: E402
    FORMAT_VERSION,
    MANIFEST,
    PROGRAM,
    SerializationError,
    load,
    save,
)
from texport.tracer.export import TracedProgram  # noqa: E402
from texport.utils import _pytree as pytree  # noqa: E402

LEVELS = ("training", "functional", "core")


def _at_level(ep: Any, level: str) -> Any:
    if level == "training":
        return ep
    try:
        return ep.run_decompositions(decomp_table={} if level == "functional" else None)
    except ModuleNotFoundError as err:
        if not (err.name or "").startswith("texport.lowering"):
            raise
        pytest.skip(f"{level} level not available yet ({err.name} missing)")


def _saved(ep: Any, **kwargs: Any) -> bytes:
    buffer = io.BytesIO()
    save(ep, buffer, **kwargs)
    return buffer.getvalue()


def _loaded(data: bytes, **kwargs: Any) -> Any:
    return load(io.BytesIO(data), **kwargs)


def _leaves(tree: Any) -> list[Any]:
    return pytree.tree_leaves(tree)


def _assert_same_tensors(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert list(a) == list(b)
    for name in a:
        x, y = a[name], b[name]
        assert type(x) is type(y) and x._dtype is y._dtype and x.requires_grad == y.requires_grad, name
        assert x._value.dtype == y._value.dtype and x._value.shape == y._value.shape, name
        assert x._value.tobytes() == y._value.tobytes(), name  # bit-identical


def _assert_same_program(ep: Any, loaded: Any) -> None:
    """Every field of the TracedProgram comes back (a new field fails here until saved)."""
    assert loaded.mlir() == ep.mlir() and loaded.mlir(generic=True) == ep.mlir(generic=True)
    assert str(loaded) == str(ep)  # listing (with `# code:` lines), signature, ranges
    assert loaded.dialect == ep.dialect
    for field in dataclasses.fields(TracedProgram):
        mine, theirs = getattr(ep._traced, field.name), getattr(loaded._traced, field.name)
        if field.name == "module":
            continue
        if field.name in ("state_dict", "constants"):
            _assert_same_tensors(mine, theirs)
        elif field.name == "example_inputs":
            spec_a, spec_b = pytree.tree_structure(mine), pytree.tree_structure(theirs)
            assert spec_a == spec_b
            for x, y in zip(_leaves(mine), _leaves(theirs)):
                assert x.tobytes() == y.tobytes() if isinstance(x, np.ndarray) else \
                    (x._value.tobytes() == y._value.tobytes() if hasattr(x, "_value") else x == y)
        else:
            assert mine == theirs, field.name


def _assert_same_outputs(ep: Any, loaded: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> None:
    kwargs = kwargs or {}
    want, got = ep.module()(*args, **kwargs), loaded.module()(*args, **kwargs)
    assert pytree.tree_structure(want) == pytree.tree_structure(got)
    for a, b in zip(_leaves(want), _leaves(got)):
        if hasattr(a, "numpy"):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        else:
            assert a == b


# --------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo_round_trip(name: str, level: str) -> None:
    model, args = ZOO[name]()
    model.eval()
    ep = _at_level(torch.export.export(model, args), level)
    data = _saved(ep)
    loaded = _loaded(data)
    _assert_same_program(ep, loaded)
    _assert_same_outputs(ep, loaded, args)
    assert _saved(loaded) == data  # save(load(f)) gives f back, byte for byte


def test_train_mode_buffers_update_after_load() -> None:
    model, args = ZOO["ConvBN"]()
    ep = torch.export.export(model, args)
    loaded = _loaded(_saved(ep))
    reference, exported = ep.module(), loaded.module()
    for _ in range(2):
        _assert_close_leaves(reference(*args), exported(*args))
    for (fqn, a), (_, b) in zip(reference.named_buffers(), exported.named_buffers()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=fqn)


def _assert_close_leaves(a: Any, b: Any) -> None:
    for x, y in zip(_leaves(a), _leaves(b)):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_loaded_program_lowers_further() -> None:
    model, args = ZOO["ConvBN"]()
    ep = torch.export.export(model, args)
    loaded = _loaded(_saved(ep))
    core = _at_level(loaded, "core")
    assert core.mlir() == _at_level(ep, "core").mlir()
    _assert_close_leaves(_at_level(ep, "core").module()(*args), core.module()(*args))


def test_saving_twice_gives_the_same_bytes_and_files_work(tmp_path: Path) -> None:
    model, args = ZOO["TinyLSTM"]()
    ep = torch.export.export(model, args)
    save(ep, tmp_path / "a.texport")
    save(ep, str(tmp_path / "b.texport"))
    assert (tmp_path / "a.texport").read_bytes() == (tmp_path / "b.texport").read_bytes()
    _assert_same_program(ep, load(tmp_path / "a.texport"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.texport", "b.texport"]


def test_members_are_stored_npy_files_readable_without_pickle() -> None:
    model, args = ZOO["ConvBN"]()
    ep = torch.export.export(model, args)
    with zipfile.ZipFile(io.BytesIO(_saved(ep))) as archive:
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
        manifest = json.loads(archive.read(MANIFEST))
        assert manifest["format_version"] == FORMAT_VERSION and manifest["dialect"] == "TRAINING"
        for entry in manifest["state_dict"]:
            array = np.load(io.BytesIO(archive.read(entry["member"])), allow_pickle=False)
            assert array.tobytes() == ep.state_dict[entry["name"]]._value.tobytes()
        assert archive.read(PROGRAM).decode().startswith("builtin.module")


@dataclass
class Pair:
    t: Any
    scale: float


pytree.register_dataclass(Pair)
Out = namedtuple("Out", ["total", "parts"])


class PytreeModel(torch.nn.Module):
    def forward(self, inp, d, flag=None, *rest, bias, **extra):
        x = inp["x"] + inp["others"][0] * d.scale
        y = inp["others"][1] - bias
        return Out(total=x.sum() + y.sum(), parts=[x, None, y])


def _pytree_program() -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    args = ({"x": torch.ones(3), "others": [torch.ones(3), torch.zeros(3)]}, Pair(torch.ones(2), 2.0))
    kwargs = {"bias": torch.ones(3)}
    return torch.export.export(PytreeModel(), args, kwargs), args, kwargs


def test_pytree_inputs_outputs_and_calling_convention_round_trip() -> None:
    ep, args, kwargs = _pytree_program()
    loaded = _loaded(_saved(ep))
    _assert_same_program(ep, loaded)
    _assert_same_outputs(ep, loaded, args, kwargs)
    out = loaded.module()(*args, **kwargs)
    assert type(out) is Out  # the class is found again, so callers' types match
    assert str(loaded._traced.forward_signature) == "(inp, d, flag=None, *rest, bias, **extra)"
    with pytest.raises(AssertionError, match="Guard failed: d.scale == 2.0"):
        loaded.module()(args[0], Pair(torch.ones(2), 3.0), **kwargs)


def test_namedtuple_of_an_unimported_module_is_rebuilt_by_name() -> None:
    ep, args, kwargs = _pytree_program()
    data = _rewrite(_saved(ep), lambda m, _: _replace_in(m, "out_spec", '"module": "test_serialization"',
                                                         '"module": "nowhere_imported_xyz"'))
    loaded = _loaded(data)
    out = loaded.module()(*args, **kwargs)
    assert type(out) is not Out and type(out).__name__ == "Out" and out._fields == ("total", "parts")
    assert "nowhere_imported_xyz" not in sys.modules  # looked up, never imported
    assert type(_loaded(data).module()(*args, **kwargs)) is type(out)  # one class per saved type


def test_unregistered_dataclass_is_a_clear_error() -> None:
    ep, _, _ = _pytree_program()
    data = _saved(ep)
    pytree._deregister_pytree_node(Pair)
    try:
        with pytest.raises(SerializationError, match=r"field 'in_spec' uses pytree node type "
                           r"'test_serialization.Pair', which is not registered"):
            _loaded(data)
    finally:
        pytree.register_dataclass(Pair)


def test_dynamic_shapes_ranges_and_runtime_guards_round_trip() -> None:
    model, args = ZOO["GPT4"]()
    ep = torch.export.export(model, args, dynamic_shapes={"x": {0: torch.export.Dim("batch", max=1024)}})
    loaded = _loaded(_saved(ep))
    _assert_same_program(ep, loaded)
    x = torch.randn(3, *args[0].shape[1:])
    _assert_same_outputs(ep, loaded, (x,))
    with pytest.raises(AssertionError, match=r"x.size\(\)\[0\] <= 1024"):
        loaded.module()(torch.randn(1025, *args[0].shape[1:]))


class Halves(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] > 10:
            return x.view(-1, 2)
        return x


def test_runtime_guards_are_checked_after_load() -> None:
    ep = torch.export.export(Halves(), (torch.ones(16),), dynamic_shapes={"x": (torch.export.Dim.AUTO,)})
    loaded = _loaded(_saved(ep))
    _assert_same_program(ep, loaded)
    assert list(loaded.module()(torch.ones(12)).shape) == [6, 2]
    with pytest.raises(AssertionError, match=r"\(x.size\(\)\[0\] % 2\) == 0"):
        loaded.module()(torch.ones(13))


class Scale(torch.nn.Module):
    def forward(self, x, n):
        return x * n


def test_symbolic_int_input_round_trip() -> None:
    ep = torch.export.export(Scale(), (torch.ones(3), 4),
                             dynamic_shapes={"x": None, "n": torch.export.Dim.DYNAMIC})
    loaded = _loaded(_saved(ep))
    _assert_same_program(ep, loaded)
    _assert_same_outputs(ep, loaded, (torch.ones(3), 7))


@pytest.fixture(scope="module")
def uses_tanh(restore_registries_after_module: None) -> torch.nn.Module:
    """A model calling a custom op (registered for this module's tests only)."""

    @torch.library.custom_op("serialization_test::numpy_tanh", mutates_args=())
    def numpy_tanh(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.tanh(x.numpy()))

    @numpy_tanh.register_fake
    def _(x):  # noqa: ANN001, ANN202
        return torch.empty_like(x)

    class UsesTanh(torch.nn.Module):
        def forward(self, x):
            return numpy_tanh(x) * 2

    return UsesTanh()


def test_custom_op_round_trip(uses_tanh: torch.nn.Module) -> None:
    ep = torch.export.export(uses_tanh, (torch.randn(3),))
    assert "training.serialization_test.numpy_tanh" in ep.mlir()
    loaded = _loaded(_saved(ep))
    _assert_same_program(ep, loaded)
    _assert_same_outputs(ep, loaded, (torch.randn(3),))


def test_unregistered_custom_op_is_a_clear_error(uses_tanh: torch.nn.Module) -> None:
    data = _rewrite(_saved(torch.export.export(uses_tanh, (torch.randn(3),))), lambda m, mem: mem.__setitem__(
        PROGRAM, mem[PROGRAM].replace(b"serialization_test.numpy_tanh", b"nowhere.numpy_tanh")))
    with pytest.raises(SerializationError, match=r"(?s)member 'program.mlir' does not parse:.*"
                       r"training.nowhere.numpy_tanh is not registered.*import that module before load"):
        _loaded(data)


def test_extra_files_round_trip() -> None:
    model, args = ZOO["ConvBN"]()
    data = _saved(torch.export.export(model, args), extra_files={"note.txt": "hello", "raw": b"\xff"})
    extra = {"note.txt": None, "raw": None}
    _loaded(data, extra_files=extra)
    assert extra == {"note.txt": "hello", "raw": b"\xff"}
    with pytest.raises(SerializationError, match="no extra file 'other'"):
        _loaded(data, extra_files={"other": None})


class TakesADtype(torch.nn.Module):
    def forward(self, x, dtype):
        return x.to(dtype)


def test_unsaveable_program_raises_and_leaves_no_file(tmp_path: Path) -> None:
    ep = torch.export.export(TakesADtype(), (torch.ones(2), torch.float64))
    with pytest.raises(SerializationError, match=r"cannot save input 'dtype': DType "
                       r"texport.float64 is not a plain constant"):
        save(ep, tmp_path / "p.texport")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------
# Bad archives
# --------------------------------------------------------------------------


def _conv_bn_archive() -> bytes:
    model, args = ZOO["ConvBN"]()
    return _saved(torch.export.export(model, args))


Edit = Callable[[dict[str, Any], dict[str, bytes]], None]


def _rewrite(data: bytes, edit: Edit, *, rehash: bool = True) -> bytes:
    """Rebuild an archive after ``edit(manifest, members)``; with ``rehash`` the manifest's
    sha256/size entries are made to match (a deliberate, consistent tampering)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    manifest = json.loads(members.pop(MANIFEST))
    edit(manifest, members)
    if rehash:
        manifest["members"] = {name: {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content)}
                               for name, content in members.items() if name in manifest["members"]}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
        archive.writestr(MANIFEST, json.dumps(manifest))
    return out.getvalue()


def _replace_in(manifest: dict[str, Any], key: str, old: str, new: str) -> None:
    text = json.dumps(manifest[key])
    assert old in text
    manifest[key] = json.loads(text.replace(old, new))


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def _weight(manifest: dict[str, Any], name: str) -> dict[str, Any]:
    return next(e for e in manifest["state_dict"] if e["name"] == name)


def _set(path: str, value: Any) -> Edit:
    def edit(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        *keys, last = path.split(".")
        target = manifest
        for key in keys:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[last] = value
    return edit


def _member(name: str, content: bytes) -> Edit:
    return lambda manifest, members: members.__setitem__(name, content)


BAD_ARCHIVES: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "newer format": (lambda d: _rewrite(d, _set("format_version", FORMAT_VERSION + 1)),
                     rf"written by a newer texport \(archive format version {FORMAT_VERSION + 1}; "
                     rf"this texport reads versions up to {FORMAT_VERSION}\)"),
    "not texport": (lambda d: _rewrite(d, _set("format", "pt2")), "field 'format' is not 'texport'"),
    "truncated": (lambda d: d[: len(d) // 2], r"not a texport archive \(truncated, or not a zip file"),
    "not a zip": (lambda d: b"hello", "not a texport archive"),
    "no manifest": (lambda d: _drop_manifest(d), r"not a texport archive \(no manifest.json\)"),
    "manifest not json": (lambda d: _replace_manifest(d, b"{oops"), "member 'manifest.json' is not valid JSON"),
    "tampered weight": (lambda d: _flip_byte(d, "data/weights/weight_0.npy"),
                        "member 'data/weights/weight_0.npy' does not match its sha256"),
    "missing member": (lambda d: _rewrite(d, lambda m, mem: mem.pop("data/weights/weight_1.npy"), rehash=False),
                       r"member 'data/weights/weight_1.npy' is missing \(truncated or modified archive\)"),
    "unlisted member": (lambda d: _rewrite(d, _member("evil.py", b"print(1)"), rehash=False),
                        "member 'evil.py' is not listed in the manifest"),
    "wrong size": (lambda d: _rewrite(d, lambda m, _: m["members"][PROGRAM].__setitem__("size", 3),
                                      rehash=False),
                   "member 'program.mlir' has .* bytes where the manifest says 3"),
    "mis-shaped array": (lambda d: _rewrite(d, _member("data/weights/weight_1.npy", _npy(np.zeros(4, np.float32)))),
                         r"member 'data/weights/weight_1.npy' holds float32\[4\] where the manifest says float32\[3\]"),
    "array against the IR": (lambda d: _rewrite(d, lambda m, mem: (
        mem.__setitem__("data/weights/weight_1.npy", _npy(np.zeros(4, np.float32))),
        _weight(m, "conv.bias").__setitem__("shape", [4]))),
        r"member 'data/weights/weight_1.npy' holds f32\[4\] but IR argument %p_conv_bias \('conv.bias'\) "
        r"is !tx.tensor<\[3\], f32>"),
    "wrong dtype": (lambda d: _rewrite(d, lambda m, mem: (
        mem.__setitem__("data/weights/weight_1.npy", _npy(np.zeros(3, np.float64))),
        _weight(m, "conv.bias").__setitem__("dtype", "float64"))),
        r"holds f64\[3\] but IR argument %p_conv_bias"),
    "missing array": (lambda d: _rewrite(d, lambda m, mem: m["state_dict"].pop(0)),
                      r"lists no array for IR argument %p_conv_weight \(PARAMETER 'conv.weight'\)"),
    "pickled array": (lambda d: _rewrite(d, _member("data/weights/weight_1.npy", _npy(np.array([None, 1, 2], dtype=object)))),
                      r"holds Python objects \(loading them needs pickle\): refused"),
    "not npy": (lambda d: _rewrite(d, _member("data/weights/weight_1.npy", b"garbage")),
                r"member 'data/weights/weight_1.npy' is not a .npy array"),
    "ir does not parse": (lambda d: _rewrite(d, _member(PROGRAM, b"builtin.module {\n  func.func @f(\n}")),
                          r"member 'program.mlir' does not parse:\n.*program.mlir:3"),
    "ir does not verify": (lambda d: _rewrite(d, lambda m, mem: mem.__setitem__(PROGRAM, mem[PROGRAM].replace(
        b"%conv2d = training.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[1, 3, 3, 3], f32>",
        b"%conv2d = training.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[1, 5, 3, 3], f32>"))),
        r"member 'program.mlir' does not verify"),
    "signature against the IR": (lambda d: _rewrite(d, _set("signature.inputs.0.arg", {"tensor": "p_w"})),
                                 r"field 'signature.inputs' names argument #0 'p_w', but in program.mlir it is %p_conv_weight"),
    "bad field": (lambda d: _rewrite(d, _set("state_dict.0.dtype", "float128")),
                  r"field 'state_dict\[0\].dtype' is 'float128', not a texport dtype"),
    "bad kind": (lambda d: _rewrite(d, _set("signature.outputs.0.kind", "LOSS")),
                 r"field 'signature.outputs\[0\].kind' is 'LOSS', not one of USER_OUTPUT"),
    "bad spec": (lambda d: _rewrite(d, _set("out_spec", {"type": "builtins.tuple"})),
                 r"field 'out_spec' is not a pytree spec"),
    "bad range": (lambda d: _rewrite(d, _set("range_constraints", {"s0 +": [1, 2]})),
                  r"field 'range_constraints.s0 \+' is not a dim expression"),
    "bad guard": (lambda d: _rewrite(d, _set("runtime_guards", [{"lhs": "__import__('os')", "op": "==", "rhs": "0"}])),
                  r"field 'runtime_guards\[0\].lhs' is not a dim expression"),
}


def _flip_byte(data: bytes, member: str) -> bytes:
    """Change one byte of a stored member in place (CRC and manifest untouched)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        info = archive.getinfo(member)
    offset = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.file_size - 1
    return data[:offset] + bytes([data[offset] ^ 1]) + data[offset + 1:]


def _drop_manifest(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            if name != MANIFEST:
                target.writestr(name, source.read(name))
    return out.getvalue()


def _replace_manifest(data: bytes, text: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            target.writestr(name, text if name == MANIFEST else source.read(name))
    return out.getvalue()


@pytest.mark.parametrize("case", sorted(BAD_ARCHIVES))
def test_bad_archive_is_a_clear_error(case: str) -> None:
    corrupt, message = BAD_ARCHIVES[case]
    with pytest.raises(SerializationError, match=message):
        _loaded(corrupt(_conv_bn_archive()))


def test_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.texport"
    path.write_bytes(_rewrite(_conv_bn_archive(), _set("format_version", 99)))
    with pytest.raises(SerializationError, match=rf"cannot load {path}: it was written by a newer texport"):
        load(path)


def test_a_valid_archive_loads_after_a_consistent_rewrite() -> None:
    """The rewriting helper itself keeps archives valid: the errors above are the edits'."""
    loaded = _loaded(_rewrite(_conv_bn_archive(), lambda m, mem: None))
    assert loaded.graph_signature.parameters == ("conv.weight", "conv.bias", "bn.weight", "bn.bias")
