// RUN: texport-opt --split-input-file -p lower-core-to-linalg-control %s | filecheck %s
// RUN: texport-opt --split-input-file -p lower-core-to-linalg %s | filecheck %s --check-prefix=FULL
// The bodies lowered before their control op: the same result.
// RUN: texport-opt --split-input-file -p lower-core-to-linalg-pointwise,lower-core-to-linalg-control,lower-core-to-linalg %s | filecheck %s --check-prefix=FULL

// The control ops become scf, their regions moved in: the ops inside stay for
// their own families (linked by casts: an scf block argument or a slice is cast
// to the texport type at the block's entry, a yielded value to its upstream type
// before the scf terminator), and the casts fold once every family has run.

// cond on a bool tensor: scf.if on its element; the branches read the operand.
builtin.module {
  func.func @cond(%p: !tx.tensor<[], i1>, %x: !tx.tensor<[s0, 4], f32>) -> !tx.tensor<[s0, 4], f32> {
    %r = control.cond %p(%x) : !tx.tensor<[], i1>, (!tx.tensor<[s0, 4], f32>) -> (!tx.tensor<[s0, 4], f32>) {
    ^bb0(%0: !tx.tensor<[s0, 4], f32>):
      %relu = core.relu(%0) : !tx.tensor<[s0, 4], f32>
      %add = core.add.Tensor(%relu, 1) : !tx.tensor<[s0, 4], f32>
      control.yield %add : !tx.tensor<[s0, 4], f32>
    }, {
    ^bb0(%1: !tx.tensor<[s0, 4], f32>):
      %mul = core.mul.Tensor(%1, 2) : !tx.tensor<[s0, 4], f32>
      control.yield %mul : !tx.tensor<[s0, 4], f32>
    }
    func.return %r : !tx.tensor<[s0, 4], f32>
  }
}

// CHECK-LABEL: func.func @cond(
// CHECK:         %[[P:.*]] = builtin.unrealized_conversion_cast %p : !tx.tensor<[], i1> to tensor<i1>
// CHECK-NEXT:    %[[PRED:.*]] = tensor.extract %[[P]][] : tensor<i1>
// CHECK-NEXT:    %[[IF:.*]] = scf.if %[[PRED]] -> (tensor<?x4xf32>) {
// CHECK-NEXT:      %[[RELU:.*]] = core.relu(%x) : !tx.tensor<[s0, 4], f32>
// CHECK-NEXT:      %[[ADD:.*]] = core.add.Tensor(%[[RELU]], 1)
// CHECK-NEXT:      %[[A:.*]] = builtin.unrealized_conversion_cast %[[ADD]] : !tx.tensor<[s0, 4], f32> to tensor<?x4xf32>
// CHECK-NEXT:      scf.yield %[[A]] : tensor<?x4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[MUL:.*]] = core.mul.Tensor(%x, 2)
// CHECK-NEXT:      %[[M:.*]] = builtin.unrealized_conversion_cast %[[MUL]]
// CHECK-NEXT:      scf.yield %[[M]] : tensor<?x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = builtin.unrealized_conversion_cast %[[IF]] : tensor<?x4xf32> to !tx.tensor<[s0, 4], f32>
// CHECK-NOT:     control.

// FULL-LABEL: func.func @cond(%p: tensor<i1>, %x: tensor<?x4xf32>) -> tensor<?x4xf32>
// FULL:         tensor.extract %p[] : tensor<i1>
// FULL:         scf.if
// FULL:           linalg.generic
// FULL:           scf.yield
// FULL:         } else {
// FULL:           linalg.generic
// FULL:           scf.yield
// FULL-NOT:     unrealized_conversion_cast
// FULL-NOT:     tx.
// FULL:         func.return
// -----

