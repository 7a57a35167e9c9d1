// RUN: texport-opt %s | filecheck %s
// RUN: texport-opt %s | texport-opt | filecheck %s
// RUN: texport-opt %s | ROUNDTRIP | filecheck %s

// The seed's conv + batch norm at inference (functional) level, train mode:
// the buffer update became add.Tensor, batch norm its functional form.
// CHECK-LABEL: func.func @conv_bn_functional
// CHECK-NEXT: %conv2d = functional.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[1, 3, 3, 3], f32>
// CHECK-NEXT: %add = functional.add.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
// CHECK-NEXT: %getitem, %getitem_1, %getitem_2, %getitem_3, %getitem_4 = functional._native_batch_norm_legit_functional(%conv2d, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, true, 0.1, 1.0e-05) : (!tx.tensor<[1, 3, 3, 3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>)
// CHECK-NEXT: func.return %getitem_3, %getitem_4, %add, %getitem
func.func @conv_bn_functional(%p_conv_weight: !tx.tensor<[3, 1, 1, 1], f32>, %p_conv_bias: !tx.tensor<[3], f32>,
                              %p_bn_weight: !tx.tensor<[3], f32>, %p_bn_bias: !tx.tensor<[3], f32>,
                              %b_bn_running_mean: !tx.tensor<[3], f32>, %b_bn_running_var: !tx.tensor<[3], f32>,
                              %b_bn_num_batches_tracked: !tx.tensor<[], i64>,
                              %x: !tx.tensor<[1, 1, 3, 3], f32>) -> (!tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[], i64>, !tx.tensor<[1, 3, 3, 3], f32>) {
  %conv2d = functional.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[1, 3, 3, 3], f32>
  %add = functional.add.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
  %getitem, %getitem_1, %getitem_2, %getitem_3, %getitem_4 = functional._native_batch_norm_legit_functional(%conv2d, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, true, 0.1, 1.0e-05) : (!tx.tensor<[1, 3, 3, 3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[3], f32>)
  func.return %getitem_3, %getitem_4, %add, %getitem : !tx.tensor<[3], f32>, !tx.tensor<[3], f32>, !tx.tensor<[], i64>, !tx.tensor<[1, 3, 3, 3], f32>
}

// Views stay (they write nothing); functional ops are core or non-mutating.
// CHECK-LABEL: func.func @views
// CHECK-NEXT: %transpose = functional.transpose.int(%x, 0, 1) : !tx.tensor<[3, 2], f32>
// CHECK-NEXT: %reshape = functional.reshape(%transpose, [-1]) : !tx.tensor<[6], f32>
func.func @views(%x: !tx.tensor<[2, 3], f32>) {
  %transpose = functional.transpose.int(%x, 0, 1) : !tx.tensor<[3, 2], f32>
  %reshape = functional.reshape(%transpose, [-1]) : !tx.tensor<[6], f32>
  func.return
}
