"""Kernels of torch.fft's transforms, complex numbers and torch.linalg's
decompositions, against independent references: direct DFT sums, hand-computed
numbers, and the defining identities (A = U S Vh, A x = b, L Lᵀ = A ...)."""

from __future__ import annotations

import cmath
import math
from typing import Any

import numpy as np
import pytest
from kernel_checks import run

RNG = np.random.default_rng(4321)


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def dft(x: np.ndarray, inverse: bool = False) -> np.ndarray:
    """The DFT along the last axis by its defining sum (no FFT)."""
    n = x.shape[-1]
    sign = 1 if inverse else -1
    w = np.array([[cmath.exp(sign * 2j * math.pi * j * k / n) for k in range(n)] for j in range(n)])
    return x.astype(np.complex128) @ w.T


def close(got: np.ndarray, want: np.ndarray, tol: float = 1e-4) -> None:
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------- FFT


def test_fft_c2c_forward_and_inverse_with_each_normalisation() -> None:
    z = rand(2, 6) + 1j * rand(2, 6)
    z = z.astype(np.complex64)
    out = run("_fft_c2c", z, [1], 0, True)
    assert out.dtype == np.complex64
    close(out, dft(z))
    close(run("_fft_c2c", z, [1], 1, True), dft(z) / math.sqrt(6))
    close(run("_fft_c2c", z, [1], 2, False), dft(z, inverse=True) / 6)
    close(run("_fft_c2c", z, [1], 0, False), dft(z, inverse=True))


def test_fft_pads_or_cuts_to_n_and_promotes_integers() -> None:
    x = rand(3, 5)
    padded = np.concatenate([x, np.zeros((3, 3), np.float32)], axis=1)
    close(run("fft_fft", x, 8), dft(padded))
    close(run("fft_ifft", x, 4, -1, "ortho"), dft(x[:, :4], inverse=True) / 2)
    ints = np.arange(6).reshape(2, 3)
    out = run("fft_rfft", ints)
    assert out.dtype == np.complex64
    close(out, dft(ints)[:, :2])


def test_irfft_and_hfft_lengths() -> None:
    half = dft(rand(2, 8))[:, :5].astype(np.complex64)
    assert run("fft_irfft", half).shape == (2, 8)
    assert run("fft_irfft", half, 9).shape == (2, 9)
    assert run("fft_hfft", half, 4, -1, "forward").dtype == np.float32
    # hfft is the forward transform of a Hermitian signal given by its first half
    x = rand(1, 7)
    close(run("fft_hfft", run("fft_ihfft", x), 7), x)


def test_n_dim_transforms_follow_torchs_dims_and_sizes() -> None:
    x = rand(4, 6)
    two_d = np.swapaxes(dft(np.swapaxes(dft(x), 0, 1)), 0, 1)
    close(run("fft_fft2", x), two_d)
    close(run("fft_fftn", x), two_d)
    assert run("fft_fftn", x, [3, 10]).shape == (3, 10)  # s alone: the last len(s) dims
    assert run("fft_rfftn", x, None, [0]).shape == (3, 6)
    assert run("fft_rfft2", x).shape == (4, 4)
    assert run("fft_irfftn", run("fft_rfft2", x), [4, 6]).shape == (4, 6)
    close(run("fft_irfft2", run("fft_rfft2", x), [4, 6]), x)


def test_shifts_and_frequencies() -> None:
    x = np.arange(5)
    assert run("fft_fftshift", x).tolist() == [3, 4, 0, 1, 2]
    assert run("fft_ifftshift", x).tolist() == [2, 3, 4, 0, 1]
    close(run("fft_fftfreq", 5, 0.5), np.array([0, 0.4, 0.8, -0.8, -0.4]))
    close(run("fft_rfftfreq", 4), np.array([0, 0.25, 0.5]))
    assert run("fft_fftfreq", 4).dtype == np.float32


# ---------------------------------------------------------------------------- complex numbers


def test_view_as_real_and_back_share_memory() -> None:
    z = np.array([[1 + 2j, 3 - 4j]], np.complex64)
    pairs = run("view_as_real", z)
    assert pairs.dtype == np.float32 and pairs.tolist() == [[[1, 2], [3, -4]]]
    pairs[0, 0, 1] = 9
    assert z[0, 0] == 1 + 9j
    back = run("view_as_complex", pairs)
    assert back.tolist() == [[1 + 9j, 3 - 4j]]
    with pytest.raises(RuntimeError, match="stride 1"):
        run("view_as_complex", np.zeros((2, 4), np.float32)[:, ::2])


def test_complex_constructors_parts_and_angle() -> None:
    close(run("complex", np.float32([1, 2]), np.float32([3, -1])), np.array([1 + 3j, 2 - 1j]))
    close(run("polar", np.float32([2]), np.float32([math.pi / 2])), np.array([2j]))
    z = np.array([3 + 4j, -1 + 0j], np.complex64)
    assert run("real", z).tolist() == [3, -1] and run("imag", z).tolist() == [4, 0]
    close(run("angle", z), np.array([math.atan2(4, 3), math.pi]))
    assert run("angle", np.array([-2, 0, 5])).tolist() == [pytest.approx(math.pi), 0, 0]
    assert run("_conj", z).tolist() == [3 - 4j, -1 - 0j]


def test_complex_abs_is_real_and_sigmoid_is_the_complex_formula() -> None:
    z = np.array([3 + 4j, -1j], np.complex64)
    out = run("abs", z)
    assert out.dtype == np.float32 and out.tolist() == [5, 1]
    close(run("sigmoid", z), 1 / (1 + np.exp(-z.astype(np.complex128))))
