# RUN: %python %s 2>&1 | filecheck %s
# Sizes the program reads that no input dim is exactly: a derived dim (4*h),
# a multiple of one, the root of one, and a size from data (nonzero's u0, bound
# where it is made by sym_size.int and asserts of its range, as torch binds it).
# Each is read as torch's graph reads it, at every level.
import texport as torch
from texport.export import Dim

F = torch.nn.functional


class UpToSkip(torch.nn.Module):
    def forward(self, x, skip):
        return F.interpolate(x, size=skip.shape[-2:]) + skip


class Flatten(torch.nn.Module):
    def forward(self, x):
        return x.reshape(x.shape[0], x.shape[1] * x.shape[2])


class RootOnly(torch.nn.Module):
    def forward(self, x):
        return x.new_zeros(x.shape[0] // 4 + x.shape[1])


class CountTwice(torch.nn.Module):
    def forward(self, x):
        return x.nonzero().shape[0] * 2


def show(ep):
    print(ep.run_decompositions().graph)
    print(ep.range_constraints)


h = Dim("h", min=2, max=64)
show(torch.export.export(UpToSkip(), (torch.randn(1, 3, 4, 4), torch.randn(1, 3, 16, 16)),
                         dynamic_shapes={"x": None, "skip": {2: 4 * h, 3: 4 * h}}))
# CHECK-LABEL: func.func @forward(%x: !tx.tensor<[1, 3, 4, 4], f32> {{.*}}, %skip: !tx.tensor<[1, 3, 4*s39, 4*s39], f32>
# CHECK-NEXT: %sym_size_int = core.sym_size.int(%skip, 2) : !tx.symint<4*s39>
# CHECK-NEXT: core.upsample_nearest2d.vec(%x, [%sym_size_int, %sym_size_int]
# CHECK: {s39: VR[2, 64], 4*s39: VR[8, 256]}

show(torch.export.export(Flatten(), (torch.randn(2, 8, 3),), dynamic_shapes={"x": {0: Dim("b"), 1: 4 * h}}))
# CHECK-LABEL: func.func @forward(%x: !tx.tensor<[s77, 4*s39, 3], f32>
# CHECK-DAG: %[[B:.+]] = core.sym_size.int(%x, 0) : !tx.symint<s77>
# CHECK-DAG: %[[H4:.+]] = core.sym_size.int(%x, 1) : !tx.symint<4*s39>
# CHECK: %[[MUL:.+]] = tx.mul %[[H4]], %{{.+}} : !tx.symint<12*s39>
# CHECK: core.view(%x, [%[[B]], %[[MUL]]]) : !tx.tensor<[s77, 12*s39], f32>
# CHECK: {s77: VR[0, int_oo], s39: VR[2, 64], 4*s39: VR[8, 256]}

show(torch.export.export(RootOnly(), (torch.randn(9, 3),), dynamic_shapes={"x": {0: 4 * h + 1}}))
# CHECK-LABEL: func.func @forward(%x: !tx.tensor<[4*s39 + 1, 3], f32>
# CHECK: %[[SIZE:.+]] = core.sym_size.int(%x, 0) : !tx.symint<4*s39 + 1>
# CHECK: tx.floordiv %[[SIZE]], %{{.+}} : !tx.symint<s39>
# CHECK: !tx.tensor<[s39 + 3], f32>

show(torch.export.export(CountTwice(), (torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]]),)))
# CHECK-LABEL: func.func @forward(%x: !tx.tensor<[3, 2], f32>
# CHECK-NEXT: %nonzero = core.nonzero(%x) : !tx.tensor<[u0, 2], i64>
# CHECK: %sym_size_int = core.sym_size.int(%nonzero, 0) : !tx.symint<u0>
# CHECK: %[[GE:.+]] = tx.cmp ge, %sym_size_int, %{{.+}}
# CHECK-NEXT: tx.assert %[[GE]], "Runtime assertion failed for expression u0 >= 0 on node '{{.+}}'"
# CHECK: %[[LE:.+]] = tx.cmp le, %sym_size_int, %{{.+}}
# CHECK-NEXT: tx.assert %[[LE]], "Runtime assertion failed for expression u0 <= 6 on node '{{.+}}'"
# CHECK: tx.mul {{.*}} : !tx.symint<2*u0>
# CHECK: {u0: VR[0, 6]}
