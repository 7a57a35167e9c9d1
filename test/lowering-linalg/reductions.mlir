// RUN: texport-opt -p lower-core-to-linalg-reductions %s | filecheck %s
// RUN: texport-opt -p lower-core-to-linalg %s | filecheck %s --check-prefix=FULL

// A reduction is a linalg.generic whose reduced dims are "reduction" iterators,
// its init a linalg.fill of the identity; keepdim reads index 0 of the reduced dim.
// mean divides by the count, read from the dynamic size at run time.
// max.dim is one generic with two results (value, first index; a nan wins);
// softmax subtracts the max; cumsum adds x[j] for j <= i over an extra loop j;
// linalg_vector_norm (kept in core) is a sum of powers and a root.

builtin.module {
  func.func @forward(%x: !tx.tensor<[s0, 4], f32>, %m: !tx.tensor<[s0, 4], i1>) -> (!tx.tensor<[s0, 1], f32>, !tx.tensor<[4], f32>, !tx.tensor<[s0], f32>, !tx.tensor<[s0], i64>, !tx.tensor<[4], f32>, !tx.tensor<[s0], i1>, !tx.tensor<[4], f32>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], f32>) {
    %sum = core.sum.dim_IntList(%x, [1], true) : !tx.tensor<[s0, 1], f32>
    %mean = core.mean.dim(%x, [0]) : !tx.tensor<[4], f32>
    %values, %indices = core.max.dim(%x, 1) : (!tx.tensor<[s0], f32>, !tx.tensor<[s0], i64>)
    %amax = core.amax(%x, [0]) : !tx.tensor<[4], f32>
    %any = core.any.dim(%m, 1) : !tx.tensor<[s0], i1>
    %var = core.var.correction(%x, [0], correction = 1) : !tx.tensor<[4], f32>
    %softmax = core._softmax(%x, 1, false) : !tx.tensor<[s0, 4], f32>
    %cumsum = core.cumsum(%x, 1) : !tx.tensor<[s0, 4], f32>
    func.return %sum, %mean, %values, %indices, %amax, %any, %var, %softmax, %cumsum : !tx.tensor<[s0, 1], f32>, !tx.tensor<[4], f32>, !tx.tensor<[s0], f32>, !tx.tensor<[s0], i64>, !tx.tensor<[4], f32>, !tx.tensor<[s0], i1>, !tx.tensor<[4], f32>, !tx.tensor<[s0, 4], f32>, !tx.tensor<[s0, 4], f32>
  }
  func.func @norm_and_prod(%x: !tx.tensor<[s0, 4], f32>, %h: !tx.tensor<[3, 4], f16>) -> (!tx.tensor<[s0], f32>, !tx.tensor<[3], f16>) {
    %norm = functional.linalg_vector_norm(%x, 3, [1]) : !tx.tensor<[s0], f32>
    %prod = core.prod.dim_int(%h, 1) : !tx.tensor<[3], f16>
    func.return %norm, %prod : !tx.tensor<[s0], f32>, !tx.tensor<[3], f16>
  }
  func.func @top_two(%x: !tx.tensor<[s0, 5], f32>) -> (!tx.tensor<[s0, 2], f32>, !tx.tensor<[s0, 2], i64>) {
    %values, %indices = core.topk(%x, 2) : (!tx.tensor<[s0, 2], f32>, !tx.tensor<[s0, 2], i64>)
    func.return %values, %indices : !tx.tensor<[s0, 2], f32>, !tx.tensor<[s0, 2], i64>
  }
}

// sum, keepdim: the result's map reads index 0 of the reduced dim
// CHECK:      %[[DIM:.*]] = tensor.dim
// CHECK:      %[[EMPTY:.*]] = tensor.empty(%[[DIM]]) : tensor<?x1xf32>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<?x1xf32>)
// CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:   outs(%[[INIT]] : tensor<?x1xf32>)
// CHECK:        arith.addf
// CHECK:      %sum = builtin.unrealized_conversion_cast {{.*}} : tensor<?x1xf32> to !tx.tensor<[s0, 1], f32>

// mean over the dynamic dim: the count is the size, as a float
// CHECK:      iterator_types = ["reduction", "parallel"]
// CHECK:      %[[COUNT:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK-NEXT: %[[FCOUNT:.*]] = arith.sitofp %[[COUNT]] : i64 to f32
// CHECK:        arith.divf %{{.*}}, %[[FCOUNT]] : f32
// CHECK:      %mean = builtin.unrealized_conversion_cast

