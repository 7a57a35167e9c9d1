# RUN: %python %s | filecheck %s
# torch.cond exported: both branches as regions, closures lifted into operands.
import texport as torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: self.lin(x).sin(), lambda x: x.cos(), (x,))


m = M()
ep = torch.export.export(m, (torch.randn(3, 4),))
print(ep.graph_module.print_readable(print_output=False))
print(ep.mlir())
x = torch.randn(3, 4)
for value in (x.abs(), -x.abs()):
    print(torch.allclose(ep.module()(value), m(value)))

# CHECK: gt: "b8[]" = torch.ops.aten.gt.Scalar(sum_1, 0)
# CHECK: cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (x, p_lin_weight, p_lin_bias))
# CHECK: getitem: "f32[3, 4]" = cond[0]
# CHECK: class true_graph_0(torch.nn.Module):
# CHECK-NEXT: def forward(self, x: "f32[3, 4]", p_lin_weight: "f32[4, 4]", p_lin_bias: "f32[4]"):
# CHECK: sin: "f32[3, 4]" = torch.ops.aten.sin.default(linear)
# CHECK: class false_graph_0(torch.nn.Module):
# CHECK: cos: "f32[3, 4]" = torch.ops.aten.cos.default(x)

# CHECK: %getitem = control.cond %gt(%x, %p_lin_weight, %p_lin_bias) : !tx.tensor<[], i1>, (!tx.tensor<[3, 4], f32>, !tx.tensor<[4, 4], f32>, !tx.tensor<[4], f32>) -> (!tx.tensor<[3, 4], f32>) {
# CHECK: training.linear
# CHECK: control.yield %sin
# CHECK: }, {
# CHECK: training.cos
# CHECK: True
# CHECK-NEXT: True
