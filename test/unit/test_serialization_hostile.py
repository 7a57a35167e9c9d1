"""Doctored archives (issue 17): every one ends in a SerializationError naming the
member and field, within a few seconds and without reading more than the archive
holds; and save() cannot be redirected by a planted link or leave a partial file.

Archives are rebuilt by a small zip writer here, so a test can state exactly what
the zip directory says (duplicate names, compression methods, sizes that lie)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import struct
import tracemalloc
import warnings
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bounded import finishes

import texport as torch
from texport.export import serialization
from texport.export.serialization import MANIFEST, PROGRAM, SerializationError, load, save

WEIGHT = "data/weights/weight_0.npy"
TIME_BOUND = 10.0  # seconds: "finishes and errors"; a refusal takes milliseconds, a load of these programs well under 1 s


class Scaled(torch.nn.Module):
    """A parameter, a dynamic dim with a range and a runtime guard (``s % 2 == 0``)."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(2))

    def forward(self, x):
        return x.view(-1, 2) * self.scale


@pytest.fixture(scope="module")
def program() -> Any:
    return torch.export.export(Scaled(), (torch.ones(16),), dynamic_shapes={"x": (torch.export.Dim.AUTO,)})


@pytest.fixture(scope="module")
def archive(program: Any) -> bytes:
    buffer = io.BytesIO()
    save(program, buffer)
    return buffer.getvalue()


# --------------------------------------------------------------------------
# A zip writer that writes what it is told
# --------------------------------------------------------------------------


@dataclass
class Member:
    name: str
    data: bytes  # as stored in the file (compressed or not)
    method: int = zipfile.ZIP_STORED
    size: int | None = None  # the uncompressed size the directory claims (default: len(data))
    crc: int | None = None
    stored_size: int | None = None  # the compressed size the directory claims (default: len(data))


_LOCAL = struct.Struct("<4s5H3L2H")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_END = struct.Struct("<4s4H2LH")


def raw_zip(members: list[Member]) -> bytes:
    out, central = bytearray(), bytearray()
    for m in members:
        name = m.name.encode()
        size = len(m.data) if m.size is None else m.size
        crc = zlib.crc32(m.data) if m.crc is None else m.crc
        stored = len(m.data) if m.stored_size is None else m.stored_size
        offset = len(out)
        out += _LOCAL.pack(b"PK\x03\x04", 20, 0, m.method, 0, 33, crc, stored, size, len(name), 0)
        out += name + m.data
        central += _CENTRAL.pack(b"PK\x01\x02", 20, 20, 0, m.method, 0, 33, crc, stored, size,
                                 len(name), 0, 0, 0, 0, 0, offset) + name
    end = _END.pack(b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(out), 0)
    return bytes(out + central + end)


