// RUN: texport-opt %s | filecheck %s
// RUN: texport-opt %s | texport-opt | filecheck %s
// RUN: texport-opt %s | ROUNDTRIP | filecheck %s

// CHECK-LABEL: func.func @symbolic_types
// CHECK-SAME: %x: !tx.tensor<[s0, 3, 2*s0 + 1], f32>
// CHECK-SAME: %y: !tx.tensor<[(s0//2), s0*s1, (s1 % 4)], bf16>
// CHECK-SAME: %z: !tx.tensor<[], i1>
// CHECK-SAME: %u: !tx.tensor<[u0, 2], i64>
// CHECK-SAME: %c: !tx.tensor<[4], complex<f32>>
// CHECK-SAME: %b: !tx.tensor<[2], ui8>
func.func @symbolic_types(%x: !tx.tensor<[s0, 3, 1 + s0*2], f32>,
                          %y: !tx.tensor<[(s0//2), s0*s1, s1 % 4], bf16>,
                          %z: !tx.tensor<[], i1>, %u: !tx.tensor<[u0, 2], i64>,
                          %c: !tx.tensor<[4], complex<f32>>, %b: !tx.tensor<[2], ui8>) {
  func.return
}

// CHECK-LABEL: func.func @symint_arithmetic
// CHECK-NEXT: %c2 = tx.constant 2 : !tx.symint<2>
// CHECK-NEXT: %sum = tx.add %n, %c2 : !tx.symint<s0 + 2>
// CHECK-NEXT: %diff = tx.sub %n, %c2 : !tx.symint<s0 - 2>
// CHECK-NEXT: %prod = tx.mul %n, %c2 : !tx.symint<2*s0>
// CHECK-NEXT: %quot = tx.floordiv %n, %c2 : !tx.symint<(s0//2)>
// CHECK-NEXT: %rem = tx.mod %n, %c2 : !tx.symint<(s0 % 2)>
// CHECK-NEXT: %big = tx.max %n, %c2 : !tx.symint<Max(2, s0)>
// CHECK-NEXT: %small = tx.min %n, %c2 : !tx.symint<Min(2, s0)>
// CHECK-NEXT: %ge = tx.cmp ge, %n, %c2 : !tx.symbool
// CHECK-NEXT: tx.assert %ge, "Runtime assertion failed for expression s0 >= 2"
// CHECK-NEXT: %unknown = tx.add %n, %m : !tx.symint
func.func @symint_arithmetic(%n: !tx.symint<s0>, %m: !tx.symint) -> !tx.symint<2*s0> {
  %c2 = tx.constant 2 : !tx.symint<2>
  %sum = tx.add %n, %c2 : !tx.symint<s0 + 2>
  %diff = tx.sub %n, %c2 : !tx.symint<s0 - 2>
  %prod = tx.mul %n, %c2 : !tx.symint<2*s0>
  %quot = tx.floordiv %n, %c2 : !tx.symint<(s0//2)>
  %rem = tx.mod %n, %c2 : !tx.symint<(s0 % 2)>
  %big = tx.max %n, %c2 : !tx.symint<Max(2, s0)>
  %small = tx.min %n, %c2 : !tx.symint<Min(2, s0)>
  %ge = tx.cmp ge, %n, %c2 : !tx.symbool
  tx.assert %ge, "Runtime assertion failed for expression s0 >= 2"
  %unknown = tx.add %n, %m : !tx.symint
  func.return %prod : !tx.symint<2*s0>
}

// CHECK-LABEL: func.func @generic_form
// CHECK: %c = tx.constant 7 : !tx.symint<7>
func.func @generic_form() {
  %c = "tx.constant"() <{value = 7 : i64}> : () -> !tx.symint<7>
  func.return
}
