// RUN: texport-opt --split-input-file --parsing-diagnostics --verify-diagnostics %s | filecheck %s

func.func @pred_not_bool(%p: !tx.tensor<[], f32>, %x: !tx.tensor<[3], f32>) {
  %r = control.cond %p (%x) : !tx.tensor<[], f32>, (!tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>) {
  ^bb0(%a: !tx.tensor<[3], f32>):
    control.yield %a : !tx.tensor<[3], f32>
  }, {
  ^bb0(%a: !tx.tensor<[3], f32>):
    control.yield %a : !tx.tensor<[3], f32>
  }
  func.return
}
// CHECK: 'control.cond' predicate must be a one-element bool tensor or !tx.symbool, found !tx.tensor<[], f32>

// -----

func.func @branch_dtype(%p: !tx.symbool, %x: !tx.tensor<[3], f32>, %y: !tx.tensor<[3], i64>) {
  %r = control.cond %p (%x, %y) : !tx.symbool, (!tx.tensor<[3], f32>, !tx.tensor<[3], i64>) -> (!tx.tensor<[3], f32>) {
  ^bb0(%a: !tx.tensor<[3], f32>, %b: !tx.tensor<[3], i64>):
    control.yield %a : !tx.tensor<[3], f32>
  }, {
  ^bb0(%a: !tx.tensor<[3], f32>, %b: !tx.tensor<[3], i64>):
    control.yield %b : !tx.tensor<[3], i64>
  }
  func.return
}
// CHECK: 'control.cond' false branch yields (!tx.tensor<[3], i64>), but the op returns (!tx.tensor<[3], f32>)

// -----

func.func @block_args(%p: !tx.symbool, %x: !tx.tensor<[3], f32>) {
  %r = control.cond %p (%x) : !tx.symbool, (!tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>) {
  ^bb0(%a: !tx.tensor<[4], f32>):
    control.yield %x : !tx.tensor<[3], f32>
  }, {
  ^bb0(%a: !tx.tensor<[3], f32>):
    control.yield %a : !tx.tensor<[3], f32>
  }
  func.return
}
// CHECK: 'control.cond' true region arguments (!tx.tensor<[4], f32>) must match (!tx.tensor<[3], f32>)

// -----

func.func @map_scalar(%x: !tx.tensor<[], f32>) {
  %m = control.map (%x) () : (!tx.tensor<[], f32>) () -> (!tx.tensor<[], f32>) {
  ^bb0(%a: !tx.tensor<[], f32>):
    control.yield %a : !tx.tensor<[], f32>
  }
  func.return
}
// CHECK: 'control.map' maps over tensors with a leading dim, found !tx.tensor<[], f32>

// -----

func.func @while_cond(%x: !tx.tensor<[3], f32>) {
  %w = control.while_loop (%x) () : (!tx.tensor<[3], f32>) () -> (!tx.tensor<[3], f32>) {
  ^bb0(%c: !tx.tensor<[3], f32>):
    control.yield %c : !tx.tensor<[3], f32>
  }, {
  ^bb0(%c: !tx.tensor<[3], f32>):
    control.yield %c : !tx.tensor<[3], f32>
  }
  func.return
}
// CHECK: 'control.while_loop' cond must yield one bool scalar, yields (!tx.tensor<[3], f32>)

// -----

func.func @scan_carry(%x: !tx.tensor<[3], f32>, %xs: !tx.tensor<[5, 3], f32>) {
  %sc:2 = control.scan (%x) (%xs) () : (!tx.tensor<[3], f32>) (!tx.tensor<[5, 3], f32>) () -> (!tx.tensor<[3], f32>, !tx.tensor<[5, 3], f32>) {
  ^bb0(%c: !tx.tensor<[3], f32>, %a: !tx.tensor<[3], f32>):
    %s = core.sum.dim_IntList(%a, none) : !tx.tensor<[], f32>
    control.yield %s, %a : !tx.tensor<[], f32>, !tx.tensor<[3], f32>
  }
  func.return
}
// CHECK: 'control.scan' body (carries) yields (!tx.tensor<[], f32>), but the op returns (!tx.tensor<[3], f32>)
