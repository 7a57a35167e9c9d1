# --dynamic NAME=[ARG.]AXIS[:MIN..MAX]: a named Dim on the given dim of the tensor
# arguments; the archive keeps the range constraints and run checks them.
# RUN: texport export %s --dynamic batch=0:1..64 | filecheck %s --check-prefix=IR
# RUN: texport export %s --dynamic batch=x.0:1..64 -o %t.texport
# RUN: texport show %t.texport | filecheck %s --check-prefix=SHOW
# RUN: texport run %t.texport --random-inputs --bind s77=5 | filecheck %s --check-prefix=RUN5
# RUN: %python -c "import numpy as np; np.savez('%t.npz', x=np.ones((65, 4), np.float32))"
# RUN: not texport run %t.texport --inputs %t.npz 2>&1 | filecheck %s --check-prefix=RANGE
import texport as torch


class Rows(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.proj(x).relu()


def make_rows():
    torch.manual_seed(0)
    return Rows(), (torch.randn(8, 4),)


# IR: %x: !tx.tensor<[s77, 4], f32>
# IR: -> (!tx.tensor<[s77, 2], f32>

# SHOW: Range constraints: {s77: VR[1, 64]}

# RUN5: out: f32[5, 2]

# RANGE: texport: error: Guard failed: x.size()[0] <= 64
