// RUN: texport-opt %s -p legalize-core --split-input-file --verify-diagnostics | filecheck %s

// Core ops move to the core dialect; the kept core extras stay functional.
// CHECK-LABEL: func.func @core_ops
// CHECK-NEXT: %a = core.convolution(%x, %w, none, [1, 1], [0, 0], [1, 1], false, [0, 0], 1)
// CHECK-NEXT: %b = core.relu(%a)
// CHECK-NEXT: %c, %d, %e, %f, %g = functional._native_batch_norm_legit_functional(%b, none, none, %rm, %rv, true, 0.1, 1.0e-05)
func.func @core_ops(%x: !tx.tensor<[1, 1, 3, 3], f32>, %w: !tx.tensor<[3, 1, 1, 1], f32>, %rm: !tx.tensor<[3], f32>, %rv: !tx.tensor<[3], f32>) -> !tx.tensor<[1, 3, 3, 3], f32> {
  %a = functional.convolution(%x, %w, none, [1, 1], [0, 0], [1, 1], false, [0, 0], 1) : !tx.tensor<[1, 3, 3, 3], f32>
  %b = functional.relu(%a) : !tx.tensor<[1, 3, 3, 3], f32>
  %c, %d, %e, %f, %g = functional._native_batch_norm_legit_functional(%b, none, none, %rm, %rv, true, 0.1, 1.0e-05) : (!tx.tensor<[1, 3, 3, 3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>)
  func.return %c : !tx.tensor<[1, 3, 3, 3], f32>
}

// -----

// The first op outside core is named, with its location.
// CHECK: legalize-core: 'functional.hardswish' at model.py:5 is not a core ATen op (decompose it first, e.g. -p decompose{table=core})
func.func @first_only(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %a = functional.hardswish(%x) : !tx.tensor<[3], f32> loc("model.py":5:0)
  func.return %a : !tx.tensor<[3], f32>
}
