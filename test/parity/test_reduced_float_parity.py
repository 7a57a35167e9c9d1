"""float16 and bfloat16 against real torch: each op on the same reduced-float
inputs under torch and texport, compared bit for bit.

torch computes these dtypes in float32 and rounds once (its CPU kernels'
opmath), so texport must give the same bits:

- elementwise ops: bit-exact. A mismatch is excused only where torch's own
  float32 value sits within 4 float32 ulps of a rounding tie of the reduced
  dtype (there the last bits of the float32 maths library decide, and numpy's
  is not torch's Sleef). Inputs are 256 contiguous elements: torch's vector
  loops handle them whole (its scalar tail loop rounds some ops differently,
  e.g. rsqrt as 1 / bf16(sqrt(x)), and add's alpha product).
- reductions, norms, matmul, convolution, pooling: within 1 ulp (torch's
  summation order is not numpy's), or, for a result that cancels to about 0,
  within float32 rounding noise of the output's scale (torch fuses x * a + b
  into one fma: batch norm gives -3.7e-8 where x == mean).
- attention, cosine similarity and whole models: within 2 ulps of the output's
  scale (torch's flash attention rounds its probabilities to the input dtype
  before the second product; cosine_similarity is a chain of rounded ops).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

import texport  # noqa: E402
from texport.interpreter.dtypes import to_numpy as numpy_dtype  # noqa: E402

DTYPES = {"bfloat16": (torch.bfloat16, texport.bfloat16), "float16": (torch.float16, texport.float16)}
# bits below the reduced dtype's last fraction bit in a float32, and the tie pattern
_DROPPED = {"bfloat16": 16, "float16": 13}
Op = Callable[..., Any]


# ---------------------------------------------------------------- conversions


def as_numpy(tensor: Any) -> np.ndarray:
    """A torch tensor's values as numpy (bfloat16 through its bits)."""
    tensor = tensor.detach().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(numpy_dtype(texport.bfloat16))
    return tensor.numpy()


def as_torch(array: np.ndarray) -> Any:
    if array.dtype == numpy_dtype(texport.bfloat16):
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(array.copy())


def ulps(want: np.ndarray, got: np.ndarray) -> np.ndarray:
    """Distance in units in the last place (0 for two NaNs, and for +0 / -0)."""
    width = {2: np.int16, 4: np.int32, 8: np.int64}[want.dtype.itemsize]

    def ordered(values: np.ndarray) -> np.ndarray:
        signed = values.view(width).astype(np.int64)
        return np.where(signed < 0, np.iinfo(width).min - signed, signed)

    both_nan = np.isnan(want.astype(np.float64)) & np.isnan(got.astype(np.float64))
    return np.where(both_nan, 0, np.abs(ordered(want) - ordered(got)))


def near_tie(wide: np.ndarray, name: str) -> np.ndarray:
    """Where a float32 value is within 4 float32 ulps of a tie of the reduced dtype."""
    dropped = _DROPPED[name]
    low = wide.astype(np.float32).view(np.uint32).astype(np.int64) & ((1 << dropped) - 1)
    return np.abs(low - (1 << (dropped - 1))) <= 4


# ---------------------------------------------------------------- inputs


def inputs(shapes: tuple[tuple[int, ...], ...], low: float, high: float, seed: int) -> list[np.ndarray]:
    """float32 data for each shape: normal(0, 3) clipped to [low, high]."""
    rng = np.random.default_rng(seed)
    return [np.clip(rng.standard_normal(s).astype(np.float32) * 3, low, high) for s in shapes]


def both(arrays: list[np.ndarray], dtype: str) -> tuple[list[Any], list[Any]]:
    """The arrays in the reduced dtype as torch tensors, and the same bits as texport's."""
    torch_dtype, _ = DTYPES[dtype]
    theirs = [torch.from_numpy(a).to(torch_dtype) for a in arrays]
    return theirs, [texport.from_numpy(as_numpy(t).copy()) for t in theirs]


