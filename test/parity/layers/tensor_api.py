"""The Tensor API's shape, indexing, reduction and sorting functions: stacks,
atleast_*, tile, meshgrid, broadcasting, cartesian products, flips, diff, nan
reductions, moments, argsort, unique and the ops behind them, with static and
dynamic sizes; and the factories torch sizes over truncated bounds."""


class Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x, v):
        return self.fn(x, v)


def _stacks(x, v):
    return (torch.hstack([x, x]), torch.vstack([v, v]), torch.dstack([x, x]), torch.column_stack([v, v]),
            torch.row_stack([x, x]), torch.hstack([v, v]), torch.column_stack([x, x[:, 0]]))


def _atleast(x, v):
    s = x[0, 0]
    return torch.atleast_1d(s), torch.atleast_2d(v), torch.atleast_3d(x), torch.atleast_3d(v), *torch.atleast_2d(s, x)


def _tiles(x, v):
    return torch.tile(x, (2,)), x.tile(2, 1, 2), torch.tile(v, (3,))


def _meshgrids(x, v):
    a, b = torch.meshgrid(v, x[0], indexing="ij")
    c, d = torch.meshgrid(v, x[0], indexing="xy")
    return a + 1, b * 2, c - 1, d / 2


def _broadcasts(x, v):
    a, b, c = torch.broadcast_tensors(x, x[0], x[:, :1])
    return a + 1, b * 2, c - 1, torch.zeros(torch.broadcast_shapes(x.shape, (1, 3)))


def _grids_returned(x, v):
    # the grids themselves: torch's training and functional IR return getitems of the whole op
    a, b = torch.meshgrid(v, x[0], indexing="xy")
    c, d = torch.broadcast_tensors(x, x[0])
    return a, b, c, d, torch.cartesian_prod(v, x[0]).reshape(-1)


def _cartesian(x, v):
    return torch.cartesian_prod(v, x[0]), torch.cartesian_prod(v)


def _flips(x, v):
    return torch.fliplr(x), torch.flipud(x), x.fliplr(), x.flipud(), torch.rot90(x, 1, [0, 1]), torch.rot90(x, -1)


def _diffs(x, v):
    return torch.diff(x, 2, 0, prepend=x), torch.diff(v), x.diff(dim=0, append=x[:1]), torch.diff(x > 0, dim=1)


def _nan_reductions(x, v):
    y = torch.where(x > 1, float("nan"), x)
    return torch.nanmean(y, 1), torch.nanmean(y), y.nanmean(0, keepdim=True), torch.nansum(y, 1), y.nansum()


def _moments(x, v):
    return (*torch.std_mean(x, 1), *torch.var_mean(x, correction=0), *torch.std_mean(x, [0, 1], correction=1, keepdim=True),
            *torch.var_mean(x, 0, False))


def _counts_and_extremes(x, v):
    low, high = torch.aminmax(x, dim=1)
    return (torch.count_nonzero(x > 0, 1), torch.count_nonzero(x > 0), low, high, *torch.aminmax(x),
            (x > 0).count_nonzero((0, 1)))


def _argsorts(x, v):
    return x.argsort(1), torch.argsort(x, 0, descending=True), torch.argsort(v, stable=True)


def _ranges(x, v):
    return (torch.ops.aten.arange.default(3.1, dtype=torch.int64) + x.shape[0],
            torch.ops.aten.arange.start_step(0.1, -7.9, -4.0, dtype=torch.int64),
            torch.ops.aten.linspace.default(4.3, 0, 50, dtype=torch.int64)[:3] * 2,
            torch.full_like(x.to(torch.uint8), -9), torch.logspace(0, 2, 5) + x[0, 0], torch.logspace(1, 3, 5, base=2.0),
            torch.logspace(0.5, 2.7, 4, dtype=torch.int64), torch.gather(x, 1, torch.ops.aten.arange.default(3, dtype=torch.int32)
                                                                 .expand(x.shape[0], 3)))


def _medians(x, v):
    y = torch.where(x > 1.2, float("nan"), x)
    return (*torch.median(x, 1), *y.median(0, keepdim=True), *torch.nanmedian(y, 1), torch.median(y),
            torch.nanmedian(y), *torch.kthvalue(x, 2, 0), *torch.cummax(x, 0), *torch.cummin(x, 1))


