// RUN: texport-opt %s -p canonicalize --split-input-file | filecheck %s

// A cond whose predicate is a constant comparison inlines the taken branch.
// CHECK-LABEL: func.func @constant_true
// CHECK-NOT: control.cond
// CHECK: %s = core.sin(%x) : !tx.tensor<[3], f32>
// CHECK-NEXT: func.return %s
func.func @constant_true(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %a = tx.constant 4 : !tx.symint<4>
  %b = tx.constant 2 : !tx.symint<2>
  %p = tx.cmp gt, %a, %b : !tx.symbool
  %r = control.cond %p (%x) : !tx.symbool, (!tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>) {
  ^bb0(%t: !tx.tensor<[3], f32>):
    %s = core.sin(%t) : !tx.tensor<[3], f32>
    control.yield %s : !tx.tensor<[3], f32>
  }, {
  ^bb0(%f: !tx.tensor<[3], f32>):
    %c = core.cos(%f) : !tx.tensor<[3], f32>
    control.yield %c : !tx.tensor<[3], f32>
  }
  func.return %r : !tx.tensor<[3], f32>
}

// -----

// CHECK-LABEL: func.func @constant_false_tensor
// CHECK-NOT: control.cond
// CHECK: %c = core.cos(%x) : !tx.tensor<[3], f32>
func.func @constant_false_tensor(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %p = core.scalar_tensor(false, dtype = i1) : !tx.tensor<[], i1>
  %r = control.cond %p (%x) : !tx.tensor<[], i1>, (!tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>) {
  ^bb0(%t: !tx.tensor<[3], f32>):
    %s = core.sin(%t) : !tx.tensor<[3], f32>
    control.yield %s : !tx.tensor<[3], f32>
  }, {
  ^bb0(%f: !tx.tensor<[3], f32>):
    %c = core.cos(%f) : !tx.tensor<[3], f32>
    control.yield %c : !tx.tensor<[3], f32>
  }
  func.return %r : !tx.tensor<[3], f32>
}

// -----

// A data-dependent predicate keeps both branches.
// CHECK-LABEL: func.func @dynamic
// CHECK: control.cond
func.func @dynamic(%p: !tx.tensor<[], i1>, %x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %r = control.cond %p (%x) : !tx.tensor<[], i1>, (!tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>) {
  ^bb0(%t: !tx.tensor<[3], f32>):
    control.yield %t : !tx.tensor<[3], f32>
  }, {
  ^bb0(%f: !tx.tensor<[3], f32>):
    %c = core.cos(%f) : !tx.tensor<[3], f32>
    control.yield %c : !tx.tensor<[3], f32>
  }
  func.return %r : !tx.tensor<[3], f32>
}
