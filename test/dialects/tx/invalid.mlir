// RUN: texport-opt --split-input-file --parsing-diagnostics --verify-diagnostics %s | filecheck %s

func.func @bad_dim(%x: !tx.tensor<[s0, 3 +], f32>) {
  func.return
}
// CHECK: invalid.mlir:3:43
// CHECK-NEXT: func.func @bad_dim(%x: !tx.tensor<[s0, 3 +], f32>) {
// CHECK-NEXT: {{^ {42}\^$}}
// CHECK-NEXT: invalid dim '3 +' in !tx.tensor: expected a dim, found end of text

// -----

func.func @bad_element(%x: !tx.tensor<[2], f33>) {
  func.return
}
// CHECK: unknown element type 'f33' (expected one of ui8, i8, i16, i32, i64, f16, f32, f64, complex<f32>, complex<f64>, i1, bf16)

// -----

func.func @bad_body(%x: !tx.tensor<s0, f32>) {
  func.return
}
// CHECK: expected '[dims], element-type' in !tx.tensor<...>

// -----

func.func @bad_char(%x: !tx.tensor<[s0 $ 2], f32>) {
  func.return
}
// CHECK: invalid dim 's0 $ 2' in !tx.tensor: unexpected character '$' in dim

// -----

func.func @bad_predicate(%n: !tx.symint<s0>) {
  %b = tx.cmp gte, %n, %n : !tx.symbool
  func.return
}
// CHECK: expected one of eq, ne, lt, le, gt, ge, found 'gte'

// -----

func.func @undefined_operand(%n: !tx.symint<s0>) {
  %b = tx.add %n, %nope : !tx.symint
  func.return
}
// CHECK: use of undefined value '%nope'

// -----

func.func @constant_mismatch() {
  %c = tx.constant 3 : !tx.symint<4>
  func.return
}
// CHECK: tx.constant 3 declares result type !tx.symint<4>

// -----

// Hostile dims (issue 17): a located error under the offending token, never a crash.
func.func @zero_divisor(%x: !tx.tensor<[s0 // 0], f32>) {
  func.return
}
// CHECK: invalid.mlir:59:47
// CHECK-NEXT: func.func @zero_divisor(%x: !tx.tensor<[s0 // 0], f32>) {
// CHECK-NEXT: {{^ {46}\^$}}
// CHECK-NEXT: invalid dim 's0 // 0' in !tx.tensor: division by zero in dim

// -----

func.func @negative(%x: !tx.tensor<[3, -s0], f32>) {
  func.return
}
// CHECK: invalid dim '-s0' in !tx.tensor: a tensor dim must be non-negative, found -s0

// -----

func.func @huge_power(%x: !tx.tensor<[s0**999999999], f32>) {
  func.return
}
// CHECK: exponent 999999999 gives degree 999999999, more than the limit of 8

// -----

func.func @symint_zero_divisor(%n: !tx.symint<Mod(s0, 0)>) {
  func.return
}
// CHECK: invalid symbolic expression 'Mod(s0, 0)': modulo by zero in dim
