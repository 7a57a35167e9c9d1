"""lower-core-to-linalg, reductions and norms families: each op lowered, compiled and
run by IREE, every result compared with texport's interpreter (``check_lowered``);
a dynamic batch is run at two sizes. float32 at 1e-5 (abs and rel): the sums
are taken in another order than numpy's, nothing more. Inputs hold ties, nans and
infs where an op's semantics depend on them (first index of a max, nan propagation,
the scan's mask)."""

from __future__ import annotations

import numpy as np
import pytest
from linalg_checks import (
    check_lowered,
    compile_and_run,
    core_program,
    function_inputs,
    interpreter_outputs,
)

import texport as torch
import texport.nn.functional as F
from texport.export import Dim
from texport.lowering.linalg import lower_to_linalg_text

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

BATCH = {"x": {0: Dim("b", max=64)}}
RNG = np.random.default_rng(20)


def tensor(*shape: int, dtype: type = np.float32) -> torch.Tensor:
    return torch.from_numpy(RNG.standard_normal(shape).astype(dtype))


def with_ties_and_nans(batch: int) -> torch.Tensor:
    """Small integers (many ties), a nan in two rows, an inf, in [batch, 4, 5]."""
    values = RNG.integers(-2, 3, (batch, 4, 5)).astype(np.float32)
    values[0, 1, 2] = np.nan
    values[0, 3, 2] = np.nan
    values[-1, 0, 4] = np.inf
    return torch.from_numpy(values)


def check_dynamic(model: torch.nn.Module, make: callable, batches: tuple[int, ...] = (2, 5)) -> str:
    """Export with a dynamic batch; lowered results equal the interpreter's at each batch size
    (two for one op of each kind; one elsewhere: each size is another IREE compile)."""
    program = core_program(model, (make(3),), dynamic_shapes=BATCH)
    for batch in batches:
        text = check_lowered(program, [make(batch)])
    assert "tensor<?x" in text
    return text


# ---------------------------------------------------------------- reductions


class SumsMeansProducts(torch.nn.Module):
    def forward(self, x):
        return (x.sum(), x.sum(1, keepdim=True), x.sum((0, 2)), x.mean(), x.mean((0, 1)),
                x.mean(-1, keepdim=True), x.prod(), x.prod(1, keepdim=True))


def test_sum_mean_prod_over_all_some_and_kept_dims():
    text = check_dynamic(SumsMeansProducts(), lambda b: tensor(b, 4, 5))
    assert '"reduction"' in text and "linalg.fill" in text and "tx." not in text


class IntegerSums(torch.nn.Module):
    def forward(self, x):
        values, indices = x.max(1)
        return x.sum(1), x.sum(dtype=torch.float32), x.cumsum(0), x.prod(1), values, indices, x.argmin(0)


def test_integers_accumulate_in_int64_and_dtype_converts_first():
    """Also max and argmin of integers (signed compares, ties)."""
    values = RNG.integers(-50, 50, (3, 4)).astype(np.int32)
    values[1, 2] = values[1, 0] = 60  # a tie for the max of row 1
    program = core_program(IntegerSums(), (torch.from_numpy(values),))
    text = check_lowered(program, [torch.from_numpy(values)])
    assert "arith.extsi" in text and "arith.sitofp" in text


class UnsignedAndBool(torch.nn.Module):
    def forward(self, x, flags):
        return (x.sum(0), x.cumsum(1, dtype=torch.float32), x.argmax(1), x.argmin(1), x.prod(1),
                x.sum(1, dtype=torch.float32), x.amax(1), x.cumsum(0),
                flags.amax(1), flags.any(), flags.argmax(1), flags.min(0)[1])


def test_uint8_widens_unsigned_and_compares_unsigned():
    """Upstream's i8 is signless: 200 must not sum, convert to float or compare as -56
    (``Body.convert(..., unsigned=True)``). A uint8 result (amax) comes back from IREE
    as int8: check_lowered views it as uint8."""
    values = RNG.integers(0, 256, (3, 5)).astype(np.uint8)
    values[2, 3] = 250
    flags = RNG.random((3, 5)) > 0.5
    inputs = [torch.from_numpy(values), torch.from_numpy(flags)]
    check_lowered(core_program(UnsignedAndBool(), tuple(inputs)), inputs)