def members_of(data: bytes) -> tuple[dict[str, Any], dict[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as source:
        members = {name: source.read(name) for name in source.namelist()}
    return json.loads(members.pop(MANIFEST)), members


def rebuilt(data: bytes, edit: Callable[[dict[str, Any], dict[str, bytes]], None],
            text_edit: Callable[[str], str] = str) -> bytes:
    """The archive after ``edit(manifest, members)`` (then ``text_edit`` on the manifest's
    JSON), the manifest's sha256/size entries made consistent (a deliberate tampering
    that passes the integrity checks)."""
    manifest, members = members_of(data)
    edit(manifest, members)
    manifest["members"] = {name: {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content)}
                           for name, content in members.items()}
    listed = [Member(name, content) for name, content in members.items()]
    return raw_zip([*listed, Member(MANIFEST, text_edit(json.dumps(manifest)).encode())])


def with_field(path: str, value: Any) -> Callable[[dict[str, Any], dict[str, bytes]], None]:
    def edit(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        *keys, last = path.split(".")
        target = manifest
        for key in keys:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[last] = value
    return edit


def loading(data: bytes) -> Any:
    """load() bounded in time: a hang fails the test instead of stalling it."""
    return finishes(lambda: load(io.BytesIO(data)), TIME_BOUND, "load()")


def refused(data: bytes, message: str) -> SerializationError:
    with pytest.raises(SerializationError, match=message) as caught:
        loading(data)
    return caught.value


def test_the_writer_itself_makes_loadable_archives(archive: bytes) -> None:
    """The doctoring helpers keep archives valid: each error below is its edit's."""
    loaded = loading(rebuilt(archive, lambda manifest, members: None))
    assert list(loaded.module()(torch.ones(6)).shape) == [3, 2]


# --------------------------------------------------------------------------
# The manifest, field by field
# --------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "value", "message"), [
    ("signature.inputs.0.kind", [], r"field 'signature.inputs\[0\].kind' is \[\], not one of USER_INPUT"),
    ("signature.outputs.0.kind", {"a": 1}, r"field 'signature.outputs\[0\].kind' is \{'a': 1\}"),
    ("forward_signature.0.kind", [], r"field 'forward_signature\[0\].kind' is \[\], not a parameter kind"),
    ("runtime_guards.0.op", [], r"field 'runtime_guards\[0\]' is not \{lhs, op, rhs\}"),
    ("dialect", "../../evil", r"field 'dialect' is '../../evil', not one of TRAINING, ATEN, INFERENCE"),
    ("signature.outputs.0.arg", {"tensor": ""}, r"field 'signature.outputs\[0\].arg.tensor' is '', not an IR value name"),
    ("signature.inputs.0.target", "", r"field 'signature.inputs\[0\].target' is '', not a non-empty name"),
    ("state_dict.0.shape", [-1, -3], r"field 'state_dict\[0\].shape' is \[-1, -3\], not a list of at most 32 sizes >= 0"),
    ("module_call_graph", 7, r"field 'module_call_graph' is missing or not a list"),
    ("module_call_graph.0.signature.forward_arg_names", [1], r"field 'module_call_graph\[0\].signature.forward_arg_names' is not a list of strings"),
    ("in_spec", {"type": "builtins.dict", "context": ["x", "y"], "children": ["*"]},
     r"field 'in_spec' has a builtins.dict node with 2 keys but 1 children"),
])
def test_malformed_field_is_named(archive: bytes, path: str, value: Any, message: str) -> None:
    refused(rebuilt(archive, with_field(path, value)), rf"member 'manifest.json' {message}")


def test_out_spec_must_hold_the_returned_outputs(archive: bytes) -> None:
    pair = {"type": "builtins.tuple", "context": None, "children": ["*", "*"]}
    refused(rebuilt(archive, with_field("out_spec", pair)),
            r"field 'out_spec' holds 2 leaves for the 1 returned outputs of signature.outputs")


