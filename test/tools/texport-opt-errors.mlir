// Bad input gets one message naming what and where, exit status 1, no traceback.
// RUN: not texport-opt %s 2>&1 | filecheck %s --check-prefixes=CLEAN,PARSE
// RUN: not texport-opt %s.missing 2>&1 | filecheck %s --check-prefixes=CLEAN,MISSING
// RUN: not texport-opt %S 2>&1 | filecheck %s --check-prefixes=CLEAN,DIRECTORY
// RUN: not texport-opt %S/texport-opt.mlir -o %S 2>&1 | filecheck %s --check-prefixes=CLEAN,DIRECTORY
// RUN: not texport-opt %S/texport-opt.mlir -p no-such-pass 2>&1 | filecheck %s --check-prefixes=CLEAN,PASS
// RUN: not texport-opt %S/texport-opt.mlir -p 'decompose{table=nope}' 2>&1 | filecheck %s --check-prefixes=CLEAN,TABLE
// RUN: %python -c "open('%t.utf8.mlir', 'wb').write(b'func.func @f\xff() {}\n')"
// RUN: %python %S/Inputs/exit_status.py texport-opt %t.utf8.mlir | filecheck %s --check-prefixes=CLEAN,UTF8
// Exit status 1 for bad input, 2 for a bad command line; --debug and TEXPORT_DEBUG=1 show the traceback.
// RUN: %python %S/Inputs/exit_status.py texport-opt %s | filecheck %s --check-prefixes=CLEAN,STATUS1
// RUN: %python %S/Inputs/exit_status.py texport-opt %S/texport-opt.mlir -p no-such-pass | filecheck %s --check-prefixes=CLEAN,STATUS2
// RUN: %python %S/Inputs/exit_status.py texport-opt --no-such-option | filecheck %s --check-prefixes=CLEAN,STATUS2
// RUN: %python %S/Inputs/exit_status.py texport-opt %S/texport-opt.mlir -p 'dce{' | filecheck %s --check-prefixes=CLEAN,PIPELINE
// RUN: %python %S/Inputs/exit_status.py texport-opt %s.missing --debug | filecheck %s --check-prefix=DEBUG
// RUN: env TEXPORT_DEBUG=1 %python %S/Inputs/exit_status.py texport-opt %s.missing | filecheck %s --check-prefix=DEBUG

// CLEAN-NOT: Traceback
// PARSE: {{^.*}}texport-opt-errors.mlir:[[# @LINE + 4]]:18: error: Operation core.bogus is not registered
// PARSE-NEXT: %y = core.bogus(%x)
// PARSE-NEXT: {{^                 \^}}
func.func @f(%x: !tx.tensor<[3], f32>) {
  %y = core.bogus(%x)
}

// MISSING: texport-opt: error: No such file or directory: {{.*}}texport-opt-errors.mlir.missing
// DIRECTORY: texport-opt: error: Is a directory: {{.*}}tools
// PASS: texport-opt: error: Unrecognized passes: ['no-such-pass']
// TABLE: texport-opt: error: decompose: unknown table 'nope' (known: core)
// UTF8: {{^.*}}utf8.mlir:1:13: error: the input is not UTF-8 text: invalid byte b'\xff' (invalid start byte)
// UTF8-NEXT: func.func @f{{.}}() {}
// UTF8-NEXT: {{^            \^$}}
// STATUS1: exit status 1
// PIPELINE: texport-opt: error: Error parsing pass pipeline specification:
// PIPELINE-NEXT: pass-pipeline:1:5
// PIPELINE-NEXT: dce{
// PIPELINE-NEXT: {{^    \^$}}
// PIPELINE-NEXT: Expected argument name here
// PIPELINE-NEXT: exit status 2
// STATUS2: exit status 2
// DEBUG: Traceback (most recent call last):
// DEBUG: FileNotFoundError: [Errno 2] No such file or directory
// DEBUG: exit status 1
