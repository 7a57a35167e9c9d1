"""torch.fft, complex numbers and torch.linalg: each transform with its n / s,
dim and norm options (real, complex and integer inputs), the frequency tables
and shifts; view_as_real / view_as_complex, polar, complex, angle, real, imag,
conj and complex abs / sigmoid; and the linear-algebra functions, whose
vectors' signs LAPACK builds choose differently, compared through what torch
defines (reconstructions, absolute values)."""


def _real(*shape):
    return lambda rng: (rng.standard_normal(shape, dtype=np.float32),)


def _complex(*shape):
    """A complex64 input, built in the program from its real and imaginary parts."""
    return lambda rng: (rng.standard_normal((*shape, 2), dtype=np.float32),)


def _c(x):
    return torch.view_as_complex(x)


def _r(z):
    return torch.view_as_real(z)


def _fft_cases():
    fft = torch.fft
    real = {
        "fft": lambda x: _r(fft.fft(x)),
        "fft_complex_output": lambda x: fft.fft(x, norm="ortho"),
        "fft_n_ortho": lambda x: _r(fft.fft(x, n=12, dim=0, norm="ortho")),
        "ifft_real": lambda x: _r(fft.ifft(x, n=6, norm="ortho").resolve_conj()),
        "rfft": lambda x: _r(fft.rfft(x)),
        "rfft_forward": lambda x: _r(fft.rfft(x, n=5, norm="forward")),
        "ihfft": lambda x: _r(fft.ihfft(x).resolve_conj()),
        "fft2": lambda x: _r(fft.fft2(x)),
        "ifft2": lambda x: _r(fft.ifft2(x, norm="forward")),
        "rfft2": lambda x: _r(fft.rfft2(x)),
        "fftn_s": lambda x: _r(fft.fftn(x, s=(3, 10))),
        "rfftn_dim": lambda x: _r(fft.rfftn(x, dim=(0,), norm="ortho")),
        "ifftn": lambda x: _r(fft.ifftn(x)),
        "fftshift": lambda x: fft.fftshift(x),
        "ifftshift_dim": lambda x: fft.ifftshift(x, dim=1),
        "fftfreq": lambda x: x + fft.fftfreq(8),
        "rfftfreq": lambda x: x[:, :5] + fft.rfftfreq(8, d=0.5),
    }
    complex_ = {
        "fft_complex": lambda x: _r(fft.fft(_c(x))),
        "ifft_complex_n": lambda x: _r(fft.ifft(_c(x), n=5)),
        "irfft": lambda x: fft.irfft(_c(x)),
        "irfft_n": lambda x: fft.irfft(_c(x), n=9, norm="ortho"),
        "hfft": lambda x: fft.hfft(_c(x)),
        "hfft_n": lambda x: fft.hfft(_c(x), n=4, norm="forward"),
        "fft2_complex": lambda x: _r(fft.fft2(_c(x))),
        "irfft2": lambda x: fft.irfft2(_c(x)),
        "irfftn_s": lambda x: fft.irfftn(_c(x), s=(4, 6)),
        "fftshift_complex": lambda x: _r(fft.fftshift(_c(x), dim=(0,))),
    }
    cases = [Case(f"fft_{name}", (lambda fn=fn: Fn(fn)), inputs=_real(4, 8)) for name, fn in real.items()]
    cases += [Case(f"fft_{name}", (lambda fn=fn: Fn(fn)), inputs=_complex(4, 5)) for name, fn in complex_.items()]
    cases.append(Case("fft_rfft_integer", lambda: Fn(lambda x: _r(fft.rfft(x))),
                      inputs=lambda rng: (rng.integers(-5, 5, (3, 6)),)))
    cases.append(Case("fft_rfft_float64", lambda: Fn(lambda x: _r(fft.rfft(x, n=10))),
                      inputs=lambda rng: (rng.standard_normal((3, 6)),)))
    return cases


