// RUN: %python -c "import numpy as np; np.savez('%t.npz', b_count=np.array(4), x=np.ones((2, 2), np.float32))"
// RUN: texport-run %s --inputs %t.npz | filecheck %s

// Training level mutates in place: add_ writes the buffer, the view aliases x.
// CHECK: output #0: i64[]
// CHECK-NEXT: 5
// CHECK: output #1: f32[2, 2]
// CHECK-NEXT: {{\[\[}}7., 1.],
// CHECK-NEXT: [1., 1.]]
func.func @main(%b_count: !tx.tensor<[], i64>, %x: !tx.tensor<[2, 2], f32>) -> (!tx.tensor<[], i64>, !tx.tensor<[2, 2], f32>) {
  %add_ = training.add_.Tensor(%b_count, 1) : !tx.tensor<[], i64>
  %view = training.view(%x, [4]) : !tx.tensor<[4], f32>
  %select = training.select.int(%view, 0, 0) : !tx.tensor<[], f32>
  %fill_ = training.fill_.Scalar(%select, 7) : !tx.tensor<[], f32>
  func.return %b_count, %x : !tx.tensor<[], i64>, !tx.tensor<[2, 2], f32>
}
