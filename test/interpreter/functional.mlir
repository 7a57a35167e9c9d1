// RUN: %python -c "import numpy as np; np.savez('%t.npz', x=np.array([[1., 2.], [3., 4.]], np.float32), w=np.array([[1., 0.], [0., -1.]], np.float32), b=np.array([0.5, 0.5], np.float32))"
// RUN: texport-run %s --inputs %t.npz | filecheck %s

// linear(x, w, b) = x @ w.T + b; softmax over rows of [[1.5, -1.5], [3.5, -3.5]].
// CHECK: output #0: f32[2, 2]
// CHECK-NEXT: {{\[\[}} 1.5, -1.5],
// CHECK-NEXT: [ 3.5, -3.5]]
// CHECK: output #1: f32[2, 2]
// CHECK-NEXT: {{\[\[}}0.9526, 0.0474],
// CHECK-NEXT: [0.9991, 0.0009]]
func.func @main(%x: !tx.tensor<[2, 2], f32>, %w: !tx.tensor<[2, 2], f32>, %b: !tx.tensor<[2], f32>) -> (!tx.tensor<[2, 2], f32>, !tx.tensor<[2, 2], f32>) {
  %linear = functional.linear(%x, %w, %b) : !tx.tensor<[2, 2], f32>
  %softmax = functional.softmax.int(%linear, 1) : !tx.tensor<[2, 2], f32>
  func.return %linear, %softmax : !tx.tensor<[2, 2], f32>, !tx.tensor<[2, 2], f32>
}
