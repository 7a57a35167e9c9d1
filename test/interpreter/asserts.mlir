// RUN: %python -c "import numpy as np; np.savez('%t.ok.npz', x=np.array(5))"
// RUN: texport-run %s --inputs %t.ok.npz | filecheck %s
// RUN: %python -c "import numpy as np; np.savez('%t.bad.npz', x=np.array(-1))"
// RUN: not texport-run %s --inputs %t.bad.npz 2>&1 | filecheck %s --check-prefix=FAIL

// An unbacked size from data, guarded by a runtime assert, used as a size.
// CHECK: output #0: f32[5]
// FAIL: texport-run: error: Runtime assertion failed for expression u0 >= 0 on node 'ge'
func.func @main(%x: !tx.tensor<[], i64>) -> !tx.tensor<[u0], f32> {
  %item = core._local_scalar_dense(%x) : !tx.symint<u0>
  %zero = tx.constant 0 : !tx.symint<0>
  %ge = tx.cmp ge, %item, %zero : !tx.symbool
  tx.assert %ge, "Runtime assertion failed for expression u0 >= 0 on node 'ge'"
  %full = core.full([%item], 0.0) : !tx.tensor<[u0], f32>
  func.return %full : !tx.tensor<[u0], f32>
}
