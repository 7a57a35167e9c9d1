# The `texport` command on a model file that defines a make_* factory: print
# the IR, write an archive, show it, run it (example, .npz and random inputs).
# RUN: texport export %s | filecheck %s --check-prefix=IR
# RUN: texport export %s -o %t.texport | filecheck %s --check-prefix=WROTE
# RUN: texport show %t.texport | filecheck %s --check-prefix=SHOW
# RUN: texport run %t.texport | filecheck %s --check-prefix=EXAMPLE
# RUN: %python -c "import numpy as np; np.savez('%t.npz', x=np.arange(6, dtype=np.float32).reshape(2, 3))"
# RUN: texport run %t.texport --inputs %t.npz --outputs %t.out.npz | filecheck %s --check-prefix=NPZ
# RUN: %python -c "import numpy as np; print(sorted(np.load('%t.out.npz').files))" | filecheck %s --check-prefix=OUTS
# RUN: texport run %t.texport --random-inputs --seed 3 | filecheck %s --check-prefix=RANDOM
import texport as torch


class Affine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.full((3,), 2.0))
        self.register_buffer("shift", torch.ones(3))

    def forward(self, x):
        return {"y": x * self.scale + self.shift, "sum": x.sum()}


def make_affine():
    return Affine(), (torch.zeros(2, 3),)


# IR: func.func @forward(%p_scale: !tx.tensor<[3], f32> {tx.input = "PARAMETER", tx.target = "scale"}, %b_shift: !tx.tensor<[3], f32> {{.*}}, %x: !tx.tensor<[2, 3], f32> {{.*}})
# IR: %mul = training.mul.Tensor(%x, %p_scale)
# IR: %add = training.add.Tensor(%mul, %b_shift)

# WROTE: wrote {{.*}}.texport: TRAINING program, 2 state tensors (24 bytes), {{[0-9,]+}} bytes in all

# SHOW: .texport: TRAINING program
# SHOW: func.func @forward(%p_scale
# SHOW: Graph signature:
# SHOW-NEXT: # inputs
# SHOW-NEXT: p_scale: PARAMETER target='scale'
# SHOW-NEXT: b_shift: BUFFER target='shift' persistent=True
# SHOW-NEXT: x: USER_INPUT
# SHOW: # outputs
# SHOW-NEXT: add: USER_OUTPUT
# SHOW-NEXT: sum_1: USER_OUTPUT
# SHOW: Range constraints: {}
# SHOW-NEXT: State: 2 in state_dict, 0 constants (24 bytes)

# EXAMPLE: out['y']: f32[2, 3]
# EXAMPLE-NEXT: {{\[}}[1., 1., 1.],
# EXAMPLE-NEXT: [1., 1., 1.]]
# EXAMPLE-NEXT: out['sum']: f32[]
# EXAMPLE-NEXT: 0.

# NPZ: out['y']: f32[2, 3]
# NPZ-NEXT: {{\[}}[ 1., 3., 5.],
# NPZ-NEXT: [ 7., 9., 11.]]
# NPZ-NEXT: out['sum']: f32[]
# NPZ-NEXT: 15.

# OUTS: ["out['sum']", "out['y']"]

# RANDOM: out['y']: f32[2, 3]
# RANDOM: out['sum']: f32[]
