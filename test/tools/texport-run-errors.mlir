// Bad input to texport-run gets one paragraph naming the file, the argument or option,
// and what was expected and found: exit status 1 for bad input, 2 for a bad command line.
// RUN: %python -c "open('%t.utf8.mlir', 'wb').write(b'func.func @main() {\n  func.\xff\n}\n')"
// RUN: %python %S/Inputs/exit_status.py texport-run %t.utf8.mlir | filecheck %s --check-prefixes=CLEAN,UTF8
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0=-5 | filecheck %s --check-prefixes=CLEAN,NEGATIVE
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0=two | filecheck %s --check-prefixes=CLEAN,NOTINT
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0 | filecheck %s --check-prefixes=CLEAN,NOEQUALS
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0=2 --bind s0=3 | filecheck %s --check-prefixes=CLEAN,TWICE
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0=2 --bind s9=3 | filecheck %s --check-prefixes=CLEAN,UNKNOWN
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0=1 | filecheck %s --check-prefixes=CLEAN,NEGSIZE
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0=99999999999 | filecheck %s --check-prefixes=CLEAN,HUGE
// RUN: %python -c "import numpy as np; np.savez('%t.ok.npz', x=np.ones((4, 3), np.float32), y=np.ones(2, np.float32), n=np.int64(4))"
// RUN: texport-run %s --inputs %t.ok.npz | filecheck %s --check-prefix=OK
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.ok.npz --bind s0=4 | filecheck %s --check-prefixes=CLEAN,BINDINPUTS
// RUN: %python -c "import numpy as np; np.savez('%t.object.npz', x=np.array([1, 'a', None], dtype=object))"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.object.npz | filecheck %s --check-prefixes=CLEAN,OBJECT
// RUN: %python -c "open('%t.text.npz', 'wb').write(b'not a zip at all')"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.text.npz | filecheck %s --check-prefixes=CLEAN,NOTZIP
// RUN: %python -c "open('%t.empty.npz', 'wb')"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.empty.npz | filecheck %s --check-prefixes=CLEAN,EMPTY
// RUN: %python -c "data = open('%t.ok.npz', 'rb').read(); open('%t.cut.npz', 'wb').write(data[:len(data) // 2])"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.cut.npz | filecheck %s --check-prefixes=CLEAN,CUT
// RUN: %python -c "import numpy as np; np.save('%t.single.npy', np.ones((4, 3), np.float32))"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.single.npy | filecheck %s --check-prefixes=CLEAN,NPY
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %S | filecheck %s --check-prefixes=CLEAN,DIRECTORY
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.missing.npz | filecheck %s --check-prefixes=CLEAN,MISSING
// RUN: %python %S/Inputs/exit_status.py texport-run %S | filecheck %s --check-prefixes=CLEAN,DIRECTORY
// RUN: %python -c "import numpy as np; np.savez('%t.extra.npz', x=np.ones((4, 3), np.float32), y=np.ones(2, np.float32), n=np.int64(4), z=np.ones(2))"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.extra.npz | filecheck %s --check-prefixes=CLEAN,EXTRA
// RUN: %python -c "import numpy as np; np.savez('%t.both.npz', x=np.ones((4, 3), np.float32), arg0=np.ones((4, 3), np.float32), y=np.ones(2, np.float32), n=np.int64(4))"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.both.npz | filecheck %s --check-prefixes=CLEAN,BOTH
// RUN: %python -c "import numpy as np; np.savez('%t.shape.npz', x=np.ones((4, 5), np.float32), y=np.ones(2, np.float32), n=np.int64(4))"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.shape.npz | filecheck %s --check-prefixes=CLEAN,SHAPE
// RUN: %python -c "import numpy as np; np.savez('%t.dtype.npz', x=np.ones((4, 3), np.int32), y=np.ones(2, np.float32), n=np.int64(4))"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.dtype.npz | filecheck %s --check-prefixes=CLEAN,DTYPE
// RUN: %python -c "import numpy as np; np.savez('%t.int.npz', x=np.ones((4, 3), np.float32), y=np.ones(2, np.float32), n=np.ones(2))"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.int.npz | filecheck %s --check-prefixes=CLEAN,INT
// RUN: %python -c "import io, zipfile, numpy as np; b = io.BytesIO(); np.lib.format.write_array_header_1_0(b, {'descr': '<f4', 'fortran_order': False, 'shape': (2**50,)}); zipfile.ZipFile('%t.lying.npz', 'w').writestr('x.npy', b.getvalue() + bytes(16))"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.lying.npz | filecheck %s --check-prefixes=CLEAN,LYING
// RUN: %python -c "import io, zipfile, numpy as np; b = io.BytesIO(); np.lib.format.write_array_header_1_0(b, {'descr': '<f4', 'fortran_order': False, 'shape': (-1, 3)}); zipfile.ZipFile('%t.negative.npz', 'w').writestr('x.npy', b.getvalue() + bytes(16))"
// RUN: %python %S/Inputs/exit_status.py texport-run %s --inputs %t.negative.npz | filecheck %s --check-prefixes=CLEAN,NEGSHAPE
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bogus | filecheck %s --check-prefixes=CLEAN,USAGE
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0=4 --seed -1 | filecheck %s --check-prefixes=CLEAN,SEED
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0=4 --outputs %S | filecheck %s --check-prefixes=CLEAN,OUTDIR
// RUN: %python %S/Inputs/exit_status.py texport-run %s --bind s0=4 --outputs %t.nowhere/out.npz | filecheck %s --check-prefixes=CLEAN,OUTFOLDER
// RUN: texport-run %s --inputs %t.ok.npz --outputs %t.out && %python -c "import numpy as np; print(sorted(np.load('%t.out')))" | filecheck %s --check-prefix=OUTNAME

