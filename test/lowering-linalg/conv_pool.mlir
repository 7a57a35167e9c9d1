// RUN: texport-opt -p lower-core-to-linalg-conv-pool %s | filecheck %s
// RUN: texport-opt -p lower-core-to-linalg-conv-pool,lower-core-to-linalg %s | filecheck %s --check-prefix=FULL

// Convolution is linalg's named conv on an input padded by tensor.pad, its
// accumulator the bias broadcast along the channels (or zeros); groups > 1 are
// the ngchw form over expand_shape'd operands; a 1-d convolution is the 2-d one
// over a unit height. Max pooling is pooling_nchw_max on an input padded with
// -inf, unless the indices are used: then one generic computes both. The
// window of a generic is a pair of reduction dims bounded by a kernel-shaped
// tensor.empty. Resampling reads its input by tensor.extract.

builtin.module {
  func.func @forward(%x: !tx.tensor<[s0, 4, 9, 9], f32>, %w: !tx.tensor<[8, 4, 3, 3], f32>, %b: !tx.tensor<[8], f32>, %wg: !tx.tensor<[6, 2, 3, 3], f32>, %w1: !tx.tensor<[5, 4, 3], f32>, %x1: !tx.tensor<[s0, 4, 9], f32>, %wt: !tx.tensor<[4, 3, 3, 3], f32>, %v: !tx.tensor<[4, 4, 6, 6], f32>) -> (!tx.tensor<[s0, 8, 5, 5], f32>, !tx.tensor<[s0, 6, 7, 7], f32>, !tx.tensor<[s0, 5, 7], f32>, !tx.tensor<[s0, 4, 5, 5], f32>, !tx.tensor<[s0, 4, 5, 5], f32>, !tx.tensor<[s0, 4, 5, 5], i64>, !tx.tensor<[s0, 4, 4, 4], f32>, !tx.tensor<[s0, 4, 18, 18], f32>, !tx.tensor<[s0, 4, 18, 18], f32>, !tx.tensor<[s0, 3, 18, 18], f32>, !tx.tensor<[4, 2, 3, 3], f32>) {
    %conv = core.convolution(%x, %w, %b, [2, 2], [1, 1], [1, 1], false, [0, 0], 1) : !tx.tensor<[s0, 8, 5, 5], f32>
    %grouped = core.convolution(%x, %wg, none, [1, 1], [0, 0], [1, 1], false, [0, 0], 2) : !tx.tensor<[s0, 6, 7, 7], f32>
    %conv1d = core.convolution(%x1, %w1, none, [1], [0], [1], false, [0], 1) : !tx.tensor<[s0, 5, 7], f32>
    %values, %unused = core.max_pool2d_with_indices(%x, [3, 3], [2, 2], [1, 1]) : (!tx.tensor<[s0, 4, 5, 5], f32>, !tx.tensor<[s0, 4, 5, 5], i64>)
    %pooled, %indices = core.max_pool2d_with_indices(%x, [3, 3], [2, 2], [1, 1]) : (!tx.tensor<[s0, 4, 5, 5], f32>, !tx.tensor<[s0, 4, 5, 5], i64>)
    %avg = core.avg_pool2d(%x, [2, 2]) : !tx.tensor<[s0, 4, 4, 4], f32>
    %nearest = core.upsample_nearest2d.vec(%x, none, [2.0, 2.0]) : !tx.tensor<[s0, 4, 18, 18], f32>
    %bilinear = core.upsample_bilinear2d.vec(%x, none, false, [2.0, 2.0]) : !tx.tensor<[s0, 4, 18, 18], f32>
    %up = core.convolution(%x, %wt, none, [2, 2], [1, 1], [1, 1], true, [1, 1], 1) : !tx.tensor<[s0, 3, 18, 18], f32>
    %volume, %unused3d = core.max_pool3d_with_indices(%v, [2, 2, 2]) : (!tx.tensor<[4, 2, 3, 3], f32>, !tx.tensor<[4, 2, 3, 3], i64>)
    func.return %conv, %grouped, %conv1d, %values, %pooled, %indices, %avg, %nearest, %bilinear, %up, %volume : !tx.tensor<[s0, 8, 5, 5], f32>, !tx.tensor<[s0, 6, 7, 7], f32>, !tx.tensor<[s0, 5, 7], f32>, !tx.tensor<[s0, 4, 5, 5], f32>, !tx.tensor<[s0, 4, 5, 5], f32>, !tx.tensor<[s0, 4, 5, 5], i64>, !tx.tensor<[s0, 4, 4, 4], f32>, !tx.tensor<[s0, 4, 18, 18], f32>, !tx.tensor<[s0, 4, 18, 18], f32>, !tx.tensor<[s0, 3, 18, 18], f32>, !tx.tensor<[4, 2, 3, 3], f32>
  }
}