def test_buffer_mutation_must_target_a_buffer(archive: bytes) -> None:
    def mutation(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        manifest["signature"]["outputs"][0].update(kind="BUFFER_MUTATION", target="nope")
        manifest["out_spec"] = {"type": "builtins.tuple", "context": None, "children": []}
    refused(rebuilt(archive, mutation), r"field 'signature.outputs\[0\].target' is 'nope', not a buffer")


def test_member_name_must_be_a_plain_relative_path(archive: bytes) -> None:
    def evil(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        members["../evil.npy"] = members.pop(WEIGHT)
        manifest["state_dict"][0]["member"] = "../evil.npy"
    refused(rebuilt(archive, evil), r"field 'members.../evil.npy' is not a member name save\(\) writes")


# --------------------------------------------------------------------------
# Dims: range keys and guard sides are bounded before sympy builds them
# --------------------------------------------------------------------------


def _range_key(key: str) -> Callable[[dict[str, Any], dict[str, bytes]], None]:
    return with_field("range_constraints", {key: [2, "oo"]})


@pytest.mark.parametrize(("text", "problem"), [
    ("3//0", "division by zero"),
    ("s77 % 0", "modulo by zero"),
    ("Mod(s77, (0))", "modulo by zero"),
    ("s77 % (s77 - s77)", "modulo by an expression that is zero"),
    ("1.5", "a dim is integral"),
    ("(s0+s1+s2+s3+1)**60", "more than the limit of 8"),
    ("s77**999999999", "gives degree 999999999, more than the limit of 8"),
    ("Mod((" + "+".join(f"s{i}" for i in range(22)) + ")*(" + "+".join(f"s{i}" for i in range(22, 44)) + "), s0+1)",
     "dim expands to more than 128 terms"),  # sympy: minutes
    ("1" * 40, "is not below 2**63"),
    ("s77 // ²", "unexpected character '²'"),
    ("s77" + "+s77" * 1100, "more than the limit of 4096"),
    ("(" * 250 + "s77" + ")" * 250, "nested more than 64 levels deep"),
    ("Max(" + ", ".join(f"s{i}*s{i+1}+{i}" for i in range(40)) + ")", "too costly to simplify: Max of 40 arguments"),
])
def test_range_key_is_bounded_before_sympy(archive: bytes, text: str, problem: str) -> None:
    error = refused(rebuilt(archive, _range_key(text)), r"field 'range_constraints\..*' is not a dim expression")
    assert problem in str(error)


@pytest.mark.parametrize("side", ["lhs", "rhs"])
@pytest.mark.parametrize(("text", "problem"), [
    ("3//0", "division by zero"),
    ("(s0+s1+s2+s3+1)**60", "more than the limit of 8"),
    ("1.5", "a dim is integral"),
])
def test_guard_side_is_bounded_before_sympy(archive: bytes, side: str, text: str, problem: str) -> None:
    error = refused(rebuilt(archive, with_field(f"runtime_guards.0.{side}", text)),
                    rf"field 'runtime_guards\[0\].{side}' is not a dim expression")
    assert problem in str(error)


def test_range_with_low_above_high_is_refused(archive: bytes) -> None:
    refused(rebuilt(archive, with_field("range_constraints", {"s77": [9, 3]})),
            r"field 'range_constraints.s77' has low bound 9 above high bound 3")


# --------------------------------------------------------------------------
# JSON nesting: bounded before json's recursive decoder runs
# --------------------------------------------------------------------------


def _replace_manifest(data: bytes, text: bytes) -> bytes:
    manifest, members = members_of(data)
    return raw_zip([*(Member(n, c) for n, c in members.items()), Member(MANIFEST, text)])


def test_manifest_of_brackets_is_refused_before_decoding(archive: bytes) -> None:
    refused(_replace_manifest(archive, b"[" * 100_000), r"member 'manifest.json' nests arrays and objects 100000 deep")


def test_deeply_nested_in_spec_is_refused(archive: bytes) -> None:
    deep = '{"type": "builtins.tuple", "context": null, "children": [' * 800 + '"*"' + "]}" * 800
    doctored = rebuilt(archive, with_field("in_spec", "DEEP"), lambda text: text.replace('"DEEP"', deep))
    refused(doctored, r"member 'manifest.json' nests arrays and objects 1601 deep")


def test_pytree_spec_depth_is_bounded_within_the_json_bound(archive: bytes) -> None:
    spec: Any = "*"
    for _ in range(61):
        spec = {"type": "builtins.tuple", "context": None, "children": [spec]}
    refused(rebuilt(archive, with_field("in_spec", spec)), r"field 'in_spec' nests pytree nodes more than 60 deep")


def test_brackets_inside_strings_do_not_count(archive: bytes) -> None:
    """Only structure counts: a deep-looking string is just a string (here, a bad kind)."""
    refused(rebuilt(archive, with_field("signature.outputs.0.kind", "[" * 1000 + '\\"{')),
            r"field 'signature.outputs\[0\].kind' is '\[\[\[")


def test_huge_integer_in_the_manifest_is_a_clean_error(archive: bytes) -> None:
    text = json.dumps(members_of(archive)[0]).replace('"format_version": 1', '"format_version": 1' + "0" * 5000)
    refused(_replace_manifest(archive, text.encode()), r"member 'manifest.json' is not valid JSON")


# --------------------------------------------------------------------------
# .npy headers: validated before any data is read
# --------------------------------------------------------------------------


def _npy_with_header(header: str, payload: bytes) -> bytes:
    text = header.encode("latin1")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + payload


@pytest.mark.parametrize(("shape", "message"), [
    ((-1, -3), r"has .npy shape \(-1, -3\): not at most 32 sizes >= 0"),
    ((2**32, 2**32, 0), r"has .npy shape \(4294967296, 4294967296, 0\): too large to address"),
    ((2**28,), r"has 8 data bytes for float32\[268435456\] \(1073741824 expected\)"),
    ((2,) * 40, r"has .npy shape \(2, 2, .*: not at most 32 sizes"),
])
def test_npy_header_shape_is_validated(archive: bytes, shape: tuple[int, ...], message: str) -> None:
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape!r}, }}"
    doctored = rebuilt(archive, lambda m, members: members.__setitem__(WEIGHT, _npy_with_header(header, bytes(8))))
    refused(doctored, rf"member '{WEIGHT}' {message}")


