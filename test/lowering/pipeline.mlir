// RUN: texport-opt %S/../../examples/conv_bn_training.mlir -p functionalize,decompose | filecheck %s
// RUN: texport-opt %S/../../examples/conv_bn_training.mlir -p functionalize,decompose,canonicalize,cse,dce | texport-opt --print-op-generic | texport-opt | filecheck %s

// A training-level file to core in one pipeline (symbolic sizes kept; the
// buffer updates become BUFFER_MUTATION results, first, as torch orders them).
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (!tx.tensor<[3], f32> {tx.output = "BUFFER_MUTATION", tx.target = "bn.running_mean"}
// CHECK-SAME: {tx.output = "BUFFER_MUTATION", tx.target = "bn.num_batches_tracked"}, !tx.tensor<[s77, 3, s53, s0], f32> {tx.output = "USER_OUTPUT"})
// CHECK-NEXT: %convolution = core.convolution(%x, %p_conv_weight, %p_conv_bias, [1, 1], [0, 0], [1, 1], false, [0, 0], 1) : !tx.tensor<[s77, 3, s53, s0], f32>
// CHECK-NEXT: %add = core.add.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
// CHECK-NEXT: functional._native_batch_norm_legit_functional(%convolution,
// CHECK-NOT: training.
