// RUN: texport-opt -p lower-core-to-linalg-pointwise %s | filecheck %s

// A binary op broadcasts as torch: a missing leading dim is left out of the
// operand's map, a dim of size 1 reads index 0. A Python number (and alpha) is a
// constant of the body; an int64 operand of a float result converts first.
// Integer floor division is arith.floordivsi; the remainder takes the divisor's
// sign (fmod, then shifted by the divisor where the signs differ).

builtin.module {
  func.func @forward(%x: !tx.tensor<[s0, 4], f32>, %row: !tx.tensor<[4], i64>, %col: !tx.tensor<[s0, 1], f32>, %i: !tx.tensor<[3], i64>) -> (!tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[3], i64>, !tx.tensor<[3], i64>) {
    %sub = core.sub.Tensor(%x, %row, alpha = 2) : !tx.tensor<[s0, 4], f32>
    %div = core.div.Tensor(%col, %x) : !tx.tensor<[s0, 4], f32>
    %floor = core.div.Tensor_mode(%i, 3, rounding_mode = "floor") : !tx.tensor<[3], i64>
    %rem = core.remainder.Scalar(%i, -3) : !tx.tensor<[3], i64>
    func.return %sub, %div, %floor, %rem : !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[3], i64>, !tx.tensor<[3], i64>
  }
}

// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:   ins(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<4xi64>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[R:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:   %[[RF:.*]] = arith.sitofp %[[R]] : i64 to f32
// CHECK-NEXT:   %[[ALPHA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:   %[[SCALED:.*]] = arith.mulf %[[RF]], %[[ALPHA]] : f32
// CHECK-NEXT:   %[[SUB:.*]] = arith.subf %[[X]], %[[SCALED]] : f32
// CHECK-NEXT:   linalg.yield %[[SUB]] : f32

// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:        arith.divf

// CHECK:      ^bb0(%[[N:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT:   %[[THREE:.*]] = arith.constant 3 : i64
// CHECK-NEXT:   %[[Q:.*]] = arith.floordivsi %[[N]], %[[THREE]] : i64
// CHECK-NEXT:   linalg.yield %[[Q]] : i64

// CHECK:      ^bb0(%[[M:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT:   %[[D:.*]] = arith.constant -3 : i64
// CHECK-NEXT:   %[[MOD:.*]] = arith.remsi %[[M]], %[[D]] : i64
// CHECK:        %[[SHIFTED:.*]] = arith.addi %[[MOD]], %[[D]] : i64
// CHECK-NEXT:   %[[REM:.*]] = arith.select %{{.*}}, %[[SHIFTED]], %[[MOD]] : i64
// CHECK-NEXT:   linalg.yield %[[REM]] : i64