// cond on a symbolic bool: the comparison of its sizes.
builtin.module {
  func.func @cond_on_a_size(%x: !tx.tensor<[s0, 4], f32>) -> !tx.tensor<[s0, 4], f32> {
    %size = core.sym_size.int(%x, 0) : !tx.symint<s0>
    %c4 = tx.constant 4 : !tx.symint<4>
    %gt = tx.cmp gt, %size, %c4 : !tx.symbool
    %r = control.cond %gt(%x) : !tx.symbool, (!tx.tensor<[s0, 4], f32>) -> (!tx.tensor<[s0, 4], f32>) {
    ^bb0(%0: !tx.tensor<[s0, 4], f32>):
      %relu = core.relu(%0) : !tx.tensor<[s0, 4], f32>
      control.yield %relu : !tx.tensor<[s0, 4], f32>
    }, {
    ^bb0(%1: !tx.tensor<[s0, 4], f32>):
      control.yield %1 : !tx.tensor<[s0, 4], f32>
    }
    func.return %r : !tx.tensor<[s0, 4], f32>
  }
}

// CHECK-LABEL: func.func @cond_on_a_size(
// CHECK:         %gt = tx.cmp gt, %size, %c4 : !tx.symbool
// CHECK-NEXT:    %[[GT:.*]] = builtin.unrealized_conversion_cast %gt : !tx.symbool to i1
// CHECK-NEXT:    scf.if %[[GT]] -> (tensor<?x4xf32>) {
// CHECK:         } else {
// CHECK-NEXT:      %[[X:.*]] = builtin.unrealized_conversion_cast %x : !tx.tensor<[s0, 4], f32> to tensor<?x4xf32>
// CHECK-NEXT:      scf.yield %[[X]] : tensor<?x4xf32>

// FULL-LABEL: func.func @cond_on_a_size(%x: tensor<?x4xf32>)
// FULL:         %[[DIM:.*]] = tensor.dim %x
// FULL:         %[[GT:.*]] = arith.cmpi sgt, %[[DIM]], %{{.*}} : index
// FULL-NEXT:    scf.if %[[GT]]
// FULL:         } else {
// FULL-NEXT:      scf.yield %x : tensor<?x4xf32>
// FULL-NOT:     tx.
// FULL:         func.return
// -----

// Branches of different shapes: the result's dim is unbacked (?), each branch's
// value reaches it through tensor.cast.
builtin.module {
  func.func @cond_of_two_shapes(%p: !tx.tensor<[], i1>, %x: !tx.tensor<[1, 4], f32>, %y: !tx.tensor<[3, 4], f32>) -> !tx.tensor<[u0, 4], f32> {
    %r = control.cond %p(%x, %y) : !tx.tensor<[], i1>, (!tx.tensor<[1, 4], f32>, !tx.tensor<[3, 4], f32>) -> (!tx.tensor<[u0, 4], f32>) {
    ^bb0(%0: !tx.tensor<[1, 4], f32>, %1: !tx.tensor<[3, 4], f32>):
      control.yield %0 : !tx.tensor<[1, 4], f32>
    }, {
    ^bb0(%2: !tx.tensor<[1, 4], f32>, %3: !tx.tensor<[3, 4], f32>):
      control.yield %3 : !tx.tensor<[3, 4], f32>
    }
    func.return %r : !tx.tensor<[u0, 4], f32>
  }
}

// CHECK-LABEL: func.func @cond_of_two_shapes(
// CHECK:         scf.if %{{.*}} -> (tensor<?x4xf32>) {
// CHECK-NEXT:      %[[X:.*]] = builtin.unrealized_conversion_cast %x : !tx.tensor<[1, 4], f32> to tensor<1x4xf32>
// CHECK-NEXT:      %[[XC:.*]] = tensor.cast %[[X]] : tensor<1x4xf32> to tensor<?x4xf32>
// CHECK-NEXT:      scf.yield %[[XC]] : tensor<?x4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Y:.*]] = builtin.unrealized_conversion_cast %y
// CHECK-NEXT:      %[[YC:.*]] = tensor.cast %[[Y]] : tensor<3x4xf32> to tensor<?x4xf32>
// CHECK-NEXT:      scf.yield %[[YC]] : tensor<?x4xf32>