// max.dim: -inf and index 0, one generic with two results
// CHECK:      arith.constant 0xff800000 : f32
// CHECK:      arith.constant 0 : i64
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?xi64>)
// CHECK:        linalg.index 1 : index
// CHECK:        arith.cmpi slt
// CHECK:        arith.cmpf ogt
// CHECK:        arith.cmpf uno
// CHECK:        linalg.yield %{{.*}}, %{{.*}} : f32, i64
// CHECK:      %values = builtin.unrealized_conversion_cast
// CHECK:      %indices = builtin.unrealized_conversion_cast

// amax propagates nan (maximumf)
// CHECK:      arith.constant 0xff800000 : f32
// CHECK:        arith.maximumf
// CHECK:      %amax = builtin.unrealized_conversion_cast

// any: false, or
// CHECK:      arith.constant false
// CHECK:        arith.ori
// CHECK:      %any = builtin.unrealized_conversion_cast

// var: mean, squared deviations, divided by max(count - correction, 0)
// CHECK:        arith.subf
// CHECK-NEXT:   arith.mulf
// CHECK-NEXT:   arith.addf
// CHECK:      arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.subf
// CHECK:      arith.maximumf
// CHECK:      %var = builtin.unrealized_conversion_cast

// softmax: the max, the sum of exp(x - max), then exp(x - max) / sum
// CHECK:        arith.maximumf
// CHECK:        arith.subf
// CHECK-NEXT:   math.exp
// CHECK-NEXT:   arith.addf
// CHECK:        math.exp
// CHECK-NEXT:   arith.divf
// CHECK:      %softmax = builtin.unrealized_conversion_cast

// cumsum: an extra reduction loop d2 over the scanned dim, masked by d2 <= d1
// CHECK:      arith.constant -0.000000e+00 : f32
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:        %[[J:.*]] = linalg.index 2 : index
// CHECK-NEXT:   %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT:   %[[PREFIX:.*]] = arith.cmpi ule, %[[J]], %[[I]] : index
// CHECK-NEXT:   %[[ADDED:.*]] = arith.addf
// CHECK-NEXT:   arith.select %[[PREFIX]], %[[ADDED]]
// CHECK:      %cumsum = builtin.unrealized_conversion_cast

// the 3-norm: (sum |x|^3)^(1/3)
// CHECK:      func.func @norm_and_prod
// CHECK:        math.absf
// CHECK-NEXT:   arith.constant 3.000000e+00 : f32
// CHECK-NEXT:   math.powf
// CHECK-NEXT:   arith.addf
// CHECK:        arith.constant 0.333333343 : f32
// CHECK-NEXT:   math.powf
// CHECK:      %norm = builtin.unrealized_conversion_cast

// a float16 prod rounds each product, as torch (no float32 accumulator)
// CHECK:      linalg.fill ins(%{{.*}} : f16)
// CHECK:      ^bb0(%{{.*}}: f16, %{{.*}}: f16):
// CHECK-NEXT:   arith.extf
// CHECK-NEXT:   arith.extf
// CHECK-NEXT:   arith.mulf
// CHECK-NEXT:   arith.truncf
// CHECK-NEXT:   linalg.yield %{{.*}} : f16

// topk: ranks (a count over a second loop d2 along the dim: the elements before each),
// then output k (d1, of 2) selects the element (d2) of rank k
// CHECK:      func.func @top_two
// CHECK:      %[[RANKS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:   outs(%{{.*}} : tensor<?x5xi64>)
// CHECK:        arith.cmpi ult
// CHECK:        arith.cmpf olt
// CHECK:        arith.extui
// CHECK-NEXT:   arith.addi
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[RANKS]] : tensor<?x5xf32>, tensor<?x5xi64>) outs(%{{.*}}, %{{.*}} : tensor<?x2xf32>, tensor<?x2xi64>)
// CHECK:        arith.cmpi eq
// CHECK:        arith.select
// CHECK-NEXT:   arith.select
// CHECK:      %values = builtin.unrealized_conversion_cast

// FULL:       func.func @forward(%x: tensor<?x4xf32>, %m: tensor<?x4xi1>)
// FULL-NOT:   unrealized_conversion_cast
// FULL-NOT:   tx.
// FULL:       func.func @norm_and_prod(%x: tensor<?x4xf32>, %h: tensor<3x4xf16>)
// FULL-NOT:   tx.
// FULL:       func.return
