// RUN: texport-opt %s -p functionalize --split-input-file | filecheck %s
// RUN: texport-opt %s -p functionalize --split-input-file | texport-opt --split-input-file -p legalize-functional | filecheck %s --check-prefix=LEGAL

// A buffer written in place becomes a BUFFER_MUTATION result, first; an
// in-place op on an intermediate value is replayed functionally.
// CHECK-LABEL: func.func @buffer_and_intermediate
// CHECK-SAME: -> (!tx.tensor<[3], f32> {tx.output = "BUFFER_MUTATION", tx.target = "count"}, !tx.tensor<[3], f32> {tx.output = "USER_OUTPUT"})
// CHECK-NEXT: %[[ADD:.+]] = functional.add.Tensor(%b_count, %x)
// CHECK-NEXT: %[[MUL:.+]] = functional.mul.Tensor(%x, 2)
// CHECK-NEXT: %[[RELU:.+]] = functional.relu(%[[MUL]])
// CHECK-NEXT: func.return %[[ADD]], %[[RELU]]
// LEGAL-LABEL: func.func @buffer_and_intermediate
// LEGAL-NOT: training.
func.func @buffer_and_intermediate(%b_count: !tx.tensor<[3], f32> {tx.input = "BUFFER", tx.target = "count", tx.persistent = true}, %x: !tx.tensor<[3], f32> {tx.input = "USER_INPUT", tx.path = "x"}) -> (!tx.tensor<[3], f32> {tx.output = "USER_OUTPUT"}) {
  %add_ = training.add_.Tensor(%b_count, %x) : !tx.tensor<[3], f32>
  %mul = training.mul.Tensor(%x, 2) : !tx.tensor<[3], f32>
  %relu_ = training.relu_(%mul) : !tx.tensor<[3], f32>
  func.return %mul : !tx.tensor<[3], f32>
}

// -----

// A write through slice + select is replayed on the base with select_scatter
// then slice_scatter, the slice taken afresh from the buffer (torch's
// apply_update); a later view of the buffer reads the new value.
// CHECK-LABEL: func.func @write_through_views
// CHECK: %[[SLICE:.+]] = functional.slice.Tensor(%b_buf, 0, 1, 3)
// CHECK-NEXT: %[[SEL:.+]] = functional.select.int(%[[SLICE]], 1, 0)
// CHECK-NEXT: %[[COPY:.+]] = functional.copy(%[[SEL]], %x)
// CHECK-NEXT: %[[AGAIN:.+]] = functional.slice.Tensor(%b_buf, 0, 1, 3)
// CHECK-NEXT: %[[SS:.+]] = functional.select_scatter(%[[AGAIN]], %[[COPY]], 1, 0)
// CHECK-NEXT: %[[NEW:.+]] = functional.slice_scatter(%b_buf, %[[SS]], 0, 1, 3)
// CHECK-NEXT: %[[T:.+]] = functional.t(%[[NEW]])
// CHECK-NEXT: %[[OUT:.+]] = functional.mul.Tensor(%[[T]], 1)
// CHECK-NEXT: func.return %[[NEW]], %[[OUT]]
func.func @write_through_views(%b_buf: !tx.tensor<[4, 3], f32> {tx.input = "BUFFER", tx.target = "buf", tx.persistent = true}, %x: !tx.tensor<[2], f32> {tx.input = "USER_INPUT", tx.path = "x"}) -> (!tx.tensor<[3, 4], f32> {tx.output = "USER_OUTPUT"}) {
  %slice_1 = training.slice.Tensor(%b_buf, 0, 1, 3) : !tx.tensor<[2, 3], f32>
  %select_int = training.select.int(%slice_1, 1, 0) : !tx.tensor<[2], f32>
  %copy_ = training.copy_(%select_int, %x) : !tx.tensor<[2], f32>
  %t = training.t(%b_buf) : !tx.tensor<[3, 4], f32>
  %mul = training.mul.Tensor(%t, 1) : !tx.tensor<[3, 4], f32>
  func.return %mul : !tx.tensor<[3, 4], f32>
}

