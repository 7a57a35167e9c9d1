// The README's first command round-trips this bundled example.
// RUN: texport-opt %S/../../examples/conv_bn_training.mlir | ROUNDTRIP | filecheck %s
// CHECK: %conv2d = training.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[s77, 3, s53, s0], f32>
// CHECK-NEXT: %add_ = training.add_.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
// CHECK-NEXT: %batch_norm = training.batch_norm
