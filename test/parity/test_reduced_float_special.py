"""float16 and bfloat16 special functions and pointwise maths against real
torch, bit for bit (the rules of test_reduced_float_parity.py: a mismatch is
excused only next to a rounding tie of the reduced dtype). torch computes them
in float32 and rounds once, but where its kernel calls c10's reduced-float log
(xlogy, xlog1py, entr) or is an ATen composite (mvlgamma, special.ndtr), each
step rounds; texport follows it."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

from test_reduced_float_parity import (  # noqa: E402
    DTYPES,
    Op,
    V,
    as_numpy,
    both,
    inputs,
    near_tie,
    run_both,
    ulps,
)

ANY, POSITIVE, UNIT = (-30.0, 30.0), (0.05, 30.0), (0.01, 0.99)

SPECIAL: dict[str, tuple[Op, int, tuple[float, float]]] = {
    "erfc": (lambda m, a: m.erfc(a), 1, (-3.0, 3.0)),
    "erfinv": (lambda m, a: m.erfinv(a), 1, (-0.99, 0.99)),
    "lgamma": (lambda m, a: m.lgamma(a), 1, POSITIVE),
    "digamma": (lambda m, a: m.digamma(a), 1, POSITIVE),
    "polygamma_1": (lambda m, a: m.polygamma(1, a), 1, POSITIVE),
    "polygamma_2": (lambda m, a: m.polygamma(2, a), 1, POSITIVE),
    "mvlgamma": (lambda m, a: m.mvlgamma(a, 2), 1, (1.0, 30.0)),
    "i0": (lambda m, a: m.i0(a), 1, (-5.0, 5.0)),
    "i0e": (lambda m, a: m.special.i0e(a), 1, (-5.0, 5.0)),
    "i1": (lambda m, a: m.special.i1(a), 1, (-5.0, 5.0)),
    "i1e": (lambda m, a: m.special.i1e(a), 1, (-5.0, 5.0)),
    "ndtr": (lambda m, a: m.special.ndtr(a), 1, (-3.0, 3.0)),
    "entr": (lambda m, a: m.special.entr(a), 1, POSITIVE),
    "expit": (lambda m, a: m.special.expit(a), 1, (-3.0, 3.0)),
    "sinc": (lambda m, a: m.sinc(a), 1, (-3.0, 3.0)),
    "logit": (lambda m, a: m.logit(a), 1, UNIT),
    "logit_eps": (lambda m, a: m.logit(a, 0.2), 1, UNIT),
    "deg2rad": (lambda m, a: m.deg2rad(a), 1, (-300.0, 300.0)),
    "rad2deg": (lambda m, a: m.rad2deg(a), 1, (-3.0, 3.0)),
    "xlogy": (lambda m, a, b: m.xlogy(a, b), 2, POSITIVE),
    "xlog1py": (lambda m, a, b: m.special.xlog1py(a, b), 2, POSITIVE),
    "hypot": (lambda m, a, b: m.hypot(a, b), 2, ANY),
    "copysign": (lambda m, a, b: m.copysign(a, b), 2, ANY),
    "logaddexp": (lambda m, a, b: m.logaddexp(a, b), 2, ANY),
    "logaddexp2": (lambda m, a, b: m.logaddexp2(a, b), 2, ANY),
    "fmax": (lambda m, a, b: m.fmax(a, b), 2, ANY),
    "nextafter": (lambda m, a, b: m.nextafter(a, b), 2, ANY),
    "heaviside": (lambda m, a, b: m.heaviside(a, b), 2, ANY),
    "ldexp": (lambda m, a: m.ldexp(a, m.tensor(3)), 1, ANY),
    "frexp_mantissa": (lambda m, a: m.frexp(a)[0], 1, ANY),
    "sgn": (lambda m, a: m.sgn(a), 1, ANY),
    "fix": (lambda m, a: m.fix(a), 1, ANY),
    "special_round": (lambda m, a: m.special.round(a, decimals=1), 1, ANY),
    "igamma": (lambda m, a, b: m.igamma(a, b), 2, (0.05, 10.0)),
    "gammaincc": (lambda m, a, b: m.special.gammaincc(a, b), 2, (0.05, 10.0)),
}


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_functions_are_bit_exact(name: str, dtype: str) -> None:
    op, arity, (low, high) = SPECIAL[name]
    theirs, ours = both(inputs((V,) * arity, low, high, seed=len(name)), dtype)
    want, got = run_both(op, theirs, ours)
    wide = as_numpy(op(torch, *[t.float() for t in theirs]))
    wrong = (ulps(want, got) > 0) & ~near_tie(wide, dtype)
    assert not wrong.any(), (f"{int(wrong.sum())} of {want.size} differ, e.g. torch {want[wrong][:4]} "
                             f"texport {got[wrong][:4]}")


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", ["special_ndtri", "special_erfcx", "special_log_ndtr", "special_bessel_j0",
                                  "special_zeta", "special_modified_bessel_k1", "special_airy_ai"])
def test_no_reduced_float_kernel_as_torch(name: str, dtype: str) -> None:
    import texport

    theirs, ours = both(inputs((V,), 0.1, 0.9, seed=1), dtype)
    args = (2,) if name == "special_zeta" else ()
    with pytest.raises(NotImplementedError) as torch_error:
        getattr(torch.ops.aten, name)(*theirs, *args)
    with pytest.raises(NotImplementedError) as texport_error:
        getattr(texport.ops.aten, name)(*ours, *args)
    assert str(texport_error.value) == str(torch_error.value)
