# RUN: %python %s | filecheck %s
# Control flow through every level: functionalize and decompose recurse into
# the regions; core keeps the control ops (as torch does); all levels run alike.
import texport as torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: self.lin(x).relu(), lambda x: x.t().t() * 2, (x,))


m = M()
x = torch.randn(3, 4)
ep = torch.export.export(m, (x,))
functional = ep.run_decompositions({})
core = ep.run_decompositions()
print(core.mlir())
for value in (x.abs(), -x.abs()):
    outs = [p.module()(value) for p in (ep, functional, core)]
    print(all(torch.allclose(o, m(value), atol=1e-6) for o in outs))

# CHECK: %sum_1 = core.sum.dim_IntList(%x, [])
# CHECK: control.cond
# CHECK: core.permute
# CHECK: core.addmm
# CHECK: core.relu
# CHECK: }, {
# CHECK: core.mul.Tensor
# CHECK-NOT: training.
# CHECK: True
# CHECK-NEXT: True