// FULL-LABEL: func.func @cond_of_two_shapes(%p: tensor<i1>, %x: tensor<1x4xf32>, %y: tensor<3x4xf32>) -> tensor<?x4xf32>
// FULL:           tensor.cast %x : tensor<1x4xf32> to tensor<?x4xf32>
// FULL:           tensor.cast %y : tensor<3x4xf32> to tensor<?x4xf32>
// FULL-NOT:     tx.
// FULL:         func.return

// -----

// A reverse scan over a dynamic length, with an additional input: scf.for over
// the length, index n-1-i, carries and the stacked output as iter_args.
builtin.module {
  func.func @reverse_scan(%c: !tx.tensor<[4], f32>, %xs: !tx.tensor<[s0, 4], f32>, %w: !tx.tensor<[4], f32>) -> (!tx.tensor<[4], f32>, !tx.tensor<[s0, 4], f32>) {
    %h, %hs = control.scan(%c) (%xs) (%w) {reverse = true} : (!tx.tensor<[4], f32>) (!tx.tensor<[s0, 4], f32>) (!tx.tensor<[4], f32>) -> (!tx.tensor<[4], f32>, !tx.tensor<[s0, 4], f32>) {
    ^bb0(%0: !tx.tensor<[4], f32>, %1: !tx.tensor<[4], f32>, %2: !tx.tensor<[4], f32>):
      %mul = core.mul.Tensor(%0, %2) : !tx.tensor<[4], f32>
      %add = core.add.Tensor(%mul, %1) : !tx.tensor<[4], f32>
      %relu = core.relu(%add) : !tx.tensor<[4], f32>
      control.yield %add, %relu : !tx.tensor<[4], f32>, !tx.tensor<[4], f32>
    }
    func.return %h, %hs : !tx.tensor<[4], f32>, !tx.tensor<[s0, 4], f32>
  }
}

// CHECK-LABEL: func.func @reverse_scan(
// CHECK:         %[[XS0:.*]] = builtin.unrealized_conversion_cast %xs
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = tensor.dim %[[XS0]], %[[C0]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C:.*]] = builtin.unrealized_conversion_cast %c : !tx.tensor<[4], f32> to tensor<4xf32>
// CHECK-NEXT:    %[[STACK:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK-NEXT:    %[[LAST:.*]] = arith.subi %[[N]], %[[C1]] : index
// CHECK-NEXT:    %[[XS:.*]] = builtin.unrealized_conversion_cast %xs : !tx.tensor<[s0, 4], f32> to tensor<?x4xf32>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[CARRY:.*]] = %[[C]], %[[OUT:.*]] = %[[STACK]]) -> (tensor<4xf32>, tensor<?x4xf32>) {
// CHECK-NEXT:      %[[AT:.*]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK-NEXT:      %[[CARRY_TX:.*]] = builtin.unrealized_conversion_cast %[[CARRY]] : tensor<4xf32> to !tx.tensor<[4], f32>
// CHECK-NEXT:      %[[SLICE:.*]] = tensor.extract_slice %[[XS]][%[[AT]], 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
// CHECK-NEXT:      %[[SLICE_TX:.*]] = builtin.unrealized_conversion_cast %[[SLICE]] : tensor<4xf32> to !tx.tensor<[4], f32>
// CHECK-NEXT:      %[[MUL:.*]] = core.mul.Tensor(%[[CARRY_TX]], %w)
// CHECK-NEXT:      %[[ADD:.*]] = core.add.Tensor(%[[MUL]], %[[SLICE_TX]])
// CHECK-NEXT:      %[[RELU:.*]] = core.relu(%[[ADD]])
// CHECK-NEXT:      %[[NEXT:.*]] = builtin.unrealized_conversion_cast %[[ADD]]
// CHECK-NEXT:      %[[STEP:.*]] = builtin.unrealized_conversion_cast %[[RELU]]
// CHECK-NEXT:      %[[INSERTED:.*]] = tensor.insert_slice %[[STEP]] into %[[OUT]][%[[AT]], 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<?x4xf32>
// CHECK-NEXT:      scf.yield %[[NEXT]], %[[INSERTED]] : tensor<4xf32>, tensor<?x4xf32>
// CHECK-NEXT:    }

