// RUN: texport-opt -p lower-core-to-linalg-views %s | filecheck %s
// RUN: texport-opt -p lower-core-to-linalg %s | filecheck %s --check-prefix=FULL

// View ops as value semantics: each result is a new tensor of the result type's
// shape (the shape rule resolved -1, clamped the slice bounds, dropped the squeezed dims).

builtin.module {
  // A reshape is a collapse to one dim per group of dims whose products match,
  // then an expansion; a dynamic size of the result is index arithmetic.
  func.func @reshapes(%x: !tx.tensor<[s0, 3, 4], f32>) -> (!tx.tensor<[3*s0, 4], f32>, !tx.tensor<[s0, 3, 2, 2], f32>, !tx.tensor<[s0, 1, 3, 4], f32>, !tx.tensor<[s0, 2, 6], f32>) {
    %view = core.view(%x, [-1, 4]) : !tx.tensor<[3*s0, 4], f32>
    %sym_size_int = core.sym_size.int(%x, 0) : !tx.symint<s0>
    %view_1 = core.view(%x, [%sym_size_int, 3, 2, 2]) : !tx.tensor<[s0, 3, 2, 2], f32>
    %unsqueeze = core.unsqueeze(%x, 1) : !tx.tensor<[s0, 1, 3, 4], f32>
    %view_2 = core.view(%x, [%sym_size_int, 2, 6]) : !tx.tensor<[s0, 2, 6], f32>
    func.return %view, %view_1, %unsqueeze, %view_2 : !tx.tensor<[3*s0, 4], f32>, !tx.tensor<[s0, 3, 2, 2], f32>, !tx.tensor<[s0, 1, 3, 4], f32>, !tx.tensor<[s0, 2, 6], f32>
  }

// CHECK-LABEL: func.func @reshapes
// CHECK:       %[[S0:.*]] = tensor.dim
// CHECK:       tensor.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<?x3x4xf32> into tensor<?x4xf32>
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [%[[S0]], 3, 2, 2] : tensor<?x3x4xf32> into tensor<?x3x2x2xf32>
// CHECK:       tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64]] output_shape [%[[S0]], 1, 3, 4] : tensor<?x3x4xf32> into tensor<?x1x3x4xf32>
// 3x4 -> 2x6 shares no dim: through one dim of 12
// CHECK:       tensor.collapse_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64]] : tensor<?x3x4xf32> into tensor<?x12xf32>
// CHECK-NEXT:  tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64]] output_shape [%[[S0]], 2, 6] : tensor<?x12xf32> into tensor<?x2x6xf32>

  // permute is linalg.transpose; expand a generic reading index 0 of a stretched dim.
  // (an expand to the same shape is its input).
  func.func @layout(%x: !tx.tensor<[s0, 1, 4], f32>) -> (!tx.tensor<[4, s0, 1], f32>, !tx.tensor<[s0, 5, 4], f32>, !tx.tensor<[s0, 1, 4], f32>) {
    %permute = core.permute(%x, [2, 0, -2]) : !tx.tensor<[4, s0, 1], f32>
    %expand = core.expand(%x, [-1, 5, 4]) : !tx.tensor<[s0, 5, 4], f32>
    %expand_1 = core.expand(%x, [-1, 1, 4]) : !tx.tensor<[s0, 1, 4], f32>
    func.return %permute, %expand, %expand_1 : !tx.tensor<[4, s0, 1], f32>, !tx.tensor<[s0, 5, 4], f32>, !tx.tensor<[s0, 1, 4], f32>
  }

// CHECK-LABEL: func.func @layout
// CHECK:       linalg.transpose ins(%{{.*}}:tensor<?x1x4xf32>) outs(%{{.*}}:tensor<4x?x1xf32>) permutation = [2, 0, 1]
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-NOT:   linalg.generic
// CHECK:       %expand_1 = builtin.unrealized_conversion_cast %{{.*}} : tensor<?x1x4xf32> to !tx.tensor<[s0, 1, 4], f32>

  // Sub-tensors: extract_slice with Python's start (negative from the end, clamped) and
  // the step as a stride; select drops its dim (a rank-reduced slice); split slices
  // each piece where the ones before end.
  func.func @slices(%x: !tx.tensor<[s0, 3, 4], f32>) -> (!tx.tensor<[s0, 2, 4], f32>, !tx.tensor<[1, 3, 4], f32>, !tx.tensor<[s0, 3, 2], f32>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 1, 4], f32>, !tx.tensor<[s0, 2, 4], f32>) {
    %slice_1 = core.slice.Tensor(%x, 1, 1, 3) : !tx.tensor<[s0, 2, 4], f32>
    %slice_2 = core.slice.Tensor(%x, 0, -1, 9223372036854775807) : !tx.tensor<[1, 3, 4], f32>
    %slice_3 = core.slice.Tensor(%x, 2, 0, 9223372036854775807, 2) : !tx.tensor<[s0, 3, 2], f32>
    %select = core.select.int(%x, 1, -1) : !tx.tensor<[s0, 4], f32>
    %getitem, %getitem_1 = core.split_with_sizes(%x, [1, 2], 1) : (!tx.tensor<[s0, 1, 4], f32>, !tx.tensor<[s0, 2, 4], f32>)
    func.return %slice_1, %slice_2, %slice_3, %select, %getitem, %getitem_1 : !tx.tensor<[s0, 2, 4], f32>, !tx.tensor<[1, 3, 4], f32>, !tx.tensor<[s0, 3, 2], f32>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 1, 4], f32>, !tx.tensor<[s0, 2, 4], f32>
  }