def test_unbalanced_npy_header_is_a_clean_error(archive: bytes) -> None:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,"  # numpy's tokenizer: TokenError
    doctored = rebuilt(archive, lambda m, members: members.__setitem__(WEIGHT, _npy_with_header(header, bytes(8))))
    refused(doctored, rf"member '{WEIGHT}' has a bad .npy header")


def test_python2_npy_header_is_refused_not_warned_about(archive: bytes) -> None:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2L,), }"  # numpy reads it, warning
    doctored = rebuilt(archive, lambda m, members: members.__setitem__(WEIGHT, _npy_with_header(header, bytes(8))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        refused(doctored, rf"member '{WEIGHT}' has a .npy header save\(\) never writes")


@pytest.mark.parametrize(("descr", "message"), [
    ("'>f4'", r"holds >f4\[2\] where the manifest says float32\[2\]"),
    ("'|O'", r"holds Python objects"),
    ("[('a', '<f4')]", r"holds \[\('a', '<f4'\)\]\[2\] where the manifest says float32\[2\]"),
])
def test_npy_dtype_must_be_the_manifests(archive: bytes, descr: str, message: str) -> None:
    header = f"{{'descr': {descr}, 'fortran_order': False, 'shape': (2,), }}"
    doctored = rebuilt(archive, lambda m, members: members.__setitem__(WEIGHT, _npy_with_header(header, bytes(8))))
    refused(doctored, rf"member '{WEIGHT}' {message}")


def test_fortran_order_array_loads_transposed_right(archive: bytes) -> None:
    weight = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    header = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }"

    def fortran(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        members["extra/0"] = _npy_with_header(header, weight.tobytes(order="F"))
        manifest["constants"] = [{"name": "table", "member": "extra/0", "dtype": "float32", "shape": [2, 3],
                                  "requires_grad": False, "parameter": False}]
    loaded = loading(rebuilt(archive, fortran))
    assert loaded.constants["table"]._value.tolist() == weight.tolist()


# --------------------------------------------------------------------------
# The zip directory: one entry per name, stored, within the file
# --------------------------------------------------------------------------


def _zip_members(data: bytes) -> list[Member]:
    manifest, members = members_of(data)
    return [*(Member(n, c) for n, c in members.items()), Member(MANIFEST, json.dumps(manifest).encode())]


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, 1, 99])
def test_flipped_compression_method_is_refused(archive: bytes, method: int) -> None:
    members = _zip_members(archive)
    members[0].method = method
    refused(raw_zip(members), rf"member '{PROGRAM}' is compressed \(zip method {method}\)")


def test_unreadable_zip_version_is_a_clean_error(archive: bytes) -> None:
    data = bytearray(raw_zip(_zip_members(archive)))
    struct.pack_into("<H", data, data.index(b"PK\x01\x02") + 6, 100)  # "needs zip version 10.0"
    refused(bytes(data), r"not a texport archive \(its zip directory asks for a zip feature texport never writes")


def test_duplicate_member_names_are_refused(archive: bytes) -> None:
    members = _zip_members(archive)
    weight = next(m for m in members if m.name == WEIGHT)
    refused(raw_zip([*members, Member(WEIGHT, weight.data)]), rf"member '{WEIGHT}' appears 2 times in the zip directory")


