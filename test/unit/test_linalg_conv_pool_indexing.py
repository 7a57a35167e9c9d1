"""lower-core-to-linalg, the conv-pool and indexing families: each op lowered,
verified by iree-opt, compiled by IREE and run against texport's interpreter
(``lowered_and_checked``: ``check_lowered`` on several inputs, one compile per model).

Tolerances: convolutions accumulate in another order than the interpreter's
im2col + BLAS, so f32 results agree to about 1e-6 relative; they are checked at
1e-4 (rtol and atol). Pools, interpolation, bags and scatter sums at the default
1e-5; gathers, max pooling and topk copy elements (exact). float16 at 2e-3 (an
f16 ulp where the f32 sums differ)."""

from __future__ import annotations

import numpy as np
import pytest
from linalg_checks import core_program, lowered_and_checked
from xdsl.context import Context

import texport as torch
import texport.nn.functional as F
from texport.export import Dim
from texport.lowering.errors import LegalityError, LoweringError
from texport.lowering.linalg import LINALG_PASSES
from texport.lowering.linalg.passes import LegalizeLinalgPass, LowerCoreToLinalgPass

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

CONV_TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
BATCH = {"x": {0: Dim("b", max=64)}}
LINALG_PASS = {p.name: p for p in LINALG_PASSES}


# --------------------------------------------------------------- convolution


class Conv(torch.nn.Module):
    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x):
        return (self.conv(x),)


class Convs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = torch.nn.ModuleList([
            torch.nn.Conv2d(4, 8, 3, stride=2, padding=1),
            torch.nn.Conv2d(4, 6, 3, stride=1, padding=2, dilation=2, bias=False),
            torch.nn.Conv2d(4, 6, (3, 1), stride=(1, 2), padding=(1, 0), groups=2),
            torch.nn.Conv2d(4, 4, 3, padding=1, groups=4, bias=False),  # depthwise
        ])

    def forward(self, x):
        return tuple(conv(x) for conv in self.convs)


def test_conv2d_strides_paddings_dilations_groups_with_a_dynamic_batch():
    x = torch.randn(2, 4, 9, 10)
    text = lowered_and_checked(Convs(), (x,), [(x,), (torch.randn(3, 4, 9, 10),)], dynamic_shapes=BATCH,
                               **CONV_TOLERANCE)
    assert text.count("linalg.conv_2d_nchw_fchw") == 2 and text.count("linalg.conv_2d_ngchw_gfchw") == 2
    assert "tensor<?x4x9x10xf32>" in text


class Transposed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)
        self.grouped = torch.nn.ConvTranspose2d(4, 6, (2, 3), stride=(1, 2), dilation=(2, 1), groups=2, bias=False)
        self.line = torch.nn.ConvTranspose1d(4, 2, 3, stride=3)
        self.forward_line = torch.nn.Conv1d(4, 5, 3, stride=2, padding=1)

    def forward(self, x, y):
        return self.up(x), self.grouped(x), self.line(y), self.forward_line(y)


def test_transposed_and_1d_convolutions():
    """A transposed convolution is a forward one over its input spread with zeros; a
    1-d one is the 2-d one over a unit height."""
    x, y = torch.randn(2, 4, 5, 6), torch.randn(2, 4, 7)
    dims = {"x": {0: Dim("b", max=8)}, "y": None}
    text = lowered_and_checked(Transposed(), (x, y), [(x, y), (torch.randn(3, 4, 5, 6), y)], dynamic_shapes=dims,
                               **CONV_TOLERANCE)
    assert "tensor.insert_slice" in text and "linalg.conv_2d_ngchw_gfchw" in text
    assert "tensor<?x4x1x7xf32>" not in text and "into tensor<2x4x1x7xf32>" in text


def test_a_transposed_convolution_padded_beyond_its_kernel_is_refused_by_name():
    x = torch.randn(1, 2, 4, 4)
    program = core_program(Conv(torch.nn.ConvTranspose2d(2, 3, 2, padding=2)), (x,))
    with pytest.raises(LoweringError, match="transposed convolution"):
        LowerCoreToLinalgPass().apply(Context(), program.graph_module.module.clone())


# --------------------------------------------------------------- pooling


class Pools(torch.nn.Module):
    """Several pools of one input, one compile (IREE's compile is most of a check's time)."""

    def __init__(self, pool, *settings):
        super().__init__()
        self.pool, self.settings = pool, settings

    def forward(self, x):
        return tuple(self.pool(x, **kwargs) for kwargs in self.settings)


