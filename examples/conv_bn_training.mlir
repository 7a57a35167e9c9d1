// The seed's model (Conv2d(1, 3, 1, 1) + BatchNorm2d(3), train mode) at the
// training level, as torch.export records it: the buffer update stays an
// in-place add_, batch norm is the composite op.
func.func @forward(%p_conv_weight: !tx.tensor<[3, 1, 1, 1], f32>, %p_conv_bias: !tx.tensor<[3], f32>,
                   %p_bn_weight: !tx.tensor<[3], f32>, %p_bn_bias: !tx.tensor<[3], f32>,
                   %b_bn_running_mean: !tx.tensor<[3], f32>, %b_bn_running_var: !tx.tensor<[3], f32>,
                   %b_bn_num_batches_tracked: !tx.tensor<[], i64>,
                   %x: !tx.tensor<[s0, 1, s1, s1], f32>) -> !tx.tensor<[s0, 3, s1, s1], f32> {
  %conv2d = training.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[s0, 3, s1, s1], f32>
  %add_ = training.add_.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
  %batch_norm = training.batch_norm(%conv2d, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, true, 0.1, 1.0e-05, false) : !tx.tensor<[s0, 3, s1, s1], f32>
  func.return %batch_norm : !tx.tensor<[s0, 3, s1, s1], f32>
}