def test_member_referenced_twice_is_refused(archive: bytes) -> None:
    """Each reference would read (and hold) the member again: a small archive, a large load."""
    def twice(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        manifest["constants"] = [{**manifest["state_dict"][0], "name": "again", "parameter": False}]
    refused(rebuilt(archive, twice), rf"member '{WEIGHT}' is referenced twice by the manifest")


def test_duplicate_state_dict_name_is_refused(archive: bytes) -> None:
    def duplicate(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        members["data/weights/weight_1.npy"] = members[WEIGHT]
        manifest["state_dict"].append({**manifest["state_dict"][0], "member": "data/weights/weight_1.npy"})
    refused(rebuilt(archive, duplicate), r"field 'state_dict\[1\].name' is 'scale': a second entry of that name")


def test_listed_member_nothing_refers_to_is_refused(archive: bytes) -> None:
    refused(rebuilt(archive, lambda manifest, members: members.__setitem__("data/evil.npy", b"x")),
            r"member 'data/evil.npy' is listed in the manifest's members but nothing refers to it")


def test_extra_file_must_name_a_member_of_its_own(archive: bytes) -> None:
    refused(rebuilt(archive, with_field("extra_files", {"note": WEIGHT})),
            rf"field 'extra_files.note' is '{WEIGHT}', not a member of its own")


def test_unlisted_member_is_refused(archive: bytes) -> None:
    refused(raw_zip([*_zip_members(archive), Member("evil.py", b"print(1)")]),
            r"member 'evil.py' is not listed in the manifest")


def test_overlapping_members_are_refused(archive: bytes) -> None:
    """Two directory entries over the same bytes would be read (and held) twice."""
    data = bytearray(raw_zip([*_zip_members(archive), Member("data/twin.npy", b"x" * 136)]))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as source:
        weight_offset = source.getinfo(WEIGHT).header_offset
    central = data.rindex(b"PK\x01\x02")  # the last entry: the twin
    struct.pack_into("<L", data, central + 42, weight_offset)
    refused(bytes(data), r"member 'data/(twin.npy|weights/weight_0.npy)' overlaps member")


# --------------------------------------------------------------------------
# Memory: sizes are checked before anything is read or inflated
# --------------------------------------------------------------------------

GIB = 1 << 30


@pytest.fixture(scope="module")
def deflated_gib() -> tuple[bytes, int]:
    """1 GiB of spaces as raw deflate (about 1 MB), built from one flushed block repeated."""
    block = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = block.compress(b" " * (1 << 20)) + block.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    spaces = b" " * (1 << 20)
    for _ in range(1024):
        crc = zlib.crc32(spaces, crc)
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)
    return chunk * 1024 + end, crc


@pytest.fixture(scope="module")
def warmed_up(archive: bytes) -> None:
    """One load first, so the peaks below hold no one-time imports or caches."""
    loading(archive)


def _peak_while_refusing(data: bytes, message: str) -> int:
    """The most memory (bytes, as tracemalloc sees Python's and numpy's allocations)
    that load() held before refusing ``data``."""
    tracemalloc.start()
    try:
        with pytest.raises(SerializationError, match=message):
            load(io.BytesIO(data))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_deflated_gib_member_is_refused_with_small_peak(archive: bytes, deflated_gib: tuple[bytes, int]) -> None:
    stream, crc = deflated_gib
    members = [m for m in _zip_members(archive) if m.name != WEIGHT]
    data = raw_zip([*members, Member(WEIGHT, stream, zipfile.ZIP_DEFLATED, GIB, crc)])
    assert len(data) < 2 << 20
    peak = _peak_while_refusing(data, rf"member '{WEIGHT}' is compressed \(zip method 8\)")
    assert peak < len(data) + (1 << 20), peak


def test_manifest_inflating_to_a_gib_of_spaces_is_refused(archive: bytes, deflated_gib: tuple[bytes, int]) -> None:
    stream, crc = deflated_gib
    members = [m for m in _zip_members(archive) if m.name != MANIFEST]
    data = raw_zip([*members, Member(MANIFEST, stream, zipfile.ZIP_DEFLATED, GIB, crc)])
    peak = _peak_while_refusing(data, r"member 'manifest.json' is compressed")
    assert peak < len(data) + (1 << 20), peak


def test_stored_manifest_over_the_cap_is_refused_unread(archive: bytes) -> None:
    members = [m for m in _zip_members(archive) if m.name != MANIFEST]
    data = raw_zip([*members, Member(MANIFEST, b" " * (serialization._bounds.MAX_MANIFEST_BYTES + 1))])
    peak = _peak_while_refusing(data, r"member 'manifest.json' is 16777217 bytes \(at most 16777216\)")
    assert peak < 1 << 20, peak


def test_size_claimed_past_the_end_of_the_file_is_refused_unread(archive: bytes) -> None:
    members = _zip_members(archive)
    weight = next(m for m in members if m.name == WEIGHT)
    weight.size = weight.stored_size = GIB  # stored: the directory claims 1 GiB of stored bytes
    peak = _peak_while_refusing(raw_zip(members), rf"member '{WEIGHT}' says it holds 1073741824 bytes .* past the end")
    assert peak < 1 << 20, peak


def test_npy_header_declaring_a_gib_is_refused_before_reading(archive: bytes, warmed_up: None) -> None:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (268435456,), }"

    def huge(manifest: dict[str, Any], members: dict[str, bytes]) -> None:
        members[WEIGHT] = _npy_with_header(header, bytes(8))
        manifest["state_dict"][0]["shape"] = [2**28]
    peak = _peak_while_refusing(rebuilt(archive, huge), rf"member '{WEIGHT}' has 8 data bytes for float32\[268435456\]")
    assert peak < 8 << 20, peak


