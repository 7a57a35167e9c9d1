"""Boolean reductions and one_hot: all/any over every dim, one dim and a tuple
of dims (torch's all becomes not-any-not, over ``any.dims`` when no dim is
given), and one_hot with its runtime class-range asserts."""


class Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _bool_reductions(x):
    positive = x > 0
    return (positive.all(), positive.any(), torch.all(positive, 0), positive.all(dim=(0, 1)),
            positive.any(dim=(0, 1), keepdim=True), torch.any(positive, 1))


def _one_hot(x):
    classes = (x * 10).long().remainder(3)
    return F.one_hot(classes, 3) * 2


def _f(*shape):
    return lambda rng: rng.standard_normal(shape, dtype=np.float32)


def cases():
    return [
        Case("bool_reductions", lambda: Fn(_bool_reductions), inputs=lambda rng: (_f(3, 4)(rng),)),
        Case("one_hot", lambda: Fn(_one_hot), inputs=lambda rng: (_f(5)(rng),)),
    ]