def _complex_cases():
    fns = {
        "view_as_real": lambda x: _r(_c(x)) * 2,
        "real_imag": lambda x: (torch.real(_c(x)) * 2, torch.imag(_c(x)) + 1),
        "angle": lambda x: torch.angle(_c(x)),
        "abs": lambda x: torch.abs(_c(x)),
        "sigmoid": lambda x: _r(torch.sigmoid(_c(x))),
        "conj_physical": lambda x: _r(torch.conj_physical(_c(x))),
        "conj_resolved": lambda x: _r(torch.conj(_c(x)).resolve_conj()),
        "polar": lambda x: _r(torch.polar(x[..., 0].abs(), x[..., 1])),
        "complex": lambda x: _r(torch.complex(x[..., 0], x[..., 1])),
        "complex_mul": lambda x: _r(_c(x) * _c(x).flip(0)),
        "complex_scalar": lambda x: _r(_c(x) * (1 + 2j) + 0.5j),
    }
    return [Case(f"complex_{name}", (lambda fn=fn: Fn(fn)), inputs=_complex(3, 4)) for name, fn in fns.items()]


def _spd(a):
    """A batch of symmetric positive-definite matrices from wide ones."""
    return a @ a.mT


def _linalg_cases():
    la = torch.linalg
    square = {  # a [3, 4, 6]: a[..., :4] is square, _spd(a) positive definite
        "det": lambda a: la.det(a[..., :4]),
        "slogdet": lambda a: tuple(la.slogdet(a[..., :4])),
        "inv": lambda a: la.inv(_spd(a)),
        "inv_ex": lambda a: la.inv_ex(_spd(a)).inverse,
        "solve": lambda a: la.solve(_spd(a), a[..., 0]),
        "solve_ex": lambda a: tuple(la.solve_ex(_spd(a), a[..., :2])),
        "solve_matrix_right": lambda a: la.solve(_spd(a), a[:, :2, :4], left=False),
        "cholesky": lambda a: la.cholesky(_spd(a)),
        "cholesky_upper_ex": lambda a: la.cholesky_ex(_spd(a), upper=True).L,
        "eigh_reconstructed": lambda a: _eigh_parts(la.eigh(_spd(a))),
        "eigvalsh": lambda a: la.eigvalsh(_spd(a), UPLO="U"),
        "svd_reconstructed": lambda a: _svd_parts(la.svd(a, full_matrices=False)),
        "svdvals": lambda a: la.svdvals(a),
        "qr_reconstructed": lambda a: _qr_parts(la.qr(a.mT)),
        "pinv": lambda a: la.pinv(a),
        "pinv_hermitian": lambda a: la.pinv(_spd(a), hermitian=True),
        "pinv_float_tolerances": lambda a: la.pinv(a, atol=0.05, rtol=0.01),
        "matrix_rank": lambda a: la.matrix_rank(a),
        "matrix_rank_hermitian": lambda a: la.matrix_rank(_spd(a), hermitian=True),
        "matrix_rank_float_atol": lambda a: la.matrix_rank(a, atol=0.5),
        "cross": lambda a: la.cross(a[..., :3], a[..., 3:]),
        "cross_dim": lambda a: la.cross(a[:, :3], a[:, 1:], dim=1),
        "top_cross_default_dim": lambda a: torch.cross(a[0, :3, :3], a[1, :3, :3]),
        "norm": lambda a: la.norm(a),
        "norm_dims_keepdim": lambda a: la.norm(a, dim=(0, 2), keepdim=True),
        "norm_matrix_inf": lambda a: la.norm(a[0], float("inf")),
        "norm_nuc": lambda a: la.norm(a, "nuc", dim=(1, 2)),
        "vector_norm": lambda a: la.vector_norm(a, 3, dim=-1),
        "matrix_norm": lambda a: la.matrix_norm(a),
        "matrix_norm_2": lambda a: la.matrix_norm(a, 2),
        "matrix_norm_neg1_keepdim": lambda a: la.matrix_norm(a, -1, keepdim=True),
        "vecdot": lambda a: la.vecdot(a, a.flip(0)),
        "multi_dot": lambda a: la.multi_dot([a[0], a[1].mT, a[2]]),
        "multi_dot_four": lambda a: la.multi_dot([a[0, 0], a[1].mT, a[2], a[1, 0]]),
        "diagonal": lambda a: la.diagonal(a, offset=1) * 2,
        "top_det_inverse": lambda a: (torch.det(_spd(a)), torch.inverse(_spd(a))),
        "pinverse": lambda a: torch.pinverse(a[0]),
        "trace": lambda a: torch.trace(a[0]),
        "vdot": lambda a: torch.vdot(a[0, 0], a[1, 0]),
        "inner": lambda a: torch.inner(a[0], a[1]),
        "kron": lambda a: torch.kron(a[0], a[1, :2]),
        "tensordot": lambda a: torch.tensordot(a, a[0], dims=([1], [0])),
        "tensordot_int": lambda a: torch.tensordot(a, a[0].mT, dims=1),
        "chain_matmul": lambda a: torch.chain_matmul(a[0], a[1].mT, a[2]),
        "addr": lambda a: torch.addr(a[0, :, :4], a[1, 0, :4], a[2, 1, :4], beta=0.5, alpha=2),
        "cdist": lambda a: torch.cdist(a[0], a[1]),
        "cdist_p1_no_mm": lambda a: torch.cdist(a, a.flip(0), p=1, compute_mode="donot_use_mm_for_euclid_dist"),
        "cholesky_old": lambda a: (torch.cholesky(_spd(a)), _spd(a).cholesky(upper=True)),
        "cholesky_solve": lambda a: torch.cholesky_solve(a[..., :2], torch.linalg.cholesky_ex(_spd(a)).L),
        "cholesky_inverse": lambda a: torch.cholesky_inverse(torch.linalg.cholesky_ex(_spd(a)).L, upper=False),
        "logdet": lambda a: (torch.logdet(_spd(a)), a[..., :4].logdet()),
        "matrix_power_0": lambda a: torch.linalg.matrix_power(a[..., :4], 0),
        "matrix_power_1": lambda a: torch.linalg.matrix_power(a[..., :4], 1),
        "matrix_power_5": lambda a: torch.linalg.matrix_power(a[..., :4] / 2, 5),
        "matrix_power_3": lambda a: a[0, :, :4].matrix_power(3),
        "addbmm": lambda a: torch.addbmm(a[0, :, :4], a[:, :, :5], a.mT[:, :5, :4], alpha=0.5),
    }
    return [Case(f"linalg_{name}", (lambda fn=fn: Fn(fn)), inputs=_real(3, 4, 6), rtol=1e-3, atol=1e-4,
                 core_op_exceptions=_CHECKED_ERRORS.get(name, {}))
            for name, fn in square.items()]


