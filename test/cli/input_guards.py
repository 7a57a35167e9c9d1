# `texport run --inputs`: an .npz value of another type than the exported
# input's is refused by ep.module()'s guard, never converted (issue 17).
# RUN: %python %s %t
# RUN: %python -c "import numpy as np; np.savez('%t.float.npz', x=np.ones(3, np.float32), n=np.array(2.5))"
# RUN: not texport run %t.dynamic.texport --inputs %t.float.npz 2>&1 | filecheck %s --check-prefix=DYNAMIC
# RUN: %python -c "import numpy as np; np.savez('%t.int.npz', x=np.ones(3, np.float32), n=np.array(5))"
# RUN: texport run %t.dynamic.texport --inputs %t.int.npz 2>&1 | filecheck %s --check-prefix=DYNAMIC-OK
# RUN: %python -c "import numpy as np; np.savez('%t.two.npz', x=np.ones(3, np.float32), n=np.array(2.0))"
# RUN: not texport run %t.static.texport --inputs %t.two.npz 2>&1 | filecheck %s --check-prefix=STATIC
# RUN: %python -c "import numpy as np; np.savez('%t.f64.npz', x=np.ones(3), n=np.array(2))"
# RUN: not texport run %t.static.texport --inputs %t.f64.npz 2>&1 | filecheck %s --check-prefix=DTYPE
# DYNAMIC-NOT: Traceback
# DYNAMIC: texport: error: {{.*}}float.npz: array 'n' for input n must be a 0-d integer array (the input is an int); found f64[]
# DYNAMIC-OK: 5.
# STATIC-NOT: Traceback
# STATIC: texport: error: Guard failed: n == 2 (got float 2.0, not int)
# DTYPE: texport: error: Guard failed: x.dtype == texport.float32 (got float64)
import sys

import texport
from texport.export import Dim
from texport.export.serialization import save


class Scale(texport.nn.Module):
    def forward(self, x, n):
        return x * n


if __name__ == "__main__":
    example = (texport.ones(3), 2)
    save(texport.export.export(Scale(), example), sys.argv[1] + ".static.texport")
    dynamic = texport.export.export(Scale(), example, dynamic_shapes={"x": None, "n": Dim.DYNAMIC})
    save(dynamic, sys.argv[1] + ".dynamic.texport")
