"""Native kernels (texport/interpreter/native.py, texport/backends/native_kernels.py):
a large float32 GELU runs as one IREE-compiled loop where IREE is installed, with
the numpy kernel's stated error against float64; the numpy path runs when the
kernels are off, the array is small, or no kernel is to be had. The special values
(inf, nan, saturation) are test_kernels_elementwise's, run at the native size too."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from kernel_checks import gelu_double, run

import texport
from texport.backends import iree as backend
from texport.backends import native_kernels
from texport.dialects import bootstrap
from texport.interpreter import native
from texport.interpreter.kernels import elementwise

f32, f64 = np.float32, np.float64
HAS_IREE = importlib.util.find_spec("iree") is not None and \
    all(importlib.util.find_spec(name) is not None for name in ("iree.compiler", "iree.runtime"))
needs_iree = pytest.mark.skipif(not HAS_IREE, reason="IREE (texport[iree]) is not installed")


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int]]]:
    """A stand-in provider whose GELU returns 7s; the calls it saw (name, size)."""
    seen: list[tuple[str, int]] = []

    def sevens(flat: np.ndarray) -> np.ndarray:
        seen.append(("gelu_float32", flat.size))
        return np.full(flat.shape, 7, f32)

    monkeypatch.setattr(native, "_provider", lambda name: sevens if name == "gelu_float32" else None)
    yield seen


@pytest.fixture
def enabled() -> Iterator[None]:
    before = native.native_kernels_enabled()
    texport.set_native_kernels(True)
    yield
    texport.set_native_kernels(before)


def test_a_large_float32_gelu_takes_the_native_kernel(provider: list, enabled: None) -> None:
    x = np.linspace(-3, 3, native.MIN_SIZE).astype(f32).reshape(2, -1)
    x[0, 0] = -np.inf  # the kernel's -inf rule applies to the native result too
    out = run("gelu", x)
    assert provider == [("gelu_float32", native.MIN_SIZE)]
    assert np.isnan(out[0, 0]) and (out.reshape(-1)[1:] == 7).all()


@pytest.mark.parametrize("case", ["off", "small", "float64", "no kernel"])
def test_otherwise_the_numpy_kernel_runs(case: str, provider: list, enabled: None,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    size = native.MIN_SIZE - 1 if case == "small" else native.MIN_SIZE
    x = np.linspace(-3, 3, size).astype(f64 if case == "float64" else f32)
    if case == "off":
        texport.set_native_kernels(False)
    if case == "no kernel":
        monkeypatch.setattr(native, "_provider", lambda name: None)
    out = run("gelu", x)
    assert provider == []
    np.testing.assert_allclose(out, gelu_double(x), rtol=1.5e-6, atol=1e-7)


def test_set_native_kernels_takes_a_bool() -> None:
    with pytest.raises(TypeError, match="expects a bool, but got int"):
        texport.set_native_kernels(1)


def test_the_start_up_stage_installs_the_backends_provider(monkeypatch: pytest.MonkeyPatch, enabled: None) -> None:
    """The first large request starts the "native kernels" stage, which installs the backends' function."""
    monkeypatch.setattr(native, "_provider", None)
    started = []
    monkeypatch.setattr(bootstrap, "start", lambda stage: (started.append(stage), native_kernels.install()))
    assert native.kernel("no such kernel", native.MIN_SIZE - 1) is None and started == []
    with pytest.raises(KeyError):  # the backends' provider knows no such kernel
        native.kernel("no such kernel", native.MIN_SIZE)
    assert started == ["native kernels"] and native._provider is native_kernels.native_kernel


@pytest.mark.parametrize(("failure", "warns"), [(backend.IreeUnavailable("no IREE"), False),
                                                (backend.IreeCompileError("native-kernel", "bad", None), True)])
