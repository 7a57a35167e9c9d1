# RUN: %python %s | filecheck %s
# Tensors made or captured inside forward are lifted as constants (non-strict).
import texport as torch

scale = torch.tensor([2.0, 3.0])


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("offset", torch.ones(2), persistent=False)

    def forward(self, x):
        return x * scale + torch.tensor([1.0, 1.0]) + self.offset


m = M()
ep = torch.export.export(m, (torch.ones(2),))
print(ep.graph_signature)
print(sorted(ep.constants))
print(ep.module()(torch.ones(2)).tolist(), m(torch.ones(2)).tolist())

# CHECK: # inputs
# CHECK-NEXT: b_offset: BUFFER target='offset' persistent=False
# CHECK-NEXT: c_lifted_tensor_0: CONSTANT_TENSOR target='lifted_tensor_0'
# CHECK-NEXT: c_lifted_tensor_1: CONSTANT_TENSOR target='lifted_tensor_1'
# CHECK-NEXT: x: USER_INPUT
# CHECK: ['lifted_tensor_0', 'lifted_tensor_1', 'offset']
# CHECK: [4.0, 5.0] [4.0, 5.0]
