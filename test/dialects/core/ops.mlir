// RUN: texport-opt %s | filecheck %s
// RUN: texport-opt %s | texport-opt | filecheck %s
// RUN: texport-opt %s | ROUNDTRIP | filecheck %s

// The seed's conv + batch norm at core level (torch's core ATen op sequence).
// CHECK-LABEL: func.func @conv_bn_eval
// CHECK-NEXT: %convolution = core.convolution(%x, %p_conv_weight, %p_conv_bias, [1, 1], [0, 0], [1, 1], false, [0, 0], 1) : !tx.tensor<[1, 3, 3, 3], f32>
// CHECK-NEXT: %getitem, %getitem_1, %getitem_2 = core._native_batch_norm_legit_no_training(%convolution, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, 0.1, 1.0e-05) : (!tx.tensor<[1, 3, 3, 3], f32>, !tx.tensor<[0], f32>, !tx.tensor<[0], f32>)
func.func @conv_bn_eval(%p_conv_weight: !tx.tensor<[3, 1, 1, 1], f32>, %p_conv_bias: !tx.tensor<[3], f32>,
                        %p_bn_weight: !tx.tensor<[3], f32>, %p_bn_bias: !tx.tensor<[3], f32>,
                        %b_bn_running_mean: !tx.tensor<[3], f32>, %b_bn_running_var: !tx.tensor<[3], f32>,
                        %x: !tx.tensor<[1, 1, 3, 3], f32>) -> !tx.tensor<[1, 3, 3, 3], f32> {
  %convolution = core.convolution(%x, %p_conv_weight, %p_conv_bias, [1, 1], [0, 0], [1, 1], false, [0, 0], 1) : !tx.tensor<[1, 3, 3, 3], f32>
  %getitem, %getitem_1, %getitem_2 = core._native_batch_norm_legit_no_training(%convolution, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, 0.1, 1.0e-05) : (!tx.tensor<[1, 3, 3, 3], f32>, !tx.tensor<[0], f32>, !tx.tensor<[0], f32>)
  func.return %getitem : !tx.tensor<[1, 3, 3, 3], f32>
}

// Defaults are left out; keyword-only arguments print as `name = value`.
// CHECK-LABEL: func.func @defaults_and_keywords
// CHECK-NEXT: %add = core.add.Tensor(%x, %y) : !tx.tensor<[s0, 4], f32>
// CHECK-NEXT: %add_1 = core.add.Tensor(%x, %y, alpha = 2) : !tx.tensor<[s0, 4], f32>
// CHECK-NEXT: %mul = core.mul.Tensor(%x, 2) : !tx.tensor<[s0, 4], f32>
// CHECK-NEXT: %div = core.div.Tensor_mode(%x, %y, rounding_mode = "floor") : !tx.tensor<[s0, 4], f32>
// CHECK-NEXT: %sum = core.sum.dim_IntList(%x, [1], true) : !tx.tensor<[s0, 1], f32>
// CHECK-NEXT: %mean = core.mean.dim(%x, none) : !tx.tensor<[], f32>
// CHECK-NEXT: %full = core.full([2, 3], 1.5, dtype = f64) : !tx.tensor<[2, 3], f64>
// CHECK-NEXT: %clamp = core.clamp(%x, -inf, 6.0) : !tx.tensor<[s0, 4], f32>
// CHECK-NEXT: %gelu = core.gelu(%x, approximate = "tanh") : !tx.tensor<[s0, 4], f32>
func.func @defaults_and_keywords(%x: !tx.tensor<[s0, 4], f32>, %y: !tx.tensor<[s0, 4], f32>) {
  %add = core.add.Tensor(%x, %y, alpha = 1) : !tx.tensor<[s0, 4], f32>
  %add_1 = core.add.Tensor(%x, %y, alpha = 2) : !tx.tensor<[s0, 4], f32>
  %mul = core.mul.Tensor(%x, 2) : !tx.tensor<[s0, 4], f32>
  %div = core.div.Tensor_mode(%x, %y, rounding_mode = "floor") : !tx.tensor<[s0, 4], f32>
  %sum = core.sum.dim_IntList(%x, [1], true, dtype = none) : !tx.tensor<[s0, 1], f32>
  %mean = core.mean.dim(%x, none, false) : !tx.tensor<[], f32>
  %full = core.full([2, 3], 1.5, dtype = f64) : !tx.tensor<[2, 3], f64>
  %clamp = core.clamp(%x, -inf, 6.0) : !tx.tensor<[s0, 4], f32>
  %gelu = core.gelu(%x, approximate = "tanh") : !tx.tensor<[s0, 4], f32>
  func.return
}

