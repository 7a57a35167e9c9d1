"""numpy kernels of the 3-d and nearest-exact resamplers, uint8 interpolation,
adaptive 3-d max pooling and 1-d max pooling with indices, each against an
independent reference: a direct loop on a tiny input, a hand-computed index rule,
or a function linear interpolation must reproduce exactly.

Every call goes through kernel_checks.run, which also checks the op's shape rule."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kernel_checks import run

RNG = np.random.default_rng(0)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


# ------------------------------------------------------------- pooling


def test_max_pool1d_with_indices_matches_loop() -> None:
    x = rand(2, 3, 9)
    values, indices = run("max_pool1d_with_indices", x, [3], [2], [1])
    padded = np.pad(x, [(0, 0), (0, 0), (1, 1)], constant_values=-np.inf)
    for o in range(values.shape[-1]):
        window = padded[..., 2 * o:2 * o + 3]
        np.testing.assert_array_equal(values[..., o], window.max(-1))
        np.testing.assert_array_equal(indices[..., o], 2 * o + window.argmax(-1) - 1)


def test_adaptive_max_pool3d_matches_loop() -> None:
    x = rand(2, 5, 6, 7)
    sizes = [3, 4, 2]
    values, indices = run("adaptive_max_pool3d", x, sizes)
    dims = x.shape[1:]
    for o in itertools.product(*map(range, sizes)):
        box = tuple(slice(i * n // s, -(-(i + 1) * n // s)) for i, n, s in zip(o, dims, sizes))
        window = x[(slice(None), *box)].reshape(2, -1)
        np.testing.assert_array_equal(values[(slice(None), *o)], window.max(-1))
    flat = np.take_along_axis(x.reshape(2, -1), indices.reshape(2, -1), 1)
    np.testing.assert_array_equal(flat, values.reshape(2, -1))


# ------------------------------------------------------------- nearest


def test_nearest_exact_index_rule() -> None:
    x = np.arange(4.0).reshape(1, 1, 4)
    # in 4 -> out 7: floor((i + 0.5) * 4/7) = 0, 0, 1, 2, 2, 3, 3
    np.testing.assert_array_equal(run("_upsample_nearest_exact1d", x, [7]), [[[0, 0, 1, 2, 2, 3, 3]]])
    # in 4 -> out 3: floor((i + 0.5) * 4/3) = 0, 2, 3 (plain nearest gives 0, 1, 2)
    np.testing.assert_array_equal(run("_upsample_nearest_exact1d.vec", x, [3], None), [[[0, 2, 3]]])
    np.testing.assert_array_equal(run("upsample_nearest1d", x, [3]), [[[0, 1, 2]]])
    # an explicit scale: floor((i + 0.5) / 2) for 8 outputs
    np.testing.assert_array_equal(run("_upsample_nearest_exact1d.vec", x, None, [2.0]),
                                  [[np.repeat(np.arange(4.0), 2)]])


def test_nearest3d_forms_are_separable_index_rules() -> None:
    x = rand(1, 2, 3, 4, 5)
    rows = [np.floor(np.arange(o) * n / o).astype(int) for n, o in zip((3, 4, 5), (5, 8, 3))]
    expected = x[:, :, rows[0]][:, :, :, rows[1]][..., rows[2]]
    np.testing.assert_array_equal(run("upsample_nearest3d", x, [5, 8, 3]), expected)
    np.testing.assert_array_equal(run("upsample_nearest3d.vec", x, [5, 8, 3], None), expected)
    exact = [np.minimum(np.floor((np.arange(o) + 0.5) * n / o), n - 1).astype(int)
             for n, o in zip((3, 4, 5), (2, 7, 9))]
    np.testing.assert_array_equal(run("_upsample_nearest_exact3d", x, [2, 7, 9]),
                                  x[:, :, exact[0]][:, :, :, exact[1]][..., exact[2]])
    np.testing.assert_array_equal(run("_upsample_nearest_exact2d.vec", x[:, :, 0], [7, 9], None),
                                  x[:, :, 0][:, :, exact[1]][..., exact[2]])


# ------------------------------------------------------------- linear


def _linear_field(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """x[d, h, w] = 2d - 3h + 0.5w + 1: linear interpolation reproduces it exactly."""
    coeffs = np.array([2.0, -3.0, 0.5])
    grid = np.stack(np.meshgrid(*map(np.arange, shape), indexing="ij"), -1)
    return (grid @ coeffs + 1)[None, None], coeffs


@pytest.mark.parametrize("align_corners", [False, True])
def test_trilinear_reproduces_a_linear_field(align_corners: bool) -> None:
    shape, out = (3, 4, 5), (5, 7, 2)
    x, coeffs = _linear_field(shape)
    sources = []
    for n, o in zip(shape, out):
        i = np.arange(o, dtype=np.float64)
        src = i * (n - 1) / (o - 1) if align_corners else (i + 0.5) * n / o - 0.5
        sources.append(np.clip(src, 0, n - 1))  # torch clamps below at 0; the top index saturates
    grid = np.stack(np.meshgrid(*sources, indexing="ij"), -1)
    expected = (grid @ coeffs + 1)[None, None]
    np.testing.assert_allclose(run("upsample_trilinear3d", x, list(out), align_corners), expected, atol=1e-12)
    np.testing.assert_allclose(run("upsample_trilinear3d.vec", x, list(out), align_corners, None), expected,
                               atol=1e-12)


def test_linear1d_sized_form_uses_its_scale() -> None:
    x = np.arange(4.0).reshape(1, 1, 4)
    # scale 2 -> source (i + 0.5)/2 - 0.5 clamped at 0, the last tap saturated at 3
    expected = np.clip((np.arange(8) + 0.5) / 2 - 0.5, 0, 3)
    np.testing.assert_allclose(run("upsample_linear1d", x, [8], False, 2.0), [[expected]])



def test_remembered_taps_serve_each_size_and_dtype_apart() -> None:
    """The taps are remembered per sizes and dtype: a second size, the first again,
    float32 after float64, and an output written by the caller all leave later calls
    exact (a shared or writable taps array would carry one call into the next)."""
    x = np.arange(4.0).reshape(1, 1, 4)
    for size in (8, 6, 8):
        expected = np.clip((np.arange(size) + 0.5) * 4 / size - 0.5, 0, 3)
        out = run("upsample_linear1d", x, [size], False)
        np.testing.assert_allclose(out, [[expected]], atol=1e-12)
        out[...] = -1  # the caller owns its result
        single = run("upsample_linear1d", x.astype(np.float32), [size], False)
        assert single.dtype == np.float32
        np.testing.assert_allclose(single, [[expected]], atol=1e-6)
    nearest = run("upsample_nearest1d", x, [6])
    nearest[...] = -1
    np.testing.assert_array_equal(run("upsample_nearest1d", x, [6]), [[[0, 0, 1, 2, 2, 3]]])

# ------------------------------------------------------------- uint8


def test_uint8_bilinear_rounds_each_pass_hand_computed() -> None:
    x = (np.arange(16).reshape(1, 1, 4, 4) * 15).astype(np.uint8)
    out = run("upsample_bilinear2d.vec", x, [7, 7], False, None)
    assert out.dtype == np.uint8
    # row 0 along W: 15·0.357 = 5.36 -> 5; row 1 along H from the rounded rows 5 and 65:
    # 5 + 60·0.357 = 26.4 -> 26 (one float pass would give 26.8 -> 27)
    np.testing.assert_array_equal(out[0, 0, :2], [[0, 5, 14, 23, 31, 40, 45], [21, 26, 35, 44, 52, 61, 66]])
    np.testing.assert_array_equal(out[0, 0, -1], [180, 185, 194, 203, 211, 220, 225])


def test_uint8_interpolation_stays_in_range() -> None:
    x = np.zeros((1, 1, 4, 4), np.uint8)
    x[..., 1::2, :] = 255  # bicubic overshoots on stripes: torch saturates to [0, 255]
    out = run("upsample_bicubic2d.vec", x, [9, 9], False, None).astype(int)
    assert out.min() == 0 and out.max() == 255
    low = run("upsample_bilinear2d", np.full((1, 1, 3, 3), 250, np.uint8), [5, 5], True)
    np.testing.assert_array_equal(low, 250)


# ------------------------------------------------------------- unpooling


def test_max_unpool_scatters_to_indices_and_zeros_elsewhere() -> None:
    x = np.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    indices = np.array([[[[0, 3], [9, 14]]]])
    out = run("max_unpool2d", x, indices, [4, 4])
    expected = np.zeros(16)
    expected[[0, 3, 9, 14]] = [1, 2, 3, 4]
    np.testing.assert_array_equal(out, expected.reshape(1, 1, 4, 4))
    out3 = run("max_unpool3d", x[:, :, None], indices[:, :, None], [1, 4, 4], [1, 2, 2], [0, 0, 0])
    np.testing.assert_array_equal(out3, expected.reshape(1, 1, 1, 4, 4))


def test_max_unpool_inverts_max_pool_on_its_maxima() -> None:
    x = rand(2, 3, 6, 8)
    values, indices = run("max_pool2d_with_indices", x, [2, 2], [2, 2])
    out = run("max_unpool2d", values, indices, [6, 8])
    kept = out != 0
    np.testing.assert_array_equal(out[kept], x[kept])
    assert kept.sum() == values.size


def test_max_unpool_rejects_an_index_outside_the_plane() -> None:
    with pytest.raises(IndexError, match="invalid max index 16"):
        run("max_unpool2d", np.ones((1, 1, 1, 1)), np.array([[[[16]]]]), [4, 4])


# ------------------------------------------------------------- grid sampling


def _trilinear_at(x: np.ndarray, z: float, y: float, xx: float) -> np.ndarray:
    """Scalar trilinear read of x [C, D, H, W] at pixel coordinates, zeros outside."""
    total = np.zeros(x.shape[0])
    z0, y0, x0 = int(np.floor(z)), int(np.floor(y)), int(np.floor(xx))
    for dz, dy, dx in itertools.product((0, 1), repeat=3):
        k, j, i = z0 + dz, y0 + dy, x0 + dx
        if 0 <= k < x.shape[1] and 0 <= j < x.shape[2] and 0 <= i < x.shape[3]:
            w = (1 - abs(z - k)) * (1 - abs(y - j)) * (1 - abs(xx - i))
            total += w * x[:, k, j, i]
    return total


@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sampler_3d_bilinear_matches_scalar_reference(align_corners: bool) -> None:
    x = rand(2, 3, 3, 4, 5)
    grid = RNG.uniform(-1.2, 1.2, (2, 2, 3, 2, 3))
    out = run("grid_sampler_3d", x, grid, 0, 0, align_corners)
    sizes = np.array([5, 4, 3])  # grid's (x, y, z) index W, H, D
    for n, *p in itertools.product(range(2), range(2), range(3), range(2)):
        g = grid[(n, *p)]
        pix = (g + 1) / 2 * (sizes - 1) if align_corners else ((g + 1) * sizes - 1) / 2
        np.testing.assert_allclose(out[(n, slice(None), *p)], _trilinear_at(x[n], pix[2], pix[1], pix[0]),
                                   atol=1e-12)


def test_grid_sampler_dispatches_on_rank() -> None:
    x, grid = rand(1, 2, 3, 4), RNG.uniform(-1, 1, (1, 2, 2, 2))
    np.testing.assert_array_equal(run("grid_sampler", x, grid, 1, 1, False),
                                  run("grid_sampler_2d", x, grid, 1, 1, False))


def test_affine_grid_generator_hand_computed() -> None:
    theta = np.array([[[2.0, 0.0, 0.5], [0.0, -1.0, 0.0]]])
    grid = run("affine_grid_generator", theta, [1, 1, 2, 3], True)
    # corners-aligned centres: x in (-1, 0, 1), y in (-1, 1); (x, y) -> (2x + 0.5, -y)
    expected = [[[[-1.5, 1], [0.5, 1], [2.5, 1]], [[-1.5, -1], [0.5, -1], [2.5, -1]]]]
    np.testing.assert_allclose(grid, expected)
    unaligned = run("affine_grid_generator", np.eye(3, 4)[None], [1, 1, 1, 2, 4], False)
    # identity in 3-d: (x, y, z) at half-pixel centres, z of a single slice is 0
    np.testing.assert_allclose(unaligned[0, 0, 1, :, 0], [-0.75, -0.25, 0.25, 0.75])
    np.testing.assert_allclose(unaligned[0, 0, :, 0, 1], [-0.5, 0.5])
    np.testing.assert_allclose(unaligned[..., 2], 0)


# ------------------------------------------------------------- fractional max pooling


def _intervals(u: float, size: int, out: int, pool: int) -> list[int]:
    """torch's generate_intervals, one window at a time in float32."""
    alpha = np.float32(size - pool) / np.float32(out - 1)
    starts = [int(np.float32(i + np.float32(u)) * alpha) - int(np.float32(u) * alpha) for i in range(out)]
    return starts[:-1] + [size - pool]


