// RUN: texport-opt %s -p legalize-functional --split-input-file --verify-diagnostics | filecheck %s

// A training program that writes nothing is the same program one level down.
// CHECK-LABEL: func.func @writes_nothing
// CHECK-NEXT: %linear = functional.linear(%x, %w)
// CHECK-NEXT: %relu = functional.relu(%linear)
// CHECK-NEXT: func.return %relu
func.func @writes_nothing(%x: !tx.tensor<[2, 3], f32>, %w: !tx.tensor<[4, 3], f32>) -> !tx.tensor<[2, 4], f32> {
  %linear = training.linear(%x, %w) : !tx.tensor<[2, 4], f32>
  %relu = training.relu(%linear) : !tx.tensor<[2, 4], f32>
  func.return %relu : !tx.tensor<[2, 4], f32>
}

// -----

// Ops already at the functional or core level stay as they are.
// CHECK-LABEL: func.func @mixed_levels
// CHECK-NEXT: %a = core.neg(%x)
// CHECK-NEXT: %b = functional.silu(%a)
func.func @mixed_levels(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %a = core.neg(%x) : !tx.tensor<[3], f32>
  %b = functional.silu(%a) : !tx.tensor<[3], f32>
  func.return %b : !tx.tensor<[3], f32>
}

// -----

// An op that writes its operand is named, with its location.
// CHECK: legalize-functional: 'training.relu_' at model.py:9 writes its operands; it is not legal in a functional program (run functionalize first)
func.func @writes(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %a = training.relu_(%x) : !tx.tensor<[3], f32> loc("model.py":9:0)
  func.return %x : !tx.tensor<[3], f32>
}

// -----

// batch_norm in training mode writes its running statistics although its schema does not say so.
// CHECK: legalize-functional: 'training.batch_norm' writes its operands
func.func @hidden_write(%x: !tx.tensor<[2, 3], f32>, %rm: !tx.tensor<[3], f32>, %rv: !tx.tensor<[3], f32>) -> !tx.tensor<[2, 3], f32> {
  %bn = training.batch_norm(%x, none, none, %rm, %rv, true, 0.1, 1.0e-05, false) : !tx.tensor<[2, 3], f32>
  func.return %bn : !tx.tensor<[2, 3], f32>
}
