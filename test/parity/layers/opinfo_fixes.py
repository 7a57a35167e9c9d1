"""Ops issue 16's OpInfo harness (test/parity/opinfo.py) found missing or wrong
in texport, one small program each: the in-place comparisons and logical ops,
atan2_ and the inverse hyperbolics in place, scatter's legacy ``reduce=`` form,
integer addmm/addmv/baddbmm with fractional scalars, _safe_softmax,
new_empty_strided and empty_permuted (filled before use), dist,
native_dropout_backward, block_diag, diagonal_scatter, as_strided_scatter, diag_embed, masked_scatter_, bit shifts, index_reduce."""


def _in_place_compare(x, y):
    a, b, c = x.clone(), x.clone(), x.clone()
    a.lt_(y)
    b.ge_(0.25)
    c.ne_(y).eq_(1.0)
    return a, b, c


def _in_place_logic(x, y):
    a, b, c, d = x.clone(), x.clone(), x.clone(), (x > 0).clone()
    a.logical_and_(y)
    b.logical_or_(y > 0)
    c.logical_xor_(y)
    d.logical_not_()
    return a, b, c, d


def _in_place_trig(x, y):
    a, b = x.clone(), x.abs() + 1
    a.atan2_(y).asinh_()
    b.acosh_()
    return a, b, (x / 2).atanh_()


def _scatter_reduce(x, index):
    source = x * 3
    out = x.clone().scatter_(0, index, 2.5, reduce="multiply")
    return torch.scatter(x, 0, index, source, reduce="add"), x.scatter(0, index, 1.5, reduce="add"), out


def _integer_products(a, m, v):
    return (torch.addmv(a, m, v, beta=0.5, alpha=2.9), torch.addmm(m, m, m, beta=-1.7, alpha=0.5),
            torch.baddbmm(m[None], m[None], m[None], beta=3.2, alpha=-1.5))


def _safe_softmax(x):
    masked = x.masked_fill(x > 0.5, float("-inf"))
    return torch.ops.aten._safe_softmax.default(masked, -1), torch.ops.aten._safe_softmax.default(x, 0, torch.float64)


def _uninitialised_layouts(x):
    strided = x.new_empty_strided([4, 5], [1, 4]).fill_(1.5)
    permuted = torch.ops.aten.empty_permuted.default([4, 5], [1, 0]).fill_(2.0)
    return strided + x, permuted * x


def _dist_and_dropout_backward(x, y):
    keep = x > 0
    return (torch.dist(x, y), torch.dist(x, y[0], 3), torch.dist(x, y, float("inf")),
            torch.ops.aten.native_dropout_backward.default(y, keep, 2.5))


def _block_diag(x, y):
    return torch.block_diag(x, y[0], y[:2, :3].relu())


def _diagonal_and_strided_scatter(x, y):
    return (torch.diagonal_scatter(x, y[0, :4], 1), x.diagonal_scatter(y[:3, 0], -1),
            torch.as_strided_scatter(x, y[:2, :2], [2, 2], [1, 5], 2))


def _diag_embed(x, y):
    return torch.diag_embed(x), x.diag_embed(2, 0, 2), torch.diag_embed(y[:, :3].t(), -1, 2, 0)


def _masked_scatter_in_place(x, y):
    out = x.clone()
    out.masked_scatter_(x > 0, y * 2)
    return out


def _shifts(x, n):
    y = x.clone()
    y.bitwise_left_shift_(2)
    return x << n, x >> 1, torch.bitwise_right_shift(x, n), y


def _index_reduce(x, y):
    index = torch.tensor([0, 2, 0, 1])
    out = x.clone()
    out.index_reduce_(0, index, y, "amin", include_self=False)
    return x.index_reduce(0, index, y, "prod"), x.index_reduce(0, index, y, "mean"), out


def _pair(rng):
    return rng.standard_normal((4, 5), dtype=np.float32), rng.standard_normal((4, 5), dtype=np.float32)


def cases():
    return [
        Case("inplace_compare", lambda: Fn(_in_place_compare), inputs=_pair),
        Case("inplace_logic", lambda: Fn(_in_place_logic), inputs=_pair),
        Case("inplace_atan2_acosh", lambda: Fn(_in_place_trig), inputs=_pair),
        Case("scatter_legacy_reduce", lambda: Fn(_scatter_reduce),
             inputs=lambda rng: (rng.standard_normal((4, 3), dtype=np.float32), rng.integers(0, 4, (3, 3)))),
        Case("integer_add_products", lambda: Fn(_integer_products),
             inputs=lambda rng: (rng.integers(-5, 5, 3), rng.integers(-5, 5, (3, 3)), rng.integers(-5, 5, 3))),
        Case("new_empty_strided_empty_permuted", lambda: Fn(_uninitialised_layouts),
             inputs=lambda rng: (rng.standard_normal((4, 5), dtype=np.float32),)),
        Case("dist_native_dropout_backward", lambda: Fn(_dist_and_dropout_backward), inputs=_pair),
        Case("block_diag", lambda: Fn(_block_diag), inputs=_pair),
        Case("diagonal_as_strided_scatter", lambda: Fn(_diagonal_and_strided_scatter), inputs=_pair),
        Case("diag_embed", lambda: Fn(_diag_embed), inputs=_pair),
        Case("masked_scatter_inplace", lambda: Fn(_masked_scatter_in_place), inputs=_pair),
        Case("bit_shifts", lambda: Fn(_shifts),
             inputs=lambda rng: (rng.integers(-100, 100, (3, 4)), rng.integers(-2, 70, (3, 4)))),
        Case("index_reduce", lambda: Fn(_index_reduce), inputs=_pair),
        Case("safe_softmax", lambda: Fn(_safe_softmax),
             inputs=lambda rng: (np.concatenate([np.full((1, 5), 2.0, np.float32),
                                                 rng.standard_normal((3, 5), dtype=np.float32)]),)),
    ]
