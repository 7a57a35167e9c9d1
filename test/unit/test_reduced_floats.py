"""float16 and bfloat16: storage, casts, opmath compute and dtype rules, on cases
computed by hand (each one's torch 2.13 value is noted; test/parity compares
against torch itself). bfloat16 has 8 significant bits: between 1 and 2 its
values are 2**-7 apart, between 2 and 4 2**-6 apart."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

import texport as torch
from texport.interpreter.dtypes import cast, from_numpy, to_numpy
from texport.interpreter.errors import GuardError

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32
TIE = 1 + 2**-8  # halfway between bf16's 1.0 and 1.0078125


def bf(*values: float) -> torch.Tensor:
    return torch.tensor(list(values)).to(bf16)


def bits(tensor: torch.Tensor) -> list[int]:
    return tensor.numpy().view(np.uint16).tolist()


# ---------------------------------------------------------------- storage and casts


def test_to_bfloat16_rounds_and_stores_two_bytes() -> None:
    x = torch.tensor([3.14159265]).to(bf16)
    assert x.item() == 3.140625 and type(x.item()) is float
    assert x.dtype is bf16 and x.numpy().dtype.itemsize == 2
    assert bits(x) == [0x4049]
    assert x.view(torch.int16).tolist() == [0x4049]


def test_casts_round_to_nearest_even() -> None:
    # 1 + 2**-8 ties between 1.0 (even) and 1.0078125 (odd); 1 + 3 * 2**-8 between
    # 1.0078125 (odd) and 1.015625 (even); just above a tie rounds up
    assert torch.tensor([TIE, 1 + 3 * 2**-8, TIE + 2**-20]).bfloat16().tolist() == [
        1.0, 1.015625, 1.0078125]
    assert torch.tensor([1 + 2**-11]).half().item() == 1.0


def test_double_reaches_reduced_floats_through_float32() -> None:
    # c10 converts double -> float -> BFloat16/Half: TIE + 1e-12 is TIE in float32,
    # which then ties to even (torch: 1.0; a direct double rounding gives 1.0078125)
    near = TIE + 1e-12
    assert torch.tensor([near], dtype=torch.float64).to(bf16).item() == 1.0
    assert torch.tensor([near], dtype=bf16).item() == 1.0
    assert torch.full((1,), near, dtype=bf16).item() == 1.0
    assert torch.tensor([1 + 2**-11 + 1e-12], dtype=torch.float64).half().item() == 1.0
    assert cast(np.float64(near), to_numpy(bf16)).item() == 1.0


def test_reduced_floats_to_integers_truncate() -> None:
    assert bf(-1.5, 2.5, 7.9).to(torch.int32).tolist() == [-1, 2, 7]
    assert bf(-1.5, 2.5).to(torch.bool).tolist() == [True, True]


def test_bfloat16_prints_as_torch() -> None:
    assert repr(torch.tensor([3.14159265]).bfloat16()) == "tensor([3.1406], dtype=texport.bfloat16)"
    assert repr(bf(0.1, 0.2, 0.3)) == "tensor([0.1001, 0.2002, 0.3008], dtype=texport.bfloat16)"
    assert repr(torch.tensor(2.5).bfloat16()) == "tensor(2.5000, dtype=texport.bfloat16)"
    assert repr(torch.tensor([[1, 2], [3, 4]]).bfloat16()) == (
        "tensor([[1., 2.],\n        [3., 4.]], dtype=texport.bfloat16)")


def test_numpy_bfloat16_arrays_are_texport_bfloat16() -> None:
    array = np.array([1.5, 2.0], dtype=to_numpy(bf16))
    assert torch.from_numpy(array).dtype is bf16 and from_numpy(array.dtype) is bf16


# ---------------------------------------------------------------- opmath: float32 inside, one rounding


def test_sums_accumulate_in_float32() -> None:
    # bfloat16 steps of 1 stop at 256 (257 rounds back to 256); torch sums in float
    ones = torch.ones(1000, dtype=bf16)
    assert ones.sum().item() == 1000.0 and ones.sum().dtype is bf16
    assert ones.mean().item() == 1.0
    assert ones.cumsum(0)[-1].item() == 1000.0
    assert (ones.reshape(1, 1000) @ ones.reshape(1000, 1)).item() == 1000.0
    assert torch.nn.functional.linear(ones.reshape(1, 1000), ones.reshape(1, 1000)).item() == 1000.0
    assert torch.ones(3000, dtype=f16).sum().item() == 3000.0


def test_scatter_add_accumulates_in_float32_index_put_in_bfloat16() -> None:
    # torch: scatter_add sums in float (300); index_put(accumulate) and a 1-d
    # index_add add element by element in bfloat16 (256)
    zeros, ones, index = torch.zeros(1, dtype=bf16), torch.ones(300, dtype=bf16), torch.zeros(300, dtype=torch.int64)
    assert zeros.scatter_add(0, index, ones).item() == 300.0
    assert zeros.index_put((index,), ones, accumulate=True).item() == 256.0
    assert zeros.index_add(0, index, ones).item() == 256.0
    assert torch.zeros(1, 2, dtype=bf16).index_add(0, index, torch.ones(300, 2, dtype=bf16)).tolist() == [
        [300.0, 300.0]]


def test_scalars_round_to_the_dtype_except_mul_and_div() -> None:
    # add/sub meet 2**-8 + 2**-20 as bf16's 2**-8: 1 + 2**-8 ties to 1.0 (torch: 1.0);
    # mul keeps TIE in float32: 3 * TIE = 3.01171875 -> 3.015625 (torch: 3.015625)
    assert (bf(1.0) + (2**-8 + 2**-20)).item() == 1.0
    assert (bf(1.0) - (-(2**-8) - 2**-20)).item() == 1.0
    assert (bf(3.0) * TIE).item() == 3.015625
    assert (bf(3.0) / (1 / TIE)).item() == 3.015625
    assert (bf(3.0) * torch.tensor(TIE)).item() == 3.015625  # a one-element float32 factor too
    assert (bf(3.0) + torch.tensor(2**-7 + 2**-20)).item() == 3.0  # but not for add


def test_one_rounding_for_composite_elementwise_ops() -> None:
    # value and weight stay float32: 1 + 1 * (1.0078125 + 2**-20) = 2.00781345 is just
    # above the tie between 2.0 and 2.015625, so it rounds up (torch: 2.015625); the
    # weight rounded to bf16 first, or the product rounded, would land on the tie -> 2.0
    v = 1.0078125 + 2**-20
    assert torch.addcmul(bf(1.0), bf(1.0), bf(1.0), value=v).item() == 2.015625
    assert torch.addcdiv(bf(1.0), bf(1.0), bf(1.0), value=v).item() == 2.015625
    assert torch.lerp(bf(1.0), bf(3.0), v / 2).item() == 2.015625
    # sigmoid(0.75) = 0.679178...: bfloat16 0.6796875 (torch)
    assert torch.sigmoid(bf(0.75)).item() == 0.6796875
    # softmax of three equal values: 1/3 -> 0.333984375 (torch)
    assert torch.zeros(3, dtype=bf16).softmax(0).tolist() == [0.333984375] * 3


def test_bfloat16_cube_rounds_after_each_product() -> None:
    # torch's bfloat16 pow(x, 3) is x * x * x in bfloat16: 0.51953125**2 -> 0.26953125,
    # then * 0.51953125 -> 0.1396484375 (one rounding of the cube gives 0.140625)
    assert (bf(0.51953125) ** 3).item() == 0.1396484375
    assert (bf(0.51953125) ** 3.0).item() == 0.1396484375
    assert (bf(0.51953125).float() ** 3).item() == pytest.approx(0.51953125**3, rel=1e-7)


def test_prod_rounds_after_every_factor() -> None:
    # torch's prod has no opmath: 1.0078125**2 -> 1.015625, * 1.0078125 -> 1.0234375
    assert torch.full((3,), 1.0078125, dtype=bf16).prod().item() == 1.0234375
    assert bf(1.5, 2.5, 3.0, 4.0).reshape(2, 2).prod(1, keepdim=True).tolist() == [[3.75], [12.0]]


def test_layer_norm_statistics_in_float32() -> None:
    x = bf(1.0, 2.0, 3.0, 4.0).reshape(1, 4)
    out = torch.nn.functional.layer_norm(x, (4,))
    # (x - 2.5) / sqrt(1.25 + 1e-5) = [-1.3416, -0.4472, 0.4472, 1.3416]
    assert out.dtype is bf16 and out.tolist() == [[-1.34375, -0.447265625, 0.447265625, 1.34375]]


def test_float16_activations_in_float32() -> None:
    x = torch.tensor([-3.0, 0.5, 2.0]).half()
    # gelu(2) = 1.9545 -> float16 1.954 (1.9541015625)
    assert torch.nn.functional.gelu(x).tolist()[2] == 1.9541015625
    assert torch.nn.functional.silu(x).dtype is f16


# ---------------------------------------------------------------- dtype rules


@pytest.mark.parametrize(("make", "want"), [
    (lambda: torch.ones(2, dtype=bf16) + torch.ones(2), f32),
    (lambda: torch.ones(2, dtype=bf16) + torch.tensor(1.0), bf16),
    (lambda: torch.ones(2, dtype=bf16) + torch.tensor(1.0, dtype=torch.float64), bf16),
    (lambda: torch.ones(2, dtype=bf16) + torch.arange(2), bf16),
    (lambda: torch.tensor(1.0, dtype=bf16) + torch.ones(2, dtype=torch.int32), bf16),
    (lambda: torch.ones(2, dtype=bf16) + 2.5, bf16),
    (lambda: torch.ones(2, dtype=bf16) * 2, bf16),
    (lambda: torch.ones(2, dtype=bf16) + torch.ones(2, dtype=f16), f32),
    (lambda: torch.ones(2, dtype=bf16) > 0.5, torch.bool),
    (lambda: torch.arange(3) / torch.tensor(2.0, dtype=bf16), bf16),
    (lambda: torch.ones(2, 2, dtype=bf16).softmax(-1, dtype=f32), f32),
    (lambda: torch.ones(2, dtype=bf16).sum(dtype=f32), f32),
    (lambda: torch.ones(2, dtype=bf16).argmax(), torch.int64),
])
def test_result_dtypes_follow_torch(make: object, want: torch.dtype) -> None:
    assert make().dtype is want


def test_in_place_ops_keep_self_dtype() -> None:
    # bf16 + float32 computes in float32 (1.00390720 -> 1.0078125), then rounds into
    # self; rounding 2**-8 + 2**-20 to bf16 first would tie to 1.0 (torch: 1.0078125)
    x = bf(1.0, 2.0)
    x.add_(torch.tensor([2**-8 + 2**-20, 0.5]))
    assert x.dtype is bf16 and x.tolist() == [1.0078125, 2.5]


# ---------------------------------------------------------------- programs: guards, save/load


class _Scale(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(bf(3.14159265, -2.5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x * self.weight) + 1


def test_input_guard_rejects_bfloat16_where_float32_is_declared() -> None:
    class Double(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * 2

    ep = torch.export.export(Double(), (torch.ones(3),))
    with pytest.raises(GuardError, match=r"Guard failed: x.dtype == texport.float32 \(got bfloat16\)"):
        ep.module()(torch.ones(3, dtype=bf16))
    program = torch.export.export(_Scale(), (bf(1.0, 2.0),))
    with pytest.raises(GuardError, match=r"x.dtype == texport.bfloat16 \(got float32\)"):
        program.module()(torch.ones(2))


@pytest.mark.parametrize("level", ["training", "functional", "core"])
def test_bfloat16_program_runs_at_every_level(level: str) -> None:
    model, x = _Scale(), bf(0.75, -1.5)
    ep = torch.export.export(model, (x,))
    ep = {"training": ep, "functional": ep.run_decompositions({}), "core": ep.run_decompositions()}[level]
    assert "bf16" in str(ep.graph_module.code if hasattr(ep, "graph_module") else ep)
    out = ep.module()(x)
    assert out.dtype is bf16 and bits(out) == bits(model(x))


def test_save_load_round_trips_bfloat16_without_pickle(tmp_path: Path) -> None:
    model, x = _Scale(), bf(0.75, -1.5)
    ep = torch.export.export(model, (x,))
    path = tmp_path / "bf16.pt2"
    torch.export.save(ep, path)
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.endswith(".npy")]
        header = archive.read(names[0])[:128]
    assert b"<u2" in header  # .npy has no bfloat16: the bits, the manifest says the dtype
    loaded = torch.export.load(path)
    weight = loaded.state_dict["weight"]
    assert weight.dtype is bf16 and bits(weight) == bits(model.weight)
    assert bits(loaded.module()(x)) == bits(model(x))
    assert loaded.example_inputs[0][0].dtype is bf16


def test_float32_programs_never_import_ml_dtypes() -> None:
    code = """
        import sys
        import texport as torch
        class M(torch.nn.Module):
            def forward(self, x):
                return torch.nn.functional.gelu(x).half().sum()
        ep = torch.export.export(M(), (torch.ones(3),)).run_decompositions()
        ep.module()(torch.ones(3))
        print("ml_dtypes" in sys.modules)
        torch.ones(2).bfloat16()
        print("ml_dtypes" in sys.modules)
    """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