// FULL-LABEL: func.func @reverse_scan(%c: tensor<4xf32>, %xs: tensor<?x4xf32>, %w: tensor<4xf32>)
// FULL:         scf.for {{.*}} iter_args({{.*}} = %c,
// FULL:           tensor.extract_slice %xs
// FULL:           tensor.insert_slice
// FULL-NOT:     tx.
// FULL:         func.return
// -----

// map: the same loop, no carries.
builtin.module {
  func.func @map(%xs: !tx.tensor<[5, 2, 4], f32>, %y: !tx.tensor<[4], f32>) -> !tx.tensor<[5, 2, 4], f32> {
    %r = control.map(%xs) (%y) : (!tx.tensor<[5, 2, 4], f32>) (!tx.tensor<[4], f32>) -> (!tx.tensor<[5, 2, 4], f32>) {
    ^bb0(%0: !tx.tensor<[2, 4], f32>, %1: !tx.tensor<[4], f32>):
      %mul = core.mul.Tensor(%0, %1) : !tx.tensor<[2, 4], f32>
      control.yield %mul : !tx.tensor<[2, 4], f32>
    }
    func.return %r : !tx.tensor<[5, 2, 4], f32>
  }
}

// CHECK-LABEL: func.func @map(
// CHECK:         %[[N:.*]] = arith.constant 5 : index
// CHECK:         %[[STACK:.*]] = tensor.empty() : tensor<5x2x4xf32>
// CHECK:         %[[XS:.*]] = builtin.unrealized_conversion_cast %xs
// CHECK-NEXT:    scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[OUT:.*]] = %[[STACK]]) -> (tensor<5x2x4xf32>) {
// CHECK-NEXT:      %[[SLICE:.*]] = tensor.extract_slice %[[XS]][%[[I]], 0, 0] [1, 2, 4] [1, 1, 1] : tensor<5x2x4xf32> to tensor<2x4xf32>
// CHECK-NEXT:      %[[SLICE_TX:.*]] = builtin.unrealized_conversion_cast %[[SLICE]]
// CHECK-NEXT:      %[[MUL:.*]] = core.mul.Tensor(%[[SLICE_TX]], %y)
// CHECK-NEXT:      %[[STEP:.*]] = builtin.unrealized_conversion_cast %[[MUL]]
// CHECK-NEXT:      %[[INSERTED:.*]] = tensor.insert_slice %[[STEP]] into %[[OUT]][%[[I]], 0, 0] [1, 2, 4] [1, 1, 1] : tensor<2x4xf32> into tensor<5x2x4xf32>
// CHECK-NEXT:      scf.yield %[[INSERTED]] : tensor<5x2x4xf32>
// -----

// while_loop: scf.while, the cond region's bool tensor extracted into scf.condition.
builtin.module {
  func.func @while_loop(%a: !tx.tensor<[], i1>, %x: !tx.tensor<[3], f32>, %f: !tx.tensor<[], i1>) -> (!tx.tensor<[], i1>, !tx.tensor<[3], f32>) {
    %ra, %rx = control.while_loop(%a, %x) (%f) : (!tx.tensor<[], i1>, !tx.tensor<[3], f32>) (!tx.tensor<[], i1>) -> (!tx.tensor<[], i1>, !tx.tensor<[3], f32>) {
    ^bb0(%0: !tx.tensor<[], i1>, %1: !tx.tensor<[3], f32>, %2: !tx.tensor<[], i1>):
      control.yield %0 : !tx.tensor<[], i1>
    }, {
    ^bb0(%3: !tx.tensor<[], i1>, %4: !tx.tensor<[3], f32>, %5: !tx.tensor<[], i1>):
      %and = core.mul.Tensor(%3, %5) : !tx.tensor<[], i1>
      %twice = core.mul.Tensor(%4, 2) : !tx.tensor<[3], f32>
      control.yield %and, %twice : !tx.tensor<[], i1>, !tx.tensor<[3], f32>
    }
    func.return %ra, %rx : !tx.tensor<[], i1>, !tx.tensor<[3], f32>
  }
}