def _dynamic_cases():
    batch = torch.export.Dim("batch", min=2, max=16)
    return [
        Case("linalg_dynamic_batch", lambda: Fn(lambda a: (torch.linalg.det(_spd(a)), torch.linalg.svdvals(a),
                                                           torch.linalg.solve(_spd(a), a[..., 0]))),
             inputs=_real(3, 4, 6), dynamic_shapes=(({0: batch},),), second=_real(5, 4, 6), rtol=1e-3, atol=1e-4,
             core_op_exceptions=_CHECK),
        Case("fft_dynamic_batch", lambda: Fn(lambda x: (_r(torch.fft.rfft(x, n=10)), torch.fft.irfft(torch.fft.fft2(x)),
                                                        torch.fft.fftshift(x, dim=0))),
             inputs=_real(3, 8), dynamic_shapes=(({0: batch},),), second=_real(6, 8)),
    ]


def _eigh_parts(result):
    values, vectors = result
    return values, (vectors * values[..., None, :]) @ vectors.mT


def _svd_parts(result):
    u, s, vh = result
    return s, (u * s[..., None, :]) @ vh


def _qr_parts(result):
    q, r = result
    return q @ r, r.abs()


# torch's inv, solve and cholesky check their info output through an effectful op
# (a token in the signature); texport's kernels raise instead.
_CHECK = {"with_effects": "torch checks info through _linalg_check_errors; texport's kernel raises"}
_CHECKED_ERRORS = {name: _CHECK for name in ("inv", "solve", "solve_matrix_right", "cholesky", "top_det_inverse")}


def cases():
    return _fft_cases() + _complex_cases() + _linalg_cases() + _dynamic_cases()
