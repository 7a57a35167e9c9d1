"""ATen overloads issue 16's OpInfo harness found missing (item 6), one small
program each: the orthogonal polynomials of torch.special (kept in core),
linspace and logspace with 0-d tensor bounds, renorm,
_chunk_cat, _unsafe_masked_index and its accumulating put, unfold_backward,
conj_physical_, histogram and the histogramdd parts, segment_reduce (kept in core)."""


def _chebyshev(x, n):
    s = torch.special
    return (s.chebyshev_polynomial_t(x, n), s.chebyshev_polynomial_u(x, 3), s.chebyshev_polynomial_v(0.25, n),
            s.chebyshev_polynomial_w(x, n), s.shifted_chebyshev_polynomial_t(x, n),
            s.shifted_chebyshev_polynomial_u(x, 9), s.shifted_chebyshev_polynomial_v(x, n),
            s.shifted_chebyshev_polynomial_w(x, n))


def _other_polynomials(x, n):
    s = torch.special
    return (s.hermite_polynomial_h(x, n), s.hermite_polynomial_he(x, 4), s.laguerre_polynomial_l(x, n),
            s.legendre_polynomial_p(-0.5, n))


def _polynomial_inputs(rng):
    return rng.uniform(-1.5, 1.5, (4, 6)).astype(np.float32), rng.integers(-1, 12, (4, 6))


def _spaces(a, b):
    return (torch.linspace(a, b, 5), torch.linspace(0.5, b, 4), torch.linspace(a, 2.0, 7, dtype=torch.float64),
            torch.logspace(a, 3.0, 6, base=2.0), torch.logspace(a, b, 3), torch.logspace(-1.0, b, 4, dtype=torch.int64),
            torch.linspace(a, b, 1))  # an integer linspace: torch's core program truncates other bounds than its eager


def _bounds(rng):
    return np.array(rng.uniform(-2, 0), np.float32), np.array(rng.uniform(1, 3), np.float32)


def _renorm(x):
    y = x.clone()
    y.renorm_(1, 0, 2.0)
    return torch.renorm(x, 2, 1, 1.5), y, x.renorm(float("inf"), -1, 0.5)


def _chunk_cat(a, b):
    return torch.ops.aten._chunk_cat.default([a, b], 1, 3), torch.ops.aten._chunk_cat.default([a * 2], -1, 2)


def _masked_index(x, mask, index, values):
    return (torch.ops.aten._unsafe_masked_index.default(x, mask, [None, index], 0.5),
            torch.ops.aten._unsafe_masked_index_put_accumulate.default(x, mask, [None, index], values))


def _masked_index_inputs(rng):
    # indices past the end, masked or clamped (negative ones: torch's kernel and decomposition disagree)
    return (rng.standard_normal((3, 4), dtype=np.float32), rng.random((3, 6)) < 0.6, rng.integers(0, 7, 6),
            rng.standard_normal((3, 6), dtype=np.float32))


def _unfold_backward(overlapping, apart):
    return (torch.ops.aten.unfold_backward.default(overlapping, [3, 7], 1, 3, 2),
            torch.ops.aten.unfold_backward.default(apart, [2, 7, 3], -2, 2, 3))


def _conj_physical_in_place(z):
    y = z.clone()
    y.conj_physical_()
    return y * 2


def _histograms(x, w, edges):
    counts, bin_edges = torch.histogram(x, 6, weight=w)
    dense = torch.histogram(x, 4, range=(-1.0, 1.0), density=True)
    by_edges = torch.histogram(x, edges, weight=w)
    points = x.reshape(-1, 2)
    return (counts, bin_edges, dense.hist, by_edges.hist, torch.ops.aten._histogramdd_bin_edges.default(points, [2, 3]),
            torch.ops.aten._histogramdd_from_bin_cts.default(points, [2, 3], density=True),
            torch.ops.aten._histogramdd_from_bin_tensors.default(points, [edges, edges]))


def _segment_reduce(data, lengths):
    return (torch.segment_reduce(data, "sum", lengths=lengths), torch.segment_reduce(data, "max", lengths=lengths),
            torch.segment_reduce(data, "mean", lengths=lengths, initial=1.5))


def cases():
    return [
        Case("chebyshev_polynomials", lambda: Fn(_chebyshev), inputs=_polynomial_inputs),
        Case("hermite_laguerre_legendre_polynomials", lambda: Fn(_other_polynomials), inputs=_polynomial_inputs),
        Case("linspace_logspace_tensor_bounds", lambda: Fn(_spaces), inputs=_bounds),
        Case("chunk_cat", lambda: Fn(_chunk_cat),
             inputs=lambda rng: (rng.standard_normal((2, 5, 4), dtype=np.float32),
                                 rng.standard_normal((2, 3), dtype=np.float32))),
        Case("unsafe_masked_index", lambda: Fn(_masked_index), inputs=_masked_index_inputs),
        Case("unfold_backward", lambda: Fn(_unfold_backward),
             inputs=lambda rng: (rng.standard_normal((3, 3, 3), dtype=np.float32),
                                 rng.standard_normal((2, 2, 3, 2), dtype=np.float32))),
        Case("conj_physical_inplace", lambda: Fn(_conj_physical_in_place),
             inputs=lambda rng: ((rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64),)),
        Case("histograms", lambda: Fn(_histograms),
             inputs=lambda rng: (rng.standard_normal((4, 6), dtype=np.float32), rng.random((4, 6), dtype=np.float32),
                                 np.array([-2.0, -0.5, 0.0, 0.4, 2.0], np.float32))),
        Case("segment_reduce", lambda: Fn(_segment_reduce),
             inputs=lambda rng: (rng.standard_normal((6, 3), dtype=np.float32), np.array([2, 0, 3, 1]))),
        Case("renorm", lambda: Fn(_renorm), inputs=lambda rng: (2 * rng.standard_normal((3, 4, 2), dtype=np.float32),)),
    ]
