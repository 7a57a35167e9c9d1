"""``texport.linalg`` (torch.linalg's functions) and the top-level functions and
Tensor methods of the same family: complex numbers (``view_as_real``, ``polar``,
``conj`` ...) and linear algebra (``det``, ``trace``, ``kron`` ...). Each records
the op torch's Python API records."""

from __future__ import annotations

import collections
import weakref
from collections.abc import Sequence
from typing import Any

from .dispatcher import call
from .handles import op
from .tensor import Tensor

__all__: list[str] = []


# ---------------------------------------------------------------- complex numbers


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002 - torch's name
    return call(op("view_as_real"), input)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("view_as_complex"), input)


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002
    return call(op("polar"), abs, angle)


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001
    return call(op("complex"), real, imag)


def angle(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("angle"), input)


def real(input: Tensor) -> Tensor:  # noqa: A002
    """A complex tensor's real parts (a view); a real tensor itself."""
    return call(op("real"), input) if input.is_complex() else input


def imag(input: Tensor) -> Tensor:  # noqa: A002
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return call(op("imag"), input)


# The tensors torch would mark with its conjugate bit (texport computes the
# conjugate; the mark only decides whether resolve_conj is recorded), by id.
_CONJUGATES: dict[int, weakref.ref[Tensor]] = {}


def mark_conjugate(tensor: Tensor) -> Tensor:
    key = id(tensor)
    _CONJUGATES[key] = weakref.ref(tensor, lambda _: _CONJUGATES.pop(key, None))
    return tensor


def conj(input: Tensor) -> Tensor:  # noqa: A002
    """torch.conj: the lazy conjugate of a complex tensor; a real tensor is its own."""
    return mark_conjugate(call(op("_conj"), input)) if input.is_complex() else input


def conj_physical(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("conj_physical"), input) if input.is_complex() else input


def is_conj(input: Tensor) -> bool:  # noqa: A002
    ref = _CONJUGATES.get(id(input))
    return ref is not None and ref() is input


def resolve_conj(input: Tensor) -> Tensor:  # noqa: A002
    """A conjugate's copy (texport computed its values already); any other tensor itself."""
    return call(op("resolve_conj"), input) if is_conj(input) else input


COMPLEX_FUNCTIONS = {
    "view_as_real": view_as_real, "view_as_complex": view_as_complex, "polar": polar, "complex": complex,
    "angle": angle, "real": real, "imag": imag, "conj": conj, "conj_physical": conj_physical,
    "resolve_conj": resolve_conj, "is_conj": is_conj,
}


def _install_complex_methods() -> None:
    for name in ("angle", "conj", "conj_physical", "resolve_conj", "is_conj"):
        setattr(Tensor, name, COMPLEX_FUNCTIONS[name])
    Tensor.real = property(real)
    Tensor.imag = property(imag)


_install_complex_methods()

FUNCTIONS: dict[str, Any] = dict(COMPLEX_FUNCTIONS)


# ---------------------------------------------------------------- torch.linalg


def _named(name: str, fields: str) -> Any:
    """A torch.return_types-like named tuple."""
    return collections.namedtuple(name, fields)


linalg_slogdet_result = _named("linalg_slogdet", "sign logabsdet")
linalg_inv_ex_result = _named("linalg_inv_ex", "inverse info")
linalg_solve_ex_result = _named("linalg_solve_ex", "result info")
linalg_lstsq_result = _named("linalg_lstsq", "solution residuals rank singular_values")
linalg_cholesky_ex_result = _named("linalg_cholesky_ex", "L info")
linalg_qr_result = _named("linalg_qr", "Q R")
linalg_svd_result = _named("linalg_svd", "U S Vh")
linalg_eigh_result = _named("linalg_eigh", "eigenvalues eigenvectors")


def _dims(dim: Any) -> list[int] | None:
    if dim is None:
        return None
    return [dim] if isinstance(dim, int) else list(dim)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,  # noqa: N803, A002
         dtype: Any = None) -> Tensor:
    if isinstance(ord, str):
        return call(op("linalg_norm.ord_str"), A, ord, _dims(dim), keepdim, dtype=dtype)
    return call(op("linalg_norm"), A, ord, _dims(dim), keepdim, dtype=dtype)


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                dtype: Any = None) -> Tensor:
    return call(op("linalg_vector_norm"), x, ord, _dims(dim), keepdim, dtype=dtype)


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,  # noqa: N803, A002
                dtype: Any = None) -> Tensor:
    name = "linalg_matrix_norm.str_ord" if isinstance(ord, str) else "linalg_matrix_norm"
    return call(op(name), A, ord, list(dim), keepdim, dtype=dtype)


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:  # noqa: N803
    return call(op("linalg_solve"), A, B, left=left)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> Any:  # noqa: N803
    return linalg_solve_ex_result(*call(op("linalg_solve_ex"), A, B, left=left, check_errors=check_errors))


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:  # noqa: N803
    return linalg_lstsq_result(*call(op("linalg_lstsq"), A, B, rcond, driver=driver))


