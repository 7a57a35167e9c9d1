// RUN: texport-opt %s -p decompose --split-input-file --verify-diagnostics | filecheck %s

// An op with no decomposition is left outside core: the error lists them.
// CHECK: decompose{table=core}: 1 op(s) are left outside the core level, with no decomposition: functional.view.dtype; first at model.py:3
func.func @no_decomposition(%x: !tx.tensor<[4], f32>) -> !tx.tensor<[4], i32> {
  %v = functional.view.dtype(%x, i32) : !tx.tensor<[4], i32> loc("model.py":3:0)
  func.return %v : !tx.tensor<[4], i32>
}

// -----

// decompose takes a functional program: run functionalize first.
// CHECK: decompose: 'training.add_.Tensor' writes its operands; it is not legal in a functional program (run functionalize first)
func.func @training(%x: !tx.tensor<[4], f32>) -> !tx.tensor<[4], f32> {
  %v = training.add_.Tensor(%x, 1) : !tx.tensor<[4], f32>
  func.return %v : !tx.tensor<[4], f32>
}
