# Every `texport` error is one paragraph on stderr and exit status 1, no traceback.
# RUN: not texport export %s 2>&1 | filecheck %s --check-prefix=SEVERAL
# RUN: not texport export %s --factory nope 2>&1 | filecheck %s --check-prefix=NOFACTORY
# RUN: not texport export %S/no_such_model.py 2>&1 | filecheck %s --check-prefix=NOFILE
# RUN: not texport export %s --factory bad_return 2>&1 | filecheck %s --check-prefix=RETURN
# RUN: not texport export %s --factory fails 2>&1 | filecheck %s --check-prefix=FAILS
# RUN: not texport export %s --factory double --dynamic batch:0 2>&1 | filecheck %s --check-prefix=DYNSYNTAX
# RUN: not texport export %s --factory double --dynamic batch=y.0 2>&1 | filecheck %s --check-prefix=DYNARG
# RUN: %python -c "open('%t.broken.py', 'w').write('x = 1\nraise ValueError(\"boom\")\n')"
# RUN: not texport export %t.broken.py 2>&1 | filecheck %s --check-prefix=BROKEN
# RUN: %python -c "open('%t.bad', 'wb').write(b'not a zip')"
# RUN: not texport show %t.bad 2>&1 | filecheck %s --check-prefix=NOTZIP
# RUN: texport export %s --factory double -o %t.texport
# RUN: %python -c "data = open('%t.texport', 'rb').read(); open('%t.cut', 'wb').write(data[:len(data) // 2])"
# RUN: not texport run %t.cut 2>&1 | filecheck %s --check-prefix=TRUNCATED
# RUN: %python -c "import numpy as np; np.savez('%t.npz', x=np.ones((5,), np.float32))"
# RUN: not texport run %t.texport --inputs %t.npz 2>&1 | filecheck %s --check-prefix=GUARD
# RUN: %python -c "import numpy as np; np.savez('%t.y.npz', y=np.ones((4,), np.float32))"
# RUN: not texport run %t.texport --inputs %t.y.npz 2>&1 | filecheck %s --check-prefix=NOKEY
# RUN: not texport run %t.texport --inputs %t.none.npz 2>&1 | filecheck %s --check-prefix=NONPZ
import texport as torch


class Double(torch.nn.Module):
    def forward(self, x):
        return x * 2


def make_double():
    return Double(), (torch.ones(4),)


def make_bad_return():
    return Double()


def make_fails():
    return Double(), (torch.ones(4), torch.ones(4))


# SEVERAL-NOT: Traceback
# SEVERAL: texport: error: {{.*}}errors.py has several factories (make_double, make_bad_return, make_fails): pick one with --factory NAME
# NOFACTORY: texport: error: {{.*}}errors.py has no factory 'nope' (its make_* factories: make_double, make_bad_return, make_fails)
# NOFILE: texport: error: no model file {{.*}}no_such_model.py
# RETURN: texport: error: the factory in {{.*}}errors.py must return (model, args) or (model, args, kwargs), got Double
# FAILS-NOT: Traceback
# FAILS: texport: error: the example inputs do not fit Double.forward: too many positional arguments
# DYNSYNTAX: texport: error: --dynamic 'batch:0': expected NAME=[ARG.]AXIS[:MIN..MAX], e.g. batch=0:1..64
# DYNARG: texport: error: --dynamic 'batch=y.0': 'y' is not a tensor argument of forward (tensor arguments: x)
# BROKEN-NOT: Traceback
# BROKEN: texport: error: error in the model while loading {{.*}}broken.py: ValueError: boom
# BROKEN-NEXT: File "{{.*}}broken.py", line 2, in <module>
# BROKEN-NEXT: raise ValueError("boom")
# NOTZIP: texport: error: cannot load {{.*}}.bad: not a texport archive (truncated, or not a zip file: File is not a zip file)
# TRUNCATED: texport: error: cannot load {{.*}}.cut: not a texport archive (truncated
# GUARD-NOT: Traceback
# GUARD: texport: error: Guard failed: x.size()[0] == 4 (got 5)
# NOKEY: texport: error: {{.*}}.y.npz has no array for input x (key 'x' or 'arg0'; found 'y')
# NONPZ: texport: error: {{.*}}No such file or directory: {{.*}}none.npz