def test_fractional_max_pool2d_matches_loop() -> None:
    x = rand(2, 3, 9, 10).astype(np.float32)
    samples = RNG.random((2, 3, 2)).astype(np.float32)
    values, indices = run("fractional_max_pool2d", x, [2, 3], [4, 5], samples)
    for n, c in itertools.product(range(2), range(3)):
        cols = _intervals(samples[n, c, 0], 10, 5, 3)  # sample 0 drives the width
        rows = _intervals(samples[n, c, 1], 9, 4, 2)
        for (i, r), (j, q) in itertools.product(enumerate(rows), enumerate(cols)):
            window = x[n, c, r:r + 2, q:q + 3]
            a, b = np.unravel_index(window.argmax(), window.shape)
            assert values[n, c, i, j] == window.max()
            assert indices[n, c, i, j] == (r + a) * 10 + q + b


def test_fractional_max_pool3d_samples_drive_time_height_width() -> None:
    x = rand(1, 2, 6, 7, 8).astype(np.float32)
    samples = RNG.random((1, 2, 3)).astype(np.float32)
    values, indices = run("fractional_max_pool3d", x, [2, 2, 2], [3, 4, 5], samples)
    for c in range(2):
        starts = [_intervals(samples[0, c, a], size, out, 2) for a, (size, out) in enumerate(zip((6, 7, 8), (3, 4, 5)))]
        for o in itertools.product(range(3), range(4), range(5)):
            box = tuple(slice(s[i], s[i] + 2) for s, i in zip(starts, o))
            assert values[(0, c, *o)] == x[(0, c, *box)].max()
    flat = np.take_along_axis(x.reshape(1, 2, -1), indices.reshape(1, 2, -1), 2)
    np.testing.assert_array_equal(flat, values.reshape(1, 2, -1))


