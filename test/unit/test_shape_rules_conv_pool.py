"""Shape rules for convolution, pooling, upsampling, grid sampling, padding and
pixel shuffle. Expected sizes are computed by hand from torch's formulas."""

from __future__ import annotations

import re
from typing import Any

import pytest
import sympy
from shape_rule_checks import HintOracle, t

import texport.dialects.op_table  # noqa: F401 - registers the schemas infer() binds against
from texport.dialects.dtypes import DType
from texport.dialects.meta import TensorMeta
from texport.dialects.registry import OPS
from texport.dialects.shape_rules import SHAPE_RULES
from texport.dialects.shape_rules.guards import ShapeGuardError, using_oracle
from texport.dialects.shape_rules.infer import infer
from texport.dialects.symbolic import FloorDiv, dim_str, parse_dim, symbol

F32, F64, I64 = DType.float32, DType.float64, DType.int64
s0, s1 = symbol("s0"), symbol("s1")


def run(op: str, *args: Any, **kwargs: Any) -> Any:
    """Bind by schema when the op is in the table; otherwise the test passes every
    argument, so calling the rule directly is the same call."""
    if op in OPS:
        return infer(op, *args, **kwargs)
    return SHAPE_RULES[op](*args, **kwargs)


def dims(meta: TensorMeta) -> list[str]:
    return [dim_str(d) for d in meta.shape]


def fails(message: str, op: str, *args: Any, **kwargs: Any) -> None:
    """The rule raises ShapeGuardError with exactly this message."""
    with pytest.raises(ShapeGuardError, match=f"^{re.escape(message)}$"):
        run(op, *args, **kwargs)


# ------------------------------------------------------------ convolution


