# RUN: %python %s 2>&1 | filecheck %s
# Named dims with ranges and derived relations (the seed's dx/dh case), and
# each ConstraintViolationError with its suggested fixes.
import texport as torch
from texport.export import Dim

print(Dim("dim"), Dim("dh", max=512), Dim("dx", min=4, max=256), Dim("dim") + 1, 2 * Dim("dx"))
# CHECK: Dim('dim', min=0) Dim('dh', min=0, max=512) Dim('dx', min=4, max=256) dim + 1 2*dx
for bad in (lambda: Dim("a") * Dim("b"), lambda: Dim("a") * 1.5, lambda: Dim("a", min=10, max=5)):
    try:
        bad()
    except (NotImplementedError, AssertionError) as err:
        print(type(err).__name__ + ":", err)
# CHECK: NotImplementedError: Attempted to multiply Dim('b', min=0) with a, where a positive integer was expected. (Only increasing linear operations with integer coefficients are supported.)
# CHECK: NotImplementedError: Attempted to multiply 1.5 with a, where a positive integer was expected.
# CHECK: AssertionError: Cannot create Dim with inconsistent min=10, max=5


class CatMatmul(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(16, 8))

    def forward(self, x, y):
        return torch.cat([x, x]) @ self.w, y


dx, dh = Dim("dx", min=4, max=256), Dim("dh", max=512)
ep = torch.export.export(CatMatmul(), (torch.randn(8, 16), torch.randn(16, 100)),
                         dynamic_shapes={"x": (dx, None), "y": (2 * dx, dh)})
print(ep.graph_module.print_readable(print_output=False).splitlines()[1])
print(ep.range_constraints)
# CHECK: def forward(self, p_w: "f32[16, 8]", x: "f32[s77, 16]", y: "f32[2*s77, s94]"):
# CHECK: {s77: VR[4, 256], s94: VR[0, 512], 2*s77: VR[8, 512]}
for shapes in [((5, 16), (10, 7)), ((3, 16), (6, 7)), ((5, 16), (11, 7)), ((5, 15), (10, 7))]:
    try:
        out = ep.module()(torch.randn(*shapes[0]), torch.randn(*shapes[1]))
        print("ran", list(out[0].shape))
    except AssertionError as err:
        print(err)
# CHECK: ran [10, 8]
# CHECK: Guard failed: x.size()[0] >= 4
# CHECK: Guard failed: y.size()[0] == 2*x.size()[0] (got 11)
# CHECK: Guard failed: x.size()[1] == 16 (got 15)


def violation(model, args, spec):
    try:
        torch.export.export(model, args, dynamic_shapes=spec)
        print("exported")
    except torch.export.ConstraintViolationError as err:
        print(err)
        print("fixes:", err.suggested_fixes)
        print("refined:", torch.export.refine_dynamic_shapes_from_suggested_fixes(str(err), spec))


class Four(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] == 4:
            return x + 1
        return x - 1


class Narrow(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] > 4:
            return x + 1
        return x - 1


class ViewBy6(torch.nn.Module):
    def forward(self, x):
        return x.view(-1, 2, 3)


class Related(torch.nn.Module):
    def forward(self, x, y):
        return torch.cat([x, x]) + y


violation(Four(), (torch.randn(4),), {"x": (Dim("dx"),)})
# CHECK: Constraints violated (dx)! For more information, run with TORCH_LOGS="+dynamic".
# CHECK-NEXT: - You marked dx as dynamic but your code specialized it to be a constant (4). If you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO.
# CHECK-NEXT: (guard from {{.*}}dims.py:59: if x.shape[0] == 4:)
# CHECK-NEXT: Suggested fixes:
# CHECK-NEXT:   dx = 4
# CHECK: fixes: ['dx = 4']
# CHECK: refined: {'x': (4,)}
violation(Narrow(), (torch.randn(8),), {"x": (Dim("dx", max=100),)})
# CHECK: - Not all values of dx = L['x'].size()[0] in the specified range dx <= 100 satisfy the generated guard 5 <= L['x'].size()[0] and L['x'].size()[0] <= 100
# CHECK: Suggested fixes:
# CHECK-NEXT:   dx = Dim('dx', min=5, max=100)
# CHECK: refined: {'x': (Dim('dx', min=5, max=100),)}
violation(ViewBy6(), (torch.randn(8, 3),), {"x": (Dim("dx"), None)})
# CHECK: generated guard (L['x'].size()[0] % 2) == 0.
# CHECK: Suggested fixes:
# CHECK-NEXT:   _dx = Dim('_dx', min=1, max=oo)
# CHECK-NEXT:   dx = 2*_dx
# CHECK: refined: {'x': (2*_dx, None)}
violation(Related(), (torch.randn(4), torch.randn(8)), {"x": (Dim("dx"),), "y": (Dim("dy"),)})
# CHECK: - The values of dy = L['y'].size()[0] must always be related to the values of dx = L['x'].size()[0] by dy = 2*dx.
# CHECK: Suggested fixes:
# CHECK-NEXT:   dy = 2*dx
# CHECK: refined: {'x': (Dim('dx', min=0),), 'y': (2*dx,)}
violation(Four(), (torch.randn(4),), {"x": (Dim.AUTO,)})
# CHECK: exported
violation(Four(), (torch.randn(4),), {"x": (Dim.DYNAMIC,)})
# CHECK: Constraints violated (L['x'].size()[0])!
# CHECK: fixes: []
violation(Four(), (torch.randn(4),), {"x": (Dim("dd", max=3),)})
# CHECK: 4 not in range [2, 3]
violation(Related(), (torch.randn(4), torch.randn(7)), {"x": (Dim("dxx"),), "y": (2 * Dim("dxx"),)})
# CHECK: Expected input L['y'].size()[0] to be equal to 2*dxx, where dxx = 4, but got 7
