"""torch's own operator tests (OpInfo samples) replayed on texport eager: a
fixed set of OpInfos whose every ATen overload matches torch today must keep
matching (the harness is opinfo.py; benchmarks/opinfo_coverage.py measures
all of op_db)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch's OpInfo module imports it

import opinfo  # noqa: E402

# One or a few OpInfos per family, each reaching only overloads that match.
OPS = (
    # elementwise, in every dtype the OpInfo has
    "add", "sub", "mul", "true_divide", "floor_divide", "remainder", "fmod", "pow", "rsub",
    "bitwise_and", "bitwise_not", "maximum", "minimum", "where", "clamp", "lerp", "addcmul",
    "exp", "log1p", "sin", "tanh", "rsqrt", "sign", "round", "trunc", "isnan", "nan_to_num",
    "nn.functional.gelu", "nn.functional.hardswish", "nn.functional.leaky_relu", "nn.functional.threshold",
    # reductions and scans
    "sum", "mean", "prod", "amax", "argmax", "all", "any", "std", "var_mean", "cumsum", "cummax",
    "softmax", "log_softmax", "count_nonzero",
    # views and shape
    "permute", "transpose", "narrow", "select", "squeeze", "unsqueeze", "unfold", "split", "chunk",
    "unbind", "diagonal", "t", "movedim", "flip", "roll", "repeat", "tile", "cat", "stack",
    "select_scatter", "slice_scatter", "tril", "triu",
    # indexing
    "index_select", "index_add", "index_copy", "index_put", "masked_fill", "scatter_add",
    "scatter_reduce", "nonzero", "__getitem__",
    # factories
    "full", "zeros_like", "new_full", "eye", "empty_like",
    # products, norms, pooling, losses
    "mv", "dot", "matmul", "addmm", "nn.functional.linear",
    "nn.functional.layer_norm", "nn.functional.group_norm", "nn.functional.batch_norm",
    "nn.functional.max_pool2d", "nn.functional.adaptive_avg_pool2d", "nn.functional.nll_loss",
    "nn.functional.mse_loss", "nn.functional.one_hot", "nn.functional.pixel_shuffle",
)


@pytest.fixture(scope="module")
def results() -> dict[str, opinfo.Result]:
    return opinfo.run(opinfo.record(ops=OPS, max_samples=4))


def test_every_op_reaches_overloads(results: dict[str, opinfo.Result]) -> None:
    reached = {op for result in results.values() for op in result.ops}
    assert reached == set(OPS), f"OpInfos that reached nothing: {sorted(set(OPS) - reached)}"


def test_overloads_match_torch(results: dict[str, opinfo.Result]) -> None:
    failures = [f"{r.overload}: {r.status} {r.message}" for r in results.values() if r.status != "match"]
    assert not failures, "\n".join(failures)
