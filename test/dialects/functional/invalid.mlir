// RUN: texport-opt --split-input-file --parsing-diagnostics --verify-diagnostics %s | filecheck %s

// Mutating ops are not part of the functional dialect.
func.func @mutation(%x: !tx.tensor<[3], f32>) {
  %r = functional.add_.Tensor(%x, %x) : !tx.tensor<[3], f32>
  func.return
}
// CHECK: Operation functional.add_.Tensor is not registered

// -----

func.func @wrong_stats(%x: !tx.tensor<[2, 3], f32>, %w: !tx.tensor<[3], f32>) {
  %a, %b, %c, %d, %e = functional._native_batch_norm_legit_functional(%x, %w, %w, %w, %w, true, 0.1, 1.0e-05) : (!tx.tensor<[2, 3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[4], f32>)
  func.return
}
// CHECK: 'functional._native_batch_norm_legit_functional' op result #4 has type !tx.tensor<[4], f32>, but its shape rule gives !tx.tensor<[3], f32>
