// RUN: texport-opt %s -p canonicalize --split-input-file | filecheck %s
// RUN: xdsl-opt %s -p canonicalize --split-input-file | filecheck %s

// Stock canonicalize, in texport-opt and in xdsl-opt (which loads texport's
// dialects through the xdsl.universe entry point): texport's algebraic rules
// (lowering/rules.py CANONICALIZE) are the ATen ops' canonicalization patterns.

// x * 1 -> x; x + 0 -> x; x - 0 -> x; x / 1 -> x
// CHECK-LABEL: func.func @identities
// CHECK-NEXT: func.return %x
func.func @identities(%x: !tx.tensor<[2, 3], f32>) -> !tx.tensor<[2, 3], f32> {
  %a = core.mul.Tensor(%x, 1) : !tx.tensor<[2, 3], f32>
  %b = core.add.Tensor(%a, 0) : !tx.tensor<[2, 3], f32>
  %c = core.sub.Tensor(%b, 0) : !tx.tensor<[2, 3], f32>
  %d = core.div.Tensor(%c, 1) : !tx.tensor<[2, 3], f32>
  func.return %d : !tx.tensor<[2, 3], f32>
}

// -----

// x * 1 is kept when it changes the type (an integer times 1.0 is a float)
// CHECK-LABEL: func.func @type_changing_mul
// CHECK-NEXT: %a = core.mul.Tensor(%x, 1.0) : !tx.tensor<[3], f32>
func.func @type_changing_mul(%x: !tx.tensor<[3], i64>) -> !tx.tensor<[3], f32> {
  %a = core.mul.Tensor(%x, 1.0) : !tx.tensor<[3], f32>
  func.return %a : !tx.tensor<[3], f32>
}

// -----

// view(view(x, a), b) -> view(x, b)
// CHECK-LABEL: func.func @view_of_view
// CHECK-NEXT: %[[V:.+]] = core.view(%x, [3, 4])
// CHECK-NEXT: func.return %[[V]]
func.func @view_of_view(%x: !tx.tensor<[2, 6], f32>) -> !tx.tensor<[3, 4], f32> {
  %a = core.view(%x, [12]) : !tx.tensor<[12], f32>
  %b = core.view(%a, [4, 3]) : !tx.tensor<[4, 3], f32>
  %c = core.view(%b, [3, 4]) : !tx.tensor<[3, 4], f32>
  func.return %c : !tx.tensor<[3, 4], f32>
}

// -----

// transpose(transpose(x)) -> permute, and the identity permute -> x
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-NEXT: %[[P:.+]] = functional.permute(%x, [1, 2, 0])
// CHECK-NEXT: func.return %[[P]], %x
func.func @transpose_of_transpose(%x: !tx.tensor<[2, 3, 4], f32>) -> (!tx.tensor<[3, 4, 2], f32>, !tx.tensor<[2, 3, 4], f32>) {
  %a = functional.transpose.int(%x, 0, 1) : !tx.tensor<[3, 2, 4], f32>
  %b = functional.transpose.int(%a, 1, 2) : !tx.tensor<[3, 4, 2], f32>
  %c = functional.transpose.int(%x, 0, 2) : !tx.tensor<[4, 3, 2], f32>
  %d = functional.transpose.int(%c, 2, 0) : !tx.tensor<[2, 3, 4], f32>
  func.return %b, %d : !tx.tensor<[3, 4, 2], f32>, !tx.tensor<[2, 3, 4], f32>
}

// -----

// permute(permute(x, p), q) -> permute(x, p[q])
// CHECK-LABEL: func.func @permute_of_permute
// CHECK-NEXT: %[[P:.+]] = core.permute(%x, [2, 0, 1])
// CHECK-NEXT: func.return %[[P]]
func.func @permute_of_permute(%x: !tx.tensor<[2, 3, 4], f32>) -> !tx.tensor<[4, 2, 3], f32> {
  %a = core.permute(%x, [1, 2, 0]) : !tx.tensor<[3, 4, 2], f32>
  %b = core.permute(%a, [1, 2, 0]) : !tx.tensor<[4, 2, 3], f32>
  func.return %b : !tx.tensor<[4, 2, 3], f32>
}

// -----

// a no-op expand, clone, alias or slice is its input; a real expand stays
// CHECK-LABEL: func.func @no_ops
// CHECK-NEXT: %[[E:.+]] = core.expand(%x, [4, 2, 3])
// CHECK-NEXT: func.return %x, %[[E]]
func.func @no_ops(%x: !tx.tensor<[2, 3], f32>) -> (!tx.tensor<[2, 3], f32>, !tx.tensor<[4, 2, 3], f32>) {
  %a = core.expand(%x, [2, 3]) : !tx.tensor<[2, 3], f32>
  %b = core.clone(%a, memory_format = "contiguous_format") : !tx.tensor<[2, 3], f32>
  %c = core.alias(%b) : !tx.tensor<[2, 3], f32>
  %d = core.slice.Tensor(%c, 0, 0, 9223372036854775807) : !tx.tensor<[2, 3], f32>
  %e = core.expand(%d, [4, 2, 3]) : !tx.tensor<[4, 2, 3], f32>
  func.return %d, %e : !tx.tensor<[2, 3], f32>, !tx.tensor<[4, 2, 3], f32>
}

// -----

// neg(neg(x)) -> x; x.to(dtype(x)) -> x; view(x, shape(x)) -> x, on symbolic sizes too
// CHECK-LABEL: func.func @symbolic_no_ops
// CHECK-NEXT: func.return %x
func.func @symbolic_no_ops(%x: !tx.tensor<[s0, 3], f32>, %n: !tx.symint<s0>) -> !tx.tensor<[s0, 3], f32> {
  %a = core.neg(%x) : !tx.tensor<[s0, 3], f32>
  %b = core.neg(%a) : !tx.tensor<[s0, 3], f32>
  %c = core._to_copy(%b) : !tx.tensor<[s0, 3], f32>
  %d = core.view(%c, [%n, 3]) : !tx.tensor<[s0, 3], f32>
  func.return %d : !tx.tensor<[s0, 3], f32>
}

// -----

// dead pure ops go (xDSL's dce inside canonicalize); random ones stay
// CHECK-LABEL: func.func @dead
// CHECK-NEXT: core.rand
// CHECK-NEXT: func.return %x
func.func @dead(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %dead = core.relu(%x) : !tx.tensor<[3], f32>
  %random = core.rand([3]) : !tx.tensor<[3], f32>
  func.return %x : !tx.tensor<[3], f32>
}

// -----

// a training program is left alone (a clone there may be written later)
// CHECK-LABEL: func.func @training_untouched
// CHECK-NEXT: %a = training.clone(%x)
// CHECK-NEXT: training.add_.Tensor(%a, 1)
// CHECK-NEXT: %c = training.mul.Tensor(%a, 1)
// CHECK-NEXT: func.return %a, %c
func.func @training_untouched(%x: !tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>, !tx.tensor<[3], f32>) {
  %a = training.clone(%x) : !tx.tensor<[3], f32>
  %b = training.add_.Tensor(%a, 1) : !tx.tensor<[3], f32>
  %c = training.mul.Tensor(%a, 1) : !tx.tensor<[3], f32>
  func.return %a, %c : !tx.tensor<[3], f32>, !tx.tensor<[3], f32>
}
