// RUN: texport-opt %s -p dce | filecheck %s

// xDSL's dce on texport IR: ATen ops that write nothing and draw no random
// numbers are Pure, so unused ones go; random ops and asserts stay.
// CHECK-LABEL: func.func @dead
// CHECK-NOT: core.relu
// CHECK: core.rand
// CHECK: %live = core.neg(%x)
func.func @dead(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %dead = core.relu(%x) : !tx.tensor<[3], f32>
  %random = core.rand([3]) : !tx.tensor<[3], f32>
  %live = core.neg(%x) : !tx.tensor<[3], f32>
  func.return %live : !tx.tensor<[3], f32>
}
