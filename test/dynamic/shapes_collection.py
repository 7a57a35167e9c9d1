# RUN: %python %s | filecheck %s
# The seed's ShapesCollection snippet, with `import texport as torch`.
import texport as torch


class M(torch.nn.Module):
    def forward(self, inp):
        x = inp["x"] * 1
        y = inp["others"][0] * 2
        z = inp["others"][1] * 3
        return x, y, z


tensor_x = torch.randn(3, 4, 8)
tensor_y = torch.randn(6)
tensor_z = torch.randn(6)
args = {"x": tensor_x, "others": [tensor_y, tensor_z]}

dim = torch.export.Dim("dim")
sc = torch.export.ShapesCollection()
sc[tensor_x] = (dim, dim + 1, 8)
sc[tensor_y] = {0: dim * 2}

print(sc.dynamic_shapes(M(), (args,)))
ep = torch.export.export(M(), (args,), dynamic_shapes=sc)
print(ep)
for n in (3, 5, 10):
    out = ep.module()({"x": torch.ones(n, n + 1, 8), "others": [torch.ones(2 * n), torch.ones(6)]})
    print(n, [list(o.shape) for o in out])
try:
    ep.module()({"x": torch.ones(4, 4, 8), "others": [torch.ones(8), torch.ones(6)]})
except AssertionError as err:
    print("AssertionError:", err)

# CHECK: {'inp': {'x': (Dim('dim', min=0), dim + 1, 8), 'others': [{0: 2*dim}, None]}}
# CHECK: def forward(self, inp_x: "f32[s96, s96 + 1, 8]", inp_others_0: "f32[2*s96]", inp_others_1: "f32[6]"):
# CHECK: Range constraints: {s96: VR[0, int_oo], s96 + 1: VR[1, int_oo], 2*s96: VR[0, int_oo]}
# CHECK: 3 {{\[\[}}3, 4, 8], [6], [6]]
# CHECK: 5 {{\[\[}}5, 6, 8], [10], [6]]
# CHECK: 10 {{\[\[}}10, 11, 8], [20], [6]]
# CHECK: AssertionError: Guard failed: inp['x'].size()[1] == inp['x'].size()[0] + 1 (got 4)
