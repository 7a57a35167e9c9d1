// RUN: texport-opt -p lower-core-to-linalg %s | filecheck %s

// A symbol that no input carries as a dim of its own is solved from a linear
// dim: the input's dim 0 is 4*s0, so s0 = dim / 4, and the result's 2*s0 is
// 2 * (dim / 4). Each size is read once, at the entry.

builtin.module {
  func.func @forward(%x: !tx.tensor<[4*s0, 3], f32>) -> !tx.tensor<[2*s0, 3], f32> {
    %s = core.slice.Tensor(%x, 0, 0, 9223372036854775807, 2) : !tx.tensor<[2*s0, 3], f32>
    func.return %s : !tx.tensor<[2*s0, 3], f32>
  }
}

// CHECK:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK:      %[[DIM:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3xf32>
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[S0:.*]] = arith.divsi %[[DIM]], %[[FOUR]] : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.muli %[[TWO]], %[[S0]] : index
// CHECK-NEXT: tensor.extract_slice %x[0, 0] [%[[ROWS]], 3] [2, 1] : tensor<?x3xf32> to tensor<?x3xf32>