def run_both(op: Op, theirs: list[Any], ours: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    want, got = op(torch, *theirs), op(texport, *ours)
    assert got.dtype.torch_name == str(want.dtype).removeprefix("torch."), (want.dtype, got.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    return as_numpy(want), np.asarray(got.numpy())


# ---------------------------------------------------------------- elementwise: bit-exact

ANY, POSITIVE, SMALL = (-1e9, 1e9), (0.05, 1e9), (-3.0, 3.0)
V = (4, 64)  # 256 elements: torch's vector loops take them all

ELEMENTWISE: dict[str, tuple[Op, int, tuple[float, float]]] = {
    # name: (op, number of inputs, input range)
    "add": (lambda m, a, b: a + b, 2, ANY),
    "add_alpha": (lambda m, a, b: m.add(a, b, alpha=0.3), 2, ANY),
    "sub_alpha": (lambda m, a, b: m.sub(a, b, alpha=-1.7), 2, ANY),
    "add_scalar": (lambda m, a: a + 0.3, 1, ANY),
    "rsub_scalar": (lambda m, a: 1.3 - a, 1, ANY),
    "add_zero_dim_float32": (lambda m, a: a + m.tensor(0.3), 1, ANY),
    "mul": (lambda m, a, b: a * b, 2, ANY),
    "mul_scalar": (lambda m, a: a * 0.3, 1, ANY),
    "mul_zero_dim_float32": (lambda m, a: a * m.tensor(0.3), 1, ANY),
    "div": (lambda m, a, b: a / b, 2, POSITIVE),
    "div_scalar": (lambda m, a: a / 0.3, 1, ANY),
    "div_floor": (lambda m, a, b: m.div(a, b, rounding_mode="floor"), 2, POSITIVE),
    "div_trunc_scalar": (lambda m, a: m.div(a, 0.3, rounding_mode="trunc"), 1, ANY),
    "remainder": (lambda m, a: a % 0.7, 1, ANY),
    "neg": (lambda m, a: -a, 1, ANY),
    "abs": (lambda m, a: a.abs(), 1, ANY),
    "exp": (lambda m, a: a.exp(), 1, ANY),
    "log": (lambda m, a: a.log(), 1, POSITIVE),
    "sqrt": (lambda m, a: a.sqrt(), 1, POSITIVE),
    "rsqrt": (lambda m, a: a.rsqrt(), 1, POSITIVE),
    "reciprocal": (lambda m, a: a.reciprocal(), 1, POSITIVE),
    "tanh": (lambda m, a: a.tanh(), 1, ANY),
    "sigmoid": (lambda m, a: a.sigmoid(), 1, ANY),
    "sin": (lambda m, a: a.sin(), 1, ANY),
    "erf": (lambda m, a: m.erf(a), 1, ANY),
    "relu": (lambda m, a: m.relu(a), 1, ANY),
    # below -1, 1 + erf(x / sqrt(2)) cancels and torch's Sleef erf's last bits show
    "gelu": (lambda m, a: m.nn.functional.gelu(a), 1, (-1.0, 1e9)),
    "gelu_tanh": (lambda m, a: m.nn.functional.gelu(a, approximate="tanh"), 1, (-1.0, 1e9)),
    "silu": (lambda m, a: m.nn.functional.silu(a), 1, ANY),
    "leaky_relu": (lambda m, a: m.nn.functional.leaky_relu(a, 0.1), 1, ANY),
    "elu": (lambda m, a: m.nn.functional.elu(a), 1, ANY),
    "softplus": (lambda m, a: m.nn.functional.softplus(a), 1, ANY),
    "hardswish": (lambda m, a: m.nn.functional.hardswish(a), 1, ANY),
    "hardsigmoid": (lambda m, a: m.nn.functional.hardsigmoid(a), 1, ANY),
    "hardtanh": (lambda m, a: m.nn.functional.hardtanh(a, -0.3, 0.3), 1, ANY),
    "pow_2": (lambda m, a: a**2, 1, ANY),
    "pow_3": (lambda m, a: a**3, 1, ANY),
    "pow_0.3": (lambda m, a: a**0.3, 1, POSITIVE),
    "pow_-2": (lambda m, a: a**-2, 1, POSITIVE),
    "pow_tensor": (lambda m, a, b: a**b, 2, (0.05, 3.0)),
    "clamp": (lambda m, a: a.clamp(-0.3, 0.3), 1, ANY),
    "lerp": (lambda m, a, b: m.lerp(a, b, 0.3), 2, ANY),
    "addcmul": (lambda m, a, b, c: m.addcmul(a, b, c, value=0.3), 3, ANY),
    "addcdiv": (lambda m, a, b, c: m.addcdiv(a, b, c, value=0.3), 3, POSITIVE),
    "where": (lambda m, a, b: m.where(a > 0, a, b), 2, ANY),
    "maximum": (lambda m, a, b: m.maximum(a, b), 2, ANY),
    "to_float32": (lambda m, a: a.float() * 1.1, 1, ANY),
    "cat_permute_reshape": (lambda m, a, b: m.cat([a, b], 1).permute(1, 0).reshape(8, -1), 2, ANY),
    "embedding": (lambda m, w: m.nn.functional.embedding(m.arange(12) % 4, w), 1, ANY),
}


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_is_bit_exact(name: str, dtype: str) -> None:
    op, arity, (low, high) = ELEMENTWISE[name]
    theirs, ours = both(inputs((V,) * arity, low, high, seed=len(name)), dtype)
    want, got = run_both(op, theirs, ours)
    if want.dtype == np.float32:
        wrong = want.view(np.uint32) != got.view(np.uint32)
    else:
        wide = as_numpy(op(torch, *[t.float() for t in theirs]))
        wrong = (ulps(want, got) > 0) & ~near_tie(wide, dtype)
    assert not wrong.any(), (f"{int(wrong.sum())} of {want.size} differ, e.g. torch {want[wrong][:4]} "
                             f"texport {got[wrong][:4]}")


# ---------------------------------------------------------------- reductions and products: 1 ulp

R = (16, 256)
def _batch_norm_running(m: Any, x: Any, mean: Any, var: Any) -> Any:
    """A training step's output and its updated running statistics, side by side."""
    out = m.nn.functional.batch_norm(x, mean, var, training=True)
    return m.cat([out.flatten(), mean, var])


REDUCTIONS: dict[str, tuple[Op, tuple[tuple[int, ...], ...], tuple[float, float]]] = {
    "sum": (lambda m, a: a.sum(-1), (R,), ANY),
    "sum_dim0": (lambda m, a: a.sum(0), (R,), ANY),
    "sum_all": (lambda m, a: a.sum(), (R,), ANY),
    "mean": (lambda m, a: a.mean(-1), (R,), ANY),
    "var": (lambda m, a: a.var(-1), (R,), ANY),
    "std": (lambda m, a: a.std(0), (R,), ANY),
    "prod": (lambda m, a: (a * 0.05 + 1).prod(-1), ((16, 8),), ANY),
    "cumsum": (lambda m, a: a.cumsum(-1), (R,), ANY),
    "logsumexp": (lambda m, a: a.logsumexp(-1), (R,), ANY),
    "amax": (lambda m, a: a.amax(-1), (R,), ANY),
    "softmax": (lambda m, a: a.softmax(-1), (R,), ANY),
    "softmax_dim0": (lambda m, a: a.softmax(0), (R,), ANY),
    "log_softmax": (lambda m, a: a.log_softmax(-1), (R,), ANY),
    "log_softmax_dim0": (lambda m, a: a.log_softmax(0), (R,), ANY),
    "layer_norm": (lambda m, a, w, b: m.nn.functional.layer_norm(a, (256,), w, b), (R, (256,), (256,)), ANY),
    "group_norm": (lambda m, a: m.nn.functional.group_norm(a, 2), ((2, 4, 8, 8),), ANY),
    "batch_norm_eval": (lambda m, a, mean, var: m.nn.functional.batch_norm(a, mean, var.abs() + 0.5),
                        ((2, 4, 8, 8), (4,), (4,)), ANY),
    # the rsqrt sees 128 values: torch's vector loop, no scalar tail
    "rms_norm": (lambda m, a: a * m.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6), ((128, 64),), ANY),
    # training: torch keeps the statistics in the input dtype (bfloat16: each sum; float16: mean, invstd)
    "batch_norm_train": (lambda m, a, w, b: m.nn.functional.batch_norm(a, None, None, w, b, training=True),
                         ((2, 4, 5, 7), (4,), (4,)), ANY),
    "batch_norm_train_running": (lambda m, a, mean, var: _batch_norm_running(m, a, mean, var.abs() + 0.5),
                                 ((3, 6, 9), (6,), (6,)), ANY),
    "rms_norm_op": (lambda m, a, w: m.nn.functional.rms_norm(a, (64,), w), ((128, 64), (64,)), ANY),
    "instance_norm": (lambda m, a, w, b: m.nn.functional.instance_norm(a, weight=w, bias=b),
                      ((2, 4, 8, 8), (4,), (4,)), ANY),
    "embedding_bag_mean": (lambda m, w: m.nn.functional.embedding_bag(m.arange(12) % 7, w, m.arange(0, 12, 4)),
                           ((7, 64),), ANY),
    "matmul": (lambda m, a, b: a @ b, ((32, 200), (200, 40)), ANY),
    "matmul_batched_2d": (lambda m, a, b: a @ b, ((3, 32, 200), (200, 40)), ANY),
    "bmm": (lambda m, a, b: m.bmm(a, b), ((3, 32, 200), (3, 200, 40)), ANY),
    "linear": (lambda m, a, w, b: m.nn.functional.linear(a, w, b), ((32, 200), (40, 200), (40,)), ANY),
    "addmm": (lambda m, c, a, b: m.addmm(c, a, b), ((40,), (32, 200), (200, 40)), ANY),
    "conv2d": (lambda m, a, w, b: m.nn.functional.conv2d(a, w, b, padding=1),
               ((2, 8, 10, 10), (16, 8, 3, 3), (16,)), ANY),
    "conv2d_depthwise": (lambda m, a, w: m.nn.functional.conv2d(a, w, padding=1, groups=8),
                         ((2, 8, 10, 10), (8, 1, 3, 3)), ANY),
    "conv1d": (lambda m, a, w: m.nn.functional.conv1d(a, w), ((2, 8, 30), (4, 8, 5)), ANY),
    "max_pool2d": (lambda m, a: m.nn.functional.max_pool2d(a, 2), ((2, 4, 8, 8),), ANY),
    "avg_pool2d": (lambda m, a: m.nn.functional.avg_pool2d(a, 2), ((2, 4, 8, 8),), ANY),
    "adaptive_avg_pool2d": (lambda m, a: m.nn.functional.adaptive_avg_pool2d(a, 1), ((2, 4, 8, 8),), ANY),
    "interpolate_bilinear": (lambda m, a: m.nn.functional.interpolate(a, scale_factor=2, mode="bilinear"),
                             ((2, 4, 5, 5),), ANY),
    "scatter_add": (lambda m, a, s: a.scatter_add(0, (m.arange(160).reshape(40, 4) * 7) % 5, s),
                    ((5, 4), (40, 4)), ANY),
    "index_add": (lambda m, a, s: a.index_add(0, (m.arange(40) * 7) % 5, s), ((5, 4), (40, 4)), ANY),
    "mse_loss": (lambda m, a, b: m.nn.functional.mse_loss(a, b), (R, R), ANY),
    "cross_entropy": (lambda m, a: m.nn.functional.cross_entropy(a, m.arange(16) % 10), ((16, 10),), ANY),
}


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_and_products_within_one_ulp(name: str, dtype: str) -> None:
    op, shapes, (low, high) = REDUCTIONS[name]
    want, got = run_both(op, *both(inputs(shapes, low, high, seed=len(name)), dtype))
    distance = ulps(want, got)
    noise = np.abs(want.astype(np.float64) - got.astype(np.float64)) <= 2.0**-23 * np.abs(
        want.astype(np.float64)).max(initial=0)
    wrong = (distance > 1) & ~noise
    assert not wrong.any(), f"up to {distance[wrong].max()} ulps: torch {want[wrong][:4]} texport {got[wrong][:4]}"


# ---------------------------------------------------------------- fused in torch: 2 ulps of scale

CLOSE: dict[str, tuple[Op, tuple[tuple[int, ...], ...]]] = {
    "sdpa": (lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q, k, v), ((2, 4, 16, 32),) * 3),
    "sdpa_causal": (lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
                    ((2, 4, 16, 32),) * 3),
    "cosine_similarity": (lambda m, a, b: m.nn.functional.cosine_similarity(a, b), ((16, 100), (16, 100))),
}