class Extremes(torch.nn.Module):
    def forward(self, x):
        return x.amax(1), x.amin(0, keepdim=True), x.amax((0, 2)), x.amin((1, 2))


def test_amax_amin_propagate_nan():
    check_dynamic(Extremes(), with_ties_and_nans, batches=(4,))


class AnyOf(torch.nn.Module):
    def forward(self, x):
        return x.any(1), x.any((0, 2), keepdim=True), x.any()


def test_any_of_bools_and_of_floats_counting_nan_as_true():
    def bools(batch: int) -> torch.Tensor:
        return torch.from_numpy(RNG.random((batch, 4, 5)) > 0.9)

    check_dynamic(AnyOf(), bools, batches=(4,))
    floats = RNG.integers(0, 2, (2, 3, 4)).astype(np.float32) * 0.0
    floats[1, 2, 3] = np.nan
    program = core_program(AnyOf(), (torch.from_numpy(floats),))
    check_lowered(program, [torch.from_numpy(floats)])


class ValuesAndIndices(torch.nn.Module):
    def forward(self, x):
        values, indices = x.max(1)
        low, low_indices = x.min(2, keepdim=True)
        return values, indices, low, low_indices, x.argmax(), x.argmin(1), x.argmax(-1, keepdim=True)


def test_max_min_and_arg_give_the_first_index_and_nan_wins():
    text = check_dynamic(ValuesAndIndices(), with_ties_and_nans)
    assert "linalg.index" in text and "arith.select" in text


class Variances(torch.nn.Module):
    def forward(self, x):
        return (x.var(1), x.var((0, 2), correction=0, keepdim=True), x.var(-1, correction=2.5),
                torch.ops.aten.var.dim(x, [1], False, True), x.var(), *torch.var_mean(x, (0, 1), correction=0),
                *torch.var_mean(x, 2, keepdim=True))


def test_var_and_var_mean_with_corrections_and_keepdim():
    check_dynamic(Variances(), lambda b: tensor(b, 4, 5) * 3 + 1, batches=(4,))


class Softmaxes(torch.nn.Module):
    def forward(self, x):
        return x.softmax(-1), x.softmax(1), x.log_softmax(-1), x.log_softmax(0)


def test_softmax_and_log_softmax_subtract_the_max():
    def large(batch: int) -> torch.Tensor:
        values = RNG.standard_normal((batch, 4, 5)).astype(np.float32) * 30 + 200  # exp overflows unshifted
        values[0, 0, 0] = -np.inf
        return torch.from_numpy(values)

    check_dynamic(Softmaxes(), large)


class Cumsums(torch.nn.Module):
    def forward(self, x):
        return x.cumsum(0), x.cumsum(-1), x.cumsum(1), *x.cummax(1), *x.cummin(0)


def test_cumsum_cummax_cummin_along_the_dynamic_and_static_dims():
    def with_inf(batch: int) -> torch.Tensor:
        values = RNG.integers(-2, 3, (batch, 4, 5)).astype(np.float32)  # ties for cummax/cummin
        values[-1, 3, 4] = np.inf  # the last element: it must not reach the earlier sums
        values[0, 1, 2] = values[0, 3, 2] = np.nan  # cummax/cummin: the last nan's index stays
        return torch.from_numpy(values)

    text = check_dynamic(Cumsums(), with_inf)
    assert "arith.cmpi ule" in text


class Sorts(torch.nn.Module):
    def forward(self, x):
        ascending = x.sort(1)
        descending = x.sort(-1, descending=True)
        along_batch = torch.ops.aten.sort.stable(x, stable=True, dim=0)
        return (*ascending, *descending, *along_batch, *x.topk(2, dim=-1), *x.topk(3, largest=False),
                x.argsort(0, descending=True), x.median(), x.nanmedian(), *x.median(1), *x.nanmedian(1),
                *x.median(0, keepdim=True), *x.nanmedian(0, keepdim=True), *x.kthvalue(2, 1),
                *x.kthvalue(1, 0, keepdim=True))


