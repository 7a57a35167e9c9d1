"""Kernels of the LAPACK factorisations torch keeps whole (LU, LDL, Householder QR),
the solves and products on their packed factors, eig and the matrix exponential,
each against an independent reference: the identity the factors satisfy
(A = P L U, Q^H Q = I, A V = V diag(w)), numpy's dense solve, a Taylor series, or
hand-computed numbers. kernel_checks.run also checks each op's shape rule."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kernel_checks import run

RNG = np.random.default_rng(7)


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def conj_t(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 3, 5), (0, 3, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_lu_factors_rebuild_the_matrix(shape: tuple[int, ...], dtype: Any) -> None:
    A = rand(*shape, dtype=dtype)  # noqa: N806
    P, L, U = run("linalg_lu", A)  # noqa: N806
    assert P.dtype == L.dtype == U.dtype == dtype
    np.testing.assert_allclose(P @ L @ U, A, rtol=1e-5, atol=1e-5)
    assert np.all(np.abs(L) <= 1 + 1e-6)  # partial pivoting
    LU, pivots, info = run("linalg_lu_factor_ex", A)  # noqa: N806
    assert pivots.dtype == np.int32 and info.dtype == np.int32 and not info.any()
    P2, L2, U2 = run("lu_unpack", LU, pivots)  # noqa: N806
    np.testing.assert_array_equal(P2, P)
    np.testing.assert_array_equal(U2, U)


def test_lu_unpack_hand_computed() -> None:
    LU = np.array([[4.0, 3.0], [0.5, 1.0]], np.float32)  # noqa: N806 - rows swapped: pivots [2, 2]
    P, L, U = run("lu_unpack", LU, np.array([2, 2], np.int32))  # noqa: N806
    np.testing.assert_array_equal(P, [[0, 1], [1, 0]])
    np.testing.assert_array_equal(L, [[1, 0], [0.5, 1]])
    np.testing.assert_array_equal(U, [[4, 3], [0, 1]])
    np.testing.assert_allclose(P @ L @ U, [[2, 2.5], [4, 3]])


@pytest.mark.parametrize(("left", "adjoint"), [(True, False), (True, True), (False, False), (False, True)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_lu_solve_matches_a_dense_solve(left: bool, adjoint: bool, dtype: Any) -> None:
    A, B = rand(2, 4, 4, dtype=dtype), rand(2, 4, 3, dtype=dtype)  # noqa: N806
    B = B if left else np.swapaxes(B, -1, -2)  # noqa: N806
    LU, pivots, _ = run("linalg_lu_factor_ex", A)  # noqa: N806
    X = run("linalg_lu_solve", LU, pivots, B, left=left, adjoint=adjoint)  # noqa: N806
    op_a = conj_t(A) if adjoint else A
    np.testing.assert_allclose(op_a @ X if left else X @ op_a, B, atol=1e-10)


@pytest.mark.parametrize(("upper", "left", "unit"), [(True, True, False), (False, False, True), (False, True, False)])
def test_solve_triangular_reads_only_its_triangle(upper: bool, left: bool, unit: bool) -> None:
    A = rand(3, 4, 4, dtype=np.float64) + 4 * np.eye(4)  # noqa: N806
    B = rand(3, 4, 2, dtype=np.float64) if left else rand(3, 2, 4, dtype=np.float64)  # noqa: N806
    T = np.triu(A) if upper else np.tril(A)  # noqa: N806
    if unit:
        T = T - np.diagonal(T, axis1=-2, axis2=-1)[..., None] * np.eye(4) + np.eye(4)  # noqa: N806
    X = run("linalg_solve_triangular", A, B, upper=upper, left=left, unitriangular=unit)  # noqa: N806
    np.testing.assert_allclose(T @ X if left else X @ T, B, atol=1e-10)


def test_triangular_solve_transposed_and_broadcast() -> None:
    A = np.triu(rand(4, 4, dtype=np.float64)) + 4 * np.eye(4)  # noqa: N806
    b = rand(2, 4, 3, dtype=np.float64)
    X, cloned = run("triangular_solve", b, A, True, True)  # noqa: N806
    np.testing.assert_allclose(A.T @ X, b, atol=1e-10)
    assert cloned.shape == (2, 4, 4)
    np.testing.assert_array_equal(cloned[1], A)


@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl_factor_and_solve(hermitian: bool) -> None:
    M = rand(2, 5, 5, dtype=np.complex128)  # noqa: N806
    A = M + (conj_t(M) if hermitian else np.swapaxes(M, -1, -2))  # noqa: N806
    LD, pivots, info = run("linalg_ldl_factor_ex", A, hermitian=hermitian)  # noqa: N806
    assert not info.any() and np.all(np.triu(LD, 1) == 0)
    B = rand(2, 5, 2, dtype=np.complex128)  # noqa: N806
    X = run("linalg_ldl_solve", LD, pivots, B, hermitian=hermitian)  # noqa: N806
    np.testing.assert_allclose(A @ X, B, atol=1e-9)


@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_geqrf_householder_product_and_ormqr(shape: tuple[int, ...], dtype: Any) -> None:
    A = rand(*shape, dtype=dtype)  # noqa: N806
    a, tau = run("geqrf", A)
    Q = run("linalg_householder_product", a, tau)  # noqa: N806
    R = np.triu(a[..., : shape[-1], :])  # noqa: N806
    np.testing.assert_allclose(conj_t(Q) @ Q, np.broadcast_to(np.eye(shape[-1]), Q.shape[:-2] + (shape[-1],) * 2),
                               atol=1e-10)
    np.testing.assert_allclose(Q @ R, A, atol=1e-10)
    C = rand(*shape[:-2], shape[-2], 2, dtype=dtype)  # noqa: N806
    # Q^H C: the full Q's conjugate transpose; its first n rows are the reduced Q's
    QhC = run("ormqr", a, tau, C, True, True)  # noqa: N806
    np.testing.assert_allclose(QhC[..., : shape[-1], :], conj_t(Q) @ C, atol=1e-10)
    np.testing.assert_allclose(run("ormqr", a, tau, QhC, True, False), C, atol=1e-10)


def test_eig_of_a_real_matrix_is_complex() -> None:
    A = np.array([[0.0, -1.0], [1.0, 0.0]], np.float32)  # noqa: N806 - a quarter turn: eigenvalues +-i
    values, vectors = run("linalg_eig", A)
    assert values.dtype == vectors.dtype == np.complex64
    np.testing.assert_allclose(sorted(values, key=lambda v: v.imag), [-1j, 1j], atol=1e-6)
    np.testing.assert_allclose(A @ vectors, vectors * values[None, :], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=0), 1, atol=1e-6)


def test_matrix_exp_matches_a_taylor_series() -> None:
    A = 0.5 * rand(3, 4, 4, dtype=np.float32)  # noqa: N806
    term, series = np.broadcast_to(np.eye(4), A.shape).astype(np.float64), np.zeros(A.shape)
    for k in range(1, 40):
        series = series + term
        term = term @ A / k
    got = run("linalg_matrix_exp", A)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, series, rtol=1e-5, atol=1e-6)


def test_matrix_exp_of_a_diagonal() -> None:
    np.testing.assert_allclose(run("linalg_matrix_exp", np.diag([0.0, 1.0, -2.0])), np.diag(np.exp([0, 1, -2])))


def test_check_errors_raise_torchs_messages() -> None:
    assert run("_linalg_check_errors", np.zeros(3, np.int32), "linalg.inv", is_matrix=False) == ()
    with pytest.raises(RuntimeError, match=r"linalg.inv: \(Batch element 1\): The diagonal element 2 is zero"):
        run("_linalg_check_errors", np.array([0, 2], np.int32), "linalg.inv", is_matrix=False)
    with pytest.raises(RuntimeError, match="linalg.cholesky: The factorization could not be completed"):
        run("_linalg_check_errors", np.array(3, np.int32), "linalg.cholesky", is_matrix=True)
    with pytest.raises(RuntimeError, match="Argument 4 has illegal value"):
        run("_linalg_check_errors", np.array(-4, np.int32), "linalg.solve", is_matrix=True)


def test_det_of_empty_matrices_is_one() -> None:
    result, lu, pivots = run("_linalg_det", np.zeros((2, 0, 0), np.float32))
    np.testing.assert_array_equal(result, [1, 1])
    assert lu.shape == (2, 0, 0) and pivots.shape == (2, 0)


def test_addbmm_and_addr_with_integers_truncate_the_scales() -> None:
    s, b1, b2 = np.ones((2, 3), np.int64), np.ones((4, 2, 5), np.int64), np.ones((4, 5, 3), np.int64)
    np.testing.assert_array_equal(run("addbmm", s, b1, b2, beta=2.7, alpha=1.5), 2 * s + 20)
    v1, v2 = np.array([1, 2], np.int64), np.array([3, 4, 5], np.int64)
    np.testing.assert_array_equal(run("addr", s, v1, v2, beta=0.6, alpha=2.2), 2 * np.outer(v1, v2))


def test_addr_in_place_float16_rounds_each_operation() -> None:
    s, v1, v2 = np.full((1, 1), 0.1, np.float16), np.array([0.3], np.float16), np.array([0.7], np.float16)
    half = np.float16
    expected = half(half(0.6) * s[0, 0]) + half(half(half(0.2) * v1[0]) * v2[0])
    out = run("addr_", s, v1, v2, beta=0.6, alpha=0.2)
    assert out is s and s[0, 0] == expected


def test_trilinear_float16_rounds_the_first_contraction() -> None:
    """bilinear's call: torch contracts x1 with the weight first (rounded to float16), then with x2."""
    x1, w, x2 = rand(2, 3, dtype=np.float16), rand(4, 3, 5, dtype=np.float16), rand(2, 5, dtype=np.float16)
    got = run("_trilinear", x1, w, x2, [1, 3], [0], [1, 2], [2, 3])
    first = np.zeros((2, 4, 5), np.float32)
    for b, o, i, j in np.ndindex(2, 4, 3, 5):
        first[b, o, j] += np.float32(x1[b, i]) * np.float32(w[o, i, j])
    expected = (first.astype(np.float16).astype(np.float32) * x2[:, None, :].astype(np.float32)).sum(-1)
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float16).astype(np.float32), rtol=1e-3)
    assert got.dtype == np.float16