def assert_close(want: np.ndarray, got: np.ndarray, dtype: str, steps: int = 2) -> None:
    """Within ``steps`` ulps of the output's scale (its largest magnitude)."""
    eps = {"bfloat16": 2.0**-7, "float16": 2.0**-10}[dtype]
    want64, got64 = want.astype(np.float64), got.astype(np.float64)
    scale = np.abs(want64).max(initial=0) or 1.0
    worst = np.abs(want64 - got64).max(initial=0)
    assert worst <= steps * eps * scale, f"differs by {worst} (scale {scale})"


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(CLOSE))
def test_fused_ops_within_two_ulps_of_scale(name: str, dtype: str) -> None:
    op, shapes = CLOSE[name]
    want, got = run_both(op, *both(inputs(shapes, -1e9, 1e9, seed=len(name)), dtype))
    assert_close(want, got, dtype)


# ---------------------------------------------------------------- casts and dtype rules


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_casts_from_float64_and_float32_are_bit_exact(dtype: str) -> None:
    rng = np.random.default_rng(7)
    torch_dtype, ours = DTYPES[dtype]
    grid = as_numpy(torch.from_numpy(rng.standard_normal(2048).astype(np.float32)).to(torch_dtype))
    step = np.spacing(grid.astype(np.float32)) * (1 << _DROPPED[dtype])
    ties = grid.astype(np.float64) + step / 2  # exact ties, and a hair above and below
    for values in (rng.standard_normal(4096) * 100, ties, ties + 1e-12, ties - 1e-12,
                   np.array([65504.0, 70000.0, 1e-8, -0.0, np.inf, np.nan])):
        for source in (np.float64, np.float32):
            array = values.astype(source)
            want = as_numpy(torch.from_numpy(array).to(torch_dtype))
            got = texport.from_numpy(array).to(ours).numpy()
            assert (ulps(want, got) == 0).all(), (source, values[ulps(want, got) > 0][:4])


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_casts_out_of_reduced_floats_are_bit_exact(dtype: str) -> None:
    torch_dtype, ours = DTYPES[dtype]
    theirs = torch.from_numpy(np.linspace(-200, 200, 1001).astype(np.float32)).to(torch_dtype)
    mine = texport.from_numpy(as_numpy(theirs).copy())
    for target in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "bool"):
        want = as_numpy(theirs.to(getattr(torch, target)))
        got = mine.to(getattr(texport, target)).numpy()
        assert want.dtype.itemsize == got.dtype.itemsize
        assert want.tobytes() == got.tobytes(), target