// CLEAN-NOT: Traceback
// UTF8: {{^.*}}utf8.mlir:2:8: error: the input is not UTF-8 text: invalid byte b'\xff' (invalid start byte)
// UTF8-NEXT: {{^}}  func.{{.}}{{$}}
// UTF8-NEXT: {{^}}       ^{{$}}
// UTF8-NEXT: exit status 1
// NEGATIVE: texport-run: error: --bind 's0=-5': a size is a non-negative integer, found -5
// NEGATIVE-NEXT: exit status 2
// NOTINT: texport-run: error: --bind expects SYMBOL=INTEGER (e.g. --bind s0=8), found 's0=two'
// NOTINT-NEXT: exit status 2
// NOEQUALS: texport-run: error: --bind expects SYMBOL=INTEGER (e.g. --bind s0=8), found 's0'
// NOEQUALS-NEXT: exit status 2
// TWICE: texport-run: error: --bind gives s0 twice: s0=2 and 's0=3'
// TWICE-NEXT: exit status 2
// UNKNOWN: texport-run: error: --bind s9: the arguments of @main have no such size symbol (theirs: s0)
// UNKNOWN-NEXT: exit status 1
// NEGSIZE: texport-run: error: argument 'y' dim 0 has size s0 - 2 = -1 with s0=1: a size cannot be negative
// NEGSIZE-NEXT: exit status 1
// HUGE: texport-run: error: argument 'x' would be f32[99999999999, 3], 2,399,999,999,976 bytes to draw: more than the 2,147,483,648 random inputs may take (give smaller --bind values, or the inputs with --inputs)
// HUGE-NEXT: exit status 1
// OK: output #0: f32[4, 3]
// BINDINPUTS: texport-run: error: --bind s0=4 sizes random inputs: it does not go with --inputs {{.*}}ok.npz
// BINDINPUTS-NEXT: exit status 2
// OBJECT: texport-run: error: {{.*}}object.npz: array 'x' holds Python objects (dtype object), which would need unpickling; texport reads only numeric arrays
// OBJECT-NEXT: exit status 1
// NOTZIP: texport-run: error: {{.*}}text.npz is not an .npz file (a zip of .npy arrays, as numpy.savez writes): it starts with b'not a '
// NOTZIP-NEXT: exit status 1
// EMPTY: texport-run: error: {{.*}}empty.npz is not an .npz file (a zip of .npy arrays, as numpy.savez writes): it is empty
// CUT: texport-run: error: {{.*}}cut.npz is not a readable .npz file: BadZipFile: File is not a zip file
// CUT-NEXT: exit status 1
// NPY: texport-run: error: {{.*}}single.npy holds a single .npy array, not an .npz of named arrays (write one with numpy.savez(path, x=...))
// DIRECTORY: texport-run: error: Is a directory: {{.*}}tools
// DIRECTORY-NEXT: exit status 1
// MISSING: texport-run: error: No such file or directory: {{.*}}missing.npz
// MISSING-NEXT: exit status 1
// EXTRA: texport-run: error: {{.*}}extra.npz has arrays for no argument: z (arguments: x, y, n)
// BOTH: texport-run: error: {{.*}}both.npz gives argument 'x' twice: as 'x' and as 'arg0'
// SHAPE: texport-run: error: Guard failed: x.size()[1] == 3 (got 5)
// SHAPE-NEXT: (inputs from {{.*}}shape.npz: x: f32[4, 5], y: f32[2], n: int 4)
// SHAPE-NEXT: exit status 1
// DTYPE: texport-run: error: Guard failed: x.dtype == texport.float32 (got int32)
// DTYPE-NEXT: (inputs from {{.*}}dtype.npz: x: i32[4, 3], y: f32[2], n: int 4)
// INT: texport-run: error: {{.*}}int.npz: array 'n' for argument 'n' must be a 0-d integer array (the argument is an int); found f64[2]
// INT-NEXT: exit status 1
// LYING: texport-run: error: {{.*}}lying.npz: array 'x' declares more data than fits in memory: Unable to allocate
// LYING-NEXT: exit status 1
// NEGSHAPE: texport-run: error: {{.*}}negative.npz: array 'x' cannot be read: ValueError: negative dimensions are not allowed
// NEGSHAPE-NEXT: exit status 1
// USAGE: texport-run: error: unrecognized arguments: --bogus
// USAGE-NEXT: exit status 2
// SEED: texport-run: error: argument --seed: expected a non-negative integer, found -1
// SEED-NEXT: exit status 2
// OUTDIR: texport-run: error: --outputs {{.*}}tools: is a directory, not a file name
// OUTDIR-NEXT: exit status 1
// OUTFOLDER: texport-run: error: --outputs {{.*}}nowhere/out.npz: there is no folder {{.*}}nowhere
// OUTFOLDER-NEXT: exit status 1
// OUTNAME: ['out0']
func.func @main(%x: !tx.tensor<[s0, 3], f32>, %y: !tx.tensor<[s0 - 2], f32>, %n: !tx.symint<s0>) -> !tx.tensor<[s0, 3], f32> {
  func.return %x : !tx.tensor<[s0, 3], f32>
}
