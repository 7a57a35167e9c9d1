// RUN: texport-opt %S/../../examples/conv_bn_training.mlir -p functionalize,decompose | filecheck %s
// RUN: texport-opt %S/../../examples/conv_bn_training.mlir -p functionalize,decompose,aten-canonicalize,cse,dce | texport-opt --print-op-generic | texport-opt | filecheck %s

// A training-level file to core in one pipeline (symbolic sizes kept).
// CHECK-LABEL: func.func @forward
// CHECK-SAME: tx.output = "USER_INPUT_MUTATION", tx.target = "b_bn_running_mean"
// CHECK-NEXT: %convolution = core.convolution(%x, %p_conv_weight, %p_conv_bias, [1, 1], [0, 0], [1, 1], false, [0, 0], 1) : !tx.tensor<[s0, 3, s1, s1], f32>
// CHECK-NEXT: %add = core.add.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
// CHECK-NEXT: functional._native_batch_norm_legit_functional(%convolution,
// CHECK-NOT: training.
