// RUN: texport-opt -p lower-core-to-linalg %s | filecheck %s
// RUN: not texport-opt -p lower-core-to-linalg,legalize-linalg %s 2>&1 | filecheck %s --check-prefix=ILLEGAL

// nonzero's result size u0 is known only at run time: it stays as it was,
// linked to the lowered ops by casts, and legalize-linalg names it. torch's
// runtime assert on its size is a cf.assert on an arith.cmpi.

builtin.module {
  func.func @forward(%x: !tx.tensor<[3, 4], f32> {tx.input = "USER_INPUT", tx.path = "x"}) -> (!tx.tensor<[u0, 2], i64> {tx.output = "USER_OUTPUT"}) attributes {tx.range_constraints = {u0 = "VR[0, 12]"}} {
    %nonzero = core.nonzero(%x) : !tx.tensor<[u0, 2], i64>
    %sym_size_int = core.sym_size.int(%nonzero, 0) : !tx.symint<u0>
    %c0 = tx.constant 0 : !tx.symint<0>
    %ge = tx.cmp ge, %sym_size_int, %c0 : !tx.symbool
    tx.assert %ge, "Runtime assertion failed for expression u0 >= 0 on node 'ge'"
    func.return %nonzero : !tx.tensor<[u0, 2], i64>
  }
}

// CHECK:      func.func @forward(%x: tensor<3x4xf32>) -> (tensor<?x2xi64>)
// CHECK:      core.nonzero
// CHECK:      %[[GE:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: cf.assert %[[GE]], "Runtime assertion failed for expression u0 >= 0 on node 'ge'"

// ILLEGAL: error: legalize-linalg: 'core.nonzero' has no lowering to upstream MLIR (2 op(s) left: core.nonzero, core.sym_size.int)