# --------------------------------------------------------------------------
# Saving: an exclusive, unpredictable temp file; the old archive or the new one
# --------------------------------------------------------------------------


def test_planted_link_at_the_old_temp_name_is_not_followed(program: Any, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    target = tmp_path / "p.texport"
    (tmp_path / f".{target.name}.{os.getpid()}.partial").symlink_to(victim)
    save(program, target)
    assert victim.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f".p.texport.{os.getpid()}.partial", "p.texport", "victim.txt"])
    assert loading(target.read_bytes()).mlir() == program.mlir()


def test_interrupted_save_leaves_exactly_the_old_archive(program: Any, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "p.texport"
    save(program, target)
    old = target.read_bytes()

    def interrupted(array: np.ndarray) -> list[Any]:  # called after program.mlir is written
        raise KeyboardInterrupt
    monkeypatch.setattr(serialization, "_npy_chunks", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save(program, target)
    assert [p.name for p in tmp_path.iterdir()] == ["p.texport"]
    assert target.read_bytes() == old


def test_saved_file_has_the_usual_permissions(program: Any, tmp_path: Path) -> None:
    mask = os.umask(0o027)
    try:
        save(program, tmp_path / "p.texport")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "p.texport").stat().st_mode) == 0o640


def test_saving_to_a_file_object_still_works(program: Any) -> None:
    buffer = io.BytesIO()
    save(program, buffer)
    assert loading(buffer.getvalue()).mlir() == program.mlir()


class Wide(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(512, 1024))  # 2 MiB

    def forward(self, x):
        return x @ self.weight


def test_valid_load_peak_is_the_archive_plus_a_small_constant(warmed_up: None) -> None:
    """Arrays are views of the member bytes read once: nothing is copied or inflated."""
    buffer = io.BytesIO()
    save(torch.export.export(Wide(), (torch.ones(2, 512),)), buffer)
    data = buffer.getvalue()
    load(io.BytesIO(data))  # this program's first parse
    tracemalloc.start()
    try:
        load(io.BytesIO(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < len(data) + (1 << 20), (peak, len(data))


def _leaf_paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [prefix, *(p for k, v in node.items() for p in _leaf_paths(v, (*prefix, k)))]
    if isinstance(node, list):
        return [prefix, *(p for i, v in enumerate(node) for p in _leaf_paths(v, (*prefix, i)))]
    return [prefix]


def test_any_manifest_field_replaced_by_a_wrong_value_loads_or_is_a_clean_error(archive: bytes) -> None:
    """Every field of the manifest, in turn, becomes each of a few wrong values: load
    either accepts the archive or raises SerializationError, never anything else."""
    manifest = members_of(archive)[0]
    paths = [p for p in _leaf_paths(manifest) if p and p[0] != "members"]
    for path in paths:
        for value in ([], "", -1):  # wrong type, empty name, negative number
            def edit(m: dict[str, Any], members: dict[str, bytes], path: Any = path, value: Any = value) -> None:
                target = m
                for key in path[:-1]:
                    target = target[key]
                target[path[-1]] = value
            try:
                loading(rebuilt(archive, edit))
            except SerializationError:
                pass


def test_save_syncs_the_file_before_the_rename_and_the_folder_after(program: Any, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    def replace(source: Any, target: Any) -> None:
        events.append("replace")
        real_replace(source, target)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    save(program, tmp_path / "p.texport")
    assert events == ["fsync file", "replace", "fsync folder"]


def test_manifest_depth_scan_is_linear_on_escaped_quotes_ending_in_a_backslash() -> None:
    """Every '"' starts a string that never closes: a scan that backtracks on the
    trailing backslash restarts at each one (quadratic: minutes at this size)."""
    from texport.export._archive_bounds import json_depth

    text = '"' + '\\"' * 400_000 + "\\"
    finishes(lambda: json_depth(text), TIME_BOUND, "json_depth")
    assert json_depth('[["[[[", {"a\\"[": [1]}]') == 4  # brackets in strings do not count