def test_a_kernel_that_cannot_compile_is_none(failure: Exception, warns: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """IREE missing: quietly None. A compile failure: None, and a warning naming the kernel."""
    def refuse(*args: Any) -> bytes:
        raise failure

    monkeypatch.setattr(native_kernels, "compile_vmfb", refuse)
    native_kernels.native_kernel.cache_clear()
    try:
        if warns:
            with pytest.warns(RuntimeWarning, match="native gelu_float32 kernel did not compile.*bad"):
                assert native_kernels.native_kernel("gelu_float32") is None
        else:
            assert native_kernels.native_kernel("gelu_float32") is None
    finally:
        native_kernels.native_kernel.cache_clear()


def test_the_kernel_text_carries_the_numpy_constants_exactly() -> None:
    """Each float32 constant of the numpy formula appears as its exact bits."""
    text = native_kernels.gelu_float32_text()
    for value in (*elementwise.GELU_TAIL_COEFFS, elementwise.GELU_TAIL_SCALE, elementwise.GELU_HUGE):
        assert f"0x{int(np.float32(value).view(np.uint32)):08X} : f32" in text


@needs_iree
def test_native_gelu_max_error_against_double(enabled: None) -> None:
    """IREE's GELU against x Phi(x) in double on a 0.0001 grid over [-16, 16]: relative
    error 1.25e-6 at most above x = -5 (the numpy path's bound), 6.4e-7 for x > 0,
    absolute 2.4e-7; below x = -12.4 the exp is shifted out of the subnormals, so
    relative error stays under 1e-5 down to float32's smallest normal result; below it
    (x < -13.1) IREE flushes to 0, an absolute error under float32's tiny."""
    assert native_kernels.native_kernel("gelu_float32") is not None, "IREE is installed: the kernel compiles"
    x = np.concatenate([np.linspace(-16, 16, 320001), [-30.0, -1e-30, 1e-30, 0.0, 3e38]]).astype(f32)
    out = run("gelu", x)
    want = gelu_double(x)
    tiny = float(np.finfo(f32).tiny)
    normal = np.abs(want) >= tiny
    rel = np.abs(out.astype(f64) - want)[normal] / np.abs(want)[normal]
    assert rel.max() < 1e-5
    assert rel[x[normal] > -5].max() < 1.5e-6
    assert rel[x[normal] > 0].max() < 1e-6
    assert np.abs(out.astype(f64) - want).max() < 3e-7
    assert np.abs(out.astype(f64) - want)[~normal].max() < tiny


@needs_iree
def test_native_gelu_result_is_numpy_memory_of_its_own(enabled: None) -> None:
    """A writable array of the input's shape, not a view of IREE's buffer; the input is untouched."""
    x = np.random.default_rng(0).standard_normal((4, native.MIN_SIZE // 2)).astype(f32)
    kept = x.copy()
    out = run("gelu", x)
    root = out if out.base is None else out.base
    assert out.shape == x.shape and out.flags.writeable and root.flags.owndata
    np.testing.assert_array_equal(x, kept)
    out[:] = 0  # writable, and the next call's result is unaffected
    np.testing.assert_allclose(run("gelu", x), gelu_double(x), rtol=1.5e-6, atol=3e-7)


@needs_iree
def test_native_gelu_reads_unaligned_and_read_only_inputs(enabled: None) -> None:
    """IREE reads 64-byte-aligned memory in place: at every start offset (the first
    elements up to the boundary run from an aligned copy) and from a read-only array
    (copied), the values are the same, and the input is untouched."""
    data = np.random.default_rng(1).standard_normal(native.MIN_SIZE + 16).astype(f32)
    kept = data.copy()
    want = gelu_double(data)
    for start in range(16):
        window = data[start:start + native.MIN_SIZE]
        out = run("gelu", window)
        np.testing.assert_allclose(out, want[start:start + native.MIN_SIZE], rtol=1.5e-6, atol=3e-7)
        np.testing.assert_array_equal(out, run("gelu", np.array(window)))
        assert (out.ctypes.data - window.ctypes.data) % 64 == 0  # written in place by IREE
    np.testing.assert_array_equal(data, kept)
    frozen = np.array(data[:native.MIN_SIZE])
    frozen.setflags(write=False)
    np.testing.assert_array_equal(run("gelu", frozen), run("gelu", np.array(frozen)))
