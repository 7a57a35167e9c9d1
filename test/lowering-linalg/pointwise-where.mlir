// RUN: texport-opt -p lower-core-to-linalg-pointwise %s | filecheck %s

// where.self: the i1 condition broadcasts like any operand and selects
// (arith.select); the two values convert to the result's dtype (torch's
// promotion, read off the result type), the condition takes no part in it.
// logical_and reads its operands as truths (x != 0, nan true).

builtin.module {
  func.func @forward(%c: !tx.tensor<[s0, 1], i1>, %x: !tx.tensor<[s0, 4], f32>, %i: !tx.tensor<[4], i64>) -> (!tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], i1>) {
    %where = core.where.self(%c, %x, %i) : !tx.tensor<[s0, 4], f32>
    %and = core.logical_and(%x, %i) : !tx.tensor<[s0, 4], i1>
    func.return %where, %and : !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], i1>
  }
}

// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:   ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x1xi1>, tensor<?x4xf32>, tensor<4xi64>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1, %[[X:.*]]: f32, %[[I:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:   %[[IF:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK-NEXT:   %[[SEL:.*]] = arith.select %[[C]], %[[X]], %[[IF]] : f32
// CHECK-NEXT:   linalg.yield %[[SEL]] : f32

// CHECK:      ^bb0(%[[A:.*]]: f32, %[[B:.*]]: i64, %{{.*}}: i1):
// CHECK-NEXT:   %[[BF:.*]] = arith.sitofp %[[B]] : i64 to f32
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %[[TA:.*]] = arith.cmpf une, %[[A]], %[[ZERO]] : f32
// CHECK:        %[[TB:.*]] = arith.cmpf une, %[[BF]], %{{.*}} : f32
// CHECK-NEXT:   %[[AND:.*]] = arith.andi %[[TA]], %[[TB]] : i1
// CHECK-NEXT:   linalg.yield %[[AND]] : i1
