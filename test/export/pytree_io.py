# RUN: %python %s | filecheck %s
# Pytree inputs and outputs: dicts, lists, dataclasses, namedtuples, None,
# keyword arguments, and Python constants specialised.
from collections import namedtuple
from dataclasses import dataclass

import texport as torch


@dataclass
class D:
    t: torch.Tensor
    scale: float


torch.utils._pytree.register_dataclass(D)
Out = namedtuple("Out", ["total", "parts"])


class M(torch.nn.Module):
    def forward(self, inp, d, flag=None, *, bias):
        x = inp["x"] + inp["others"][0] * d.scale
        y = inp["others"][1] - bias
        return Out(total=x.sum() + y.sum(), parts=[x, None, y])


inputs = ({"x": torch.ones(3), "others": [torch.ones(3), torch.zeros(3)]}, D(torch.ones(2), 2.0))
ep = torch.export.export(M(), inputs, {"bias": torch.ones(3)})
print(ep.graph_signature)
out = ep.module()(*inputs, bias=torch.ones(3))
print(type(out).__name__, out.total.item(), out.parts[1], out.parts[0].tolist())
try:
    ep.module()({"x": torch.ones(3), "others": [torch.ones(3)]}, D(torch.ones(2), 2.0), bias=torch.ones(3))
except Exception as err:
    print(type(err).__name__, err)
try:
    ep.module()(*inputs[:1], D(torch.ones(2), 3.0), bias=torch.ones(3))
except Exception as err:
    print(type(err).__name__, err)

# CHECK: # inputs
# CHECK-NEXT: inp_x: USER_INPUT
# CHECK-NEXT: inp_others_0: USER_INPUT
# CHECK-NEXT: inp_others_1: USER_INPUT
# CHECK-NEXT: d_t: USER_INPUT
# CHECK-NEXT: d_scale: USER_INPUT
# CHECK-NEXT: bias: USER_INPUT
# CHECK: # outputs
# CHECK-NEXT: add_1: USER_OUTPUT
# CHECK-NEXT: add: USER_OUTPUT
# CHECK-NEXT: : USER_OUTPUT
# CHECK-NEXT: sub: USER_OUTPUT
# CHECK: Out 6.0 None [3.0, 3.0, 3.0]
# CHECK: TreeStructureError Input structure differs from the exported one at inp['others']: expected a list of 2 items, got 1
# CHECK: GuardError Guard failed: d.scale == 2.0 (got 3.0)