def _modes(x, v):
    votes = (x * 2).round().long()
    return (*torch.mode(votes, 1), *votes.mode(0, True))


def _histograms(x, v):
    return torch.histc(x, 6, -1, 1), x.histc(4), torch.dist(x, x * 2, 3), torch.dist(x, x[0]), torch.dist(v, v * 0, 0)


def _searches(x, v):
    bounds = torch.tensor([-1.0, 0.0, 0.5, 1.0])
    ordered = x.sort(1)[0]
    return (torch.bucketize(x, bounds), torch.bucketize(x, bounds, right=True, out_int32=True),
            torch.searchsorted(bounds, x, side="right"), torch.searchsorted(ordered, x),
            torch.searchsorted(v, x, sorter=v.argsort()), torch.searchsorted(bounds, 0.5, right=True))


def _sets(x, v):
    votes = (x * 2).round()
    return torch.isin(votes, votes[0]), torch.isin(votes, 1.0), torch.isin(votes, votes[0], invert=True)


def _takes_and_puts(x, v):
    index = torch.tensor([[0, -1], [3, 7]])
    y = x.clone()
    y.put_(torch.tensor([0, 2]), v[:2])
    z = x.clone()
    z.index_fill_(0, torch.tensor([1]), -2.0)
    return (torch.take(x, index), x.put(torch.tensor([1, 4, 4]), v[:3], accumulate=True), y,
            x.index_fill(1, torch.tensor([0, 2]), -1.0), x.index_fill(0, torch.tensor([1]), v[0]), z)


def _diagonals(x, v):
    return (torch.diag_embed(x), torch.diag_embed(x, 1, 0, 2), torch.diag(v, 1) + 0, torch.diag(x) + 0,
            torch.diagflat(x[:2, :2]) + 0, torch.diagonal_scatter(x, v[:3] * 0, 0),
            torch.as_strided_scatter(x, v[:3] * 0, (3,), (2,), 1), torch.tril_indices(3, 4, 1) + x.shape[0],
            torch.triu_indices(4, 3, -1) * 2)


def _diag_embeds(x, v):
    return torch.diag_embed(x, -1), torch.diag(v) + 1, torch.diag_embed(v, 2, 0, 1)


def _draws(x, v):
    """Random ops whose results the seed does not change (texport's stream is not torch's):
    a zero std, a one-hot weight, a one-value range, properties every draw has."""
    y = x.clone()
    y.exponential_(2.0)
    z = x.clone()
    z.random_(1)  # torch cannot export random_.from: its graph code spells the keyword `from`
    w = x.clone()
    w.log_normal_(0.0, 1e-9)
    c = x.clone()
    c.cauchy_()
    g = x.clone()
    g.geometric_(1 - 1e-12)
    picks = torch.multinomial(torch.eye(3) + x[:3] * 0, 1)
    return (torch.normal(x, 0.0), torch.normal(1.0, x.abs() * 0), torch.normal(x, x * 0), y > 0, z, w,
            c.abs() < float("inf"), g, picks, torch.normal(2.0, 0.0, (3,)), torch.bernoulli(x * 0), torch.bernoulli(x, 1.0))


def _quantiles(x, v):
    y = torch.where(x > 1.2, float("nan"), x)
    return (torch.quantile(x, 0.3), torch.quantile(x, 0.3, dim=0), x.quantile(0.7, 1, True, interpolation="midpoint"),
            torch.quantile(x, torch.tensor([0.2, 0.9]), dim=1, keepdim=True), torch.nanquantile(y, 0.3, dim=1),
            torch.nanquantile(y, 0.5, dim=0, interpolation="lower"), y.nanquantile(0.6, interpolation="nearest"),
            torch.quantile(x, 0.4, dim=1, interpolation="higher"))


def _quantile_layout(x, v):
    # a 1-d q's dim is transposed first (stride 1): flattening the result copies it
    q = torch.tensor([0.25, 0.5, 0.75])
    return torch.quantile(x, q, dim=1).reshape(-1), torch.nanquantile(x, q, dim=0, keepdim=True).flatten() * 2


def _diff_layout(x, v):
    # the difference of a transposed input is laid out as it: flattening it copies (static only: on a
    # dynamic size, torch's contiguity check guards rows >= 3)
    return torch.diff(x.t(), dim=1).reshape(-1), torch.diff(x.t(), 2, 0).flatten() + 1


