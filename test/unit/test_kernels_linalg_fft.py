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

from texport.dialects.shape_rules.guards import ShapeGuardError
from texport.interpreter.kernels import KERNELS

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


# ---------------------------------------------------------------------------- torch.linalg


def spd(*batch: int, n: int = 4) -> np.ndarray:
    a = rand(*batch, n, n + 2)
    return a @ np.swapaxes(a, -1, -2)


def mT(x: np.ndarray) -> np.ndarray:  # noqa: N802 - torch's name
    return np.swapaxes(x, -1, -2)


def test_det_and_its_lu_factors_by_hand() -> None:
    a = np.array([[0, 2], [3, 4]], np.float32)  # the first pivot is the second row
    det, lu, pivots = run("_linalg_det", a)
    assert det.dtype == np.float32 and float(det) == pytest.approx(-6)
    assert pivots.tolist() == [2, 2] and pivots.dtype == np.int32
    assert lu.tolist() == [[2, 4], [0, 3]]  # torch's: LAPACK's LU of the row-major matrix's transpose
    sign, logabsdet, _, _ = run("_linalg_slogdet", a)
    assert float(sign) == -1 and float(logabsdet) == pytest.approx(math.log(6))
    assert float(run("det", a)) == pytest.approx(-6)


def test_lu_reassembles_a_batch() -> None:
    a = rand(3, 5, 5, dtype=np.float64)
    _, lu, pivots = run("_linalg_det", a)
    lower = np.tril(lu, -1) + np.eye(5)
    upper = np.triu(lu)
    for b in range(3):  # undo the row swaps on the identity: P
        p = np.eye(5)
        for k, row in enumerate(pivots[b] - 1):
            p[[k, row]] = p[[row, k]]
        close(p.T @ lower[b] @ upper[b], a[b].T, 1e-10)  # the factors of a's transpose, as torch's


def test_solve_inv_and_cholesky_satisfy_their_equations() -> None:
    a, b = spd(2), rand(2, 4, 3)
    x = run("_linalg_solve_ex", a, b)[0]
    close(a @ x, b, 1e-3)
    v = rand(2, 4)
    close(np.einsum("bij,bj->bi", a, run("linalg_solve", a, v)), v, 1e-3)
    right = run("linalg_solve", a, mT(b), left=False)
    close(right @ a, mT(b), 1e-3)
    inverse, info = run("linalg_inv_ex", a)
    close(inverse @ a, np.broadcast_to(np.eye(4), a.shape), 1e-3)
    assert info.tolist() == [0, 0] and info.dtype == np.int32
    lower = run("linalg_cholesky", a)
    assert np.allclose(np.triu(lower, 1), 0)
    close(lower @ mT(lower), a, 1e-3)
    upper = run("linalg_cholesky_ex", a, upper=True)[0]
    close(mT(upper) @ upper, a, 1e-3)
    with pytest.raises(RuntimeError, match="linalg.cholesky"):
        run("linalg_cholesky", -a)


def test_eigh_svd_qr_reconstruct_their_matrix() -> None:
    a = spd(3)
    values, vectors = run("_linalg_eigh", a)
    assert values.dtype == np.float32
    close((vectors * values[..., None, :]) @ mT(vectors), a, 1e-3)
    assert run("_linalg_eigh", a, "L", False)[1].shape == (0,)
    m = rand(3, 4, 6)
    u, s, vh = run("_linalg_svd", m)
    assert (u.shape, s.shape, vh.shape) == ((3, 4, 4), (3, 4), (3, 4, 6))
    close((u * s[..., None, :]) @ vh, m, 1e-4)
    assert run("linalg_svd", m)[2].shape == (3, 6, 6)
    close(run("linalg_svdvals", m), s)
    q, r = run("linalg_qr", mT(m))
    assert (q.shape, r.shape) == ((3, 6, 4), (3, 4, 4))
    close(q @ r, mT(m), 1e-4)
    assert np.allclose(np.tril(r, -1), 0)
    assert run("linalg_qr", mT(m), "complete")[0].shape == (3, 6, 6)