PROMOTIONS: list[Op] = [
    lambda m, d: m.ones(2, dtype=d) + m.ones(2),
    lambda m, d: m.ones(2, dtype=d) + m.ones(2, dtype=m.float64),
    lambda m, d: m.ones(2, dtype=d) + m.tensor(1.0),
    lambda m, d: m.ones(2, dtype=d) + m.tensor(1.0, dtype=m.float64),
    lambda m, d: m.ones(2, dtype=d) + m.arange(2),
    lambda m, d: m.ones(2, dtype=d) + m.ones(2, dtype=m.int32),
    lambda m, d: m.ones(2, dtype=d) + m.ones(2, dtype=m.uint8),
    lambda m, d: m.ones(2, dtype=d) + m.ones(2, dtype=m.bool),
    lambda m, d: m.tensor(1.0, dtype=d) + m.ones(2, dtype=m.int32),
    lambda m, d: m.tensor(1.0, dtype=d) + m.ones(2),
    lambda m, d: m.ones(2, dtype=d) + 2.5,
    lambda m, d: m.ones(2, dtype=d) * 2,
    lambda m, d: m.ones(2, dtype=d) + True,
    lambda m, d: m.ones(2, dtype=d) + m.ones(2, dtype=m.float16),
    lambda m, d: m.ones(2, dtype=d) + m.ones(2, dtype=m.bfloat16),
    lambda m, d: m.arange(3) / m.tensor(2.0, dtype=d),
    lambda m, d: m.arange(3, dtype=m.int32) * m.ones(3, dtype=d),
    lambda m, d: m.where(m.ones(2, dtype=m.bool), m.ones(2, dtype=d), 0.5),
    lambda m, d: m.where(m.ones(2, dtype=m.bool), m.ones(2, dtype=d), m.ones(2)),
    lambda m, d: m.ones(2, dtype=d) ** 2,
    lambda m, d: 2 ** m.ones(2, dtype=d),
    lambda m, d: m.ones(2, dtype=d) > 0.5,
    lambda m, d: m.ones(2, 2, dtype=d).softmax(-1, dtype=m.float32),
    lambda m, d: m.ones(2, dtype=d).sum(dtype=m.float32),
    lambda m, d: m.ones(2, dtype=d).mean(),
    lambda m, d: m.cat([m.ones(2, dtype=d), m.ones(2)]),
    lambda m, d: m.ones(2, dtype=d).argmax(),
    lambda m, d: m.full((2,), 1.5, dtype=d),
    lambda m, d: m.arange(0, 3, 0.5, dtype=d),
    lambda m, d: m.zeros_like(m.ones(2, dtype=d)),
]


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("index", range(len(PROMOTIONS)))
def test_result_dtypes_equal_torchs(index: int, dtype: str) -> None:
    torch_dtype, ours = DTYPES[dtype]
    want, got = PROMOTIONS[index](torch, torch_dtype), PROMOTIONS[index](texport, ours)
    assert str(want.dtype).removeprefix("torch.") == got.dtype.torch_name
    assert (ulps(as_numpy(want), got.numpy()) == 0).all() if want.is_floating_point() else (
        as_numpy(want) == got.numpy()).all()


