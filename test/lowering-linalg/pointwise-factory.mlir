// RUN: texport-opt -p lower-core-to-linalg %s | filecheck %s

// full, full_like, scalar_tensor and fill are linalg.fill of a constant in the
// result's dtype (a dynamic size from the size table); arange is a generic with no
// input whose body is start + linalg.index * step.

builtin.module {
  func.func @forward(%x: !tx.tensor<[s0, 4], f32>, %n: !tx.symint<s0>) -> (!tx.tensor<[s0, 3], f32>, !tx.tensor<[s0, 4], i64>, !tx.tensor<[], f32>, !tx.tensor<[5], i64>, !tx.tensor<[s0, 4], f32>) {
    %full = core.full([%n, 3], 1.5) : !tx.tensor<[s0, 3], f32>
    %like = core.full_like(%x, 7, dtype = i64) : !tx.tensor<[s0, 4], i64>
    %scalar = core.scalar_tensor(2.5) : !tx.tensor<[], f32>
    %arange = core.arange.start_step(1, 10, 2) : !tx.tensor<[5], i64>
    %fill = core.fill.Scalar(%x, 0.25) : !tx.tensor<[s0, 4], f32>
    func.return %full, %like, %scalar, %arange, %fill : !tx.tensor<[s0, 3], f32>, !tx.tensor<[s0, 4], i64>, !tx.tensor<[], f32>, !tx.tensor<[5], i64>, !tx.tensor<[s0, 4], f32>
  }
}

// CHECK:      %[[DIM:.*]] = tensor.dim %x
// CHECK:      %[[V:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT: %[[E:.*]] = tensor.empty(%[[DIM]]) : tensor<?x3xf32>
// CHECK-NEXT: linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK:      %[[SEVEN:.*]] = arith.constant 7 : i64
// CHECK:      linalg.fill ins(%[[SEVEN]] : i64) outs(%{{.*}} : tensor<?x4xi64>)
// CHECK:      tensor.empty() : tensor<f32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>) -> tensor<f32>

// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%{{.*}} : tensor<5xi64>)
// CHECK-NEXT: ^bb0(%{{.*}}: i64):
// CHECK-NEXT:   %[[AT:.*]] = linalg.index 0 : index
// CHECK-NEXT:   %[[K:.*]] = arith.index_cast %[[AT]] : index to i64
// CHECK-NEXT:   %[[START:.*]] = arith.constant 1 : i64
// CHECK-NEXT:   %[[STEP:.*]] = arith.constant 2 : i64
// CHECK-NEXT:   %[[OFFSET:.*]] = arith.muli %[[K]], %[[STEP]] : i64
// CHECK-NEXT:   %[[VALUE:.*]] = arith.addi %[[START]], %[[OFFSET]] : i64
// CHECK-NEXT:   linalg.yield %[[VALUE]] : i64

// CHECK:      linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK-NOT:  tx.
