# RUN: %python %s 2>&1 | filecheck %s
# Untraceable Python fails clearly, naming the user's source line.
import texport as torch


def attempt(model, args, **kwargs):
    try:
        torch.export.export(model, args, **kwargs)
        print("exported")
    except Exception as err:
        print(f"{type(err).__name__}: {err}")
        print("-----")


class Branchy(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x.sin()
        return x.cos()


class ToList(torch.nn.Module):
    def forward(self, x):
        return torch.tensor(x.tolist())


class IntOf(torch.nn.Module):
    def forward(self, x):
        return torch.zeros(int(x[0]))


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls = self.calls + 1
        return x + 1


captured = torch.ones(3)


class Captures(torch.nn.Module):
    def forward(self, x):
        return x + captured


attempt(Branchy(), (torch.ones(3),))
# CHECK: GuardOnDataDependentSymNode: Could not guard on data-dependent expression
# CHECK: texport.cond(pred, true_fn, false_fn, operands)
# CHECK: The following call raised this error:
# CHECK: line 17, in forward
# CHECK-NEXT: if x.sum() > 0:
attempt(ToList(), (torch.ones(3),))
# CHECK: GuardOnDataDependentSymNode: {{.*}}tolist() needs the values of a traced tensor
# CHECK: return torch.tensor(x.tolist())
attempt(IntOf(), (torch.ones(3),))
# CHECK: GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0
# CHECK: return torch.zeros(int(x[0]))
attempt(Counter(), (torch.ones(3),), strict=True)
# CHECK: UserError: Mutating module attribute 'calls' of Counter during export is not supported in strict mode
attempt(Counter(), (torch.ones(3),))
# CHECK: exported
attempt(Captures(), (torch.ones(3),), strict=True)
# CHECK: UnsupportedError: strict mode: the forward reads a tensor that is neither an input, a parameter nor a buffer
attempt(Captures(), (torch.ones(3),))
# CHECK: exported
