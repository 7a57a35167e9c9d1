// RUN: not texport-opt %s -t torch 2>&1 | filecheck %s

// An op torch-mlir has no op for is named, with its schema and place.

func.func @forward(%a: !tx.tensor<[3, 2], f32> {tx.input = "USER_INPUT", tx.path = "a"}, %b: !tx.tensor<[4, 2], f32> {tx.input = "USER_INPUT", tx.path = "b"}) -> (!tx.tensor<[3, 4], f32> {tx.output = "USER_OUTPUT"}) {
  %d = core._cdist_forward(%a, %b, 2.0, none) : !tx.tensor<[3, 4], f32>
  func.return %d : !tx.tensor<[3, 4], f32>
}

// CHECK: error: 'core._cdist_forward' (%d): torch-mlir has no op torch.aten._cdist_forward for the schema 'aten::_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor'
