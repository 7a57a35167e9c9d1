// RUN: texport-opt %s -p decompose --split-input-file | filecheck %s
// RUN: texport-opt %s -p decompose{table=core} --split-input-file --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: texport-opt %s -p decompose --split-input-file | texport-opt --split-input-file -p legalize-core | filecheck %s --check-prefix=CORE

// conv2d(x, w, b) = convolution(x, w, b, stride, padding, dilation, false, [0, 0], groups)
// CHECK-LABEL: func.func @conv2d
// CHECK-NEXT: %[[C:.+]] = core.convolution(%x, %w, %b, [1, 1], [0, 0], [1, 1], false, [0, 0], 1)
// CHECK-NEXT: func.return %[[C]]
// CORE-LABEL: func.func @conv2d
// CORE-NOT: functional.
// LOC-LABEL: func.func @conv2d
// LOC: core.convolution{{.*}}loc("model.py":7:0)
func.func @conv2d(%x: !tx.tensor<[1, 1, 3, 3], f32>, %w: !tx.tensor<[3, 1, 1, 1], f32>, %b: !tx.tensor<[3], f32>) -> !tx.tensor<[1, 3, 3, 3], f32> {
  %c = functional.conv2d(%x, %w, %b) : !tx.tensor<[1, 3, 3, 3], f32> loc("model.py":7:0)
  func.return %c : !tx.tensor<[1, 3, 3, 3], f32>
}

// -----

// linear(x, w, b) on a 2-D x = addmm(b, x, permute(w, [1, 0]))
// CHECK-LABEL: func.func @linear_2d
// CHECK-NEXT: %[[T:.+]] = core.permute(%w, [1, 0])
// CHECK-NEXT: %[[R:.+]] = core.addmm(%b, %x, %[[T]])
// CHECK-NEXT: func.return %[[R]]
func.func @linear_2d(%x: !tx.tensor<[s0, 5], f32>, %w: !tx.tensor<[3, 5], f32>, %b: !tx.tensor<[3], f32>) -> !tx.tensor<[s0, 3], f32> {
  %l = functional.linear(%x, %w, %b) : !tx.tensor<[s0, 3], f32>
  func.return %l : !tx.tensor<[s0, 3], f32>
}

// -----

// a 3-D x is viewed to 2-D and back; its symbolic size is read with sym_size.int
// CHECK-LABEL: func.func @linear_3d_symbolic
// CHECK: %[[S:.+]] = core.sym_size.int(%x, 0) : !tx.symint<s0>
// CHECK: %[[N:.+]] = tx.mul
// CHECK-NEXT: %[[V:.+]] = core.view(%x, [%[[N]], 5]) : !tx.tensor<[8*s0, 5], f32>
// CHECK-NEXT: %[[T:.+]] = core.permute(%w, [1, 0])
// CHECK-NEXT: %[[A:.+]] = core.addmm(%b, %[[V]], %[[T]]) : !tx.tensor<[8*s0, 3], f32>
// CHECK-NEXT: %[[R:.+]] = core.view(%[[A]], [%[[S]], 8, 3]) : !tx.tensor<[s0, 8, 3], f32>
// CHECK-NEXT: func.return %[[R]]
func.func @linear_3d_symbolic(%x: !tx.tensor<[s0, 8, 5], f32>, %w: !tx.tensor<[3, 5], f32>, %b: !tx.tensor<[3], f32>) -> !tx.tensor<[s0, 8, 3], f32> {
  %l = functional.linear(%x, %w, %b) : !tx.tensor<[s0, 8, 3], f32>
  func.return %l : !tx.tensor<[s0, 8, 3], f32>
}

// -----

// batched matmul: expand, view to 3-D, bmm, view back; transposing the last two dims keeps
// the batch dims mergeable, so the folding reshape is a view (torch's graph has no clone)
// CHECK-LABEL: func.func @matmul_batched
// CHECK-NEXT: %[[P:.+]] = core.permute(%y, [0, 1, 3, 2])
// CHECK-NEXT: %[[E0:.+]] = core.expand(%x, [2, 4, 3, 5])
// CHECK-NEXT: %[[V0:.+]] = core.view(%[[E0]], [8, 3, 5])
// CHECK-NEXT: %[[E1:.+]] = core.expand(%[[P]], [2, 4, 5, 6])
// CHECK-NEXT: %[[V1:.+]] = core.view(%[[E1]], [8, 5, 6])
// CHECK-NEXT: %[[B:.+]] = core.bmm(%[[V0]], %[[V1]])
// CHECK-NEXT: %[[R:.+]] = core.view(%[[B]], [2, 4, 3, 6])
func.func @matmul_batched(%x: !tx.tensor<[2, 4, 3, 5], f32>, %y: !tx.tensor<[2, 4, 6, 5], f32>) -> !tx.tensor<[2, 4, 3, 6], f32> {
  %t = functional.transpose.int(%y, -2, -1) : !tx.tensor<[2, 4, 5, 6], f32>
  %m = functional.matmul(%x, %t) : !tx.tensor<[2, 4, 3, 6], f32>
  func.return %m : !tx.tensor<[2, 4, 3, 6], f32>
}

// -----

