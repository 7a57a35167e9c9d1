// RUN: %python -c "import numpy as np; np.savez('%t.npz', x=np.ones((4, 3), np.float32), y=np.ones((7,), np.float32))"
// RUN: not texport-run %s --inputs %t.npz 2>&1 | filecheck %s --check-prefix=RELATION
// RUN: %python -c "import numpy as np; np.savez('%t.rank.npz', x=np.ones((4,), np.float32), y=np.ones((8,), np.float32))"
// RUN: not texport-run %s --inputs %t.rank.npz 2>&1 | filecheck %s --check-prefix=RANK
// RUN: %python -c "import numpy as np; np.savez('%t.dtype.npz', x=np.ones((4, 3), np.float64), y=np.ones((8,), np.float32))"
// RUN: not texport-run %s --inputs %t.dtype.npz 2>&1 | filecheck %s --check-prefix=DTYPE
// RUN: %python -c "import numpy as np; np.savez('%t.static.npz', x=np.ones((4, 2), np.float32), y=np.ones((8,), np.float32))"
// RUN: not texport-run %s --inputs %t.static.npz 2>&1 | filecheck %s --check-prefix=STATIC
// RUN: not texport-run %s --inputs %t.missing.npz 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not texport-run %s --random-inputs 2>&1 | filecheck %s --check-prefix=BIND

// RELATION: texport-run: error: Guard failed: y.size()[0] == 2*x.size()[0] (got 7)
// RANK: texport-run: error: Guard failed: x.dim() == 2 (got 1)
// DTYPE: texport-run: error: Guard failed: x.dtype == texport.float32 (got float64)
// STATIC: texport-run: error: Guard failed: x.size()[1] == 3 (got 2)
// MISSING: texport-run: error: {{.*}}No such file or directory
// BIND: texport-run: error: argument 'x' dim 0 has size s0: give s0 with --bind (--bind s0=N)
// RELATION-NOT: Traceback
func.func @main(%x: !tx.tensor<[s0, 3], f32>, %y: !tx.tensor<[2*s0], f32>) -> !tx.tensor<[s0, 3], f32> {
  func.return %x : !tx.tensor<[s0, 3], f32>
}
