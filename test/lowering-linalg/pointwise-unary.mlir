// RUN: texport-opt -p lower-core-to-linalg-pointwise %s | filecheck %s

// A unary op is a generic whose body is the math op; an integer operand of a
// float-valued op converts to the result's float type first; gelu is
// x / 2 (1 + erf(x / sqrt 2)) in the body.

builtin.module {
  func.func @forward(%x: !tx.tensor<[s0, 4], f32>, %i: !tx.tensor<[3], i64>) -> (!tx.tensor<[s0, 4], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], i64>, !tx.tensor<[s0, 4], f32>) {
    %exp = core.exp(%x) : !tx.tensor<[s0, 4], f32>
    %sqrt = core.sqrt(%i) : !tx.tensor<[3], f32>
    %abs = core.abs(%i) : !tx.tensor<[3], i64>
    %gelu = core.gelu(%x) : !tx.tensor<[s0, 4], f32>
    func.return %exp, %sqrt, %abs, %gelu : !tx.tensor<[s0, 4], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], i64>, !tx.tensor<[s0, 4], f32>
  }
}

// CHECK:      %[[DIM:.*]] = tensor.dim
// CHECK:      tensor.empty(%[[DIM]]) : tensor<?x4xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<?x4xf32>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK-NEXT: ^bb0(%[[E:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:   %[[EXP:.*]] = math.exp %[[E]] : f32
// CHECK-NEXT:   linalg.yield %[[EXP]] : f32

// CHECK:      ^bb0(%[[I:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:   %[[F:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK-NEXT:   %[[ROOT:.*]] = math.sqrt %[[F]] : f32
// CHECK-NEXT:   linalg.yield %[[ROOT]] : f32
// CHECK-NEXT: } -> tensor<3xf32>

// CHECK:      ^bb0(%[[A:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT:   math.absi %[[A]] : i64

// CHECK:      ^bb0(%[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:   %[[SQRT_HALF:.*]] = arith.constant 0.707106769 : f32
// CHECK-NEXT:   %[[SCALED:.*]] = arith.mulf %[[G]], %[[SQRT_HALF]] : f32
// CHECK-NEXT:   %[[ERF:.*]] = math.erf %[[SCALED]] : f32
// CHECK-NEXT:   %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:   %[[HALF_X:.*]] = arith.mulf %[[HALF]], %[[G]] : f32
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   %[[SUM:.*]] = arith.addf %[[ONE]], %[[ERF]] : f32
// CHECK-NEXT:   %[[GELU:.*]] = arith.mulf %[[HALF_X]], %[[SUM]] : f32
// CHECK-NEXT:   linalg.yield %[[GELU]] : f32
