// A well-formed op that does not verify is reported where its text starts, as mlir-opt
// reports it at the op's location: file:line:col, the line, a caret; exit 1, no traceback.
// RUN: %python %S/Inputs/exit_status.py texport-opt %s | filecheck %s --check-prefixes=CLEAN,VERIFY
// RUN: %python %S/Inputs/exit_status.py texport-run %s | filecheck %s --check-prefixes=CLEAN,VERIFY

// CLEAN-NOT: Traceback
// VERIFY: {{^.*}}texport-opt-verify-located.mlir:[[# @LINE + 5]]:3: error: 'training.nonzero' op result #0 has type !tx.tensor<[3], f32>, but its shape rule gives !tx.tensor<[?, 2], i64>
// VERIFY-NEXT: %y = training.nonzero(%x) : !tx.tensor<[3], f32>
// VERIFY-NEXT: {{^  \^}}
// VERIFY: exit status 1
func.func @f(%x: !tx.tensor<[3, 4], f32>) {
  %y = training.nonzero(%x) : !tx.tensor<[3], f32>
  func.return
}