// CHECK-LABEL: func.func @slices
// CHECK:       %[[S0:.*]] = tensor.dim
// CHECK:       tensor.extract_slice %{{.*}}[0, 1, 0] [%[[S0]], 2, 4] [1, 1, 1] : tensor<?x3x4xf32> to tensor<?x2x4xf32>
// the last row of a dynamic dim: max(s0 - 1, 0)
// CHECK:       %[[ADD:.*]] = arith.addi %{{.*}}, %[[S0]] : index
// CHECK-NEXT:  %[[LAST:.*]] = arith.maxsi %[[ADD]], %{{.*}} : index
// CHECK:       tensor.extract_slice %{{.*}}{{\[}}%[[LAST]], 0, 0] [1, 3, 4] [1, 1, 1] : tensor<?x3x4xf32> to tensor<1x3x4xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0] [%[[S0]], 3, 2] [1, 1, 2] : tensor<?x3x4xf32> to tensor<?x3x2xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 2, 0] [%[[S0]], 1, 4] [1, 1, 1] : tensor<?x3x4xf32> to tensor<?x4xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0] [%[[S0]], 1, 4] [1, 1, 1] : tensor<?x3x4xf32> to tensor<?x1x4xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 1, 0] [%[[S0]], 2, 4] [1, 1, 1] : tensor<?x3x4xf32> to tensor<?x2x4xf32>

  // cat inserts each input at the sum of the sizes before it; slice_scatter and
  // select_scatter (a rank-reduced source) are one insert.
  func.func @inserts(%x: !tx.tensor<[s0, 3, 4], f32>, %y: !tx.tensor<[2, 3, 4], f32>, %z: !tx.tensor<[s0, 1, 4], f32>, %w: !tx.tensor<[s0, 4], f32>) -> (!tx.tensor<[s0 + 2, 3, 4], f32>, !tx.tensor<[s0, 3, 4], f32>, !tx.tensor<[s0, 3, 4], f32>) {
    %cat = core.cat([%x, %y]) : !tx.tensor<[s0 + 2, 3, 4], f32>
    %slice_scatter = core.slice_scatter(%x, %z, 1, 1, 2) : !tx.tensor<[s0, 3, 4], f32>
    %select_scatter = core.select_scatter(%x, %w, 1, -1) : !tx.tensor<[s0, 3, 4], f32>
    func.return %cat, %slice_scatter, %select_scatter : !tx.tensor<[s0 + 2, 3, 4], f32>, !tx.tensor<[s0, 3, 4], f32>, !tx.tensor<[s0, 3, 4], f32>
  }

