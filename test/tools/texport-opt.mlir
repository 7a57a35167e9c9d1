// RUN: texport-opt %s | filecheck %s --check-prefix=CUSTOM
// RUN: texport-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: cat %s | texport-opt | filecheck %s --check-prefix=CUSTOM
// RUN: texport-opt %s -o %t && filecheck %s --check-prefix=CUSTOM < %t
// RUN: texport-opt %s -p dce | filecheck %s --check-prefix=DCE
// RUN: texport-opt %s --split-input-file | filecheck %s --check-prefix=SPLIT
// RUN: xdsl-opt %s | filecheck %s --check-prefix=CUSTOM
// RUN: texport-opt --version | filecheck %s --check-prefix=VERSION

// CUSTOM-LABEL: func.func @first
// CUSTOM-NEXT: %dead = core.relu(%x) : !tx.tensor<[s0], f32>
// CUSTOM-NEXT: %live = core.neg(%x) : !tx.tensor<[s0], f32>
// GENERIC: %dead = "core.relu"(%x) <{operandSegmentSizes = array<i32: 1>}> : (!tx.tensor<[s0], f32>) -> !tx.tensor<[s0], f32>
// DCE-LABEL: func.func @first
// DCE-NOT: core.relu
// DCE: core.neg
// SPLIT: func.func @first
// SPLIT: {{^//[ ]-----$}}
// SPLIT: func.func @second
// VERSION: texport-opt built on xdsl {{0\.[0-9]+\.[0-9]+}}
func.func @first(%x: !tx.tensor<[s0], f32>) -> !tx.tensor<[s0], f32> {
  %dead = core.relu(%x) : !tx.tensor<[s0], f32>
  %live = core.neg(%x) : !tx.tensor<[s0], f32>
  func.return %live : !tx.tensor<[s0], f32>
}

// -----

func.func @second() {
  func.return
}
