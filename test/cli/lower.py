# `texport lower` and `texport export --level`: a saved training program lowered to core.
# RUN: texport export %s -o %t.texport
# RUN: texport lower %t.texport --to core | filecheck %s --check-prefix=CORE
# RUN: texport lower %t.texport --to functional -o %t.functional.texport
# RUN: texport show %t.functional.texport | filecheck %s --check-prefix=FUNCTIONAL
# RUN: texport export %s --level core | filecheck %s --check-prefix=CORE
# RUN: texport export %s --level core -o %t.core.texport
# RUN: texport run %t.core.texport | filecheck %s --check-prefix=OUT
import texport as torch


class ConvBN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 3, 1, 1)
        self.bn = torch.nn.BatchNorm2d(3)

    def forward(self, x):
        return (self.bn(self.conv(x)),)


def make_conv_bn():
    torch.manual_seed(0)
    return ConvBN(), (torch.randn(1, 1, 3, 3),)


# CORE: core.convolution
# CORE-NOT: training.
# FUNCTIONAL: BUFFER_MUTATION target='bn.running_mean'
# OUT: out[0]: f32[1, 3, 3, 3]
