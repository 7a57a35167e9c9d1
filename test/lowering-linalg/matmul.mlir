// RUN: texport-opt -p lower-core-to-linalg-matmul %s | filecheck %s
// RUN: texport-opt -p lower-core-to-linalg %s | filecheck %s --check-prefix=FULL

// Matrix products as contractions IREE recognises: 2-D is the named linalg.matmul
// into a zero fill; addmm with beta = alpha = 1 accumulates into its bias broadcast
// to the result (one contraction); other beta/alpha scale after the product; bmm is
// a generic with three parallel loops and one reduction; half floats sum in f32.

builtin.module {
  func.func @products(%x: !tx.tensor<[s0, 4], f32>, %w: !tx.tensor<[4, 5], f32>, %b: !tx.tensor<[5], f32>, %y: !tx.tensor<[s0, 2, 4], f32>, %z: !tx.tensor<[s0, 4, 2], f32>) -> (!tx.tensor<[s0, 5], f32>, !tx.tensor<[s0, 5], f32>, !tx.tensor<[s0, 5], f32>, !tx.tensor<[s0, 2, 2], f32>) {
    %mm = core.mm(%x, %w) : !tx.tensor<[s0, 5], f32>
    %addmm = core.addmm(%b, %x, %w) : !tx.tensor<[s0, 5], f32>
    %addmm_1 = core.addmm(%b, %x, %w, beta = 0.5, alpha = 2.0) : !tx.tensor<[s0, 5], f32>
    %bmm = core.bmm(%y, %z) : !tx.tensor<[s0, 2, 2], f32>
    func.return %mm, %addmm, %addmm_1, %bmm : !tx.tensor<[s0, 5], f32>, !tx.tensor<[s0, 5], f32>, !tx.tensor<[s0, 5], f32>, !tx.tensor<[s0, 2, 2], f32>
  }

// CHECK-LABEL: func.func @products
// CHECK:       %[[S0:.*]] = tensor.dim
// CHECK:       %[[EMPTY:.*]] = tensor.empty(%[[S0]]) : tensor<?x5xf32>
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<?x5xf32>)
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<4x5xf32>) outs(%[[FILL]] : tensor<?x5xf32>) -> tensor<?x5xf32>
// addmm: the bias broadcast is the matmul's init
// CHECK:       %[[BIAS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<4x5xf32>) outs(%[[BIAS]] : tensor<?x5xf32>)
// addmm, beta = 0.5, alpha = 2: 0.5 * bias + 2 * (x @ w)
// CHECK:       %[[PRODUCT:.*]] = linalg.matmul
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %[[PRODUCT]] : tensor<5xf32>, tensor<?x5xf32>)
// CHECK:         arith.constant 2.000000e+00 : f32
// CHECK:         arith.mulf
// CHECK:         arith.constant 5.000000e-01 : f32
// CHECK:         arith.mulf
// CHECK:         arith.addf
// bmm
// CHECK:       linalg.fill
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK:         arith.mulf
// CHECK-NEXT:    arith.addf

  func.func @half(%x: !tx.tensor<[3, 4], f16>, %w: !tx.tensor<[4, 5], f16>) -> !tx.tensor<[3, 5], f16> {
    %mm = core.mm(%x, %w) : !tx.tensor<[3, 5], f16>
    func.return %mm : !tx.tensor<[3, 5], f16>
  }

// CHECK-LABEL: func.func @half
// CHECK:       linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x4xf16>, tensor<4x5xf16>) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK:         arith.extf
// CHECK:         arith.extf
// CHECK:         arith.mulf {{.*}} : f32
// CHECK:       linalg.generic
// CHECK:         arith.truncf {{.*}} : f32 to f16

  func.func @integers(%x: !tx.tensor<[3, 4], i64>, %w: !tx.tensor<[4, 5], i64>, %b: !tx.tensor<[3, 5], i64>) -> !tx.tensor<[3, 5], i64> {
    %addmm = core.addmm(%b, %x, %w, beta = 2, alpha = 1.5) : !tx.tensor<[3, 5], i64>
    func.return %addmm : !tx.tensor<[3, 5], i64>
  }

// alpha = 1.5 truncates to 1 for an integer product (torch converts the scalars first)
// CHECK-LABEL: func.func @integers
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xi64>, tensor<4x5xi64>)
// CHECK:       linalg.generic
// CHECK-NOT:     arith.constant 1
// CHECK:         arith.constant 2 : i64
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    arith.addi
}

// FULL:       func.func @products(%x: tensor<?x4xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>, %y: tensor<?x2x4xf32>, %z: tensor<?x4x2xf32>)
// FULL-NOT:   unrealized_conversion_cast
// FULL-NOT:   core.
