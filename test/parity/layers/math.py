"""Special functions and the rest of the pointwise maths, one call each: torch.*,
Tensor methods and their in-place forms, torch.special; Scalar overloads where
a Python number is an operand."""


class Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x, y):
        return self.fn(x, y)


def _normal(rng):
    return rng.standard_normal((3, 8), dtype=np.float32) * 2


def _unit(rng):
    return rng.random((3, 8), dtype=np.float32) * 0.9 + 0.05


def _positive(rng):
    return rng.random((3, 8), dtype=np.float32) * 4 + 0.1


def _with_edges(rng):
    """Normal values, and 0, -0, ±inf and nan in the first row."""
    x = _normal(rng)
    x[0, :6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0]
    return x


def _integers(rng):
    return rng.integers(-20, 20, (3, 8))


_S = torch.special

# name -> (function of x and y, input makers)
FUNCTIONS = {
    "erfc": (lambda x, y: torch.erfc(x) + x.erfc(), _normal),
    "erfinv": (lambda x, y: torch.erfinv(x * 2 - 1), _unit),
    "lgamma": (lambda x, y: torch.lgamma(x) + y.lgamma(), _normal),
    "digamma": (lambda x, y: torch.digamma(y), _positive),
    "polygamma": (lambda x, y: torch.polygamma(1, y) + y.polygamma(2) + torch.polygamma(0, y), _positive),
    "mvlgamma": (lambda x, y: torch.mvlgamma(y + 2, 3) + (y + 1).mvlgamma(1), _positive),
    "i0": (lambda x, y: torch.i0(x) + x.i0(), _normal),
    "xlogy": (lambda x, y: torch.xlogy(x, y) + x.xlogy(y), (_with_edges, _positive)),
    "xlogy_scalar": (lambda x, y: torch.xlogy(x, 2.5) + torch.xlogy(3, y), (_normal, _positive)),
    "sinc": (lambda x, y: torch.sinc(x) + x.sinc(), _with_edges),
    "logit": (lambda x, y: torch.logit(y) + y.logit(0.2), _unit),
    "hypot": (lambda x, y: torch.hypot(x, y), _normal),
    "copysign": (lambda x, y: torch.copysign(x, y) + x.copysign(-1.0), _with_edges),
    "logaddexp": (lambda x, y: torch.logaddexp(x, y) + torch.logaddexp2(x, y), _with_edges),
    "fmax_fmin": (lambda x, y: torch.fmax(x, y) * torch.fmin(x, y), _with_edges),
    "gcd_lcm": (lambda x, y: torch.gcd(x, y) + torch.lcm(x, y) + x.gcd(y),
                _integers),
    "float_power": (lambda x, y: torch.float_power(y, x) + y.float_power(2) + torch.float_power(2, x), _positive),
    "deg2rad": (lambda x, y: torch.deg2rad(x) + x.rad2deg(), _normal),
    "sgn_fix": (lambda x, y: torch.sgn(x) + torch.fix(x * 3) + x.fix(), _with_edges),
    "nextafter": (lambda x, y: torch.nextafter(x, y), _normal),
    "heaviside": (lambda x, y: torch.heaviside(x, y), _with_edges),
    "ldexp": (lambda x, y: torch.ldexp(x, y // 5), (_normal, _integers)),
    "frexp": (lambda x, y: torch.frexp(x), _normal),
    "isclose": (lambda x, y: torch.logical_and(torch.isclose(x, x + y * 1e-5),
                                               x.isclose(y, rtol=0.5, atol=0.1, equal_nan=True)), _with_edges),
    "inf_tests": (lambda x, y: torch.stack([torch.isposinf(x), torch.isneginf(y), torch.isreal(x), torch.signbit(x)]),
                  _with_edges),
    "positive": (lambda x, y: torch.positive(x) * 2, _normal),
    "special_unary": (lambda x, y: _S.erf(x) + _S.erfc(x) + _S.expm1(x) + _S.exp2(x) + _S.expit(x) + _S.ndtr(x)
                      + _S.log_ndtr(x) + _S.i0e(x) + _S.i1(x) + _S.i1e(x) + _S.sinc(x) + _S.gammaln(x)
                      + _S.i0(x) + _S.round(x), _normal),
    "special_positive": (lambda x, y: _S.erfinv(y / 5) + _S.digamma(y) + _S.psi(y) + _S.ndtri(y / 5) + _S.erfcx(y)
                         + _S.entr(y) + _S.logit(y / 5) + _S.log1p(y) + _S.polygamma(1, y)
                         + _S.multigammaln(y + 1, 2) + _S.xlog1py(x, y) + _S.xlogy(x, y) + _S.zeta(y + 1, y),
                         _positive),
    "special_bessel": (lambda x, y: _S.bessel_j0(x) + _S.bessel_j1(x) + _S.bessel_y0(y) + _S.bessel_y1(y)
                       + _S.modified_bessel_i0(x) + _S.modified_bessel_i1(x) + _S.modified_bessel_k0(y)
                       + _S.modified_bessel_k1(y) + _S.scaled_modified_bessel_k0(y) + _S.scaled_modified_bessel_k1(y)
                       + _S.spherical_bessel_j0(x) + _S.airy_ai(x), _positive),
    "incomplete_gamma": (lambda x, y: _S.gammainc(x, y) + _S.gammaincc(y, x) + torch.igamma(x, y) + x.igammac(y)
                         + (x * 1).igamma_(y), _positive),
    "special_round": (lambda x, y: _S.round(x * 10, decimals=1) + torch.round(x, decimals=2), _normal),
    "special_softmax": (lambda x, y: _S.softmax(x, 1) + _S.log_softmax(y, 0) + _S.logsumexp(x, 1, keepdim=True), _normal),
    "in_place": (lambda x, y: (x * 1).erfc_() + (y * 1).lgamma_() + (y * 1).digamma_() + (x * 1).sinc_()
                 + (y / 5).logit_() + (x * 1).hypot_(y) + (x * 1).copysign_(y) + (x * 1).xlogy_(y)
                 + (x * 1).deg2rad_() + (x * 1).sgn_() + (x * 1).fix_() + (x * 1).ldexp_(y.long())
                 + (x * 1).nextafter_(y) + (y * 1).i0_(), _positive),
}


def _inputs(makers):
    first, second = makers if isinstance(makers, tuple) else (makers, makers)
    return lambda rng: (first(rng), second(rng))


# torch's refs turn a Python-number operand into prims.scalar_tensor, an op texport's core set does not have
_PRIMS_SCALAR = {"prims.scalar_tensor.default": "texport makes the number's 0-d tensor with aten.scalar_tensor",
                 "aten.scalar_tensor.default": "texport makes the number's 0-d tensor with aten.scalar_tensor"}
EXCEPTIONS = {"xlogy_scalar": _PRIMS_SCALAR}


def _batch_dims():
    batch = torch.export.Dim("batch", min=2, max=32)
    return {"x": {0: batch}, "y": {0: batch}}


def _wide(rng):
    return (_with_edges(rng)[:, :5].repeat(3, 0), _positive(rng)[:, :5].repeat(3, 0))


def cases():
    cases = [Case(name, (lambda fn=fn: Fn(fn)), inputs=_inputs(makers), rtol=2e-4,
                  core_op_exceptions=EXCEPTIONS.get(name, {}))
             for name, (fn, makers) in FUNCTIONS.items()]
    # a dynamic batch through the decomposed ones (mvlgamma's new last dim, logaddexp's masks)
    cases.append(Case(
        "dynamic_batch", lambda: Fn(lambda x, y: torch.logaddexp(x, y) + torch.mvlgamma(y + 2, 2)
                                    + torch.xlogy(x, y) + torch.special.ndtr(x) + torch.sinc(x)),
        inputs=lambda rng: (_with_edges(rng)[:, :5], _positive(rng)[:, :5]), dynamic_shapes=_batch_dims(),
        second=_wide, rtol=2e-4))
    return cases