// CHECK-LABEL: func.func @inserts
// CHECK:       %[[S0:.*]] = tensor.dim
// CHECK:       %[[SUM:.*]] = arith.addi
// CHECK:       %[[EMPTY:.*]] = tensor.empty(%[[SUM]]) : tensor<?x3x4xf32>
// CHECK:       %[[FIRST:.*]] = tensor.insert_slice %{{.*}} into %[[EMPTY]][0, 0, 0] [%[[S0]], 3, 4] [1, 1, 1] : tensor<?x3x4xf32> into tensor<?x3x4xf32>
// CHECK:       tensor.insert_slice %{{.*}} into %[[FIRST]]{{\[}}%[[S0]], 0, 0] [2, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> into tensor<?x3x4xf32>
// CHECK:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0] [%[[S0]], 1, 4] [1, 1, 1] : tensor<?x1x4xf32> into tensor<?x3x4xf32>
// CHECK:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 2, 0] [%[[S0]], 1, 4] [1, 1, 1] : tensor<?x4xf32> into tensor<?x3x4xf32>

  // constant_pad_nd: a negative pad slices first, the rest is tensor.pad with the value.
  // flip and diagonal read their input with tensor.extract; repeat broadcasts to
  // (repeats, size) pairs and collapses them.
  func.func @moves(%x: !tx.tensor<[s0, 3, 4], f32>, %y: !tx.tensor<[2, 3, 4], f32>) -> (!tx.tensor<[s0, 2, 7], f32>, !tx.tensor<[s0, 3, 4], f32>, !tx.tensor<[4, 3, 4], f32>, !tx.tensor<[2, 3], f32>) {
    %constant_pad_nd = core.constant_pad_nd(%x, [1, 2, -1, 0], 0.5) : !tx.tensor<[s0, 2, 7], f32>
    %flip = core.flip(%x, [0, -1]) : !tx.tensor<[s0, 3, 4], f32>
    %repeat = core.repeat(%y, [2, 1, 1]) : !tx.tensor<[4, 3, 4], f32>
    %diagonal = core.diagonal(%y, 1, 1, 2) : !tx.tensor<[2, 3], f32>
    func.return %constant_pad_nd, %flip, %repeat, %diagonal : !tx.tensor<[s0, 2, 7], f32>, !tx.tensor<[s0, 3, 4], f32>, !tx.tensor<[4, 3, 4], f32>, !tx.tensor<[2, 3], f32>
  }

// CHECK-LABEL: func.func @moves
// CHECK:       %[[CUT:.*]] = tensor.extract_slice %{{.*}}[0, 1, 0] [%{{.*}}, 2, 4] [1, 1, 1] : tensor<?x3x4xf32> to tensor<?x2x4xf32>
// CHECK:       tensor.pad %[[CUT]] low[0, 0, 1] high[0, 0, 2] {
// CHECK:         arith.constant 5.000000e-01 : f32
// CHECK:       } : tensor<?x2x4xf32> to tensor<?x2x7xf32>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK:         linalg.index 0
// CHECK:         arith.subi
// CHECK:         tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<?x3x4xf32>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>]
// CHECK-SAME:    outs(%{{.*}} : tensor<2x2x1x3x1x4xf32>)
// CHECK:       tensor.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64, 3 : i64], [4 : i64, 5 : i64]] : tensor<2x2x1x3x1x4xf32> into tensor<4x3x4xf32>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:         arith.addi
// CHECK:         tensor.extract %{{.*}} : tensor<2x3x4xf32>

  // as_strided reads its input as its own row-major storage: collapsed to one dim,
  // element offset + sum(index * stride).
  func.func @strided(%x: !tx.tensor<[2, 3, 4], f32>) -> !tx.tensor<[3, 2], f32> {
    %as_strided = core.as_strided(%x, [3, 2], [1, 4], 2) : !tx.tensor<[3, 2], f32>
    func.return %as_strided : !tx.tensor<[3, 2], f32>
  }

// CHECK-LABEL: func.func @strided
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64, 2 : i64]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:       linalg.generic
// CHECK:         arith.muli
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    tensor.extract %[[FLAT]][%{{.*}}] : tensor<24xf32>
}

// FULL-NOT:   unrealized_conversion_cast
// FULL-NOT:   core.
