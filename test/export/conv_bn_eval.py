# RUN: %python %s | filecheck %s
# Eval mode: no add_, batch_norm with training=False; no_grad gives the same IR.
import texport as torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 3, 1, 1)
        self.bn = torch.nn.BatchNorm2d(3)

    def forward(self, x):
        return (self.bn(self.conv(x)),)


m = M().eval()
ep = torch.export.export(m, (torch.randn(1, 1, 3, 3),))
print(ep.mlir())
with torch.no_grad():
    again = torch.export.export(m, (torch.randn(1, 1, 3, 3),))
print("same under no_grad:", again.mlir() == ep.mlir())

# CHECK: %conv2d = training.conv2d(%x, %p_conv_weight, %p_conv_bias)
# CHECK-NOT: add_
# CHECK-NEXT: %batch_norm = training.batch_norm(%conv2d, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, false, 0.1, 1.0e-05, false)
# CHECK: same under no_grad: True