def test_sort_topk_medians_kthvalue_are_stable_with_nan_largest():
    """Ties keep their order (descending too), a nan sorts above inf, -0.0 ties with 0.0;
    along the dynamic batch dim as well. At batch 2 row 0 holds nans beside inf and row 1
    is all nan: median takes the first nan, nanmedian the median of the numbers (of an
    all-nan row: its middle nan); at batch 5 there is none."""
    def ties(batch: int) -> torch.Tensor:
        values = RNG.integers(-2, 3, (batch, 5)).astype(np.float32)
        values[-1, 2] = -np.inf
        values[0, 4] = np.inf
        values[1, 0] = -0.0
        if batch == 2:
            values[0, 1] = values[0, 3] = np.nan
            values[1] = np.nan
        return torch.from_numpy(values)

    text = check_dynamic(Sorts(), ties)
    assert "arith.cmpf uno" in text and "tensor.collapse_shape" in text
    integers = torch.from_numpy(RNG.integers(-3, 3, (4, 5)).astype(np.int64))
    check_lowered(core_program(Sorts(), (integers,)), [integers])


class Searches(torch.nn.Module):
    def forward(self, x, bounds):
        rows = x.sort(-1)[0]  # a sorted row of boundaries per line
        return (torch.bucketize(x, bounds), torch.bucketize(x, bounds, right=True, out_int32=True),
                torch.searchsorted(bounds, x, side="right"), torch.searchsorted(rows, x),
                torch.searchsorted(rows, x, right=True), torch.bucketize(0.5, bounds))


def test_bucketize_and_searchsorted_count_the_boundaries_before():
    """1-d boundaries order a nan last (numpy's searchsorted); per-line rows compare plainly."""
    def with_nan(batch: int) -> torch.Tensor:
        values = RNG.integers(-3, 4, (batch, 6)).astype(np.float32)
        values[0, 1] = np.nan
        return torch.from_numpy(values)

    bounds = torch.from_numpy(np.array([-2, 0, 0, 1, 2.5, np.nan], np.float32))
    program = core_program(Searches(), (with_nan(3), bounds), dynamic_shapes={**BATCH, "bounds": None})
    check_lowered(program, [with_nan(4), bounds])


class UnsignedSearch(torch.nn.Module):
    def forward(self, x, bounds):
        return torch.bucketize(x, bounds), torch.bucketize(x, bounds, right=True)


def test_bucketize_widens_uint8_values_unsigned():
    """uint8 values against int64 boundaries: 200 is above 100, not -56 below it."""
    values = torch.from_numpy(np.array([[0, 99, 100, 127, 128, 200, 255]], np.uint8))
    bounds = torch.from_numpy(np.array([-60, 0, 100, 150, 254], np.int64))
    check_lowered(core_program(UnsignedSearch(), (values, bounds)), [values, bounds])


class OfAScalar(torch.nn.Module):
    def forward(self, x):
        return (x.sum(), x.mean(), x.amax(), x.softmax(0), x.log_softmax(0), x.cumsum(0), x.argmax(),
                *x.max(0), x.var(correction=0), x.sort()[0], x.median(), x.prod(), x.topk(1)[1])


def test_a_0_d_input_reduces_over_no_dim():
    """A 0-d tensor takes dim 0 / -1 and stays 0-d; its index is 0, its variance 0."""
    scalar = torch.from_numpy(np.array(2.5, np.float32))
    check_lowered(core_program(OfAScalar(), (scalar,)), [scalar])


class HalfReductions(torch.nn.Module):
    def forward(self, x):
        return x.sum(1), x.mean(), x.softmax(-1), x.log_softmax(-1), x.cumsum(1)


def test_float16_accumulates_in_float32_and_rounds_once():
    """1e-3: one float16 ulp (torch rounds once; IREE's exp and log may differ from numpy's
    in the last float32 bit, which can round the float16 result the other way)."""
    half = tensor(3, 4, 64, dtype=np.float16)
    text = check_lowered(core_program(HalfReductions(), (half,)), [half], rtol=1e-3, atol=1e-3)
    assert "arith.extf" in text and "arith.truncf" in text


