# `texport run` on a saved program with bad --bind options or bad .npz inputs: one
# paragraph naming the option or the file and array; exit status 1, 2 for a bad command line.
# RUN: texport export %S/Inputs/two_inputs.py --dynamic batch=0:2..64 -o %t.texport
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --random-inputs --bind s17=-5 | filecheck %s --check-prefixes=CLEAN,NEGATIVE
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --random-inputs --bind s17=5 --bind s17=6 | filecheck %s --check-prefixes=CLEAN,TWICE
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --random-inputs --bind s17 | filecheck %s --check-prefixes=CLEAN,NOEQUALS
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --random-inputs --bind s9=5 | filecheck %s --check-prefixes=CLEAN,UNKNOWN
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --bind s17=5 | filecheck %s --check-prefixes=CLEAN,NORANDOM
# RUN: %python -c "import numpy as np; np.savez('%t.object.npz', x=np.array([1, 'a', None], dtype=object), y=np.ones((4, 5), np.float32))"
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --inputs %t.object.npz | filecheck %s --check-prefixes=CLEAN,OBJECT
# RUN: %python -c "open('%t.text.npz', 'w').write('x,y\n1,2\n')"
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --inputs %t.text.npz | filecheck %s --check-prefixes=CLEAN,NOTZIP
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --inputs %S | filecheck %s --check-prefixes=CLEAN,DIRECTORY
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --random-inputs --seed -1 | filecheck %s --check-prefixes=CLEAN,SEED
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --outputs %S | filecheck %s --check-prefixes=CLEAN,OUTDIR
# RUN: %python %S/Inputs/exit_status.py texport lower %t.texport --to core -o %S | filecheck %s --check-prefixes=CLEAN,ODIR
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py -o %t.nowhere/out.texport | filecheck %s --check-prefixes=CLEAN,OFOLDER
# RUN: %python %S/Inputs/exit_status.py texport run %t.texport --random-inputs --bind s17=5 | filecheck %s --check-prefix=RUNS

# CLEAN-NOT: Traceback
# NEGATIVE: texport: error: --bind 's17=-5': a size is a non-negative integer, found -5
# NEGATIVE-NEXT: exit status 2
# TWICE: texport: error: --bind gives s17 twice: s17=5 and 's17=6'
# TWICE-NEXT: exit status 2
# NOEQUALS: texport: error: --bind expects SYMBOL=INTEGER (e.g. --bind s0=8), found 's17'
# NOEQUALS-NEXT: exit status 2
# UNKNOWN: texport: error: --bind s9: the arguments of @forward have no such size symbol (theirs: s17)
# UNKNOWN-NEXT: exit status 1
# NORANDOM: texport: error: --bind s17=5 sizes random inputs: it goes with --random-inputs
# NORANDOM-NEXT: exit status 2
# OBJECT: texport: error: {{.*}}object.npz: array 'x' holds Python objects (dtype object), which would need unpickling; texport reads only numeric arrays
# OBJECT-NEXT: exit status 1
# NOTZIP: texport: error: {{.*}}text.npz is not an .npz file (a zip of .npy arrays, as numpy.savez writes): it starts with b'x,y\n1,'
# NOTZIP-NEXT: exit status 1
# DIRECTORY: texport: error: Is a directory: {{.*}}tools
# DIRECTORY-NEXT: exit status 1
# SEED: texport run: error: argument --seed: expected a non-negative integer, found -1
# SEED-NEXT: exit status 2
# OUTDIR: texport: error: --outputs {{.*}}tools: is a directory, not a file name
# OUTDIR-NEXT: exit status 1
# ODIR: texport: error: -o {{.*}}tools: is a directory, not a file name
# OFOLDER: texport: error: -o {{.*}}nowhere/out.texport: there is no folder {{.*}}nowhere
# RUNS: out: f32[5]
# RUNS: exit status 0
