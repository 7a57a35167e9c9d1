// RUN: texport-opt -p lower-core-to-linalg-indexing %s | filecheck %s
// RUN: texport-opt -p lower-core-to-linalg-indexing,lower-core-to-linalg %s | filecheck %s --check-prefix=FULL

// A gather is a generic over the result reading the source by tensor.extract at
// linalg.index coordinates and the index tensors' elements (advanced indexing
// wraps a negative index). A scatter is a reduction, per element of the result,
// over the writes that may reach it: accumulating writes add every hit in order;
// plain ones keep the last hit (a max over write positions), then read its value.
// nonzero (a data-dependent size) stays for legalize-linalg to name.

builtin.module {
  func.func @forward(%table: !tx.tensor<[6, 5], f32>, %rows: !tx.tensor<[s0, 3], i64>, %columns: !tx.tensor<[2], i64>, %index: !tx.tensor<[6, 2], i64>, %i: !tx.tensor<[2], i64>, %j: !tx.tensor<[2], i64>, %x: !tx.tensor<[4, 5, 6], f32>, %src: !tx.tensor<[6, 2], f32>, %values: !tx.tensor<[5], f32>, %mask: !tx.tensor<[3], f32>, %offsets: !tx.tensor<[2], i64>) -> (!tx.tensor<[s0, 3, 5], f32>, !tx.tensor<[6, 2], f32>, !tx.tensor<[6, 2], f32>, !tx.tensor<[2, 5], f32>, !tx.tensor<[6, 5], f32>, !tx.tensor<[6, 5], f32>, !tx.tensor<[6, 5], f32>, !tx.tensor<[u0, 1], i64>, !tx.tensor<[6, 5], f32>, !tx.tensor<[2, 5], f32>) {
    %embedding = core.embedding(%table, %rows) : !tx.tensor<[s0, 3, 5], f32>
    %selected = core.index_select(%table, 1, %columns) : !tx.tensor<[6, 2], f32>
    %gathered = core.gather(%table, 1, %index) : !tx.tensor<[6, 2], f32>
    %picked = core.index.Tensor(%x, [%i, none, %j]) : !tx.tensor<[2, 5], f32>
    %put = core.index_put(%table, [%i], %values, true) : !tx.tensor<[6, 5], f32>
    %scattered = core.scatter.src(%table, 1, %index, %src) : !tx.tensor<[6, 5], f32>
    %added = core.scatter_add(%table, 1, %index, %src) : !tx.tensor<[6, 5], f32>
    %nonzero = core.nonzero(%mask) : !tx.tensor<[u0, 1], i64>
    %amax = core.scatter_reduce.two(%table, 1, %index, %src, "amax", include_self = false) : !tx.tensor<[6, 5], f32>
    %bags, %offset2bag, %bag_size, %max_indices = core._embedding_bag(%table, %columns, %offsets, false, 1) : (!tx.tensor<[2, 5], f32>, !tx.tensor<[2], i64>, !tx.tensor<[2], i64>, !tx.tensor<[2], i64>)
    func.return %embedding, %selected, %gathered, %picked, %put, %scattered, %added, %nonzero, %amax, %bags : !tx.tensor<[s0, 3, 5], f32>, !tx.tensor<[6, 2], f32>, !tx.tensor<[6, 2], f32>, !tx.tensor<[2, 5], f32>, !tx.tensor<[6, 5], f32>, !tx.tensor<[6, 5], f32>, !tx.tensor<[6, 5], f32>, !tx.tensor<[u0, 1], i64>, !tx.tensor<[6, 5], f32>, !tx.tensor<[2, 5], f32>
  }
}

// CHECK:      %[[TABLE:.*]] = builtin.unrealized_conversion_cast %table : !tx.tensor<[6, 5], f32> to tensor<6x5xf32>
// CHECK:      %[[ROWS:.*]] = builtin.unrealized_conversion_cast %rows
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]{{.*}} ins(%[[ROWS]] : tensor<?x3xi64>) outs(%{{.*}} : tensor<?x3x5xf32>)
// CHECK:        %[[ROW:.*]] = arith.index_cast
// CHECK:        %[[COLUMN:.*]] = linalg.index 2 : index
// CHECK:        tensor.extract %[[TABLE]][%[[ROW]], %[[COLUMN]]] : tensor<6x5xf32>

// index_select along dim 1: the index follows d1.
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:        tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<6x5xf32>

// gather: the index has the result's shape.
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]

// x[i, :, j]: the broadcast block in front; negative indices wrapped.
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:        arith.cmpi slt
// CHECK:        arith.select
// CHECK:        %[[MIDDLE:.*]] = linalg.index 1 : index
// CHECK:        tensor.extract %{{.*}}[%{{.*}}, %[[MIDDLE]], %{{.*}}] : tensor<4x5x6xf32>

// index_put with accumulate: the writes (the index block) are a reduction dim.
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:        arith.addf
// CHECK:        arith.cmpi eq
// CHECK:        arith.select

// scatter.src: the last write (a max of write positions), then its value.
// CHECK:      linalg.fill
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<6x5xi64>)
// CHECK:        arith.maxsi
// CHECK:      linalg.generic {{.*}}ins(%{{.*}}, %{{.*}} : tensor<6x5xi64>, tensor<6x5xf32>)
// CHECK:        arith.cmpi sge

// scatter_add: every hit added.
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<6x5xf32>)
// CHECK:        arith.addf

// CHECK:      core.nonzero

// scatter_reduce amax without self: from -inf, maximumf per hit, a count of hits,
// then self where no write hit.
// CHECK:      arith.constant 0xff800000 : f32
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<6x5xf32>)
// CHECK:        arith.maximumf
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<6x5xi64>)
// CHECK:      linalg.generic {{.*}}ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<6x5xf32>, tensor<6x5xi64>, tensor<6x5xf32>)
// CHECK:        arith.cmpi sgt

// _embedding_bag, mean: a sum over the index positions of each bag, a count, a division.
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:        tensor.extract %{{.*}} : tensor<2xi64>
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:      linalg.generic
// CHECK:        arith.divf

// FULL:       core.nonzero
// FULL-NOT:   core.