# ---------------------------------------------------------------- norms


class LayerNorms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(4, 5))
        self.bias = torch.nn.Parameter(torch.randn(4, 5))

    def forward(self, x):
        out, mean, rstd = torch.ops.aten.native_layer_norm.default(x, [4, 5], self.weight, self.bias, 1e-5)
        plain = torch.ops.aten.native_layer_norm.default(x, [5], None, None, 1e-3)
        return out, mean, rstd, *plain


def test_native_layer_norm_out_mean_rstd_over_trailing_dims():
    check_dynamic(LayerNorms(), lambda b: tensor(b, 4, 5) * 2 + 1)


class GroupNorms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(6))
        self.bias = torch.nn.Parameter(torch.randn(6))

    def forward(self, x):
        n = x.shape[0]
        affine = torch.ops.aten.native_group_norm.default(x, self.weight, self.bias, n, 6, 12, 3, 1e-5)
        plain = torch.ops.aten.native_group_norm.default(x, None, None, n, 6, 12, 2, 1e-5)
        return *affine, *plain


def test_native_group_norm_out_and_per_group_statistics():
    check_dynamic(GroupNorms(), lambda b: tensor(b, 6, 3, 4))


class TrainingBatchNorm(torch.nn.Module):
    """The zoo's ConvBN without its convolution (another family's): batch norm training,
    so the core function also returns the running buffers and the batch count."""

    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(4)
        self.bn.running_mean.copy_(torch.randn(4))
        self.bn.running_var.copy_(torch.rand(4) + 0.5)

    def forward(self, x):
        return (self.bn(x),)


def test_training_batch_norm_updates_the_running_buffers():
    model = TrainingBatchNorm()
    program = core_program(model, (tensor(3, 4, 3, 3),), dynamic_shapes=BATCH)
    signature = [spec.kind.name for spec in program.graph_signature.output_specs]
    assert signature.count("BUFFER_MUTATION") == 3  # running mean, running var, batch count
    for batch in (2, 5):
        check_lowered(program, [tensor(batch, 4, 3, 3) * 2 + 1])


class BatchNormResults(torch.nn.Module):
    """Every result of the batch norm ops: saved statistics and updated running ones."""

    def forward(self, x, weight, running_mean, running_var):
        functional = torch.ops.aten._native_batch_norm_legit_functional.default(
            x, weight, None, running_mean, running_var, True, 0.3, 1e-5)
        no_stats = torch.ops.aten._native_batch_norm_legit.no_stats(x, None, weight, True, 0.1, 1e-3)
        evaluation = torch.ops.aten._native_batch_norm_legit_no_training.default(
            x, weight, weight, running_mean, running_var, 0.1, 1e-5)
        return *functional, *no_stats, *evaluation


def test_batch_norm_saved_statistics_running_updates_and_evaluation():
    inputs = [tensor(3, 4, 5), tensor(4), tensor(4), torch.from_numpy(RNG.random(4).astype(np.float32) + 0.5)]
    program = core_program(BatchNormResults(), tuple(inputs))
    check_lowered(program, inputs)


def test_batch_norm_of_one_value_per_channel_gives_a_nan_running_variance():
    """count 1: the unbiased variance is 0 / 0, as torch. atol 1e-4: the output is
    x * alpha + beta with beta = -x * alpha (alpha ~ 1/sqrt(eps) ~ 300), and LLVM
    contracts the two into an fma, which keeps the product's rounding error (~1e-5 of
    values ~100) where numpy's separate steps cancel to exactly 0."""
    inputs = [tensor(1, 4), tensor(4), tensor(4), torch.from_numpy(np.ones(4, np.float32))]
    program = core_program(BatchNormResults(), tuple(inputs))
    check_lowered(program, inputs, atol=1e-4)


def test_batch_norm_without_running_statistics():
    class Functional(torch.nn.Module):
        def forward(self, x):
            return F.batch_norm(x, None, None, training=True, momentum=0.2)

    program = core_program(Functional(), (tensor(3, 4, 2),), dynamic_shapes=BATCH)
    assert "_native_batch_norm_legit.no_stats" in program.mlir()
    check_lowered(program, [tensor(6, 4, 2)])


