// Hostile IR text: texport-opt names the place and the problem, exit 1, no traceback.
// RUN: %python -c "import sys; sys.stdout.buffer.write(b'func.func @f' + bytes([255]) + b'() {}')" > %t.bytes.mlir
// RUN: not texport-opt %t.bytes.mlir 2>&1 | filecheck %s --check-prefixes=CLEAN,BYTES
// RUN: %python -c "print('builtin.module {' * 200 + '}' * 200)" > %t.deep.mlir
// RUN: not texport-opt %t.deep.mlir 2>&1 | filecheck %s --check-prefixes=CLEAN,DEEP
// RUN: %python -c "print('func.func @f() attributes {a = ' + chr(34) + 'a' * 10000)" > %t.string.mlir
// RUN: not texport-opt %t.string.mlir 2>&1 | filecheck %s --check-prefixes=CLEAN,STRING
// RUN: not texport-opt %s 2>&1 | filecheck %s --check-prefixes=CLEAN,KIND

// CLEAN-NOT: Traceback
// BYTES: {{^.*}}.bytes.mlir:1:13: error: the input is not UTF-8 text: invalid byte b'\xff'
// DEEP: {{^.*}}.deep.mlir:1:1040: error: {{.*}}nesting deeper than 64 levels
// STRING: {{^.*}}.string.mlir:1:10033: error: string literal not closed on its line
// KIND: {{^.*}}texport-opt-hostile.mlir:[[# @LINE + 4]]:26: error: argument 'dims' of 'core.permute' expects int[], found float 1.0
// KIND-NEXT: %p = core.permute(%x, [1., 0]) : !tx.tensor<[4, 3], f32>
// KIND-NEXT: {{^ +\^}}
func.func @f(%x: !tx.tensor<[3, 4], f32>) {
  %p = core.permute(%x, [1., 0]) : !tx.tensor<[4, 3], f32>
  func.return
}