class MaxPools(torch.nn.Module):
    def forward(self, x):
        values_only = (F.max_pool2d(x, 3, 2, 1), F.max_pool2d(x, 2, 2, ceil_mode=True),
                       F.max_pool2d(x, 3, 1, 1, dilation=2))
        padded = F.max_pool2d(x, 3, 2, 1, return_indices=True)
        ceil = F.max_pool2d(x, 2, 2, ceil_mode=True, return_indices=True)
        return (*values_only, *padded, *ceil)


def test_max_pool_is_the_named_pooling_unless_the_indices_are_used():
    """Indices are flat in the input plane; a window of -inf points at its first
    element inside the input; nan wins (the last one)."""
    x = torch.randn(2, 3, 9, 9)
    x[0, 0, :4, :4] = float("-inf")
    x[1, 1, 2, 2] = float("nan")
    text = lowered_and_checked(MaxPools(), (x,), [(x,), (torch.randn(1, 3, 9, 9),)], dynamic_shapes=BATCH)
    assert text.count("linalg.pooling_nchw_max") == 3 and "arith.constant 0xff800000 : f32" in text  # -inf
    assert text.count("-> (tensor<?x3x5x5xf32>, tensor<?x3x5x5xi64>)") == 2  # value and index generics


def test_avg_pool2d_and_adaptive_avg_pool2d():
    pools = Pools(lambda x, adaptive=None, **pool: F.adaptive_avg_pool2d(x, adaptive) if adaptive
                  else F.avg_pool2d(x, **pool),
                  {"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                  {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
                  {"kernel_size": 3, "stride": 2, "ceil_mode": True}, {"kernel_size": 2, "divisor_override": 3},
                  {"adaptive": (3, 4)}, {"adaptive": (7, 3)})  # uneven adaptive boxes
    x = torch.randn(2, 3, 7, 10)
    lowered_and_checked(pools, (x,), [(x,), (torch.randn(3, 3, 7, 10),)], dynamic_shapes=BATCH)


def test_unbatched_pools():
    class Unbatched(torch.nn.Module):
        def forward(self, x):
            return (F.max_pool2d(x, 2), *F.max_pool2d(x, 3, 2, 1, return_indices=True), F.avg_pool2d(x, 3, 2, 1),
                    F.adaptive_avg_pool2d(x, (3, 2)))

    x = torch.randn(3, 7, 8)
    lowered_and_checked(Unbatched(), (x,), [(x,)])


def test_3d_pools():
    class Pools3d(torch.nn.Module):
        def forward(self, x, v):
            return (F.max_pool3d(x, 2), *F.max_pool3d(x, 3, 2, 1, return_indices=True),
                    F.avg_pool3d(x, 3, 2, 1, count_include_pad=False), F.avg_pool3d(x, 2, ceil_mode=True),
                    F.adaptive_avg_pool3d(x, (2, 3, 2)), F.max_pool3d(v, 2), F.avg_pool3d(v, 2))

    x, v = torch.randn(2, 3, 5, 6, 7), torch.randn(2, 4, 4, 6)  # v: unbatched (C, D, H, W)
    lowered_and_checked(Pools3d(), (x, v), [(x, v), (torch.randn(1, 3, 5, 6, 7), v)],
                        dynamic_shapes={"x": {0: Dim("b", max=8)}, "v": None})


def test_upsample():
    resamples = Pools(F.interpolate, {"scale_factor": 2, "mode": "nearest"}, {"size": (5, 7), "mode": "nearest"},
                      {"scale_factor": 2, "mode": "bilinear", "align_corners": False},
                      {"size": (5, 9), "mode": "bilinear", "align_corners": True},
                      {"scale_factor": 1.5, "mode": "bilinear", "align_corners": False})
    x = torch.randn(2, 3, 4, 6)
    lowered_and_checked(resamples, (x,), [(x,), (torch.randn(1, 3, 4, 6),)], dynamic_shapes=BATCH)


class ResampleTo(torch.nn.Module):
    def forward(self, x, skip):
        return (F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False),
                F.interpolate(x, size=skip.shape[-2:], mode="nearest"),
                F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=True),
                F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(5, 6), mode="nearest"))