@pytest.mark.parametrize("values", [[3.14159265], [1e-5, 123456.0, 0.5], 2.5, [[1, 2], [3, 4]],
                                    [0.1, 0.2, 0.3], []])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_printing_equals_torchs(values: Any, dtype: str) -> None:
    torch_dtype, ours = DTYPES[dtype]
    want = repr(torch.tensor(values, dtype=torch.float32).to(torch_dtype))
    got = repr(texport.tensor(values, dtype=texport.float32).to(ours))
    assert got == want.replace("torch.", "texport.")


# ---------------------------------------------------------------- a model at every level


MODEL = """
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(10, 32)
        self.norm = torch.nn.LayerNorm(32)
        self.gate = torch.nn.Linear(32, 64, bias=False)
        self.up = torch.nn.Linear(32, 64, bias=False)
        self.down = torch.nn.Linear(64, 32)
        self.conv = torch.nn.Conv1d(32, 32, 3, padding=1, groups=4)

    def forward(self, ids, x):
        h = self.norm(self.embed(ids) + x)
        scores = (h @ h.transpose(-1, -2)) / 32 ** 0.5
        h = h + torch.softmax(scores, dim=-1) @ h
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
        h = h + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))
        h = h + self.conv(h.transpose(1, 2)).transpose(1, 2)
        return torch.nn.functional.gelu(h), h.sum(-1), h.log_softmax(-1)
"""


