// RUN: texport-opt -p lower-core-to-linalg-pointwise %s | filecheck %s

// _to_copy changes the dtype as torch casts (float to int toward zero, to bool
// x != 0); clone is the value itself (upstream tensors are values); copy(self,
// src) is src broadcast to self's shape and converted to its dtype; a real
// tensor is its own conjugate.

builtin.module {
  func.func @forward(%x: !tx.tensor<[s0, 4], f32>, %src: !tx.tensor<[4], i64>) -> (!tx.tensor<[s0, 4], i32>, !tx.tensor<[s0, 4], i1>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], f32>) {
    %to_int = core._to_copy(%x, dtype = i32) : !tx.tensor<[s0, 4], i32>
    %to_bool = core._to_copy(%x, dtype = i1) : !tx.tensor<[s0, 4], i1>
    %clone = core.clone(%x) : !tx.tensor<[s0, 4], f32>
    %copy = core.copy(%x, %src) : !tx.tensor<[s0, 4], f32>
    %conj = functional._conj_physical(%x) : !tx.tensor<[s0, 4], f32>
    func.return %to_int, %to_bool, %clone, %copy, %conj : !tx.tensor<[s0, 4], i32>, !tx.tensor<[s0, 4], i1>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], f32>
  }
}

// CHECK:      ^bb0(%[[A:.*]]: f32, %{{.*}}: i32):
// CHECK-NEXT:   %[[I:.*]] = arith.fptosi %[[A]] : f32 to i32
// CHECK-NEXT:   linalg.yield %[[I]] : i32
// CHECK-NEXT: } -> tensor<?x4xi32>

// CHECK:      ^bb0(%[[B:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %[[T:.*]] = arith.cmpf une, %[[B]], %[[ZERO]] : f32
// CHECK-NEXT:   linalg.yield %[[T]] : i1

// CHECK-NOT:  core.clone
// CHECK:      %clone = builtin.unrealized_conversion_cast %{{.*}} : tensor<?x4xf32> to !tx.tensor<[s0, 4], f32>

// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:   ins(%{{.*}} : tensor<4xi64>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK-NEXT: ^bb0(%[[S:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:   %[[SF:.*]] = arith.sitofp %[[S]] : i64 to f32
// CHECK-NEXT:   linalg.yield %[[SF]] : f32

// CHECK-NOT:  functional._conj_physical
// CHECK:      %conj = builtin.unrealized_conversion_cast %{{.*}} : tensor<?x4xf32> to !tx.tensor<[s0, 4], f32>
