// RUN: %python -c "import numpy as np; np.savez('%t.npz', p=np.array(True), x=np.array([0., 1., 2.], np.float32), xs=np.arange(6, dtype=np.float32).reshape(2, 3))"
// RUN: texport-run %s --inputs %t.npz | filecheck %s
// RUN: %python -c "import numpy as np; np.savez('%t.f.npz', p=np.array(False), x=np.array([0., 1., 2.], np.float32), xs=np.arange(6, dtype=np.float32).reshape(2, 3))"
// RUN: texport-run %s --inputs %t.f.npz | filecheck %s --check-prefix=FALSE

// cond: true → x + 1, false → x * 10; map adds x to each row; scan sums rows;
// while doubles until the sum reaches 20.
// CHECK: output #0: f32[3]
// CHECK-NEXT: [1., 2., 3.]
// FALSE: output #0: f32[3]
// FALSE-NEXT: [ 0., 10., 20.]
// CHECK: output #1: f32[2, 3]
// CHECK-NEXT: {{\[\[}}0., 2., 4.],
// CHECK-NEXT: [3., 5., 7.]]
// CHECK: output #2: f32[3]
// CHECK-NEXT: [3., 5., 7.]
// CHECK: output #3: f32[2, 3]
// CHECK-NEXT: {{\[\[}}0., 1., 2.],
// CHECK-NEXT: [3., 5., 7.]]
// CHECK: output #4: f32[3]
// CHECK-NEXT: [ 0.,  8., 16.]
func.func @main(%p: !tx.tensor<[], i1>, %x: !tx.tensor<[3], f32>, %xs: !tx.tensor<[2, 3], f32>) -> (!tx.tensor<[3], f32>, !tx.tensor<[2, 3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[2, 3], f32>, !tx.tensor<[3], f32>) {
  %r = control.cond %p (%x) : !tx.tensor<[], i1>, (!tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>) {
  ^bb0(%a: !tx.tensor<[3], f32>):
    %s = core.add.Tensor(%a, 1) : !tx.tensor<[3], f32>
    control.yield %s : !tx.tensor<[3], f32>
  }, {
  ^bb0(%a: !tx.tensor<[3], f32>):
    %c = core.mul.Tensor(%a, 10) : !tx.tensor<[3], f32>
    control.yield %c : !tx.tensor<[3], f32>
  }
  %m = control.map (%xs) (%x) : (!tx.tensor<[2, 3], f32>) (!tx.tensor<[3], f32>) -> (!tx.tensor<[2, 3], f32>) {
  ^bb0(%row: !tx.tensor<[3], f32>, %b: !tx.tensor<[3], f32>):
    %s = core.add.Tensor(%row, %b) : !tx.tensor<[3], f32>
    control.yield %s : !tx.tensor<[3], f32>
  }
  %zero = core.mul.Tensor(%x, 0) : !tx.tensor<[3], f32>
  %sc:2 = control.scan (%zero) (%xs) () : (!tx.tensor<[3], f32>) (!tx.tensor<[2, 3], f32>) () -> (!tx.tensor<[3], f32>, !tx.tensor<[2, 3], f32>) {
  ^bb0(%c: !tx.tensor<[3], f32>, %row: !tx.tensor<[3], f32>):
    %s = core.add.Tensor(%row, %c) : !tx.tensor<[3], f32>
    control.yield %s, %s : !tx.tensor<[3], f32>, !tx.tensor<[3], f32>
  }
  %w = control.while_loop (%x) () : (!tx.tensor<[3], f32>) () -> (!tx.tensor<[3], f32>) {
  ^bb0(%c: !tx.tensor<[3], f32>):
    %q = core.sum.dim_IntList(%c, none) : !tx.tensor<[], f32>
    %lt = core.lt.Scalar(%q, 20) : !tx.tensor<[], i1>
    control.yield %lt : !tx.tensor<[], i1>
  }, {
  ^bb0(%c: !tx.tensor<[3], f32>):
    %s = core.add.Tensor(%c, %c) : !tx.tensor<[3], f32>
    control.yield %s : !tx.tensor<[3], f32>
  }
  func.return %r, %m, %sc#0, %sc#1, %w : !tx.tensor<[3], f32>, !tx.tensor<[2, 3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[2, 3], f32>, !tx.tensor<[3], f32>
}
