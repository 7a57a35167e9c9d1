// RUN: texport-opt -p lower-core-to-linalg %s | filecheck %s

// The program's range constraints become asserts at the entry, on the size
// read from the input that carries the symbol (a lower bound of 0 or less
// holds for every size: no assert).

builtin.module {
  func.func @forward(%x: !tx.tensor<[s0, 4], f32> {tx.input = "USER_INPUT", tx.path = "x"}) -> (!tx.tensor<[s0, 4], f32> {tx.output = "USER_OUTPUT"}) attributes {tx.range_constraints = {s0 = "VR[2, 64]"}} {
    %relu = core.relu(%x) : !tx.tensor<[s0, 4], f32>
    func.return %relu : !tx.tensor<[s0, 4], f32>
  }
}

// CHECK:      %[[DIM:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4xf32>
// CHECK:      %[[LOW:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi sge, %[[DIM]], %[[LOW]] : index
// CHECK-NEXT: cf.assert %[[OK]], "the size s0 must be at least 2"
// CHECK:      arith.cmpi sle, %[[DIM]]
// CHECK-NEXT: cf.assert %{{.*}}, "the size s0 must be at most 64"