// CHECK:      %[[X:.*]] = builtin.unrealized_conversion_cast %x : !tx.tensor<[s0, 4, 9, 9], f32> to tensor<?x4x9x9xf32>
// CHECK:      %[[B:.*]] = tensor.dim
// CHECK:      %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:        tensor.yield %{{.*}} : f32
// CHECK:      } : tensor<?x4x9x9xf32> to tensor<?x4x11x11xf32>
// CHECK:      %[[OUT:.*]] = tensor.empty(%[[B]]) : tensor<?x8x5x5xf32>
// CHECK:      %[[BIAS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]{{.*}} outs(%[[OUT]] : tensor<?x8x5x5xf32>)
// CHECK:      linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%[[PADDED]], %{{.*}} : tensor<?x4x11x11xf32>, tensor<8x4x3x3xf32>) outs(%[[BIAS]] : tensor<?x8x5x5xf32>)

// Grouped: (N, 4, H, W) as (N, 2, 2, H, W), (6, 2, kh, kw) as (2, 3, 2, kh, kw).
// CHECK:      linalg.fill
// CHECK:      tensor.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [%{{.*}}, 2, 2, 9, 9] : tensor<?x4x9x9xf32> into tensor<?x2x2x9x9xf32>
// CHECK:      tensor.expand_shape %{{.*}} output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK:      linalg.conv_2d_ngchw_gfchw
// CHECK-SAME:   outs(%{{.*}} : tensor<?x2x3x7x7xf32>)
// CHECK:      tensor.collapse_shape %{{.*}} : tensor<?x2x3x7x7xf32> into tensor<?x6x7x7xf32>

// 1-d: a unit height.
// CHECK:      tensor.expand_shape %{{.*}} : tensor<?x4x9xf32> into tensor<?x4x1x9xf32>
// CHECK:      tensor.expand_shape %{{.*}} : tensor<5x4x3xf32> into tensor<5x4x1x3xf32>
// CHECK:      linalg.conv_2d_nchw_fchw
// CHECK:      tensor.collapse_shape %{{.*}} : tensor<?x5x1x7xf32> into tensor<?x5x7xf32>

// Max pool, indices unused: the named op, -inf around and as the start.
// CHECK:      tensor.pad
// CHECK:        arith.constant 0xff800000 : f32
// CHECK:      linalg.fill
// CHECK:      %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:      linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%{{.*}}, %[[WINDOW]] : tensor<?x4x11x11xf32>, tensor<3x3xf32>)

// Max pool, indices used: one generic, two outputs.
// CHECK:      %{{.*}}, %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK:        arith.cmpf ogt
// CHECK:        arith.cmpf uno
// CHECK:        linalg.yield %{{.*}}, %{{.*}} : f32, i64

// Average pool: a window sum, then a division (by 4: every window is inside).
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK:        arith.addf
// CHECK:      linalg.generic
// CHECK:        arith.constant 4.000000e+00 : f32
// CHECK-NEXT:   arith.divf

// Nearest, twice the size: src = dst >> 1.
// CHECK:      linalg.generic {{.*}} outs(%{{.*}} : tensor<?x4x18x18xf32>)
// CHECK:        arith.shrui
// CHECK:        tensor.extract

// Bilinear: floor of torch's source index, four reads.
// CHECK:      linalg.generic {{.*}} outs(%{{.*}} : tensor<?x4x18x18xf32>)
// CHECK:        math.floor
// CHECK-COUNT-4: tensor.extract

// Transposed: the input spread into zeros (stride 2, 3 - 1 - 1 = 1 around, output
// padding 1 after), the weight flipped with its channels swapped, stride 1.
// CHECK:      tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [%{{.*}}, 4, 9, 9] [1, 1, 2, 2] : tensor<?x4x9x9xf32> into tensor<?x4x20x20xf32>
// CHECK:      linalg.generic {{.*}} outs(%{{.*}} : tensor<3x4x3x3xf32>)
// CHECK:        arith.subi
// CHECK:        tensor.extract %{{.*}} : tensor<4x3x3x3xf32>
// CHECK:      linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x4x20x20xf32>, tensor<3x4x3x3xf32>)

// 3-d max pool of an unbatched (C, D, H, W) input: a unit batch, the generic
// (linalg has no ncdhw pooling), the batch dropped again.
// CHECK:      tensor.expand_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] output_shape [1, 4, 4, 6, 6]
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK:      tensor.collapse_shape %{{.*}} : tensor<1x4x2x3x3xf32> into tensor<4x2x3x3xf32>

// FULL:       func.func @forward(%x: tensor<?x4x9x9xf32>
// FULL-NOT:   unrealized_conversion_cast
// FULL-NOT:   core.
