# RUN: %python %s | filecheck %s
# torch's `> 10` + view(-1, 2) case with Dim.AUTO: the range narrows to
# [11, oo), the view keeps floor division, and ep.module() re-checks both.
import texport as torch
from texport.export import Dim


class M(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] > 10:
            return x.view(-1, 2)
        return x


ep = torch.export.export(M(), (torch.ones(16),), dynamic_shapes={"x": (Dim.AUTO,)})
print(ep)
module = ep.module()
print(list(module(torch.ones(12)).shape))
for n in (13, 9):
    try:
        module(torch.ones(n))
    except AssertionError as err:
        print(err)

# CHECK: view: "f32[(s77//2), 2]" = torch.ops.aten.view.default(x, [-1, 2])
# CHECK: Range constraints: {s77: VR[11, int_oo]}
# CHECK: [6, 2]
# CHECK: Guard failed: (x.size()[0] % 2) == 0
# CHECK: Guard failed: x.size()[0] >= 11
