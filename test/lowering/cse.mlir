// RUN: texport-opt %s -p cse | filecheck %s

// xDSL's cse on texport IR: the same op on the same operands and properties
// is computed once; different properties keep both; random ops are never merged.
// CHECK-LABEL: func.func @common
// CHECK-NEXT: %a = core.permute(%x, [1, 0])
// CHECK-NEXT: %c = core.permute(%x, [0, 1])
// CHECK-NEXT: %d = core.rand([2])
// CHECK-NEXT: %e = core.rand([2])
// CHECK-NEXT: %f = core.add.Tensor(%a, %a)
func.func @common(%x: !tx.tensor<[2, 2], f32>) -> (!tx.tensor<[2, 2], f32>, !tx.tensor<[2, 2], f32>, !tx.tensor<[2], f32>, !tx.tensor<[2], f32>) {
  %a = core.permute(%x, [1, 0]) : !tx.tensor<[2, 2], f32>
  %b = core.permute(%x, [1, 0]) : !tx.tensor<[2, 2], f32>
  %c = core.permute(%x, [0, 1]) : !tx.tensor<[2, 2], f32>
  %d = core.rand([2]) : !tx.tensor<[2], f32>
  %e = core.rand([2]) : !tx.tensor<[2], f32>
  %f = core.add.Tensor(%a, %b) : !tx.tensor<[2, 2], f32>
  func.return %f, %c, %d, %e : !tx.tensor<[2, 2], f32>, !tx.tensor<[2, 2], f32>, !tx.tensor<[2], f32>, !tx.tensor<[2], f32>
}
