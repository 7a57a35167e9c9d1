// RUN: texport-opt %s -p "apply-pdl{pdl_file=\"%S/Inputs/core-rewrites.pdl\"},dce" | filecheck %s

// A user's PDL patterns rewrite core IR through xDSL's apply-pdl.
// CHECK-LABEL: func.func @pdl_rewrites
// CHECK-NEXT: %[[R:.+]] = core.relu(%x)
// CHECK-NEXT: %[[S:.+]] = core.add.Tensor(%x, %[[R]])
// CHECK-NEXT: func.return %[[S]]
func.func @pdl_rewrites(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %n = core.neg(%x) : !tx.tensor<[3], f32>
  %nn = core.neg(%n) : !tx.tensor<[3], f32>
  %r = core.relu(%x) : !tx.tensor<[3], f32>
  %rr = core.relu(%r) : !tx.tensor<[3], f32>
  %s = core.add.Tensor(%nn, %rr) : !tx.tensor<[3], f32>
  func.return %s : !tx.tensor<[3], f32>
}
