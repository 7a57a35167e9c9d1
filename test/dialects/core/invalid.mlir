// RUN: texport-opt --split-input-file --parsing-diagnostics --verify-diagnostics %s | filecheck %s

func.func @wrong_result_shape(%x: !tx.tensor<[3], f32>) {
  %r = core.relu(%x) : !tx.tensor<[4], f32>
  func.return
}
// CHECK: 'core.relu' op result #0 has type !tx.tensor<[4], f32>, but its shape rule gives !tx.tensor<[3], f32>

// -----

func.func @wrong_result_dtype(%x: !tx.tensor<[3], i64>) {
  %r = core.eq.Scalar(%x, 1) : !tx.tensor<[3], i64>
  func.return
}
// CHECK: 'core.eq.Scalar' op result #0 has type !tx.tensor<[3], i64>, but its shape rule gives !tx.tensor<[3], i1>

// -----

func.func @broadcast_mismatch(%x: !tx.tensor<[3], f32>, %y: !tx.tensor<[4], f32>) {
  %r = core.add.Tensor(%x, %y) : !tx.tensor<[4], f32>
  func.return
}
// CHECK: 'core.add.Tensor' op: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0

// -----

func.func @unknown_keyword(%x: !tx.tensor<[3], f32>) {
  %r = core.add.Tensor(%x, %x, beta = 2) : !tx.tensor<[3], f32>
  func.return
}
// CHECK: 'core.add.Tensor' has no argument named 'beta'

// -----

func.func @missing_argument(%x: !tx.tensor<[3], f32>) {
  %r = core.add.Tensor(%x) : !tx.tensor<[3], f32>
  func.return
}
// CHECK: 'core.add.Tensor' is missing its required argument 'other'

// -----

func.func @too_many(%x: !tx.tensor<[3], f32>) {
  %r = core.relu(%x, %x) : !tx.tensor<[3], f32>
  func.return
}
// CHECK: 'core.relu' takes 1 positional arguments, found more

// -----

func.func @not_core(%x: !tx.tensor<[1, 1, 3, 3], f32>, %w: !tx.tensor<[3, 1, 1, 1], f32>) {
  %r = core.conv2d(%x, %w) : !tx.tensor<[1, 3, 3, 3], f32>
  func.return
}
// CHECK: Operation core.conv2d is not registered

// -----

func.func @symint_where_tensor(%n: !tx.symint<s0>) {
  %r = core.relu(%n) : !tx.tensor<[3], f32>
  func.return
}
// CHECK: 'core.relu' op: argument 'self' must be a tensor, found !tx.symint<s0>

// -----

func.func @bad_value(%x: !tx.tensor<[3], f32>) {
  %r = core.add.Tensor(%x, @sym) : !tx.tensor<[3], f32>
  func.return
}
// CHECK: unexpected character '@' in argument list

// -----

func.func @bad_word(%x: !tx.tensor<[3], f32>) {
  %r = core.add.Tensor(%x, banana) : !tx.tensor<[3], f32>
  func.return
}
// CHECK: expected a value for a Tensor argument (%ssa, number, true/false, none, string, [list]), found 'banana'
