"""Views, writes through views and the core ops torch's default table still
decomposes: squeeze.dim (to squeeze.dims), var.dim (to var.correction),
fill.Scalar (to full_like) and select_scatter (to a where over an arange mask),
each reached from the user's code, with static and dynamic sizes."""


class Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _squeeze_dims(x):
    return x[:, :1].squeeze(1) + x[:, -1:].squeeze(-1) + x[:, :1].squeeze()


def _filled(x):
    y = x.clone()
    y.fill_(2.5)
    z = x.clone()
    z.zero_()
    return y + z


def _row_written(x):
    y = x.clone()
    y[1] = x[0] * 2
    return y


def _open_slices(x):
    """Slices that keep every element: torch records none in a tuple index where
    it knows the size fits (a static size, a bounded symbolic one), one on a
    symbolic size without an upper bound, and always one for a lone slice."""
    return x[:, None, :], x[0:, :3], x[:, :5], x[:], x[0:][None], torch.arange(x.shape[0])[:, None]


def _static_open_slices(x):
    return x[:9], x[:4, :], x[:, :3]


def _rolled(x):
    return torch.roll(x, 1, 0), torch.roll(x, (1, -2), (0, 1)), torch.roll(x, 2), torch.roll(x[0], 1)


def _repeated(x):
    return x[0].repeat_interleave(2), x.repeat_interleave(2), x.repeat_interleave(3, dim=1)


def _embedding_grads(x):
    rows = (x[:2].abs() * 10).long().remainder(6)
    grads = x[:2, None, :].expand(2, 3, 3)
    backward = torch.ops.aten.embedding_dense_backward.default
    return backward(grads, rows, 6, 2, False), backward(grads, rows, 6, -1, True)


def _f(*shape):
    return lambda rng: rng.standard_normal(shape, dtype=np.float32)


def cases():
    Dim = torch.export.Dim
    programs = {
        "squeeze_dim": _squeeze_dims,
        "squeeze_dim_of_reduction": lambda x: x.sum(1, keepdim=True).squeeze(1),
        "var_dim": lambda x: torch.ops.aten.var.dim(x, [1], True, False) + x.var(1, unbiased=False),
        "fill_and_zero": _filled,
        "select_scatter": lambda x: torch.ops.aten.select_scatter.default(x, x[0] + 1, 0, -1),
        "row_written": _row_written,
        "roll": _rolled,
        "repeat_interleave": _repeated,
        "embedding_dense_backward": _embedding_grads,
    }
    cases = [Case(name, (lambda fn=fn: Fn(fn)), inputs=lambda rng: (_f(4, 3)(rng),)) for name, fn in programs.items()]
    # a symbolic size: the select_scatter mask's arange runs to it
    cases.append(Case("row_written_dynamic", lambda: Fn(_row_written), inputs=lambda rng: (_f(4, 3)(rng),),
                      dynamic_shapes={"x": {0: Dim("rows", min=2, max=16)}}, second=lambda rng: (_f(6, 3)(rng),)))
    for name, rows in (("open_slices_unbounded", Dim("rows")), ("open_slices_bounded", Dim("rows", max=16))):
        cases.append(Case(name, lambda: Fn(_open_slices), inputs=lambda rng: (_f(4, 3)(rng),),
                          dynamic_shapes={"x": {0: rows}}, second=lambda rng: (_f(6, 3)(rng),)))
    cases.append(Case("open_slices_static", lambda: Fn(_static_open_slices), inputs=lambda rng: (_f(4, 3)(rng),)))
    return cases
