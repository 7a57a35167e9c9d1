"""The fast paths of scaled_dot_product_attention (its softmax without the check for all -inf
rows, the transposed row maximum, grouped-query heads as views) give bit for bit what the
general paths give."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kernel_checks import normal_sampler, run, warnings_are_errors  # noqa: F401 - the fixture

from texport.interpreter.kernels import linalg

f32, f64 = np.float32, np.float64
RNG = np.random.default_rng(11)
rand = normal_sampler(RNG)
pytestmark = pytest.mark.usefixtures("warnings_are_errors")  # torch gives inf and nan silently


def same(actual: np.ndarray, expected: np.ndarray) -> None:
    """Equal bit for bit (NaN where NaN), with the same dtype and shape."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


def _scores(rows: int, columns: int, dtype: Any) -> np.ndarray:
    """Scores with an all -inf row, -inf entries, a NaN row, +inf and a +-0 row."""
    x = rand(rows, columns, dtype=dtype, scale=5)
    x[0] = -np.inf
    x[1, ::2] = -np.inf
    if rows > 3:
        x[2, 0] = np.nan
        x[3, -1] = np.inf
    if rows > 4:
        x[4] = -0.0
    return x


SOFTMAX_SHAPES = [(3, 4), (8, 8), (24, 6), (40, 5), (64, 8), (136, 17), (32, 32), (64, 33), (72, 36), (300, 7)]


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("rows, columns", SOFTMAX_SHAPES)
def test_attention_softmax_is_the_checked_softmax(dtype: Any, rows: int, columns: int) -> None:
    """The shifted-bounds softmax (no check for all -inf rows) against the one that finds
    and zeroes them: the same bits, NaN rows and all."""
    scores = _scores(rows, columns, dtype)
    with np.errstate(all="ignore"):  # the kernel runs them quiet
        expected = linalg._safe_softmax_checked(scores.copy())
        same(linalg._safe_softmax(scores.copy()), expected)
    np.testing.assert_array_equal(expected[0], 0)
    if rows > 3:
        assert np.isnan(expected[2]).all()


@pytest.mark.parametrize("rows, columns", SOFTMAX_SHAPES)
def test_transposed_row_maximum_is_the_row_reduction(monkeypatch: pytest.MonkeyPatch, rows: int,
                                                     columns: int) -> None:
    scores = _scores(rows, columns, f32).reshape(1, rows, columns)
    results = []
    for threshold in (0, 10 ** 9):  # every input transposed, then none
        monkeypatch.setattr(linalg, "_TRANSPOSED_ROWS", threshold)
        monkeypatch.setattr(linalg, "_TRANSPOSED_COLUMNS", 10 ** 9 - threshold)
        with np.errstate(all="ignore"):  # the kernel runs it quiet
            results.append(linalg._safe_softmax(scores.copy()))
    same(results[0], results[1])


def _attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None,
               causal: bool = False, scale: float | None = None, gqa: bool = False) -> np.ndarray:
    return run("scaled_dot_product_attention", q, k, v, mask, 0.0, causal, scale=scale, enable_gqa=gqa)


@pytest.mark.parametrize("dtype", [f32, f64, np.float16])
@pytest.mark.parametrize("case", ["plain", "causal", "bool mask", "float mask", "full mask", "kv batch 1"])
def test_grouped_query_attention_is_attention_of_repeated_heads(dtype: Any, case: str) -> None:
    q, k, v = rand(2, 6, 5, 8, dtype=dtype), rand(2, 2, 7, 8, dtype=dtype), rand(2, 2, 7, 3, dtype=dtype)
    mask, causal = None, False
    if case == "causal":
        causal = True
    elif case == "bool mask":
        mask = RNG.random((2, 1, 5, 7)) > 0.4
        mask[0, 0, 1] = False  # a fully masked row
    elif case == "float mask":
        mask = rand(5, 7, dtype=dtype)
    elif case == "full mask":  # one per query head
        mask = rand(2, 6, 5, 7, dtype=dtype)
    elif case == "kv batch 1":
        k, v = k[:1], v[:1]
    grouped = _attention(q, k, v, mask, causal, 0.7, True)
    repeated = _attention(q, np.repeat(k, 3, axis=-3), np.repeat(v, 3, axis=-3), mask, causal, 0.7)
    same(grouped, repeated)


