// RUN: texport-opt %s | filecheck %s
// RUN: texport-opt %s | texport-opt | filecheck %s
// RUN: texport-opt %s | ROUNDTRIP | filecheck %s

// CHECK-LABEL: func.func @cond
// CHECK-NEXT: %r = control.cond %p(%x) : !tx.tensor<[], i1>, (!tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>) {
// CHECK-NEXT: ^bb0(%a: !tx.tensor<[3], f32>):
// CHECK-NEXT:   %s = core.sin(%a) : !tx.tensor<[3], f32>
// CHECK-NEXT:   control.yield %s : !tx.tensor<[3], f32>
// CHECK-NEXT: }, {
// CHECK: core.cos
func.func @cond(%p: !tx.tensor<[], i1>, %x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %r = control.cond %p (%x) : !tx.tensor<[], i1>, (!tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>) {
  ^bb0(%a: !tx.tensor<[3], f32>):
    %s = core.sin(%a) : !tx.tensor<[3], f32>
    control.yield %s : !tx.tensor<[3], f32>
  }, {
  ^bb0(%a: !tx.tensor<[3], f32>):
    %c = core.cos(%a) : !tx.tensor<[3], f32>
    control.yield %c : !tx.tensor<[3], f32>
  }
  func.return %r : !tx.tensor<[3], f32>
}

// Branches of different shapes: the result dim is unbacked.
// CHECK-LABEL: func.func @cond_unbacked
// CHECK: -> (!tx.tensor<[u0, 4], f32>)
func.func @cond_unbacked(%p: !tx.symbool, %x: !tx.tensor<[3, 4], f32>) {
  %r = control.cond %p (%x) : !tx.symbool, (!tx.tensor<[3, 4], f32>) -> (!tx.tensor<[u0, 4], f32>) {
  ^bb0(%a: !tx.tensor<[3, 4], f32>):
    control.yield %a : !tx.tensor<[3, 4], f32>
  }, {
  ^bb0(%a: !tx.tensor<[3, 4], f32>):
    %s = core.slice.Tensor(%a, 0, 0, 2) : !tx.tensor<[2, 4], f32>
    control.yield %s : !tx.tensor<[2, 4], f32>
  }
  func.return
}

// CHECK-LABEL: func.func @map_scan_while
// CHECK: control.map(%xs) (%x) : (!tx.tensor<[s0, 3], f32>) (!tx.tensor<[3], f32>) -> (!tx.tensor<[s0, 3], f32>)
// CHECK: control.scan(%x) (%xs) () : (!tx.tensor<[3], f32>) (!tx.tensor<[s0, 3], f32>) () -> (!tx.tensor<[3], f32>, !tx.tensor<[s0, 3], f32>)
// CHECK: control.while_loop(%x) () : (!tx.tensor<[3], f32>) () -> (!tx.tensor<[3], f32>)
func.func @map_scan_while(%x: !tx.tensor<[3], f32>, %xs: !tx.tensor<[s0, 3], f32>) {
  %m = control.map (%xs) (%x) : (!tx.tensor<[s0, 3], f32>) (!tx.tensor<[3], f32>) -> (!tx.tensor<[s0, 3], f32>) {
  ^bb0(%a: !tx.tensor<[3], f32>, %b: !tx.tensor<[3], f32>):
    %s = core.add.Tensor(%a, %b) : !tx.tensor<[3], f32>
    control.yield %s : !tx.tensor<[3], f32>
  }
  %sc:2 = control.scan (%x) (%xs) () : (!tx.tensor<[3], f32>) (!tx.tensor<[s0, 3], f32>) () -> (!tx.tensor<[3], f32>, !tx.tensor<[s0, 3], f32>) {
  ^bb0(%c: !tx.tensor<[3], f32>, %a: !tx.tensor<[3], f32>):
    %s = core.add.Tensor(%a, %c) : !tx.tensor<[3], f32>
    control.yield %s, %s : !tx.tensor<[3], f32>, !tx.tensor<[3], f32>
  }
  %w = control.while_loop (%x) () : (!tx.tensor<[3], f32>) () -> (!tx.tensor<[3], f32>) {
  ^bb0(%c: !tx.tensor<[3], f32>):
    %q = core.sum.dim_IntList(%c, none) : !tx.tensor<[], f32>
    %lt = core.lt.Scalar(%q, 10) : !tx.tensor<[], i1>
    control.yield %lt : !tx.tensor<[], i1>
  }, {
  ^bb0(%c: !tx.tensor<[3], f32>):
    %s = core.add.Tensor(%c, %c) : !tx.tensor<[3], f32>
    control.yield %s : !tx.tensor<[3], f32>
  }
  func.return
}
