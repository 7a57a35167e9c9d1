"""Complex values end to end: a program with complex64 / complex128 tensors, a
complex buffer and a complex scalar argument prints, parses back to the same
text (texport's syntax and xDSL's generic one), saves, loads and runs with the
same numbers, at the training and core levels."""

from __future__ import annotations

import io

import numpy as np
import pytest

import texport as torch
from texport.dialects.context import parse_module, print_module


class Spectrum(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("w", torch.complex(torch.ones(5), torch.arange(5.0)))

    def forward(self, x):
        z = torch.fft.rfft(x.double())
        return torch.view_as_real(z * (1 + 2j)), torch.view_as_real(torch.fft.rfft(x) * self.w), torch.abs(z)


@pytest.mark.parametrize("level", ["training", "core"])
def test_a_complex_program_round_trips(level: str) -> None:
    x = torch.randn(2, 8)
    program = torch.export.export(Spectrum(), (x,))
    program = program if level == "training" else program.run_decompositions()
    text = program.mlir()
    assert "complex(1.0, 2.0)" in text and "complex<f32>" in text and "complex<f64>" in text
    assert print_module(parse_module(text)) == text
    generic = program.mlir(generic=True)
    assert print_module(parse_module(generic), generic=True) == generic
    buffer = io.BytesIO()
    torch.export.save(program, buffer)
    buffer.seek(0)
    loaded = torch.export.load(buffer)
    spectrum = np.fft.rfft(x.numpy().astype(np.float64))
    want = [spectrum * (1 + 2j), np.fft.rfft(x.numpy()) * (1 + 1j * np.arange(5)), np.abs(spectrum)]
    for got_program in (program, loaded):
        real, single, modulus = (out.numpy() for out in got_program.module()(x))
        np.testing.assert_allclose(real[..., 0] + 1j * real[..., 1], want[0], rtol=1e-6)
        np.testing.assert_allclose(single[..., 0] + 1j * single[..., 1], want[1], rtol=1e-4, atol=1e-5)
        assert modulus.dtype == np.float64
        np.testing.assert_allclose(modulus, want[2], rtol=1e-6)