// CHECK-LABEL: func.func @while_loop(
// CHECK:         %[[A:.*]] = builtin.unrealized_conversion_cast %a
// CHECK-NEXT:    %[[X:.*]] = builtin.unrealized_conversion_cast %x
// CHECK-NEXT:    scf.while (%[[BA:.*]] = %[[A]], %[[BX:.*]] = %[[X]]) : (tensor<i1>, tensor<3xf32>) -> (tensor<i1>, tensor<3xf32>) {
// CHECK-NEXT:      %[[GO:.*]] = tensor.extract %[[BA]][] : tensor<i1>
// CHECK-NEXT:      scf.condition(%[[GO]]) %[[BA]], %[[BX]] : tensor<i1>, tensor<3xf32>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.*}}(%[[DA:.*]]: tensor<i1>, %[[DX:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[DA_TX:.*]] = builtin.unrealized_conversion_cast %[[DA]] : tensor<i1> to !tx.tensor<[], i1>
// CHECK-NEXT:      %[[DX_TX:.*]] = builtin.unrealized_conversion_cast %[[DX]]
// CHECK-NEXT:      %and = core.mul.Tensor(%[[DA_TX]], %f)
// CHECK-NEXT:      %twice = core.mul.Tensor(%[[DX_TX]], 2)
// CHECK:           scf.yield

// FULL-LABEL: func.func @while_loop(%a: tensor<i1>, %x: tensor<3xf32>, %f: tensor<i1>)
// FULL:         scf.while (%{{.*}} = %a, %{{.*}} = %x)
// FULL:           scf.condition
// FULL:         } do {
// FULL:           linalg.generic {{.*}} ins(%{{.*}}, %f : tensor<i1>, tensor<i1>)
// FULL-NOT:     tx.
// FULL:         func.return
// -----

// The zoo's EarlyExit (torch.cond on a mean): the branches' ops stay for their families.
builtin.module {
  func.func @early_exit(%p_first_0_weight: !tx.tensor<[64, 64], f32>, %p_first_0_bias: !tx.tensor<[64], f32>, %p_second_0_weight: !tx.tensor<[64, 64], f32>, %p_second_0_bias: !tx.tensor<[64], f32>, %p_second_2_weight: !tx.tensor<[64, 64], f32>, %p_second_2_bias: !tx.tensor<[64], f32>, %x: !tx.tensor<[8, 64], f32>) -> (!tx.tensor<[8, 64], f32>) {
    %permute = core.permute(%p_first_0_weight, [1, 0]) : !tx.tensor<[64, 64], f32>
    %addmm = core.addmm(%p_first_0_bias, %x, %permute) : !tx.tensor<[8, 64], f32>
    %relu = core.relu(%addmm) : !tx.tensor<[8, 64], f32>
    %mean = core.mean(%relu) : !tx.tensor<[], f32>
    %gt = core.gt.Scalar(%mean, 0.1) : !tx.tensor<[], i1>
    %getitem = control.cond %gt(%relu, %p_second_0_weight, %p_second_0_bias, %p_second_2_weight, %p_second_2_bias) : !tx.tensor<[], i1>, (!tx.tensor<[8, 64], f32>, !tx.tensor<[64, 64], f32>, !tx.tensor<[64], f32>, !tx.tensor<[64, 64], f32>, !tx.tensor<[64], f32>) -> (!tx.tensor<[8, 64], f32>) {
    ^bb0(%0: !tx.tensor<[8, 64], f32>, %1: !tx.tensor<[64, 64], f32>, %2: !tx.tensor<[64], f32>, %3: !tx.tensor<[64, 64], f32>, %4: !tx.tensor<[64], f32>):
      %mul = core.mul.Tensor(%0, 1.0) : !tx.tensor<[8, 64], f32>
      control.yield %mul : !tx.tensor<[8, 64], f32>
    }, {
    ^bb0(%5: !tx.tensor<[8, 64], f32>, %6: !tx.tensor<[64, 64], f32>, %7: !tx.tensor<[64], f32>, %8: !tx.tensor<[64, 64], f32>, %9: !tx.tensor<[64], f32>):
      %permute_1 = core.permute(%6, [1, 0]) : !tx.tensor<[64, 64], f32>
      %addmm_1 = core.addmm(%7, %5, %permute_1) : !tx.tensor<[8, 64], f32>
      %tanh = core.tanh(%addmm_1) : !tx.tensor<[8, 64], f32>
      %permute_2 = core.permute(%8, [1, 0]) : !tx.tensor<[64, 64], f32>
      %addmm_2 = core.addmm(%9, %tanh, %permute_2) : !tx.tensor<[8, 64], f32>
      control.yield %addmm_2 : !tx.tensor<[8, 64], f32>
    }
    func.return %getitem : !tx.tensor<[8, 64], f32>
  }
}

