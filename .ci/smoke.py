"""Smoke test of an installed texport, run from outside the source tree: the
package, its tools and its bundled example work without the checkout."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import texport as torch
from texport.export import Dim, export

checkout = pathlib.Path(sys.argv[1]).resolve()
installed = pathlib.Path(torch.__file__).resolve()
if checkout in installed.parents:
    sys.exit(f"texport was imported from the checkout ({installed}), not from the installed wheel")


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(self.linear(x)).sum(dim=-1)


model = Model()
x = torch.randn(5, 4)
ep = export(model, (x,), dynamic_shapes={"x": {0: Dim("batch")}})
core = ep.run_decompositions()
expected = model(x)
for level in (ep, ep.run_decompositions({}), core):
    if not torch.allclose(level.module()(x), expected, atol=1e-6):
        sys.exit(f"{level.dialect} program disagrees with eager")
text = core.mlir()
reparsed = subprocess.run(["texport-opt", "-p", "canonicalize,cse,dce"], input=text, text=True,
                          capture_output=True, check=True).stdout
if "core." not in reparsed:
    sys.exit("texport-opt lost the core ops:\n" + reparsed)
print(f"smoke test passed: texport {installed.parent}, {len(text.splitlines())} lines of core IR")
