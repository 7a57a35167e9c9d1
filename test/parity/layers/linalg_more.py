"""torch.linalg's LU, LDL and Householder-QR factorisations torch keeps whole in
core programs, the solves and products on their packed factors, triangular
solves, eig (eigenvectors by modulus: LAPACK builds choose their phase), the
matrix exponential, and the in-place products addr_ / addbmm_."""


def _real(*shape):
    return lambda rng: (rng.standard_normal(shape, dtype=np.float32),)


def _square(a):
    """a [3, 4, 6]: a well-conditioned batch of 4 x 4 matrices."""
    return a[..., :4] + 4 * torch.eye(4)


def _symmetric(a):
    return a[..., :4] + a[..., :4].mT


def _cases():
    la = torch.linalg
    fns = {
        "lu": lambda a: tuple(la.lu(_square(a))),
        "lu_wide": lambda a: tuple(la.lu(a)),
        "lu_factor_ex": lambda a: tuple(la.lu_factor_ex(_square(a))),
        "lu_unpack": lambda a: tuple(torch.lu_unpack(*la.lu_factor_ex(_square(a))[:2])),
        "lu_solve": lambda a: la.lu_solve(*la.lu_factor_ex(_square(a))[:2], a[..., :2]),
        "lu_solve_right_adjoint": lambda a: la.lu_solve(*la.lu_factor_ex(_square(a))[:2], a[:, :2, :4], left=False,
                                                        adjoint=True),
        "solve_triangular": lambda a: la.solve_triangular(_square(a), a[..., :2], upper=True),
        "solve_triangular_right_unit": lambda a: la.solve_triangular(_square(a), a[:, :2, :4], upper=False,
                                                                     left=False, unitriangular=True),
        "triangular_solve": lambda a: tuple(torch.triangular_solve(a[..., :2], _square(a), upper=False)),
        "triangular_solve_transposed": lambda a: torch.triangular_solve(a[..., :2], _square(a), transpose=True)[0],
        "ldl_factor_ex": lambda a: tuple(la.ldl_factor_ex(_symmetric(a))),
        "ldl_solve": lambda a: la.ldl_solve(*la.ldl_factor_ex(_symmetric(a))[:2], a[..., :2]),
        "geqrf": lambda a: tuple(torch.geqrf(a.mT)),
        "householder_product": lambda a: la.householder_product(*torch.geqrf(a.mT)),
        "ormqr": lambda a: torch.ormqr(*torch.geqrf(a.mT), a.mT[..., :2], transpose=True),
        "eig": lambda a: (torch.view_as_real(la.eig(_square(a)).eigenvalues), la.eig(_square(a)).eigenvectors.abs()),
        "matrix_exp": lambda a: la.matrix_exp(a[..., :4] / 4),
        "addr_": lambda a: a[0, :, :4].clone().addr_(a[1, 0, :4], a[2, 1, :4], beta=0.5, alpha=2),
        "addbmm_": lambda a: a[0, :, :4].clone().addbmm_(a[:, :, :5], a.mT[:, :5, :4], alpha=0.5),
        "lu_factor": lambda a: tuple(la.lu_factor(_square(a))),
        "ldl_factor": lambda a: tuple(la.ldl_factor(_symmetric(a))),
        "eigvals": lambda a: torch.view_as_real(la.eigvals(_square(a))),
        "top_matrix_exp": lambda a: (torch.matrix_exp(a[..., :4] / 4), (a[0, :, :4] / 4).matrix_exp()),
    }
    return [Case(f"linalg_more_{name}", (lambda fn=fn: Fn(fn)), inputs=_real(3, 4, 6), rtol=1e-3, atol=1e-4,
                 core_op_exceptions=_CHECK if name in ("lu_factor", "ldl_factor") else {})
            for name, fn in fns.items()]


# torch's lu_factor and ldl_factor check their info output through an effectful op
# (a token in the signature); texport's kernels raise instead.
_CHECK = {"with_effects": "torch checks info through _linalg_check_errors; texport's kernel raises"}


def _dynamic_cases():
    batch = torch.export.Dim("batch", min=2, max=16)
    return [Case("linalg_more_dynamic_batch",
                 lambda: Fn(lambda a: (torch.linalg.lu(_square(a)).U, torch.linalg.solve_triangular(
                     _square(a), a[..., :2], upper=True), torch.linalg.matrix_exp(a[..., :4] / 4))),
                 inputs=_real(3, 4, 6), dynamic_shapes=(({0: batch},),), second=_real(5, 4, 6), rtol=1e-3, atol=1e-4)]


def cases():
    return _cases() + _dynamic_cases()