// CHECK-LABEL: func.func @early_exit(
// CHECK:         %gt = core.gt.Scalar(%mean, 0.1)
// CHECK-NEXT:    %[[GT:.*]] = builtin.unrealized_conversion_cast %gt
// CHECK-NEXT:    %[[PRED:.*]] = tensor.extract %[[GT]][] : tensor<i1>
// CHECK-NEXT:    scf.if %[[PRED]] -> (tensor<8x64xf32>) {
// CHECK-NEXT:      core.mul.Tensor(%relu, 1.0)
// CHECK:           scf.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      core.permute(%p_second_0_weight, [1, 0])
// CHECK-NEXT:      core.addmm(%p_second_0_bias, %relu,
// CHECK:           scf.yield
// CHECK-NEXT:    }
// -----

// The zoo's LSTMScan: the LSTM cell scanned over the steps of xs.permute(1, 0, 2).
builtin.module {
  func.func @lstm_scan(%p_cell_input_map_weight: !tx.tensor<[512, 64], f32>, %p_cell_input_map_bias: !tx.tensor<[512], f32>, %p_cell_hidden_map_weight: !tx.tensor<[512, 128], f32>, %p_head_weight: !tx.tensor<[64, 128], f32>, %p_head_bias: !tx.tensor<[64], f32>, %xs: !tx.tensor<[4, 16, 64], f32>) -> (!tx.tensor<[4, 64], f32>, !tx.tensor<[16, 4, 128], f32>) {
    %full = core.full([4, 128], 0, dtype = f32) : !tx.tensor<[4, 128], f32>
    %full_1 = core.full([4, 128], 0, dtype = f32) : !tx.tensor<[4, 128], f32>
    %permute = core.permute(%xs, [1, 0, 2]) : !tx.tensor<[16, 4, 64], f32>
    %getitem_4, %getitem_5, %getitem_6 = control.scan(%full, %full_1) (%permute) (%p_cell_input_map_weight, %p_cell_input_map_bias, %p_cell_hidden_map_weight) : (!tx.tensor<[4, 128], f32>, !tx.tensor<[4, 128], f32>) (!tx.tensor<[16, 4, 64], f32>) (!tx.tensor<[512, 64], f32>, !tx.tensor<[512], f32>, !tx.tensor<[512, 128], f32>) -> (!tx.tensor<[4, 128], f32>, !tx.tensor<[4, 128], f32>, !tx.tensor<[16, 4, 128], f32>) {
    ^bb0(%0: !tx.tensor<[4, 128], f32>, %1: !tx.tensor<[4, 128], f32>, %2: !tx.tensor<[4, 64], f32>, %3: !tx.tensor<[512, 64], f32>, %4: !tx.tensor<[512], f32>, %5: !tx.tensor<[512, 128], f32>):
      %permute_1 = core.permute(%3, [1, 0]) : !tx.tensor<[64, 512], f32>
      %addmm = core.addmm(%4, %2, %permute_1) : !tx.tensor<[4, 512], f32>
      %permute_2 = core.permute(%5, [1, 0]) : !tx.tensor<[128, 512], f32>
      %mm = core.mm(%0, %permute_2) : !tx.tensor<[4, 512], f32>
      %add = core.add.Tensor(%addmm, %mm) : !tx.tensor<[4, 512], f32>
      %getitem, %getitem_1, %getitem_2, %getitem_3 = core.split_with_sizes(%add, [128, 128, 128, 128], 1) : (!tx.tensor<[4, 128], f32>, !tx.tensor<[4, 128], f32>, !tx.tensor<[4, 128], f32>, !tx.tensor<[4, 128], f32>)
      %sigmoid = core.sigmoid(%getitem_1) : !tx.tensor<[4, 128], f32>
      %mul = core.mul.Tensor(%sigmoid, %1) : !tx.tensor<[4, 128], f32>
      %sigmoid_1 = core.sigmoid(%getitem) : !tx.tensor<[4, 128], f32>
      %tanh = core.tanh(%getitem_2) : !tx.tensor<[4, 128], f32>
      %mul_1 = core.mul.Tensor(%sigmoid_1, %tanh) : !tx.tensor<[4, 128], f32>
      %add_1 = core.add.Tensor(%mul, %mul_1) : !tx.tensor<[4, 128], f32>
      %sigmoid_2 = core.sigmoid(%getitem_3) : !tx.tensor<[4, 128], f32>
      %tanh_1 = core.tanh(%add_1) : !tx.tensor<[4, 128], f32>
      %mul_2 = core.mul.Tensor(%sigmoid_2, %tanh_1) : !tx.tensor<[4, 128], f32>
      control.yield %mul_2, %add_1, %mul_2 : !tx.tensor<[4, 128], f32>, !tx.tensor<[4, 128], f32>, !tx.tensor<[4, 128], f32>
    }
    %permute_3 = core.permute(%p_head_weight, [1, 0]) : !tx.tensor<[128, 64], f32>
    %addmm_1 = core.addmm(%p_head_bias, %getitem_4, %permute_3) : !tx.tensor<[4, 64], f32>
    func.return %addmm_1, %getitem_6 : !tx.tensor<[4, 64], f32>, !tx.tensor<[16, 4, 128], f32>
  }
}