// batched matmul of an operand whose batch dims are swapped: they cannot merge into one
// stride, so the folding reshape copies (a contiguous clone, then the view)
// CHECK-LABEL: func.func @matmul_batched_permuted
// CHECK-NEXT: %[[P:.+]] = core.permute(%y, [1, 0, 2, 3])
// CHECK-NEXT: %[[E0:.+]] = core.expand(%x, [2, 4, 3, 5])
// CHECK-NEXT: %[[V0:.+]] = core.view(%[[E0]], [8, 3, 5])
// CHECK-NEXT: %[[E1:.+]] = core.expand(%[[P]], [2, 4, 5, 6])
// CHECK-NEXT: %[[C1:.+]] = core.clone(%[[E1]], memory_format = "contiguous_format")
// CHECK-NEXT: %[[V1:.+]] = core.view(%[[C1]], [8, 5, 6])
// CHECK-NEXT: %[[B:.+]] = core.bmm(%[[V0]], %[[V1]])
// CHECK-NEXT: %[[R:.+]] = core.view(%[[B]], [2, 4, 3, 6])
func.func @matmul_batched_permuted(%x: !tx.tensor<[2, 4, 3, 5], f32>, %y: !tx.tensor<[4, 2, 5, 6], f32>) -> !tx.tensor<[2, 4, 3, 6], f32> {
  %t = functional.permute(%y, [1, 0, 2, 3]) : !tx.tensor<[2, 4, 5, 6], f32>
  %m = functional.matmul(%x, %t) : !tx.tensor<[2, 4, 3, 6], f32>
  func.return %m : !tx.tensor<[2, 4, 3, 6], f32>
}

// -----

// reshape is a view when the strides can express the new shape: of a row-major tensor, of
// a slice along the first dim, of a transpose splitting a dim; else a contiguous clone, viewed
// CHECK-LABEL: func.func @reshape_view_or_copy
// CHECK-NEXT: %[[V0:.+]] = core.view(%x, [6, 4])
// CHECK-NEXT: %[[S:.+]] = core.slice.Tensor(%x, 0, 0, 1)
// CHECK-NEXT: %[[V1:.+]] = core.view(%[[S]], [12])
// CHECK-NEXT: %[[P:.+]] = core.permute(%x, [0, 2, 1])
// CHECK-NEXT: %[[V2:.+]] = core.view(%[[P]], [2, 2, 2, 3])
// CHECK-NEXT: %[[C:.+]] = core.clone(%[[P]], memory_format = "contiguous_format")
// CHECK-NEXT: %[[V3:.+]] = core.view(%[[C]], [2, 12])
// CHECK-NEXT: func.return %[[V0]], %[[V1]], %[[V2]], %[[V3]]
func.func @reshape_view_or_copy(%x: !tx.tensor<[2, 3, 4], f32>) -> (!tx.tensor<[6, 4], f32>, !tx.tensor<[12], f32>, !tx.tensor<[2, 2, 2, 3], f32>, !tx.tensor<[2, 12], f32>) {
  %a = functional.reshape(%x, [6, 4]) : !tx.tensor<[6, 4], f32>
  %s = functional.slice.Tensor(%x, 0, 0, 1) : !tx.tensor<[1, 3, 4], f32>
  %b = functional.reshape(%s, [-1]) : !tx.tensor<[12], f32>
  %t = functional.transpose.int(%x, 1, 2) : !tx.tensor<[2, 4, 3], f32>
  %c = functional.reshape(%t, [2, 2, 2, 3]) : !tx.tensor<[2, 2, 2, 3], f32>
  %d = functional.reshape(%t, [2, 12]) : !tx.tensor<[2, 12], f32>
  func.return %a, %b, %c, %d : !tx.tensor<[6, 4], f32>, !tx.tensor<[12], f32>, !tx.tensor<[2, 2, 2, 3], f32>, !tx.tensor<[2, 12], f32>
}

// -----

// softmax, masked_fill, split: _softmax; scalar_tensor + where.self; split_with_sizes
// CHECK-LABEL: func.func @attention_bits
// CHECK-NEXT: %[[S:.+]] = core.scalar_tensor(-inf, dtype = f32)
// CHECK-NEXT: %[[W:.+]] = core.where.self(%m, %[[S]], %x)
// CHECK-NEXT: %[[SM:.+]] = core._softmax(%[[W]], -1, false)
// CHECK-NEXT: %[[A:.+]], %[[B:.+]] = core.split_with_sizes(%[[SM]], [2, 2], 1)
func.func @attention_bits(%x: !tx.tensor<[3, 4], f32>, %m: !tx.tensor<[3, 4], i1>) -> !tx.tensor<[3, 2], f32> {
  %f = functional.masked_fill.Scalar(%x, %m, -inf) : !tx.tensor<[3, 4], f32>
  %s = functional.softmax.int(%f, -1) : !tx.tensor<[3, 4], f32>
  %a, %b = functional.split.Tensor(%s, 2, 1) : (!tx.tensor<[3, 2], f32>, !tx.tensor<[3, 2], f32>)
  func.return %a : !tx.tensor<[3, 2], f32>
}

// -----

// decompositions apply recursively: silu -> x * sigmoid(x); inside control-flow bodies too
// CHECK-LABEL: func.func @nested
// CHECK: control.cond
// CHECK: core.sigmoid
// CHECK-NEXT: core.mul.Tensor
// CHECK: control.yield
func.func @nested(%p: !tx.tensor<[], i1>, %x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %r = control.cond %p(%x) : !tx.tensor<[], i1>, (!tx.tensor<[3], f32>) -> (!tx.tensor<[3], f32>) {
  ^bb0(%a: !tx.tensor<[3], f32>):
    %s = functional.silu(%a) : !tx.tensor<[3], f32>
    control.yield %s : !tx.tensor<[3], f32>
  }, {
  ^bb0(%a: !tx.tensor<[3], f32>):
    control.yield %a : !tx.tensor<[3], f32>
  }
  func.return %r : !tx.tensor<[3], f32>
}
