// The seed's model (Conv2d(1, 3, 1, 1) + BatchNorm2d(3), train mode) at the
// training level, as `texport.export.export` records it with a dynamic batch
// and spatial size: the buffer update stays an in-place add_, batch norm is the
// composite op, and the signature rides on the arguments and results.
func.func @forward(%p_conv_weight: !tx.tensor<[3, 1, 1, 1], f32> {tx.input = "PARAMETER", tx.target = "conv.weight"}, %p_conv_bias: !tx.tensor<[3], f32> {tx.input = "PARAMETER", tx.target = "conv.bias"}, %p_bn_weight: !tx.tensor<[3], f32> {tx.input = "PARAMETER", tx.target = "bn.weight"}, %p_bn_bias: !tx.tensor<[3], f32> {tx.input = "PARAMETER", tx.target = "bn.bias"}, %b_bn_running_mean: !tx.tensor<[3], f32> {tx.input = "BUFFER", tx.target = "bn.running_mean", tx.persistent = true}, %b_bn_running_var: !tx.tensor<[3], f32> {tx.input = "BUFFER", tx.target = "bn.running_var", tx.persistent = true}, %b_bn_num_batches_tracked: !tx.tensor<[], i64> {tx.input = "BUFFER", tx.target = "bn.num_batches_tracked", tx.persistent = true}, %x: !tx.tensor<[s77, 1, s53, s0], f32> {tx.input = "USER_INPUT", tx.path = "x"}) -> (!tx.tensor<[s77, 3, s53, s0], f32> {tx.output = "USER_OUTPUT"}) attributes {tx.range_constraints = {s77 = "VR[0, 64]", s53 = "VR[2, int_oo]", s0 = "VR[2, int_oo]"}} {
  %conv2d = training.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[s77, 3, s53, s0], f32>
  %add_ = training.add_.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
  %batch_norm = training.batch_norm(%conv2d, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, true, 0.1, 1.0e-05, false) : !tx.tensor<[s77, 3, s53, s0], f32>
  func.return %batch_norm : !tx.tensor<[s77, 3, s53, s0], f32>
}