// CHECK-LABEL: func.func @lstm_scan(
// CHECK:         %[[H0:.*]] = builtin.unrealized_conversion_cast %full :
// CHECK-NEXT:    %[[C0:.*]] = builtin.unrealized_conversion_cast %full_1 :
// CHECK-NEXT:    %[[HS:.*]] = tensor.empty() : tensor<16x4x128xf32>
// CHECK-NEXT:    %[[XS:.*]] = builtin.unrealized_conversion_cast %permute : !tx.tensor<[16, 4, 64], f32> to tensor<16x4x64xf32>
// CHECK-NEXT:    scf.for %[[I:.*]] = {{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[C:.*]] = %[[C0]], %[[OUT:.*]] = %[[HS]]) -> (tensor<4x128xf32>, tensor<4x128xf32>, tensor<16x4x128xf32>) {
// CHECK:           tensor.extract_slice %[[XS]][%[[I]], 0, 0] [1, 4, 64] [1, 1, 1] : tensor<16x4x64xf32> to tensor<4x64xf32>
// CHECK:           core.addmm(%p_cell_input_map_bias,
// CHECK:           %[[H_NEXT:.*]] = builtin.unrealized_conversion_cast %mul_2
// CHECK-NEXT:      %[[C_NEXT:.*]] = builtin.unrealized_conversion_cast %add_1
// CHECK-NEXT:      %[[STEP:.*]] = builtin.unrealized_conversion_cast %mul_2
// CHECK-NEXT:      %[[INSERTED:.*]] = tensor.insert_slice %[[STEP]] into %[[OUT]][%[[I]], 0, 0] [1, 4, 128] [1, 1, 1]
// CHECK-NEXT:      scf.yield %[[H_NEXT]], %[[C_NEXT]], %[[INSERTED]]
// CHECK-NEXT:    }
// CHECK-NOT:     control.