def test_upsample_with_dynamic_spatial_sizes():
    """UNet's interpolate to the skip's size: the scale and nearest's special cases
    (same size, twice the size) are chosen at run time."""
    x, skip = torch.randn(1, 2, 3, 4), torch.randn(1, 1, 7, 8)
    dims = {"x": {2: Dim("h", min=2, max=32), 3: Dim("w", min=2, max=32)},
            "skip": {2: Dim("sh", min=2, max=64), 3: Dim("sw", min=2, max=64)}}
    runs = [(x, skip), (torch.randn(1, 2, 5, 3), torch.randn(1, 1, 10, 3)), (torch.randn(1, 2, 4, 4), torch.randn(1, 1, 6, 9))]
    lowered_and_checked(ResampleTo(), (x, skip), runs, dynamic_shapes=dims)


class Stem(torch.nn.Module):
    """ResNet18's stem: 7x7/2 convolution, relu, 3x3/2 max pool."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False)
        self.pool = torch.nn.MaxPool2d(3, 2, 1)

    def forward(self, x):
        return (self.pool(self.conv(x).relu()),)


def test_a_resnet_stem_with_a_dynamic_batch():
    x = torch.randn(2, 3, 32, 32)
    text = lowered_and_checked(Stem(), (x,), [(x,), (torch.randn(3, 3, 32, 32),)],
                               dynamic_shapes=BATCH, **CONV_TOLERANCE)
    assert "linalg.conv_2d_nchw_fchw" in text and "linalg.pooling_nchw_max" in text


class StridedWindows(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)

    def forward(self, x):
        return self.conv(x), F.max_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 3, 2, 1)


def test_dynamic_spatial_sizes():
    """Output sizes are index arithmetic on the input's dims (floordiv), odd and even."""
    x = torch.randn(2, 3, 10, 12)
    dims = {"x": {0: Dim("b", max=8), 2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}}
    text = lowered_and_checked(StridedWindows(), (x,), [(x,), (torch.randn(1, 3, 7, 9),)], dynamic_shapes=dims,
                               **CONV_TOLERANCE)
    assert "tensor<?x3x?x?xf32>" in text and "arith.floordivsi" in text


class HalfPrecision(torch.nn.Module):
    def forward(self, x, w, b):
        return (F.conv2d(x, w, b, padding=1), F.avg_pool2d(x, 3, 2, 1), F.max_pool2d(x, 2),
                F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
                F.adaptive_avg_pool2d(x, (2, 3)))


def test_float16_computes_in_float32_and_rounds_once():
    """torch's opmath: f16 convolutions, sums and interpolation weights in f32, one
    rounding at the end; results can differ by an f16 ulp where the f32 sums do."""
    x, w, b = torch.randn(2, 3, 6, 6).half(), torch.randn(4, 3, 3, 3).half(), torch.randn(4).half()
    lowered_and_checked(HalfPrecision(), (x, w, b), [(x, w, b)], rtol=2e-3, atol=2e-3)


# --------------------------------------------------------------- indexing


def ints(values, dtype=np.int64):
    return torch.from_numpy(np.asarray(values, dtype=dtype))


class Gathers(torch.nn.Module):
    def forward(self, table, rows, columns, index):
        return (F.embedding(rows, table), table.index_select(1, columns), torch.gather(table, 1, index))


def test_embedding_index_select_and_gather():
    table, columns = torch.randn(6, 5), ints([4, 0, 0])
    rows, index = ints([[0, 5, 2], [1, 1, 4]]), ints([[0, 4], [3, 3], [1, 0], [2, 2], [4, 1], [0, 0]])
    runs = [(table, rows, columns, index), (torch.randn(6, 5), ints([[3, 3, 3], [0, 1, 2]]), columns, index)]
    text = lowered_and_checked(Gathers(), (table, rows, columns, index), runs)
    assert "tensor.extract" in text and "scf.for" not in text


def test_embedding_with_a_dynamic_number_of_rows():
    class Embed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(10, 4)

        def forward(self, x):
            return (self.embed(x),)

    x = ints([[1, 2, 9], [0, 0, 3]])
    lowered_and_checked(Embed(), (x,), [(x,), (ints([[7, 8, 9]]),)], dynamic_shapes=BATCH)


class Bags(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sums = torch.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2)
        self.means = torch.nn.EmbeddingBag(10, 3, mode="mean")

    def forward(self, indices, offsets, weights):
        return self.sums(indices, offsets), self.means(indices, offsets), F.embedding_bag(
            indices, self.means.weight, offsets, mode="sum", per_sample_weights=weights), F.embedding_bag(
            indices, self.sums.weight, offsets, mode="max"), F.embedding_bag(
            indices, self.sums.weight, offsets, mode="mean", include_last_offset=True)


