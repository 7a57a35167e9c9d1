# RUN: %python %s | filecheck %s
# The seed's AdditionalInputs snippet, with `import texport as torch`.
import dataclasses

import texport as torch
import texport.utils._pytree as pytree


@dataclasses.dataclass
class D:
    b: bool
    i: int
    f: float
    t: torch.Tensor

pytree.register_dataclass(D)

class M(torch.nn.Module):
    def forward(self, d: D):
        return d.i + d.f + d.t

input1 = (D(True, 3, 3.0, torch.ones(3)),)
input2 = (D(True, 4, 3.0, torch.ones(4)),)
ai = torch.export.AdditionalInputs()
ai.add(input1)
ai.add(input2)

print(ai.dynamic_shapes(M(), input1))
ep = torch.export.export(M(), input1, dynamic_shapes=ai)
print(ep)
print(ep.module()(D(True, 10, 3.0, torch.ones(7))))
try:
    ep.module()(D(True, 10, 4.0, torch.ones(7)))
except Exception as e:
    print(type(e).__name__, e)

# CHECK: {'d': [None, DimHint(DYNAMIC), None, (DimHint(DYNAMIC),)]}
# CHECK: def forward(self, d_i: "Sym(s37)", d_t: "f32[s99]"):
# CHECK: sym_float: "Sym(s37)" = torch.sym_float(d_i)
# CHECK: add: "Sym(s37 + 3.0)" = 3.0 + sym_float
# CHECK: add_1: "f32[s99]" = torch.ops.aten.add.Tensor(d_t, add)
# CHECK: Range constraints: {s37: VR[0, int_oo], s99: VR[2, int_oo]}
# CHECK: tensor([14., 14., 14., 14., 14., 14., 14.])
# CHECK: GuardError Guard failed: d.f == 3.0 (got 4.0)
