// RUN: %python -c "import numpy as np; np.savez('%t.npz', x=np.arange(6, dtype=np.float32).reshape(2, 3), w=np.eye(3, dtype=np.float32) * 2)"
// RUN: texport-run %s --inputs %t.npz | filecheck %s
// RUN: texport-run %s --inputs %t.npz --outputs %t.out.npz && %python -c "import numpy as np; print(np.load('%t.out.npz')['out0'].sum())" | filecheck %s --check-prefix=SAVED

// x @ (2 I) + 1, then relu of (x - 3), and the sum of all.
// CHECK: output #0: f32[2, 3]
// CHECK-NEXT: {{\[\[}} 1.,  3.,  5.],
// CHECK-NEXT: [ 7.,  9., 11.]]
// CHECK: output #1: f32[2, 3]
// CHECK-NEXT: {{\[\[}}0., 0., 0.],
// CHECK-NEXT: [0., 1., 2.]]
// CHECK: output #2: f32[]
// CHECK-NEXT: 36.
// SAVED: 36.0
func.func @main(%x: !tx.tensor<[s0, 3], f32>, %w: !tx.tensor<[3, 3], f32>) -> (!tx.tensor<[s0, 3], f32>, !tx.tensor<[s0, 3], f32>, !tx.tensor<[], f32>) {
  %mm = core.mm(%x, %w) : !tx.tensor<[s0, 3], f32>
  %add = core.add.Tensor(%mm, 1) : !tx.tensor<[s0, 3], f32>
  %sub = core.sub.Tensor(%x, 3) : !tx.tensor<[s0, 3], f32>
  %relu = core.relu(%sub) : !tx.tensor<[s0, 3], f32>
  %sum = core.sum.dim_IntList(%add, none) : !tx.tensor<[], f32>
  func.return %add, %relu, %sum : !tx.tensor<[s0, 3], f32>, !tx.tensor<[s0, 3], f32>, !tx.tensor<[], f32>
}