def test_seed_model_conv() -> None:
    x, w, b = t(1, 1, 3, 3), t(3, 1, 1, 1), t(3)
    out = run("convolution", x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    assert out == t(1, 3, 3, 3)
    assert run("conv2d", x, w, b) == t(1, 3, 3, 3)


def test_resnet_stem_conv_and_maxpool() -> None:
    stem = run("conv2d", t(1, 3, 224, 224), t(64, 3, 7, 7), None, [2, 2], [3, 3])
    assert stem == t(1, 64, 112, 112)
    values, indices = run("max_pool2d_with_indices", stem, [3, 3], [2, 2], [1, 1])
    assert values == t(1, 64, 56, 56)
    assert indices == t(1, 64, 56, 56, dtype=I64)
    assert run("max_pool2d", stem, [3, 3], [2, 2], [1, 1]) == t(1, 64, 56, 56)


def test_conv_dilation_groups_and_dtype() -> None:
    # 10 + 0 - 2*(3-1) - 1 + 1 = 6
    assert run("conv2d", t(1, 4, 10, 10, dtype=F64), t(8, 4, 3, 3, dtype=F64), None, 1, 0, 2) == t(
        1, 8, 6, 6, dtype=F64
    )
    depthwise = run("conv2d", t(2, 32, 9, 9), t(32, 1, 3, 3), None, 1, 1, 1, 32)
    assert depthwise == t(2, 32, 9, 9)
    grouped = run("conv2d", t(2, 32, 9, 9), t(64, 16, 3, 3), None, 2, 1, 1, 2)
    assert grouped == t(2, 64, 5, 5)


def test_int_and_single_element_lists_expand() -> None:
    by_int = run("conv2d", t(1, 3, 32, 32), t(8, 3, 3, 3), None, 2, 1)
    by_list = run("conv2d", t(1, 3, 32, 32), t(8, 3, 3, 3), None, [2], [1])
    assert by_int == by_list == t(1, 8, 16, 16)
    rect = run("convolution", t(1, 3, 32, 16), t(8, 3, 3, 1), None, [2, 1], [1], [1], False, [0], 1)
    assert rect == t(1, 8, 16, 18)  # H: (32+2-2-1)//2+1, W: 16+2-0-1+1


def test_conv1d_conv3d_and_unbatched() -> None:
    assert run("conv1d", t(4, 3, 20), t(6, 3, 5), None, 3) == t(4, 6, 6)  # (20-5)//3+1
    assert run("conv3d", t(1, 2, 8, 8, 8), t(4, 2, 3, 3, 3), None, 1, 1) == t(1, 4, 8, 8, 8)
    assert run("conv2d", t(3, 5, 5), t(4, 3, 3, 3)) == t(4, 3, 3)
    assert run("conv1d", t(3, 20), t(6, 3, 5)) == t(6, 16)


def test_conv_padding_same_and_valid() -> None:
    x = t(1, 2, 5, 7)
    assert run("conv2d.padding", x, t(4, 2, 3, 3), None, 1, "same") == t(1, 4, 5, 7)
    # even kernel: total pad 3 is odd, torch pads one extra on the right
    assert run("conv2d.padding", x, t(4, 2, 4, 2), None, 1, "same") == t(1, 4, 5, 7)
    assert run("conv2d.padding", x, t(4, 2, 3, 3), None, 1, "same", 2) == t(1, 4, 5, 7)
    assert run("conv2d.padding", x, t(4, 2, 3, 3), None, 1, "valid") == t(1, 4, 3, 5)
    sym = run("conv1d.padding", t(1, 2, s0), t(4, 2, 4), None, 1, "same")
    assert dims(sym) == ["1", "4", "s0"]


def test_conv_transpose_sizes() -> None:
    # (4-1)*2 - 2*1 + 1*(3-1) + 1 + 1 = 8; channels = weight.shape[1] * groups
    out = run("conv_transpose2d.input", t(1, 16, 4, 4), t(16, 8, 3, 3), None, 2, 1, 1, 2)
    assert out == t(1, 16, 8, 8)
    assert run("conv_transpose1d", t(2, 4, 10), t(4, 3, 4), None, 2) == t(2, 3, 22)
    out3 = run(
        "conv_transpose3d.input", t(1, 4, 2, 3, 4), t(4, 2, 2, 2, 2), None, 2, 0, 0, 1, 1
    )
    assert out3 == t(1, 2, 4, 6, 8)
    core = run("convolution", t(1, 4, 5, 5), t(4, 6, 3, 3), t(6), [1], [0], [2], True, [0], 1)
    assert core == t(1, 6, 9, 9)  # 4 + 2*2 + 1


def test_symbolic_conv_keeps_floor_division() -> None:
    x = t(s0, 3, s1, s1)
    stem = run("conv2d", x, t(64, 3, 7, 7), None, 2, 3)
    assert dims(stem) == ["s0", "64", "((s1 - 1)//2) + 1", "((s1 - 1)//2) + 1"]
    unpadded = run("conv2d", x, t(8, 3, 3, 3), None, 2)
    assert dims(unpadded) == ["s0", "8", "((s1 - 3)//2) + 1", "((s1 - 3)//2) + 1"]
    assert parse_dim(dims(unpadded)[2]) == unpadded.shape[2]


def test_symbolic_conv_stride_one_stays_linear() -> None:
    out = run("conv2d", t(s0, 3, s1, s1), t(8, 3, 3, 3))
    assert dims(out) == ["s0", "8", "s1 - 2", "s1 - 2"]
    transposed = run("conv_transpose2d.input", t(s0, 8, s1, s1), t(8, 3, 3, 3), None, 2, 1)
    assert dims(transposed)[2] == "2*s1 - 1"


def test_symbolic_kernel_fit_is_a_guard() -> None:
    oracle = HintOracle(s1=2)
    with using_oracle(oracle):
        with pytest.raises(ShapeGuardError, match="Kernel size can't be greater"):
            run("conv2d", t(1, 3, s1, 9), t(8, 3, 3, 3))
    assert sympy.Le(3, s1) in oracle.asked


def test_conv_channel_errors() -> None:
    fails(
        "Given groups=1, weight of size [3, 1, 1, 1], expected input[1, 2, 3, 3] to have 1 "
        "channels, but got 2 channels instead",
        "conv2d", t(1, 2, 3, 3), t(3, 1, 1, 1),
    )
    fails(
        "Given transposed=1, weight of size [4, 2, 3, 3], expected input[1, 3, 5, 5] to have 4 "
        "channels, but got 3 channels instead",
        "conv_transpose2d.input", t(1, 3, 5, 5), t(4, 2, 3, 3),
    )
    fails(
        "Given weight of size [3, 1, 1, 1], expected bias to be 1-dimensional with 3 elements, "
        "but got bias of size [4] instead",
        "conv2d", t(1, 1, 3, 3), t(3, 1, 1, 1), t(4),
    )
    fails(
        "Given transposed=1, weight of size [4, 2, 3, 3], expected bias to be 1-dimensional with "
        "4 elements, but got bias of size [2] instead",
        "conv_transpose2d.input", t(1, 4, 5, 5), t(4, 2, 3, 3), t(2), 1, 0, 0, 2,
    )


def test_conv_weight_and_group_errors() -> None:
    fails(
        "Expected 4-dimensional input for 4-dimensional weight [3, 1, 1, 1], but got "
        "5-dimensional input of size [1, 1, 1, 3, 3] instead",
        "convolution", t(1, 1, 1, 3, 3), t(3, 1, 1, 1), None, [1], [0], [1], False, [0], 1,
    )
    fails(
        "weight should have at least three dimensions",
        "convolution", t(1, 3), t(3, 3), None, [1], [0], [1], False, [0], 1,
    )
    fails(
        "Given groups=4, expected weight to be at least 4 at dimension 0, but got weight of "
        "size [2, 1, 3, 3] instead",
        "conv2d", t(1, 4, 5, 5), t(2, 1, 3, 3), None, 1, 0, 1, 4,
    )
    fails(
        "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of "
        "size [3, 2, 3, 3] instead",
        "conv2d", t(1, 4, 5, 5), t(3, 2, 3, 3), None, 1, 0, 1, 2,
    )
    fails(
        "non-positive groups is not supported",
        "conv2d", t(1, 4, 5, 5), t(3, 4, 3, 3), None, 1, 0, 1, 0,
    )


def test_conv_argument_errors() -> None:
    x, w = t(1, 3, 5, 5), t(8, 3, 3, 3)
    fails("negative padding is not supported", "conv2d", x, w, None, 1, -1)
    fails("non-positive stride is not supported", "conv2d", x, w, None, 0)
    fails("dilation should be greater than zero", "conv2d", x, w, None, 1, 0, 0)
    fails(
        "negative output_padding is not supported",
        "convolution", x, w, None, [1], [0], [1], False, [-1], 1,
    )
    fails(
        "expected stride to be a single integer value or a list of 2 values to match the "
        "convolution dimensions, but got stride=[1, 1, 1]",
        "convolution", x, w, None, [1, 1, 1], [0], [1], False, [0], 1,
    )
    fails(
        "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [5, 5]",
        "conv2d", t(5, 5), w,
    )
    fails(
        "Input type (float32) and weight type (float64) should be the same",
        "conv2d", x, t(8, 3, 3, 3, dtype=F64),
    )
    fails(
        "Input type (float32) and bias type (float64) should be the same",
        "conv2d", x, w, t(8, dtype=F64),
    )


def test_conv_kernel_too_large() -> None:
    fails(
        "Calculated padded input size per channel: (2 x 4). Kernel size: (3 x 3). "
        "Kernel size can't be greater than actual input size",
        "conv2d", t(1, 3, 2, 4), t(8, 3, 3, 3),
    )
    # dilation 2 makes a 3-tap kernel span 5
    fails(
        "Calculated padded input size per channel: (4). Kernel size: (5). "
        "Kernel size can't be greater than actual input size",
        "conv1d", t(1, 3, 4), t(8, 3, 3), None, 1, 0, 2,
    )


def test_conv_padding_string_errors() -> None:
    x, w = t(1, 3, 5, 5), t(8, 3, 3, 3)
    fails("Invalid padding string: 'full'", "conv2d.padding", x, w, None, 1, "full")
    fails(
        "padding='same' is not supported for strided convolutions",
        "conv2d.padding", x, w, None, 2, "same",
    )


def test_conv_transpose_errors() -> None:
    fails(
        "output padding must be smaller than either stride or dilation, but got "
        "output_padding=[1, 1], stride=[1, 1], dilation=[1, 1]",
        "conv_transpose2d.input", t(1, 4, 5, 5), t(4, 2, 3, 3), None, 1, 0, 1,
    )
    fails(
        "Given input size per channel: [1, 1]. Calculated output size per channel: [-1, -1]. "
        "Output size is too small",
        "conv_transpose2d.input", t(1, 4, 1, 1), t(4, 2, 1, 1), None, 1, 1,
    )


def test_convolution_backward() -> None:
    go, x, w = t(2, 8, 3, 3), t(2, 4, 5, 5), t(8, 4, 3, 3)
    args = ([8], [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    grads = run("convolution_backward", go, x, w, *args, [True, True, True])
    assert grads == (x, w, t(8))
    partial = run("convolution_backward", go, x, w, *args, [True, False, False])
    assert partial == (x, None, None)
    no_sizes = run("convolution_backward", go, x, w, None, *args[1:], [False, False, True])
    assert no_sizes == (None, None, t(8))
    fails(
        "Expected input and grad_output to have the same number of dimensions, but got: 4 and 3",
        "convolution_backward", t(8, 3, 3), x, w, *args, [True, True, True],
    )


# ---------------------------------------------------------------- pooling


def test_ceil_mode() -> None:
    x = t(1, 1, 5, 5)
    assert run("max_pool2d", x, [2, 2], [2, 2]) == t(1, 1, 2, 2)
    assert run("max_pool2d", x, [2, 2], [2, 2], ceil_mode=True) == t(1, 1, 3, 3)
    assert run("avg_pool2d", x, [2, 2], [2, 2], [0, 0], True) == t(1, 1, 3, 3)
    # with pad 1 the 4th window would start in the right padding: torch drops it
    assert run("max_pool2d", x, [2, 2], [2, 2], [1, 1], ceil_mode=True) == t(1, 1, 3, 3)
    assert run("max_pool2d", t(1, 1, 6, 6), [2, 2], [2, 2], [1, 1], ceil_mode=True) == t(1, 1, 4, 4)


def test_symbolic_ceil_mode_guards_the_last_window() -> None:
    x = t(1, 1, s1, s1)
    for hint, expected in ((5, "((s1 + 1)//2)"), (6, "((s1 + 1)//2) + 1")):
        oracle = HintOracle(s1=hint)
        with using_oracle(oracle):
            out = run("max_pool2d", x, [2, 2], [2, 2], [1, 1], ceil_mode=True)
        assert dims(out)[2:] == [expected, expected]
        assert sympy.Lt(2 * FloorDiv(s1 + 1, 2), s1 + 1) in oracle.asked
    floor_mode = run("max_pool2d", x, [2, 2], [2, 2])
    assert dims(floor_mode)[2] == "(s1//2)"  # torch's FloorDiv takes the 2 out of ((s1 - 2)//2) + 1


def test_pool_dilation_and_variants() -> None:
    # 10 + 0 - 2*(3-1) - 1 = 5, stride 1 -> 6
    assert run("max_pool2d", t(1, 2, 10, 10), [3, 3], [1, 1], [0, 0], [2, 2]) == t(1, 2, 6, 6)
    assert run("max_pool2d", t(2, 10, 10), 3, [], 1) == t(2, 4, 4)  # unbatched, stride = kernel
    assert run("max_pool1d", t(1, 4, 9), [3]) == t(1, 4, 3)
    assert run("max_pool3d", t(1, 1, 4, 6, 8), [2, 2, 2]) == t(1, 1, 2, 3, 4)
    values, indices = run("max_pool3d_with_indices", t(1, 1, 4, 6, 8), [2], [2], [0], [1], False)
    assert (values.shape, indices.dtype) == ((1, 1, 2, 3, 4), I64)
    assert run("avg_pool1d", t(1, 4, 9), [3], [2], [1]) == t(1, 4, 5)
    assert run("avg_pool3d", t(1, 2, 4, 4, 4), [2, 2, 2]) == t(1, 2, 2, 2, 2)


def test_pool_errors() -> None:
    x = t(1, 1, 5, 5)
    fails(
        "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 "
        "and dilation=1",
        "max_pool2d", x, [3, 3], [1, 1], [2, 2],
    )
    # allowed by the effective (dilated) kernel, but not by the plain one
    fails(
        "pad should be smaller than or equal to half of kernel size, but got padW = 2, "
        "padH = 2, kW = 3, kH = 3",
        "max_pool2d", t(1, 1, 9, 9), [3, 3], [1, 1], [2, 2], [2, 2],
    )
    fails("pad must be non-negative, but got pad: -1", "max_pool2d", x, [3, 3], [1, 1], [-1, -1])
    fails("stride should not be zero", "max_pool2d", x, [3, 3], [0, 0])
    fails(
        "kernel size should be greater than zero, but got kH: 0, kW: 2",
        "max_pool2d", x, [0, 2], [1, 1],
    )
    fails(
        "dilation should be greater than zero, but got dilationH: 0, dilationW: 1",
        "max_pool2d", x, [2, 2], [1, 1], [0, 0], [0, 1],
    )
    fails(
        "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small",
        "max_pool2d", t(1, 1, 2, 2), [3, 3],
    )
    fails(
        "max_pool2d: kernel_size must either be a single int, or a tuple of two ints",
        "max_pool2d", x, [3, 3, 3],
    )
    fails(
        "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
        "max_pool2d", x, [3, 3], [1, 1, 1],
    )
    fails("non-empty 3D or 4D (batch mode) tensor expected for input", "max_pool2d", t(5, 5), [2])
    fails("divisor must be not zero", "avg_pool2d", x, [2, 2], [], [0, 0], False, True, 0)
    fails(
        "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
        "but got: [1, 0, 5, 5]",
        "max_pool2d", t(1, 0, 5, 5), [2, 2],
    )


def test_pool_backward() -> None:
    x = t(1, 64, 112, 112)
    args = ([3, 3], [2, 2], [1, 1], [1, 1], False)
    idx = t(1, 64, 56, 56, dtype=I64)
    grad = run("max_pool2d_with_indices_backward", t(1, 64, 56, 56), x, *args, idx)
    assert grad == x
    fails(
        "Expected a tensor of dimension 4 and tensor.size[3] == 56, but got : dimension 4 and "
        "tensor.size[3] = 55",
        "max_pool2d_with_indices_backward", t(1, 64, 56, 55), x, *args, idx,
    )
    avg = run("avg_pool2d_backward", t(1, 1, 2, 2), t(1, 1, 5, 5), [2, 2], [2, 2], [0, 0],
              False, True, None)
    assert avg == t(1, 1, 5, 5)
    fails(
        "expected dtype float32 for `grad_output` but got dtype float64",
        "avg_pool2d_backward", t(1, 1, 2, 2, dtype=F64), t(1, 1, 5, 5), [2, 2], [2, 2], [0, 0],
        False, True, None,
    )


# ------------------------------------------------------- adaptive pooling


def test_adaptive_pools() -> None:
    assert run("adaptive_avg_pool2d", t(1, 512, 7, 7), [1, 1]) == t(1, 512, 1, 1)
    assert run("_adaptive_avg_pool2d", t(512, 7, 7), [3, 2]) == t(512, 3, 2)
    assert dims(run("adaptive_avg_pool2d", t(s0, 3, s1, s1), [7, 7])) == ["s0", "3", "7", "7"]
    assert run("adaptive_avg_pool1d", t(2, 4, 9), [3]) == t(2, 4, 3)
    assert run("_adaptive_avg_pool3d", t(1, 2, 4, 4, 4), [1, 2, 2]) == t(1, 2, 1, 2, 2)
    values, indices = run("adaptive_max_pool2d", t(1, 8, 9, 9), [2, 2])
    assert (values, indices) == (t(1, 8, 2, 2), t(1, 8, 2, 2, dtype=I64))
    grad = run("_adaptive_avg_pool2d_backward", t(1, 512, 1, 1), t(1, 512, 7, 7))
    assert grad == t(1, 512, 7, 7)


def test_adaptive_pool_errors() -> None:
    fails(
        "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [7, 7]",
        "adaptive_avg_pool2d", t(7, 7), [1, 1],
    )
    fails("adaptive_avg_pool2d: output_size must be 2", "adaptive_avg_pool2d", t(1, 3, 7, 7), [1])
    fails(
        "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
        "received [-1, 2]",
        "adaptive_avg_pool2d", t(1, 3, 7, 7), [-1, 2],
    )
    fails(
        "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
        "but input has sizes [1, 3, 0, 7] with dimension 2 being empty",
        "adaptive_max_pool2d", t(1, 3, 0, 7), [1, 1],
    )
    fails(
        "expected dtype float32 for `grad_output` but got dtype float64",
        "_adaptive_avg_pool2d_backward", t(1, 3, 1, 1, dtype=F64), t(1, 3, 7, 7),
    )


# ---------------------------------------------------------------- upsample


def test_upsample_scales() -> None:
    assert dims(run("upsample_nearest1d.vec", t(1, 3, s0), None, [2.0])) == ["1", "3", "2*s0"]
    assert run("upsample_nearest2d.vec", t(1, 3, 4, 5), None, [2.0, 3.0]) == t(1, 3, 8, 15)
    assert run("upsample_nearest2d.vec", t(1, 3, 10, 10), None, [1.1, 0.25]) == t(1, 3, 11, 2)
    half = run("upsample_bilinear2d.vec", t(1, 3, s0, s1), None, False, [0.5, 1.5])
    assert dims(half)[2:] == ["(s0//2)", "((3*s1)//2)"]
    odd = run("upsample_nearest2d.vec", t(1, 3, s0, 4), None, [1.1, 1.0])
    assert odd.shape[2] == sympy.floor(s0 * sympy.Float(1.1)) and odd.shape[3] == 4


def test_upsample_sizes_and_overloads() -> None:
    x = t(2, 3, 4, 4)
    assert run("upsample_nearest2d.vec", x, [7, 9], None) == t(2, 3, 7, 9)
    assert run("upsample_bilinear2d.vec", x, [8, 8], True, None) == t(2, 3, 8, 8)
    assert run("upsample_nearest2d", x, [6, 6]) == t(2, 3, 6, 6)
    assert run("upsample_bilinear2d", x, [5, 3], False) == t(2, 3, 5, 3)
    assert run("upsample_linear1d.vec", t(1, 2, 5), [10], True, None) == t(1, 2, 10)
    assert run("upsample_bicubic2d.vec", x, None, False, [2.0, 0.5]) == t(2, 3, 8, 2)


def test_upsample_errors() -> None:
    x = t(1, 3, 4, 4)
    both = "Must specify exactly one of output_size and scale_factors"
    fails(both, "upsample_nearest2d.vec", x, [8, 8], [2.0, 2.0])
    fails(both, "upsample_nearest2d.vec", x, None, None)
    fails(
        "It is expected input_size equals to 4, but got size 3",
        "upsample_nearest2d.vec", t(3, 4, 4), [8, 8], None,
    )
    fails(
        "It is expected output_size equals to 2, but got size 1",
        "upsample_nearest2d.vec", x, [8], None,
    )
    fails(
        "It is expected scale_factors equals to 2, but got size 1",
        "upsample_nearest2d.vec", x, None, [2.0],
    )
    fails(
        "Input and output sizes should be greater than 0, but got input (H: 4, W: 4) "
        "output (H: 0, W: 8)",
        "upsample_nearest2d.vec", x, None, [0.1, 2.0],
    )


# ------------------------------------------------------------ grid sampler


def test_grid_sampler() -> None:
    out = run("grid_sampler_2d", t(2, 3, 8, 8), t(2, 5, 6, 2), 0, 0, False)
    assert out == t(2, 3, 5, 6)
    assert dims(run("grid_sampler_2d", t(s0, 3, 8, 8), t(s0, s1, 6, 2), 0, 0, False)) == [
        "s0", "3", "s1", "6",
    ]


def test_grid_sampler_errors() -> None:
    x = t(2, 3, 8, 8)
    fails(
        "grid_sampler(): expected grid and input to have same batch size, but got input with "
        "sizes [2, 3, 8, 8] and grid with sizes [1, 5, 6, 2]",
        "grid_sampler_2d", x, t(1, 5, 6, 2), 0, 0, False,
    )
    fails(
        "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with "
        "sizes [2, 5, 6, 3]",
        "grid_sampler_2d", x, t(2, 5, 6, 3), 0, 0, False,
    )
    fails(
        "grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
        "input with sizes [2, 3, 8, 8] and grid with sizes [2, 5, 2]",
        "grid_sampler_2d", x, t(2, 5, 2), 0, 0, False,
    )
    fails(
        "grid_sampler(): expected input and grid to have same dtype, but input has float32 and "
        "grid has float64",
        "grid_sampler_2d", x, t(2, 5, 6, 2, dtype=F64), 0, 0, False,
    )


# ---------------------------------------------------------- im2col/col2im


def test_im2col_col2im() -> None:
    cols = run("im2col", t(1, 3, 4, 4), [2, 2], [1, 1], [0, 0], [2, 2])
    assert cols == t(1, 12, 4)
    assert run("im2col", t(3, 5, 5), [3, 3], [1, 1], [1, 1], [1, 1]) == t(27, 25)
    assert run("col2im", cols, [4, 4], [2, 2], [1, 1], [0, 0], [2, 2]) == t(1, 3, 4, 4)
    assert run("col2im", t(27, 25), [5, 5], [3, 3], [1, 1], [1, 1], [1, 1]) == t(3, 5, 5)


def test_im2col_col2im_errors() -> None:
    fails(
        "Given an input with spacial size [2, 2], kernel_size=[3, 3], dilation=[1, 1], "
        "padding=[0, 0], stride=[1, 1], the calculated shape of the array of sliding blocks is "
        "[0, 0], but its components must be at least one.",
        "im2col", t(1, 3, 2, 2), [3, 3], [1, 1], [0, 0], [1, 1],
    )
    fails(
        "kernel_size should be greater than zero, but got [0, 2]",
        "im2col", t(1, 3, 4, 4), [0, 2], [1, 1], [0, 0], [1, 1],
    )
    fails(
        "padding should be greater than or equal to zero, but got [-1, 0]",
        "im2col", t(1, 3, 4, 4), [2, 2], [1, 1], [-1, 0], [1, 1],
    )
    fails(
        "Expected size of input's first non-batch dimension to be divisible by the product of "
        "kernel_size, but got input.shape[-2] = 10 and kernel_size=[2, 2]",
        "col2im", t(1, 10, 4), [4, 4], [2, 2], [1, 1], [0, 0], [2, 2],
    )
    fails(
        "Given output_size=[4, 4], kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], "
        "stride=[2, 2], expected input.size(-1) to be 4 but got 5.",
        "col2im", t(1, 12, 5), [4, 4], [2, 2], [1, 1], [0, 0], [2, 2],
    )


# ---------------------------------------------------------------- padding


def test_constant_pad_nd() -> None:
    x = t(1, 3, 4, 4)
    assert run("constant_pad_nd", x, [1, 2]) == t(1, 3, 4, 7)
    assert run("constant_pad_nd", x, [1, 1, 2, 2]) == t(1, 3, 8, 6)
    assert run("constant_pad_nd", x, [-1, -1, 0, 1], 0.5) == t(1, 3, 5, 2)
    assert run("constant_pad_nd", x, [0, 0, 0, 0, 0, 0, 1, 0]) == t(2, 3, 4, 4)
    assert dims(run("constant_pad_nd", t(2, s0), [-1, 0])) == ["2", "s0 - 1"]


def test_constant_pad_nd_errors() -> None:
    x = t(3, 4)
    fails("Length of pad must be even but instead it equals 3", "constant_pad_nd", x, [1, 1, 1])
    fails(
        "Length of pad should be no more than twice the number of dimensions of the input. "
        "Pad length is 6 while the input has 2 dimensions.",
        "constant_pad_nd", x, [1, 1, 1, 1, 1, 1],
    )
    fails(
        "The input size 4, plus negative padding -3 and -2 resulted in a negative output size, "
        "which is invalid. Check dimension 1 of your input.",
        "constant_pad_nd", x, [-3, -2],
    )


def test_reflection_and_replication_pads() -> None:
    assert run("reflection_pad1d", t(2, 3, 5), [2, 1]) == t(2, 3, 8)
    assert run("reflection_pad2d", t(3, 4, 4), [1, 1, 2, 0]) == t(3, 6, 6)
    assert run("reflection_pad3d", t(1, 1, 3, 3, 3), [1] * 6) == t(1, 1, 5, 5, 5)
    assert run("replication_pad2d", t(1, 3, 2, 2), [5, 5, 0, 0]) == t(1, 3, 2, 12)
    assert run("replication_pad3d", t(1, 1, 2, 2, 2), [1, 0, 0, 0, 0, 2]) == t(1, 1, 4, 2, 3)
    assert dims(run("reflection_pad2d", t(1, 3, s0, s1), [1, 1, 1, 1])) == [
        "1", "3", "s0 + 2", "s1 + 2",
    ]


def test_edge_pad_errors() -> None:
    fails(
        "Argument #4: Padding size should be less than the corresponding input dimension, but "
        "got: padding (5, 1) at dimension 3 of input [1, 3, 4, 4]",
        "reflection_pad2d", t(1, 3, 4, 4), [5, 1, 0, 0],
    )
    fails(
        "Argument #6: Padding size should be less than the corresponding input dimension, but "
        "got: padding (0, 4) at dimension 2 of input [1, 3, 4, 4]",
        "reflection_pad2d", t(1, 3, 4, 4), [0, 0, 0, 4],
    )
    fails(
        "padding size is expected to be 4, but got: 2", "replication_pad2d", t(1, 3, 4, 4), [1, 1]
    )
    fails(
        "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero "
        "dimensions for input, but got: [1, 1, 3, 4]",
        "reflection_pad1d", t(1, 1, 3, 4), [1, 1],
    )
    fails(
        "input (H: 2 W: 2) is too small. Calculated output H: 2 W: 0",
        "replication_pad2d", t(1, 3, 2, 2), [-1, -1, 0, 0],
    )


def test_pad_modes() -> None:
    x = t(1, 3, 4, 4)
    assert run("pad", x, [1, 1, 1, 1]) == t(1, 3, 6, 6)
    assert run("pad", x, [1, 1], "constant", 2.0) == t(1, 3, 4, 6)
    assert run("pad", x, [1, 1, 2, 2], "reflect") == t(1, 3, 8, 6)
    assert run("pad", t(3, 4, 4), [3, 3], "replicate") == t(3, 4, 10)
    assert run("pad", x, [4, 4, 1, 0], "circular") == t(1, 3, 5, 12)
    assert run("pad", t(1, 2, 3, 3, 3), [1, 1, 1, 1, 2, 2], "replicate") == t(1, 2, 7, 5, 5)
    assert run("pad", t(2, 5), [2, 1], "circular") == t(2, 8)
    assert run("pad", t(3, 4, 4), [1, 1], "reflect") == t(3, 4, 6)


def test_pad_mode_errors() -> None:
    x = t(1, 3, 4, 4)
    fails("Unrecognised padding mode wrap", "pad", x, [1, 1], "wrap")
    fails(
        'Padding mode "reflect" doesn\'t take in value argument', "pad", x, [1, 1], "reflect", 1.0
    )
    fails("Padding length must be divisible by 2", "pad", x, [1], "replicate")
    fails(
        "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now",
        "pad", t(1, 1, 4, 4), [1, 1], "reflect",
    )
    fails(
        "Padding value causes wrapping around more than once.", "pad", t(3, 4), [5, 0], "circular"
    )


# ----------------------------------------------------------- pixel shuffle


def test_pixel_shuffle_and_unshuffle() -> None:
    assert run("pixel_shuffle", t(1, 18, 4, 5), 3) == t(1, 2, 12, 15)
    assert run("pixel_unshuffle", t(2, 12, 15), 3) == t(18, 4, 5)
    assert run("pixel_shuffle", t(2, 7, 8, 3, 3), 2) == t(2, 7, 2, 6, 6)
    up = run("pixel_shuffle", t(1, 8, s0, s1), 2)
    assert dims(up) == ["1", "2", "2*s0", "2*s1"]


def test_pixel_unshuffle_symbolic_divisibility_is_guarded() -> None:
    oracle = HintOracle(s0=8, s1=6)
    with using_oracle(oracle):
        out = run("pixel_unshuffle", t(1, 3, s0, s1), 2)
    assert dims(out) == ["1", "12", "(s0//2)", "(s1//2)"]
    assert sympy.Eq(sympy.Mod(s0, 2), 0) in oracle.asked
    with using_oracle(HintOracle(s0=7, s1=6)):
        fails(
            "pixel_unshuffle expects height to be divisible by downscale_factor, but "
            "input.size(-2)=s0 is not divisible by 2",
            "pixel_unshuffle", t(1, 3, s0, s1), 2,
        )


def test_pixel_shuffle_errors() -> None:
    fails(
        "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
        "upscale_factor, but input.size(-3)=8 is not divisible by 9",
        "pixel_shuffle", t(1, 8, 4, 4), 3,
    )
    fails(
        "pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 "
        "dimension(s)",
        "pixel_shuffle", t(4, 4), 2,
    )
    fails(
        "pixel_shuffle expects a positive upscale_factor, but got 0", "pixel_shuffle", t(1, 4, 4), 0
    )
    fails(
        "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=5 "
        "is not divisible by 2",
        "pixel_unshuffle", t(1, 4, 5), 2,
    )


# ------------------------------------------------- the remaining messages


def test_pool_and_adaptive_messages() -> None:
    fails(
        "stride should be greater than zero, but got dH: -1, dW: -1",
        "max_pool2d", t(1, 1, 5, 5), [2, 2], [-1, -1],
    )
    fails(
        "adaptive_avg_pool2d_backward(): Expected 3D or 4D tensor, but got [3, 1]",
        "_adaptive_avg_pool2d_backward", t(3, 1), t(3, 7),
    )
    fails(
        "Expected a tensor of dimension 4 and tensor.size[1] == 2, but got : dimension 3 and "
        "tensor.size[1] = 2",
        "max_pool2d_with_indices_backward", t(1, 2, 2, 2), t(1, 2, 4, 4), [2, 2], [2, 2],
        [0, 0], [1, 1], False, t(1, 2, 2, dtype=I64),
    )


def test_grid_and_window_messages() -> None:
    fails(
        "grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
        "sizes [2, 3, 0, 8] with dimension 2 being empty",
        "grid_sampler_2d", t(2, 3, 0, 8), t(2, 5, 6, 2), 0, 0, False,
    )
    fails(
        "Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size and "
        "non-zero dimensions, but got: [4, 4]",
        "im2col", t(4, 4), [2, 2], [1, 1], [0, 0], [1, 1],
    )
    fails(
        "Expected 2D or 3D (batch mode) tensor for input with possible 0 batch size and "
        "non-zero dimensions, but got: [1, 2, 3, 4]",
        "col2im", t(1, 2, 3, 4), [4, 4], [2, 2], [1, 1], [0, 0], [2, 2],
    )
    fails(
        "output_size should be greater than zero, but got [0, 4]",
        "col2im", t(1, 12, 4), [0, 4], [2, 2], [1, 1], [0, 0], [2, 2],
    )
    # blocks (1-3)//1+1 = -1 per dim: their product 1 matches L, but each must be >= 1
    fails(
        "Given output_size=[1, 1], kernel_size=[3, 3], dilation=[1, 1], padding=[0, 0], "
        "stride=[1, 1], calculated shape of the array of sliding blocks as [-1, -1], but its "
        "components must be at least one.",
        "col2im", t(9, 1), [1, 1], [3, 3], [1, 1], [0, 0], [1, 1],
    )


def test_padding_and_shuffle_messages() -> None:
    fails(
        "Negative padding value is resulting in an empty dimension",
        "pad", t(2, 3), [-2, -2], "circular",
    )
    fails(
        "Padding length should be less than or equal to two times the input dimension but got "
        "padding length 4 and input of dimension 1",
        "pad", t(4), [1, 1, 1, 1], "reflect",
    )
    fails(
        "pixel_unshuffle expects input to have at least 3 dimensions, but got input with 2 "
        "dimension(s)",
        "pixel_unshuffle", t(4, 4), 2,
    )
    fails(
        "pixel_unshuffle expects a positive downscale_factor, but got -2",
        "pixel_unshuffle", t(1, 4, 4), -2,
    )