# ------------------------------------------------------------- integer average pooling


@pytest.mark.parametrize("divisor", [3, -3, -1])
def test_integer_avg_pool_truncates_toward_zero(divisor: int) -> None:
    x = np.array([[[[7, -7], [0, 0]], [[5, 0], [-4, 0]]]], dtype=np.int64)
    # window sums 0 and 1, then 7 - 7 + 0 + 0 = 0 and 5 - 4 = 1; as C++ integer division
    totals = np.array([0, 1])
    expected = (np.trunc(totals / divisor)).astype(np.int64).reshape(1, 2, 1, 1)
    np.testing.assert_array_equal(run("avg_pool2d", x, [2, 2], [], 0, False, True, divisor), expected)
    cube = np.full((1, 1, 2, 2, 2), 2, np.int64)  # sum 16: 16 / -3 = -5.33 -> -5 (floor would give -6)
    np.testing.assert_array_equal(run("avg_pool3d", cube, [2, 2, 2], [], 0, False, True, divisor),
                                  np.full((1, 1, 1, 1, 1), int(np.trunc(16 / divisor))))


def test_grid_sampler_locates_float16_taps_in_half_precision() -> None:
    # x = -0.2001953125 (exact in float16): ((x + 1)·5 - 1)/2 is 1.49951… in float32 but rounds to 1.5 in
    # float16, and nearest then rounds half to even: column 2, not 1
    image = np.arange(5, dtype=np.float16).reshape(1, 1, 1, 5)
    grid = np.array([[[[-0.2001953125, 0.0]]]], dtype=np.float16)
    assert run("grid_sampler_2d", image, grid, 1, 0, False).item() == 2.0