def test_grouped_query_attention_of_three_dims_and_uneven_heads() -> None:
    q, k = rand(4, 3, 8), rand(2, 5, 8)
    same(_attention(q, k, k, gqa=True),
         _attention(q, np.repeat(k, 2, axis=0), np.repeat(k, 2, axis=0)))
    uneven = rand(2, 3, 4, 8)  # 3 query heads over 2: the repeat path, numpy's error
    with pytest.raises(ValueError):
        _attention(uneven, rand(2, 2, 4, 8), rand(2, 2, 4, 8), gqa=True)


@pytest.mark.parametrize("dtype", [f32, f64])
def test_attention_with_infinite_scores_is_silent(dtype: Any) -> None:
    q = rand(2, 2, 6, 4, dtype=dtype)
    k = q.copy()
    k[0, 0, 0] = np.inf  # +inf and -inf scores: NaN rows, as torch, and no warning
    keep = np.ones((6, 6), bool)
    keep[2] = False
    out = _attention(q, k, q, keep)
    assert np.isnan(out[0, 0]).any()
    np.testing.assert_array_equal(out[1, :, 2], 0)


def _projected(order: tuple[int, int, int], batch: int, heads: int, length: int, embed: int,
               dtype: Any = f32) -> list[np.ndarray]:
    """q, k, v as [B, H, L, E] views of one projection laid out with B, H, L in ``order``
    and q, k, v side by side in its last dim (heads split off a packed projection)."""
    sizes = (batch, heads, length)
    packed = rand(*(sizes[d] for d in order), 3 * embed, dtype=dtype)
    back = tuple(order.index(d) for d in range(3))
    return [packed[..., i * embed:(i + 1) * embed].transpose(*back, 3) for i in range(3)]


ORDERS = [(0, 2, 1), (2, 0, 1), (0, 1, 2), (1, 0, 2), (1, 2, 0), (2, 1, 0)]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("case", ["plain", "causal", "bool mask", "grouped", "dense query"])
@pytest.mark.parametrize("dtype", [f32, f64])
def test_result_written_in_the_query_order_is_the_laid_out_result(monkeypatch: pytest.MonkeyPatch,
                                                                  order: tuple[int, int, int], case: str,
                                                                  dtype: Any) -> None:
    """Where torch lays the result out as the query (its CPU flash attention), the kernel
    writes it so: the values and strides the layout step gives the row-major product, and
    nothing left for that step to do."""
    q, k, v = _projected(order, 2, 4, 5, 8, dtype)
    mask, causal, gqa = None, case == "causal", case == "grouped"
    if case == "bool mask":
        mask = RNG.random((2, 1, 5, 5)) > 0.3
    elif case == "grouped":
        k, v = k[:, ::2], v[:, 1::2]
    elif case == "dense query":
        q = np.ascontiguousarray(q.transpose(*order, 3)).transpose(*(order.index(d) for d in range(3)), 3)
    fast = _attention(q, k, v, mask, causal, None, gqa)
    raw = linalg.scaled_dot_product_attention(q, k, v, mask, 0.0, causal, None, gqa)
    monkeypatch.setattr(linalg, "_query_order", lambda *_: None)
    general = _attention(q, k, v, mask, causal, None, gqa)
    same(fast, general)
    assert fast.strides == general.strides == raw.strides
    if order != (0, 1, 2):  # the layout step re-lays the row-major product, not this one
        assert not general.flags.c_contiguous


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("batch, heads, length, embed", [(1, 4, 5, 8), (2, 4, 1, 8), (1, 4, 1, 8), (2, 4, 3, 1)])
@pytest.mark.parametrize("gqa", [False, True])
def test_size_one_dims_keep_the_strides_of_the_general_path(monkeypatch: pytest.MonkeyPatch,
                                                            order: tuple[int, int, int], batch: int, heads: int,
                                                            length: int, embed: int, gqa: bool) -> None:
    """A result's size-1 dims keep the strides numpy's products gave them before (the
    layout step leaves those alone): the fast paths stand aside."""
    q, k, v = _projected(order, batch, heads, length, embed)
    if gqa:
        k, v = k[:, ::2], v[:, 1::2]
    fast = _attention(q, k, v, None, True, None, gqa)
    monkeypatch.setattr(linalg, "_query_order", lambda *_: None)
    monkeypatch.setattr(linalg, "_query_groups", lambda *_: 0)
    general = _attention(q, k, v, None, True, None, gqa)
    same(fast, general)
    assert fast.strides == general.strides
