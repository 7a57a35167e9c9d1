"""Hand-written upstream MLIR for tiny core programs, and their models: test routes
for the IREE backend's tests (test_backend_iree.py, test_cli_iree.py), so that a
failure there is the backend's, not a lowering's."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

import texport
from texport import nn
from texport.backends.routes import RouteText

POINTWISE = "affine_map<(d0, d1) -> (d0, d1)>"


def _generic(result: str, operands: list[tuple[str, str]], out: str, body: list[str], shape: str) -> list[str]:
    """A 2-d pointwise linalg.generic (IREE takes pointwise work in this form)."""
    maps = ", ".join([POINTWISE] * (len(operands) + 1))
    names = ", ".join(name for name, _ in operands)
    types = ", ".join(t for _, t in operands)
    args = ", ".join(f"%in{i}: f32" for i in range(len(operands)))
    return [
        f"  {result} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [\"parallel\", \"parallel\"]}}"
        f" ins({names} : {types}) outs({out} : {shape}) {{",
        f"  ^bb0({args}, %out: f32):",
        *(f"    {line}" for line in body),
        f"  }} -> {shape}",
    ]


RELU_BODY = ["%zero = arith.constant 0.0 : f32", "%r = arith.maximumf %in0, %zero : f32", "linalg.yield %r : f32"]
ADD_BODY = ["%r = arith.addf %in0, %in1 : f32", "linalg.yield %r : f32"]

# relu(x): the core program's only argument is the user input
RELU = "\n".join([
    "func.func @forward(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {",
    "  %empty = tensor.empty() : tensor<2x3xf32>",
    *_generic("%relu", [("%x", "tensor<2x3xf32>")], "%empty", RELU_BODY, "tensor<2x3xf32>"),
    "  return %relu : tensor<2x3xf32>",
    "}",
])

# count += x; return relu(x) + w: a parameter, a buffer, and its mutation returned first
STATEFUL = "\n".join([
    "func.func @forward(%w: tensor<2x3xf32>, %count: tensor<2x3xf32>, %x: tensor<2x3xf32>)"
    " -> (tensor<2x3xf32>, tensor<2x3xf32>) {",
    "  %e0 = tensor.empty() : tensor<2x3xf32>",
    *_generic("%add", [("%count", "tensor<2x3xf32>"), ("%x", "tensor<2x3xf32>")], "%e0", ADD_BODY,
              "tensor<2x3xf32>"),
    "  %e1 = tensor.empty() : tensor<2x3xf32>",
    *_generic("%relu", [("%x", "tensor<2x3xf32>")], "%e1", RELU_BODY, "tensor<2x3xf32>"),
    "  %e2 = tensor.empty() : tensor<2x3xf32>",
    *_generic("%out", [("%relu", "tensor<2x3xf32>"), ("%w", "tensor<2x3xf32>")], "%e2", ADD_BODY,
              "tensor<2x3xf32>"),
    "  return %add, %out : tensor<2x3xf32>, tensor<2x3xf32>",
    "}",
])

# relu(x) + y on a dynamic batch, returned as a dict {"relu": ..., "sum": ...} at core level
DYNAMIC = "\n".join([
    "func.func @forward(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {",
    "  %c0 = arith.constant 0 : index",
    "  %n = tensor.dim %x, %c0 : tensor<?x3xf32>",
    "  %e0 = tensor.empty(%n) : tensor<?x3xf32>",
    *_generic("%relu", [("%x", "tensor<?x3xf32>")], "%e0", RELU_BODY, "tensor<?x3xf32>"),
    "  %e1 = tensor.empty(%n) : tensor<?x3xf32>",
    *_generic("%sum", [("%relu", "tensor<?x3xf32>"), ("%y", "tensor<?x3xf32>")], "%e1", ADD_BODY,
              "tensor<?x3xf32>"),
    "  return %relu, %sum : tensor<?x3xf32>, tensor<?x3xf32>",
    "}",
])


class Relu(nn.Module):
    def forward(self, x: Any) -> Any:
        return x.relu()


class Stateful(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(texport.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 4))
        self.register_buffer("count", texport.zeros(2, 3))

    def forward(self, x: Any) -> Any:
        self.count.add_(x)
        return x.relu() + self.w


class Dynamic(nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        relu = x.relu()
        return {"relu": relu, "sum": relu + y}


def make_route(text: str) -> Any:
    calls = []

    def lower(module: Any) -> RouteText:
        calls.append(module)
        return RouteText(text, "none")
    lower.calls = calls
    return lower


def install_test_routes(monkeypatch: Any) -> dict[str, Any]:
    """ROUTES gets test-relu, test-stateful, test-dynamic and test-convbn for the test; returns
    their lowerings."""
    from texport.backends import routes

    made = {"relu": make_route(RELU), "stateful": make_route(STATEFUL), "dynamic": make_route(DYNAMIC),
            "convbn": make_route(CONVBN_EVAL)}
    for name, lower in made.items():
        monkeypatch.setitem(routes.ROUTES, f"test-{name}", lower)
    return made


def private_cache(tmp_path: Any, monkeypatch: Any) -> Any:
    """The compile cache in ``tmp_path`` for the test (no hit from another test or run); its folder."""
    from texport.backends import iree

    monkeypatch.setenv(iree.CACHE_VARIABLE, str(tmp_path / "cache"))
    return tmp_path / "cache" / "iree"


# The zoo's ConvBN in eval mode (1x1 conv of one channel, then batch norm with running
# statistics) as one linalg.generic: its core signature has parameters, buffers (one an
# i64 scalar the program does not read) and the input, in that order.
_CONVBN_MAPS = ", ".join([
    "affine_map<(n, c, h, w) -> (n, 0, h, w)>",  # x
    "affine_map<(n, c, h, w) -> (c, 0, 0, 0)>",  # conv.weight
    *["affine_map<(n, c, h, w) -> (c)>"] * 5,  # conv.bias, bn.weight, bn.bias, running mean, var
    "affine_map<(n, c, h, w) -> (n, c, h, w)>",  # the output
])
CONVBN_EVAL = "\n".join([
    "func.func @forward(%w: tensor<3x1x1x1xf32>, %b: tensor<3xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>,"
    " %mean: tensor<3xf32>, %var: tensor<3xf32>, %batches: tensor<i64>, %x: tensor<1x1x3x3xf32>)"
    " -> tensor<1x3x3x3xf32> {",
    "  %empty = tensor.empty() : tensor<1x3x3x3xf32>",
    f"  %y = linalg.generic {{indexing_maps = [{_CONVBN_MAPS}],"
    " iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}"
    " ins(%x, %w, %b, %gamma, %beta, %mean, %var : tensor<1x1x3x3xf32>, tensor<3x1x1x1xf32>, tensor<3xf32>,"
    " tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) outs(%empty : tensor<1x3x3x3xf32>) {",
    "  ^bb0(%xi: f32, %wi: f32, %bi: f32, %g: f32, %be: f32, %m: f32, %v: f32, %out: f32):",
    "    %eps = arith.constant 1.0e-05 : f32",
    "    %conv = arith.mulf %xi, %wi : f32",
    "    %biased = arith.addf %conv, %bi : f32",
    "    %centred = arith.subf %biased, %m : f32",
    "    %shifted = arith.addf %v, %eps : f32",
    "    %std = math.sqrt %shifted : f32",
    "    %normed = arith.divf %centred, %std : f32",
    "    %scaled = arith.mulf %normed, %g : f32",
    "    %r = arith.addf %scaled, %be : f32",
    "    linalg.yield %r : f32",
    "  } -> tensor<1x3x3x3xf32>",
    "  return %y : tensor<1x3x3x3xf32>",
    "}",
])


class IntsAndBools(nn.Module):
    """An int input (a symbolic size at core level) and result, a bool and an int64 tensor."""

    def forward(self, x: Any, flags: Any, counts: Any, n: int) -> Any:
        return x * n, texport.logical_not(flags), counts + 1, n + 1


# the boundary's forms: a symbolic int is an i64 scalar, bool an i1 tensor, int64 an i64 tensor
INTS_AND_BOOLS = """
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#m1 = affine_map<(d0) -> (d0)>
func.func @forward(%x: tensor<2x3xf32>, %flags: tensor<1x3xi1>, %counts: tensor<3xi64>, %n: i64)
    -> (tensor<2x3xf32>, tensor<1x3xi1>, tensor<3xi64>, i64) {
  %nf = arith.sitofp %n : i64 to f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %scaled = linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x3xf32>) outs(%e0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %nf : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  %true = arith.constant true
  %e1 = tensor.empty() : tensor<1x3xi1>
  %not = linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%flags : tensor<1x3xi1>) outs(%e1 : tensor<1x3xi1>) {
  ^bb0(%in: i1, %out: i1):
    %m = arith.xori %in, %true : i1
    linalg.yield %m : i1
  } -> tensor<1x3xi1>
  %one = arith.constant 1 : i64
  %e2 = tensor.empty() : tensor<3xi64>
  %next = linalg.generic {indexing_maps = [#m1, #m1], iterator_types = ["parallel"]}
      ins(%counts : tensor<3xi64>) outs(%e2 : tensor<3xi64>) {
  ^bb0(%in: i64, %out: i64):
    %m = arith.addi %in, %one : i64
    linalg.yield %m : i64
  } -> tensor<3xi64>
  %n1 = arith.addi %n, %one : i64
  return %scaled, %not, %next, %n1 : tensor<2x3xf32>, tensor<1x3xi1>, tensor<3xi64>, i64
}
"""


def hide_iree(monkeypatch: Any) -> None:
    """Imports of ``iree`` fail from now on in the test, as where the extra is not installed."""
    real_import = builtins.__import__

    def no_iree(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "iree" or name.startswith("iree."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_iree)
