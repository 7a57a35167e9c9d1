// RUN: texport-opt -p lower-core-to-linalg-pointwise %s | filecheck %s
// RUN: texport-opt -p lower-core-to-linalg %s | filecheck %s --check-prefix=FULL

// An elementwise op is a linalg.generic over the result's shape; an operand's
// dim of size 1 (or a missing leading dim) reads index 0 (torch's broadcasting);
// a Python number is a constant of the body.

builtin.module {
  func.func @forward(%x: !tx.tensor<[s0, 4], f32>, %y: !tx.tensor<[4], f32>) -> !tx.tensor<[s0, 4], f32> {
    %relu = core.relu(%x) : !tx.tensor<[s0, 4], f32>
    %mul = core.mul.Tensor(%y, 2) : !tx.tensor<[4], f32>
    %add = core.add.Tensor(%relu, %mul) : !tx.tensor<[s0, 4], f32>
    func.return %add : !tx.tensor<[s0, 4], f32>
  }
}

// CHECK:      builtin.unrealized_conversion_cast %x : !tx.tensor<[s0, 4], f32> to tensor<?x4xf32>
// CHECK:      %[[DIM:.*]] = tensor.dim
// CHECK:      %[[X:.*]] = builtin.unrealized_conversion_cast %x : !tx.tensor<[s0, 4], f32> to tensor<?x4xf32>
// CHECK:      tensor.empty(%[[DIM]]) : tensor<?x4xf32>
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%[[X]] : tensor<?x4xf32>)
// CHECK:        arith.maximumf
// CHECK:      arith.constant 2.000000e+00 : f32
// CHECK-NEXT: arith.mulf
// CHECK:      affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>
// CHECK:        arith.addf

// FULL:       func.func @forward(%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> tensor<?x4xf32>
// FULL-NOT:   unrealized_conversion_cast
// FULL-NOT:   tx.
// FULL:       func.return %{{.*}} : tensor<?x4xf32>