def test_embedding_bag_sum_mean_and_max():
    indices, offsets, weights = ints([1, 2, 3, 4, 9, 2]), ints([0, 2, 2, 5]), torch.randn(6)  # bag 1 is empty
    lowered_and_checked(Bags(), (indices, offsets, weights), [(indices, offsets, weights)])


class Index(torch.nn.Module):
    def forward(self, x, i, j, k):
        # the block in place of adjacent indexed dims, in front of apart ones; (2, 1) and (2,) broadcast
        return x[i], x[:, i], x[i, :, j], x[:, i, j], x[k, :, j]


def test_advanced_indexing():
    x, i, j, k = torch.randn(4, 5, 6), ints([3, -1]), ints([0, 5]), ints([[1], [-4]])
    lowered_and_checked(Index(), (x, i, j, k), [(x, i, j, k)])


def test_index_put():
    class Put(torch.nn.Module):
        def forward(self, x, i, v, mask, one):
            put = torch.ops.aten.index_put
            # a boolean mask with one value (y[y > t] = t): where(mask, v, x), or x + v where mask
            return put(x, [i, None], v, False), put(x, [i, None], v, True), put(x, [mask], one, False), put(
                x, [mask], one, True)

    x, i, v = torch.randn(5, 3), ints([4, 0, -1]), torch.randn(3, 3)  # 4 twice: the last wins, or both add
    mask, one = torch.from_numpy(np.random.default_rng(0).random((5, 3)) > 0.5), torch.randn(())
    runs = [(x, i, v, mask, one), (torch.randn(7, 3), ints([6, -7, 2]), v, torch.from_numpy(np.eye(7, 3) > 0), one)]
    batch = Dim("rows", max=64)
    dims = {"x": {0: batch}, "i": None, "v": None, "mask": {0: batch}, "one": None}
    text = lowered_and_checked(Put(), (x, i, v, mask, one), runs, dynamic_shapes=dims)
    assert "scf.for" not in text and "iterator_types = [\"parallel\", \"parallel\", \"reduction\"]" in text


def test_scatter_and_scatter_reduce():
    """Duplicate targets: the last write wins, or all combine in order; an integer mean
    rounds down; the integers also check the reductions' integer ops."""
    class Scatter(torch.nn.Module):
        def forward(self, x, index, src, n, n_src):
            reduced = tuple(x.scatter_reduce(1, index, src, reduce, include_self=include)
                            for reduce in ("sum", "prod", "mean", "amax", "amin") for include in (True, False))
            integers = tuple(n.scatter_reduce(1, index, n_src, reduce, include_self=False)
                             for reduce in ("mean", "amax", "amin"))
            return (x.scatter(1, index, src), x.scatter(1, index, 2.5), x.scatter_add(1, index, src),
                    *reduced, *integers, n.scatter_reduce(1, index, n_src, "mean"))

    def example(rows):
        picks = np.random.default_rng(rows).integers(0, 5, (rows, 2))
        picks[0] = 3  # a duplicate target
        index = ints(picks)
        n, n_src = ints(np.arange(rows * 5).reshape(rows, 5) - 7), ints(np.arange(rows * 2).reshape(rows, 2) * -3)
        return torch.randn(rows, 5), index, torch.randn(rows, 2), n, n_src

    batch = Dim("b", max=64)
    dims = {name: {0: batch} for name in ("x", "index", "src", "n", "n_src")}
    lowered_and_checked(Scatter(), example(4), [example(4), example(1)], dynamic_shapes=dims)


def test_topk_in_torchs_stable_order():
    class TopK(torch.nn.Module):
        def forward(self, x, n):
            largest, smallest, rows = x.topk(3), x.topk(2, dim=0, largest=False), n.topk(2)
            return (*largest, *smallest, *rows)

    x = torch.randn(4, 6)
    x[0, 1], x[0, 4], x[1, 2], x[2, 0] = 5.0, 5.0, float("nan"), float("nan")  # ties: lowest index first
    n = ints([[3, 1, 3, 2], [0, 0, 0, 0]], np.int32)
    lowered_and_checked(TopK(), (x, n), [(x, n)])


def test_nonzero_stays_for_legalize_linalg_to_name():
    class NonZero(torch.nn.Module):
        def forward(self, x):
            return (x.nonzero(),)

    module = core_program(NonZero(), (torch.randn(3, 4),)).graph_module.module.clone()
    LINALG_PASS["lower-core-to-linalg-indexing"]().apply(Context(), module)
    with pytest.raises(LegalityError, match="core.nonzero"):
        LegalizeLinalgPass().apply(Context(), module)
