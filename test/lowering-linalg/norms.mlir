// RUN: texport-opt -p lower-core-to-linalg-norms %s | filecheck %s
// RUN: texport-opt -p lower-core-to-linalg %s | filecheck %s --check-prefix=FULL

// Norms are the interpreter's formulas in linalg: statistics by two reductions
// (the mean, then the squared deviations from it), the rest elementwise.
// layer norm: over the trailing dims, mean and rstd kept as 1s.
// batch norm (training): per channel (d1), out = x * alpha + beta, running
// statistics blended with momentum (the variance unbiased by count / (count - 1)).
// batch norm (evaluation): from the running statistics, saved ones empty.
// group norm: x seen as [N, group, C / group, HxW] by tensor.expand_shape.

builtin.module {
  func.func @forward(%x: !tx.tensor<[s0, 4, 5], f32>, %w: !tx.tensor<[5], f32>, %y: !tx.tensor<[s0, 4, 3], f32>, %c: !tx.tensor<[4], f32>, %rm: !tx.tensor<[4], f32>, %rv: !tx.tensor<[4], f32>) -> (!tx.tensor<[s0, 4, 5], f32>, !tx.tensor<[s0, 4, 1], f32>, !tx.tensor<[s0, 4, 3], f32>, !tx.tensor<[4], f32>, !tx.tensor<[4], f32>, !tx.tensor<[s0, 4, 3], f32>, !tx.tensor<[0], f32>, !tx.tensor<[s0, 4, 3], f32>, !tx.tensor<[s0, 2], f32>) {
    %ln, %ln_mean, %ln_rstd = core.native_layer_norm(%x, [5], %w, none, 1.0e-05) : (!tx.tensor<[s0, 4, 5], f32>, !tx.tensor<[s0, 4, 1], f32>, !tx.tensor<[s0, 4, 1], f32>)
    %bn, %bn_mean, %bn_invstd, %new_mean, %new_var = functional._native_batch_norm_legit_functional(%y, %c, %c, %rm, %rv, true, 0.1, 1.0e-05) : (!tx.tensor<[s0, 4, 3], f32>, !tx.tensor<[4], f32>, !tx.tensor<[4], f32>, !tx.tensor<[4], f32>, !tx.tensor<[4], f32>)
    %ev, %ev_mean, %ev_invstd = core._native_batch_norm_legit_no_training(%y, %c, none, %rm, %rv, 0.1, 1.0e-05) : (!tx.tensor<[s0, 4, 3], f32>, !tx.tensor<[0], f32>, !tx.tensor<[0], f32>)
    %n = core.sym_size.int(%y, 0) : !tx.symint<s0>
    %gn, %gn_mean, %gn_rstd = core.native_group_norm(%y, %c, %c, %n, 4, 3, 2, 1.0e-05) : (!tx.tensor<[s0, 4, 3], f32>, !tx.tensor<[s0, 2], f32>, !tx.tensor<[s0, 2], f32>)
    func.return %ln, %ln_rstd, %bn, %new_mean, %new_var, %ev, %ev_mean, %gn, %gn_rstd : !tx.tensor<[s0, 4, 5], f32>, !tx.tensor<[s0, 4, 1], f32>, !tx.tensor<[s0, 4, 3], f32>, !tx.tensor<[4], f32>, !tx.tensor<[4], f32>, !tx.tensor<[s0, 4, 3], f32>, !tx.tensor<[0], f32>, !tx.tensor<[s0, 4, 3], f32>, !tx.tensor<[s0, 2], f32>
  }
}

// layer norm: sum, mean, squared deviations, rstd = 1 / sqrt(var + eps), then the output
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:        arith.addf
// CHECK:        arith.divf
// CHECK:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:        arith.subf
// CHECK-NEXT:   arith.mulf
// CHECK-NEXT:   arith.addf
// CHECK:      arith.constant 1.000000e-05 : f32
// CHECK:        arith.divf
// CHECK-NEXT:   arith.addf
// CHECK-NEXT:   math.sqrt
// CHECK:        arith.divf
// CHECK:      affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK:        arith.subf
// CHECK-NEXT:   arith.mulf
// CHECK-NEXT:   arith.mulf
// CHECK-NEXT:   linalg.yield
// CHECK:      %ln = builtin.unrealized_conversion_cast
// CHECK:      %ln_mean = builtin.unrealized_conversion_cast
// CHECK:      %ln_rstd = builtin.unrealized_conversion_cast

// batch norm, training: statistics over d0 and d2, per channel d1
// CHECK:      affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction"]
// CHECK:      affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:        arith.mulf
// CHECK-NEXT:   arith.addf
// the running statistics: momentum * batch + (1 - momentum) * old, the variance unbiased
// CHECK:      %[[RATE:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT: %[[KEEP:.*]] = arith.constant 9.000000e-01 : f32
// CHECK:        %[[OLD:.*]] = arith.mulf %[[KEEP]]
// CHECK-NEXT:   %[[NEW:.*]] = arith.mulf %[[RATE]]
// CHECK-NEXT:   arith.addf %[[NEW]], %[[OLD]]
// CHECK:        arith.mulf %{{.*}}, %[[BESSEL:.*]] : f32
// CHECK:      %bn = builtin.unrealized_conversion_cast
// CHECK:      %new_mean = builtin.unrealized_conversion_cast
// CHECK:      %new_var = builtin.unrealized_conversion_cast

// batch norm, evaluation: no reduction; the saved statistics are empty
// CHECK-NOT:  "reduction"
// CHECK:      math.sqrt
// CHECK:      arith.negf
// CHECK:      tensor.empty() : tensor<0xf32>
// CHECK:      %ev = builtin.unrealized_conversion_cast

// group norm: [N, 4, 3] as [N, 2, 2, 3], statistics [N, 2], the weight read at 2 * group + k
// CHECK:      tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64]] output_shape [%{{.*}}, 2, 2, 3] : tensor<?x4x3xf32> into tensor<?x2x2x3xf32>
// CHECK:      iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK:      affine_map<(d0, d1, d2, d3) -> (((d1 * 2) + d2))>
// CHECK:      tensor.collapse_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64]] : tensor<?x2x2x3xf32> into tensor<?x4x3xf32>
// CHECK:      %gn = builtin.unrealized_conversion_cast

// FULL:       func.func @forward(%x: tensor<?x4x5xf32>
// FULL-NOT:   unrealized_conversion_cast
// FULL-NOT:   tx.
// FULL:       func.return
