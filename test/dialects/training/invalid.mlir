// RUN: texport-opt --split-input-file --parsing-diagnostics --verify-diagnostics %s | filecheck %s

func.func @conv_channels(%x: !tx.tensor<[1, 2, 3, 3], f32>, %w: !tx.tensor<[3, 1, 1, 1], f32>) {
  %r = training.conv2d(%x, %w) : !tx.tensor<[1, 3, 3, 3], f32>
  func.return
}
// CHECK: 'training.conv2d' op: Given groups=1, weight of size [3, 1, 1, 1], expected input[1, 2, 3, 3] to have 1 channels, but got 2 channels instead

// -----

func.func @inplace_broadcast(%x: !tx.tensor<[3], f32>, %y: !tx.tensor<[2, 3], f32>) {
  %r = training.add_.Tensor(%x, %y) : !tx.tensor<[3], f32>
  func.return
}
// CHECK: 'training.add_.Tensor' op:

// -----

func.func @view_numel(%x: !tx.tensor<[12], f32>) {
  %r = training.view(%x, [3, 5]) : !tx.tensor<[3, 5], f32>
  func.return
}
// CHECK: 'training.view' op: shape '[3, 5]' is invalid for input of size 12

// -----

func.func @tensor_list_arg(%x: !tx.tensor<[2], f32>, %n: !tx.symint<s0>) {
  %r = training.stack([%x, %n]) : !tx.tensor<[2, 2], f32>
  func.return
}
// CHECK: 'training.stack' op: argument 'tensors' must be a tensor, found !tx.symint<s0>
