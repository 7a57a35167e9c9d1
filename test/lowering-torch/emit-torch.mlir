// RUN: texport-opt %s -t torch | filecheck %s
// RUN: texport-opt %s -p decompose -t torch | filecheck %s

// A core program as torch-mlir's fx importer prints it: weights and inputs as
// !torch.vtensor arguments in order (symbolic dims as ?), literal arguments as
// torch constants, int lists through torch.prim.ListConstruct, a symbolic size
// through torch.aten.size.int and its arithmetic on !torch.int, a multi-result op
// as %r:n, a Tensor[] result through torch.prim.ListUnpack.

func.func @forward(%p_l_weight: !tx.tensor<[4, 4], f32> {tx.input = "PARAMETER", tx.target = "l.weight"}, %p_l_bias: !tx.tensor<[4], f32> {tx.input = "PARAMETER", tx.target = "l.bias"}, %x: !tx.tensor<[s77, 4], f32> {tx.input = "USER_INPUT", tx.path = "x"}) -> (!tx.tensor<[2*s77, 2], f32> {tx.output = "USER_OUTPUT"}, !tx.tensor<[s77, 1], f32> {tx.output = "USER_OUTPUT"}, !tx.tensor<[s77, 3], f32> {tx.output = "USER_OUTPUT"}) attributes {tx.range_constraints = {s77 = "VR[0, 64]"}} {
  %permute = core.permute(%p_l_weight, [1, 0]) : !tx.tensor<[4, 4], f32>
  %addmm = core.addmm(%p_l_bias, %x, %permute) : !tx.tensor<[s77, 4], f32>
  %c2 = tx.constant 2 : !tx.symint<2>
  %sym_size_int = core.sym_size.int(%x, 0) : !tx.symint<s77>
  %mul = tx.mul %c2, %sym_size_int : !tx.symint<2*s77>
  %view = core.view(%addmm, [%mul, 2]) : !tx.tensor<[2*s77, 2], f32>
  %out, %mean, %rstd = core.native_layer_norm(%addmm, [4], %p_l_bias, %p_l_bias, 1.0e-05) : (!tx.tensor<[s77, 4], f32>, !tx.tensor<[s77, 1], f32>, !tx.tensor<[s77, 1], f32>)
  %first, %rest = core.split_with_sizes(%out, [1, 3], 1) : (!tx.tensor<[s77, 1], f32>, !tx.tensor<[s77, 3], f32>)
  func.return %view, %rstd, %rest : !tx.tensor<[2*s77, 2], f32>, !tx.tensor<[s77, 1], f32>, !tx.tensor<[s77, 3], f32>
}

// CHECK:      module {
// CHECK-NEXT:   func.func @forward(%arg0: !torch.vtensor<[4,4],f32>, %arg1: !torch.vtensor<[4],f32>, %arg2: !torch.vtensor<[?,4],f32>) -> (!torch.vtensor<[?,2],f32>, !torch.vtensor<[?,1],f32>, !torch.vtensor<[?,3],f32>) {
// CHECK-NEXT:     %int1 = torch.constant.int 1
// CHECK-NEXT:     %int0 = torch.constant.int 0
// CHECK-NEXT:     %[[PERM:.*]] = torch.prim.ListConstruct %int1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK-NEXT:     %[[T:.*]] = torch.aten.permute %arg0, %[[PERM]] : !torch.vtensor<[4,4],f32>, !torch.list<int> -> !torch.vtensor<[4,4],f32>
// CHECK:          %[[MM:.*]] = torch.aten.addmm %arg1, %arg2, %[[T]], %{{.*}}, %{{.*}} : !torch.vtensor<[4],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[4,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,4],f32>
// CHECK:          %[[N:.*]] = torch.aten.size.int %arg2, %{{.*}} : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
// CHECK-NEXT:     %[[N2:.*]] = torch.aten.mul.int %int2, %[[N]] : !torch.int, !torch.int -> !torch.int
// CHECK:          %[[SIZES:.*]] = torch.prim.ListConstruct %[[N2]], %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK-NEXT:     %[[VIEW:.*]] = torch.aten.view %[[MM]], %[[SIZES]] : !torch.vtensor<[?,4],f32>, !torch.list<int> -> !torch.vtensor<[?,2],f32>
// CHECK:          %float = torch.constant.float 1.0e-05
// CHECK-NEXT:     %[[LN:.*]]:3 = torch.aten.native_layer_norm %[[MM]], %{{.*}}, %arg1, %arg1, %float : {{.*}} -> !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,1],f32>, !torch.vtensor<[?,1],f32>
// CHECK:          %[[LIST:.*]] = torch.aten.split_with_sizes %[[LN]]#0, %{{.*}}, %{{.*}} : !torch.vtensor<[?,4],f32>, !torch.list<int>, !torch.int -> !torch.list<vtensor>
// CHECK-NEXT:     %[[PARTS:.*]]:2 = torch.prim.ListUnpack %[[LIST]] : !torch.list<vtensor> -> !torch.vtensor<[?,1],f32>, !torch.vtensor<[?,3],f32>
// CHECK-NEXT:     return %[[VIEW]], %[[LN]]#2, %[[PARTS]]#1 : !torch.vtensor<[?,2],f32>, !torch.vtensor<[?,1],f32>, !torch.vtensor<[?,3],f32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