// -----

// A user input written in place becomes a USER_INPUT_MUTATION result; reads
// after the write see the new value.
// CHECK-LABEL: func.func @user_input
// CHECK-SAME: {tx.output = "USER_INPUT_MUTATION", tx.target = "x"}
// CHECK-NEXT: %[[MUL:.+]] = functional.mul.Tensor(%x, 2)
// CHECK-NEXT: %[[ADD:.+]] = functional.add.Tensor(%[[MUL]], %y)
// CHECK-NEXT: func.return %[[MUL]], %[[ADD]]
func.func @user_input(%x: !tx.tensor<[3], f32> {tx.input = "USER_INPUT", tx.path = "x"}, %y: !tx.tensor<[3], f32> {tx.input = "USER_INPUT", tx.path = "y"}) -> (!tx.tensor<[3], f32> {tx.output = "USER_OUTPUT"}) {
  %mul_ = training.mul_.Tensor(%x, 2) : !tx.tensor<[3], f32>
  %add = training.add.Tensor(%x, %y) : !tx.tensor<[3], f32>
  func.return %add : !tx.tensor<[3], f32>
}

// -----

// batch_norm in training mode updates its running statistics: the functional
// form returns them ([3], [4]) as BUFFER_MUTATION results, in argument order.
// CHECK-LABEL: func.func @batch_norm_train
// CHECK-SAME: tx.target = "bn.running_mean"
// CHECK-SAME: tx.target = "bn.running_var"
// CHECK-NEXT: %[[BN:.+]], %{{.+}}, %{{.+}}, %[[MEAN:.+]], %[[VAR:.+]] = functional._native_batch_norm_legit_functional(%x, %w, %b, %rm, %rv, true, 0.1, 1.0e-05)
// CHECK-NEXT: func.return %[[MEAN]], %[[VAR]], %[[BN]]
func.func @batch_norm_train(%w: !tx.tensor<[3], f32> {tx.input = "PARAMETER", tx.target = "bn.weight"}, %b: !tx.tensor<[3], f32> {tx.input = "PARAMETER", tx.target = "bn.bias"}, %rm: !tx.tensor<[3], f32> {tx.input = "BUFFER", tx.target = "bn.running_mean"}, %rv: !tx.tensor<[3], f32> {tx.input = "BUFFER", tx.target = "bn.running_var"}, %x: !tx.tensor<[2, 3, 4, 4], f32> {tx.input = "USER_INPUT"}) -> (!tx.tensor<[2, 3, 4, 4], f32> {tx.output = "USER_OUTPUT"}) {
  %bn = training.batch_norm(%x, %w, %b, %rm, %rv, true, 0.1, 1.0e-05, false) : !tx.tensor<[2, 3, 4, 4], f32>
  func.return %bn : !tx.tensor<[2, 3, 4, 4], f32>
}

// -----

// In eval mode nothing is written: _native_batch_norm_legit_no_training, [0].
// CHECK-LABEL: func.func @batch_norm_eval
// CHECK-SAME: -> (!tx.tensor<[2, 3], f32> {tx.output = "USER_OUTPUT"})
// CHECK-NEXT: %[[BN:.+]], %{{.+}}, %{{.+}} = functional._native_batch_norm_legit_no_training(%x, none, none, %rm, %rv, 0.1, 1.0e-05)
// CHECK-NEXT: func.return %[[BN]]
func.func @batch_norm_eval(%rm: !tx.tensor<[3], f32> {tx.input = "BUFFER", tx.target = "running_mean"}, %rv: !tx.tensor<[3], f32> {tx.input = "BUFFER", tx.target = "running_var"}, %x: !tx.tensor<[2, 3], f32> {tx.input = "USER_INPUT"}) -> (!tx.tensor<[2, 3], f32> {tx.output = "USER_OUTPUT"}) {
  %bn = training.batch_norm(%x, none, none, %rm, %rv, false, 0.1, 1.0e-05, false) : !tx.tensor<[2, 3], f32>
  func.return %bn : !tx.tensor<[2, 3], f32>
}
