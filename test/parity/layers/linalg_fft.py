"""torch.fft, complex numbers and torch.linalg: each transform with its n / s,
dim and norm options (real, complex and integer inputs), the frequency tables
and shifts; view_as_real / view_as_complex, polar, complex, angle, real, imag,
conj and complex abs / sigmoid; and the linear-algebra functions, whose
vectors' signs LAPACK builds choose differently, compared through what torch
defines (reconstructions, absolute values)."""


class Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


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
    }
    return [Case(f"complex_{name}", (lambda fn=fn: Fn(fn)), inputs=_complex(3, 4)) for name, fn in fns.items()]


def cases():
    return _fft_cases() + _complex_cases()