// Symbolic sizes flow as !tx.symint operands inside list arguments.
// CHECK-LABEL: func.func @symbolic_sizes
// CHECK-NEXT: %sym_size_int = core.sym_size.int(%x, 0) : !tx.symint<s0>
// CHECK-NEXT: %view = core.view(%x, [%sym_size_int, 2, 2]) : !tx.tensor<[s0, 2, 2], f32>
// CHECK-NEXT: %slice = core.slice.Tensor(%x, 0, 0, %sym_size_int) : !tx.tensor<[s0, 4], f32>
// CHECK-NEXT: %index = core.index.Tensor(%x, [none, %i]) : !tx.tensor<[s0, 2], f32>
// CHECK-NEXT: %cat = core.cat([%x, %x], 1) : !tx.tensor<[s0, 8], f32>
// CHECK-NEXT: %split, %split_1 = core.split_with_sizes(%x, [1, 3], 1) : (!tx.tensor<[s0, 1], f32>, !tx.tensor<[s0, 3], f32>)
func.func @symbolic_sizes(%x: !tx.tensor<[s0, 4], f32>, %i: !tx.tensor<[2], i64>) {
  %sym_size_int = core.sym_size.int(%x, 0) : !tx.symint<s0>
  %view = core.view(%x, [%sym_size_int, 2, 2]) : !tx.tensor<[s0, 2, 2], f32>
  %slice = core.slice.Tensor(%x, 0, 0, %sym_size_int) : !tx.tensor<[s0, 4], f32>
  %index = core.index.Tensor(%x, [none, %i]) : !tx.tensor<[s0, 2], f32>
  %cat = core.cat([%x, %x], 1) : !tx.tensor<[s0, 8], f32>
  %split, %split_1 = core.split_with_sizes(%x, [1, 3], 1) : (!tx.tensor<[s0, 1], f32>, !tx.tensor<[s0, 3], f32>)
  func.return
}

// A number stands for a Tensor argument as torch's wrapped numbers do: a
// literal or a symbolic size, first too when a tensor follows (s - x).
// CHECK-LABEL: func.func @wrapped_numbers
// CHECK-NEXT: %sub = core.sub.Tensor(1, %x) : !tx.tensor<[s0], i64>
// CHECK-NEXT: %sub_1 = core.sub.Tensor(%n, %x) : !tx.tensor<[s0], i64>
// CHECK-NEXT: %mul = core.mul.Tensor(%x, %n) : !tx.tensor<[s0], i64>
func.func @wrapped_numbers(%x: !tx.tensor<[s0], i64>, %n: !tx.symint<s0>) {
  %sub = core.sub.Tensor(1, %x) : !tx.tensor<[s0], i64>
  %sub_1 = core.sub.Tensor(%n, %x) : !tx.tensor<[s0], i64>
  %mul = core.mul.Tensor(%x, %n) : !tx.tensor<[s0], i64>
  func.return
}

// Generic form parses into the same op.
// CHECK-LABEL: func.func @generic
// CHECK-NEXT: %r = core.relu(%x) : !tx.tensor<[2], f32>
func.func @generic(%x: !tx.tensor<[2], f32>) {
  %r = "core.relu"(%x) <{operandSegmentSizes = array<i32: 1>}> : (!tx.tensor<[2], f32>) -> !tx.tensor<[2], f32>
  func.return
}