def inv(A: Tensor) -> Tensor:  # noqa: N803
    return call(op("linalg_inv"), A)


def inv_ex(A: Tensor, *, check_errors: bool = False) -> Any:  # noqa: N803
    return linalg_inv_ex_result(*call(op("linalg_inv_ex"), A, check_errors=check_errors))


def det(A: Tensor) -> Tensor:  # noqa: N803
    return call(op("linalg_det"), A)


def slogdet(A: Tensor) -> Any:  # noqa: N803
    return linalg_slogdet_result(*call(op("linalg_slogdet"), A))


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:  # noqa: N803
    return call(op("linalg_cholesky"), A, upper=upper)


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:  # noqa: N803
    return linalg_cholesky_ex_result(*call(op("linalg_cholesky_ex"), A, upper=upper, check_errors=check_errors))


def qr(A: Tensor, mode: str = "reduced") -> Any:  # noqa: N803
    return linalg_qr_result(*call(op("linalg_qr"), A, mode))


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> Any:  # noqa: N803
    return linalg_svd_result(*call(op("linalg_svd"), A, full_matrices, driver=driver))


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:  # noqa: N803
    return call(op("linalg_svdvals"), A, driver=driver)


def eigh(A: Tensor, UPLO: str = "L") -> Any:  # noqa: N803
    return linalg_eigh_result(*call(op("linalg_eigh"), A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    return call(op("linalg_eigvalsh"), A, UPLO)


def _tolerance_overload(name: str, atol: Any, rtol: Any) -> str:
    """torch's binding: float tolerances pick the .atol_rtol_float overload, tensors or none the tensor one."""
    floats = isinstance(atol, (int, float)) or isinstance(rtol, (int, float))
    return f"{name}.atol_rtol_float" if floats else f"{name}.atol_rtol_tensor"


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:  # noqa: N803
    return call(op(_tolerance_overload("linalg_pinv", atol, rtol)), A, atol=atol, rtol=rtol, hermitian=hermitian)


def matrix_rank(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:  # noqa: N803
    return call(op(_tolerance_overload("linalg_matrix_rank", atol, rtol)), A, atol=atol, rtol=rtol,
                hermitian=hermitian)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    return call(op("linalg_cross"), input, other, dim=dim)


def matrix_power(A: Tensor, n: int) -> Tensor:  # noqa: N803
    return call(op("linalg_matrix_power"), A, n)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    return call(op("linalg_vecdot"), x, y, dim=dim)


def matmul(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return call(op("matmul"), input, other)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    return call(op("linalg_multi_dot"), list(tensors))


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: N803
    return call(op("linalg_diagonal"), A, offset=offset, dim1=dim1, dim2=dim2)


linalg_lu_result = _named("linalg_lu", "P L U")
linalg_lu_factor_ex_result = _named("linalg_lu_factor_ex", "LU pivots info")
linalg_ldl_factor_ex_result = _named("linalg_ldl_factor_ex", "LD pivots info")
linalg_eig_result = _named("linalg_eig", "eigenvalues eigenvectors")


def lu(A: Tensor, *, pivot: bool = True) -> Any:  # noqa: N803 - torch's names
    return linalg_lu_result(*call(op("linalg_lu"), A, pivot=pivot))


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:  # noqa: N803
    return linalg_lu_factor_ex_result(*call(op("linalg_lu_factor_ex"), A, pivot=pivot, check_errors=check_errors))


linalg_lu_factor_result = _named("linalg_lu_factor", "LU pivots")
linalg_ldl_factor_result = _named("linalg_ldl_factor", "LD pivots")


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:  # noqa: N803
    return linalg_lu_factor_result(*call(op("linalg_lu_factor"), A, pivot=pivot))


def ldl_factor(A: Tensor, *, hermitian: bool = False) -> Any:  # noqa: N803
    return linalg_ldl_factor_result(*call(op("linalg_ldl_factor"), A, hermitian=hermitian))


def eigvals(A: Tensor) -> Tensor:  # noqa: N803
    return call(op("linalg_eigvals"), A)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:  # noqa: N803
    return call(op("linalg_lu_solve"), LU, pivots, B, left=left, adjoint=adjoint)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,  # noqa: N803
                     unitriangular: bool = False) -> Tensor:
    return call(op("linalg_solve_triangular"), A, B, upper=upper, left=left, unitriangular=unitriangular)


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> Any:  # noqa: N803
    return linalg_ldl_factor_ex_result(*call(op("linalg_ldl_factor_ex"), A, hermitian=hermitian,
                                             check_errors=check_errors))


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:  # noqa: N803
    return call(op("linalg_ldl_solve"), LD, pivots, B, hermitian=hermitian)


def householder_product(A: Tensor, tau: Tensor) -> Tensor:  # noqa: N803
    return call(op("linalg_householder_product"), A, tau)


def eig(A: Tensor) -> Any:  # noqa: N803
    return linalg_eig_result(*call(op("linalg_eig"), A))


def matrix_exp(A: Tensor) -> Tensor:  # noqa: N803
    return call(op("linalg_matrix_exp"), A)


__all__ += ["lu", "lu_factor", "ldl_factor", "eigvals", "lu_factor_ex", "lu_solve", "solve_triangular", "ldl_factor_ex", "ldl_solve",
            "householder_product", "eig", "matrix_exp"]

__all__ += ["norm", "vector_norm", "matrix_norm", "solve", "solve_ex", "lstsq", "inv", "inv_ex", "det", "slogdet", "cholesky",
            "cholesky_ex", "qr", "svd", "svdvals", "eigh", "eigvalsh", "pinv", "matrix_rank", "matrix_power", "cross", "vecdot", "matmul",
            "multi_dot", "diagonal"]


# ---------------------------------------------------------------- top-level functions and Tensor methods


def _det(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("det"), input)


def inverse(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("inverse"), input)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    return call(op("pinverse"), input, rcond)


def trace(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("trace"), input)


def vdot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return call(op("vdot"), input, other)


def inner(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return call(op("inner"), input, other)


def kron(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return call(op("kron"), input, other)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """dims: how many trailing dims of a meet as many leading ones of b, or the two dim lists."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        return call(op("tensordot"), a, b, list(range(a.dim() - dims, a.dim())), list(range(dims)))
    dims_a, dims_b = dims
    return call(op("tensordot"), a, b, _dims(dims_a), _dims(dims_b))


def _cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    return call(op("cross"), input, other, dim)


def _cholesky(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    return call(op("cholesky"), input, upper)


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    return call(op("cholesky_solve"), input, input2, upper)


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    return call(op("cholesky_inverse"), input, upper)


def logdet(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("logdet"), input)


def _matrix_power(input: Tensor, n: int) -> Tensor:  # noqa: A002
    return call(op("matrix_power"), input, n)


def chain_matmul(*matrices: Tensor) -> Tensor:
    return call(op("chain_matmul"), list(matrices))


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    return call(op("addr"), input, vec1, vec2, beta=beta, alpha=alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    return call(op("addbmm"), input, batch1, batch2, beta=beta, alpha=alpha)


geqrf_result = _named("geqrf", "a tau")
lu_unpack_result = _named("lu_unpack", "P L U")
triangular_solve_result = _named("triangular_solve", "solution cloned_coefficient")


def geqrf(input: Tensor) -> Any:  # noqa: A002
    return geqrf_result(*call(op("geqrf"), input))


def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False) -> Tensor:  # noqa: A002
    return call(op("ormqr"), input, input2, input3, left, transpose)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,  # noqa: N803 - torch's names
              unpack_pivots: bool = True) -> Any:
    return lu_unpack_result(*call(op("lu_unpack"), LU_data, LU_pivots, unpack_data, unpack_pivots))


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,  # noqa: A002, N803
                     unitriangular: bool = False) -> Any:
    return triangular_solve_result(*call(op("triangular_solve"), input, A, upper, transpose, unitriangular))


def _matrix_exp(input: Tensor) -> Tensor:  # noqa: A002
    return call(op("matrix_exp"), input)


def addr_(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    return call(op("addr_"), input, vec1, vec2, beta=beta, alpha=alpha)


def addbmm_(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    return call(op("addbmm_"), input, batch1, batch2, beta=beta, alpha=alpha)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between each pair of rows of x1 and x2 (torch.functional.cdist)."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return call(op("cdist"), x1, x2, p, _CDIST_MODES[compute_mode])


LINALG_FUNCTIONS = {
    "det": _det, "inverse": inverse, "pinverse": pinverse, "trace": trace, "vdot": vdot, "inner": inner,
    "kron": kron, "tensordot": tensordot, "cross": _cross, "cdist": cdist, "cholesky": _cholesky,
    "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse, "logdet": logdet,
    "matrix_power": _matrix_power, "chain_matmul": chain_matmul, "addr": addr, "addbmm": addbmm,
    "matrix_exp": _matrix_exp, "geqrf": geqrf, "ormqr": ormqr, "lu_unpack": lu_unpack, "triangular_solve": triangular_solve,
}
_IN_PLACE_METHODS = {"addr_": addr_, "addbmm_": addbmm_}


def _install_linalg_methods() -> None:
    for name in ("det", "inverse", "pinverse", "trace", "vdot", "inner", "kron", "addr", "addbmm", "cross",
                 "cholesky", "cholesky_solve", "cholesky_inverse", "logdet", "matrix_power", "matrix_exp", "geqrf", "ormqr",
                 "triangular_solve"):
        setattr(Tensor, name, LINALG_FUNCTIONS[name])
    for name, method in _IN_PLACE_METHODS.items():
        setattr(Tensor, name, method)
    Tensor.slogdet = slogdet


_install_linalg_methods()
FUNCTIONS.update(LINALG_FUNCTIONS)