def _model(framework: Any, torch_dtype: Any) -> Any:
    scope: dict[str, Any] = {"torch": framework}
    exec(MODEL, scope)  # noqa: S102 - the same source under each framework
    return scope["Block"]().to(torch_dtype)


@pytest.mark.parametrize("level", ["eager", "training", "functional", "core"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_model_at_every_level(dtype: str, level: str) -> None:
    torch_dtype, ours = DTYPES[dtype]
    torch.manual_seed(0)
    theirs = _model(torch, torch_dtype)
    mine = _model(texport, ours)
    mine.load_state_dict({k: texport.from_numpy(as_numpy(v).copy()) for k, v in theirs.state_dict().items()})
    ids = np.arange(32).reshape(2, 16) % 10
    x = inputs(((2, 16, 32),), -1e9, 1e9, seed=3)[0]
    args_t = (torch.from_numpy(ids), torch.from_numpy(x).to(torch_dtype))
    args_x = (texport.from_numpy(ids), texport.from_numpy(as_numpy(args_t[1]).copy()))
    if level == "eager":
        want, got = theirs(*args_t), mine(*args_x)
    else:
        exported = torch.export.export(theirs, args_t), texport.export.export(mine, args_x)
        lowered = [{"training": ep, "functional": ep.run_decompositions({}),
                    "core": ep.run_decompositions()}[level] for ep in exported]
        want, got = lowered[0].module()(*args_t), lowered[1].module()(*args_x)
    for w, g in zip(want, got):
        assert str(w.dtype).removeprefix("torch.") == g.dtype.torch_name
        assert_close(as_numpy(w), g.numpy(), dtype, steps=4)
