// Bad input gets one message naming what and where, exit status 1, no traceback.
// RUN: not texport-opt %s 2>&1 | filecheck %s --check-prefixes=CLEAN,PARSE
// RUN: not texport-opt %s.missing 2>&1 | filecheck %s --check-prefixes=CLEAN,MISSING
// RUN: not texport-opt %S 2>&1 | filecheck %s --check-prefixes=CLEAN,DIRECTORY
// RUN: not texport-opt %S/texport-opt.mlir -o %S 2>&1 | filecheck %s --check-prefixes=CLEAN,DIRECTORY
// RUN: not texport-opt %S/texport-opt.mlir -p no-such-pass 2>&1 | filecheck %s --check-prefixes=CLEAN,PASS
// RUN: not texport-opt %S/texport-opt.mlir -p 'decompose{table=nope}' 2>&1 | filecheck %s --check-prefixes=CLEAN,TABLE

// CLEAN-NOT: Traceback
// PARSE: texport-opt: error: {{.*}}texport-opt-errors.mlir:[[# @LINE + 4]]:18
// PARSE-NEXT: %y = core.bogus(%x)
// PARSE: Operation core.bogus is not registered
func.func @f(%x: !tx.tensor<[3], f32>) {
  %y = core.bogus(%x)
}

// MISSING: texport-opt: error: No such file or directory: {{.*}}texport-opt-errors.mlir.missing
// DIRECTORY: texport-opt: error: Is a directory: {{.*}}tools
// PASS: texport-opt: error: Unrecognized passes: ['no-such-pass']
// TABLE: texport-opt: error: decompose: unknown table 'nope' (known: core)