class VectorNorms(torch.nn.Module):
    def forward(self, x):
        return (torch.linalg.vector_norm(x), torch.linalg.vector_norm(x, 1, dim=1, keepdim=True),
                torch.linalg.vector_norm(x, float("inf"), dim=(0, 2)), torch.linalg.vector_norm(x, -float("inf"), dim=-1),
                torch.linalg.vector_norm(x, 0, dim=1), torch.linalg.vector_norm(x, 3, dim=-1),
                torch.dist(x, x.amax(0)), torch.dist(x, x.sum(1, keepdim=True), 3),
                torch.dist(x, x.amin(0, keepdim=True), float("inf")))


def test_vector_norms_of_every_order_kind_and_dist():
    """linalg_vector_norm and dist are kept in core (F.normalize, torch.norm, cdist-like code
    reach them); dist broadcasts its operands. rtol 1e-5 holds for pow: IREE's powf and
    numpy's agree to a few float32 ulps."""
    def with_zeros_and_nan(batch: int) -> torch.Tensor:
        values = RNG.standard_normal((batch, 4, 5)).astype(np.float32)
        values[0, 1] = 0.0  # a row of zeros: the 0-norm counts none of it
        values[-1, 2, 3] = np.nan
        return torch.from_numpy(values)

    check_dynamic(VectorNorms(), with_zeros_and_nan, batches=(4,))


class ReducedFloatNorms(torch.nn.Module):
    """The results whose dtype texport's shape rules and kernels agree on (see below)."""

    def forward(self, x, weight, running_mean, running_var):
        training = torch.ops.aten._native_batch_norm_legit_functional.default(
            x, weight, weight, running_mean, running_var, True, 0.1, 1e-5)
        return (*training[:3],
                *torch.ops.aten._native_batch_norm_legit_no_training.default(
                    x, weight, None, running_mean, running_var, 0.1, 1e-5)[:1],
                *torch.ops.aten.native_layer_norm.default(x, [5], None, None, 1e-5),
                *torch.ops.aten.native_group_norm.default(x, weight, None, 8, 4, 5, 2, 1e-5),
                x.log_softmax(-1), x.var(1))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_reduced_floats_round_where_torch_rounds(dtype):
    """float16/bfloat16: float32 arithmetic, rounded where torch's kernels round (batch norm's
    saved statistics; bfloat16 every statistic; log_softmax's sum on the last dim). At most
    2% of the elements may differ, by one unit in the last place (a float32 sum in another
    order can round the other way); a missed rounding step moved ~30% of them."""
    inputs = [torch.randn(8, 4, 5).to(dtype) * 3 + 1, torch.randn(4).to(dtype), torch.randn(4).to(dtype),
              (torch.randn(4).abs() + 0.5).to(dtype)]
    program = core_program(ReducedFloatNorms(), tuple(inputs))
    arrays = [np.asarray(getattr(x, "_value", x)) for x in function_inputs(program, inputs)]
    want = interpreter_outputs(program, arrays)
    got = compile_and_run(lower_to_linalg_text(program.graph_module.module), arrays)
    for position, (w, g) in enumerate(zip(want, got, strict=True)):
        assert g.dtype == w.dtype and g.shape == w.shape, f"result #{position}"
        w32, g32 = w.astype(np.float32), g.astype(np.float32)
        ulp = np.abs(np.spacing(w.astype(np.float16 if dtype is torch.float16 else np.float32)).astype(np.float32))
        if dtype is torch.bfloat16:
            # a result that cancels to (near) zero keeps float32's error at the operands'
            # scale: the lowered batch norm folds (x - mean) * scale into x * scale - shift
            ulp = np.abs(w32) * 2.0 ** -7 + np.abs(w32).max(initial=0) * 2.0 ** -20 + 1e-38
        differ = w32 != g32
        assert differ.mean() <= 0.02, f"result #{position}: {differ.sum()} of {w.size} elements differ"
        assert np.all(np.abs(w32 - g32)[differ] <= ulp[differ] * 1.01), f"result #{position}"
