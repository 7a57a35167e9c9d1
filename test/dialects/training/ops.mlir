// RUN: texport-opt %s | filecheck %s
// RUN: texport-opt %s | texport-opt | filecheck %s
// RUN: texport-opt %s | ROUNDTRIP | filecheck %s

// The seed's conv + batch norm at training level, train mode (torch's op sequence).
// CHECK-LABEL: func.func @conv_bn_train
// CHECK-NEXT: %conv2d = training.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[1, 3, 3, 3], f32>
// CHECK-NEXT: %add_ = training.add_.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
// CHECK-NEXT: %batch_norm = training.batch_norm(%conv2d, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, true, 0.1, 1.0e-05, false) : !tx.tensor<[1, 3, 3, 3], f32>
func.func @conv_bn_train(%p_conv_weight: !tx.tensor<[3, 1, 1, 1], f32>, %p_conv_bias: !tx.tensor<[3], f32>,
                         %p_bn_weight: !tx.tensor<[3], f32>, %p_bn_bias: !tx.tensor<[3], f32>,
                         %b_bn_running_mean: !tx.tensor<[3], f32>, %b_bn_running_var: !tx.tensor<[3], f32>,
                         %b_bn_num_batches_tracked: !tx.tensor<[], i64>,
                         %x: !tx.tensor<[1, 1, 3, 3], f32>) -> !tx.tensor<[1, 3, 3, 3], f32> {
  %conv2d = training.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[1, 3, 3, 3], f32>
  %add_ = training.add_.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
  %batch_norm = training.batch_norm(%conv2d, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, true, 0.1, 1.0e-05, false) : !tx.tensor<[1, 3, 3, 3], f32>
  func.return %batch_norm : !tx.tensor<[1, 3, 3, 3], f32>
}

// Core ops are training ops too; mutation and views are allowed here.
// CHECK-LABEL: func.func @mutation_and_views
// CHECK-NEXT: %view = training.view(%x, [4, 2]) : !tx.tensor<[4, 2], f32>
// CHECK-NEXT: %t = training.t(%view) : !tx.tensor<[2, 4], f32>
// CHECK-NEXT: %relu_ = training.relu_(%view) : !tx.tensor<[4, 2], f32>
// CHECK-NEXT: %copy_ = training.copy_(%x, %y) : !tx.tensor<[8], f32>
// CHECK-NEXT: %fill_ = training.fill_.Scalar(%x, 0.0) : !tx.tensor<[8], f32>
// CHECK-NEXT: %zeros = training.zeros([%n, 3]) : !tx.tensor<[s0, 3], f32>
// CHECK-NEXT: %item = training.item(%s) : !tx.symint<u0>
// CHECK-NEXT: training._assert_scalar(%ge, "Runtime assertion failed for expression u0 >= 0 on node 'ge'")
func.func @mutation_and_views(%x: !tx.tensor<[8], f32>, %y: !tx.tensor<[8], f32>, %n: !tx.symint<s0>, %s: !tx.tensor<[], i64>, %ge: !tx.symbool) {
  %view = training.view(%x, [4, 2]) : !tx.tensor<[4, 2], f32>
  %t = training.t(%view) : !tx.tensor<[2, 4], f32>
  %relu_ = training.relu_(%view) : !tx.tensor<[4, 2], f32>
  %copy_ = training.copy_(%x, %y) : !tx.tensor<[8], f32>
  %fill_ = training.fill_.Scalar(%x, 0.0) : !tx.tensor<[8], f32>
  %zeros = training.zeros([%n, 3]) : !tx.tensor<[s0, 3], f32>
  %item = training.item(%s) : !tx.symint<u0>
  training._assert_scalar(%ge, "Runtime assertion failed for expression u0 >= 0 on node 'ge'")
  func.return
}
