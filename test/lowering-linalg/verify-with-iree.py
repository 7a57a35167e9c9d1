# REQUIRES: iree
# RUN: %python %s | iree-opt | filecheck %s
# The zoo's MLP-like programs lowered to upstream MLIR parse and verify in iree-opt
# with no unregistered dialect.
import texport as torch
from texport.export import Dim, export
from texport.lowering.linalg import lower_to_linalg_text


class Elementwise(torch.nn.Module):
    def forward(self, x, y):
        return (x.relu() + y * 2,)


program = export(Elementwise(), (torch.randn(3, 4), torch.randn(4)),
                 dynamic_shapes={"x": {0: Dim("b", max=64)}, "y": None}).run_decompositions()
print(lower_to_linalg_text(program.graph_module.module))
# CHECK: func.func @forward(%{{.*}}: tensor<?x4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<?x4xf32>
# CHECK: linalg.generic