def _uniques(x, v):
    votes = (x * 2).round()
    values, inverse, counts = torch.unique(votes, return_inverse=True, return_counts=True)
    runs, run_counts = torch.unique_consecutive(votes.flatten(), return_counts=True)
    rows, row_inverse = torch.unique(votes, dim=0, return_inverse=True)
    return values * 2, inverse, counts, runs + 1, run_counts, votes.unique(sorted=True) - 1, rows, row_inverse


def _data_sized(x, v):
    votes = (x.abs() * 2).long().flatten()
    return torch.argwhere(x > 0), torch.bincount(votes, minlength=3), torch.bincount(votes, x.flatten())


def _views_and_scatters(x, v):
    y = x.clone()
    y.masked_scatter_(x > 0, x * 10)
    return (x.unfold(0, 2, 1), x.unfold(1, 2, 2) * 1, torch.select_scatter(x, v[:3], 0, 1),
            torch.slice_scatter(x, x[:1] * 0, 0, 0, 1), torch.slice_scatter(x, x[:, :2] * 0, 1, 1), y)


def _cdists(x, v):
    return torch.cdist(x, x[:2]), torch.cdist(x, x, 1.0), torch.cdist(x[None], x[None], 0.5)


def _scatter_reduces(x, v):
    index = torch.tensor([[0, 1, 2], [2, 0, 0]])
    y = x.clone()
    y.scatter_(0, index, x[:2], reduce="multiply")
    return x.scatter(0, index, x[:2], reduce="add"), torch.scatter(x, 0, index, 2.0, reduce="multiply"), y


def _xv(rng):
    return rng.standard_normal((5, 3), dtype=np.float32), rng.standard_normal((4,), dtype=np.float32)


def _xv_second(rng):
    return rng.standard_normal((7, 3), dtype=np.float32), rng.standard_normal((6,), dtype=np.float32)


def cases():
    Dim = torch.export.Dim
    programs = {
        "api_stacks": _stacks, "api_atleast": _atleast, "api_tile": _tiles, "api_meshgrid": _meshgrids,
        "api_broadcast": _broadcasts, "api_cartesian_prod": _cartesian, "api_flips": _flips, "api_diff": _diffs,
        "api_nan_reductions": _nan_reductions, "api_moments": _moments,
        "api_counts_and_extremes": _counts_and_extremes, "api_argsort": _argsorts, "api_ranges": _ranges,
        "api_medians": _medians, "api_modes": _modes, "api_histograms": _histograms, "api_searches": _searches,
        "api_sets": _sets, "api_takes_and_puts": _takes_and_puts, "api_diagonals": _diagonals,
        "api_draws": _draws, "api_quantiles": _quantiles, "api_unique": _uniques, "api_data_sized": _data_sized,
        "api_views_and_scatters": _views_and_scatters, "api_cdist": _cdists,
        "api_scatter_reduce": _scatter_reduces, "api_grids_returned": _grids_returned,
        "api_quantile_layout": _quantile_layout, "api_diff_layout": _diff_layout,
    }
    cases = [Case(name, (lambda fn=fn: Fn(fn)), inputs=_xv) for name, fn in programs.items()]
    dynamic = {"api_tile": _tiles, "api_meshgrid": _meshgrids, "api_cartesian_prod": _cartesian, "api_diff": _diffs,
               "api_moments": _moments, "api_nan_reductions": _nan_reductions, "api_medians": _medians,
               "api_searches": _searches, "api_quantiles": _quantiles, "api_diag_embed": _diag_embeds,
               "api_views_and_scatters": _views_and_scatters, "api_unique": _uniques, "api_stacks": _stacks,
               "api_broadcast": _broadcasts, "api_atleast": _atleast, "api_flips": _flips, "api_sets": _sets,
               "api_histograms": _histograms, "api_counts_and_extremes": _counts_and_extremes, "api_modes": _modes,
               "api_argsort": _argsorts, "api_data_sized": _data_sized, "api_grids_returned": _grids_returned,
               "api_quantile_layout": _quantile_layout}
    for name, fn in dynamic.items():
        cases.append(Case(f"{name}_dynamic", (lambda fn=fn: Fn(fn)), inputs=_xv,
                          dynamic_shapes=({0: Dim("rows", min=2, max=32)}, {0: Dim("n", min=3, max=32)}),
                          second=_xv_second))
    return cases