def test_pinv_is_the_moore_penrose_inverse() -> None:
    m = rand(2, 3, 5, dtype=np.float64)
    p = run("linalg_pinv.atol_rtol_tensor", m)
    close(m @ p @ m, m, 1e-8)
    close(p @ m @ p, p, 1e-8)
    close(mT(m @ p), m @ p, 1e-8)
    a = spd(2).astype(np.float64)
    h = run("linalg_pinv.atol_rtol_tensor", a, hermitian=True)
    close(h @ a, np.broadcast_to(np.eye(4), a.shape), 1e-8)  # an invertible matrix's is its inverse
    # a singular value under the cut-off counts as zero
    d = np.diag([4.0, 1e-20]).astype(np.float64)
    assert run("pinverse", d).tolist() == [[0.25, 0], [0, 0]]


def test_norms_by_hand() -> None:
    a = np.array([[1, -2], [3, 4]], np.float32)
    assert float(run("linalg_matrix_norm", a, 1)) == pytest.approx(6)  # largest column |sum|
    assert float(run("linalg_matrix_norm", a, math.inf)) == pytest.approx(7)  # largest row
    assert float(run("linalg_matrix_norm", a, -1)) == pytest.approx(4)
    assert float(run("linalg_matrix_norm.str_ord", a)) == pytest.approx(math.sqrt(30))
    s = np.linalg.svd(a.astype(np.float64), compute_uv=False)  # numpy's LAPACK, not our kernel
    assert float(run("linalg_matrix_norm.str_ord", a, "nuc")) == pytest.approx(s.sum(), rel=1e-5)
    assert float(run("linalg_norm", a)) == pytest.approx(math.sqrt(30))
    assert float(run("linalg_norm", a, math.inf)) == pytest.approx(7)
    assert run("linalg_norm", a, 1, [1], True).tolist() == [[3], [7]]


def test_products_by_hand() -> None:
    a = np.array([[1, 2], [3, 4]], np.float32)
    assert float(run("trace", a)) == 5
    assert run("trace", np.arange(4).reshape(2, 2)).dtype == np.int64
    assert float(run("vdot", a[0], a[1])) == 11
    assert run("linalg_vecdot", a, a).tolist() == [5, 25]
    assert run("inner", a, a).tolist() == [[5, 11], [11, 25]]
    assert run("kron", np.eye(2, dtype=np.float32), a).tolist() == [
        [1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 1, 2], [0, 0, 3, 4]]
    assert run("tensordot", a, a, [1], [0]).tolist() == [[7, 10], [15, 22]]
    assert run("linalg_multi_dot", [a, a, a]).tolist() == [[37, 54], [81, 118]]
    assert run("addr", a, np.float32([1, 2]), np.float32([1, 0]), beta=2, alpha=3).tolist() == [[5, 4], [12, 8]]
    batches = np.stack([a, a])
    assert run("addbmm", a, batches, batches, beta=0).tolist() == [[14, 20], [30, 44]]
    assert run("linalg_diagonal", batches, offset=1).tolist() == [[2], [2]]


def test_cross_by_hand_and_default_dim() -> None:
    x, y = np.float32([[1, 0, 0]]), np.float32([[0, 1, 0]])
    assert run("linalg_cross", x, y).tolist() == [[0, 0, 1]]
    assert run("linalg_cross", y, x).tolist() == [[0, 0, -1]]
    columns = np.float32([[1, 0], [0, 1], [0, 0]])  # the first dim of size 3 is dim 0
    assert run("cross", columns, np.roll(columns, 1, axis=0)).tolist() == [[0, 1], [0, 0], [1, 0]]


