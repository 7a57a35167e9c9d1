// RUN: texport-opt -p lower-core-to-linalg-pointwise %s | filecheck %s

// A comparison gives i1 and compares in the operands' promoted dtype: an int64
// tensor against 1.5 in f32 (cmpf, ordered: nan compares false but for ne), two
// int64 tensors signed, bool and uint8 unsigned (true > false).

builtin.module {
  func.func @forward(%i: !tx.tensor<[3], i64>, %j: !tx.tensor<[3], i64>, %b: !tx.tensor<[3], i1>, %u: !tx.tensor<[3], ui8>, %x: !tx.tensor<[3], f32>) -> (!tx.tensor<[3], i1>, !tx.tensor<[3], i1>, !tx.tensor<[3], i1>, !tx.tensor<[3], i1>, !tx.tensor<[3], i1>) {
    %lt = core.lt.Scalar(%i, 1.5) : !tx.tensor<[3], i1>
    %ge = core.ge.Tensor(%i, %j) : !tx.tensor<[3], i1>
    %gt = core.gt.Tensor(%b, %b) : !tx.tensor<[3], i1>
    %le = core.le.Scalar(%u, 200) : !tx.tensor<[3], i1>
    %ne = core.ne.Tensor(%x, %i) : !tx.tensor<[3], i1>
    func.return %lt, %ge, %gt, %le, %ne : !tx.tensor<[3], i1>, !tx.tensor<[3], i1>, !tx.tensor<[3], i1>, !tx.tensor<[3], i1>, !tx.tensor<[3], i1>
  }
}

// CHECK:      ^bb0(%[[I:.*]]: i64, %{{.*}}: i1):
// CHECK-NEXT:   %[[IF:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK-NEXT:   %[[C:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:   %[[LT:.*]] = arith.cmpf olt, %[[IF]], %[[C]] : f32
// CHECK-NEXT:   linalg.yield %[[LT]] : i1
// CHECK-NEXT: } -> tensor<3xi1>

// CHECK:      ^bb0(%[[A:.*]]: i64, %[[B:.*]]: i64, %{{.*}}: i1):
// CHECK-NEXT:   arith.cmpi sge, %[[A]], %[[B]] : i64

// CHECK:      ^bb0(%[[P:.*]]: i1, %[[Q:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT:   arith.cmpi ugt, %[[P]], %[[Q]] : i1

// CHECK:      ^bb0(%[[U:.*]]: i8, %{{.*}}: i1):
// CHECK-NEXT:   %[[LIMIT:.*]] = arith.constant -56 : i8
// CHECK-NEXT:   arith.cmpi ule, %[[U]], %[[LIMIT]] : i8

// CHECK:      ^bb0(%[[F:.*]]: f32, %[[N:.*]]: i64, %{{.*}}: i1):
// CHECK-NEXT:   %[[NF:.*]] = arith.sitofp %[[N]] : i64 to f32
// CHECK-NEXT:   arith.cmpf une, %[[F]], %[[NF]] : f32