def test_matrix_rank_counts_values_above_the_cutoff() -> None:
    a = np.diag([3.0, 1.0, 1e-9]).astype(np.float32)
    assert int(run("linalg_matrix_rank.atol_rtol_tensor", a)) == 2
    assert int(run("linalg_matrix_rank.atol_rtol_float", a, atol=2.0)) == 1  # rtol 0 given a positive atol
    assert int(run("linalg_matrix_rank.atol_rtol_float", a, rtol=0.5)) == 1
    assert int(run("linalg_matrix_rank.atol_rtol_tensor", -a, hermitian=True)) == 2
    assert run("linalg_matrix_rank.atol_rtol_tensor", np.stack([a, np.eye(3, dtype=np.float32)])).tolist() == [2, 3]


@pytest.mark.parametrize("driver", [None, "gels", "gelsd", "gelss"])
def test_lstsq_matches_numpys_per_matrix(driver: str | None) -> None:
    a, b = rand(2, 6, 4, dtype=np.float64), rand(2, 6, 3, dtype=np.float64)
    solution, residuals, rank, values = run("linalg_lstsq", a, b, driver=driver)
    for k in range(2):  # numpy's lstsq takes one matrix at a time
        want, want_residuals, want_rank, want_values = np.linalg.lstsq(a[k], b[k], rcond=None)
        close(solution[k], want, 1e-8)
        if driver in ("gels", "gelsd", "gelss"):
            close(residuals[k], want_residuals, 1e-8)
        if driver != "gels":
            assert rank[k] == want_rank
        if driver in ("gelsd", "gelss"):
            close(values[k], want_values, 1e-8)
    assert residuals.shape == ((0,) if driver is None else (2, 3))


def test_lstsq_of_a_vector_and_a_wide_matrix() -> None:
    a, b = rand(3, 5), rand(3)
    solution, residuals, rank, _ = run("linalg_lstsq", a, b, driver="gelsd")
    assert solution.shape == (5,) and residuals.shape == (0,) and int(rank) == 3
    close(a @ solution, b, 1e-4)  # an underdetermined system is solved exactly


def test_errors_name_what_was_expected_as_torch_does() -> None:
    for check in (run, KERNELS["linalg_inv_ex"]):  # the shape rule's words and the kernel's
        with pytest.raises((RuntimeError, ShapeGuardError), match="square matrices, but they are 3 by 4 matrices"):
            check("linalg_inv_ex", rand(3, 4)) if check is run else check(rand(3, 4))
    with pytest.raises(RuntimeError, match="The diagonal element 2 is zero"):
        run("linalg_inv_ex", np.float32([[1, 2], [2, 4]]))
    with pytest.raises(RuntimeError, match="leading minor of order 2 is not positive-definite"):
        run("linalg_cholesky_ex", np.float32([[1, 2], [2, 1]]))
    with pytest.raises((RuntimeError, ShapeGuardError), match="Invalid normalization mode: bad"):
        run("fft_fft", rand(4), None, -1, "bad")
    with pytest.raises(RuntimeError, match="Invalid normalization mode: bad"):
        KERNELS["fft_fft"](rand(4), None, -1, "bad")


def test_cholesky_family_and_logdet() -> None:
    a = spd(2).astype(np.float64)
    lower = run("cholesky", a)
    close(lower @ mT(lower), a, 1e-8)
    upper = run("cholesky", a, True)
    close(mT(upper) @ upper, a, 1e-8)
    b = rand(2, 4, 3, dtype=np.float64)
    close(a @ run("cholesky_solve", b, lower), b, 1e-8)
    close(a @ run("cholesky_solve", b, upper, True), b, 1e-8)
    close(run("cholesky_inverse", lower) @ a, np.broadcast_to(np.eye(4), a.shape), 1e-8)
    close(run("logdet", a), np.log(np.linalg.det(a)), 1e-8)
    assert np.isnan(run("logdet", np.float32([[0, 1], [1, 0]])))  # det -1: no real log


def test_matrix_power_by_hand() -> None:
    a = np.float32([[1, 1], [0, 1]])
    assert run("linalg_matrix_power", a, 5).tolist() == [[1, 5], [0, 1]]
    assert run("linalg_matrix_power", a, 0).tolist() == [[1, 0], [0, 1]]
    assert run("matrix_power", a, -3).tolist() == [[1, -3], [0, 1]]
